"""Pipelined executions (psycopg's executemany and pipeline blocks, which
sqlext runs as batches of rows, in as many pieces as the rows arrive in)
where only sqlext can say what is right: streams, where all rows of one
transaction still form ONE batch through the dataflow and a re-delivered
batch id is skipped with one NOTICE (docs/sql.md, "Streams and batches"),
and recovery, which redoes committed batches exactly.

Each test gets its own server: a stream's batch numbers are server-wide.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.fixtures.servers import ServerProcess

ROWS = 300
"""Enough rows that a run of them arrives in several reads."""


@pytest.fixture
def dataflow(server_factory: Callable[..., ServerProcess]) -> Iterator[psycopg.Connection]:
    server = server_factory("--in-memory")
    with server.connect(autocommit=True) as connection:
        yield connection


ORDERS = """
CREATE STREAM orders (id int NOT NULL, amount int NOT NULL);
CREATE TABLE tallies (batch bigint, n bigint, amount bigint);
CREATE PROCEDURE tally() LANGUAGE sql AS $$
    INSERT INTO tallies SELECT max(batch_id), count(*), sum(amount) FROM orders;
$$;
CREATE TRIGGER tally_orders AFTER INSERT ON orders EXECUTE PROCEDURE tally();
"""
INSERT_ORDER = "INSERT INTO orders VALUES (%t, %t)"


def orders(count: int, first: int = 0) -> list[tuple[str, str]]:
    return [(str(n), str(n % 10)) for n in range(first, first + count)]


def tallies(*sizes: int, first: int = 0) -> list[tuple[int, int, int]]:
    """What ``tally`` records for batches of ``orders`` of these sizes."""
    found = []
    for batch, size in enumerate(sizes, start=1):
        found.append((batch, size, sum(int(amount) for _, amount in orders(size, first))))
        first += size
    return found


def test_the_rows_of_a_transaction_are_one_batch(dataflow: psycopg.Connection) -> None:
    conn = dataflow
    conn.execute(ORDERS)
    cursor = conn.cursor()
    cursor.executemany(INSERT_ORDER, orders(ROWS))  # one implicit transaction
    assert cursor.rowcount == ROWS
    with conn.transaction():
        cursor.executemany(INSERT_ORDER, orders(ROWS - 100, ROWS))
        cursor.executemany(INSERT_ORDER, orders(100, 2 * ROWS - 100))
    with conn.pipeline() as pipeline:  # a transaction per Sync
        for first, count in ((2 * ROWS, 40), (2 * ROWS + 40, 30)):
            for row in orders(count, first):
                conn.cursor().execute(INSERT_ORDER, row, prepare=True)
            pipeline.sync()
    failing = [*orders(ROWS, 5000)]
    failing[ROWS // 2] = ("0", None)  # type: ignore[assignment]
    with pytest.raises(psycopg.errors.NotNullViolation):
        cursor.executemany(INSERT_ORDER, failing)  # rolled back: no batch
    cursor.executemany(INSERT_ORDER, orders(3, 2 * ROWS + 70))
    assert conn.execute("SELECT sqlext_drain(10)").fetchone() == (True,)
    assert conn.execute("SELECT * FROM tallies ORDER BY batch").fetchall() == tallies(
        ROWS, ROWS, 40, 30, 3)


EVENTS = """
CREATE STREAM events (bid bigint NOT NULL, v text) WITH (batch_column = 'bid');
CREATE TABLE received (batch bigint, n bigint);
CREATE PROCEDURE receive() LANGUAGE sql AS $$
    INSERT INTO received SELECT max(batch_id), count(*) FROM events;
