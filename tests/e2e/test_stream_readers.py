"""Stream readers: ``sqlext_hold_stream()`` keeps a stream's batches above
what a reader has read, even once procedures have consumed them, until the
reader moves past them (a Spark streaming source's offsets are batch ids).
Holds are transactional, durable (command log and snapshots) and shown in
``sqlext_stream_readers`` and ``sqlext_streams``."""

from __future__ import annotations

import signal
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import errors

from tests.fixtures.servers import ServerProcess, own_schema, start_server

CONSUMED = """
CREATE STREAM s (n int NOT NULL);
CREATE TABLE out (n int);
CREATE PROCEDURE copy_out() LANGUAGE sql AS $$ INSERT INTO out SELECT n FROM s; $$;
CREATE TRIGGER t AFTER INSERT ON s EXECUTE PROCEDURE copy_out();
"""
"""A stream whose batches a procedure consumes (and so deletes)."""


@pytest.fixture
def conn(server: ServerProcess) -> Iterator[psycopg.Connection]:
    with own_schema(server, "readers") as connection:
        connection.execute(CONSUMED)
        yield connection


def _insert(conn: psycopg.Connection, *values: int, stream: str = "s") -> None:
    """One batch per value, then every procedure has run on them."""
    for value in values:
        conn.execute(f"INSERT INTO {stream} VALUES (%s)", (value,))
    conn.execute("SELECT sqlext_drain(10)")


def _batches(conn: psycopg.Connection, stream: str = "s") -> list[int]:
    return [b for (b,) in conn.execute(f"SELECT DISTINCT batch_id FROM {stream} ORDER BY 1")]


def _hold(conn: psycopg.Connection, reader: str, after: int, stream: str = "s") -> object:
    row = conn.execute("SELECT sqlext_hold_stream(%s, %s, %s)", (stream, reader, after)
                       ).fetchone()
    assert row is not None
    return row[0]


def _readers(conn: psycopg.Connection) -> list[tuple[object, ...]]:
    return conn.execute(
        "SELECT stream, reader, after_batch, held_batches, oldest_held "
        "FROM sqlext_stream_readers WHERE schema = current_schema() ORDER BY 1, 2").fetchall()


def test_consumed_batches_stay_while_a_reader_holds_them(conn: psycopg.Connection) -> None:
    _insert(conn, 10)
    assert _batches(conn) == []  # consumed, gone
    assert _hold(conn, "spark", 1) is None  # nothing above batch 1 yet
    _insert(conn, 20, 30, 40)
    assert conn.execute("SELECT count(*) FROM out").fetchone() == (4,)
    assert _batches(conn) == [2, 3, 4]
    assert _readers(conn) == [("s", "spark", 1, 3, 2)]
    assert conn.execute("SELECT last_batch, tuples, oldest_batch, readers FROM sqlext_streams "
                        "WHERE schema = current_schema()").fetchone() == (4, 3, 2, 1)
    # the reader committed batches 2 and 3: they go now
    assert _hold(conn, "spark", 3) == 4
    assert _batches(conn) == [4]
    assert _readers(conn) == [("s", "spark", 3, 1, 4)]
    assert conn.execute("SELECT sqlext_release_stream('s', 'spark'), "
                        "sqlext_release_stream('s', 'spark')").fetchone() == (True, False)
    assert _batches(conn) == []
    assert _readers(conn) == []
    assert conn.execute("SELECT oldest_batch, readers FROM sqlext_streams "
                        "WHERE schema = current_schema()").fetchone() == (None, 0)


