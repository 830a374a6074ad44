"""Malformed protocol input: the offending connection gets 08P01 (or is
closed), the server and every other session keep working."""

from __future__ import annotations

import socket
import struct

import psycopg
import pytest

from tests.fixtures.servers import ServerProcess, own_schema
from wire import messages as m


def _startup() -> bytes:
    return m.encode_startup({"user": "postgres", "database": "sqlext"})


def _read_all(sock: socket.socket, timeout: float = 5.0) -> bytes:
    sock.settimeout(timeout)
    chunks = []
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except (TimeoutError, ConnectionResetError):
        pass
    return b"".join(chunks)


def _session(server: ServerProcess) -> socket.socket:
    sock = socket.create_connection((server.host, server.port), timeout=5)
    sock.sendall(_startup())
    data = b""
    while not data.endswith(b"Z\x00\x00\x00\x05I"):
        chunk = sock.recv(65536)
        assert chunk, "server closed the connection during startup"
        data += chunk
    return sock


def _error_codes(data: bytes) -> list[str]:
    codes = []
    position = 0
    while position + 5 <= len(data):
        kind = data[position:position + 1]
        (length,) = struct.unpack("!i", data[position + 1:position + 5])
        body = data[position + 5:position + 1 + length]
        if kind == b"E":
            for part in body.split(b"\0"):
                if part.startswith(b"C"):
                    codes.append(part[1:].decode())
        position += 1 + length
    return codes


@pytest.fixture
def bystander(server: ServerProcess) -> psycopg.Connection:
    """A healthy session opened before the bad input arrives."""
    connection = server.connect(autocommit=True)
    connection.execute("SELECT 1")
    yield connection
    assert connection.execute("SELECT 41 + 1").fetchone() == (42,)
    connection.close()
    with server.connect(autocommit=True) as fresh:
        assert fresh.execute("SELECT 'still up'").fetchone() == ("still up",)
    assert server.alive


AFTER_STARTUP = {
    "unknown message type": b"\x01" + struct.pack("!i", 4),
    "length below four": b"Q" + struct.pack("!i", 2),
    "two gigabyte length": b"Q" + struct.pack("!i", 2**31 - 1),
    "truncated parse": b"P" + struct.pack("!i", 8) + b"ab\0\0",
    "bind with missing values": b"B" + struct.pack("!i", 12) + b"\0\0\0\0\0\x01\0\0",
    "describe with bad kind": b"D" + struct.pack("!i", 6) + b"Z\0",
    "huge sync": b"S" + struct.pack("!i", 100_000),
    "query without terminator": b"Q" + struct.pack("!i", 8) + b"SELE",
    "password message after startup": b"p" + struct.pack("!i", 8) + b"pwd\0",
}


@pytest.mark.parametrize("payload", AFTER_STARTUP.values(), ids=AFTER_STARTUP.keys())
def test_bad_message_after_startup(server: ServerProcess, bystander: psycopg.Connection,
                                   payload: bytes) -> None:
    sock = _session(server)
    sock.sendall(payload)
    reply = _read_all(sock)
    sock.close()
    codes = _error_codes(reply)
    assert codes == [] or codes[0] == "08P01", codes


BEFORE_STARTUP = {
    "garbage": b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    "huge startup length": struct.pack("!i", 2**31 - 1),
    "tiny startup length": struct.pack("!i", 3),
    "protocol 2": struct.pack("!ii", 8, 2 << 16),
    "unterminated parameters": struct.pack("!ii", 13, 196608) + b"user",
}


@pytest.mark.parametrize("payload", BEFORE_STARTUP.values(), ids=BEFORE_STARTUP.keys())
def test_bad_bytes_before_startup(server: ServerProcess, bystander: psycopg.Connection,
                                  payload: bytes) -> None:
    sock = socket.create_connection((server.host, server.port), timeout=5)
    sock.sendall(payload)
    reply = _read_all(sock)
    sock.close()
    codes = _error_codes(reply)
    assert codes in ([], ["08P01"]), codes


def test_garbage_after_terminate_and_half_messages(server: ServerProcess,
                                                   bystander: psycopg.Connection) -> None:
    sock = _session(server)
    sock.sendall(m.encode_query("SELECT 1")[:6])
    sock.close()
    sock = _session(server)
    sock.sendall(m.encode_simple(b"X") + b"\xff" * 1000)
    assert _error_codes(_read_all(sock)) == []
    sock.close()


def test_error_in_pipeline_skips_to_sync(server: ServerProcess) -> None:
    sock = _session(server)
    sock.sendall(
        m.encode_parse("", "SELECT 1/0") + m.encode_bind("", "") + m.encode_execute("", 0)
        + m.encode_parse("", "SELECT 2") + m.encode_bind("", "") + m.encode_execute("", 0)
        + m.encode_simple(b"S") + m.encode_query("SELECT 3"))
    data = b""
    while data.count(b"Z\x00\x00\x00\x05") < 2:
        chunk = sock.recv(65536)
        assert chunk
        data += chunk
    sock.close()
    assert _error_codes(data) == ["22012"]
    assert b"D\x00\x00\x00\x0b\x00\x01\x00\x00\x00\x013" in data
    assert b"\x00\x01\x00\x00\x00\x012" not in data


@pytest.mark.parametrize(("data", "error", "message"), [
    (b"1\tx\n2\n", psycopg.errors.BadCopyFileFormat, 'missing data for column "b"'),
    (b"1\tx\tz\n", psycopg.errors.BadCopyFileFormat, "extra data after last expected column"),
    (b"\xff\n", psycopg.errors.CharacterNotInRepertoire, "invalid byte sequence"),
    (b"one\tx\n", psycopg.errors.InvalidTextRepresentation, "invalid input syntax"),
])
def test_bad_copy_data_fails_the_statement_not_the_connection(
        server: ServerProcess, data: bytes, error: type[Exception], message: str) -> None:
    with own_schema(server, "bad_copy") as conn:
        conn.execute("CREATE TABLE copied (a int, b text)")
        with pytest.raises(error, match=message), conn.cursor().copy(
                "COPY copied FROM STDIN") as copy:
            copy.write(data)
        assert conn.execute("SELECT count(*) FROM copied").fetchone() == (0,)
