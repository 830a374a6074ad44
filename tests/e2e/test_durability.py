"""Durability: what was committed survives SIGKILL, exactly as it was.

A server on a data directory is killed and restarted; its full dump (every
table, stream and window with batch ids, the catalog, the dataflow state)
must equal its dump before the kill, and after both go on with more work it
must equal an in-memory server that ran the same statements without a crash
(times and random values aside). Then the damage the log and the snapshots
can suffer: a torn tail, flipped bytes, a corrupt snapshot.
"""

from __future__ import annotations

import re
import signal
import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from sqlext.tools.bench.pipeline import send_pipelined
from storage import commandlog as cl
from tests.fixtures.servers import ServerProcess, start_server

Dump = dict[str, list[tuple[Any, ...]]]

SETUP = """
CREATE TABLE accounts (
    id serial PRIMARY KEY, owner text NOT NULL, balance numeric(10, 2) NOT NULL,
    opened timestamptz DEFAULT now(), token uuid DEFAULT gen_random_uuid(),
    luck float8 DEFAULT random());
CREATE INDEX accounts_by_owner ON accounts (owner);
CREATE VIEW rich AS SELECT owner FROM accounts WHERE balance > 100;
CREATE SEQUENCE tickets START 100;
CREATE STREAM readings (sensor int NOT NULL, value float8 NOT NULL);
CREATE WINDOW recent ON readings ROWS 5 SLIDE 2;
CREATE TABLE recent_avg (at_slide serial PRIMARY KEY, average float8);
CREATE TRIGGER average_recent AFTER SLIDE ON recent AS $$
    INSERT INTO recent_avg (average) SELECT avg(value) FROM recent;
$$;
CREATE STREAM jobs (job int NOT NULL, weight int NOT NULL);
CREATE TABLE done (job int, share numeric, at timestamptz);
CREATE PROCEDURE run_job() LANGUAGE sql AS $$
    INSERT INTO done SELECT job, 100 / weight, now() FROM jobs;
$$;
CREATE TRIGGER run_jobs AFTER INSERT ON jobs EXECUTE PROCEDURE run_job();
CREATE PROCEDURE deposit(who int, amount numeric) LANGUAGE sql AS $$
    UPDATE accounts SET balance = balance + amount WHERE id = who;
$$;
CREATE PROCEDURE lucky(who int) LANGUAGE python AS $$
    sql("UPDATE accounts SET luck = $1 WHERE id = $2", len(str(who)) * 1.5, who)
$$;
CREATE MATERIALIZED VIEW balances AS
    SELECT owner, count(*) AS accounts, sum(balance) AS total, max(balance) AS top
    FROM accounts GROUP BY owner;
CREATE MATERIALIZED VIEW sensors AS
    SELECT sensor, count(*) AS readings, avg(value) AS average, min(value) AS low
    FROM recent GROUP BY sensor;
CREATE MATERIALIZED VIEW richest AS
    SELECT owner, balance FROM accounts ORDER BY balance DESC, owner LIMIT 2;
"""
MATVIEWS = {
    "balances": "SELECT owner, count(*), sum(balance), max(balance) FROM accounts "
                "GROUP BY owner",
    "sensors": "SELECT sensor, count(*), avg(value), min(value) FROM recent GROUP BY sensor",
    "richest": "SELECT owner, balance FROM accounts ORDER BY balance DESC, owner LIMIT 2",
}
"""Each materialized view of SETUP and its query: they must agree after recovery."""