def test_a_reader_that_fell_behind_gets_an_error_naming_what_it_missed(
        conn: psycopg.Connection) -> None:
    _insert(conn, 1, 2, 3)
    with pytest.raises(errors.ObjectNotInPrerequisiteState) as failed:
        _hold(conn, "late", 1)
    assert failed.value.diag.message_primary == (
        'stream "s" no longer holds batches 2..3: reader "late" would miss them')
    with pytest.raises(errors.ObjectNotInPrerequisiteState, match="holds batch 3: reader"):
        _hold(conn, "late", 2)
    assert _readers(conn) == []
    assert _hold(conn, "late", 3) is None  # from now on
    _insert(conn, 4, 5)
    assert _hold(conn, "late", 4) == 5
    with pytest.raises(errors.InvalidParameterValue) as failed:
        _hold(conn, "late", 2)
    assert failed.value.diag.message_primary == (
        'reader "late" of stream "s" cannot move back from batch 4 to batch 2: the stream '
        "no longer holds batches 3..4")
    assert _readers(conn) == [("s", "late", 4, 1, 5)]


def test_the_slower_of_two_readers_keeps_the_batches(conn: psycopg.Connection) -> None:
    _hold(conn, "fast", 0)
    _hold(conn, "slow", 0)
    _insert(conn, 1, 2, 3, 4)
    _hold(conn, "fast", 4)
    assert _batches(conn) == [1, 2, 3, 4]
    _hold(conn, "slow", 2)
    assert _batches(conn) == [3, 4]
    # fast may move back to what slow still keeps, not further
    _hold(conn, "fast", 2)
    with pytest.raises(errors.InvalidParameterValue, match=r"no longer holds batches 1\.\.2"):
        _hold(conn, "fast", 0)
    assert _readers(conn) == [("s", "fast", 2, 2, 3), ("s", "slow", 2, 2, 3)]
    conn.execute("SELECT sqlext_release_stream('s', 'slow')")
    assert _batches(conn) == [3, 4]
    _hold(conn, "fast", 4)
    assert _batches(conn) == []


def test_holds_change_only_when_their_transaction_commits(conn: psycopg.Connection) -> None:
    _hold(conn, "r", 0)
    _insert(conn, 1, 2, 3)
    with conn.transaction(force_rollback=True):
        _hold(conn, "r", 3)
        _hold(conn, "other", 3)
        assert _batches(conn) == []  # its own transaction sees the batches go
    assert _batches(conn) == [1, 2, 3]
    assert _readers(conn) == [("s", "r", 0, 3, 1)]
    with conn.transaction():
        _hold(conn, "r", 1)
        with pytest.raises(psycopg.errors.DivisionByZero), conn.transaction():
            _hold(conn, "r", 2)
            conn.execute("SELECT sqlext_release_stream('s', 'r')")
            conn.execute("SELECT 1 / 0")
        assert _readers(conn) == [("s", "r", 1, 2, 2)]
    assert _batches(conn) == [2, 3]
    assert _readers(conn) == [("s", "r", 1, 2, 2)]


def test_streams_consumed_by_ee_triggers_and_windows_keep_held_batches(
        conn: psycopg.Connection) -> None:
    conn.execute("""
        CREATE STREAM e (n int);
        CREATE TABLE seen (n int);
        CREATE TRIGGER on_e AFTER INSERT ON e AS $$ INSERT INTO seen SELECT n FROM e; $$;
        CREATE STREAM w (n int);
        CREATE WINDOW last2 ON w ROWS 2 SLIDE 1;
    """)
    for stream in ("e", "w"):
        _insert(conn, 1, stream=stream)
        assert _hold(conn, "r", 1, stream=stream) is None
        _insert(conn, 2, 3, stream=stream)
        assert _batches(conn, stream) == [2, 3]
        _hold(conn, "r", 2, stream=stream)
        assert _batches(conn, stream) == [3]
        conn.execute("SELECT sqlext_release_stream(%s, 'r')", (stream,))
        assert _batches(conn, stream) == []
    # Inside an EE trigger a stream's name denotes every tuple it holds: batch 3's
    # trigger saw batch 2 too, which the reader held (docs/sql.md, Stream readers).
    assert [n for (n,) in conn.execute("SELECT n FROM seen ORDER BY n")] == [1, 2, 2, 3]


