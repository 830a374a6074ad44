"""The live system views and session control, through the wire.

A small dataflow runs (stream -> PE procedure -> stream -> PE procedure, a
window with an AFTER SLIDE trigger, an EE trigger, a procedure that fails
and stops) and the views tell what happened; pg_stat_activity shows
sessions idle, idle in a transaction and waiting for the executor;
pg_cancel_backend() and pg_terminate_backend() act on them; a durable
server reports its command log and snapshots.
"""

from __future__ import annotations

import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import errors

from tests.fixtures.psql import output, rows
from tests.fixtures.servers import ServerProcess
from tests.fixtures.waiting import wait_for_session

VIEWS = ("pg_stat_activity", "sqlext_checkpoints", "sqlext_log", "sqlext_procedures",
         "sqlext_snapshots", "sqlext_streams", "sqlext_triggers", "sqlext_windows")

DATAFLOW = """
CREATE STREAM raw (n int NOT NULL);
CREATE STREAM doubled (n int NOT NULL);
CREATE TABLE totals (n int);
CREATE TABLE seen (procedure name, running bool, state text, raw_pending bigint,
                   raw_pending_tuples bigint);
CREATE PROCEDURE double_it() LANGUAGE sql AS $$
    INSERT INTO seen SELECT p.name, p.running, p.state, s.pending_batches, s.pending_tuples
        FROM sqlext_procedures p, sqlext_streams s
        WHERE p.name = 'double_it' AND s.name = 'raw';
    INSERT INTO doubled SELECT n * 2 FROM raw;
$$;
CREATE PROCEDURE total() LANGUAGE sql AS $$
    INSERT INTO seen SELECT p.name, p.running, p.state, s.pending_batches, s.pending_tuples
        FROM sqlext_procedures p, sqlext_streams s
        WHERE p.running AND s.name = 'raw';
    INSERT INTO totals SELECT n FROM doubled;
$$;
CREATE TRIGGER t_raw AFTER INSERT ON raw EXECUTE PROCEDURE double_it();
CREATE TRIGGER t_doubled AFTER INSERT ON doubled EXECUTE PROCEDURE total();
CREATE TABLE audit (tuples bigint);
CREATE TRIGGER audit_raw AFTER INSERT ON raw AS $$ INSERT INTO audit SELECT count(*) FROM raw $$;
CREATE WINDOW recent ON doubled ROWS 4 SLIDE 2;
CREATE TABLE slid (visible bigint);
CREATE TRIGGER on_slide AFTER SLIDE ON recent AS $$
    INSERT INTO slid SELECT count(*) FROM recent;
$$;
CREATE STREAM parts (n int NOT NULL);
CREATE PROCEDURE fragile() LANGUAGE sql AS $$
    INSERT INTO totals SELECT 12 / (n - 3) FROM parts;
$$;
CREATE TRIGGER t_parts AFTER INSERT ON parts EXECUTE PROCEDURE fragile();
CREATE STREAM work (n int NOT NULL);
CREATE PROCEDURE crunch() LANGUAGE sql AS $$
    INSERT INTO totals SELECT count(*) FROM generate_series(1, (SELECT max(n) FROM work));
$$;
CREATE TRIGGER t_work AFTER INSERT ON work EXECUTE PROCEDURE crunch();
"""


@pytest.fixture
def dataflow_server(server_factory: Callable[..., ServerProcess]) -> ServerProcess:
    """A server of its own: a stopped procedure is server-wide state."""
    return server_factory("--in-memory")


@pytest.fixture
def conn(dataflow_server: ServerProcess) -> Iterator[psycopg.Connection]:
    with dataflow_server.connect(autocommit=True) as connection:
        yield connection


def _one(conn: psycopg.Connection, sql: str, *params: Any) -> tuple[Any, ...]:
    row = conn.execute(sql, params or None).fetchone()
    assert row is not None, sql
    return row


