"""Pipelined executions of one prepared INSERT, UPDATE or DELETE against
PostgreSQL 15.

psycopg's ``executemany`` and its pipeline blocks send a Bind [Describe]
Execute of the same prepared statement for every row before a Sync, which
sqlext runs as one batch (sqlext/session/batch.py). Each case runs the same
on both servers and compares what the client is told (the exception class,
SQLSTATE, message and DETAIL; row counts; the transaction status and the tag
that ends the transaction) and what is left afterwards (the rows as text,
the sequence's position and its next value).
"""

from __future__ import annotations

import re
import socket
import subprocess
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import psycopg
import pytest
from psycopg.types.numeric import Float4, Int2, Int4, Int8

from tests.fixtures.differential import Peers, outcome, peers_fixture
from tests.fixtures.java import compile_java, finish_java, start_java
from tests.fixtures.protocol_fuzz import Replies
from tests.fixtures.waiting import wait_for_session
from wire import messages as m

peers = peers_fixture([], "batches")

Row = Sequence[object]
Run = Callable[[psycopg.Connection], list[Any]]
"""What one case does on one server, returning what its client was told."""

TABLES = [
    "DROP TABLE IF EXISTS items, parents CASCADE",
    "CREATE TABLE parents (id int PRIMARY KEY)",
    "INSERT INTO parents VALUES (1), (2)",
    """CREATE TABLE items (id serial PRIMARY KEY, code int UNIQUE,
        parent int REFERENCES parents, qty int NOT NULL CHECK (qty > 0),
        label varchar(3), due date, ratio int, price numeric(6,2))""",
    "INSERT INTO items (code, parent, qty) VALUES (1000, 1, 1)",
]
INSERT = ("INSERT INTO items (code, parent, qty, label, due, ratio, price) "
          "VALUES (%t, %t, %t, %t, %t, 100 / %t, %t)")
ITEMS = ["SELECT * FROM items ORDER BY id", "SELECT last_value, is_called FROM items_id_seq",
         "SELECT nextval('items_id_seq')"]
BEFORE_BATCH = "INSERT INTO items (code, parent, qty) VALUES (2000, 2, 2)"
"""A row a transaction writes before its batch, so that a rollback shows."""

ROWS = 9
POSITIONS = {"first": 0, "middle": 4, "last": ROWS - 1}
BAD: dict[str, dict[int, str | None]] = {
    # at Execute
    "unique": {0: "1000"},
    "not_null": {2: None},
    "check": {2: "0"},
    "foreign_key": {1: "9"},
    "division_by_zero": {5: "0"},
    # at Bind in sqlext, at Execute in PostgreSQL (see PLANNED)
    "numeric_overflow": {6: "9999.995"},
    "too_long": {3: "abcd"},
    # at Bind: the value does not decode into the parameter's type
    "invalid_integer": {0: "x1"},
    "invalid_date": {4: "2024-02-30"},
}
"""The column values (by parameter) that make a row of ``INSERT`` fail."""
PLANNED: frozenset[str] = frozenset({"too_long", "numeric_overflow", "division_by_zero"})
"""Failures whose row takes a value of the sequence or not as PostgreSQL
plans the statement (docs/sql.md, "Differences from PostgreSQL"): a custom
plan folds the parameter into the expression and fails while planning, a
generic one fails after the row's default took it."""


def _items_after(kind: str) -> list[str]:
    """``ITEMS``, for a ``PLANNED`` failure without the sequence's values."""
    if kind in PLANNED:
        return ["SELECT code, parent, qty, label, due, ratio, price FROM items ORDER BY id"]
    return ITEMS


def good(number: int, parent: int = 1) -> tuple[str | None, ...]:
    return str(number), str(parent), str(number), "abc", "2024-01-31", "4", f"{number}.5"


def rows_with(kind: str, position: int, first: int = 1) -> list[tuple[str | None, ...]]:
    """``ROWS`` rows numbered from ``first``, the one at ``position`` bad."""
    rows = [good(number) for number in range(first, first + ROWS)]
    bad = list(rows[position])
    for index, value in BAD[kind].items():
        bad[index] = value
    rows[position] = tuple(bad)
    return rows


def failure(exc: psycopg.Error) -> tuple[str, str | None, str | None, str | None]:
    """What a client is told of an error: its class, SQLSTATE, message and DETAIL."""
    diag = exc.diag
    return (type(exc).__name__, diag.sqlstate, diag.message_primary,
            _detail(diag.sqlstate, diag.message_detail))


_KEY_VALUES = re.compile(r"^(Key \(.*?\))=\(.*\)( already exists\.)$")


def _detail(sqlstate: str | None, detail: str | None) -> str | None:
    """A constraint violation's DETAIL as sqlext words it (docs/sql.md,
    "Differences from PostgreSQL"): a unique key's columns without their
    values; none for NOT NULL, CHECK and foreign keys."""
    if detail is None or sqlstate in ("23502", "23503", "23514"):
        return None
    if sqlstate == "23505":
        return _KEY_VALUES.sub(r"\1\2", detail)
    return detail


def status(connection: psycopg.Connection) -> str:
    return connection.info.transaction_status.name


def same_on_both(peers: Peers, setup: list[str], run: Run, after: list[str]) -> None:
    """``setup`` then ``run`` on PostgreSQL and on sqlext: the client is told
    the same, and the ``after`` queries (run outside any transaction) give
    the same ``outcome``."""
    seen = []
    for connection in peers:
        for statement in setup:
            connection.execute(statement)
        try:
            told = run(connection)
            assert status(connection) == "IDLE", "a case ends its transaction"
        finally:
            if status(connection) != "IDLE":
                connection.execute("ROLLBACK")
        seen.append((told, [outcome(connection, query) for query in after]))
    expected, ours = seen
    assert ours[0] == expected[0], "told differently"
    assert ours[1] == expected[1], "left differently"


