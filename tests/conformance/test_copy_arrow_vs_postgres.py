"""Differential tests of COPY ... FROM STDIN (FORMAT arrow): the Arrow
values sent to sqlext, their PostgreSQL text sent to PostgreSQL 15 with
COPY ... FROM STDIN, then the rows read back as text, or the error
compared (SQLSTATE and message).

sqlext converts a column at a time in Arrow's kernels where it can and value
by value where it cannot, so the data holds NULLs at the edges of record
batches of many sizes, values at the edges of each type, and values a
kernel must leave to the type's input function (out of range, NUL).
"""

from __future__ import annotations

from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

import psycopg
import pyarrow as pa
import pytest

from executor.values.arrow_in import pg_text
from tests.fixtures.differential import Peers, outcome, peers_fixture
from tests.fixtures.servers import unique

peers = peers_fixture([], "copy_arrow")

SCHEMA = pa.schema([
    ("k", pa.int32()), ("s", pa.int16()), ("n", pa.int64()), ("b", pa.uint32()),
    ("r", pa.float32()), ("d", pa.float64()), ("i", pa.int64()), ("t", pa.string()),
    ("v", pa.large_string()), ("flag", pa.bool_()), ("ts", pa.timestamp("us")),
    ("tz", pa.timestamp("us", tz="UTC")), ("naive", pa.timestamp("ms")),
    ("day", pa.date32()), ("clock", pa.time64("us")), ("amount", pa.decimal128(10, 2)),
    ("cents", pa.decimal128(6, 1)), ("whole", pa.int32()), ("free", pa.decimal128(38, 8)),
    ("raw", pa.binary()), ("parsed", pa.string()),
])
COLUMNS = ("k int PRIMARY KEY, s int2, n int4, b int8, r float4, d float8, i float8, t text, "
           "v varchar(5), flag bool, ts timestamp, tz timestamptz, naive timestamptz, day date, "
           "clock time, amount numeric(10,2), cents numeric(10,2), whole numeric(6,2), "
           "free numeric, raw bytea, parsed timestamp")

EDGES: list[list[Any]] = [
    [-32768, -2147483648, 0, -3.4028234663852886e38, float("nan"), -(2**53), "",
     "ab   ", False, datetime(1, 1, 1), datetime(1, 1, 1, 0, 0, 1),
     datetime(1970, 1, 1), date(1, 1, 1), time(0), Decimal("-99999999.99"), Decimal("-0.5"),
     -9999, Decimal("-1234567890123456789012345678.12345678"), b"", "2024-01-02T03:04:05"],
    [32767, 2147483647, 4294967295, float("inf"), float("-inf"), 2**53, "it's ü\t\\n",
     "ééééé", True, datetime(9999, 12, 31, 23, 59, 59, 999999),
     datetime(2024, 3, 31, 1, 30, 0, 500000), datetime(2024, 7, 1, 12, 0, 0, 250000),
     date(9999, 12, 31), time(23, 59, 59, 999999), Decimal("99999999.99"), Decimal("12345.6"),
     9999, Decimal("0.00000001"), b"\x00\xff\\", "0044-03-15 12:00:00 BC"],
    [0, 0, 1, -0.0, -0.0, 0, "x", "y", None, datetime(2000, 2, 29, 12, 0, 0, 100000),
     datetime(1999, 12, 31, 23, 59, 59), datetime(2001, 1, 1, 0, 0, 0, 1),
     date(2000, 2, 29), time(12, 0, 0, 100000), Decimal("0.00"), Decimal("0.0"), 0,
     Decimal("-0.00000000"), b"\x01", "epoch"],
    [7, 123456, 10, 0.1, 0.1, 1, "a\nb\rc", "", True, datetime(2024, 1, 2, 3, 4, 5),
     datetime(2024, 1, 2, 3, 4, 5, 123456), datetime(2024, 1, 2, 3, 4, 5),
     date(2024, 1, 2), time(13, 14, 15, 500000), Decimal("123.45"), Decimal("-7.1"), -1,
     Decimal("1E-8"), b"abc", "  2024-01-02 03:04:05.5  "],
]
"""Rows of edge values (without the key k), for SCHEMA's columns after k."""

BATCH_SIZES = [1, 2, 5, 300, 64, 1, 1000, 3]



def _batches(sizes: list[int]) -> list[pa.RecordBatch]:
    """Record batches of ``sizes`` rows cycling through EDGES and a row of
    NULLs, keys from 1, each starting and ending with a row of NULLs."""
    cycle = [*EDGES, [None] * len(EDGES[0])]
    batches, key = [], 1
    for size in sizes:
        rows = [[k, *cycle[k % len(cycle)]] for k in range(key, key + size)]
        for row in (rows[0], rows[-1]):
            row[1:] = [None] * (len(row) - 1)
        batches.append(pa.record_batch(
            [pa.array(list(values), field.type)
             for values, field in zip(zip(*rows, strict=True), SCHEMA, strict=True)],
            schema=SCHEMA))
        key += size
    return batches