def test_dataflow_views(conn: psycopg.Connection) -> None:
    conn.execute(DATAFLOW)
    assert _one(conn, "SELECT state, running, avg_ms, p99_ms, last_run FROM sqlext_procedures "
                      "WHERE name = 'double_it'") == ("idle", False, None, None, None)
    for n in range(1, 8):
        conn.execute("INSERT INTO raw VALUES (%s)", (n,))
    for n in range(1, 6):
        conn.execute("INSERT INTO parts VALUES (%s)", (n,))

    # What the TEs saw of themselves: the TE running now, the batch it works on
    # still pending; by the time the next procedure runs, raw's batch is consumed.
    assert conn.execute("SELECT DISTINCT * FROM seen ORDER BY procedure").fetchall() == [
        ("double_it", True, "running", 1, 1), ("total", True, "running", 0, 0)]
    assert _one(conn, "SELECT count(*) FROM seen") == (14,)

    procedures = {row[0]: row[1:] for row in conn.execute(
        "SELECT name, state, running, waiting_batches, batches_run, batches_failed, "
        "stopped_at_batch, stopped_on_stream, error_code FROM sqlext_procedures")}
    assert procedures == {
        "crunch": ("idle", False, 0, 0, 0, None, None, None),
        "double_it": ("idle", False, 0, 7, 0, None, None, None),
        "fragile": ("stopped", False, 3, 2, 1, 3, "parts", "22012"),
        "total": ("idle", False, 0, 7, 0, None, None, None)}
    for name in ("double_it", "total", "fragile"):
        average, p99, last_run = _one(
            conn, "SELECT avg_ms, p99_ms, last_run FROM sqlext_procedures WHERE name = %s", name)
        assert 0 < average <= p99
        assert last_run is not None

    assert conn.execute(
        "SELECT name, last_batch, tuples, consumers, pending_batches, pending_tuples "
        "FROM sqlext_streams ORDER BY name").fetchall() == [
        ("doubled", 7, 0, "procedure total, window recent", 0, 0),
        ("parts", 5, 3, "procedure fragile", 3, 3),
        ("raw", 7, 0, "procedure double_it, trigger audit_raw", 0, 0),
        ("work", 0, 0, "procedure crunch", 0, 0)]

    # ROWS 4 SLIDE 2: the 4th tuple fills it (slide 1), the 6th slides it
    # again, the 7th waits staged.
    assert conn.execute("SELECT * FROM sqlext_windows").fetchall() == [
        ("public", "recent", "doubled", "rows", "4", "2", None, None, 4, 1, 2)]
    assert _one(conn, "SELECT count(*) FROM slid") == (2,)

    assert conn.execute("SELECT * FROM sqlext_triggers ORDER BY name").fetchall() == [
        ("public", "audit_raw", "EE", "raw", "stream", None, 7),
        ("public", "on_slide", "slide", "recent", "window", None, 2),
        ("public", "t_doubled", "PE", "doubled", "stream", "total", 7),
        ("public", "t_parts", "PE", "parts", "stream", "fragile", 5),
        ("public", "t_raw", "PE", "raw", "stream", "double_it", 7),
        ("public", "t_work", "PE", "work", "stream", "crunch", 0)]

    # in-memory mode: a log row that says so, no snapshots, no checkpoints
    assert conn.execute("SELECT * FROM sqlext_log").fetchall() == [
        ("in-memory", *[None] * 10)]
    assert conn.execute("SELECT count(*) FROM sqlext_snapshots").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM sqlext_checkpoints").fetchone() == (0,)


def test_latency_columns_move(conn: psycopg.Connection) -> None:
    conn.execute(DATAFLOW)
    for _ in range(20):
        conn.execute("INSERT INTO work VALUES (1)")
    quick = _one(conn, "SELECT avg_ms, p99_ms, last_run, batches_run FROM sqlext_procedures "
                       "WHERE name = 'crunch'")
    assert quick[3] == 20
    # One TE that counts 300,000 rows takes hundreds of times longer than
    # the 20 that counted one: it is the 99th percentile now.
    conn.execute("INSERT INTO work VALUES (300000)")
    slow = _one(conn, "SELECT avg_ms, p99_ms, last_run, batches_run FROM sqlext_procedures "
                      "WHERE name = 'crunch'")
    assert slow[3] == 21
    assert slow[0] > quick[0] and slow[1] > quick[1] and slow[2] > quick[2]
    assert slow[1] > 10 * quick[1]


def _local_port(conn: psycopg.Connection) -> int:
    with socket.socket(fileno=os.dup(conn.fileno())) as sock:
        return int(sock.getsockname()[1])