def executemany(sql: str, rows: list[Row], *, transaction: bool = False,
                before: Sequence[str] = ()) -> Run:
    """One ``executemany``, in autocommit (one implicit transaction) or in a
    transaction that ``before`` starts with, ended by COMMIT."""

    def run(connection: psycopg.Connection) -> list[Any]:
        if transaction:
            connection.execute("BEGIN")
        for statement in before:
            connection.execute(statement)
        cursor = connection.cursor()
        try:
            cursor.executemany(sql, rows)
            told: list[Any] = [None]
        except psycopg.Error as exc:
            told = [failure(exc)]
        told += [cursor.rowcount, status(connection)]
        if transaction:
            told.append(connection.execute("COMMIT").statusmessage)
        return told

    return run


def pipelined(sql: str, groups: list[list[Row]], *, transaction: bool = False,
              before: Sequence[str] = ()) -> Run:
    """A pipeline block executing ``sql`` once per row, a Sync after each
    group: per group the error, if any, and each execution's row count."""

    def run(connection: psycopg.Connection) -> list[Any]:
        told: list[Any] = []
        if transaction:
            connection.execute("BEGIN")
        for statement in before:
            connection.execute(statement)
        with connection.pipeline() as pipeline:
            for group in groups:
                # made beforehand: an error may surface at any execute after
                # its row's, and the executions after it are aborted anyway
                cursors = [connection.cursor() for _ in group]
                try:
                    for cursor, row in zip(cursors, group, strict=True):
                        cursor.execute(sql, row, prepare=True)
                    pipeline.sync()
                    told.append(None)
                except psycopg.Error as exc:
                    told.append(failure(exc))
                    _settle(pipeline, len(group))
                told.append([cursor.rowcount for cursor in cursors])
        told.append(status(connection))
        if transaction:
            told.append(connection.execute("COMMIT").statusmessage)
        return told

    return run


def _settle(pipeline: psycopg.Pipeline, executions: int) -> None:
    """Sync after an error: on the way psycopg raises PipelineAborted for
    results of the executions the error aborted, as many times as they come
    in separate reads."""
    for _ in range(executions + 1):
        try:
            pipeline.sync()
            return
        except psycopg.errors.PipelineAborted:
            continue
    raise AssertionError("the pipeline did not settle")


@pytest.mark.parametrize("transaction", [False, True], ids=["autocommit", "transaction"])
@pytest.mark.parametrize("position", list(POSITIONS))
@pytest.mark.parametrize("kind", list(BAD))
def test_executemany_with_a_failing_row(peers: Peers, kind: str, position: str,
                                        transaction: bool) -> None:
    rows = rows_with(kind, POSITIONS[position])
    same_on_both(peers, TABLES, executemany(INSERT, rows, transaction=transaction,
                                            before=[BEFORE_BATCH] if transaction else []),
                 _items_after(kind))


@pytest.mark.parametrize("transaction", [False, True], ids=["autocommit", "transaction"])
def test_executemany_without_errors(peers: Peers, transaction: bool) -> None:
    rows = [good(number) for number in range(1, 41)]
    same_on_both(peers, TABLES, executemany(INSERT, rows, transaction=transaction), ITEMS)


@pytest.mark.parametrize("transaction", [False, True], ids=["autocommit", "transaction"])
@pytest.mark.parametrize("kind", list(BAD))
def test_pipeline_groups_with_a_failing_row(peers: Peers, kind: str,
                                            transaction: bool) -> None:
    """Groups before the failing one stay (autocommit) or go with the
    transaction; the group after it runs again (autocommit) or is 25P02."""
    rows = rows_with(kind, 1)
    groups = [[good(number) for number in range(10, 13)], rows[:3],
              [good(number) for number in range(20, 23)]]
    same_on_both(peers, TABLES, pipelined(INSERT, groups, transaction=transaction,
                                          before=[BEFORE_BATCH] if transaction else []),
                 _items_after(kind))


PLAIN_TABLE = [
    "DROP TABLE IF EXISTS plain, items, parents CASCADE",
    "CREATE TABLE parents (id int PRIMARY KEY)",
    "INSERT INTO parents VALUES (1), (2)",
    """CREATE TABLE plain (id int PRIMARY KEY, parent int REFERENCES parents,
        qty int NOT NULL CHECK (qty > 0), label varchar(3), due date)""",
    "INSERT INTO plain VALUES (100000, 2, 1, 'old', '2024-01-01')",
]
PLAIN_INSERT = "INSERT INTO plain VALUES (%t, %t, %t, %t, %t)"
"""Parameters only, into a table without defaults: sqlext inserts such rows
a group at a time (``executor.grouped_insert``): 600 rows as groups of 256,
256, 64, 16 and 8 rows."""
PLAIN_ROWS = 600
PLAIN_BAD: dict[str, dict[int, str | None]] = {
    "unique": {0: "100000"}, "not_null": {2: None}, "check": {2: "0"},
    "foreign_key": {1: "9"}, "invalid_integer": {0: "x1"},
}
PLAIN_AFTER = ["SELECT count(*), sum(id), sum(qty), min(id), max(id) FROM plain",
               "SELECT * FROM plain ORDER BY id DESC LIMIT 3"]


