"""Differential tests of integer arithmetic: the same SQL on sqlext and on
PostgreSQL 15. int2, int4 and int8 results that do not fit their type are
error 22003, never a wrapped or widened value; result columns have the same
names, type OIDs and type modifiers.

(Sums and averages of integers are numeric values: they belong with the
numeric cases.)
"""

from __future__ import annotations

import psycopg
import pytest

from tests.fixtures.differential import outcome, peers_fixture

SETUP = [
    "CREATE TABLE ints (id int PRIMARY KEY, s int2, i int4, b int8)",
    "INSERT INTO ints VALUES (1, 32767, 2147483647, 9223372036854775807), "
    "(2, -32768, -2147483648, -9223372036854775808), (3, 1, 1, 1), (4, NULL, NULL, NULL), "
    "(5, 100, 2147483000, 9223372036854775000)",
]

INTEGER_OVERFLOW = [
    "SELECT 2147483647::int + 1",
    "SELECT 2147483647 + 1",
    "SELECT -2147483647 - 1, -2147483647 - 2::int8",
    "SELECT -2147483647 - 2",
    "SELECT -2147483648::int",
    "SELECT (-2147483648)::int / -1",
    "SELECT (-2147483648)::int % -1, (-2147483648)::int / 1",
    "SELECT -((-2147483648)::int)",
    "SELECT abs((-2147483648)::int)",
    "SELECT (-2147483648)::int * -1",
    "SELECT 2147483647::int * 2",
    "SELECT 65536 * 32768",
    "SELECT 46341 * 46341",
    "SELECT 46340 * 46340, -46341 * 46340",
    "SELECT -2147483648 / -1",
    "SELECT 32767::int2 + 1::int2",
    "SELECT 32767::int2 + 1, pg_typeof(32767::int2 + 1), pg_typeof(1::int2 + 1::int2)",
    "SELECT (-32768)::int2 / (-1)::int2",
    "SELECT (-32768)::int2 % (-1)::int2, (-32768)::int2 / 1::int2",
    "SELECT -((-32768)::int2)",
    "SELECT abs((-32768)::int2)",
    "SELECT 200::int2 * 200::int2",
    "SELECT 32767::int2 - (-1)::int2",
    "SELECT 9223372036854775807 + 1",
    "SELECT 9223372036854775807::int8 * 2",
    "SELECT (-9223372036854775808)::int8 / -1",
    "SELECT (-9223372036854775808)::int8 % -1, -9223372036854775808 / 1",
    "SELECT -((-9223372036854775808)::int8)",
    "SELECT abs((-9223372036854775808)::int8)",
    "SELECT (-9223372036854775808)::int8 - 1",
    "SELECT 3037000500 * 3037000500",
    "SELECT 3037000499 * 3037000499, 4611686018427387904 * -2",
    "SELECT 4611686018427387904 * 2",
    "SELECT 2147483647::int4 + 1::int8, 32767::int2 * 2::int4, pg_typeof(1::int2 * 1::int8)",
    "SELECT 2147483647::int4 * 2::int2",
    "SELECT 32767::int2 * 2::int8, 2147483647::int4 - (-1)::int8",
    "SELECT 2147483648::int8::int4",
    "SELECT (-2147483649)::int8::int4",
    "SELECT 32768::int4::int2",
    "SELECT 9223372036854775808::int8",
    "SELECT '9223372036854775808'::int8",
    "SELECT '2147483648'::int4",
    "SELECT '-32769'::int2",
    "SELECT '-9223372036854775808'::int8, '-2147483648'::int4, '-32768'::int2",
    "SELECT 1e10::int4",
    "SELECT 2147483647.0::float8::int4, (-2147483648.4)::float8::int4",
    "SELECT 2147483648.0::float8::int4",
    "SELECT 1e19::float8::int8",
    "SELECT 'Infinity'::float8::int4",
    "SELECT 1 / 0",
    "SELECT 1::int8 % 0",
    "SELECT 1::int2 / 0::int2",
    "SELECT sum(i) * 1000000000000 FROM ints WHERE i > 0",
    "SELECT sum(i) * 10000000000 FROM ints WHERE i > 0",
    "SELECT id, sum(i) OVER (ORDER BY id), sum(b) OVER (ORDER BY id) FROM ints ORDER BY id",
    "SELECT id, i * 2 FROM ints ORDER BY id",
    "SELECT id, s + s FROM ints WHERE id > 2 ORDER BY id",
    "SELECT id, s + s FROM ints ORDER BY id",
    "SELECT id, b + 1 FROM ints ORDER BY id",
    "SELECT id, -b FROM ints ORDER BY id",
    "SELECT id FROM ints WHERE i + 1 > 0 ORDER BY id",
    "SELECT id FROM ints WHERE i::int8 + 1 > 0 ORDER BY id",
    "SELECT id, i::int2 FROM ints ORDER BY id",
    "SELECT id, b::int4 FROM ints WHERE id IN (3, 4)",
    "SELECT max(i) + 1 FROM ints",
    "SELECT max(i)::int8 + 1, min(b) + 0, max(s) - 1 FROM ints",
    "SELECT * FROM generate_series(2147483645, 2147483647) g",
    "SELECT count(*) FROM ints WHERE s * 1000 > 0",
]

Peers = tuple[psycopg.Connection, psycopg.Connection]


peers = peers_fixture(SETUP, "integers")


@pytest.mark.parametrize("sql", INTEGER_OVERFLOW)
def test_integer_arithmetic(peers: Peers, sql: str) -> None:
    reference, ours = peers
    assert outcome(ours, sql, typmods=True) == outcome(reference, sql, typmods=True)
