"""LISTEN / NOTIFY through psycopg and psql, as PostgreSQL 15 does them:
delivery at commit, in commit order, folding, savepoints, blocks on both
sides, limits; pg_notify() from procedures and triggers.

Channels are server-wide, so every test on the shared server uses channel
names of its own. "Nothing was delivered" is checked by sending a sentinel
afterwards: the next notification a listener gets must be that one.
"""

from __future__ import annotations

import socket
import struct
import subprocess
import uuid
from collections.abc import Callable, Iterator

import psycopg
import pytest

from tests.fixtures.notifications import take
from tests.fixtures.psql import PSQL
from tests.fixtures.servers import ServerProcess, sqlstate_of


def channel() -> str:
    return f"c_{uuid.uuid4().hex[:12]}"


def received(conn: psycopg.Connection, count: int) -> list[tuple[str, str, int]]:
    return [(n.channel, n.payload, n.pid) for n in take(conn, count)]


def payloads(conn: psycopg.Connection, count: int) -> list[str]:
    return [payload for _, payload, _ in received(conn, count)]


@pytest.fixture
def pair(server: ServerProcess) -> Iterator[tuple[psycopg.Connection, psycopg.Connection]]:
    """A listener and a notifier, both in autocommit mode."""
    with server.connect(autocommit=True) as listener, \
            server.connect(autocommit=True) as notifier:
        yield listener, notifier


def test_an_idle_listener_gets_notifications_pushed(
        pair: tuple[psycopg.Connection, psycopg.Connection]) -> None:
    listener, notifier = pair
    name = channel()
    listener.execute(f"LISTEN {name}")
    notifier_pid = notifier.execute("SELECT pg_backend_pid()").fetchone()[0]
    notifier.execute(f"NOTIFY {name}, 'hello'")
    notifier.execute("SELECT pg_notify(%s, %s)", (name, "from a function"))
    notifier.execute(f"NOTIFY {name}")
    assert received(listener, 3) == [(name, "hello", notifier_pid),
                                     (name, "from a function", notifier_pid),
                                     (name, "", notifier_pid)]


def test_notifications_are_sent_at_commit_in_commit_order(
        server: ServerProcess, pair: tuple[psycopg.Connection, psycopg.Connection]) -> None:
    listener, first = pair
    name = channel()
    listener.execute(f"LISTEN {name}")
    with server.connect(autocommit=True) as second:
        first.execute("BEGIN")
        first.execute(f"NOTIFY {name}, 'made first, committed second'")
        second.execute(f"NOTIFY {name}, 'made second, committed first'")
        first.execute("COMMIT")
    assert payloads(listener, 2) == ["made second, committed first",
                                     "made first, committed second"]


def test_identical_notifications_of_a_transaction_fold(
        pair: tuple[psycopg.Connection, psycopg.Connection]) -> None:
    listener, notifier = pair
    name = channel()
    listener.execute(f"LISTEN {name}")
    with notifier.transaction():
        for payload in ("x", "x", "y", "x", ""):
            notifier.execute("SELECT pg_notify(%s, %s)", (name, payload))
        notifier.execute(f"NOTIFY {name}")
        notifier.execute(f"NOTIFY {name}, 'y'")
    notifier.execute(f"NOTIFY {name}, 'x'")  # another transaction: sent again
    assert payloads(listener, 4) == ["x", "y", "", "x"]


def test_rolled_back_notifications_are_not_sent(
        pair: tuple[psycopg.Connection, psycopg.Connection]) -> None:
    listener, notifier = pair
    name = channel()
    listener.execute(f"LISTEN {name}")
    notifier.execute(f"CREATE TABLE {name} (x int)")
    notifier.execute("BEGIN")
    notifier.execute(f"NOTIFY {name}, 'rolled back'")
    notifier.execute("ROLLBACK")
    notifier.execute("BEGIN")
    notifier.execute(f"INSERT INTO {name} VALUES (1)")
    notifier.execute(f"NOTIFY {name}, 'rolled back with a write'")
    notifier.execute("ROLLBACK")
    assert sqlstate_of(notifier, f"SELECT pg_notify('{name}', 'failed'), 1/0") == "22012"
    notifier.execute(f"NOTIFY {name}, 'sentinel'")
    assert payloads(listener, 1) == ["sentinel"]