def plain_rows(kind: str | None = None, position: int = 0, count: int = PLAIN_ROWS,
               first: int = 1) -> list[tuple[str | None, ...]]:
    """``count`` rows of ``PLAIN_INSERT``; with ``kind``, the one at
    ``position`` fails so."""
    rows: list[tuple[str | None, ...]] = [
        (str(n), str(n % 2 + 1), str(n), "abc", "2024-01-31") for n in range(first, first + count)]
    if kind is not None:
        bad = list(rows[position])
        for index, value in PLAIN_BAD[kind].items():
            bad[index] = value
        rows[position] = tuple(bad)
    return rows


@pytest.mark.parametrize("transaction", [False, True], ids=["autocommit", "transaction"])
@pytest.mark.parametrize("position", [0, 57, 255, 256, 511, 512, 590, 599])
@pytest.mark.parametrize("kind", list(PLAIN_BAD))
def test_a_failing_row_in_a_group_of_rows(peers: Peers, kind: str, position: int,
                                          transaction: bool) -> None:
    """Rows inserted a group at a time fail at the row one statement per
    row fails at, with the rows before it in, in the first and the last
    group, at their edges, and among the rows short of a group."""
    rows = plain_rows(kind, position)
    same_on_both(peers, PLAIN_TABLE, executemany(
        PLAIN_INSERT, rows, transaction=transaction,
        before=["INSERT INTO plain VALUES (100001, 1, 1, 'new', NULL)"] if transaction else []),
        PLAIN_AFTER)


@pytest.mark.parametrize("transaction", [False, True], ids=["autocommit", "transaction"])
def test_groups_of_rows_in_a_pipeline(peers: Peers, transaction: bool) -> None:
    """A Sync after 600, 120 (one failing) and 300 rows."""
    groups = [plain_rows(), plain_rows("unique", 110, 120, first=1000),
              plain_rows(count=300, first=2000)]
    same_on_both(peers, PLAIN_TABLE, pipelined(PLAIN_INSERT, groups, transaction=transaction),
                 PLAIN_AFTER)


def test_groups_of_rows_rolled_back_to_a_savepoint(peers: Peers) -> None:
    def run(connection: psycopg.Connection) -> list[Any]:
        connection.execute("BEGIN")
        told = executemany(PLAIN_INSERT, plain_rows())(connection)
        connection.execute("SAVEPOINT grouped")
        told += executemany(PLAIN_INSERT, plain_rows(count=300, first=1000))(connection)
        told.append(connection.execute("ROLLBACK TO SAVEPOINT grouped").statusmessage)
        told += executemany(PLAIN_INSERT, plain_rows("check", 150, first=5000))(connection)
        told.append(connection.execute("ROLLBACK").statusmessage)
        told += executemany(PLAIN_INSERT, plain_rows(count=101, first=7000))(connection)
        return told

    same_on_both(peers, PLAIN_TABLE, run, PLAIN_AFTER)


@pytest.mark.parametrize("failing", [None, 150], ids=["all-good", "row-150-fails"])
def test_binary_fixed_width_values_with_nulls(peers: Peers, failing: int | None) -> None:
    """Binary int4, int8 and float8 parameters are cut together with one
    struct call; a row with a NULL among them is cut value by value."""
    setup = ["DROP TABLE IF EXISTS fixed", "CREATE TABLE fixed (id int PRIMARY KEY, "
             "big bigint, ratio float8, label text)"]
    rows = [(Int4(n), None if n % 7 == 0 else Int8(n * 1000003),
             None if n % 11 == 0 else n / 8, f"row {n}") for n in range(250)]
    if failing is not None:
        rows[failing] = (Int4(3), *rows[failing][1:])  # a duplicate key
    same_on_both(peers, setup, executemany("INSERT INTO fixed VALUES (%b, %b, %b, %t)", rows),
                 ["SELECT count(*), sum(big), sum(ratio), count(big), count(ratio) FROM fixed",
                  "SELECT * FROM fixed ORDER BY id LIMIT 15"])


@pytest.mark.parametrize("begin", [
    ["BEGIN", BEFORE_BATCH, "SAVEPOINT before_batch"],
    ["BEGIN", "SAVEPOINT before_batch"],  # the batch is the first write
    ["BEGIN", "SAVEPOINT a", "SAVEPOINT b", "RELEASE b", "SAVEPOINT before_batch"],
], ids=["after-a-write", "before-any-write", "nested"])
def test_savepoint_rolled_back_to_after_a_batch(peers: Peers, begin: list[str]) -> None:
    def run(connection: psycopg.Connection) -> list[Any]:
        told: list[Any] = [connection.execute(statement).statusmessage for statement in begin]
        cursor = connection.cursor()
        for rows in (rows_with("check", 5), [good(number) for number in range(30, 34)],
                     rows_with("invalid_date", 3, first=50)):
            try:
                cursor.executemany(INSERT, rows)
                told.append(cursor.rowcount)
            except psycopg.Error as exc:
                told.append(failure(exc))
            told.append(status(connection))
            told.append(connection.execute("ROLLBACK TO SAVEPOINT before_batch").statusmessage)
        cursor.executemany(INSERT, [good(number) for number in range(40, 44)])
        told += [cursor.rowcount, status(connection)]
        told.append(connection.execute("COMMIT").statusmessage)
        return told

    same_on_both(peers, TABLES, run, ITEMS)


def test_a_batch_in_a_read_only_transaction(peers: Peers) -> None:
    rows = [good(number) for number in range(1, 5)]
    same_on_both(peers, TABLES, executemany(INSERT, rows, transaction=True,
                                            before=["SET TRANSACTION READ ONLY"]), ITEMS)


