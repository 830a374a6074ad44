"""Every supported type round-trips exactly through psycopg 3, with text and
binary parameters and text and binary results."""

from __future__ import annotations

import math
import struct
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Json, Jsonb
from psycopg.types.numeric import Float4, Int2, Int8

from tests.fixtures.servers import ServerProcess, own_schema

CASES: list[tuple[str, list[Any]]] = [
    ("boolean", [True, False]),
    ("smallint", [Int2(-32768), Int2(0), Int2(32767)]),
    ("integer", [-2147483648, 0, 2147483647]),
    ("bigint", [Int8(-9223372036854775808), Int8(9223372036854775807)]),
    ("real", [Float4(1.5), Float4(-0.25), Float4(3.4e38)]),
    ("double precision", [1.5, -1e300, 5e-324, 0.1, float("inf"), float("-inf")]),
    ("numeric", [Decimal("123.45"), Decimal("-0.01"), Decimal("0"), Decimal("1e10")]),
    ("numeric(10,2)", [Decimal("123.45"), Decimal("-99999999.99"), Decimal("0.00")]),
    ("text", ["it's \"q\" \u00fc\u20ac", "", "tab\there\nnewline", "\\backslash"]),
    ("varchar(20)", ["varchar", "x" * 20]),
    ("char(5)", ["ab   ", "abcde"]),
    ("bytea", [b"\x00\x01\xff", b"", bytes(range(256))]),
    ("date", [date(2024, 2, 29), date(1, 1, 1), date(9999, 12, 31)]),
    ("time", [time(13, 14, 15, 123456), time(0, 0), time(23, 59, 59, 999999)]),
    ("timestamp", [datetime(2024, 5, 6, 7, 8, 9, 10), datetime(1999, 12, 31, 23, 59, 59)]),
    ("timestamptz", [datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=UTC),
                     datetime(2024, 6, 1, 12, 0, tzinfo=timezone(timedelta(hours=5)))]),
    ("interval", [timedelta(days=1, seconds=7384), timedelta(microseconds=1),
                  timedelta(days=-3, seconds=5)]),
    ("uuid", [uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), uuid.UUID(int=1)]),
    ("json", [Json({"a": [1, 2]}), Json("text"), Json(None)]),
    ("jsonb", [Jsonb({"b": 1, "a": [1, {"c": None}]}), Jsonb([])]),
    ("integer[]", [[1, None, 3], []]),
    ("bigint[]", [[Int8(1), Int8(2**40)]]),
    ("text[]", [["a", "b c", None, "", "NULL", 'q"uote', "back\\slash"]]),
    ("double precision[]", [[1.5, -2.25]]),
    ("boolean[]", [[True, False, None]]),
    ("numeric[]", [[Decimal("1.5"), Decimal("-2")]]),
    ("date[]", [[date(2024, 1, 2), None]]),
    ("timestamptz[]", [[datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)]]),
    ("uuid[]", [[uuid.UUID(int=5)]]),
]


