"""What goes into the command log, and when a client may hear of a commit.

Records are ``marshal``-encoded tuples (statement parameters are already in
SQLite's storage form: int, float, str, bytes or None):

* ``(TRANSACTION, commit µs, seed, batches, entries, sequences)``: a client
  transaction (OLTP work, or a border TE that put batches into streams); each
  entry redoes one statement: ``(sql, index, param OIDs, params, many,
  transaction start µs, statement start µs, sequence origins, environment
  id)``; ``sequences`` are the positions of the ones it moved, at its end.
* ``(TASK, commit µs, seed, schema, procedure, stream OID, batch, start µs,
  sequence origins, batches)``: a PE-triggered TE (strong
  recovery only; weak recovery runs them again).
* ``(ENVIRONMENT, id, user, database, settings)``: the session state the
  entries that name this id ran under; numbered anew in every segment.
* ``(SEQUENCES, positions)``: nextval() outside a logged transaction.

A commit's record is appended before anyone else runs; the reply to the
client waits for ``barrier()``: the log must be durable up to everything
that client could have seen.
"""

from __future__ import annotations

import asyncio
import marshal
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from executor.core import SequenceKey, TransactionLog
from executor.streaming.scheduler import Task
from storage.commandlog import LogWriter

TRANSACTION: Final = 1
TASK: Final = 2
ENVIRONMENT: Final = 3
SEQUENCES: Final = 4
MARSHAL_VERSION: Final = 4

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(moment: datetime) -> int:
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def moment(value: int) -> datetime:
    return datetime.fromtimestamp(value // 1_000_000, UTC).replace(
        microsecond=value % 1_000_000)


def encode(record: tuple[Any, ...]) -> bytes:
    return marshal.dumps(record, MARSHAL_VERSION)


def decode(payload: bytes) -> tuple[Any, ...]:
    record = marshal.loads(payload)
    if not isinstance(record, tuple) or not record:
        raise ValueError("not a command log record")
    return record


@dataclass(slots=True)
class _Environment:
    view: Mapping[str, str]
    epoch: int
    ident: int


class Journal:
    """The executor's ``Journal``: turns commits into records for the writer."""

    def __init__(self, loop: asyncio.AbstractEventLoop, directory: Path, first_lsn: int,
                 mode: str, timeout_ms: int) -> None:
        self.loop = loop
        self.mode = mode
        self.last_lsn = first_lsn - 1
        self.durable_lsn = self.last_lsn
        self.bytes_since_rotation = 0
        self._waiters: deque[tuple[int, asyncio.Future[None]]] = deque()
        self._kick_pending = False
        self._epoch = 0
        self._environments = 0
        self.writer = LogWriter(directory, first_lsn, mode, timeout_ms, self._written)

    # --- executor.core.Journal ------------------------------------------------------

    def committed(self, log: TransactionLog, created: dict[int, int]) -> None:
        now = micros(datetime.now(UTC))
        batches = tuple(created.items())
        task = log.task
        if task is None:
            self._append((TRANSACTION, now, log.seed, batches, tuple(log.entries),
                          tuple(log.moved.items())))
        elif self.mode == "strong":
            assert isinstance(task, Task) and log.task_started is not None
            self._append((TASK, now, log.seed, *task.procedure, task.stream_oid, task.batch,
                          micros(log.task_started), log.task_origins, batches))

    def sequences_moved(self, positions: dict[SequenceKey, int | None]) -> None:
        self._append((SEQUENCES, tuple(positions.items())))

    # --- what sessions use -------------------------------------------------------------

    def entry(self, environment: _Environment | None, user: str, database: str,
              settings: Mapping[str, str], sql: str, index: int, param_oids: Sequence[int],
              params: Sequence[Any], many: bool, started: datetime, at: datetime,
              origins: tuple[tuple[SequenceKey, int | None], ...]
              ) -> tuple[tuple[Any, ...], _Environment]:
        """A log entry for one statement, and the environment it names (a
        new one is logged when the session's settings changed)."""
        if environment is None or environment.view is not settings or (
                environment.epoch != self._epoch):
            self._environments += 1
            environment = _Environment(settings, self._epoch, self._environments)
            self._append((ENVIRONMENT, environment.ident, user, database,
                          tuple(settings.items())))
        values = tuple(tuple(row) for row in params) if many else tuple(params)
        return (sql, index, tuple(param_oids), values, many, micros(started), micros(at),
                origins, environment.ident), environment

    def barrier(self) -> asyncio.Future[None] | None:
        """Done once everything committed so far is durable (None if it is)."""
        if self.durable_lsn >= self.last_lsn:
            return None
        if self._waiters and self._waiters[-1][0] == self.last_lsn:
            return self._waiters[-1][1]
        future = self.loop.create_future()
        self._waiters.append((self.last_lsn, future))
        return future

    def rotate(self) -> None:
        """Start a new segment after the last record."""
        self.writer.rotate(self.last_lsn + 1)
        self._epoch += 1
        self.bytes_since_rotation = 0

    def close(self) -> None:
        self.writer.close()
        self._durable(self.last_lsn)

    # --- internals ---------------------------------------------------------------------

    def _append(self, record: tuple[Any, ...]) -> None:
        payload = encode(record)
        self.last_lsn += 1
        self.bytes_since_rotation += len(payload)
        self.writer.append(self.last_lsn, payload)
        if not self._kick_pending:
            self._kick_pending = True
            self.loop.call_soon(self._kick)

    def _kick(self) -> None:
        """The loop got round to queued callbacks: nothing more is about to
        commit right now, so write what is pending."""
        self._kick_pending = False
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