@pytest.mark.parametrize("end", ["COMMIT", "ROLLBACK"])
def test_a_batch_waiting_for_a_writing_transaction(peers: Peers, end: str) -> None:
    """Another session's transaction inserts the key of the batch's third
    row: PostgreSQL's batch waits at that row, sqlext's before its first
    (that session owns the executor); either way the row fails once the
    other commits, and all go in once it rolls back."""

    def run(connection: psycopg.Connection) -> list[Any]:
        schema = connection.execute("SELECT current_schema()").fetchone()
        assert schema is not None
        with psycopg.connect(connection.info.dsn, autocommit=True) as other:
            other.execute(f"SET search_path TO {schema[0]}")
            other.execute("BEGIN")
            other.execute("INSERT INTO items (code, parent, qty) VALUES (3, 1, 1)")
            told: list[Any] = []
            batch = threading.Thread(target=lambda: told.extend(
                executemany(INSERT, [good(n) for n in range(1, 6)])(connection)))
            batch.start()
            # PostgreSQL's waits for the other transaction, sqlext's for the executor
            wait_for_session(other, connection.info.backend_pid,
                             "transactionid" if connection is peers[0] else "executor")
            other.execute(end)
            batch.join()
        return told

    same_on_both(peers, TABLES, run, ITEMS)


STOCK = [
    "DROP TABLE IF EXISTS stock_moves, stock CASCADE",
    "CREATE TABLE stock (id int PRIMARY KEY, grp int, qty int CHECK (qty >= 0))",
    "INSERT INTO stock VALUES (1, 1, 10), (2, 2, 20), (3, 2, 30), (4, 2, 40), (5, 4, 50)",
    """CREATE TABLE stock_moves (id serial PRIMARY KEY,
        stock int REFERENCES stock ON DELETE CASCADE ON UPDATE CASCADE, n int)""",
    "INSERT INTO stock_moves (stock, n) VALUES (1, 1), (2, 1), (2, 2), (3, 3), (5, 5)",
]
STOCK_AFTER = ["SELECT * FROM stock ORDER BY id", "SELECT * FROM stock_moves ORDER BY id"]
UPDATE = "UPDATE stock SET qty = qty - %t WHERE grp = %t"
DELETE = "DELETE FROM stock WHERE grp = %t"
# grp 3 has no rows, grp 1 one, grp 2 three
CHANGES = [("1", "3"), ("1", "1"), ("1", "2"), ("2", "2"), ("0", "3")]


@pytest.mark.parametrize(("sql", "rows"), [
    (UPDATE, CHANGES),
    (UPDATE, [*CHANGES[:3], ("25", "2"), *CHANGES[3:]]),  # CHECK fails at the 3rd stock row
    (UPDATE, [*CHANGES[:3], ("x", "2")]),
    ("UPDATE stock SET id = id + 10 WHERE grp = %t", [("3",), ("1",), ("2",)]),  # cascades
    ("UPDATE stock SET qty = qty / %t WHERE grp = %t", [("2", "1"), ("0", "3"), ("0", "2")]),
    ("UPDATE stock s SET qty = s.qty + m.n FROM stock_moves m WHERE m.stock = s.id "
     "AND m.n <> 1 AND s.grp = %t", [("1",), ("3",), ("2",)]),
    (DELETE, [("3",), ("1",), ("2",), ("2",)]),
    ("DELETE FROM stock_moves WHERE stock = %t AND n >= %t", [("2", "1"), ("9", "1"), ("5", "5")]),
    ("DELETE FROM stock s USING stock_moves m WHERE m.stock = s.id AND m.n = %t",
     [("1",), ("7",), ("3",)]),
    ("INSERT INTO stock SELECT %t::int, %t::int, 1 "
     "WHERE NOT EXISTS (SELECT 1 FROM stock WHERE grp = 9)",
     [("10", "8"), ("11", "9"), ("12", "9")]),
    ("INSERT INTO stock VALUES (%t, 0, 1), (%t + 100, 0, %t)",
     [("10", "10", "5"), ("11", "11", "-1"), ("12", "12", "3")]),
], ids=["update", "update-check", "update-invalid", "update-cascade", "update-division",
        "update-from", "delete-cascade", "delete", "delete-using", "insert-select",
        "insert-values"])
@pytest.mark.parametrize("transaction", [False, True], ids=["autocommit", "transaction"])
def test_row_counts(peers: Peers, sql: str, rows: list[Row],
                                      transaction: bool) -> None:
    """0, 1 and several rows changed: executemany's total, each execution's
    count in a pipeline (its rows one group)."""
    same_on_both(peers, STOCK, executemany(sql, rows, transaction=transaction), STOCK_AFTER)
    same_on_both(peers, STOCK, pipelined(sql, [rows], transaction=transaction), STOCK_AFTER)