def _first_part(conn: psycopg.Connection) -> None:
    conn.execute(SETUP)
    for owner, balance in (("ann", 50), ("bob", 150), ("cy", 0)):
        conn.execute("INSERT INTO accounts (owner, balance) VALUES (%s, %s)", (owner, balance))
    with conn.transaction():
        conn.execute("UPDATE accounts SET balance = balance * 2 WHERE owner = 'ann'")
        try:
            with conn.transaction():  # a savepoint, rolled back
                conn.execute("UPDATE accounts SET balance = 0")
                conn.execute("SELECT nextval('tickets')")
                raise RuntimeError("undo")
        except RuntimeError:
            pass
        conn.execute("INSERT INTO accounts (owner, balance) VALUES ('dee', nextval('tickets'))")
    conn.execute("SELECT nextval('tickets')")  # outside any transaction
    with conn.cursor().copy("COPY accounts (owner, balance) FROM STDIN") as copy:
        for row in (("eve", 7), ("fay", 8)):
            copy.write_row(row)
    conn.execute("CALL deposit(1, 25)")
    conn.execute("CALL lucky(2)")
    for n in range(7):
        conn.execute("INSERT INTO readings VALUES (%s, %s)", (n % 3, n * 1.25))
    for job, weight in ((1, 4), (2, 0), (3, 5)):  # job 2 divides by zero: run_job stops
        conn.execute("INSERT INTO jobs VALUES (%s, %s)", (job, weight))


def _second_part(conn: psycopg.Connection) -> None:
    conn.execute("SET TIME ZONE 'America/New_York'")
    conn.execute("CREATE SCHEMA side")
    conn.execute("SET search_path = side, public")
    conn.execute("CREATE TABLE notes (id serial PRIMARY KEY, at timestamptz, body text)")
    conn.execute("INSERT INTO notes (at, body) VALUES ('2024-03-10 01:30', 'before DST')")
    conn.execute("ALTER TABLE accounts ADD COLUMN note text DEFAULT 'new'")
    conn.execute("INSERT INTO accounts (owner, balance) VALUES ('gus', 1)")
    conn.execute("DELETE FROM accounts WHERE owner = 'cy'")
    conn.execute("DROP VIEW rich")
    with pytest.raises(psycopg.errors.UniqueViolation):
        conn.execute("INSERT INTO accounts (id, owner, balance) VALUES (1, 'dup', 0)")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO accounts (owner, balance) VALUES ('never', 0)")
    conn.execute("ROLLBACK")
    conn.execute("RESET search_path")
    conn.execute("RESET TIME ZONE")
    conn.execute("CREATE SEQUENCE again")
    conn.execute("SELECT nextval('again'), nextval('again')")
    conn.execute("DROP SEQUENCE again")
    conn.execute("CREATE SEQUENCE again")  # starts over, after recovery too
    # rows inserted a group at a time, logged a column at a time
    conn.execute("CREATE TABLE bulk (n int PRIMARY KEY, label text, amount numeric(8, 2))")
    with conn.cursor().copy("COPY bulk FROM STDIN") as copy:
        for n in range(300):
            copy.write_row((n, f"copied {n}" if n % 7 else None, n / 4))
    conn.cursor().executemany("INSERT INTO bulk VALUES (%s, %s, %s)",
                              [(n, "batched", -n) for n in range(1000, 1150)])


def _more_work(conn: psycopg.Connection) -> None:
    """After the restart: hidden state (sequences, window staging, batch
    counters, a stopped procedure) shows in what happens next."""
    conn.execute("INSERT INTO accounts (owner, balance) VALUES ('hal', nextval('tickets'))")
    conn.execute("INSERT INTO accounts (owner, balance) VALUES ('ivy', nextval('again'))")
    for n in range(3):
        conn.execute("INSERT INTO readings VALUES (9, %s)", (n * 10.0,))
    conn.execute("INSERT INTO jobs VALUES (4, 2)")
    conn.execute("""CREATE OR REPLACE PROCEDURE run_job() LANGUAGE sql AS $$
        INSERT INTO done SELECT job, 100 / nullif(weight, 0), now() FROM jobs;
    $$""")
    conn.execute("ALTER PROCEDURE run_job RESUME")
    conn.execute("SELECT sqlext_drain(10)")


VOLATILE = frozenset({"accounts.opened", "accounts.token", "accounts.luck", "done.at"})
"""Values that differ between two servers: now(), random(), gen_random_uuid()."""
RERUN = frozenset({"done.at"})
"""Weak recovery runs PE-triggered procedures again, at a new now()."""


