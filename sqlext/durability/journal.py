"""What goes into the command log, and when a client may hear of a commit.

The journal turns commits into records (``records``): a client transaction
with the statements that redo it, a PE-triggered TE, the session
environments those statements ran under, and sequence moves outside a
logged transaction. A commit's record is appended before anyone else runs;
the reply to the client waits for ``barrier()``: the log must be durable up
to everything that client could have seen.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Protocol

from executor.context import StatementContext
from executor.core import SequenceKey, TransactionLog
from executor.grouped_insert import columns_of
from executor.streaming.scheduler import Task
from sqlext.durability import records
from sqlext.durability.records import micros
from storage.commandlog import LogWriter


def _columns(rows: Sequence[Any]) -> tuple[Any, ...]:
    """The values of many rows a column at a time, as records keep them."""
    columns = columns_of(rows)
    return tuple(columns) if columns is not None else tuple(zip(*rows, strict=True))


@dataclass(frozen=True, slots=True)
class _Logged:
    """The environment a session's statements were logged under."""

    settings: Mapping[str, str]
    segment: int
    """The log segment it was logged in (each names its own)."""
    ident: int


class LoggedSession(Protocol):
    """What the log records of the session a statement ran in."""

    database: str
    settings_view: Mapping[str, str]
    """The session's settings; a new value whenever one changes (or the
    name of its user or role does)."""

    @property
    def logged_identity(self) -> tuple[str, str]:
        """(session user, current role or 'none') by their present names."""
        ...

    logged_environment: object
    """What the log last recorded of the session's environment: the
    journal's to read and write (None at first)."""


MAX_DEFERRED_KICKS: Final = 64
"""Turns of the event loop a write may wait for the work ahead (about 20
pipelined Leaderboard votes); then it goes anyway."""


class Journal:
    """The executor's ``Journal``: turns commits into records for the writer."""

    def __init__(self, loop: asyncio.AbstractEventLoop, directory: Path, first_lsn: int,
                 mode: str, timeout_ms: int, work_ahead: Callable[[], bool]) -> None:
        """``work_ahead``: whether more commits are about to follow at once
        (``Executor.work_ahead``)."""
        self.loop = loop
        self.work_ahead = work_ahead
        self.mode = mode
        self.last_lsn = first_lsn - 1
        self.durable_lsn = self.last_lsn
        self.bytes_since_rotation = 0
        self._waiters: deque[tuple[int, asyncio.Future[None]]] = deque()
        self._kick_pending = False
        self._deferred = 0
        self._handed = self.last_lsn
        """The last record the writer was asked to write at once (a kick)."""
        self._segment = 0
        self._environment_count = 0
        self.writer = LogWriter(directory, first_lsn, mode, records.LAYOUT_VERSION, timeout_ms,
                                self._written)

    # --- executor.core.Journal ------------------------------------------------------

    def committed(self, log: TransactionLog, created: dict[int, int]) -> None:
        now = micros(datetime.now(UTC))
        batches = tuple(created.items())
        task = log.task
        if task is None:
            self._append(records.Transaction(now, log.seed, batches, tuple(log.entries),
                                             tuple(log.moved.items())))
        elif self.mode == "strong":
            assert isinstance(task, Task) and log.task_started is not None
            self._append(records.TaskRun(now, log.seed, *task.procedure, task.stream_oid,
                                         task.batch, micros(log.task_started),
                                         log.task_origins, batches))

    def sequences_moved(self, positions: dict[SequenceKey, int | None]) -> None:
        self._append(records.Sequences(tuple(positions.items())))

    # --- what sessions use -------------------------------------------------------------

    def statement(self, session: LoggedSession, sql: str, index: int,
                  param_oids: Sequence[int], params: Sequence[Any], many: bool,
                  context: StatementContext,
                  origins: tuple[tuple[SequenceKey, int | None], ...]) -> records.Statement:
        """The record that redoes one statement of ``session``'s transaction
        (``index``: which statement of ``sql``; ``many``: ``params`` holds
        one row of values per execution). The session's environment is
        logged first when it is new to this segment or changed."""
        logged: _Logged | None = session.logged_environment  # type: ignore[assignment]
        settings = session.settings_view
        if logged is None or logged.settings is not settings or logged.segment != self._segment:
            self._environment_count += 1
            logged = _Logged(settings, self._segment, self._environment_count)
            session.logged_environment = logged
            user, role = session.logged_identity
            self._append(records.Environment(logged.ident, user, session.database,
                                             tuple({**settings, "role": role}.items())))
        values = _columns(params) if many else tuple(params)
        return records.Statement(sql, index, tuple(param_oids), values, len(params) if many else 0,
                                 micros(context.transaction_start),
                                 micros(context.statement_start), origins, logged.ident)

    def barrier(self) -> asyncio.Future[None] | None:
        """Done once everything committed so far is durable (None if it is)."""
        if self.durable_lsn >= self.last_lsn:
            return None
        if self._waiters and self._waiters[-1][0] == self.last_lsn:
            return self._waiters[-1][1]
        future = self.loop.create_future()
        self._waiters.append((self.last_lsn, future))
        self._schedule_kick()
        return future

    def rotate(self) -> None:
        """Start a new segment after the last record."""
        self.writer.rotate(self.last_lsn + 1)
        self._segment += 1  # a segment names the environments it uses
        self.bytes_since_rotation = 0

    def close(self) -> None:
        self.writer.close()
        self._durable(self.last_lsn)

    # --- internals ---------------------------------------------------------------------

    def _append(self, record: records.Record) -> None:
        payload = records.encode(record)
        self.last_lsn += 1
        self.bytes_since_rotation += len(payload)
        self.writer.append(self.last_lsn, payload)
        self._schedule_kick()

    def _schedule_kick(self) -> None:
        if not self._kick_pending:
            self._kick_pending = True
            self.loop.call_soon(self._kick)

    def _kick(self) -> None:
        """The loop got round to queued callbacks: write what is pending now
        if somebody waits for it (a reply, a notification, a checkpoint),
        unless more commits are about to follow (a pipelined client's next
        transaction waits for the executor): then the records go in one group
        when the oldest has waited the group commit timeout, and their
        acknowledgements together. Records nobody waits for yet (those of the
        TEs a waiting client's transaction started) go with the next group,
        so that they do not hold up the fsync of the client's next commit."""
        if self.work_ahead() and self._deferred < MAX_DEFERRED_KICKS:
            self._deferred += 1
            self.loop.call_soon(self._kick)
            return
        self._deferred = 0
        self._kick_pending = False
        if self._waiters and self._waiters[-1][0] > self._handed:
            self._handed = self.last_lsn
            self.writer.kick()

    def _written(self, lsn: int) -> None:
        """Writer thread: records up to ``lsn`` are on disk."""
        self.loop.call_soon_threadsafe(self._durable, lsn)

    def _durable(self, lsn: int) -> None:
        self.durable_lsn = max(self.durable_lsn, lsn)
        while self._waiters and self._waiters[0][0] <= self.durable_lsn:
            _, future = self._waiters.popleft()
            if not future.done():
                future.set_result(None)