def _activity(conn: psycopg.Connection, pid: int) -> dict[str, Any]:
    cursor = conn.execute("SELECT * FROM pg_stat_activity WHERE pid = %s", (pid,))
    row = cursor.fetchone()
    assert row is not None and cursor.description is not None, f"no session {pid}"
    return {column.name: value for column, value in zip(cursor.description, row, strict=True)}


def _in_background(conn: psycopg.Connection, sql: str
                   ) -> tuple[threading.Thread, list[psycopg.Error]]:
    """Run ``sql`` on ``conn`` in a thread of its own; the error it raises
    lands in the list."""
    raised: list[psycopg.Error] = []

    def run() -> None:
        try:
            conn.execute(sql)
        except psycopg.Error as exc:
            raised.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, raised


def test_pg_stat_activity_and_session_control(dataflow_server: ServerProcess,
                                              conn: psycopg.Connection) -> None:
    conn.execute("CREATE TABLE t (x int)")
    me = conn.info.backend_pid
    server = dataflow_server
    with server.connect(autocommit=True, application_name="holder") as holder, \
            server.connect(autocommit=True) as waiter, \
            server.connect(autocommit=True) as aborted, \
            server.connect(autocommit=True) as idle:
        aborted.execute("BEGIN")
        with pytest.raises(errors.DivisionByZero):
            aborted.execute("SELECT 1/0")
        holder.execute("BEGIN")
        holder.execute("INSERT INTO t VALUES (1)")
        blocked, raised = _in_background(waiter, "INSERT INTO t VALUES (2)")
        wait_for_session(conn, waiter.info.backend_pid, "executor")

        states = {pid: (state, wait_type, wait_event, query) for pid, state, wait_type,
                  wait_event, query in conn.execute(
                      "SELECT pid, state, wait_event_type, wait_event, query "
                      "FROM pg_stat_activity")}
        assert states == {
            me: ("active", None, None, "SELECT pid, state, wait_event_type, wait_event, "
                 "query FROM pg_stat_activity"),
            holder.info.backend_pid: ("idle in transaction", "Client", "ClientRead",
                                      "INSERT INTO t VALUES (1)"),
            waiter.info.backend_pid: ("active", "Lock", "executor",
                                      "INSERT INTO t VALUES (2)"),
            aborted.info.backend_pid: ("idle in transaction (aborted)", "Client",
                                       "ClientRead", "SELECT 1/0"),
            idle.info.backend_pid: ("idle", "Client", "ClientRead", "")}

        row = _activity(conn, holder.info.backend_pid)
        assert (row["datname"], row["usename"], row["usesysid"], row["application_name"],
                str(row["client_addr"]), row["client_port"], row["backend_type"]) == (
            "sqlext", "postgres", 10, "holder", "127.0.0.1", _local_port(holder),
            "client backend")
        assert row["backend_start"] <= row["xact_start"] <= row["query_start"] <= row[
            "state_change"]
        assert (row["leader_pid"], row["client_hostname"], row["backend_xid"],
                row["backend_xmin"], row["query_id"]) == (None,) * 5
        assert _activity(conn, idle.info.backend_pid)["xact_start"] is None
        assert _activity(conn, waiter.info.backend_pid)["xact_start"] is not None

        # cancel ends the wait, as a CancelRequest does
        assert _one(conn, "SELECT pg_cancel_backend(%s)", waiter.info.backend_pid) == (True,)
        blocked.join()
        assert [type(exc) for exc in raised] == [errors.QueryCanceled]
        assert _activity(conn, waiter.info.backend_pid)["state"] == "idle"

        # a session waiting for the executor can be ended too
        with server.connect(autocommit=True) as doomed:
            blocked, raised = _in_background(doomed, "INSERT INTO t VALUES (2)")
            wait_for_session(conn, doomed.info.backend_pid, "executor")
            assert _one(conn, "SELECT pg_terminate_backend(%s)",
                        doomed.info.backend_pid) == (True,)
            blocked.join()
            assert [type(exc) for exc in raised] == [errors.AdminShutdown]

        # terminate ends the session that holds everyone up; its work rolls back
        assert conn.execute("SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity "
                            "WHERE state = 'idle in transaction'").fetchall() == [
            (holder.info.backend_pid, True)]
        with pytest.raises(psycopg.OperationalError,
                           match="terminating connection due to administrator command"):
            holder.execute("SELECT 1")
        assert holder.closed
        idle.execute("INSERT INTO t VALUES (3)")
        assert conn.execute("SELECT x FROM t").fetchall() == [(3,)]
        assert holder.info.backend_pid not in {
            pid for (pid,) in conn.execute("SELECT pid FROM pg_stat_activity")}