@pytest.mark.parametrize("conflict", [
    "ON CONFLICT DO NOTHING",
    "ON CONFLICT (code) DO NOTHING",
    "ON CONFLICT (code) DO UPDATE SET qty = items.qty + excluded.qty",
    "ON CONFLICT (code) DO UPDATE SET qty = items.qty + excluded.qty WHERE items.qty < 3",
])
@pytest.mark.parametrize("transaction", [False, True], ids=["autocommit", "transaction"])
def test_insert_on_conflict(peers: Peers, conflict: str, transaction: bool) -> None:
    """Rows that conflict with a row before the batch, with one of the batch
    and with none; the sequence moves for every row, as PostgreSQL's does."""
    sql = f"INSERT INTO items (code, parent, qty) VALUES (%t, %t, %t) {conflict}"
    rows: list[Row] = [("1", "1", "1"), ("1000", "1", "2"), ("2", "2", "2"), ("1", "1", "5"),
                       ("3", "1", "3"), ("2", "1", "1")]
    same_on_both(peers, TABLES, executemany(sql, rows, transaction=transaction), ITEMS)
    failing = [*rows[:3], ("4", "1", "0"), *rows[3:]]
    same_on_both(peers, TABLES, executemany(sql, failing, transaction=transaction), ITEMS)


EVENTS = [
    "DROP TABLE IF EXISTS events",
    """CREATE TABLE events (id serial PRIMARY KEY, grp int NOT NULL,
        created timestamptz DEFAULT now(), day date DEFAULT current_date)""",
]
EVENTS_AFTER = [
    "SELECT grp, count(*), min(id), max(id), bool_and(day = created::date) FROM events "
    "GROUP BY grp ORDER BY grp",
    "SELECT grp, count(DISTINCT created) FROM events GROUP BY grp ORDER BY grp",
    "SELECT last_value, is_called FROM events_id_seq",
]


def test_serial_ids_and_now_defaults(peers: Peers) -> None:
    """All rows of a transaction share its now(), an implicit one's (an
    executemany before its Sync, a pipeline group, a Query of several
    statements) as a block's; the ids count on."""

    def run(connection: psycopg.Connection) -> list[Any]:
        cursor = connection.cursor()
        sql = "INSERT INTO events (grp) VALUES (%t)"
        cursor.executemany(sql, [("1",)] * 20)
        told: list[Any] = [cursor.rowcount]
        with connection.transaction():
            cursor.executemany(sql, [("2",)] * 7)
            cursor.executemany(sql, [("2",)] * 5)
            told.append(connection.execute(
                "SELECT count(*) FROM events WHERE created = now()").fetchone())
        with connection.pipeline() as pipeline:
            for grp in ("3", "4"):
                for _ in range(6):
                    connection.cursor().execute(sql, (grp,), prepare=True)
                pipeline.sync()
        try:
            cursor.executemany(sql, [("5",), ("5",), (None,), ("5",)])
        except psycopg.Error as exc:
            told.append(failure(exc))
        connection.execute("INSERT INTO events (grp) VALUES (6); "
                           "SELECT count(*) FROM generate_series(1, 20000); "
                           "INSERT INTO events (grp) VALUES (6)", prepare=False)
        return told

    same_on_both(peers, EVENTS, run, EVENTS_AFTER)


MOMENTS = [
    "DROP TABLE IF EXISTS moments",
    """CREATE TABLE moments (n int, ts timestamp, tz timestamptz, day date,
        ts3 timestamp(3), tz0 timestamptz(0))""",
]
MOMENTS_AFTER = ["SELECT * FROM moments ORDER BY n"]
TIMESTAMPS = [
    "2024-01-02 03:04:05", "2024-01-02 03:04:05.123456", "2024-01-02 03:04:05.1234567",
    "2024-01-02 03:04:05.500000", "2024-01-02 03:04:05.000", "2024-01-02 03:04:05+00",
    "2024-01-02 03:04:05+05", "2024-01-02 03:04:05.5+00:00", "2024-01-02 03:04:05-00",
    "2024-01-02 03:04:05+00:30", "2024-01-02 03:04:05 UTC", "2024-01-02T03:04:05",
    "2024-01-02", "epoch", "infinity", "-infinity", "2024-01-02 24:00:00",
    "1999-12-31 23:59:60", "2024-01-02 03:04:05 BC", "10000-01-01 00:00:00",
    "2024-03-10 02:30:00", "2024-11-03 01:30:00", "2024-03-31 02:30:00",
    "2024-01-02 03:04:05.9999995", "2024-01-02 23:59:59.9999999", "1900-06-01 12:00:00",
]
DATES = ["2024-01-02", "2024-01-02 +00", "2024-02-29", "epoch", "infinity", "0001-01-01",
         "2024-1-2", "2024-01-02 03:04:05", "2024-01-02 +05"]
ZONES = ["UTC", "America/New_York", "Asia/Kathmandu", "Europe/London"]


@pytest.mark.parametrize("zone", ZONES)
def test_timestamps_in_text_in_a_session_zone(peers: Peers, zone: str) -> None:
    """Text timestamps with and without offsets, in and out of a zone's DST."""
    rows = [(str(n), ts, ts, DATES[n % len(DATES)], ts, ts) for n, ts in enumerate(TIMESTAMPS)]
    sql = "INSERT INTO moments VALUES (%t, %t, %t, %t, %t, %t)"
    same_on_both(peers, [*MOMENTS, f"SET TimeZone TO '{zone}'"], executemany(sql, rows),
                 MOMENTS_AFTER)


@pytest.mark.parametrize("value", ["2024-02-30 00:00:00", "0000-01-01 00:00:00",
                                   "2024-01-02 03:04:65", "2024-13-01 00:00:00", "x"])
def test_an_invalid_timestamp_fails_its_row(peers: Peers, value: str) -> None:
    rows = [("1", "2024-01-01", "2024-01-01"), ("2", value, "2024-01-01"),
            ("3", "2024-01-01", value)]
    sql = "INSERT INTO moments (n, ts, tz) VALUES (%t, %t, %t)"
    same_on_both(peers, [*MOMENTS, "SET TimeZone TO 'America/New_York'"],
                 executemany(sql, rows), MOMENTS_AFTER)


