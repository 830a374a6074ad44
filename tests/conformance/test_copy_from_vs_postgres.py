"""Differential tests of COPY ... FROM STDIN: the same data sent to sqlext
and to PostgreSQL 15 in text, CSV and binary, then the rows read back as
text, or the error compared (SQLSTATE, message, and the line and column
PostgreSQL names in its CONTEXT, which sqlext puts in DETAIL).

The data is long enough to be read in many chunks: chunks of the forms
PostgreSQL prints are read a column at a time, and chunks with odd forms
(spaces, plus signs, other scales, special words, escapes) value by value,
so both ways of reading must store the same values. CopyData boundaries
fall anywhere, also inside a UTF-8 character.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.fixtures.differential import Peers, outcome, peers_fixture

COLUMNS = ("k int PRIMARY KEY, s int2, n int4, b int8, r float4, d float8, t text, "
           "v varchar(5), flag bool, ts timestamp, tz timestamptz, day date, "
           "amount numeric(10,2), free numeric")
SETUP = [f"CREATE TABLE source ({COLUMNS})"]

peers = peers_fixture(SETUP, "copy_from")

PLAIN = ("{k}\t{s}\t{n}\t-{b}\t{k}.5\t0.{k}\tname {k}\tv{v}\t{flag}\t"
         "2024-01-0{day} 12:34:56.{k}\t2024-03-0{day} 01:02:03+00\t2020-02-2{day}\t"
         "-{k}.{cents}\t{k}.000{k}")
"""A row in the forms PostgreSQL prints (in UTC)."""

ODD = [
    # forms PostgreSQL accepts but does not print, and values at the edges
    "\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N",
    " 12\t+7\t007\tNaN\t-0\t\t\t yes\t2024-02-29 23:59:59.999999\t2024-07-01 12:00:00+05:30\t"
    "0099-12-31\t12.5\t-1e-20",
    "-32768\t-2147483648\t-9223372036854775808\tInfinity\t-Infinity\tnon-ASCII \u00e9\u4e2d\t"
    "\u00e9\u00e9\u00e9\u00e9\u00e9\tf\tinfinity\t-infinity\tinfinity\t-0.00\tNaN",
    "32767\t2147483647\t9223372036854775807\t-Infinity\t1e308\ttab\\there\\nnew\\\\line\t"
    "ab   \t0\t2000-01-01 00:00:00 BC\t2024-03-31 02:30:00 Europe/Berlin\t2000-01-01 BC\t"
    "99999999.99\t-123456789012345678901234567890.123",
    "0\t0\t0\t1.4e-45\t2.5e-310\t\\x41\\101\\xc3\\xa9 \\\\N\t\\N\tTRUE\t"
    "2024-01-01T00:00:01\t2024-01-01 00:00:00.000000+00:00\t2024-01-01 +00\t1e2\tInfinity",
    "1\t1\t1\t3.4028235e38\t0.1\tNULL\tx\ton\t2024-06-30 23:59:59.5\t"
    "2024-06-30 23:59:59.5-07\t20240101\t+0.5\t-Infinity",
]
"""Rows with odd forms and edge values (each row's k and s come first)."""


def _text_rows(count: int) -> list[str]:
    plain = [PLAIN.format(k=k, s=k % 1000 - 500, n=k * 1000, b=k * 1000003, v=k % 1000,
                          flag="tf"[k % 2], day=k % 9 + 1, cents=f"{k % 100:02d}")
             for k in range(1, count + 1)]
    odd = [f"{count + index + 1}\t{row}" for index, row in enumerate(ODD)]
    return plain[: count // 2] + odd + plain[count // 2:] + odd[:1]


def _text_data(rows: int = 3000) -> bytes:
    lines = _text_rows(rows)
    lines[-1] = f"{rows + len(ODD) + 1}" + lines[-1][lines[-1].index("\t"):]
    return ("\n".join(lines) + "\n").encode()


def _pieces(data: bytes, size: int) -> list[bytes]:
    return [data[start:start + size] for start in range(0, len(data), size)]


def _copy(connection: psycopg.Connection, sql: str, pieces: list[bytes]) -> tuple[Any, ...]:
    """("ok", tag, rows as text) or ("error", SQLSTATE, message, where the
    error was: PostgreSQL's CONTEXT, sqlext's DETAIL)."""
    connection.execute("DELETE FROM target")
    cursor = connection.cursor()
    try:
        with cursor.copy(sql) as copy:
            for piece in pieces:
                copy.write(piece)
    except psycopg.Error as exc:
        diag = exc.diag
        return "error", diag.sqlstate, diag.message_primary, diag.context or diag.message_detail
    return "ok", cursor.statusmessage, outcome(connection, "SELECT * FROM target ORDER BY k")


def assert_copies_the_same(peers: Peers, sql: str, pieces: list[bytes]) -> None:
    reference, ours = peers
    expected = _copy(reference, sql, pieces)
    got = _copy(ours, sql, pieces)
    if expected[0] == "error" and got[0] == "error":
        assert got[:3] == expected[:3]
        assert got[3] and expected[3].startswith(got[3]), (got[3], expected[3])
    else:
        assert got == expected


@pytest.fixture
def target(peers: Peers) -> Iterator[Peers]:
    """The peers with a fresh table ``target`` like ``source``."""
    for connection in peers:
        connection.execute(f"CREATE TABLE target ({COLUMNS})")
    yield peers
    for connection in peers:
        connection.execute("DROP TABLE target")
        connection.execute("RESET TimeZone")


def _set(peers: Peers, *statements: str) -> None:
    for connection in peers:
        for statement in statements:
            connection.execute(statement)


def _reference_copy(peers: Peers, kind: str) -> bytes:
    """PostgreSQL's own COPY TO output of the text data, in format ``kind``."""
    reference, _ = peers
    reference.execute("DELETE FROM source")
    with reference.cursor().copy("COPY source FROM STDIN") as copy:
        copy.write(_text_data())
    data = bytearray()
    with reference.cursor().copy(f"COPY source TO STDOUT (FORMAT {kind})") as copy:
        while chunk := copy.read():
            data += chunk
    return bytes(data)


@pytest.mark.parametrize("size", [1 << 20, 1000, 77])
def test_text_data_in_pieces_of_any_size(target: Peers, size: int) -> None:
    assert_copies_the_same(target, "COPY target FROM STDIN", _pieces(_text_data(), size))


def test_text_data_in_another_time_zone(target: Peers) -> None:
    _set(target, "SET TimeZone = 'America/St_Johns'")
    assert_copies_the_same(target, "COPY target FROM STDIN", [_text_data()])


@pytest.mark.parametrize("kind", ["text", "csv", "binary"])
@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
def test_what_postgresql_writes_comes_back(target: Peers, kind: str, zone: str) -> None:
    _set(target, f"SET TimeZone = '{zone}'")
    data = _reference_copy(target, kind)
    assert_copies_the_same(target, f"COPY target FROM STDIN (FORMAT {kind})",
                           _pieces(data, 5000))


def test_csv_with_quotes_header_and_options(target: Peers) -> None:
    data = _reference_copy(target, "csv").decode()
    lines = data.splitlines(keepends=True)
    quoted = ["k,s,n,b,r,d,t,v,flag,ts,tz,day,amount,free\n", *lines[:1500],
              '90001,1,1,1,1,1,"quoted, ""text""\nover lines",ab,t,,,,1.00,\n',
              '90002,2,2,2,2,2,"",,f,,,,2.00,\n', '90003,3,3,3,3,3,,"",f,,,,3.00,\n',
              *lines[1500:]]
    assert_copies_the_same(
        target, "COPY target FROM STDIN (FORMAT csv, HEADER, FORCE_NOT_NULL (t))",
        _pieces("".join(quoted).encode(), 4096))


@pytest.mark.parametrize(("options", "data"), [
    ("", b"1\ta\\\tb\tc\n2\tline\\\ngoes on\t\\N\n3\tends\twith a backslash\\"),
    ("(DELIMITER '|')", b"".join(b"%d|a\\|b|c\n%d|x|\\|\n" % (k, -k) for k in range(1, 3000))),
    ("(NULL 'nil')", b"1\tnil\t\\N\n2\t\tnil\n3\tx\\y\tz\n"),
    ("", b"1\ta\tb\r\n2\tc\td\r\n"),
    ("", b"1\ta\tb\n2\tc\td\n\\.\n5\tignored\tx\n"),
    ("(HEADER)", b"k\tt\tu\n" + b"".join(b"%d\tx\ty\n" % k for k in range(1, 5000))),
])
def test_text_escapes_and_options(target: Peers, options: str, data: bytes) -> None:
    _set(target, "DROP TABLE target", "CREATE TABLE target (k int PRIMARY KEY, t text, u text)")
    assert_copies_the_same(target, f"COPY target FROM STDIN {options}", _pieces(data, 5000))


BAD_VALUES = [
    (1, "12x"), (1, "99999"), (2, "2147483648"), (4, "1e50"), (5, "1e400"), (5, "1e-400"),
    (7, "abcdef"), (8, "maybe"), (9, "2023-02-29 00:00:00"), (10, "2024-13-01 00:00:00+00"),
    (11, "2023-02-29"), (12, "123456789.00"), (12, "1.2.3"), (13, "x1"), (6, "\\0"),
    (6, "\\xff"), (6, "\\xc3"), (0, "")]
"""(column position, bad text) put into one row far into the data."""


@pytest.mark.parametrize(("column", "bad"), BAD_VALUES)
def test_a_bad_value_far_into_the_data(target: Peers, column: int, bad: str) -> None:
    lines = _text_data().split(b"\n")
    fields = lines[2500].split(b"\t")
    fields[column] = bad.encode()
    lines[2500] = b"\t".join(fields)
    assert_copies_the_same(target, "COPY target FROM STDIN", [b"\n".join(lines)])


@pytest.mark.parametrize("bad", [b"1\t2\n", b"1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\t15\n",
                                 b"\xff\n", b"ok\xc3\x28\n", b"a\x00b\n"])
@pytest.mark.parametrize("kind", ["text", "csv"])
def test_a_bad_line_far_into_the_data(target: Peers, bad: bytes, kind: str) -> None:
    data = _reference_copy(target, kind)
    lines = data.split(b"\n")
    lines[2000] = bad.rstrip(b"\n").replace(b"\t", b"," if kind == "csv" else b"\t")
    assert_copies_the_same(target, f"COPY target FROM STDIN (FORMAT {kind})",
                           _pieces(b"\n".join(lines), 3000))


@pytest.mark.parametrize("line", [0, 255, 256, 1234, 2999])
@pytest.mark.parametrize("kind", ["duplicate", "null"])
def test_a_row_breaking_a_constraint_far_into_the_data(target: Peers, kind: str,
                                                       line: int) -> None:
    """sqlext inserts the rows a group at a time (``executor.grouped_insert``):
    the COPY fails as PostgreSQL's does, with nothing of it kept. (sqlext
    does not name the line of a constraint's error: docs/sql.md.)"""
    lines = _text_data().split(b"\n")
    fields = lines[line].split(b"\t")
    fields[0] = b"1" if kind == "duplicate" and line else b"\\N"
    lines[line] = b"\t".join(fields)
    expected, got = (_copy(connection, "COPY target FROM STDIN", _pieces(b"\n".join(lines), 50000))
                     for connection in target)
    assert got[:3] == expected[:3]
    assert got[0] == "error"
    left, kept = (outcome(connection, "SELECT count(*) FROM target") for connection in target)
    assert kept == left