def test_rollback_to_savepoint_drops_the_notifications_after_it(
        pair: tuple[psycopg.Connection, psycopg.Connection]) -> None:
    listener, notifier = pair
    name = channel()
    listener.execute(f"LISTEN {name}")
    notifier.execute(f"CREATE TABLE {name} (x int)")
    script = [
        # without writes: the savepoints are the session's own
        "BEGIN", "NOTIFY {c}, 'kept 1'", "SAVEPOINT s", "NOTIFY {c}, 'dropped 1'",
        "ROLLBACK TO SAVEPOINT s", "NOTIFY {c}, 'kept 2'", "COMMIT",
        # a write after the savepoint: the savepoint moves into the executor
        "BEGIN", "SAVEPOINT s", "NOTIFY {c}, 'dropped 2'", "INSERT INTO {c} VALUES (1)",
        "ROLLBACK TO SAVEPOINT s", "NOTIFY {c}, 'kept 3'", "COMMIT",
        # a savepoint made while owning the executor
        "BEGIN", "INSERT INTO {c} VALUES (2)", "NOTIFY {c}, 'kept 4'", "SAVEPOINT t",
        "NOTIFY {c}, 'dropped 3'", "ROLLBACK TO t", "RELEASE t", "COMMIT",
    ]
    for statement in script:
        notifier.execute(statement.format(c=name))
    assert payloads(listener, 4) == ["kept 1", "kept 2", "kept 3", "kept 4"]


def test_a_listener_in_a_block_gets_notifications_after_it(
        pair: tuple[psycopg.Connection, psycopg.Connection]) -> None:
    listener, notifier = pair
    name = channel()
    got: list[str] = []
    listener.add_notify_handler(lambda n: got.append(n.payload))
    listener.execute(f"LISTEN {name}")
    listener.execute("BEGIN")
    listener.execute("SELECT 1")
    notifier.execute(f"NOTIFY {name}, 'during the block'")
    listener.execute("SELECT 2")  # its results would carry the notification
    assert got == []
    listener.execute("COMMIT")
    assert got == ["during the block"]
    # a failed block holds them too, until ROLLBACK
    listener.execute("BEGIN")
    assert sqlstate_of(listener, "SELECT 1/0") == "22012"
    notifier.execute(f"NOTIFY {name}, 'during the failed block'")
    assert sqlstate_of(listener, "SELECT 3") == "25P02"
    assert got == ["during the block"]
    listener.execute("ROLLBACK")
    assert got == ["during the block", "during the failed block"]


