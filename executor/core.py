"""The serial executor: one owner of all state, one statement at a time.

Invariants:

1. All statements run on the event loop thread, one after another, on one
   SQLite connection. Nothing runs concurrently, so no locks exist below.
2. At most one session *owns* the executor: it has an open write transaction
   (or asked for SERIALIZABLE). Its uncommitted changes are in SQLite, so
   while it owns the executor no other session may run anything; they wait
   (``WouldBlock``) in FIFO order and are woken when it commits or rolls back.
3. A session that does not own the executor reads committed data only,
   because there is no open transaction in SQLite when it runs.
4. Open cursors that outlive a statement (portals with a row limit) are read
   to the end before any write transaction begins, so a cursor always returns
   the data as it was when it was opened.
5. Schema changes are made to the owner's working ``Catalog`` and published
   at COMMIT; ROLLBACK (or ROLLBACK TO SAVEPOINT) puts the earlier value back.

Transaction states of the owner, as seen by SQLite::

    (no owner) ──acquire──▶ BEGIN ──statements──▶ COMMIT / ROLLBACK ──▶ (no owner)
"""

from __future__ import annotations

import logging
import random
import struct
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import repeat
from typing import Any, Final, Protocol, TypeVar

from catalog import errors
from catalog.partitioning import Placement
from catalog.schema import Catalog
from executor import error_translation, grouped_insert
from executor.batches import BatchLedger, LedgerMark
from executor.context import StatementContext
from executor.matview_maintenance import recompute_stale
from executor.notifications import Notification, Pending, PendingMark, notification
from executor.plans import Slot, SqlPlan
from executor.stream_readers import StreamReaders
from executor.values.conversions import storage_timestamp
from storage import sqlite

log = logging.getLogger("sqlext")

PROGRESS_STEPS = 2000
"""SQLite calls the cancel/timeout check every this many VM instructions."""

SequenceKey = tuple[str, str]
_SEEDS = random.Random()


def wall_clock() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class TransactionLog:
    """What the command log needs to redo a transaction: the entries its
    statements noted (opaque here), or the TE it ran, and the seed of its
    random numbers."""

    seed: int
    entries: list[Any] = field(default_factory=list)
    task: Any = None
    task_started: datetime | None = None
    task_origins: tuple[tuple[SequenceKey, int | None], ...] = ()
    moved: dict[SequenceKey, int | None] = field(default_factory=dict)
    """Sequences the transaction moved, with their positions at its end
    (nextval() is not undone by ROLLBACK TO SAVEPOINT, so redoing the kept
    statements alone could leave them behind)."""


class Journal(Protocol):
    """The command log as the executor sees it."""

    def committed(self, log: TransactionLog, created: dict[int, int]) -> None:
        """A transaction committed (called before anyone else runs)."""
        ...

    def sequences_moved(self, positions: dict[SequenceKey, int | None]) -> None:
        """nextval()/setval() ran outside a logged transaction."""
        ...


class Wakeup(Protocol):
    def add_done_callback(self, callback: Callable[[Any], object], /) -> None: ...

    def done(self) -> bool: ...

    def set_result(self, result: Any, /) -> None: ...


class WouldBlock(Exception):
    """Another session owns the executor; retry after ``wakeup`` is done."""

    def __init__(self, wakeup: Wakeup) -> None:
        super().__init__("executor busy")
        self.wakeup = wakeup


@dataclass(eq=False)
class Token:
    """A session as the executor knows it."""

    process_id: int
    cancel_requested: bool = False
    waiting: Wakeup | None = None
    pending: Pending | None = None
    """What its open transaction announces at commit (None: nothing yet)."""
    random: random.Random | None = None
    """Set by setseed(): the session's random numbers, which then seed its
    transactions (``Executor.set_seed``)."""

    def announcing(self) -> Pending:
        """The open transaction's announcements, to add to."""
        if self.pending is None:
            self.pending = Pending()
        return self.pending

    def announcement_mark(self) -> PendingMark:
        return (0, 0) if self.pending is None else self.pending.mark()

    def restore_announcements(self, mark: PendingMark) -> None:
        if self.pending is not None:
            self.pending.restore(mark)