@pytest.mark.parametrize("zone", ZONES)
def test_timestamps_in_binary_in_a_session_zone(peers: Peers, zone: str) -> None:
    moments = [datetime(2024, 1, 2, 3, 4, 5, 123456), datetime(2024, 3, 10, 2, 30),
               datetime(1999, 12, 31, 23, 59, 59, 999999), datetime(1, 1, 1),
               datetime(2024, 11, 3, 1, 30)]
    zones = [UTC, timezone(timedelta(hours=5)), timezone(timedelta(hours=-3, minutes=-30)),
             ZoneInfo("America/New_York")]
    rows = [(str(n), moment, moment.replace(tzinfo=zones[n % len(zones)]), moment.date(),
             moment, moment.replace(tzinfo=UTC)) for n, moment in enumerate(moments)]
    rows.append((str(len(rows)), None, None, date(2024, 2, 29), None, None))
    sql = "INSERT INTO moments VALUES (%b, %b, %b, %b, %b, %b)"
    same_on_both(peers, [*MOMENTS, f"SET TimeZone TO '{zone}'"], executemany(sql, rows),
                 MOMENTS_AFTER)


SCALARS = [
    "DROP TABLE IF EXISTS scalars",
    """CREATE TABLE scalars (n int, i2 int2, i4 int4, i8 int8, f4 real, f8 float8,
        flag bool, word text, short varchar(5), fixed char(3), amount numeric(8,3),
        u uuid, doc jsonb, raw json, nums int[], words text[], bin bytea, span interval,
        addr inet, clock time)""",
]
SCALARS_AFTER = ["SELECT * FROM scalars ORDER BY n"]
SCALAR_TEXTS: list[tuple[str | None, ...]] = [
    ("0", "0", "0", "0", "0", "0", "t", "", "", "", "0"),
    (" 42 ", "+7", "-2147483648", "9223372036854775807", "NaN", "-0", "TRUE", "héllo", "ééééé",
     "a", "-0.0005"),
    ("007", "-32768", "2147483647", "-9223372036854775808", "Infinity", "1e-300", "false",
     "a\tb\\c'd\"", "ab   ", "é", "12345.6785"),
    ("1", "32767", "-0", "+0", "-inf", "1.7976931348623157e308", "yes", "🙂", "abcde   ",
     "abc  ", "NaN"),
    ("2", None, None, None, "3.4e38", "0.1", " off ", "  ", None, None, "-1e3"),
    ("3", "1", "1", "1", "1e-45", "nan", "1", "\\x00", "x", "ab", "  5  "),
]


OTHER_TEXTS: list[tuple[str | None, ...]] = [
    ("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", '{"b": 1, "a": [1, 2.50]}', '{"b": 1,  "a": 2}',
     "{1,2,NULL}", '{"a b",NULL,"c\\"d"}', "\\x00ff", "1 day 02:03:04", "10.0.0.1/8", "24:00:00"),
    ("{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}", "null", "[]", "{}", "{}", "\\x", "-1 mon",
     "::1", "00:00:00.0000005"),
    (None, '"é"', ' {"k":"v"} ', "{-1,+2, 3 }", '{"",""}', "ab\\000c", "P1Y2M3DT4H5M6S",
     "192.168.0.1", "23:59:59.9999996"),
]


def _insert_all(columns: str, width: int) -> str:
    return f"INSERT INTO scalars (n, {columns}) VALUES ({', '.join(['%t'] * (width + 1))})"


def test_scalars_in_text(peers: Peers) -> None:
    columns = "i2, i4, i8, f4, f8, flag, word, short, fixed, amount"
    rows = [(str(n), *row[1:]) for n, row in enumerate(SCALAR_TEXTS)]
    same_on_both(peers, SCALARS, executemany(_insert_all(columns, len(rows[0]) - 1), rows),
                 SCALARS_AFTER)


def test_other_types_in_text(peers: Peers) -> None:
    columns = "u, doc, raw, nums, words, bin, span, addr, clock"
    rows = [(str(n), *row) for n, row in enumerate(OTHER_TEXTS)]
    same_on_both(peers, SCALARS, executemany(_insert_all(columns, len(rows[0]) - 1), rows),
                 SCALARS_AFTER)


@pytest.mark.parametrize(("column", "value"), [
    ("i2", "32768"), ("i4", "2147483648"), ("i8", "9223372036854775808"), ("i4", "1e3"),
    ("i4", ""), ("f4", "3.5e38"), ("f8", "1e400"), ("flag", "tr"), ("flag", "x"),
    ("short", "abcdef"), ("fixed", "abcd"), ("amount", "123456"), ("amount", "1e"),
    ("u", "x"), ("nums", "{1,x}"), ("words", "{a"),
    ("bin", "\\xz"), ("span", "1 fortnight"), ("addr", "1.2.3.4.5"), ("clock", "25:00"),
])
def test_a_scalar_that_fails_to_decode_fails_its_row(peers: Peers, column: str,
                                                     value: str) -> None:
    sql = f"INSERT INTO scalars (n, {column}) VALUES (%t, %t)"
    rows = [("1", None), ("2", None), ("3", value), ("4", None)]
    same_on_both(peers, SCALARS, executemany(sql, rows), SCALARS_AFTER)