def full_dump(conn: psycopg.Connection, mask: frozenset[str] = frozenset()) -> Dump:
    dump: Dump = {}
    relations = conn.execute(
        "SELECT n.nspname, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 'side') "
        "ORDER BY 1, 2").fetchall()
    dump["relations"] = relations
    dump["columns"] = conn.execute(
        "SELECT table_schema, table_name, column_name, data_type, column_default "
        "FROM information_schema.columns WHERE table_schema IN ('public', 'side') "
        "ORDER BY 1, 2, ordinal_position").fetchall()
    streams = {name for (name,) in conn.execute("SELECT name FROM sqlext_streams")}
    windows = {"recent"}
    for schema, name, kind in relations:
        if kind not in ("r", "v", "m"):
            continue
        extra = "batch_id, " if name in streams | windows else ""
        cursor = conn.execute(f"SELECT {extra}* FROM {schema}.{name}")
        masked = [i for i, column in enumerate(cursor.description or ())
                  if f"{name}.{column.name}" in mask]
        dump[f"{schema}.{name}"] = sorted(
            (tuple(None if i in masked else v for i, v in enumerate(row))
             for row in cursor.fetchall()), key=repr)
    for view, query in MATVIEWS.items():
        if ("public", view, "m") not in relations:
            continue
        view_rows = sorted(conn.execute(f"SELECT * FROM public.{view}").fetchall(), key=repr)
        assert view_rows == sorted(conn.execute(query).fetchall(), key=repr), view
    dump["streams"] = conn.execute(
        "SELECT name, batch_column, last_batch, tuples, skipped_batches, consumers "
        "FROM sqlext_streams ORDER BY name").fetchall()
    dump["procedures"] = conn.execute(
        "SELECT name, state, waiting_batches, stopped_at_batch, error_code "
        "FROM sqlext_procedures ORDER BY name").fetchall()
    dump["dependencies"] = conn.execute(
        "SELECT r.ev_class::regclass::text, d.refobjid::regclass::text, d.refobjsubid, "
        "d.deptype FROM pg_depend d JOIN pg_rewrite r ON d.objid = r.oid ORDER BY 1, 2, 3, 4"
        ).fetchall()
    dump["pg_proc"] = conn.execute(
        "SELECT proname, pronargs FROM pg_proc WHERE pronamespace = 'public'::regnamespace "
        "ORDER BY 1").fetchall()
    return dump


@pytest.fixture
def reference() -> Iterator[ServerProcess]:
    server = start_server("--in-memory")
    yield server
    server.stop()


def _durable(data_dir: Path, *extra: str) -> ServerProcess:
    return start_server("--data-dir", str(data_dir), *extra)


def _run(server: ServerProcess, *steps: Callable[[psycopg.Connection], None]) -> None:
    with server.connect(autocommit=True) as conn:
        for step in steps:
            step(conn)
        conn.execute("SELECT 1")


def _dump(server: ServerProcess, mask: frozenset[str] = frozenset(),
          stopped: bool = False) -> Dump:
    with server.connect(autocommit=True) as conn:
        if stopped:
            with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState):
                conn.execute("SELECT sqlext_drain(10)")  # run_job is stopped at job 2
        else:
            conn.execute("SELECT sqlext_drain(10)")
        return full_dump(conn, mask)


def _checkpoint(conn: psycopg.Connection) -> None:
    assert conn.execute("CHECKPOINT").statusmessage == "CHECKPOINT"


def _kill(server: ServerProcess) -> None:
    server.stop(signal.SIGKILL)


