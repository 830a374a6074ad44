"""Sessions and transactions through psycopg 3: pipelines, server-side
cursors, COPY, savepoints, concurrency, errors and cancellation."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable

import psycopg
import pytest
from psycopg import errors as pg_errors

from tests.fixtures.servers import ServerProcess
from tests.fixtures.waiting import wait_for_session, wait_until


def _table(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def test_executemany_pipeline_lands_every_row(server: ServerProcess) -> None:
    table = _table("em")
    with server.connect() as conn:
        conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, name text)")
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO {table} (id, name) VALUES (%s, %s)",
                            [(i, f"row {i}") for i in range(10_000)])
        conn.commit()
        count, total = conn.execute(f"SELECT count(*), sum(id) FROM {table}").fetchone()
    assert count == 10_000
    assert total == sum(range(10_000))


def test_named_cursor_fetches_in_chunks(server: ServerProcess) -> None:
    table = _table("nc")
    with server.connect() as conn:
        conn.execute(f"CREATE TABLE {table} (id int)")
        conn.execute(f"INSERT INTO {table} SELECT g FROM generate_series(1, 100000) g")
        conn.commit()
        seen = 0
        expected = 1
        with conn.cursor(name="big") as cur:
            cur.itersize = 5000
            cur.execute(f"SELECT id FROM {table} WHERE id > %s ORDER BY id", [0])
            while chunk := cur.fetchmany(7000):
                for (value,) in chunk:
                    assert value == expected
                    expected += 1
                seen += len(chunk)
        conn.commit()
    assert seen == 100_000


def test_copy_in_and_out(server: ServerProcess) -> None:
    table = _table("cp")
    rows = [(1, "plain"), (2, None), (3, "tab\there"), (4, "new\nline"), (5, "back\\slash"),
            (6, "comma, \"quotes\"")]
    with server.connect(autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {table} (id int, name text)")
        with conn.cursor() as cur:
            with cur.copy(f"COPY {table} (id, name) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            assert cur.rowcount == len(rows)
            with cur.copy(f"COPY (SELECT id, name FROM {table} ORDER BY id) TO STDOUT") as copy:
                copied = list(copy.rows())
        assert [(int(i), n) for i, n in copied] == [(i, n) for i, n in rows]
        with conn.cursor() as cur, cur.copy(
            f"COPY {table} TO STDOUT (FORMAT csv, HEADER)"
        ) as copy:
            text = b"".join(bytes(chunk) for chunk in copy).decode()
        lines = text.splitlines()
        assert lines[0] == "id,name"
        assert '6,"comma, ""quotes"""' in text
        assert "2," in lines


def test_commit_rollback_and_savepoints(server: ServerProcess) -> None:
    table = _table("tx")
    with server.connect() as conn:
        conn.execute(f"CREATE TABLE {table} (id int)")
        conn.commit()
        conn.execute(f"INSERT INTO {table} VALUES (1)")
        conn.rollback()
        conn.execute(f"INSERT INTO {table} VALUES (2)")
        with conn.transaction():
            conn.execute(f"INSERT INTO {table} VALUES (3)")
            with pytest.raises(pg_errors.UniqueViolation), conn.transaction():
                conn.execute(f"INSERT INTO {table} VALUES (4)")
                conn.execute(f"CREATE UNIQUE INDEX {table}_u ON {table} (id)")
                conn.execute(f"INSERT INTO {table} VALUES (4)")
        conn.commit()
        ids = [r[0] for r in conn.execute(f"SELECT id FROM {table} ORDER BY id")]
        indexes = conn.execute(
            "SELECT count(*) FROM pg_indexes WHERE indexname = %s", [f"{table}_u"]).fetchone()
    assert ids == [2, 3]
    assert indexes == (0,)


def test_failed_transaction_needs_rollback(server: ServerProcess) -> None:
    with server.connect() as conn:
        with pytest.raises(pg_errors.DivisionByZero):
            conn.execute("SELECT 1/0")
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
        with pytest.raises(pg_errors.InFailedSqlTransaction):
            conn.execute("SELECT 1")
        conn.rollback()
        assert conn.execute("SELECT 2").fetchone() == (2,)


