"""COPY (query) TO STDOUT (FORMAT arrow) of edge values a column at a time
(executor.values.arrow_out): the Arrow stream holds the values psycopg
reads from the same table, in the first small batch and in the batches a
forked reader makes; a value Arrow cannot hold fails as it always did."""

from __future__ import annotations

import math

import psycopg
import pytest

from tests.e2e.test_copy_arrow import copy_out
from tests.fixtures.servers import unique

COLUMNS = ("id int PRIMARY KEY, small int2, big int8, dbl float8, real float4, "
           "flag bool, word text, code char(3), amount numeric(10,2), "
           "fraction numeric(18,18), day date, clock time, ts timestamp, tstz timestamptz, "
           "payload bytea")
EDGES = [
    "(1, -32768, -9223372036854775808, 'NaN', 'Infinity', true, '', 'a', -99999999.99, "
    "-0.999999999999999999, '0001-01-01', '00:00:00', '1969-12-31 23:59:59.999999', "
    "'0001-01-01 00:00:00+00', '\\x')",
    "(2, 32767, 9223372036854775807, '-0', '-Infinity', false, 'ü 日本 😀', 'ab', 99999999.99, "
    "0.000000000000000001, '9999-12-31', '23:59:59.999999', '9999-12-31 23:59:59.999999', "
    "'2024-01-02 03:04:05.5+02', '\\x00ff')",
    "(3, 0, 0, 1.7976931348623157e308, 1.25, true, 'x', '', 0, 0, '1969-12-31', '13:14:15.5', "
    "'2000-02-29 12:00:00', '1970-01-01 00:00:00.000001+00', '\\xab')",
    "(4" + ", NULL" * 14 + ")",
]




def comparable(value: object) -> object:
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else (value, math.copysign(1.0, value))
    return bytes(value) if isinstance(value, memoryview) else value


def test_edge_values_of_every_kernel_type(conn: psycopg.Connection) -> None:
    """The first batch (read on the executor) and later ones (a forked
    reader's) hold the values the table holds."""
    table = unique("edges")
    conn.execute(f"CREATE TABLE {table} ({COLUMNS})")
    conn.execute(f"INSERT INTO {table} VALUES {', '.join(EDGES)}")
    conn.execute(f"INSERT INTO {table} SELECT s.id + 4 * n, small, big, dbl, real, flag, word, "
                 f"code, amount, fraction, day, clock, ts, tstz, payload FROM {table} s, "
                 f"generate_series(1, 20000) n")
    arrow = copy_out(conn, f"COPY (SELECT * FROM {table} ORDER BY id) TO STDOUT (FORMAT arrow)")
    expected = conn.execute(f"SELECT * FROM {table} ORDER BY id").fetchall()
    assert arrow.num_rows == len(expected) == 80004
    assert [tuple(comparable(value) for value in row.values()) for row in arrow.to_pylist()
            ] == [tuple(comparable(value) for value in row) for row in expected]


@pytest.mark.parametrize(("column", "value", "sqlstate"), [
    ("day date", "'infinity'", "22008"),
    ("ts timestamp", "'0044-03-15 12:00:00 BC'", "22008"),
    ("clock time", "'24:00:00'", "22008"),
    ("amount numeric(10,2)", "'NaN'", "22003"),
])
def test_a_value_arrow_cannot_hold_fails_far_into_a_query(
        conn: psycopg.Connection, column: str, value: str, sqlstate: str) -> None:
    table = unique("bad")
    conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, {column})")
    name = column.split()[0]
    conn.execute(f"INSERT INTO {table} (id) SELECT n FROM generate_series(1, 70000) n")
    conn.execute(f"UPDATE {table} SET {name} = {value} WHERE id = 69000")
    with pytest.raises(psycopg.Error) as failure:
        copy_out(conn, f"COPY (SELECT * FROM {table} ORDER BY id) TO STDOUT (FORMAT arrow)")
    assert failure.value.sqlstate == sqlstate