def test_a_session_hears_its_own_notifications(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as conn:
        name = channel()
        got: list[tuple[str, int]] = []
        conn.add_notify_handler(lambda n: got.append((n.payload, n.pid)))
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        conn.execute(f"LISTEN {name}; NOTIFY {name}, 'mine'")
        assert got == [("mine", pid)]


def test_listen_and_unlisten_take_effect_at_commit(
        pair: tuple[psycopg.Connection, psycopg.Connection]) -> None:
    listener, notifier = pair
    a, b, c = channel(), channel(), channel()

    def listening() -> list[str]:
        return [row[0] for row in listener.execute("SELECT pg_listening_channels()")]

    assert listening() == []
    listener.execute("BEGIN")
    listener.execute(f"LISTEN {a}")
    listener.execute(f"LISTEN {a}")
    assert listening() == []
    notifier.execute(f"NOTIFY {a}, 'before the LISTEN committed'")
    listener.execute("SAVEPOINT s")
    listener.execute(f"LISTEN {b}")
    listener.execute("ROLLBACK TO SAVEPOINT s")
    listener.execute(f'LISTEN "{c.upper()}"')
    listener.execute("COMMIT")
    assert listening() == [a, c.upper()]
    assert listener.execute("SELECT * FROM pg_listening_channels() AS l(name) ORDER BY 1"
                            ).fetchall() == sorted([(a,), (c.upper(),)])
    listener.execute("BEGIN")
    listener.execute(f"UNLISTEN {a}")
    assert listening() == [a, c.upper()]
    listener.execute("ROLLBACK")
    assert listening() == [a, c.upper()]
    listener.execute(f"UNLISTEN {c.upper()}")  # folded: not the channel listened on
    listener.execute(f"UNLISTEN {b}")  # not listening: no error
    assert listening() == [a, c.upper()]
    notifier.execute(f"NOTIFY {b}, 'never listened'")
    notifier.execute(f"NOTIFY {a}, 'after the LISTEN committed'")
    assert payloads(listener, 1) == ["after the LISTEN committed"]
    listener.execute("UNLISTEN *")
    assert listening() == []
    notifier.execute(f"NOTIFY {a}, 'after UNLISTEN *'")
    listener.execute(f"LISTEN {c}")
    notifier.execute(f"NOTIFY {c}, 'sentinel'")
    assert received(listener, 1) == [(c, "sentinel", notifier.info.backend_pid)]


def test_limits_and_errors(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as conn:
        name = channel()
        conn.execute(f"LISTEN {name}")
        conn.execute("SELECT pg_notify(%s, %s)", (name, "é" * 3999 + "x"))  # 7999 bytes
        for sql, sqlstate in [
            (f"SELECT pg_notify('{name}', repeat('é', 4000))", "22023"),
            (f"NOTIFY {name}, '{'x' * 8000}'", "22023"),
            ("SELECT pg_notify('', 'x')", "22023"),
            ("SELECT pg_notify(NULL, 'x')", "22023"),
            (f"SELECT pg_notify('{'c' * 64}', 'x')", "22023"),
            ("NOTIFY", "42601"),
            (f"NOTIFY {name}, 1", "42601"),
            (f"NOTIFY {name}, NULL", "42601"),
            ("LISTEN 'quoted'", "42601"),
            ("UNLISTEN", "42601"),
        ]:
            assert sqlstate_of(conn, sql) == sqlstate, sql
        with pytest.raises(psycopg.errors.InvalidParameterValue,
                           match="payload string too long"):
            conn.execute(f"NOTIFY {name}, '{'x' * 8000}'")
        conn.execute(f"SELECT pg_notify('{'c' * 63}', 'longest channel')")
        conn.execute("SELECT pg_notify(%s, NULL)", (name,))
        assert conn.execute("SELECT pg_notify(%s, 'x') IS NULL", (name,)).fetchone() == (False,)
        got = payloads(conn, 3)
        assert [len(p.encode()) for p in got] == [7999, 0, 1]


FLOOD = ("SELECT count(pg_notify(%s, repeat('x', 7990) || n)) "
         "FROM generate_series(1, 500) AS n")
"""4 MB of distinct notifications in one transaction."""


def test_a_listener_that_does_not_read_is_dropped(server: ServerProcess) -> None:
    """A listener may have 32 MB waiting: one that keeps reading gets every
    notification; one that stays in a block, or never reads, is dropped."""
    name = channel()
    since = len(server.log)  # the shared server's log: only this test's lines count
    with server.connect(autocommit=True) as reader, server.connect(autocommit=True) as stuck, \
            server.connect(autocommit=True) as notifier, socket.socket() as silent:
        reader.execute(f"LISTEN {name}")
        stuck.execute(f"LISTEN {name}")
        stuck.execute("BEGIN")  # and stays in the transaction block
        silent.connect((server.host, server.port))
        silent.sendall(_startup("postgres") + _query(f"LISTEN {name}"))
        silent.recv(65536)  # authentication and ReadyForQuery; never read again
        listening = "SELECT count(*) FROM pg_stat_activity WHERE query = %s OR pid = %s"
        arguments = (f"LISTEN {name}", stuck.info.backend_pid)
        assert notifier.execute(listening, arguments).fetchone() == (3,)
        for _ in range(12):  # 48 MB: more than the limit and the sockets' buffers
            assert notifier.execute(FLOOD, (name,)).fetchone() == (500,)
            assert len(take(reader, 500)) == 500
        with pytest.raises(psycopg.OperationalError) as ended:
            stuck.execute("SELECT 1")
        assert ended.value.sqlstate in ("54000", None)  # None: the error was not read first
        assert notifier.execute(listening, arguments).fetchone() == (1,)  # the reader
        notifier.execute("SELECT pg_notify(%s, 'after')", (name,))
        assert payloads(reader, 1) == ["after"]
    assert len(server.wait_for_log("does not read its notifications", since, count=2)) == 2


def _startup(user: str) -> bytes:
    body = struct.pack("!i", 196608) + f"user\0{user}\0\0".encode()
    return struct.pack("!i", len(body) + 4) + body


def _query(sql: str) -> bytes:
    body = sql.encode() + b"\0"
    return b"Q" + struct.pack("!i", len(body) + 4) + body


def test_read_only_transactions_may_notify(
        pair: tuple[psycopg.Connection, psycopg.Connection]) -> None:
    listener, notifier = pair
    name = channel()
    listener.execute(f"LISTEN {name}")
    notifier.execute("BEGIN READ ONLY")
    notifier.execute(f"NOTIFY {name}, 'read only'")
    notifier.execute(f"LISTEN {name}")
    notifier.execute("COMMIT")
    assert payloads(listener, 1) == ["read only"]


def test_psql_prints_notifications(server: ServerProcess) -> None:
    assert PSQL, "psql is missing: run `make install`"
    name = channel()
    connect = [PSQL, "-X", "-h", server.host, "-p", str(server.port), "-U", "postgres",
               "-d", "sqlext"]
    other = " ".join(connect) + f" -c \"NOTIFY {name}, 'from another session'\""
    script = f"LISTEN {name};\n\\! {other}\nSELECT 1 AS after;\nNOTIFY {name};\n"
    result = subprocess.run([*connect, "-v", "ON_ERROR_STOP=1"], input=script,
                            capture_output=True, text=True, timeout=60, check=True)
    lines = result.stdout.splitlines()
    printed = [line for line in lines if line.startswith("Asynchronous notification")]
    assert printed[0].startswith(f'Asynchronous notification "{name}" with payload '
                                 '"from another session" received from server process '
                                 "with PID ")
    assert printed[1].startswith(f'Asynchronous notification "{name}" received from server '
                                 "process with PID ")
    assert lines.index(printed[0]) > lines.index("(1 row)")  # read with SELECT's result


def test_dataflow_notifications(server_factory: Callable[..., ServerProcess]) -> None:
    """pg_notify() and NOTIFY from a PE-triggered procedure (sent when its
    TE commits), an EE trigger and a Python procedure (sent when the client's
    transaction commits)."""
    server = server_factory("--in-memory")
    with server.connect(autocommit=True) as conn, \
            server.connect(autocommit=True) as listener:
        conn.execute("CREATE STREAM orders (item text, qty int)")
        conn.execute("CREATE TABLE stock (item text PRIMARY KEY, qty int)")
        conn.execute("INSERT INTO stock VALUES ('nut', 10)")
        conn.execute("""CREATE PROCEDURE take() BEGIN ATOMIC
            UPDATE stock SET qty = stock.qty - o.qty FROM orders o WHERE o.item = stock.item;
            SELECT pg_notify('stock', item || ' ' || qty) FROM stock WHERE qty < 5;
            NOTIFY stock, 'checked';
        END""")
        conn.execute("CREATE TRIGGER take_orders AFTER INSERT ON orders EXECUTE PROCEDURE take()")
        conn.execute("""CREATE TRIGGER watch AFTER INSERT ON stock AS $$
            SELECT pg_notify('stock', 'new item ' || count(*)) FROM stock;
        $$""")
        conn.execute("""CREATE PROCEDURE restock(item text) LANGUAGE python AS $$
            sql("INSERT INTO stock VALUES ($1, 100)", item)
            sql("NOTIFY stock, 'restocked'")
        $$""")
        listener.execute("LISTEN stock")
        conn.execute("INSERT INTO orders VALUES ('nut', 3)")
        conn.execute("INSERT INTO orders VALUES ('nut', 4)")
        assert received(listener, 3) == [("stock", "checked", 0), ("stock", "nut 3", 0),
                                         ("stock", "checked", 0)]
        pid = conn.info.backend_pid
        with conn.transaction():
            conn.execute("CALL restock('bolt')")
            conn.execute("NOTIFY stock, 'end of block'")
        assert received(listener, 3) == [("stock", "new item 2", pid),
                                         ("stock", "restocked", pid),
                                         ("stock", "end of block", pid)]
        with conn.transaction():
            conn.execute("CALL restock('washer')")
            raise psycopg.Rollback()
        conn.execute("INSERT INTO orders VALUES ('unknown', 1)")  # stock unchanged
        assert received(listener, 2) == [("stock", "nut 3", 0), ("stock", "checked", 0)]