$$;
CREATE TRIGGER receive_events AFTER INSERT ON events EXECUTE PROCEDURE receive();
"""
INSERT_EVENT = "INSERT INTO events VALUES (%t, %t)"


def events(bid: int, count: int = ROWS) -> list[tuple[str, str]]:
    return [(str(bid), f"v{n}") for n in range(count)]


def skipped(bid: int) -> tuple[str, str, str]:
    return "NOTICE", "00000", f'batch {bid} of stream "events" was already accepted: skipping it'


def test_a_redelivered_batch_is_skipped_with_one_notice(dataflow: psycopg.Connection) -> None:
    conn = dataflow
    conn.execute(EVENTS)
    notices: list[tuple[str, str | None, str | None]] = []
    conn.add_notice_handler(lambda notice: notices.append(
        (notice.severity_nonlocalized or "", notice.sqlstate, notice.message_primary)))
    cursor = conn.cursor()
    cursor.executemany(INSERT_EVENT, events(10))
    assert (cursor.rowcount, notices) == (ROWS, [])
    cursor.executemany(INSERT_EVENT, events(10))
    assert (cursor.rowcount, notices) == (0, [skipped(10)])
    with conn.transaction():
        cursor.executemany(INSERT_EVENT, events(10, 5))
        assert (cursor.rowcount, notices) == (0, [skipped(10)] * 2)
    # one id per transaction: the row with another fails, and takes the
    # rows before it along, so 11 is still new afterwards
    mixed = [*events(11, 50), ("12", "other"), *events(11, 50)]
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        cursor.executemany(INSERT_EVENT, mixed)
    cursor.executemany(INSERT_EVENT, events(11))
    assert (cursor.rowcount, notices) == (ROWS, [skipped(10)] * 2)
    assert conn.execute("SELECT sqlext_drain(10)").fetchone() == (True,)
    assert conn.execute("SELECT * FROM received ORDER BY batch").fetchall() == [
        (10, ROWS), (11, ROWS)]
    assert conn.execute("SELECT last_batch, skipped_batches FROM sqlext_streams "
                        "WHERE name = 'events'").fetchone() == (11, 2)


ITEMS = "CREATE TABLE items (id serial PRIMARY KEY, code int UNIQUE, qty int CHECK (qty > 0), " \
        "at timestamptz DEFAULT now())"
INSERT_ITEM = "INSERT INTO items (code, qty) VALUES (%t, %t)"


def items(codes: range, failing: int | None = None) -> list[tuple[str, str]]:
    """Rows of ``INSERT_ITEM``; the one with code ``failing`` breaks the CHECK."""
    return [(str(code), "0" if code == failing else "1") for code in codes]


def _state(conn: psycopg.Connection) -> list[Any]:
    return [conn.execute("SELECT * FROM items ORDER BY id").fetchall(),
            conn.execute("SELECT last_value, is_called FROM items_id_seq").fetchone(),
            conn.execute("SELECT * FROM tallies ORDER BY batch").fetchall()]


def test_a_killed_server_comes_back_with_its_batches(tmp_path: Path,
                                                     server_factory: Callable[..., ServerProcess]
                                                     ) -> None:
    """Batches that failed, rolled back to a savepoint, committed in a
    block or alone, and fed a stream: after SIGKILL and recovery from the
    command log, everything (now() included) is as it was."""
    server = server_factory("--data-dir", str(tmp_path))
    with server.connect(autocommit=True) as conn:
        conn.execute(ORDERS)
        conn.execute(ITEMS)
        cursor = conn.cursor()
        cursor.executemany(INSERT_ITEM, items(range(1, ROWS)))
        with pytest.raises(psycopg.errors.CheckViolation):
            cursor.executemany(INSERT_ITEM, items(range(ROWS, 2 * ROWS), failing=ROWS + 50))
        with conn.transaction():
            cursor.executemany(INSERT_ITEM, items(range(2 * ROWS, 2 * ROWS + 50)))
            with pytest.raises(psycopg.errors.CheckViolation), conn.transaction():
                cursor.executemany(INSERT_ITEM, items(range(3 * ROWS, 4 * ROWS), 3 * ROWS + 9))
            cursor.executemany("UPDATE items SET qty = qty + %t WHERE code %% %t = 0",
                               [("1", "7"), ("2", "11")])
            cursor.executemany("DELETE FROM items WHERE code = %t",
                               [(str(code),) for code in range(2 * ROWS, 2 * ROWS + 20)])
        cursor.executemany(INSERT_ORDER, orders(ROWS))
        assert conn.execute("SELECT sqlext_drain(10)").fetchone() == (True,)
        before = _state(conn)
    assert (len(before[0]), before[2]) == (ROWS - 1 + 30, tallies(ROWS))
    server.stop(signal.SIGKILL)
    with server_factory("--data-dir", str(tmp_path)).connect(autocommit=True) as conn:
        assert conn.execute("SELECT sqlext_drain(10)").fetchone() == (True,)
        assert _state(conn) == before