def test_signalling_what_is_not_there_or_itself(dataflow_server: ServerProcess,
                                                conn: psycopg.Connection) -> None:
    warnings: list[tuple[str | None, str | None]] = []
    conn.add_notice_handler(
        lambda notice: warnings.append((notice.severity_nonlocalized, notice.message_primary)))
    assert _one(conn, "SELECT pg_cancel_backend(99999)") == (False,)
    assert _one(conn, "SELECT pg_terminate_backend(99999)") == (False,)
    assert warnings == [("WARNING", "PID 99999 is not a PostgreSQL backend process")] * 2
    assert _one(conn, "SELECT pg_cancel_backend(NULL)") == (None,)
    with pytest.raises(errors.NumericValueOutOfRange, match='"timeout" must not be negative'):
        conn.execute("SELECT pg_terminate_backend(pg_backend_pid(), -1)")
    with pytest.raises(errors.QueryCanceled, match="canceling statement due to user request"):
        conn.execute("SELECT pg_cancel_backend(pg_backend_pid())")
    assert _one(conn, "SELECT 1") == (1,)  # the cancel was for that statement only
    with dataflow_server.connect(autocommit=True) as doomed:
        with pytest.raises(errors.AdminShutdown,
                           match="terminating connection due to administrator command"):
            doomed.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        assert doomed.closed
    assert _one(conn, "SELECT 1") == (1,)


def test_cancel_leaves_an_idle_session_alone(dataflow_server: ServerProcess,
                                             conn: psycopg.Connection) -> None:
    """A session that once waited for the executor and is idle now has
    nothing to cancel: its next statement runs."""
    conn.execute("CREATE TABLE t (x int)")
    with dataflow_server.connect(autocommit=True) as holder, \
            dataflow_server.connect(autocommit=True) as reader:
        holder.execute("BEGIN")
        holder.execute("INSERT INTO t VALUES (1)")
        blocked, raised = _in_background(reader, "SELECT count(*) FROM t")
        wait_for_session(conn, reader.info.backend_pid, "executor")
        holder.execute("COMMIT")
        blocked.join()
        assert raised == []
        assert _one(conn, "SELECT pg_cancel_backend(%s)", reader.info.backend_pid) == (True,)
        assert _one(reader, "SELECT count(*) FROM t") == (1,)


def _login(server: ServerProcess, role: str) -> psycopg.Connection:
    return psycopg.connect(f"host={server.host} port={server.port} dbname=sqlext user={role}",
                           autocommit=True)


def test_other_roles_sessions(dataflow_server: ServerProcess,
                              conn: psycopg.Connection) -> None:
    alice, bob = (f"{name}_{uuid.uuid4().hex[:6]}" for name in ("alice", "bob"))
    conn.execute(f"CREATE ROLE {alice} LOGIN; CREATE ROLE {bob} LOGIN")
    with _login(dataflow_server, alice) as mine, _login(dataflow_server, alice) as also_mine, \
            _login(dataflow_server, bob) as theirs:
        theirs.execute("SELECT 42")
        bob_pid = theirs.info.backend_pid
        row = _activity(mine, bob_pid)
        assert (row["usename"], row["query"], row["state"], row["client_addr"],
                row["backend_start"], row["backend_type"]) == (
            bob, "<insufficient privilege>", None, None, None, None)
        assert _activity(mine, also_mine.info.backend_pid)["state"] == "idle"
        assert _activity(conn, bob_pid)["query"] == "SELECT 42"

        denied = {
            f"SELECT pg_cancel_backend({bob_pid})":
                "must be a member of the role whose query is being canceled or member of "
                "pg_signal_backend",
            f"SELECT pg_terminate_backend({bob_pid})":
                "must be a member of the role whose process is being terminated or member "
                "of pg_signal_backend",
            f"SELECT pg_cancel_backend({conn.info.backend_pid})":
                "must be a superuser to cancel superuser query",
            f"SELECT pg_terminate_backend({conn.info.backend_pid})":
                "must be a superuser to terminate superuser process"}
        for sql, message in denied.items():
            with pytest.raises(errors.InsufficientPrivilege) as refused:
                mine.execute(sql)
            assert refused.value.diag.message_primary == message
        assert not theirs.closed and theirs.execute("SELECT 1").fetchone() == (1,)

        # a role may end its own sessions; a superuser anybody's
        assert _one(mine, "SELECT pg_terminate_backend(%s)",
                    also_mine.info.backend_pid) == (True,)
        assert _one(conn, "SELECT pg_terminate_backend(%s)", bob_pid) == (True,)
        for ended in (also_mine, theirs):
            with pytest.raises(psycopg.OperationalError):
                ended.execute("SELECT 1")