@pytest.mark.parametrize("recovery", ["strong", "weak"])
@pytest.mark.parametrize("checkpoint", [False, True], ids=["log only", "snapshot + log"])
def test_killed_server_comes_back_identical(tmp_path: Path, reference: ServerProcess,
                                            recovery: str, checkpoint: bool) -> None:
    middle = [_checkpoint] if checkpoint else []
    mask = RERUN if recovery == "weak" else frozenset()
    server = _durable(tmp_path, "--recovery", recovery)
    _run(server, _first_part, *middle, _second_part)
    before = _dump(server, mask, stopped=True)
    _kill(server)
    server = _durable(tmp_path, "--recovery", recovery)
    try:
        assert any("recovery: done" in line for line in server.log)
        if checkpoint:
            assert any("loaded snapshot" in line for line in server.log)
        assert _dump(server, mask, stopped=True) == before
        _run(reference, _first_part, _second_part, _more_work)
        _run(server, _more_work)
        expected = _dump(reference, VOLATILE)
        assert expected["procedures"][0][1] == "idle"  # run_job resumed and caught up
        assert _dump(server, VOLATILE) == expected
        # and once more, from a snapshot taken after the restart
        before = _dump(server, mask)
        _run(server, _checkpoint)
        _kill(server)
        server = _durable(tmp_path, "--recovery", recovery)
        assert _dump(server, mask) == before
    finally:
        server.stop()


def test_views_keep_what_they_depend_on_through_snapshots_and_the_log(tmp_path: Path) -> None:
    server = _durable(tmp_path)
    try:
        with server.connect(autocommit=True) as conn:
            conn.execute("CREATE TABLE t (a int, b text); CREATE VIEW va AS SELECT a FROM t")
            _checkpoint(conn)  # va is in the snapshot, vb only in the log
            conn.execute("CREATE VIEW vb AS SELECT b FROM t")
        _kill(server)
        server = _durable(tmp_path)
        with server.connect(autocommit=True) as conn:
            with pytest.raises(psycopg.errors.DependentObjectsStillExist) as refused:
                conn.execute("DROP TABLE t")
            assert refused.value.diag.message_detail == (
                "view va depends on table t\nview vb depends on table t")
            with pytest.raises(psycopg.errors.DependentObjectsStillExist):
                conn.execute("ALTER TABLE t DROP COLUMN a")
    finally:
        server.stop()


def _rows_after_kill(data_dir: Path, count: int, checkpoints: tuple[int, ...] = ()) -> Path:
    """``count`` one-row transactions (a CHECKPOINT after the rows numbered
    in ``checkpoints``), then SIGKILL; the newest log segment."""
    server = _durable(data_dir)
    with server.connect(autocommit=True) as conn:
        conn.execute("CREATE TABLE t (n int PRIMARY KEY, pad text)")
        for n in range(count):
            conn.execute("INSERT INTO t VALUES (%s, repeat('x', 500))", (n,))
            if n in checkpoints:
                _checkpoint(conn)
    _kill(server)
    return sorted(data_dir.glob("cmdlog-*.log"))[-1]


def _numbers(server: ServerProcess) -> list[int]:
    with server.connect(autocommit=True) as conn:
        return [n for (n,) in conn.execute("SELECT n FROM t ORDER BY n")]


@pytest.mark.parametrize("damage", ["truncated mid-record", "flipped byte"])
def test_damaged_log_tail_is_cut_not_replayed(tmp_path: Path, damage: str) -> None:
    segment = _rows_after_kill(tmp_path, 10)
    data = bytearray(segment.read_bytes())
    if damage == "truncated mid-record":
        segment.write_bytes(data[:-20])
    else:
        data[-10] ^= 0xFF
        segment.write_bytes(bytes(data))
    server = _durable(tmp_path)
    try:
        cut = [line for line in server.log if "torn record" in line]
        reason = "incomplete" if damage == "truncated mid-record" else "checksum mismatch"
        assert len(cut) == 1 and reason in cut[0]
        assert _numbers(server) == list(range(9))  # the last insert was never acknowledged
        with server.connect(autocommit=True) as conn:
            conn.execute("INSERT INTO t VALUES (100, 'after')")
        _kill(server)
        server = _durable(tmp_path)
        assert not any("torn record" in line for line in server.log)
        assert _numbers(server) == [*range(9), 100]
    finally:
        server.stop()


