"""Large results and COPY ... TO compared with PostgreSQL 15 byte for byte.

Large chunks of rows take the column-wise path (``wire.bulk``, the codecs'
column encoders, ``sqlext.session.copy_columns``); these cases make them
meet every edge value its kernels must leave to the per-value encoders or
print exactly as PostgreSQL does: NULLs, empty strings, NaN, infinities and
-0 floats, floats around the layout thresholds, negative numerics with and
without a scale, timestamps with fractions, BC and infinite, time zones with
DST and LMT offsets, text that needs COPY escapes. Results are read as
clients read them: whole (psycopg), through a SQL cursor (FETCH), through a
protocol portal 150 rows at a time (as pgjdbc and Spark do), in text and in
binary, and through COPY in text, CSV and binary.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator
from itertools import cycle, islice

import psycopg
import pytest

from tests.fixtures.differential import Peers, outcome, peers_fixture
from wire import messages as m

COLUMNS = {
    "i2": ("smallint", ["0", "-32768", "32767", "1", "-1", None]),
    "i8": ("bigint", ["0", "-9223372036854775808", "9223372036854775807", "9007199254740993",
                      None]),
    "f4": ("real", ["0", "-0", "NaN", "Infinity", "-Infinity", "1.5", "3.4028235e38",
                    "0.1", None, "1e15", "123456.7", "1e-5"]),
    "f8": ("double precision", ["0", "-0", "NaN", "Infinity", "-Infinity", "1e15", "1e-5",
                                "1.5e300", "0.1", "1e10", "9999999999.5", "1e-4",
                                "0.30000000000000004", "-2.5", "123456789012345.6", "5e-324",
                                None, "-1e-300", "42"]),
    "t": ("text", ["", "plain", "tab\there", "new\nline", "back\\slash", "carriage\rreturn",
                   "ünïcødé ✓", 'quote"d', "comma,here", "pipe|here", "\\.", "NULL", None,
                   "\\N", " lead and trail "]),
    "b": ("boolean", ["t", "f", None]),
    "ts": ("timestamp", ["2024-01-02 03:04:05", "2024-01-02 03:04:05.5",
                         "1999-12-31 23:59:59.999999", "0044-03-15 12:00:00 BC", "infinity",
                         "-infinity", "2024-03-10 07:30:00.000123", None,
                         "12345-06-07 08:09:10"]),
    "tz": ("timestamptz", ["2024-01-02 03:04:05+00", "2024-03-10 06:59:59.999+00",
                           "2024-11-03 05:30:00+00", "1883-11-18 17:00:00+00",
                           "0044-03-15 12:00:00+00 BC", "infinity", "-infinity",
                           "2000-01-01 00:00:00.000001+00", None, "1900-06-01 12:00:00+00",
                           "2024-07-01 23:45:00.25+00"]),
    "d": ("date", ["2024-01-02", "0001-01-01", "0044-03-15 BC", "infinity", "-infinity",
                   "2000-01-01", "1970-01-01", None, "9999-12-31"]),
    "n": ("numeric(10,2)", ["0", "-0.01", "0.01", "-12345678.99", "99999999.99", "1.5", "-1",
                            "NaN", None, "100"]),
    "nn": ("numeric", ["0", "-0.000", "1.50", "-123.456000", "1e-20",
                       "123456789012345678901234567890.5", "NaN", "Infinity", "-Infinity",
                       None]),
    "n0": ("numeric(12,0)", ["0", "-5", "123456789012", None]),
    "by": ("bytea", ["\\x", "\\x00ff10", "\\x5c0a09", None]),
    "v": ("varchar(20)", ["", "ab", None, "x\ty"]),
}
ROWS = 600
"""Enough rows for a chunk to take the column-wise path (wire.messages.BULK_ROWS)."""


def _rows() -> list[list[str | None]]:
    """Every column cycles through its values at its own period, so rows
    mix them differently."""
    columns = [list(islice(cycle(values), ROWS)) for _type, values in COLUMNS.values()]
    return [[str(index), *row] for index, row in enumerate(zip(*columns, strict=True))]


_NAMES = ", ".join(COLUMNS)
SETUP = [
    "CREATE TABLE bulk_values (id int PRIMARY KEY, "
    + ", ".join(f"{name} {sql_type}" for name, (sql_type, _values) in COLUMNS.items()) + ")",
    "CREATE TABLE bulk_many (id int, amount numeric, name text, flag boolean)",
    "INSERT INTO bulk_many SELECT n, n * 0.5, 'name-' || n, n % 3 = 0 "
    "FROM generate_series(1, 5000) AS n",
]
SPARK_COLUMNS = "id, i8, f8, t, b, tz, d, n"
"""The types Spark JDBC reads most: int, bigint, float8, text, bool,
timestamptz, date, numeric(10,2)."""

peers = peers_fixture(SETUP, "bulk_out")


@pytest.fixture(scope="module", autouse=True)
def _filled(peers: Peers) -> None:
    placeholders = ", ".join(["%s"] + [f"%s::{sql_type}" for sql_type, _ in COLUMNS.values()])
    for connection in peers:
        with connection.cursor() as cursor:
            cursor.executemany(f"INSERT INTO bulk_values (id, {_NAMES}) VALUES ({placeholders})",
                               _rows())


QUERIES = [
    f"SELECT id, {_NAMES} FROM bulk_values ORDER BY id",
    f"SELECT id, {_NAMES} FROM bulk_values ORDER BY id LIMIT 50",
    f"SELECT id, {_NAMES} FROM bulk_values WHERE id < 0",
    "SELECT * FROM bulk_many ORDER BY id",
    "SELECT abs(f8) AS magnitude, n * 3 AS n3, nn + 1 AS nn1, "
    "t || '!' AS t2 FROM bulk_values ORDER BY id",
]
SETTINGS = [
    None,
    ("TimeZone", "America/New_York"),
    ("TimeZone", "+05:30"),
    ("TimeZone", "Asia/Kolkata"),
    ("extra_float_digits", "0"),
]


@pytest.fixture
def settled(peers: Peers, request: pytest.FixtureRequest) -> Iterator[Peers]:
    """The peers with one setting changed (``request.param``: name, value)."""
    if request.param is None:
        yield peers
        return
    name, value = request.param
    for connection in peers:
        connection.execute(f"SET {name} = '{value}'")
    yield peers
    for connection in peers:
        connection.execute(f"RESET {name}")


def _setting_id(setting: tuple[str, str] | None) -> str:
    return "default" if setting is None else "=".join(setting)


@pytest.mark.parametrize("settled", SETTINGS, indirect=True, ids=_setting_id)
@pytest.mark.parametrize("sql", QUERIES)
def test_text_results(settled: Peers, sql: str) -> None:
    reference, ours = settled
    assert outcome(ours, sql) == outcome(reference, sql)


def _binary(connection: psycopg.Connection, sql: str) -> list[list[bytes | None]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, binary=True)
        result = cursor.pgresult
        assert result is not None
        return [[result.get_value(row, column) for column in range(result.nfields)]
                for row in range(result.ntuples)]


@pytest.mark.parametrize("sql", QUERIES)
def test_binary_results(peers: Peers, sql: str) -> None:
    reference, ours = peers
    assert _binary(ours, sql) == _binary(reference, sql)


def test_sql_cursor_fetches(peers: Peers) -> None:
    """A SQL cursor read 250 rows at a time, as psycopg's named cursors do."""
    fetched = []
    for connection in peers:
        with connection.transaction():
            connection.execute(f"DECLARE bulk CURSOR FOR SELECT id, {_NAMES} FROM bulk_values "
                               "ORDER BY id")
            fetched.append([outcome(connection, "FETCH FORWARD 250 FROM bulk")
                            for _ in range(ROWS // 250 + 2)])
    assert fetched[1] == fetched[0]


def _portal_messages(dsn: str, schema: str, sql: str, fmt: int, limit: int) -> list[bytes]:
    """The raw messages answering Execute of ``sql`` ``limit`` rows at a time
    (PortalSuspended between), as pgjdbc and Spark read: DataRows byte for
    byte."""
    fields = dict(part.split("=", 1) for part in dsn.split())
    with socket.create_connection((fields["host"], int(fields["port"]))) as sock:
        reader = _messages(sock)
        sock.sendall(m.encode_startup({"user": fields["user"], "database": fields["dbname"]}))
        _until_ready(reader)
        sock.sendall(m.encode_query(f"SET search_path TO {schema}"))
        _until_ready(reader)
        sock.sendall(m.encode_parse("", sql) + m.encode_bind("p", "", result_formats=[fmt]))
        answers: list[bytes] = []
        while not answers or answers[-1][:1] != b"C":
            sock.sendall(m.encode_execute("p", limit) + m.encode_simple(b"H"))
            answers += _until(reader, (b"s", b"C", b"E"))
        sock.sendall(m.encode_simple(b"S"))
        _until_ready(reader)
    return [answer for answer in answers if answer[:1] in (b"D", b"s", b"C")]


def _messages(sock: socket.socket) -> Iterator[bytes]:
    buffer = b""
    while True:
        while len(buffer) < 5 or len(buffer) < 1 + struct.unpack("!i", buffer[1:5])[0]:
            chunk = sock.recv(1 << 16)
            assert chunk, "connection closed"
            buffer += chunk
        size = 1 + struct.unpack("!i", buffer[1:5])[0]
        yield buffer[:size]
        buffer = buffer[size:]


def _until(reader: Iterator[bytes], kinds: tuple[bytes, ...]) -> list[bytes]:
    found = []
    for message in reader:
        found.append(message)
        if message[:1] in kinds:
            return found
    raise AssertionError("no more messages")


def _until_ready(reader: Iterator[bytes]) -> None:
    assert all(message[:1] != b"E" for message in _until(reader, (b"Z",)))


@pytest.mark.parametrize("fmt", [0, 1], ids=["text", "binary"])
def test_portal_row_limits(peers: Peers, fmt: int) -> None:
    reference, ours = peers
    schema = ours.execute("SELECT current_schema()").fetchone()
    assert schema is not None
    sql = f"SELECT {SPARK_COLUMNS} FROM bulk_values ORDER BY id"
    expected = _portal_messages(reference.info.dsn, schema[0], sql, fmt, 150)
    assert _portal_messages(ours.info.dsn, schema[0], sql, fmt, 150) == expected


def _copied(connection: psycopg.Connection, sql: str) -> list[bytes]:
    """COPY ... TO STDOUT's CopyData payloads, one a row."""
    with connection.cursor().copy(sql) as copy:
        return [bytes(data) for data in copy]


COPIES = [
    f"COPY bulk_values ({_NAMES}) TO STDOUT",
    f"COPY (SELECT id, {_NAMES} FROM bulk_values ORDER BY id) TO STDOUT (FORMAT csv, HEADER)",
    "COPY bulk_values TO STDOUT (FORMAT csv, FORCE_QUOTE *, NULL 'NULL', DELIMITER '|')",
    "COPY (SELECT t FROM bulk_values ORDER BY id) TO STDOUT (FORMAT csv)",
    "COPY bulk_values TO STDOUT (DELIMITER '|', NULL '')",
    "COPY bulk_values TO STDOUT (FORMAT csv, QUOTE '''', ESCAPE '\\')",
    "COPY bulk_values TO STDOUT (FORMAT binary)",
    "COPY (SELECT * FROM bulk_many ORDER BY id) TO STDOUT (FORMAT binary)",
    "COPY (SELECT * FROM bulk_many ORDER BY id) TO STDOUT (FORMAT csv)",
    "COPY (SELECT * FROM bulk_many WHERE id < 3 ORDER BY id) TO STDOUT (FORMAT binary)",
    "COPY (SELECT * FROM bulk_many WHERE id < 0) TO STDOUT (FORMAT binary)",
]


@pytest.mark.parametrize("settled", SETTINGS[:3], indirect=True, ids=_setting_id)
@pytest.mark.parametrize("sql", COPIES)
def test_copy_to_stdout(settled: Peers, sql: str) -> None:
    reference, ours = settled
    assert _copied(ours, sql) == _copied(reference, sql)