@dataclass(eq=False)
class _Waiter:
    token: Token
    wakeup: Wakeup
    exclusive: bool


MATERIALIZE_LIMIT: Final = 1_000_000
"""Rows of an unfinished result kept in memory when a writer starts."""


_Reader = TypeVar("_Reader")


class LiveCursor:
    """Rows of a statement still being fetched in pieces (a portal).

    A cursor that fails while it is read (a value that cannot be decoded)
    is closed at once, so no later writer meets it again; when the read
    that failed was another session's ``materialize``, the error waits for
    the portal's next fetch: it belongs to this statement, not the writer's."""

    def __init__(self, executor: Executor, cursor: sqlite.Cursor, buffered: list[Any]) -> None:
        self._executor = executor
        self._cursor: sqlite.Cursor | None = cursor
        self._buffer: deque[Any] = deque(buffered)
        self._failure: Exception | None = None
        executor.live_cursors.add(self)

    def fetch(self, count: int | None) -> tuple[list[Any], bool]:
        """Up to ``count`` rows (all when None); the flag says whether the
        cursor is exhausted."""
        try:
            return self._fetch(count)
        except Exception:
            self.close()
            raise

    def _fetch(self, count: int | None) -> tuple[list[Any], bool]:
        if self._failure is not None and not self._buffer:
            raise self._failure
        if count is None:
            rows = list(self._buffer)
            self._buffer.clear()
            if self._cursor is not None:
                rows.extend(self._cursor.fetchall())
                self.close()
            return rows, True
        rows = []
        while self._buffer and len(rows) < count:
            rows.append(self._buffer.popleft())
        if len(rows) < count and self._cursor is not None:
            more = self._cursor.fetchmany(count - len(rows) + 1)
            if len(more) > count - len(rows):
                self._buffer.append(more.pop())
            else:
                self.close()
            rows.extend(more)
        exhausted = self._cursor is None and not self._buffer and self._failure is None
        if exhausted:
            self.close()
        return rows, exhausted

    def has_left(self, count: int) -> bool:
        """Whether at least ``count`` rows are left, reading ahead as far as
        needed (the rows read stay in order for the next fetch)."""
        if len(self._buffer) < count and self._cursor is not None:
            more = self._cursor.fetchmany(count - len(self._buffer))
            self._buffer.extend(more)
            if not more:
                self.close()
        return len(self._buffer) >= count

    def hand_over(self, reader: Callable[[list[Any], sqlite.Cursor | None], _Reader]
                  ) -> _Reader:
        """Give the rows read ahead and the cursor to ``reader`` (a forked
        child reads the rest); once it has taken them this object holds
        nothing, and if it fails this object stays as it was."""
        taken = reader(list(self._buffer), self._cursor)
        self._buffer.clear()
        self.close()
        return taken

    def materialize(self) -> None:
        """A writer is about to start: read the rest now, so the rows stay
        those of this statement. At most MATERIALIZE_LIMIT rows are kept (a
        result may be endless); past that the cursor fails, for its owner."""
        if self._cursor is None:
            return
        try:
            rows = self._cursor.fetchmany(MATERIALIZE_LIMIT - len(self._buffer) + 1)
            if len(self._buffer) + len(rows) > MATERIALIZE_LIMIT:
                self._failure = errors.ProgramLimitExceeded(
                    f"cursor result too large: more than {MATERIALIZE_LIMIT} rows were left "
                    "to read when another transaction started writing",
                    hint="Read large results whole, or fetch them before writing from "
                         "another session.")
                self._buffer.clear()
            else:
                self._buffer.extend(rows)
        except Exception as exc:
            # A function's own error (division by zero) is in the statement
            # context of the writer that is running now.
            self._failure = self._executor.context.take_error() or exc
        self.close()

    def close(self) -> None:
        if self._cursor is not None:
            self._cursor.close()
            self._cursor = None
        self._executor.live_cursors.discard(self)