def _plain(value: Any) -> Any:
    """The Python value psycopg returns for what we sent."""
    if isinstance(value, Json | Jsonb):
        return value.obj
    if isinstance(value, Int2 | Int8 | Float4):
        return type(value).__mro__[1](value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _same(sent: Any, received: Any, type_name: str) -> bool:
    expected = _plain(sent)
    if isinstance(expected, float) and math.isnan(expected):
        return math.isnan(received)
    if type_name == "real":
        # a real holds the nearest float32; binary results widen exactly that
        (rounded,) = struct.unpack("!f", struct.pack("!f", expected))
        return received in (expected, rounded)
    if type_name.startswith("numeric(10,2)"):
        return received == expected and received.as_tuple().exponent == -2
    if type_name == "timestamptz" and isinstance(expected, datetime):
        return received == expected
    return bool(received == expected)


@pytest.fixture(scope="module")
def typed_conn(server: ServerProcess) -> Iterator[psycopg.Connection]:
    with own_schema(server, "types") as connection:
        yield connection


@pytest.mark.parametrize(("type_name", "values"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("params", ["text", "binary"])
@pytest.mark.parametrize("results", ["text", "binary"])
def test_round_trip(typed_conn: psycopg.Connection, type_name: str, values: list[Any],
                    params: str, results: str) -> None:
    table = f"rt_{abs(hash((type_name, params, results)))}"
    typed_conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, v {type_name})")
    placeholder = "%t" if params == "text" else "%b"
    with typed_conn.cursor() as cur:
        for index, value in enumerate(values):
            cur.execute(f"INSERT INTO {table} (id, v) VALUES ({placeholder}, {placeholder})",
                        [index, value])
        cur.execute(f"INSERT INTO {table} (id, v) VALUES ({placeholder}, NULL)", [len(values)])
    with typed_conn.cursor(binary=results == "binary") as cur:
        cur.execute(f"SELECT v FROM {table} ORDER BY id")
        received = [row[0] for row in cur.fetchall()]
    assert received[-1] is None
    for sent, got in zip(values, received[:-1], strict=True):
        assert _same(sent, got, type_name), (type_name, sent, got)
    typed_conn.execute(f"DROP TABLE {table}")


@pytest.mark.parametrize("results", ["text", "binary"])
def test_float_special_values(typed_conn: psycopg.Connection, results: str) -> None:
    table = f"floats_{results}"
    typed_conn.execute(f"CREATE TABLE {table} (id int, f float8, r real)")
    specials = [float("nan"), float("inf"), float("-inf"), -0.0]
    with typed_conn.cursor() as cur:
        for index, value in enumerate(specials):
            cur.execute(f"INSERT INTO {table} VALUES (%s, %s, %s)",
                        [index, value, Float4(value)])
    with typed_conn.cursor(binary=results == "binary") as cur:
        rows = cur.execute(f"SELECT f, r FROM {table} ORDER BY id").fetchall()
    assert math.isnan(rows[0][0]) and math.isnan(rows[0][1])
    assert rows[1] == (float("inf"), float("inf"))
    assert rows[2] == (float("-inf"), float("-inf"))
    assert rows[3] == (0.0, 0.0)
    assert math.copysign(1.0, rows[3][0]) == -1.0 and math.copysign(1.0, rows[3][1]) == -1.0


def test_text_output_forms(typed_conn: psycopg.Connection) -> None:
    """What psql users see: PostgreSQL's text output functions."""
    with typed_conn.cursor() as cur:
        cur.execute("SELECT " + ", ".join(
            f"({expression})::text" for expression in [
                "true", "1.5::float8", "-1e300::float8", "'NaN'::float8",
                "123.4::numeric(10,2)", "'\\xdeadbeef'::bytea",
                "'2024-01-02 03:04:05.123456+00'::timestamptz", "'1 day 02:03:04'::interval",
                "ARRAY[1,2,NULL]", "ARRAY['x', 'y z']"]))
        assert cur.fetchone() == (
            "true", "1.5", "-1e+300", "NaN", "123.40", "\\xdeadbeef",
            "2024-01-02 03:04:05.123456+00", "1 day 02:03:04", "{1,2,NULL}", '{x,"y z"}')


@pytest.mark.parametrize("params", ["text", "binary"])
def test_typed_parameters_take_the_column_typmod(typed_conn: psycopg.Connection,
                                                 params: str) -> None:
    """A typed parameter stored into a column with a typmod is rounded and
    checked as PostgreSQL's assignment does, also when one parameter fills
    two columns of different typmods."""
    p = "%t" if params == "text" else "%b"
    table = f"typmods_{params}"
    typed_conn.execute(f"CREATE TABLE {table} (id int, two numeric(5,2), three numeric(6,3), "
                       f"short varchar(3), whole timestamp(0))")
    insert = f"INSERT INTO {table} VALUES ({p}, {p}, {p}, {p}, {p})"
    typed_conn.execute(insert, [1, Decimal("1.005"), Decimal("1.0005"), "abc",
                                datetime(2024, 1, 1, 0, 0, 0, 600000)])
    shared = p.replace("%", "%(x)")  # psycopg sends one parameter, used twice
    typed_conn.execute(f"INSERT INTO {table} (id, two, three) VALUES (2, {shared}, {shared})",
                       {"x": Decimal("2.0005")})
    rows = typed_conn.execute(f"SELECT id, two, three, short, whole FROM {table} ORDER BY id"
                              ).fetchall()
    assert rows == [(1, Decimal("1.01"), Decimal("1.001"), "abc", datetime(2024, 1, 1, 0, 0, 1)),
                    (2, Decimal("2.00"), Decimal("2.001"), None, None)]
    with pytest.raises(psycopg.errors.NumericValueOutOfRange, match="numeric field overflow"):
        typed_conn.execute(insert, [3, Decimal("1000"), None, None, None])
    with pytest.raises(psycopg.errors.StringDataRightTruncation,
                       match=r"too long for type character varying\(3\)"):
        typed_conn.execute(insert, [3, None, None, "abcd", None])
    typed_conn.execute(f"DROP TABLE {table}")