def test_a_notify_stream_keeps_what_its_reader_holds_beyond_keep_batches(
        conn: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM news (n int) WITH (notify = 'news', keep_batches = 2)")
    _hold(conn, "r", 1, stream="news")
    _insert(conn, 1, 2, 3, 4, 5, stream="news")
    assert _batches(conn, "news") == [2, 3, 4, 5]
    _hold(conn, "r", 4, stream="news")
    assert _batches(conn, "news") == [4, 5]  # the newest two are kept anyway


def test_a_stream_nothing_consumes_keeps_its_batches_after_a_reader_passes(
        conn: psycopg.Connection) -> None:
    conn.execute("CREATE STREAM sink (n int)")
    _hold(conn, "r", 0, stream="sink")
    _insert(conn, 1, 2, stream="sink")
    _hold(conn, "r", 2, stream="sink")
    assert _batches(conn, "sink") == [1, 2]
    assert _hold(conn, "r", 0, stream="sink") == 1


def test_batches_a_procedure_has_yet_to_run_on_stay_when_the_reader_passes(
        conn: psycopg.Connection) -> None:
    conn.execute("""
        CREATE STREAM jobs (weight int);
        CREATE TABLE shares (share int);
        CREATE PROCEDURE share() LANGUAGE sql AS $$
            INSERT INTO shares SELECT 100 / weight FROM jobs; $$;
        CREATE TRIGGER on_jobs AFTER INSERT ON jobs EXECUTE PROCEDURE share();
    """)
    _hold(conn, "r", 0, stream="jobs")
    for weight in (1, 0, 2):  # the procedure stops at batch 2
        conn.execute("INSERT INTO jobs VALUES (%s)", (weight,))
    _hold(conn, "r", 3, stream="jobs")
    assert _batches(conn, "jobs") == [2, 3]
    conn.execute("""CREATE OR REPLACE PROCEDURE share() LANGUAGE sql AS $$
        INSERT INTO shares SELECT coalesce(100 / nullif(weight, 0), 0) FROM jobs; $$""")
    conn.execute("ALTER PROCEDURE share RESUME")
    conn.execute("SELECT sqlext_drain(10)")
    assert _batches(conn, "jobs") == []
    assert [s for (s,) in conn.execute("SELECT share FROM shares ORDER BY 1")] == [0, 50, 100]


def test_drop_stream_drops_its_readers(conn: psycopg.Connection) -> None:
    _hold(conn, "r", 0)
    _insert(conn, 1)
    conn.execute("DROP STREAM s CASCADE")
    assert _readers(conn) == []
    conn.execute("CREATE STREAM s (n int NOT NULL)")
    conn.execute("CREATE TRIGGER t AFTER INSERT ON s EXECUTE PROCEDURE copy_out()")
    assert _readers(conn) == []
    _insert(conn, 2)
    assert _batches(conn) == []  # consumed: nobody holds it


def test_bad_arguments(conn: psycopg.Connection) -> None:
    conn.execute("CREATE TABLE plain (n int)")
    cases = {
        "SELECT sqlext_hold_stream('plain', 'r', 0)": errors.WrongObjectType,
        "SELECT sqlext_hold_stream('nowhere', 'r', 0)": errors.UndefinedTable,
        "SELECT sqlext_release_stream('nowhere', 'r')": errors.UndefinedTable,
        "SELECT sqlext_hold_stream('s', '', 0)": errors.InvalidParameterValue,
        "SELECT sqlext_hold_stream('s', 'r', NULL)": errors.NullValueNotAllowed,
        "SELECT sqlext_hold_stream(NULL, 'r', 0)": errors.NullValueNotAllowed,
        "SELECT sqlext_hold_stream('s', 'r')": errors.UndefinedFunction,
    }
    for sql, error in cases.items():
        with pytest.raises(error):
            conn.execute(sql)
    with conn.transaction(), pytest.raises(errors.ReadOnlySqlTransaction) as refused:
        conn.execute("SET TRANSACTION READ ONLY")
        _hold(conn, "r", 0)
    assert refused.value.diag.message_primary == (
        "cannot execute sqlext_hold_stream() in a read-only transaction")
    with pytest.raises(errors.WrongObjectType, match='"plain" is not a stream'):
        conn.execute("SELECT sqlext_hold_stream('plain', 'r', 0)")
    schema = conn.execute("SELECT current_schema()").fetchone()
    assert schema is not None
    assert _hold(conn, "r", 0, stream=f'"{schema[0]}".s') is None
    assert _readers(conn) == [("s", "r", 0, 0, None)]


def test_holding_a_stream_needs_select_on_it(server: ServerProcess,
                                             conn: psycopg.Connection) -> None:
    role = f"reader_{uuid.uuid4().hex[:8]}"
    schema = conn.execute("SELECT current_schema()").fetchone()
    assert schema is not None
    conn.execute(f"CREATE ROLE {role} LOGIN")
    conn.execute(f"GRANT USAGE ON SCHEMA {schema[0]} TO {role}")
    try:
        with psycopg.connect(f"host={server.host} port={server.port} dbname=sqlext "
                             f"user={role}", autocommit=True) as other:
            other.execute(f"SET search_path = {schema[0]}")
            with pytest.raises(errors.InsufficientPrivilege,
                               match="permission denied for stream s"):
                _hold(other, "r", 0)
            with pytest.raises(errors.InsufficientPrivilege):
                other.execute("SELECT sqlext_release_stream('s', 'r')")
            conn.execute(f"GRANT SELECT ON s TO {role}")
            assert _hold(other, "r", 0) is None
            assert other.execute("SELECT sqlext_release_stream('s', 'r')").fetchone() == (True,)
    finally:
        conn.execute(f"REVOKE ALL ON s FROM {role}")
        conn.execute(f"REVOKE USAGE ON SCHEMA {schema[0]} FROM {role}")
        conn.execute(f"DROP ROLE {role}")


# --- durability -------------------------------------------------------------------------


@pytest.mark.parametrize("recovery", ["strong", "weak"])
@pytest.mark.parametrize("checkpoint", [False, True], ids=["log only", "snapshot + log"])
def test_holds_survive_a_kill(tmp_path: Path, checkpoint: bool, recovery: str) -> None:
    server = start_server("--data-dir", str(tmp_path), "--recovery", recovery)
    try:
        with server.connect(autocommit=True) as conn:
            conn.execute(CONSUMED)
            _insert(conn, 1)
            _hold(conn, "slow", 1)
            _hold(conn, "fast", 1)
            _insert(conn, 2, 3)
            if checkpoint:
                conn.execute("CHECKPOINT")
            _insert(conn, 4, 5)
            _hold(conn, "fast", 5)
            _hold(conn, "slow", 2)
            with conn.transaction(force_rollback=True):
                _hold(conn, "slow", 4)
                _hold(conn, "ghost", 5)
            before = _readers(conn), _batches(conn)
        assert before == ([("s", "fast", 5, 0, None), ("s", "slow", 2, 3, 3)], [3, 4, 5])
        server.stop(signal.SIGKILL)
        server = start_server("--data-dir", str(tmp_path), "--recovery", recovery)
        if checkpoint:
            assert any("loaded snapshot" in line for line in server.log)
        with server.connect(autocommit=True) as conn:
            assert (_readers(conn), _batches(conn)) == before
            _insert(conn, 6)
            assert _batches(conn) == [3, 4, 5, 6]
            _hold(conn, "slow", 6)
            assert _batches(conn) == [6]  # fast has read up to 5
            conn.execute("SELECT sqlext_release_stream('s', 'fast')")
            assert _batches(conn) == []
            # and once more, from a snapshot taken after the restart
            _insert(conn, 7)
            conn.execute("CHECKPOINT")
            before = _readers(conn), _batches(conn)
        assert before == ([("s", "slow", 6, 1, 7)], [7])
        server.stop(signal.SIGKILL)
        server = start_server("--data-dir", str(tmp_path), "--recovery", recovery)
        with server.connect(autocommit=True) as conn:
            assert (_readers(conn), _batches(conn)) == before
            assert conn.execute("SELECT readers, oldest_batch FROM sqlext_streams "
                                "WHERE name = 's'").fetchone() == (1, 7)
    finally:
        server.stop()