class UndoLog:
    """How to put back in-memory state (window counters) that the open
    transaction changed: ROLLBACK runs every action, newest first, ROLLBACK TO
    SAVEPOINT those since the savepoint, COMMIT forgets them."""

    def __init__(self) -> None:
        self._actions: list[Callable[[], None]] = []

    def push(self, action: Callable[[], None]) -> None:
        self._actions.append(action)

    def mark(self) -> int:
        return len(self._actions)

    def undo_to(self, mark: int) -> None:
        actions = self._actions
        while len(actions) > mark:
            actions.pop()()

    def forget(self) -> None:
        self._actions.clear()


@dataclass
class _Transaction:
    owner: Token
    catalog: Catalog
    log: TransactionLog
    savepoints: list[tuple[str, Catalog, LedgerMark, int, PendingMark, int]] = field(
        default_factory=list)
    random: random.Random | None = None


class Executor:
    """Owns the database and the committed catalog."""

    def __init__(self, database: sqlite.Database, catalog: Catalog,
                 make_wakeup: Callable[[], Wakeup]) -> None:
        self.database = database
        self.catalog = catalog
        self.make_wakeup = make_wakeup
        self.placement = Placement()
        """The partition of its cluster this node serves: rows of a partitioned
        relation that another partition owns are refused (23514)."""
        self.context = StatementContext()
        self.live_cursors: set[LiveCursor] = set()
        self.sequences: dict[tuple[str, str], int] = {}
        self._session_values: dict[tuple[int, tuple[str, str]], int] = {}
        self._transaction_ids = 1000
        self._transaction: _Transaction | None = None
        self._waiters: deque[_Waiter] = deque()
        self._running: Token | None = None
        self._deadline = 0.0
        self._timed_out = False
        self.batches = BatchLedger()
        self.undo = UndoLog()
        self.readers = StreamReaders(self.undo.push)
        self.on_batches: Callable[[dict[int, int]], None] | None = None
        """Called with the batches (stream OID -> batch id) of every commit
        that created some, before anyone else may run (the scheduler)."""
        self.sealing_batches: Callable[[Token, Catalog, dict[int, int]], None] | None = None
        """Called just before a transaction that wrote batches commits, with
        the batches (stream OID -> batch id): the notify streams' work."""
        self.on_announce: Callable[[int, Pending], None] | None = None
        """Called with the process id and announcements of every committed
        transaction that made some (NOTIFY, LISTEN), before anyone else runs."""
        self.bound_batches: dict[int, int] = {}
        """Stream OID -> batch id: what a stream's name denotes inside the
        running transaction execution (set by the scheduler)."""
        self._reserved: Token | None = None
        self.run_reserved: Callable[[], None] | None = None
        """Runs the triggered work the executor is reserved for, now (the
        scheduler's ``run``): a session that finds the executor free but
        reserved, with nobody else waiting, lets it run first in its own turn
        instead of waiting for another turn of the event loop."""
        self.journal: Journal | None = None
        """The command log (None in memory-only mode and during recovery)."""
        self.clock: Callable[[], datetime] = wall_clock
        """What now() reads; recovery replays the recorded times."""
        self._origins: dict[SequenceKey, int | None] | None = None
        """Sequences the running statement moved, with their positions before."""
        self._group_origins: dict[SequenceKey, int | None] | None = None
        """Those the running group of rows moved (``_insert_group``)."""
        self._reseeded = False
        self.refresh_live: Callable[[frozenset[str]], None] | None = None
        """Fills the live system views a plan reads (``LiveTables.refresh``)."""
        database.set_progress_handler(self._progress, PROGRESS_STEPS)

    # --- ownership ------------------------------------------------------------

    @property
    def owner(self) -> Token | None:
        return self._transaction.owner if self._transaction else None

    def owns(self, token: Token) -> bool:
        return self._transaction is not None and self._transaction.owner is token

    def _wait(self, token: Token, exclusive: bool) -> WouldBlock:
        wakeup = self.make_wakeup()
        self._waiters.append(_Waiter(token, wakeup, exclusive))
        token.waiting = wakeup
        return WouldBlock(wakeup)

    def check_readable(self, token: Token) -> None:
        """A read by ``token`` may run now (raises WouldBlock otherwise)."""
        self._run_reserved_work(token)
        owner = self.owner
        if (owner is not None and owner is not token) or (
            self._reserved is not None and self._reserved is not token
        ):
            raise self._wait(token, exclusive=False)

    def reserve(self, token: Token) -> None:
        """Keep everyone but ``token`` waiting once the current transaction
        ends: triggered work runs ahead of queued client work."""
        self._reserved = token

    def unreserve(self) -> None:
        self._reserved = None
        if self._transaction is None:
            self._wake_waiters()

    def acquire(self, token: Token, seed: int | None = None) -> bool:
        """Make ``token`` the owner, opening its SQLite transaction (whose
        random numbers come from ``seed``: recovery passes the recorded one).

        Returns False if it already was the owner; raises WouldBlock if
        another session owns the executor or a writer queued before it."""
        if self._transaction is not None:
            if self._transaction.owner is token:
                return False
            raise self._wait(token, exclusive=True)
        self._run_reserved_work(token)
        if self._reserved is not None:
            if self._reserved is not token:
                raise self._wait(token, exclusive=True)
            self._waiters = deque(w for w in self._waiters if w.token is not token)
        elif self._waiters:
            if self._waiters[0].token is not token:
                raise self._wait(token, exclusive=True)
            self._waiters.popleft()
        token.waiting = None
        if self.live_cursors:
            for cursor in list(self.live_cursors):
                cursor.materialize()
        self.database.execute("BEGIN")
        if seed is None:
            seed = (token.random or _SEEDS).getrandbits(63)
        self._transaction = _Transaction(token, self.catalog, TransactionLog(seed))
        return True

    def _run_reserved_work(self, token: Token) -> None:
        """Triggered work goes first (S-Store §4.2): when the executor is free
        but reserved for it and no other session queued before ``token``, it
        runs now, so ``token`` need not wait for another turn of the loop."""
        if (self._reserved is not None and self._reserved is not token
                and self._transaction is None and not self._waiters
                and self.run_reserved is not None):
            self.run_reserved()

    def _release(self) -> None:
        self._transaction = None
        self._wake_waiters()

    def _wake_waiters(self) -> None:
        """The executor is free: wake every waiting reader up to the first
        waiting writer, and that writer, which keeps its place at the head of
        the queue until it acquires."""
        reserved = self._reserved
        if reserved is not None:
            # Only the reserved token (the scheduler) may go, if it waits.
            for waiter in self._waiters:
                if waiter.token is reserved and not waiter.wakeup.done():
                    waiter.wakeup.set_result(None)
            return
        while self._waiters:
            waiter = self._waiters[0]
            if not waiter.wakeup.done():
                waiter.wakeup.set_result(None)
            if waiter.exclusive:
                return
            self._waiters.popleft()

    def work_ahead(self) -> bool:
        """Whether a session waits for the executor with its next transaction
        (a pipelined client), which will run as soon as the work before it is
        done. A transaction block left open by its client is not work ahead:
        nobody knows when it goes on."""
        transaction = self._transaction
        if transaction is not None and transaction.owner is not self._reserved:
            return False
        return bool(self._waiters)

    def withdraw(self, token: Token) -> None:
        """``token`` no longer waits (cancelled, or its session is gone)."""
        if any(w.token is token for w in self._waiters):
            self._waiters = deque(w for w in self._waiters if w.token is not token)
            if self._transaction is None:
                self._wake_waiters()
        token.waiting = None

    def forget(self, token: Token) -> None:
        """A session went away: leave the queue and roll back its work."""
        self.withdraw(token)
        if self.owns(token):
            self.rollback(token)

    # --- transactions of the owner --------------------------------------------

    def working_catalog(self, token: Token) -> Catalog:
        if self._transaction is not None and self._transaction.owner is token:
            return self._transaction.catalog
        return self.catalog

    def set_working_catalog(self, token: Token, catalog: Catalog) -> None:
        assert self._transaction is not None and self._transaction.owner is token
        self._transaction.catalog = catalog

    def commit(self, token: Token) -> dict[int, int]:
        """Returns the batches the transaction created (stream OID -> batch id)."""
        transaction = self._transaction
        assert transaction is not None and transaction.owner is token
        try:
            writing = self.batches.writing()
            if writing and self.sealing_batches is not None:
                self.sealing_batches(token, transaction.catalog, writing)
            self.database.execute("COMMIT")
        except sqlite.Error as exc:
            if self.database.in_transaction:
                self.database.execute("ROLLBACK")
            self.batches.rollback()
            self.undo.undo_to(0)
            token.pending = None
            self._release()
            raise error_translation.translate(exc, transaction.catalog) from exc
        self._restart_dropped_sequences(transaction.catalog, transaction.log.moved)
        self.catalog = transaction.catalog
        self.undo.forget()
        created = self.batches.commit()
        log = transaction.log
        if self.journal is not None and (log.entries or log.task is not None):
            for key in log.moved:
                log.moved[key] = self.sequences.get(key)
            self.journal.committed(log, created)
        self.announce(token)
        if created and self.on_batches is not None:
            self.on_batches(created)
        self._release()
        return created

    def announce(self, token: Token) -> None:
        """``token``'s transaction committed (one that wrote nothing commits
        without owning the executor): what it announced takes effect."""
        pending, token.pending = token.pending, None
        if pending is not None and self.on_announce is not None:
            self.on_announce(token.process_id, pending)

    def notify(self, channel: str | None, payload: str | None) -> None:
        """NOTIFY / pg_notify() in the running statement: sent when its
        transaction commits."""
        token = self._running
        if token is None:
            raise errors.ObjectNotInPrerequisiteState("pg_notify() runs inside a statement")
        self.add_notification(token, notification(channel, payload))

    @staticmethod
    def add_notification(token: Token, checked: Notification) -> None:
        token.announcing().notifications.setdefault(checked)

    def rollback(self, token: Token) -> None:
        transaction = self._transaction
        assert transaction is not None and transaction.owner is token
        for cursor in list(self.live_cursors):
            cursor.materialize()
        if self.database.in_transaction:
            self.database.execute("ROLLBACK")
        self.batches.rollback()
        self.undo.undo_to(0)
        token.pending = None
        if transaction.log.moved and self.journal is not None:
            # ROLLBACK does not give sequence values back
            self.journal.sequences_moved({key: self.sequences.get(key)
                                          for key in transaction.log.moved})
        self._release()

    def savepoint(self, token: Token, name: str, announced: PendingMark | None = None) -> None:
        """``announced``: where the token's announcements stood when the
        savepoint was made (before the transaction owned the executor)."""
        transaction = self._transaction
        assert transaction is not None and transaction.owner is token
        self.database.execute(f'SAVEPOINT "{name}"')
        if announced is None:
            announced = token.announcement_mark()
        transaction.savepoints.append((name, transaction.catalog, self.batches.mark(),
                                       len(transaction.log.entries), announced,
                                       self.undo.mark()))

    def _find_savepoint(self, name: str) -> int:
        transaction = self._transaction
        assert transaction is not None
        for index in range(len(transaction.savepoints) - 1, -1, -1):
            if transaction.savepoints[index][0] == name:
                return index
        raise errors.InvalidSavepointSpecification(f'savepoint "{name}" does not exist')

    def release_savepoint(self, token: Token, name: str) -> None:
        transaction = self._transaction
        assert transaction is not None and transaction.owner is token
        index = self._find_savepoint(name)
        self.database.execute(f'RELEASE SAVEPOINT "{name}"')
        del transaction.savepoints[index:]

    def rollback_to_savepoint(self, token: Token, name: str) -> None:
        transaction = self._transaction
        assert transaction is not None and transaction.owner is token
        index = self._find_savepoint(name)
        if not self.database.in_transaction:
            raise errors.InFailedSqlTransaction(
                "current transaction is aborted, commands ignored until end of transaction block"
            )
        for cursor in list(self.live_cursors):
            cursor.materialize()
        self.database.execute(f'ROLLBACK TO SAVEPOINT "{name}"')
        _, transaction.catalog, batches, entries, announced, undo = transaction.savepoints[index]
        self.batches.restore(batches)
        self.undo.undo_to(undo)
        token.restore_announcements(announced)
        del transaction.log.entries[entries:]
        del transaction.savepoints[index + 1:]

    # --- running statements ---------------------------------------------------

    def _progress(self) -> int:
        token = self._running
        if token is None:
            return 0
        if token.cancel_requested:
            return 1
        if self._deadline and time.monotonic() > self._deadline:
            self._timed_out = True
            return 1
        return 0

    def begin_statement(self, token: Token, context: StatementContext,
                        timeout_ms: int = 0) -> None:
        self._running = token
        self.context = context
        self._origins = None
        self._reseeded = False
        self._timed_out = False
        self._deadline = time.monotonic() + timeout_ms / 1000 if timeout_ms > 0 else 0.0

    def end_statement(self) -> None:
        if self._origins and self.journal is not None and (
            self._transaction is None or self._transaction.owner is not self._running
        ):
            self.journal.sequences_moved({key: self.sequences.get(key) for key in self._origins})
        self._running = None
        self._deadline = 0.0
        if self._transaction is None and self._waiters:
            self._wake_waiters()

    def translate_error(self, exc: sqlite.Error, token: Token, target: str | None = None,
                        verb: str | None = None) -> errors.SqlError:
        pending = self.context.take_error()
        if pending is not None:
            return pending
        if sqlite.error_name(exc) == "SQLITE_INTERRUPT":
            if self._timed_out:
                return errors.QueryCanceled("canceling statement due to statement timeout")
            return errors.QueryCanceled("canceling statement due to user request")
        return error_translation.translate(exc, self.working_catalog(token), target, verb)

    def run_plan(self, plan: SqlPlan, args: Sequence[Any]) -> sqlite.Cursor:
        """Run a translated statement with its parameter values as the
        context's role (42501 unless it holds the privileges the plan needs);
        the live system views and materialized views it reads are brought
        up to date first."""
        self._check_access(plan)
        if plan.refresh and self.refresh_live is not None:
            # Not interrupted (cancel, timeout): an interrupted write would
            # roll back the open transaction, which may be another session's.
            running, self._running = self._running, None
            try:
                self.refresh_live(plan.refresh)
            finally:
                self._running = running
        if plan.recompute:
            recompute_stale(self.database, self.context.catalog, plan.recompute)
        if plan.slots:
            return self.database.execute(plan.sql, (*plan.bound(args),
                                                    *self._slot_values(plan.slots)))
        return self.database.execute(plan.sql, plan.bound(args))

    def run_plan_many(self, plan: SqlPlan, rows: Sequence[Sequence[Any]]) -> int:
        """Run a DML statement once per row of parameter values (COPY FROM):
        how many rows it changed in all."""
        size = self._grouped(plan, rows)
        if size is None:
            return self.database.executemany(plan.sql, self._bound_rows(plan, rows)).rowcount
        return sum(count * times for count, times in self._insert_groups(plan, rows, size))

    def run_plan_each(self, plan: SqlPlan, rows: Sequence[Sequence[Any]]
                      ) -> Iterator[tuple[int, int]]:
        """Run a DML statement once per row of parameter values (a batch of
        pipelined executions), yielding the count of rows an execution
        changed and for how many executions in a row; an INSERT of
        parameters a group of rows at a time (``grouped_insert``)."""
        size = self._grouped(plan, rows)
        if size is None:
            return zip(self.database.row_counts(plan.sql, self._bound_rows(plan, rows)),
                       repeat(1))
        return self._insert_groups(plan, rows, size)

    def _grouped(self, plan: SqlPlan, rows: Sequence[Sequence[Any]]) -> int | None:
        """The rows per group of a run of ``plan`` over ``rows``, if it goes
        a group at a time."""
        if plan.values_row is None or not plan.bindings or not self.database.in_transaction:
            return None
        size = grouped_insert.group_size(plan.bindings, self.database.variable_limit)
        smallest = grouped_insert.SMALLEST_GROUP
        return size if size >= smallest and len(rows) >= smallest else None

    def _insert_groups(self, plan: SqlPlan, rows: Sequence[Sequence[Any]], size: int
                       ) -> Iterator[tuple[int, int]]:
        """The rows a group at a time (``grouped_insert.groups`` binds the
        plan's parameters of each; a grouped plan has no slots)."""
        row, bindings = plan.values_row, plan.bindings
        assert row is not None
        self._check_access(plan)
        row_counts = self.database.row_counts
        for values, group in grouped_insert.groups(rows, size, bindings):
            count = len(values) // bindings
            if values and self._insert_group(grouped_insert.grouped_sql(row, bindings, count),
                                             values):
                yield 1, count
            else:
                yield from zip(row_counts(plan.sql, group), repeat(1))

    def _insert_group(self, sql: str, values: list[Any]) -> bool:
        """Insert a group of rows with one statement: False, with nothing of
        it left behind, when it failed or raised a notice (its rows then
        run a statement each, the reference)."""
        database, context = self.database, self.context
        notices, warnings, undo = len(context.notices), len(context.warnings), self.undo.mark()
        origins = self._group_origins = {}
        try:
            database.execute('SAVEPOINT "sqlext_group"')
            try:
                database.execute(sql, values)
            except sqlite.Error:
                if not database.in_transaction:
                    raise  # SQLite ended the transaction (an interrupt), as for one row
            else:
                if len(context.notices) == notices and len(context.warnings) == warnings:
                    database.execute('RELEASE SAVEPOINT "sqlext_group"')
                    return True
            database.execute('ROLLBACK TO SAVEPOINT "sqlext_group"')
            database.execute('RELEASE SAVEPOINT "sqlext_group"')
        finally:
            self._group_origins = None
        self.undo.undo_to(undo)
        self.place_sequences(tuple(origins.items()))
        del context.notices[notices:]
        del context.warnings[warnings:]
        context.take_error()
        return False

    def _bound_rows(self, plan: SqlPlan, rows: Sequence[Sequence[Any]]
                    ) -> Iterable[Sequence[Any]]:
        """What SQLite binds for each row of a many-row run (``SqlPlan.bound``
        and the slots), once the role is found to have the privileges."""
        self._check_access(plan)
        if plan.slots:
            slot_values = self._slot_values(plan.slots)
            return ((*plan.bound(row), *slot_values) for row in rows)
        if plan.bindings != len(plan.params):
            return (plan.bound(row) for row in rows)
        return rows

    def _slot_values(self, slots: tuple[Slot, ...]) -> tuple[Any, ...]:
        values: list[Any] = []
        for slot in slots:
            if slot.kind == "now":
                values.append(storage_timestamp(self.context.transaction_start))
                continue
            batch = self.bound_batches.get(slot.stream_oid)
            if batch is None:
                raise errors.ObjectNotInPrerequisiteState("no batch is bound to this stream")
            values.append(batch)
        return tuple(values)

    def _check_access(self, plan: SqlPlan) -> None:
        """USAGE on the schemas of the relations the plan names (found by
        name), then the privileges it needs on them."""
        context = self.context
        catalog = context.catalog
        role = context.user
        if plan.access and not catalog.is_superuser(role):
            for access in plan.access:
                catalog.require_schema(role, access.relation[0])
            for access in plan.access:
                catalog.require_access(role, catalog.relations[access.relation],
                                       access.privileges, dict(access.columns))

    # --- what the command log records --------------------------------------------------

    def note(self, entry: Any) -> None:
        """The owner's statement succeeded: ``entry`` redoes it."""
        assert self._transaction is not None
        self._transaction.log.entries.append(entry)

    def note_task(self, task: Any) -> None:
        """The open transaction is the scheduler's TE ``task``."""
        assert self._transaction is not None
        log = self._transaction.log
        log.task = task
        log.task_started = self.context.transaction_start
        log.task_origins = self.sequence_origins()

    def sequence_origins(self) -> tuple[tuple[SequenceKey, int | None], ...]:
        """Positions before the running statement moved them, to replay it."""
        return tuple(self._origins.items()) if self._origins else ()

    def place_sequences(self, origins: Sequence[tuple[SequenceKey, int | None]]) -> None:
        for key, value in origins:
            if value is None:
                self.sequences.pop(key, None)
            else:
                self.sequences[key] = value

    def random(self) -> random.Random:
        """The random numbers of the running statement: a recorded seed per
        logged transaction, so that recovery draws the same ones."""
        transaction = self._transaction
        if transaction is None:
            running = self._running
            return running.random if running is not None and running.random else _SEEDS
        if transaction.random is None:
            transaction.random = random.Random(transaction.log.seed)
        return transaction.random

    def set_seed(self, seed: float) -> None:
        """setseed(): the running session's random numbers follow from
        ``seed`` from now on, so each run draws the same ones: its open
        transaction draws them (the statement is then logged, so that
        recovery reseeds too), and so do its statements outside one; the
        seeds of its later transactions are drawn from them (and logged as
        any seed is)."""
        session = self._running
        if session is None:
            return
        session.random = random.Random(struct.pack("!d", seed))
        transaction = self._transaction
        if transaction is not None and transaction.owner is session:
            transaction.random = session.random
            self._reseeded = True

    @property
    def reseeded(self) -> bool:
        """Whether the running statement reseeded its transaction's random
        numbers (setseed()): the command log must redo it."""
        return self._reseeded

    # --- sequences (not transactional, as in PostgreSQL) -------------------------------

    def _sequence(self, name: str, context: StatementContext) -> tuple[str, str]:
        catalog = context.catalog
        if name.isdigit():
            for sequence in catalog.sequences.values():
                if sequence.oid == int(name):
                    return sequence.schema, sequence.name
        schema, _, bare = name.rpartition(".")
        sequence = catalog.find_sequence(bare.strip('"'), schema or None, context.search_path)
        if sequence is None:
            raise errors.UndefinedTable(f'relation "{name}" does not exist')
        return sequence.schema, sequence.name

    def _moving(self, key: SequenceKey) -> None:
        if self._origins is None:
            self._origins = {}
        self._origins.setdefault(key, self.sequences.get(key))
        if self._group_origins is not None:
            self._group_origins.setdefault(key, self.sequences.get(key))
        transaction = self._transaction
        if transaction is not None and transaction.owner is self._running:
            transaction.log.moved[key] = None

    def _restart_dropped_sequences(self, catalog: Catalog, moved: Mapping[SequenceKey, Any]
                                   ) -> None:
        """A committed DROP forgets the sequence's position, so one made again
        under the same name starts over, as in PostgreSQL (positions are kept
        by name; one the transaction itself moved is its new sequence's)."""
        before = self.catalog.sequences
        if catalog.sequences is before:
            return
        for key in [k for k in self.sequences if k not in moved]:
            now, then = catalog.sequences.get(key), before.get(key)
            if now is None or (then is not None and then.oid != now.oid):
                del self.sequences[key]

    def nextval(self, name: str, context: StatementContext) -> int:
        key = self._sequence(name, context)
        sequence = context.catalog.sequences[key]
        self._moving(key)
        current = self.sequences.get(key)
        value = sequence.start if current is None else current + sequence.increment
        self.sequences[key] = value
        self._session_values[(context.process_id, key)] = value
        return value

    def currval(self, name: str, context: StatementContext) -> int:
        key = self._sequence(name, context)
        value = self._session_values.get((context.process_id, key))
        if value is None:
            raise errors.ObjectNotInPrerequisiteState(
                f'currval of sequence "{key[1]}" is not yet defined in this session')
        return value

    def setval(self, name: str, value: int, called: bool, context: StatementContext) -> int:
        key = self._sequence(name, context)
        sequence = context.catalog.sequences[key]
        self._moving(key)
        if not called and value == sequence.start:
            # as new: last_value its start, is_called false (what pg_dump restores)
            self.sequences.pop(key, None)
        else:
            self.sequences[key] = value if called else value - sequence.increment
        return value

    def transaction_id(self) -> int:
        self._transaction_ids += 1
        return self._transaction_ids

    def is_running(self, token: Token) -> bool:
        return self._running is token

    def cancel(self, token: Token) -> None:
        """CancelRequest (listener thread): the running statement of ``token``
        stops at its next progress check; a wait for the executor ends."""
        token.cancel_requested = True