def _stream(batches: list[pa.RecordBatch], schema: pa.Schema = SCHEMA) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    return sink.getvalue().to_pybytes()


def _copy_text(value: Any) -> str:
    """A value in COPY's text format, as PostgreSQL reads it (a NUL as the
    escape that makes one)."""
    if value is None:
        return "\\N"
    text = value if isinstance(value, str) else pg_text(value)
    return (text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
            .replace("\r", "\\r").replace("\x00", "\\000"))


def _copy_arrow(conn: psycopg.Connection, sql: str, data: bytes) -> tuple[str, Any]:
    try:
        with conn.cursor() as cursor:
            with cursor.copy(sql) as copy:
                for start in range(0, len(data), 4096):
                    copy.write(data[start:start + 4096])
            return "ok", cursor.statusmessage
    except psycopg.Error as exc:
        return "error", (exc.sqlstate, exc.diag.message_primary)


def _copy_postgres(conn: psycopg.Connection, sql: str,
                   rows: list[tuple[Any, ...]]) -> tuple[str, Any]:
    lines = "".join("\t".join(map(_copy_text, row)) + "\n" for row in rows)
    try:
        with conn.cursor() as cursor:
            with cursor.copy(sql) as copy:
                copy.write(lines.encode())
            return "ok", cursor.statusmessage
    except psycopg.Error as exc:
        return "error", (exc.sqlstate, exc.diag.message_primary)


def _same_load(peers: Peers, columns: str, batches: list[pa.RecordBatch],
               zone: str = "UTC") -> None:
    """The batches loaded into a table of ``columns`` on sqlext, their
    values' text on PostgreSQL: the same outcome and the same rows."""
    reference, ours = peers
    table = unique("loaded")
    for connection in peers:
        connection.execute(f"CREATE TABLE {table} ({columns})")
        connection.execute(f"SET TimeZone = '{zone}'")
    rows = [row for batch in batches for row in zip(*batch.to_pydict().values(), strict=True)]
    expected = _copy_postgres(reference, f"COPY {table} FROM STDIN", rows)
    data = _stream(batches, batches[0].schema)
    assert _copy_arrow(ours, f"COPY {table} FROM STDIN (FORMAT arrow)", data) == expected
    query = f"SELECT * FROM {table} ORDER BY k"
    assert outcome(ours, query) == outcome(reference, query)


@pytest.mark.parametrize("zone", ["UTC", "+02", "Europe/Berlin"])
def test_every_type_in_batches_of_many_sizes(peers: Peers, zone: str) -> None:
    _same_load(peers, COLUMNS, _batches(BATCH_SIZES), zone)


@pytest.mark.parametrize(("column", "arrow_type", "good", "bad"), [
    ("int2", pa.int32(), 7, 32768),
    ("int2", pa.int64(), -7, -32769),
    ("int4", pa.uint32(), 7, 2**31),
    ("int4", pa.int64(), 7, -(2**31) - 1),
    ("int8", pa.uint64(), 7, 2**63),
    ("numeric(10,2)", pa.decimal128(12, 2), Decimal("1.5"), Decimal("100000000.00")),
    ("numeric(10,2)", pa.decimal128(12, 3), Decimal("1.005"), Decimal("99999999.996")),
    ("numeric(4,1)", pa.int64(), 999, 1000),
    ("numeric(5,2)", pa.float64(), 1.5, float("nan")),
    ("real", pa.float64(), 0.1, 1e39),
    ("real", pa.float32(), 0.1, float("nan")),
    ("text", pa.string(), "ok", "a\x00b"),
    ("varchar(2)", pa.string(), "ab ", "abc"),
    ("int4", pa.string(), " 12 ", "12x"),
    ("date", pa.string(), "2024-01-02", "2024-02-30"),
    ("timestamp", pa.timestamp("us"), datetime(2024, 1, 2), datetime(9999, 12, 31)),
])
def test_values_at_and_beyond_the_range(peers: Peers, column: str, arrow_type: pa.DataType,
                                        good: Any, bad: Any) -> None:
    """A value far into the data, behind values the kernels take, in a
    second record batch."""
    count = 2000
    values = [None if k % 7 == 0 else good for k in range(count)]
    values[1500] = bad
    schema = pa.schema([("k", pa.int32()), ("v", arrow_type)])
    batch = pa.record_batch([pa.array(range(count), pa.int32()), pa.array(values, arrow_type)],
                            schema=schema)
    _same_load(peers, f"k int PRIMARY KEY, v {column}", [batch.slice(0, 700),
                                                          batch.slice(700)])