def test_corrupt_newest_snapshot_falls_back_to_the_previous_one(tmp_path: Path) -> None:
    _rows_after_kill(tmp_path, 30, checkpoints=(9, 19))
    newest = sorted(tmp_path.glob("snapshot-*.db"))[-1]
    data = bytearray(newest.read_bytes())
    data[len(data) // 2] ^= 0xFF
    newest.write_bytes(bytes(data))
    server = _durable(tmp_path)
    try:
        assert any("unusable (database file checksum mismatch)" in line for line in server.log)
        loaded = [line for line in server.log if "loaded snapshot" in line]
        assert len(loaded) == 1 and newest.stem not in loaded[0]
        assert _numbers(server) == list(range(30))
    finally:
        server.stop()


def test_no_usable_snapshot_and_no_log_to_replay_refuses_to_start(tmp_path: Path) -> None:
    # three snapshots: the log before the second one is gone
    _rows_after_kill(tmp_path, 3, checkpoints=(0, 1, 2))
    for manifest in tmp_path.glob("snapshot-*.json"):
        manifest.write_text("{}")
    with pytest.raises(RuntimeError) as failed:
        _durable(tmp_path)
    message = str(failed.value)
    assert "cannot start" in message and "newest usable snapshot" in message


def _header(segment: Path, version: int, layout: int) -> None:
    """Give the segment the header a server writing log format ``version``
    and record layout ``layout`` would have written."""
    data = segment.read_bytes()
    first_lsn = int(segment.stem.removeprefix("cmdlog-"))
    head = struct.pack("<8sHBBQ", cl.MAGIC, version, cl.MODES.index("strong"), layout,
                       first_lsn)
    header = head + struct.pack("<I", zlib.crc32(head))
    assert len(header) == cl.HEADER_SIZE
    segment.write_bytes(header + data[cl.HEADER_SIZE:])


def test_a_log_of_an_unknown_record_layout_is_refused_by_name(tmp_path: Path) -> None:
    segment = _rows_after_kill(tmp_path, 3)
    _header(segment, cl.FORMAT_VERSION, 99)
    with pytest.raises(RuntimeError) as failed:
        _durable(tmp_path)
    message = str(failed.value)
    assert "cannot start" in message and (
        f"{segment.name} holds records of layout version 99; this server reads versions 1, 2"
        in message)
    assert "ValueError" not in message


def test_a_log_written_before_segments_named_their_layout_is_replayed(tmp_path: Path) -> None:
    """Format 1 headers kept a 0 where the layout is now: layout 1's records."""
    _header(_rows_after_kill(tmp_path, 5), 1, 0)
    server = _durable(tmp_path)
    try:
        assert _numbers(server) == list(range(5))
    finally:
        server.stop()


def test_strong_recovery_fires_the_waiting_procedures(tmp_path: Path) -> None:
    """Batches waiting for a stopped procedure survive the crash and are
    processed exactly once after it is fixed."""
    server = _durable(tmp_path)
    with server.connect(autocommit=True) as conn:
        conn.execute("""
            CREATE STREAM numbers (n int NOT NULL);
            CREATE TABLE inverses (n int, inverse numeric);
            CREATE PROCEDURE invert() LANGUAGE sql AS $$
                INSERT INTO inverses SELECT n, 12 / (n - 3) FROM numbers;
            $$;
            CREATE TRIGGER invert_numbers AFTER INSERT ON numbers EXECUTE PROCEDURE invert();
        """)
        for n in range(1, 7):
            conn.execute("INSERT INTO numbers VALUES (%s)", (n,))
    _kill(server)
    server = _durable(tmp_path)
    try:
        assert any(re.search(r"records replayed to LSN \d+.*; 4 TEs waiting", line)
                   for line in server.log)
        with server.connect(autocommit=True) as conn:
            conn.execute("""CREATE OR REPLACE PROCEDURE invert() LANGUAGE sql AS $$
                INSERT INTO inverses SELECT n, 12 / nullif(n - 3, 0) FROM numbers;
            $$""")
            conn.execute("ALTER PROCEDURE invert RESUME")
            conn.execute("SELECT sqlext_drain(5)")
            assert conn.execute("SELECT n FROM inverses ORDER BY n").fetchall() == [
                (n,) for n in range(1, 7)]
            assert conn.execute("SELECT count(*) FROM numbers").fetchone() == (0,)
    finally:
        server.stop()


_CHAIN = """
    CREATE TABLE done (id int, at_step int);
    CREATE STREAM s0 (id int NOT NULL);
    CREATE STREAM s1 (id int NOT NULL);
    CREATE PROCEDURE step1() LANGUAGE sql AS $$ INSERT INTO s1 SELECT id FROM s0; $$;
    CREATE PROCEDURE step2() LANGUAGE sql AS $$ INSERT INTO done SELECT id, 2 FROM s1; $$;
    CREATE TRIGGER t1 AFTER INSERT ON s0 EXECUTE PROCEDURE step1();
    CREATE TRIGGER t2 AFTER INSERT ON s1 EXECUTE PROCEDURE step2();
"""


def _log_writes(conn: psycopg.Connection) -> tuple[int, int]:
    """fsyncs of the command log so far, and its records (the last LSN)."""
    fsyncs, records = conn.execute("SELECT fsyncs, last_lsn FROM sqlext_log").fetchone()
    return fsyncs, records


def test_group_commit_writes_at_once_for_a_waiting_client(tmp_path: Path) -> None:
    """With a group commit timeout of a minute, every commit of a client that
    waits for it is still acknowledged at once: the log is written when no
    more work is about to follow, including after a batch's dataflow."""
    server = _durable(tmp_path, "--commandlog-timeout-ms", "60000")
    try:
        with server.connect(autocommit=True) as conn:
            conn.execute(_CHAIN)
            fsyncs_before, _ = _log_writes(conn)
            with conn.cursor() as cursor:
                for number in range(20):
                    # each would wait a minute for its acknowledgement otherwise
                    cursor.execute("INSERT INTO s0 VALUES (%s)", (number,))
            assert conn.execute("SELECT sqlext_drain(30)").fetchone() == (True,)
            assert conn.execute("SELECT count(*) FROM done").fetchone() == (20,)
            fsyncs, _ = _log_writes(conn)
            assert fsyncs - fsyncs_before >= 20
    finally:
        server.stop()


def test_group_commit_shares_fsyncs_among_pipelined_dataflow_commits(tmp_path: Path) -> None:
    """A pipelined client's transactions and the TEs they start (three
    records a batch) share fsyncs: the log is not written while the next
    transaction already waits for the executor."""
    server = _durable(tmp_path)
    try:
        with server.connect(autocommit=True) as conn:
            conn.execute(_CHAIN)
            fsyncs_before, records_before = _log_writes(conn)
            send_pipelined(conn, b"INSERT INTO s0 VALUES ($1)", [(n,) for n in range(600)])
            assert conn.execute("SELECT sqlext_drain(30)").fetchone() == (True,)
            assert conn.execute("SELECT count(*) FROM done").fetchone() == (600,)
            fsyncs, records = _log_writes(conn)
            assert records - records_before >= 3 * 600
            assert fsyncs - fsyncs_before <= 600 // 5
    finally:
        server.stop()


def test_one_server_per_data_directory(tmp_path: Path) -> None:
    server = _durable(tmp_path)
    try:
        with pytest.raises(RuntimeError) as refused:
            _durable(tmp_path)
        assert "another sqlext server is using the data directory" in str(refused.value)
    finally:
        server.stop()


def test_in_memory_mode_says_so(server: ServerProcess) -> None:
    assert any("in-memory mode: no command log, no snapshots" in line for line in server.log)
    with server.connect(autocommit=True) as conn:
        notices: list[str] = []
        conn.add_notice_handler(lambda notice: notices.append(notice.message_primary or ""))
        assert conn.execute("CHECKPOINT").statusmessage == "CHECKPOINT"
        assert notices == ["in-memory mode: there is nothing to checkpoint"]
