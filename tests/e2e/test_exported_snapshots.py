"""Exported snapshots (docs/sql.md, "Exported snapshots"):
sqlext_export_snapshot() and SET TRANSACTION SNAPSHOT, the way a Spark data
source's partitions read one consistent state in several connections."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pyarrow as pa
import pytest

from sqlext.session.exported_snapshots import MAX_HOLDERS
from sqlext.tools.peer import PostgresPeer
from tests.fixtures.servers import ServerProcess, child_processes, start_server
from tests.fixtures.waiting import wait_until

ROWS = 20_000
"""More rows than one chunk (``engine_session.STREAM_CHUNK``)."""
IMPORT = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    """A server of this module's own: the tests count its processes."""
    process = start_server("--in-memory")
    with process.connect(autocommit=True) as conn:
        conn.execute("CREATE TABLE items (id int PRIMARY KEY, v int, label text)")
        conn.execute("INSERT INTO items SELECT n, n, 'item ' || n "
                     "FROM generate_series(1, %s) AS n", (ROWS,))
    yield process
    process.stop()


def _none_left(server: ServerProcess) -> None:
    wait_until(lambda: not child_processes(server.process.pid), "every holder to end")


@contextlib.contextmanager
def _importing(server: ServerProcess, snapshot_id: str) -> Iterator[psycopg.Connection]:
    """A connection in a block that imported ``snapshot_id``."""
    with server.connect(autocommit=True) as conn:
        conn.execute(IMPORT)
        conn.execute(f"SET TRANSACTION SNAPSHOT '{snapshot_id}'")
        yield conn
        conn.execute("ROLLBACK")


def _export(conn: psycopg.Connection, timeout: float | None = None) -> str:
    sql = "SELECT sqlext_export_snapshot()" if timeout is None else (
        f"SELECT sqlext_export_snapshot({timeout})")
    row = conn.execute(sql).fetchone()
    assert row is not None
    return str(row[0])


def _sqlstate(conn: psycopg.Connection, sql: str) -> tuple[str | None, str | None]:
    try:
        conn.execute(sql)
    except psycopg.Error as exc:
        return exc.sqlstate, exc.diag.message_primary
    return None, None


