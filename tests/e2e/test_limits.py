"""Resource limits: results stream with backpressure instead of piling up in
the server, and oversized messages are refused before they are buffered.
(The other limits have their tests next to their features: connections in
test_auth, statement_timeout and idle_in_transaction_session_timeout in
test_psycopg_sessions.)"""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Callable

import psycopg
import pytest

from tests.fixtures.servers import ServerProcess, rss_kb

ROWS = 200_000
WIDTH = 1000




def _startup(sock: socket.socket) -> None:
    body = struct.pack("!i", 196608) + b"user\0postgres\0database\0sqlext\0\0"
    sock.sendall(struct.pack("!i", len(body) + 4) + body)
    received = b""
    while not received.endswith(b"Z\0\0\0\x05I"):
        chunk = sock.recv(65536)
        assert chunk, "server closed during startup"
        received += chunk


def _read_messages(sock: socket.socket) -> tuple[int, bytes]:
    """Read until ReadyForQuery: (DataRow count, CommandComplete tag)."""
    buffer = bytearray()
    rows, tag = 0, b""
    while True:
        while len(buffer) >= 5:
            (length,) = struct.unpack_from("!i", buffer, 1)
            if len(buffer) < length + 1:
                break
            kind, body = buffer[0:1], bytes(buffer[5:length + 1])
            del buffer[:length + 1]
            if kind == b"D":
                rows += 1
            elif kind == b"C":
                tag = body.rstrip(b"\0")
            elif kind == b"E":
                raise AssertionError(body)
            elif kind == b"Z":
                return rows, tag
        chunk = sock.recv(1 << 20)
        assert chunk, "server closed the connection"
        buffer += chunk


def test_a_result_the_client_does_not_read_waits_in_the_server_bounded(
        server_factory: Callable[..., ServerProcess]) -> None:
    """200 MB of rows to a client that reads nothing for a while: the server
    stops producing them once its output buffer is full (its memory stays
    far below the result's size), serves others meanwhile, and sends every
    row once the client reads."""
    server = server_factory("--in-memory")
    before = rss_kb(server.process.pid) / 1024
    with socket.create_connection((server.host, server.port)) as slow:
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
        _startup(slow)
        query = f"SELECT repeat('x', {WIDTH}) FROM generate_series(1, {ROWS})".encode()
        slow.sendall(b"Q" + struct.pack("!i", len(query) + 5) + query + b"\0")
        # the point of the test, not a wait for readiness: the client reads
        # nothing for 3 s while the server has 200 MB of rows to send it
        time.sleep(3)
        with server.connect() as other:
            assert other.execute("SELECT 42").fetchone() == (42,)
        during = rss_kb(server.process.pid) / 1024
        assert during - before < ROWS * WIDTH / 1e6 / 4, (before, during)
        assert _read_messages(slow) == (ROWS, f"SELECT {ROWS}".encode())
    with server.connect() as after:
        assert after.execute("SELECT count(*) FROM generate_series(1, 10)").fetchone() == (10,)


def test_oversized_messages_are_refused(server_factory: Callable[..., ServerProcess]) -> None:
    server = server_factory("--in-memory", "--max-message-mb", "1")
    with socket.create_connection((server.host, server.port)) as sock:
        _startup(sock)
        # announce 2 MB and send only the start: refused at the length word
        sock.sendall(b"Q" + struct.pack("!i", 2 << 20) + b"SELECT ")
        reply = sock.recv(65536)
        assert reply[:1] == b"E" and b"C08P01" in reply and b"invalid message length" in reply
        assert sock.recv(65536) == b""  # and the connection is closed
    with server.connect() as conn:  # just under the limit is fine
        big = "x" * 1_000_000
        assert conn.execute("SELECT length(%s)", (big,)).fetchone() == (1_000_000,)
    assert server.alive
    with psycopg.connect(server.dsn) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_batches_waiting_for_a_stopped_procedure_are_bounded(
        server_factory: Callable[..., ServerProcess]) -> None:
    """A stopped procedure keeps its batches; past --max-held-batches its
    stream refuses new ones (53400) until it is resumed."""
    server = server_factory("--in-memory", "--max-held-batches", "3")
    with server.connect(autocommit=True) as conn:
        conn.execute("""
            CREATE STREAM numbers (n int);
            CREATE TABLE results (n int, r int);
            CREATE PROCEDURE invert() LANGUAGE sql AS $$
                INSERT INTO results SELECT n, 12 / (n - 3) FROM numbers $$;
            CREATE TRIGGER invert_numbers AFTER INSERT ON numbers EXECUTE PROCEDURE invert();
        """)
        for n in range(1, 6):  # batch 3 fails: 3, 4 and 5 wait
            conn.execute("INSERT INTO numbers VALUES (%s)", (n,))
        with pytest.raises(psycopg.errors.ConfigurationLimitExceeded) as refused:
            conn.execute("INSERT INTO numbers VALUES (6)")
        assert str(refused.value).startswith(
            '3 batches wait for procedure "invert", stopped at batch 3 of stream "numbers": '
            'stream "numbers" takes no more')
        assert refused.value.diag.message_hint is not None
        assert "division by zero" in refused.value.diag.message_hint
        conn.execute("""CREATE OR REPLACE PROCEDURE invert() LANGUAGE sql AS $$
            INSERT INTO results SELECT n, 12 / (n - 2.5) FROM numbers $$""")
        conn.execute("ALTER PROCEDURE invert RESUME")
        conn.execute("INSERT INTO numbers VALUES (6)")
        assert conn.execute("SELECT sqlext_drain(5)").fetchone() == (True,)
        assert conn.execute("SELECT n FROM results ORDER BY n").fetchall() == [
            (n,) for n in range(1, 7)]