def test_scalars_in_binary(peers: Peers) -> None:
    """Binary values, each parameter of one type in every row (psycopg
    chooses a parameter's type by the value unless told, and prepares
    another statement for other types)."""
    nan, inf = float("nan"), float("inf")
    rows = [(Int4(n), Int2(i2), Int4(i4), Int8(i8), Float4(f4), f8, flag, word)
            for n, (i2, i4, i8, f4, f8, flag, word) in enumerate([
                (1, 1, 1, 0.5, -0.0, True, "x"),
                (-32768, 2**31 - 1, -2**63, nan, inf, False, ""),
                (32767, -2**31, 2**63 - 1, -inf, 1e-300, True, "é🙂"),
                (0, 0, 0, -0.0, nan, False, "a\tb\\c'd"),
                (7, 70000, 2**40, 1e-40, -1.5e308, True, "z")])]
    sql = ("INSERT INTO scalars (n, i2, i4, i8, f4, f8, flag, word) "
           "VALUES (%b, %b, %b, %b, %b, %b, %b, %b)")
    same_on_both(peers, SCALARS, executemany(sql, rows), SCALARS_AFTER)


@pytest.mark.parametrize(("column", "values"), [
    ("i2", [Int4(1), Int4(2), Int4(32768), Int4(3)]),
    ("i4", [Int8(1), Int8(2), Int8(2**40), Int8(3)]),
    ("i8", [Decimal(1), Decimal(2), Decimal(2**63), Decimal(3)]),
    ("i4", [1.0, 2.0, 2.5, 3.5]),
])
def test_a_binary_value_that_does_not_fit_fails_its_row(peers: Peers, column: str,
                                                        values: list[object]) -> None:
    sql = f"INSERT INTO scalars (n, {column}) VALUES (%b, %b)"
    rows = [(Int4(n), value) for n, value in enumerate(values)]
    same_on_both(peers, SCALARS, executemany(sql, rows), SCALARS_AFTER)


def test_a_materialized_view_follows_the_batch(peers: Peers) -> None:
    """sqlext keeps a materialized view current (docs/sql.md): PostgreSQL's,
    refreshed, must show what sqlext's shows without a refresh."""
    view = ("CREATE MATERIALIZED VIEW item_totals AS SELECT parent, count(*) AS n, "
            "sum(qty) AS qty, max(price) AS top FROM items GROUP BY parent")
    reference, ours = peers

    update = "UPDATE items SET qty = qty + %t WHERE parent = %t AND code > %t"
    delete = "DELETE FROM items WHERE code = %t"
    batches: list[tuple[str, list[Row]]] = [
        (INSERT, [good(n) for n in range(1, 6)]),
        (INSERT, rows_with("foreign_key", 3, 10)),
        (INSERT, [good(n, parent=2) for n in range(20, 23)]),
        (update, [("5", "1", "3"), ("1", "2", "0"), ("1", "3", "0")]),
        (update, [("1", "2", "0"), ("-100", "1", "0")]),
        (delete, [("21",), ("4",), ("99",)]),
        (delete, [("20",), ("22",)]),
    ]

    def run(connection: psycopg.Connection) -> list[Any]:
        told: list[Any] = []
        for transaction in (False, True):
            for sql, rows in batches:
                told += executemany(sql, rows, transaction=transaction)(connection)
                if connection is reference:
                    connection.execute("REFRESH MATERIALIZED VIEW item_totals")
                told.append(outcome(connection, "SELECT * FROM item_totals ORDER BY parent"))
            connection.execute("DELETE FROM items WHERE code < 1000")
        return told

    same_on_both((reference, ours), [*TABLES, view], run, ITEMS)


def test_statement_triggers_fire_per_execution(peers: Peers) -> None:
    """An EE trigger (sqlext) and a FOR EACH STATEMENT trigger (PostgreSQL)
    run after every INSERT of the batch, and go with the rows' rollback."""
    common = [*TABLES, "DROP TABLE IF EXISTS fired", "CREATE TABLE fired (n int, rows bigint)",
              "INSERT INTO fired VALUES (0, 0)"]
    action = "UPDATE fired SET n = n + 1, rows = (SELECT count(*) FROM items)"
    reference, ours = peers
    reference.execute(f"""CREATE OR REPLACE FUNCTION count_inserts() RETURNS trigger
        LANGUAGE plpgsql AS $$ BEGIN {action}; RETURN NULL; END $$""")
    for statement in common:
        reference.execute(statement)
        ours.execute(statement)
    reference.execute("CREATE TRIGGER count_items AFTER INSERT ON items "
                      "FOR EACH STATEMENT EXECUTE FUNCTION count_inserts()")
    ours.execute(f"CREATE TRIGGER count_items AFTER INSERT ON items AS $$ {action}; $$")

    def run(connection: psycopg.Connection) -> list[Any]:
        told: list[Any] = []
        for rows, transaction in (([good(n) for n in range(1, 6)], False),
                                  (rows_with("check", 4), False),
                                  ([good(n) for n in range(10, 13)], True),
                                  (rows_with("unique", 2), True)):
            told += executemany(INSERT, rows, transaction=transaction)(connection)
        return told

    same_on_both(peers, [], run, [*ITEMS, "SELECT * FROM fired"])


JDBC_SCENARIOS = [f"{autocommit}:600:{failing}" for autocommit in ("true", "false")
                  for failing in (0, 1, 300, 599)]
"""pgjdbc sends a Sync after every 256 rows of a batch (so that neither side
blocks on a full buffer): without a transaction, each 256 rows commit on
their own."""