def test_partitions_read_one_state_while_a_writer_commits(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as driver, \
            server.connect(autocommit=True) as writer:
        snapshot = _export(driver)
        writer.execute("INSERT INTO items VALUES (%s, 0, 'after export')", (ROWS + 1,))
        with _importing(server, snapshot) as one, _importing(server, snapshot) as two:
            low = one.cursor().stream("SELECT id, v FROM items WHERE id <= %s ORDER BY id",
                                      (ROWS // 2,))
            first = [next(low) for _ in range(10)]
            # commits while the first partition is being read and before the second starts
            writer.execute("UPDATE items SET v = -v")
            writer.execute("DELETE FROM items WHERE id > %s", (ROWS - 100,))
            high = two.execute("SELECT id, v FROM items WHERE id > %s ORDER BY id",
                               (ROWS // 2,)).fetchall()
            rows = first + list(low) + high
            assert rows == [(n, n) for n in range(1, ROWS + 1)]
            assert two.execute("SELECT count(*), sum(v) FROM items").fetchone() == (
                ROWS, ROWS * (ROWS + 1) // 2)
        assert writer.execute("SELECT count(*), max(v) FROM items").fetchone() == (
            ROWS - 100, -1)
        writer.execute("DELETE FROM items")
        writer.execute("INSERT INTO items SELECT n, n, 'item ' || n "
                       "FROM generate_series(1, %s) AS n", (ROWS,))
        driver.execute("SELECT sqlext_release_snapshot(%s)", (snapshot,))
    _none_left(server)


def test_copy_in_every_format_reads_the_snapshot(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as driver, \
            server.connect(autocommit=True) as writer:
        expected = {kind: _copied(driver, kind) for kind in ("text", "binary", "arrow")}
        snapshot = _export(driver)
        writer.execute("UPDATE items SET label = 'changed' WHERE id = 7")
        with _importing(server, snapshot) as reader:
            for kind, data in expected.items():
                assert _copied(reader, kind) == data, kind
        writer.execute("UPDATE items SET label = 'item 7' WHERE id = 7")
        table = pa.ipc.open_stream(expected["arrow"]).read_all()
        assert table.num_rows == ROWS and table.column_names == ["id", "v", "label"]
        driver.execute("SELECT sqlext_release_snapshot(%s)", (snapshot,))


def _copied(conn: psycopg.Connection, kind: str) -> bytes:
    sql = f"COPY (SELECT * FROM items ORDER BY id) TO STDOUT (FORMAT {kind})"
    with conn.cursor().copy(sql) as copy:
        return b"".join(bytes(part) for part in copy)


def test_parameters_and_binary_results(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as driver:
        snapshot = _export(driver)
        with _importing(server, snapshot) as reader:
            cursor = reader.cursor(binary=True)
            cursor.execute("SELECT id, label FROM items WHERE id BETWEEN %s AND %s ORDER BY id",
                           (5, 7))
            assert cursor.fetchall() == [(5, "item 5"), (6, "item 6"), (7, "item 7")]
            assert reader.execute("SHOW transaction_isolation").fetchone() == (
                "repeatable read",)
        driver.execute("SELECT sqlext_release_snapshot(%s)", (snapshot,))


def test_reads_go_on_while_another_session_holds_a_write_transaction(
        server: ServerProcess) -> None:
    with server.connect(autocommit=True) as driver, server.connect() as writer:
        snapshot = _export(driver)
        writer.execute("INSERT INTO items VALUES (0, 0, 'uncommitted')")  # holds the executor
        with _importing(server, snapshot) as reader:
            started = time.monotonic()
            assert reader.execute("SELECT count(*) FROM items").fetchone() == (ROWS,)
            assert time.monotonic() - started < 5
        writer.rollback()
        driver.execute("SELECT sqlext_release_snapshot(%s)", (snapshot,))


def test_a_snapshot_never_shows_half_a_dataflow(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as conn:
        conn.execute("CREATE STREAM snap_orders (id int NOT NULL, amount int NOT NULL)")
        conn.execute("CREATE TABLE snap_totals (n int NOT NULL, amount int NOT NULL)")
        conn.execute("INSERT INTO snap_totals VALUES (0, 0)")
        conn.execute("CREATE PROCEDURE snap_sum() LANGUAGE sql AS $$ "
                     "UPDATE snap_totals SET n = n + (SELECT count(*) FROM snap_orders), "
                     "amount = amount + (SELECT sum(amount) FROM snap_orders) $$")
        conn.execute("CREATE TRIGGER snap_sum_orders AFTER INSERT ON snap_orders "
                     "EXECUTE PROCEDURE snap_sum()")
        for batch in range(20):
            with conn.cursor() as cursor:
                cursor.executemany("INSERT INTO snap_orders VALUES (%s, %s)",
                                   [(batch * 10 + n, n) for n in range(10)])
            snapshot = _export(conn)  # right after the batch committed
            with _importing(server, snapshot) as reader:
                assert reader.execute("SELECT n, amount FROM snap_totals").fetchone() == (
                    (batch + 1) * 10, (batch + 1) * 45)
            conn.execute("SELECT sqlext_release_snapshot(%s)", (snapshot,))


def test_release_and_idle_expiry_end_the_snapshot(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as driver:
        released = _export(driver)
        assert driver.execute("SELECT sqlext_release_snapshot(%s)", (released,)
                              ).fetchone() == (True,)
        expiring = _export(driver, 0.5)
        with _importing(server, expiring) as reader:  # in use: it does not expire
            time.sleep(1)
            assert reader.execute("SELECT count(*) FROM items").fetchone() == (ROWS,)
        time.sleep(1)
        with server.connect(autocommit=True) as late:
            for snapshot in (released, expiring):
                late.execute(IMPORT)
                assert _sqlstate(late, f"SET TRANSACTION SNAPSHOT '{snapshot}'") == (
                    "22023", f'invalid snapshot identifier: "{snapshot}"')
                late.execute("ROLLBACK")
        assert _sqlstate(driver, f"SELECT sqlext_release_snapshot('{released}')") == (
            "22023", f'invalid snapshot identifier: "{released}"')
    _none_left(server)


def test_a_snapshot_released_while_read_ends_after_the_read(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as driver:
        snapshot = _export(driver)
        with _importing(server, snapshot) as reader:
            rows = reader.cursor().stream("SELECT id FROM items ORDER BY id")
            next(rows)
            driver.execute("SELECT sqlext_release_snapshot(%s)", (snapshot,))
            assert len(list(rows)) == ROWS - 1
            assert child_processes(server.process.pid)
    _none_left(server)


def test_past_the_cap_the_longest_unused_snapshot_makes_way(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as driver, contextlib.ExitStack() as readers:
        held = [_export(driver) for _ in range(MAX_HOLDERS)]
        assert len(child_processes(server.process.pid)) == MAX_HOLDERS
        for snapshot in held[1:]:  # all but the first are being read
            readers.enter_context(_importing(server, snapshot))
        newest = _export(driver)  # the first, unused, made way
        late = _sqlstate(driver, f"SELECT sqlext_release_snapshot('{held[0]}')")
        assert late == ("22023", f'invalid snapshot identifier: "{held[0]}"')
        readers.enter_context(_importing(server, newest))
        with pytest.raises(psycopg.errors.ConfigurationLimitExceeded) as failure:
            driver.execute("SELECT sqlext_export_snapshot()")  # all are in use
        assert "sqlext_release_snapshot" in (failure.value.diag.message_hint or "")
        readers.close()
        for snapshot in [*held[1:], newest]:
            driver.execute("SELECT sqlext_release_snapshot(%s)", (snapshot,))
    _none_left(server)


def test_holders_end_with_the_server() -> None:
    with _own_server() as process:
        with process.connect(autocommit=True) as conn:
            _export(conn)
            _export(conn)
        holders = child_processes(process.process.pid)
        assert len(holders) == 2
    wait_until(lambda: not any(Path(f"/proc/{pid}").exists() for pid in holders),
               "the holders to end with the server")


def test_writes_and_engine_calls_are_refused(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as driver:
        snapshot = _export(driver)
        with server.connect(autocommit=True) as reader:
            for begin, statement, refused in (
                    (IMPORT, "INSERT INTO items VALUES (0, 0, 'x')",
                     "cannot execute INSERT in a read-only transaction"),
                    ("BEGIN ISOLATION LEVEL REPEATABLE READ", "UPDATE items SET v = 0",
                     "cannot execute UPDATE in a transaction that imported a snapshot"),
                    ("BEGIN ISOLATION LEVEL REPEATABLE READ", "CREATE TABLE nothing (a int)",
                     "cannot execute this statement in a transaction that imported a "
                     "snapshot"),
                    ("BEGIN ISOLATION LEVEL REPEATABLE READ", "SELECT sqlext_drain(1)",
                     "cannot execute sqlext_drain() in a transaction that imported a "
                     "snapshot")):
                reader.execute(begin)
                reader.execute(f"SET TRANSACTION SNAPSHOT '{snapshot}'")
                assert _sqlstate(reader, statement) == ("25006", refused)
                reader.execute("ROLLBACK")
        driver.execute("SELECT sqlext_release_snapshot(%s)", (snapshot,))


IMPORT_ERRORS = [
    ["SET TRANSACTION SNAPSHOT '{id}'"],
    ["BEGIN", "SET TRANSACTION SNAPSHOT '{id}'"],
    ["BEGIN ISOLATION LEVEL REPEATABLE READ", "SELECT 1", "SET TRANSACTION SNAPSHOT '{id}'"],
    ["BEGIN ISOLATION LEVEL REPEATABLE READ", "SAVEPOINT s", "SET TRANSACTION SNAPSHOT '{id}'"],
    ["BEGIN ISOLATION LEVEL REPEATABLE READ", "SET TRANSACTION SNAPSHOT 'no-such-snapshot'"],
    ["BEGIN ISOLATION LEVEL REPEATABLE READ", "SET TRANSACTION SNAPSHOT '{id}'",
     "SET TRANSACTION SNAPSHOT '{id}'"],
    ["BEGIN ISOLATION LEVEL REPEATABLE READ", "SET TRANSACTION SNAPSHOT '{id}'",
     "SET TRANSACTION ISOLATION LEVEL READ COMMITTED"],
    [IMPORT, "SET TRANSACTION SNAPSHOT '{id}'", "INSERT INTO items VALUES (0, 0, 'x')"],
    ["BEGIN ISOLATION LEVEL REPEATABLE READ", "SET TRANSACTION SNAPSHOT '{id}'",
     "SHOW transaction_isolation", "SELECT count(*) FROM items"],
]


def _told(conn: psycopg.Connection, notices: list[object], statements: list[str],
          snapshot_id: str) -> list[object]:
    """What the client is told for each statement up to the first error:
    its notices, then its SQLSTATE and message (None for success)."""
    told: list[object] = []
    for statement in statements:
        state = _sqlstate(conn, statement.format(id=snapshot_id))
        told.append((statement, state, list(notices)))
        notices.clear()
        if state[0] is not None:
            break
    conn.execute("ROLLBACK")
    notices.clear()
    return told


def _noted(conn: psycopg.Connection) -> list[object]:
    notices: list[object] = []
    conn.add_notice_handler(lambda n: notices.append(
        (n.severity_nonlocalized, n.sqlstate, n.message_primary)))
    return notices


def test_errors_are_postgresql_s() -> None:
    with PostgresPeer() as pg, psycopg.connect(pg.dsn) as exporter, \
            psycopg.connect(pg.dsn, autocommit=True) as theirs, \
            _own_server() as process, process.connect(autocommit=True) as ours:
        for conn in (theirs, ours):
            conn.execute("CREATE TABLE items (id int, v int, label text)")
        exporter.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        row = exporter.execute("SELECT pg_export_snapshot()").fetchone()
        assert row is not None
        their_id, our_id = str(row[0]), _export(ours)
        their_notices, our_notices = _noted(theirs), _noted(ours)
        for statements in IMPORT_ERRORS:
            assert _told(ours, our_notices, statements, our_id) == _told(
                theirs, their_notices, statements, their_id), statements


@contextlib.contextmanager
def _own_server() -> Iterator[ServerProcess]:
    process = start_server("--in-memory")
    try:
        yield process
    finally:
        process.stop()


def test_an_export_refuses_a_transaction_holding_the_executor(
        server: ServerProcess) -> None:
    with server.connect(autocommit=True) as conn:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        assert _sqlstate(conn, "SELECT sqlext_export_snapshot()")[0] == "25001"
        conn.execute("ROLLBACK")
        conn.execute("BEGIN")
        snapshot = _export(conn)  # READ COMMITTED, nothing written: it may
        conn.execute("SELECT sqlext_release_snapshot(%s)", (snapshot,))
        conn.execute("ROLLBACK")
        assert _sqlstate(conn, "SELECT sqlext_export_snapshot(0)")[0] == "22023"
    _none_left(server)


def test_two_partitions_read_at_once(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as driver:
        snapshot = _export(driver)
        results: dict[int, bytes] = {}

        def read(part: int) -> None:
            with _importing(server, snapshot) as reader:
                sql = (f"COPY (SELECT * FROM items WHERE id % 2 = {part}) TO STDOUT "
                       "(FORMAT arrow)")
                with reader.cursor().copy(sql) as copy:
                    results[part] = b"".join(bytes(p) for p in copy)

        threads = [threading.Thread(target=read, args=(part,)) for part in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        counts = [pa.ipc.open_stream(results[part]).read_all().num_rows for part in (0, 1)]
        assert counts == [ROWS // 2, ROWS // 2]
        driver.execute("SELECT sqlext_release_snapshot(%s)", (snapshot,))
    _none_left(server)