def test_uncommitted_work_is_invisible_to_others(server: ServerProcess) -> None:
    table = _table("iso")
    with server.connect(autocommit=True) as setup:
        setup.execute(f"CREATE TABLE {table} (id int)")
        setup.execute(f"INSERT INTO {table} VALUES (1)")
    with server.connect() as reader, server.connect() as writer, \
            server.connect(autocommit=True) as other, \
            server.connect(autocommit=True) as watcher:
        assert reader.execute(f"SELECT count(*) FROM {table}").fetchone() == (1,)
        reader.commit()
        writer.execute(f"INSERT INTO {table} VALUES (2)")
        results: list[tuple[int]] = []

        def read() -> None:
            results.append(other.execute(f"SELECT count(*) FROM {table}").fetchone())

        thread = threading.Thread(target=read)
        thread.start()
        wait_for_session(watcher, other.info.backend_pid, "executor")
        writer.commit()
        thread.join(timeout=10)
        assert results == [(2,)], "the reader waits for the writer and sees committed data"


def test_concurrent_increments_lose_nothing(server: ServerProcess) -> None:
    table = _table("ctr")
    with server.connect(autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, n int)")
        conn.execute(f"INSERT INTO {table} VALUES (1, 0)")
    failures: list[BaseException] = []

    def work(explicit: bool) -> None:
        try:
            with server.connect() as conn:
                for _ in range(500):
                    if explicit:
                        with conn.transaction():
                            (value,) = conn.execute(
                                f"SELECT n FROM {table} WHERE id = 1 FOR UPDATE").fetchone()
                            conn.execute(f"UPDATE {table} SET n = %s WHERE id = 1",
                                         [value + 1])
                    else:
                        conn.execute(f"UPDATE {table} SET n = n + 1 WHERE id = 1")
                        conn.commit()
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(i % 2 == 0,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not failures, failures
    with server.connect() as conn:
        assert conn.execute(f"SELECT n FROM {table}").fetchone() == (10_000,)


def test_cancel_stops_a_running_statement(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as conn:
        timer = threading.Timer(0.5, conn.cancel)
        timer.start()
        started = time.monotonic()
        with pytest.raises(pg_errors.QueryCanceled):
            conn.execute("SELECT count(*) FROM generate_series(1, 100000000) a")
        assert time.monotonic() - started < 30
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_statement_timeout(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as conn:
        conn.execute("SET statement_timeout = '200ms'")
        with pytest.raises(pg_errors.QueryCanceled, match="statement timeout"):
            conn.execute("SELECT count(*) FROM generate_series(1, 100000000) a")
        conn.execute("RESET statement_timeout")
        assert conn.execute("SHOW statement_timeout").fetchone() == ("0",)


def test_a_wait_for_the_executor_ends_at_the_statement_or_lock_timeout(
        server_factory: Callable[..., ServerProcess]) -> None:
    """Another session's open transaction holds the executor: a statement
    waiting for it is a statement waiting for a lock, as in PostgreSQL."""
    server = server_factory("--in-memory")
    with server.connect(autocommit=True) as holder, server.connect(autocommit=True) as waiter:
        holder.execute("CREATE TABLE held (a int)")
        holder.execute("BEGIN")
        holder.execute("INSERT INTO held VALUES (1)")
        for setting, error, message in (
                ("statement_timeout = '300ms'", pg_errors.QueryCanceled, "statement timeout"),
                ("lock_timeout = '200ms'", pg_errors.LockNotAvailable, "lock timeout")):
            waiter.execute(f"SET {setting}")
            started = time.monotonic()
            with pytest.raises(error, match=message):
                waiter.execute("SELECT count(*) FROM held")
            assert time.monotonic() - started < 10
            waiter.execute("RESET ALL")
        holder.execute("COMMIT")
        waiter.execute("SET lock_timeout = '200ms'")
        assert waiter.execute("SELECT count(*) FROM held").fetchone() == (1,)


def test_describe_never_executes(server: ServerProcess) -> None:
    table = _table("desc")
    with server.connect(autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {table} (id int)")
        raw = conn.pgconn
        result = raw.prepare(b"ins", f"INSERT INTO {table} VALUES (1) RETURNING id".encode())
        assert result.status == psycopg.pq.ExecStatus.COMMAND_OK
        description = raw.describe_prepared(b"ins")
        assert description.nfields == 1 and description.fname(0) == b"id"
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)


@pytest.mark.parametrize(("sql", "error"), [
    ("SELECT 1/0", pg_errors.DivisionByZero),
    ("SELECT 'abc'::int", pg_errors.InvalidTextRepresentation),
    ("SELECT * FROM no_such_table", pg_errors.UndefinedTable),
    ("SELECT no_such_column FROM pg_class", pg_errors.UndefinedColumn),
    ("SELEC 1", pg_errors.SyntaxError),
    ("SELECT no_such_function(1)", pg_errors.UndefinedFunction),
    ("SELECT 99999999999::int", pg_errors.NumericValueOutOfRange),
])
def test_errors_have_sqlstates(conn: psycopg.Connection, sql: str,
                               error: type[Exception]) -> None:
    with pytest.raises(error):
        conn.execute(sql)
    assert conn.execute("SELECT 1").fetchone() == (1,)


def test_constraint_errors(conn: psycopg.Connection) -> None:
    table = _table("con")
    conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, name text NOT NULL, "
                 f"n int CHECK (n > 0))")
    conn.execute(f"INSERT INTO {table} VALUES (1, 'a', 1)")
    with pytest.raises(pg_errors.UniqueViolation, match=f"{table}_pkey"):
        conn.execute(f"INSERT INTO {table} VALUES (1, 'b', 2)")
    with pytest.raises(pg_errors.NotNullViolation, match='"name"'):
        conn.execute(f"INSERT INTO {table} VALUES (2, NULL, 2)")
    with pytest.raises(pg_errors.CheckViolation, match=f"{table}_n_check"):
        conn.execute(f"INSERT INTO {table} VALUES (3, 'c', 0)")
    assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (1,)


def test_idle_owner_is_disconnected(server: ServerProcess) -> None:
    table = _table("idle")
    with server.connect(autocommit=True) as setup:
        setup.execute(f"CREATE TABLE {table} (id int)")
    idle = server.connect()
    idle.execute("SET idle_in_transaction_session_timeout = '300ms'")
    idle.execute(f"INSERT INTO {table} VALUES (1)")
    pid = idle.info.backend_pid
    with server.connect(autocommit=True) as other:
        wait_until(lambda: other.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s",
                                         (pid,)).fetchone() == (0,),
                   "the idle transaction's session to end")
        other.execute(f"INSERT INTO {table} VALUES (2)")
        assert other.execute(f"SELECT id FROM {table}").fetchall() == [(2,)]
    with pytest.raises((pg_errors.IdleInTransactionSessionTimeout, psycopg.OperationalError)):
        idle.execute("SELECT 1")
    idle.close()


@pytest.mark.parametrize(("sql", "position"), [
    ("SELECT * FROM nosuch_table", "15"),
    ("SELECT nosuch_column FROM pg_class", "8"),
    ("SELECT 1 +", "10"),
    ("SELEC 1", "1"),
])
def test_error_positions(conn: psycopg.Connection, sql: str, position: str) -> None:
    with pytest.raises(psycopg.Error) as caught:
        conn.execute(sql)
    assert caught.value.diag.statement_position == position


def test_startup_options(server: ServerProcess) -> None:
    with psycopg.connect(server.dsn, options="-c search_path=pg_catalog -c TimeZone=UTC "
                         "--statement-timeout=5s", application_name="tester") as conn:
        assert conn.execute("SHOW search_path").fetchone() == ("pg_catalog",)
        assert conn.execute("SHOW statement_timeout").fetchone() == ("5s",)
        assert conn.execute("SELECT current_setting('application_name')").fetchone() == (
            "tester",)
        assert conn.info.parameter_status("TimeZone") == "UTC"
