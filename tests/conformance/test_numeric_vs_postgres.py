"""Differential tests of exact numeric: the same SQL on sqlext and on
PostgreSQL 15.

Numeric values must come back digit for digit with PostgreSQL's scales
(``1.10`` stays ``1.10``, ``1::numeric / 3`` has 20 digits after the point),
result columns with the same names, type OIDs and type modifiers, errors
with the same SQLSTATE (22003 for a value out of range, 22012 for a division
by zero, 2201E/2201F for invalid logarithm and power arguments). Besides
single statements there are scripts of INSERT/UPDATE steps on numeric and
integer columns, parameters and results in text and binary formats, and a
seeded random corpus (tests/fixtures/numeric_corpus.py) whose expressions
mix numeric and integer arithmetic. Integer arithmetic alone is in
test_integers_vs_postgres.py.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Any

import psycopg
import pytest

from tests.fixtures import numeric_corpus
from tests.fixtures.differential import outcome, peers_fixture

SETUP = [
    "CREATE TABLE ledger (id int PRIMARY KEY, grp text, amount numeric(12,2), "
    "precise numeric(38,10), free numeric)",
    "INSERT INTO ledger VALUES "
    "(1, 'a', 10.5, 1.0000000001, 1.10), "
    "(2, 'a', 19.5, 2.5, 2.345), "
    "(3, 'b', 0.25, 1234567890123456789012345678.1234567891, -7), "
    "(4, 'b', 99999.99, -0.0000000001, 0.000001), "
    "(5, 'c', NULL, NULL, NULL), "
    "(6, 'c', -15.75, 3, 100), "
    "(7, 'd', 1234567890.12, 0, 12345678901234567890.123456789)",
    "CREATE TABLE scales (id int PRIMARY KEY, v numeric)",
    "INSERT INTO scales VALUES (1, 1.10), (2, 1.1), (3, 1.100), (4, 2.50), (5, 2.5), "
    "(6, 0), (7, -0.0), (8, 0.00), (9, NULL), (10, -1.1)",
    "CREATE TABLE specials (id int PRIMARY KEY, v numeric)",
    "INSERT INTO specials VALUES (1, 'NaN'), (2, 'Infinity'), (3, '-Infinity'), (4, 1.5), "
    "(5, -2), (6, NULL), (7, 0)",
    "CREATE TABLE ints (id int PRIMARY KEY, s int2, i int4, b int8)",
    "INSERT INTO ints VALUES (1, 32767, 2147483647, 9223372036854775807), "
    "(2, -32768, -2147483648, -9223372036854775808), (3, 1, 1, 1), (4, NULL, NULL, NULL), "
    "(5, 100, 2147483000, 9223372036854775000)",
    *numeric_corpus.OPERANDS_SETUP,
]

LITERALS_AND_TYPMODS = [
    "SELECT 12345678901234567890.123456789::numeric",
    "SELECT 12345678901234567890.123456789, -0.000000000000000000000000000001",
    "SELECT 123456789012345678901234567890, 99999999999999999999999999999999999999::numeric(38,0)",
    "SELECT pg_typeof(1.5), pg_typeof(2147483647), pg_typeof(2147483648), "
    "pg_typeof(9223372036854775808), pg_typeof(-2147483648), pg_typeof(-9223372036854775808)",
    "SELECT 0.1 + 0.2, 0.1 + 0.2 = 0.3",
    "SELECT '  -00012.3400  '::numeric, '+.5'::numeric, '5.'::numeric, '-0'::numeric",
    "SELECT '1e5'::numeric, '1.5E-3'::numeric, 1e5, 2.5e-3, 1e-20, 1e20",
    "SELECT 'abc'::numeric",
    "SELECT '1.2.3'::numeric",
    "SELECT ''::numeric",
    "SELECT 1.00::numeric::text, 1.00::numeric(5,1)::text, 1.50::varchar, 1.50 || 'x'",
    "SELECT -0.0, -0.0::numeric, 0.000, -0::numeric, -0.00 * 1",
    "SELECT 0.00000000000000000001 * 100000000000000000000",
    "SELECT 1.005::numeric(5,2), 1.015::numeric(5,2), -1.005::numeric(5,2), "
    "2.5::numeric(2,0), -2.5::numeric(2,0), 0.5::numeric(1,0)",
    "SELECT 2.675::numeric(4,2), (-2.675)::numeric(4,2), 0.000001::numeric(3,2), "
    "7::numeric(3,2)",
    "SELECT 999.994::numeric(5,2)",
    "SELECT 999.995::numeric(5,2)",
    "SELECT 12345.6::numeric(5,1)",
    "SELECT 10::numeric(3,2)",
    "SELECT 123.456::numeric(38,10), 123.456::numeric(38,18)",
    "SELECT 12345678901234567890.123456789::numeric(38,18)",
    "SELECT 123456789012345678901.1::numeric(38,18)",
    "SELECT 1234.5::numeric(5,-2), 1250::numeric(5,-2), (-1250)::numeric(5,-2), "
    "49.9::numeric(5,-2)",
    "SELECT 12345678::numeric(5,-2)",
    "SELECT 0.00123::numeric(3,5)",
    "SELECT 1.5::numeric(3,5)",
    "SELECT 1::numeric(0,0)",
    "SELECT 1::numeric(1001,0)",
    "SELECT 1::numeric(5,1001)",
    "SELECT 1.5::numeric(1000,500)",
    "SELECT 1.2345::numeric(10,4)::numeric(10,2)::numeric(10,0)",
    "SELECT 1.5::decimal(4,1), 1.5::numeric(4), CAST(2.5 AS numeric(3))",
    "SELECT 'NaN'::numeric(3,1), 'nan'::numeric, 'inf'::numeric, '-inf'::numeric, "
    "'+Infinity'::numeric",
    "SELECT 'Infinity'::numeric(3,1)",
]

ARITHMETIC = [
    "SELECT 1.10 + 2.345, 1.10 - 2.345, 1.10 * 2.345, 1.5 * 2.00",
    "SELECT 1::numeric / 3, 2::numeric / 3, 10.0 / 4, 1 / 3.000000000000000000000",
    "SELECT 1.0 / 7, 100000000000000000000.0 / 3, 0.000001 / 3, 1 / 1000000000000.0",
    "SELECT 123456789.123 / 0.001, 12345678901234567890 / 0.5, 7.000 / 7",
    "SELECT 1::numeric / 0",
    "SELECT 1.5 % 0",
    "SELECT 0.0 / 0",
    "SELECT 10.5 % 3, -10.5 % 3, 10.5 % -3, 7.25 % 0.5, 5 % 2.000",
    "SELECT div(10.5, 3), div(-10.5, 3), mod(10.5, 3), mod(-7, 2.5), div(1, 0.3)",
    "SELECT 1e-10 * 1e-10, 0.1 * 0.1, 99999999999999999999 * 99999999999999999999",
    "SELECT -(1.50), +1.50, - -1.50, -(-0.0)",
    "SELECT 9223372036854775807::numeric + 1, -9223372036854775808::numeric - 1",
    "SELECT 1 + 1.5, 5 / 2.0, 5 / 2, 7::int8 * 1.5, 1::int2 + 0.5, 2147483647 + 1.0",
    "SELECT 2::numeric ^ 100",
    "SELECT 2 ^ 10, 2 ^ 0.5, 2.0 ^ -2, 0.5 ^ 10, (-2.0) ^ 3, 0.0 ^ 0",
    "SELECT (-8.0) ^ (1.0 / 3)",
    "SELECT 0.0 ^ -1",
    "SELECT 10::numeric ^ 131072",
    "SELECT power(2::numeric, 64), power(1.5, 2.5), power(10::numeric, -5), 10.0 ^ 40",
    "SELECT sqrt(2::numeric), sqrt(2.00000000000000000000000000000), sqrt(0::numeric), "
    "sqrt(1e-30), sqrt(12345678901234567890.123456789)",
    "SELECT sqrt(-1::numeric)",
    "SELECT exp(1::numeric), exp(1.0000000000000000000000), exp(-1::numeric), "
    "exp(0::numeric), exp(100::numeric)",
    "SELECT exp(10000::numeric)",
    "SELECT ln(2::numeric), ln(10.000000000000000000000), ln(1e-20)",
    "SELECT ln(0::numeric)",
    "SELECT ln(-1::numeric)",
    "SELECT log(100::numeric), log(2::numeric), log(2::numeric, 1024::numeric), "
    "log(10.0, 0.001), log(0.5, 8), log10(1000::numeric)",
    "SELECT log(1::numeric, 10::numeric)",
    "SELECT log(0::numeric)",
    "SELECT round(2.5), round(-2.5), round(3.5::numeric), round(99.5), round(0.5::numeric(3,1))",
    "SELECT round(1234.5678, 2), round(1234.5678, -2), round(1250, -2), round(-1250, -2), "
    "round(1.5e-10, 10), round(123.456, 10)",
    "SELECT round(-0.4), round(0.004, 2), round(99999999999999999999.5), round(123.456, -5)",
    "SELECT trunc(-1.999), trunc(1234.5678, 2), trunc(1234.5678, -2), trunc(1.5, 5), "
    "trunc(-0.5)",
    "SELECT ceil(-1.5), ceil(1.0000001), ceiling(2.000), ceil(-0.5), floor(-1.0000001), "
    "floor(-0.5), floor(1.999)",
    "SELECT abs(-3.50), abs(-0.0), abs(12345678901234567890.123), sign(-3.50), sign(0.00), "
    "sign(2.5)",
    "SELECT width_bucket(5.35, 0.024, 10.06, 5), width_bucket(-1.0, 0, 10, 5), "
    "width_bucket(10.06, 0.024, 10.06, 5), width_bucket(7.5, 10, 0, 4)",
    "SELECT width_bucket(1.0, 1.0, 1.0, 2)",
    "SELECT scale(1.500), scale(0.0), scale(1e-5), scale(12), scale('NaN'::numeric)",
    "SELECT min_scale(1.500), min_scale(0.000), min_scale(100), trim_scale(1.500), "
    "trim_scale(100.0), trim_scale(-0.00)",
    "SELECT factorial(0), factorial(20), factorial(25)",
    "SELECT factorial(-1)",
    "SELECT gcd(12.5, 7.5), gcd(0.0, 0.000), lcm(1.5, 2.25), gcd(12, 18), lcm(4::int8, 6), "
    "gcd(-12.60, 0)",
    "SELECT lcm(2147483647, 2)",
    "SELECT gcd((-2147483648)::int4, 0)",
    "SELECT greatest(1.1, 1.10, 1.100), least(2.50, 2.5), greatest(1, 2.5, 2::int8)",
    "SELECT 1.10 = 1.1, 1.10 < 1.2, 1.10 <> 1.100, 1.1 IN (1.10, 2), 1.0 = 1",
    "SELECT 'NaN'::numeric = 'NaN'::numeric, 'NaN'::numeric > 'Infinity'::numeric, "
    "'-Infinity'::numeric < -1e100, 'Infinity'::numeric = 'Infinity'::numeric",
]

SPECIAL_VALUES = [
    "SELECT 'NaN'::numeric + 1, 'Infinity'::numeric + 1, 'Infinity'::numeric - 'Infinity', "
    "'Infinity'::numeric * 0, 1 / 'Infinity'::numeric, 'Infinity'::numeric / 'Infinity', "
    "'-Infinity'::numeric * -1",
    "SELECT 'Infinity'::numeric % 2, 5 % 'Infinity'::numeric, 'NaN'::numeric / 0",
    "SELECT 'Infinity'::numeric / 0",
    "SELECT sqrt('Infinity'::numeric), ln('Infinity'::numeric), exp('-Infinity'::numeric), "
    "abs('-Infinity'::numeric), sign('-Infinity'::numeric), round('Infinity'::numeric, 2), "
    "floor('NaN'::numeric), ceil('-Infinity'::numeric)",
    "SELECT 'Infinity'::numeric ^ 2, 2 ^ 'Infinity'::numeric, 0.5 ^ 'Infinity'::numeric, "
    "'NaN'::numeric ^ 0",
    "SELECT 'Infinity'::numeric::int4",
    "SELECT 'NaN'::numeric::int8",
    "SELECT 'Infinity'::numeric::float8, '-Infinity'::numeric::float4, 'NaN'::numeric::float8, "
    "'NaN'::float8::numeric, '-Infinity'::float8::numeric",
    "SELECT id, v FROM specials ORDER BY v, id",
    "SELECT id, v FROM specials ORDER BY v DESC, id",
    "SELECT id, v FROM specials ORDER BY v NULLS FIRST, id",
    "SELECT sum(v), avg(v), min(v), max(v), count(v) FROM specials",
    "SELECT sum(v), avg(v), stddev(v), var_pop(v) FROM specials WHERE id IN (2, 4, 5)",
    "SELECT sum(v), avg(v) FROM specials WHERE id IN (2, 3)",
    "SELECT max(v), min(v) FROM specials WHERE id <> 1",
    "SELECT v, count(*) FROM specials GROUP BY v ORDER BY v",
    "SELECT id FROM specials WHERE v > 1 ORDER BY id",
    "SELECT id FROM specials WHERE v = 'NaN' OR v = '-Infinity' ORDER BY id",
]

SCALES_KEPT = [
    "SELECT id, v FROM scales ORDER BY v, id",
    "SELECT id, v FROM scales ORDER BY v DESC NULLS LAST, id",
    "SELECT id, v, v + 0, v * 1, v::text FROM scales ORDER BY id",
    "SELECT DISTINCT v FROM scales WHERE id IN (4, 5) ",
    "SELECT count(DISTINCT v), count(v) FROM scales",
    "SELECT v, count(*) FROM scales WHERE id IN (1, 4, 6) GROUP BY v ORDER BY v",
    "SELECT count(*) FROM scales GROUP BY v ORDER BY 1",
    "SELECT x FROM (SELECT 1.10 AS x UNION ALL SELECT 1.1) u ORDER BY x, x::text",
    "SELECT count(*) FROM (SELECT 1.10 UNION SELECT 1.1) u",
    "SELECT id FROM scales WHERE v IN (1.1, 2.500) ORDER BY id",
    "SELECT id FROM scales WHERE v = 0 ORDER BY id",
    "SELECT min(v), max(v) FROM scales WHERE id IN (1, 4)",
    "SELECT a.id, b.id FROM scales a JOIN scales b ON a.v = b.v AND a.id < b.id ORDER BY 1, 2",
    "SELECT id, v FROM scales WHERE v BETWEEN 1.1 AND 2.5 ORDER BY v, id",
    "SELECT id, rank() OVER (ORDER BY v) FROM scales WHERE v IS NOT NULL ORDER BY id",
]

AGGREGATES = [
    "SELECT sum(s), sum(i), sum(b), pg_typeof(sum(s)), pg_typeof(sum(i)), pg_typeof(sum(b)) "
    "FROM ints WHERE id <> 2",
    "SELECT avg(s), avg(i), avg(b) FROM ints",
    "SELECT sum(i), sum(b) FROM ints WHERE i > 0",
    "SELECT sum(amount), avg(amount), min(amount), max(amount) FROM ledger",
    "SELECT sum(precise), avg(precise), min(precise), max(precise) FROM ledger",
    "SELECT sum(free), avg(free), min(free), max(free) FROM ledger",
    "SELECT grp, sum(amount), avg(amount), count(amount) FROM ledger GROUP BY grp ORDER BY grp",
    "SELECT grp, sum(precise), sum(free) FROM ledger GROUP BY grp ORDER BY grp",
    "SELECT stddev(amount), stddev_pop(amount), variance(amount), var_pop(amount) FROM ledger",
    "SELECT stddev(precise), stddev_pop(precise), variance(precise), var_pop(precise) "
    "FROM ledger",
    "SELECT stddev(free), stddev_samp(free), var_samp(free), var_pop(free) FROM ledger",
    "SELECT grp, stddev(amount), var_pop(amount) FROM ledger GROUP BY grp ORDER BY grp",
    "SELECT sum(amount), avg(amount), stddev(amount) FROM ledger WHERE id > 100",
    "SELECT sum(DISTINCT amount), avg(DISTINCT free) FROM ledger",
    "SELECT avg(x) FROM (VALUES (1), (2), (2), (2.5)) v(x)",
    "SELECT avg(x), sum(x) FROM (VALUES (1.00), (2.00)) v(x)",
    "SELECT avg(x) FROM (VALUES (1::numeric), (2), (2)) v(x)",
    "SELECT id, sum(amount) OVER (ORDER BY id), avg(amount) OVER (ORDER BY id) FROM ledger "
    "ORDER BY id",
    "SELECT sum(amount * 2), sum(amount / 3), sum(-amount) FROM ledger",
    "SELECT id, amount, precise, free FROM ledger ORDER BY id",
    "SELECT id, amount * precise, amount + free, precise - free FROM ledger ORDER BY id",
    "SELECT id, amount / 7, round(amount / 7, 2), free % 3 FROM ledger WHERE id <> 3 ORDER BY id",
    "SELECT id, precise::numeric(20,5), amount::int4, free::float8 FROM ledger WHERE id <> 3 "
    "ORDER BY id",
    "SELECT id, precise::numeric(20,5) FROM ledger ORDER BY id",
]

CASTS = [
    "SELECT 2.5::int4, 3.5::int4, (-2.5)::int4, (-3.5)::int4, 0.49999::int4, 2.5::int2, "
    "2.5::int8",
    "SELECT 32767.4::int2, (-32768.4)::int2",
    "SELECT 32767.5::int2",
    "SELECT (-32768.5)::int2",
    "SELECT 2147483647.5::int4",
    "SELECT 9223372036854775807.4::int8, (-9223372036854775808.4)::int8",
    "SELECT 9223372036854775807.5::int8",
    "SELECT (-9223372036854775808.5)::int8",
    "SELECT 1e19::int8",
    "SELECT 2147483647::numeric, (-9223372036854775808)::int8::numeric, 32767::int2::numeric",
    "SELECT 1.1::float8, 0.1::float4, 12345678901234567890.123::float8, 1e-300::float8, "
    "1.1::float8::numeric(5,3)",
    "SELECT 1e400::float8",
    "SELECT 1e-400::float8",
    "SELECT 0.1::float8::numeric, 1e300::float8::numeric = 1e300, "
    "(1.0 / 3)::float8::numeric, 123456789.123456789::float8::numeric, 0.1::float4::numeric",
    "SELECT 1e-5::float8::numeric, 2.5e-10::float8::numeric, 1234567.0::float4::numeric, "
    "'Infinity'::float8::numeric",
    "SELECT '1.50'::numeric, '  1.50  '::numeric::text, concat(1.50, 2), 1.50::text || 'x'",
    "SELECT CAST('12345678901234567890.123456789' AS numeric), "
    "'12345678901234567890.123456789'::numeric(30,2)",
    "SELECT 1.5::bool",
]


CASES = LITERALS_AND_TYPMODS + ARITHMETIC + SPECIAL_VALUES + SCALES_KEPT + AGGREGATES + CASTS

SCRIPTS: dict[str, list[str]] = {
    "numeric columns round and overflow": [
        "CREATE TABLE prices (id int PRIMARY KEY, p numeric(5,2), w numeric(38,10), n numeric)",
        "INSERT INTO prices VALUES (1, 1.005, 1.00000000005, 1.10), (2, -1.005, -0.00000000005, "
        "2.345), (3, 999.994, 12345678901234567890.123456789, -0.0)",
        "INSERT INTO prices VALUES (4, 999.995, 0, 0)",
        "INSERT INTO prices VALUES (5, 0, 1234567890123456789012345678901, 0)",
        "INSERT INTO prices (id, p) VALUES (6, 'Infinity')",
        "INSERT INTO prices VALUES (7, 'NaN', 'NaN', 'Infinity') RETURNING *",
        "INSERT INTO prices VALUES (8, '12.345', '0.12345678901', 12345678901234567890.1) "
        "RETURNING p, w, n",
        "SELECT * FROM prices ORDER BY id",
        "UPDATE prices SET p = p * 3 WHERE id < 3",
        "UPDATE prices SET p = p * 3 WHERE id < 7",
        "UPDATE prices SET p = p * 1000 WHERE id = 3",
        "UPDATE prices SET w = w / 3, n = n / 3 WHERE id <> 7",
        "UPDATE prices SET n = n + 0.001, p = p - 0.005 WHERE id = 2 RETURNING id, p, n",
        "SELECT * FROM prices ORDER BY id",
        "SELECT sum(p), avg(p), sum(w), avg(w), sum(n), avg(n) FROM prices WHERE id <> 7",
    ],
    "negative scale column": [
        "CREATE TABLE rounded (id int PRIMARY KEY, v numeric(5,-2))",
        "INSERT INTO rounded VALUES (1, 1234.5), (2, 1250), (3, -1250), (4, 49.99), "
        "(5, 9999949)",
        "INSERT INTO rounded VALUES (6, 9999950)",
        "UPDATE rounded SET v = v + 49 WHERE id = 1 RETURNING v",
        "UPDATE rounded SET v = v + 50 WHERE id = 1 RETURNING v",
        "SELECT id, v, v / 3, scale(v) FROM rounded ORDER BY id",
    ],
    "integer columns overflow": [
        "CREATE TABLE counters (id int PRIMARY KEY, s int2, i int4, b int8)",
        "INSERT INTO counters VALUES (1, 32767, 2147483647, 9223372036854775807), "
        "(2, -32768, -2147483648, -9223372036854775808), (3, 0, 0, 0)",
        "UPDATE counters SET i = i + 1",
        "UPDATE counters SET i = i - 1 WHERE id = 1 RETURNING i",
        "UPDATE counters SET s = s + 1 WHERE id = 1",
        "UPDATE counters SET s = s - 1 WHERE id = 2",
        "UPDATE counters SET b = b + 1 WHERE id = 1",
        "UPDATE counters SET b = b * 2 WHERE id = 3 RETURNING b",
        "UPDATE counters SET i = -i WHERE id = 2",
        "UPDATE counters SET s = id WHERE i + 1 > 0",
        "UPDATE counters SET s = id WHERE i - 1 < 0",
        "INSERT INTO counters VALUES (4, 32768, 0, 0)",
        "INSERT INTO counters VALUES (5, 1, 2147483647 + 1, 0)",
        "INSERT INTO counters (id, i) SELECT id + 10, i * 2 FROM counters WHERE id = 1",
        "INSERT INTO counters (id, b) SELECT id + 20, i::int8 * 2 FROM counters WHERE id = 1 "
        "RETURNING b",
        "INSERT INTO counters (id, i, s) VALUES (6, 2.5, -2.5), (7, -2.5, 32767.4) RETURNING i, s",
        "INSERT INTO counters (id, i) VALUES (8, 2147483647.5)",
        "INSERT INTO counters (id, s) VALUES (9, 32767.5)",
        "INSERT INTO counters (id, i) VALUES (10, 9223372036854775807)",
        "SELECT * FROM counters ORDER BY id",
        "SELECT sum(s), sum(i), sum(b), avg(b) FROM counters",
    ],
}

PARAMETERS: list[tuple[str, tuple[Any, ...]]] = [
    ("SELECT %s::numeric AS v", (Decimal("12345678901234567890.123456789"),)),
    ("SELECT %s + 1 AS v", (Decimal("1.50"),)),
    ("SELECT %s * %s AS v", (Decimal("1.10"), Decimal("2.345"))),
    ("SELECT %s / 3 AS v", (Decimal("1"),)),
    ("SELECT %s::numeric(5,2) AS v", (Decimal("1.005"),)),
    ("SELECT %s::numeric(5,2) AS v", (Decimal("999.995"),)),
    ("SELECT %s AS a, %s AS b, %s AS c", (Decimal("NaN"), Decimal("Infinity"),
                                         Decimal("-Infinity"))),
    ("SELECT %s AS v, %s + 0 AS w", (Decimal("-0.00"), Decimal("-0.00"))),
    ("SELECT %s AS a, %s AS b", (Decimal("1E+5"), Decimal("1E-30"))),
    ("SELECT %s AS v", (Decimal("123.4500"),)),
    ("SELECT %s = 1.1 AS v", (Decimal("1.10"),)),
    ("SELECT %s::int4 AS a, %s::int8 AS b", (Decimal("2.5"), Decimal("-2.5"))),
    ("SELECT %s + %s AS v", (2147483647, 1)),
    ("SELECT %s * 2 AS v", (9223372036854775807,)),
    ("SELECT %s AS v, %s + 1 AS w", (9223372036854775808, 9223372036854775808)),
    ("SELECT %s::numeric AS v", (0.1,)),
    ("SELECT sum(x) AS v FROM unnest(%s::numeric[]) x", ([Decimal("1.10"), Decimal("2.205")],)),
    ("SELECT id, amount FROM ledger WHERE amount = %s OR free = %s ORDER BY id",
     (Decimal("10.500"), Decimal("1.1"))),
]
RESULTS = [
    "SELECT id, amount, precise, free FROM ledger ORDER BY id",
    "SELECT 2::numeric ^ 100 AS a, 1::numeric / 3 AS b, sqrt(2::numeric) AS c",
    "SELECT avg(x) AS v FROM (VALUES (1), (2), (2), (2.5)) v(x)",
    "SELECT id, v FROM specials ORDER BY id",
    "SELECT id, v FROM scales ORDER BY id",
    "SELECT id, s, i, b FROM ints ORDER BY id",
    "SELECT -0.0 AS a, 1.5::numeric(1000,500) AS b, 1e-30 AS c, 1e30 AS d",
    "SELECT sum(s) AS a, sum(i) AS b, sum(b) AS c, avg(b) AS d FROM ints WHERE id <> 2",
]
MODES = {
    "text-params-text-results": ("%t", False),
    "binary-params-text-results": ("%b", False),
    "text-params-binary-results": ("%t", True),
    "binary-params-binary-results": ("%b", True),
}


Peers = tuple[psycopg.Connection, psycopg.Connection]


def short_id(sql: str) -> str:
    """The statement as its test's id, cut to 100 characters (pytest would
    replace a longer one by ``sql<index>``)."""
    return sql if len(sql) <= 100 else sql[:97] + "..."


peers = peers_fixture(SETUP, "numeric")


def check_same(peers: Peers, sql: str) -> None:
    reference, ours = peers
    expected = outcome(reference, sql, typmods=True)
    actual = outcome(ours, sql, typmods=True)
    assert actual == expected, sql


@pytest.mark.parametrize("sql", CASES, ids=short_id)
def test_numeric(peers: Peers, sql: str) -> None:
    check_same(peers, sql)


@pytest.mark.parametrize("sql", numeric_corpus.operations(), ids=short_id)
def test_random_operation(peers: Peers, sql: str) -> None:
    check_same(peers, sql)


@pytest.mark.parametrize("sql", numeric_corpus.expressions(), ids=short_id)
def test_random_expression(peers: Peers, sql: str) -> None:
    check_same(peers, sql)


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_script(peers: Peers, name: str) -> None:
    """Step by step, each step's outcome the same on both (the script's
    table is its own)."""
    for sql in SCRIPTS[name]:
        check_same(peers, sql)


def fetched(connection: psycopg.Connection, sql: str, params: tuple[Any, ...],
            placeholder: str, binary: bool) -> tuple[str, Any]:
    """Columns and the rows as the Python values psycopg makes of them,
    each as its repr (type and value; for a Decimal its digits and
    exponent, so ``1.10`` differs from ``1.1``, and NaN equals NaN), or the
    SQLSTATE of the error. ``placeholder``: %t or %b, parameters sent as
    text or binary; ``binary``: results in binary."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql.replace("%s", placeholder), params, binary=binary)
            assert cursor.description is not None
            columns = [(c.name, c.type_code) for c in cursor.description]
            return "rows", (columns, [[repr(value) for value in row]
                                      for row in cursor.fetchall()])
    except psycopg.Error as exc:
        if connection.info.transaction_status == psycopg.pq.TransactionStatus.UNKNOWN:
            raise
        return "error", exc.sqlstate


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize(("sql", "params"), [
    pytest.param(sql, params, id=short_id(f"{sql} % {params!r}")) for sql, params in PARAMETERS])
def test_parameters(peers: Peers, sql: str, params: tuple[Any, ...], mode: str) -> None:
    reference, ours = peers
    placeholder, binary = MODES[mode]
    expected = fetched(reference, sql, params, placeholder, binary)
    actual = fetched(ours, sql, params, placeholder, binary)
    assert actual == expected


@pytest.mark.parametrize("sql", RESULTS, ids=short_id)
def test_binary_results(peers: Peers, sql: str) -> None:
    reference, ours = peers
    expected = fetched(reference, sql, (), "%s", True)
    actual = fetched(ours, sql, (), "%s", True)
    assert actual == expected
