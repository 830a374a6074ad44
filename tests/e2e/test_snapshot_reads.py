"""Large reads from a snapshot (docs/sql.md, "Large reads"): past its first
chunk of rows a query is read by a forked child from a copy-on-write image
of the server, so writers go on while it is read, it keeps the state it
started on, and it never sees half of a batch's dataflow."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import psycopg
import pytest

from tests.fixtures.servers import ServerProcess, child_processes

ROWS = 30_000
"""More rows than one chunk (sqlext.session.engine_session.STREAM_CHUNK)."""


@pytest.fixture(scope="module")
def big(server: ServerProcess) -> Iterator[ServerProcess]:
    with server.connect(autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS snap_big")
        conn.execute("CREATE TABLE snap_big (id int PRIMARY KEY, v int, pad text)")
        conn.execute("INSERT INTO snap_big SELECT n, n, repeat('x', 40) "
                     "FROM generate_series(1, %s) AS n", (ROWS,))
    yield server


def _wait_for_no_children(pid: int) -> None:
    deadline = time.monotonic() + 10
    while child_processes(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert child_processes(pid) == []


def test_a_long_read_keeps_its_snapshot_while_others_write(big: ServerProcess) -> None:
    with big.connect(autocommit=True) as reader, big.connect(autocommit=True) as writer:
        rows = reader.cursor().stream("SELECT id, v FROM snap_big ORDER BY id")
        first = [next(rows) for _ in range(10)]
        assert child_processes(big.process.pid), "the rest is read by a forked child"
        started = time.monotonic()
        writer.execute("UPDATE snap_big SET v = v + 1")
        writer.execute("DELETE FROM snap_big WHERE id <= 100")
        writer.execute("INSERT INTO snap_big VALUES (0, 0, 'new')")
        assert time.monotonic() - started < 5, "the writer did not wait for the reader"
        rest = list(rows)
        assert first + rest == [(n, n) for n in range(1, ROWS + 1)]
        assert writer.execute("SELECT count(*), min(id), sum(v) - sum(id) FROM snap_big"
                              ).fetchone() == (ROWS - 100 + 1, 0, ROWS - 100)
        # put the table back for the other tests
        writer.execute("DELETE FROM snap_big WHERE id = 0")
        writer.execute("UPDATE snap_big SET v = id")
        writer.execute("INSERT INTO snap_big SELECT n, n, repeat('x', 40) "
                       "FROM generate_series(1, 100) AS n")
    _wait_for_no_children(big.process.pid)


def test_several_long_reads_go_on_at_once(big: ServerProcess) -> None:
    with big.connect(autocommit=True) as one, big.connect(autocommit=True) as two:
        first = one.cursor().stream("SELECT id FROM snap_big ORDER BY id")
        second = two.cursor().stream("SELECT v FROM snap_big ORDER BY id DESC")
        taken: tuple[list[int], list[int]] = ([], [])
        for (a,), (b,) in zip(first, second, strict=True):
            taken[0].append(a)
            taken[1].append(b)
        assert taken == (list(range(1, ROWS + 1)), list(range(ROWS, 0, -1)))
    _wait_for_no_children(big.process.pid)


def test_an_error_while_the_snapshot_is_read_reaches_the_client(big: ServerProcess) -> None:
    with big.connect(autocommit=True) as conn:
        cursor = conn.cursor()
        with pytest.raises(psycopg.errors.DivisionByZero):
            for _ in cursor.stream("SELECT id, 10 / (id - 25000) FROM snap_big ORDER BY id"):
                pass
        assert conn.execute("SELECT count(*) FROM snap_big").fetchone() == (ROWS,)
    _wait_for_no_children(big.process.pid)


def test_a_read_given_up_ends_its_child(big: ServerProcess) -> None:
    conn = big.connect(autocommit=True)
    rows = conn.cursor().stream("SELECT * FROM snap_big")
    next(rows)
    assert child_processes(big.process.pid)
    conn.close()
    _wait_for_no_children(big.process.pid)


DATAFLOW = """
CREATE STREAM snap_in (n int);
CREATE STREAM snap_mid (n int);
CREATE TABLE snap_seen_first (n int);
CREATE TABLE snap_seen_second (n int);
CREATE PROCEDURE snap_first() LANGUAGE sql AS $$
    INSERT INTO snap_seen_first SELECT n FROM snap_in;
    INSERT INTO snap_mid SELECT n FROM snap_in;
$$;
CREATE PROCEDURE snap_second() LANGUAGE sql AS $$
    INSERT INTO snap_seen_second SELECT n FROM snap_mid;
$$;
CREATE TRIGGER snap_first_t AFTER INSERT ON snap_in EXECUTE PROCEDURE snap_first();
CREATE TRIGGER snap_second_t AFTER INSERT ON snap_mid EXECUTE PROCEDURE snap_second();
"""


def test_a_snapshot_never_holds_half_of_a_batch(big: ServerProcess) -> None:
    """Each batch runs two transactions (snap_first, then snap_second): a
    snapshot between them would count more rows seen first than second."""
    with big.connect(autocommit=True) as conn:
        conn.execute(DATAFLOW)
        stop = threading.Event()

        def feed() -> None:
            with big.connect(autocommit=True) as feeder:
                n = 0
                while not stop.is_set():
                    feeder.execute("INSERT INTO snap_in VALUES (%s), (%s)", (n, n + 1))
                    n += 2

        feeder = threading.Thread(target=feed)
        feeder.start()
        try:
            for _ in range(5):
                differences = {row[0] for row in conn.cursor().stream(
                    "SELECT (SELECT count(*) FROM snap_seen_first) "
                    "- (SELECT count(*) FROM snap_seen_second), id FROM snap_big")}
                assert differences == {0}
        finally:
            stop.set()
            feeder.join()
        conn.execute("SELECT sqlext_drain(30)")
        assert conn.execute("SELECT (SELECT count(*) FROM snap_seen_first), "
                            "(SELECT count(*) FROM snap_seen_second)").fetchone()[0] > 0
    _wait_for_no_children(big.process.pid)


@pytest.mark.parametrize("kind", ["text", "binary", "arrow"])
def test_a_large_copy_is_read_from_a_snapshot_while_others_write(big: ServerProcess,
                                                                 kind: str) -> None:
    sql = f"COPY (SELECT id, v FROM snap_big ORDER BY id) TO STDOUT (FORMAT {kind})"
    with big.connect(autocommit=True) as reader, big.connect(autocommit=True) as writer:
        cursor = reader.cursor()
        with cursor.copy(sql) as copy:
            parts = [bytes(next(iter(copy)))]
            assert child_processes(big.process.pid), "the rest is made by a forked child"
            started = time.monotonic()
            writer.execute("UPDATE snap_big SET v = v + 1")
            assert time.monotonic() - started < 5, "the writer did not wait for the COPY"
            parts += [bytes(part) for part in copy]
        assert cursor.rowcount == ROWS
        writer.execute("UPDATE snap_big SET v = id")
        with reader.cursor().copy(sql) as copy:
            assert b"".join(bytes(part) for part in copy) == b"".join(parts)
    _wait_for_no_children(big.process.pid)


def test_a_large_copy_given_up_ends_its_child(big: ServerProcess) -> None:
    conn = big.connect(autocommit=True)
    with contextlib.suppress(psycopg.Error), \
            conn.cursor().copy("COPY snap_big TO STDOUT (FORMAT arrow)") as copy:
        next(iter(copy))
        assert child_processes(big.process.pid)
        conn.close()
    _wait_for_no_children(big.process.pid)