@pytest.fixture(scope="module")
def batch_errors(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = Path(__file__).resolve().parents[1] / "java" / "BatchErrors.java"
    return compile_java(tmp_path_factory.mktemp("jdbc-batch"), "BatchErrors", source.read_text())


def test_jdbc_execute_batch(peers: Peers, batch_errors: Path) -> None:
    """BatchErrors.java against both servers side by side, in a JVM whose
    zone moves to summer time during the rows' timestamps."""
    running = []
    for connection in peers:
        info = connection.info
        schema = connection.execute("SELECT current_schema()").fetchone()
        assert schema is not None
        running.append(start_java(
            batch_errors, "BatchErrors", f"jdbc:postgresql://{info.host}:{info.port}/{info.dbname}",
            f"{schema[0]}.jdbc_items", *JDBC_SCENARIOS,
            options=["-Duser.timezone=America/New_York"]))
    expected, ours = (_jdbc_told(process) for process in running)
    assert sum(line.startswith("scenario: ") for line in expected) == len(JDBC_SCENARIOS)
    assert ours == expected


def _jdbc_told(process: subprocess.Popen[str]) -> list[str]:
    """BatchErrors' lines, an error's DETAIL as ``_detail`` words it."""
    lines: list[str] = []
    sqlstate = None
    for line in finish_java(process).splitlines():
        key, _, value = line.partition(": ")
        if key == "error sqlstate":
            sqlstate = value
        elif key == "error detail":
            line = f"{key}: {_detail(sqlstate, None if value == 'null' else value)}"
        lines.append(line)
    return lines


RAW_TABLE = ["DROP TABLE IF EXISTS raw_rows", "CREATE TABLE raw_rows (k int PRIMARY KEY, v text)"]
RAW_INSERT = m.encode_parse("ins", "INSERT INTO raw_rows VALUES ($1, $2)")


def _row(portal: str, k: int, *, described: bool = False, statement: str = "ins") -> bytes:
    return (m.encode_bind(portal, statement, [str(k).encode(), f"v{k}".encode()])
            + (m.encode_describe("P", portal) if described else b"")
            + m.encode_execute(portal))


RAW_SYNC = m.encode_simple(b"S")
RAW_RUNS: dict[str, bytes] = {
    # a named portal is bound once: binding it again in the transaction is 42P03
    "named-portal": RAW_INSERT + b"".join(_row("p", k) for k in range(1, 4)) + RAW_SYNC,
    "named-portal-closed": RAW_INSERT + b"".join(
        _row("p", k) + m.encode_close("P", "p") for k in range(1, 4)) + RAW_SYNC,
    "some-described": RAW_INSERT + b"".join(
        _row("", k, described=k % 2 == 0) for k in range(1, 7)) + RAW_SYNC,
    "then-another-statement": RAW_INSERT
    + m.encode_parse("del", "DELETE FROM raw_rows WHERE k = $1")
    + b"".join(_row("", k) for k in range(1, 4))
    + b"".join(m.encode_bind("", "del", [str(k).encode()]) + m.encode_execute("")
               for k in (1, 2, 9))
    + RAW_SYNC,
    "a-bind-with-too-few-values": RAW_INSERT + _row("", 1) + _row("", 2)
    + m.encode_bind("", "ins", [b"3"]) + m.encode_execute("") + _row("", 4) + RAW_SYNC,
    "a-failing-row-then-sync": RAW_INSERT + _row("", 1) + _row("", 1) + _row("", 2) + RAW_SYNC
    + _row("", 3) + _row("", 4) + RAW_SYNC,
    "in-a-block": m.encode_query("BEGIN") + RAW_INSERT + _row("", 1) + _row("", 2) + RAW_SYNC
    + _row("", 2) + _row("", 3) + RAW_SYNC + m.encode_query("COMMIT"),
}


@pytest.mark.parametrize("frames", list(RAW_RUNS.values()), ids=list(RAW_RUNS))
def test_runs_of_binds_reply_by_reply(peers: Peers, frames: bytes) -> None:
    """Runs of Bind [Describe] Execute as a client could send them: every
    reply, in order, as PostgreSQL sends it."""

    def run(connection: psycopg.Connection) -> list[Any]:
        schema = connection.execute("SELECT current_schema()").fetchone()
        assert schema is not None
        return _exchange(connection.info, m.encode_query(f"SET search_path TO {schema[0]}")
                         + frames)

    same_on_both(peers, RAW_TABLE, run, ["SELECT * FROM raw_rows ORDER BY k"])


def _exchange(info: psycopg.ConnectionInfo, frames: bytes) -> list[str]:
    """The replies to ``frames`` on a connection of their own, up to the
    ReadyForQuery of their last Sync or Query; an error as its SQLSTATE and
    message."""
    replies = Replies()
    ready = frames.count(RAW_SYNC) + frames.count(b"Q") + 1
    with socket.create_connection((info.host, info.port), timeout=10) as sock:
        sock.sendall(m.encode_startup({"user": info.user, "database": info.dbname}) + frames)
        while sum(kind == b"Z" for kind, _ in replies.messages) < ready:
            data = sock.recv(1 << 16)
            assert data, "the server closed the connection"
            replies.feed(data)
    found = []
    for kind, body in replies.messages[1 + [k for k, _ in replies.messages].index(b"Z"):]:
        if kind in (b"E", b"N"):
            fields = {part[:1]: part[1:].decode() for part in body.split(b"\0") if part}
            found.append(f"{kind.decode()} {fields[b'C']} {fields[b'M']}")
        elif kind in (b"C", b"Z"):
            found.append(f"{kind.decode()} {body.rstrip(bytes(1)).decode()}")
        elif kind != b"S":
            found.append(kind.decode())
    return found