def test_psql_lists_and_reads_the_views(dataflow_server: ServerProcess) -> None:
    listed = {cells[1] for cells in rows(output(dataflow_server, "\\dS"))}
    assert set(VIEWS) <= listed
    described = rows(output(dataflow_server, "\\d pg_stat_activity"))
    assert ["client_addr", "inet", "", "", ""] in described
    assert ["backend_xid", "xid", "", "", ""] in described
    assert rows(output(dataflow_server, "SELECT state, backend_type, query "
                                        "FROM pg_stat_activity")) == [
        ["state", "backend_type", "query"],
        ["active", "client backend", "SELECT state, backend_type, query FROM pg_stat_activity"]]


def _file_size(path: str) -> int:
    return Path(path).stat().st_size


def test_durable_log_and_snapshots(server_factory: Callable[..., ServerProcess],
                                   tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    server = server_factory("--data-dir", str(data_dir))
    with server.connect(autocommit=True) as conn:
        conn.execute("CREATE TABLE t (x int)")
        for x in range(5):
            conn.execute("INSERT INTO t VALUES (%s)", (x,))
        log = _one(conn, "SELECT * FROM sqlext_log")
        (durability, timeout, recovery, last_lsn, durable_lsn, last_fsync, fsyncs, average,
         largest, file, size) = log
        assert (durability, timeout, recovery) == ("group commit", 10, "strong")
        # each commit was acknowledged after its record was on disk
        assert last_lsn == durable_lsn >= 6
        assert last_fsync is not None and fsyncs >= 1 and largest >= 1
        assert average == pytest.approx(last_lsn / fsyncs, abs=0.001)
        assert file == str(data_dir.resolve() / "cmdlog-0000000000000001.log")
        assert size == _file_size(file)
        assert conn.execute("SELECT count(*) FROM sqlext_snapshots").fetchone() == (0,)

        conn.execute("CHECKPOINT")
        snapshot = f"{data_dir.resolve()}/snapshot-{last_lsn:016d}"
        file, lsn, size, written, writing = _one(conn, "SELECT * FROM sqlext_snapshots")
        assert (file, lsn, writing) == (f"{snapshot}.db", last_lsn, False)
        assert size == _file_size(f"{snapshot}.db") + _file_size(f"{snapshot}.state")
        assert written is not None
        assert _one(conn, "SELECT lsn, error FROM sqlext_checkpoints") == (last_lsn, None)
        # the checkpoint started a new log segment
        assert _one(conn, "SELECT file, last_lsn FROM sqlext_log") == (
            str(data_dir.resolve() / f"cmdlog-{last_lsn + 1:016d}.log"), last_lsn)

        conn.execute("INSERT INTO t VALUES (5)")
        conn.execute("CHECKPOINT")
        (now_lsn,) = _one(conn, "SELECT last_lsn FROM sqlext_log")
        assert now_lsn > last_lsn
        assert conn.execute("SELECT lsn, writing FROM sqlext_snapshots").fetchall() == [
            (last_lsn, False), (now_lsn, False)]


def test_log_without_group_commit(server_factory: Callable[..., ServerProcess],
                                  tmp_path: Path) -> None:
    server = server_factory("--data-dir", str(tmp_path / "data"), "--recovery", "weak",
                            "--commandlog-timeout-ms", "-1")
    with server.connect(autocommit=True) as conn:
        conn.execute("CREATE TABLE t (x int)")
        conn.execute("INSERT INTO t VALUES (1)")
        assert _one(conn, "SELECT durability, commit_timeout_ms, recovery, max_group, "
                          "avg_group, fsyncs = last_lsn FROM sqlext_log") == (
            "fsync each commit", -1, "weak", 1, 1.0, True)
