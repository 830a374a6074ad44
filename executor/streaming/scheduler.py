"""The streaming scheduler: transaction executions (TEs) of PE-triggered
procedures, in dataflow order, ahead of client work.

When a transaction commits batches into streams, every PE trigger on each
stream yields one TE for that batch. The new TEs go to the head of the queue
(S-Store §4.2), so a batch runs through the whole graph before the next
client transaction starts: the executor stays reserved for the scheduler
while anything is runnable. Each TE is its own ACID transaction; the batches
it commits trigger the next procedures the same way, so for each batch TEs
run in a topological order of the graph, and for each procedure batches run
in batch-id order.

A TE that fails rolls back entirely. Its procedure stops at that batch: the
TE and every later one of that procedure wait (nothing is skipped) until
``resume`` (ALTER PROCEDURE ... RESUME) puts them back at the head of the
queue. A stream's tuples of one batch are deleted in the transaction of the
last TE that consumes them.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from catalog import errors
from executor.batches import delete_batch
from executor.core import Executor, Token, WouldBlock
from executor.streaming.windows import Windows

log = logging.getLogger("sqlext")

ProcedureKey = tuple[str, str]
SchedulerState = tuple[tuple[tuple[str, str, int, int], ...], tuple[tuple[int, int, int], ...]]
"""Waiting TEs (schema, procedure, stream OID, batch) and (stream OID, batch,
consumers still to run): what a snapshot keeps of the scheduler."""


@dataclass(slots=True, unsafe_hash=True)
class Task:
    """One TE: ``procedure`` runs for ``batch`` of the stream ``stream_oid``."""

    procedure: ProcedureKey
    stream_oid: int
    batch: int
    generation: int = field(default=0, compare=False)
    """How many TEs led to this batch: 0 for a client's batch (see
    MAX_GENERATIONS)."""


MAX_GENERATIONS = 1000
"""TEs in one chain of batches. A dataflow is a graph without cycles; a
procedure whose output comes back to its own input (directly or through
others) would make batches for ever, keeping every client waiting, so the
chain stops here with an error instead."""


@dataclass
class Failure:
    procedure_oid: int
    batch: int
    stream: str
    error: errors.SqlError


LATENCY_SAMPLES: Final = 1000
"""TE durations kept per procedure (for its average and 99th percentile)."""


@dataclass
class ProcedureStats:
    runs: int = 0
    failures: int = 0
    durations: deque[float] = field(default_factory=lambda: deque(maxlen=LATENCY_SAMPLES))
    """Seconds each of its latest TEs took, failed ones included."""
    last_end: float | None = None
    """``time.perf_counter()`` when its latest TE ended."""


@dataclass
class Scheduler:
    executor: Executor
    run_task: Callable[[Task, Token], None]
    """Runs a TE's statements inside the transaction the scheduler opened."""
    request_run: Callable[[], None]
    """Arrange for ``run`` to be called soon (on the executor's thread)."""
    windows: Windows
    """The windows' counters: streaming state that snapshots keep along with
    the waiting TEs."""
    token: Token = field(default_factory=lambda: Token(0))
    queue: deque[Task] = field(default_factory=deque)
    held: dict[ProcedureKey, deque[Task]] = field(default_factory=dict)
    """TEs of stopped procedures, in order, starting with the failed one."""
    failures: dict[ProcedureKey, Failure] = field(default_factory=dict)
    stats: dict[ProcedureKey, ProcedureStats] = field(default_factory=dict)
    current: Task | None = None
    """The TE executing now."""
    fired: Counter[int] = field(default_factory=Counter)
    """PE trigger OID -> TEs it started (one per batch) since start-up."""
    _consumers: dict[tuple[int, int], int] = field(default_factory=dict)
    """(stream OID, batch) -> TEs still to run on it."""
    paused: bool = False
    """PE triggers are off (strong recovery): TEs queue up but do not run."""
    max_held: int = 10_000
    """Batches that may wait for a stopped procedure (see ``admit``)."""
    _running: bool = False
    _in_task: bool = False
    _generation: int = 0
    """The generation of batches the committing TE makes (0: a client's)."""

    def __post_init__(self) -> None:
        self.executor.on_batches = self.batches_committed
        self.executor.run_reserved = self.run

    # --- work arriving -------------------------------------------------------------

    def batches_committed(self, created: dict[int, int]) -> None:
        catalog = self.executor.catalog
        tasks: list[Task] = []
        for stream_oid, batch in created.items():
            triggers = catalog.procedure_triggers_on(stream_oid)
            if not triggers:
                continue
            self._consumers[(stream_oid, batch)] = len(triggers)
            for trigger in triggers:
                assert trigger.procedure is not None
                self.fired[trigger.oid] += 1
                tasks.append(Task(trigger.procedure, stream_oid, batch, self._generation))
        if not tasks:
            return
        if self._in_task:
            # a TE's output runs next: each batch goes through the graph depth-first
            self.queue.extendleft(reversed(tasks))
        else:
            # a client's batch: behind what still waits (only while recovery
            # holds TEs back, or for a stopped procedure, does anything wait)
            self.queue.extend(tasks)
        self._start()

    def admit(self, stream_oid: int) -> None:
        """A statement is about to add a batch to a stream: refused (53400)
        when a procedure that consumes it is stopped with ``max_held``
        batches already waiting for it. Runnable batches need no bound: the
        executor is the scheduler's while any waits, so producers wait."""
        if not self.held:
            return
        stream = self.executor.catalog.relation_by_oid(stream_oid)
        if stream is None:
            return
        for trigger in self.executor.catalog.triggers_on(stream):
            waiting = self.held.get(trigger.procedure) if trigger.procedure else None
            if waiting is not None and len(waiting) >= self.max_held:
                failure = self.failures[trigger.procedure]
                raise errors.ConfigurationLimitExceeded(
                    f'{len(waiting)} batches wait for procedure "{trigger.procedure[1]}", '
                    f"stopped at batch {failure.batch} of stream \"{failure.stream}\": "
                    f'stream "{stream.name}" takes no more',
                    hint=f"Fix the cause ({failure.error.message}) and run ALTER PROCEDURE "
                         f"{trigger.procedure[1]} RESUME; the waiting batches then run in "
                         "order.")

    def _start(self) -> None:
        if not self._running and self.queue and not self.paused:
            self.executor.reserve(self.token)
            self._running = True
            self.request_run()

    # --- running -------------------------------------------------------------------

    def run(self) -> None:
        """Run every runnable TE, including the ones they trigger."""
        self._release_dropped()
        blocked: WouldBlock | None = None
        try:
            while self.queue:
                task = self.queue.popleft()
                if task.procedure in self.failures:
                    self.held.setdefault(task.procedure, deque()).append(task)
                    continue
                try:
                    self._run_one(task)
                except WouldBlock as exc:
                    # A client's transaction holds the executor (sqlext_drain()
                    # in a block let TEs go): the run goes on when it ends.
                    self.queue.appendleft(task)
                    blocked = exc
                    return
        finally:
            if blocked is None:
                self._running = False
                self.executor.unreserve()
            else:
                blocked.wakeup.add_done_callback(lambda _: self.request_run())

    def _run_one(self, task: Task, seed: int | None = None) -> None:
        """Run one TE (timed, for sqlext_procedures)."""
        stats = self.stats.get(task.procedure)
        if stats is None:
            stats = self.stats[task.procedure] = ProcedureStats()
        self.executor.acquire(self.token, seed)
        self.current = task
        started = time.perf_counter()
        try:
            self._execute(task, stats)
        finally:
            self.current = None
            stats.last_end = ended = time.perf_counter()
            stats.durations.append(ended - started)

    def _execute(self, task: Task, stats: ProcedureStats) -> None:
        """The TE in the transaction just opened: commit, or roll back and stop."""
        executor = self.executor
        executor.bound_batches = {task.stream_oid: task.batch}
        try:
            if task.generation >= MAX_GENERATIONS:
                raise _cycle(task, executor)
            self.run_task(task, self.token)
            executor.note_task(task)
            remaining = self._consumers.get((task.stream_oid, task.batch), 1) - 1
            if remaining == 0:
                self._collect(task)
        except Exception as exc:
            error = exc if isinstance(exc, errors.SqlError) else errors.InternalError(
                f"{type(exc).__name__}: {exc}")
            if not isinstance(exc, errors.SqlError):
                log.exception("procedure %s failed", task.procedure[1])
            executor.rollback(self.token)
            stats.failures += 1
            self._stop(task, error)
            return
        finally:
            executor.bound_batches = {}
        self._in_task = True
        self._generation = task.generation + 1
        try:
            executor.commit(self.token)
        finally:
            self._in_task = False
            self._generation = 0
        stats.runs += 1
        if remaining:
            self._consumers[(task.stream_oid, task.batch)] = remaining
        else:
            self._consumers.pop((task.stream_oid, task.batch), None)

    def _collect(self, task: Task) -> None:
        """Every consumer has run: the batch's tuples go, in this TE's
        transaction, unless a reader holds them (a notify stream keeps its
        newest batches instead)."""
        stream = self.executor.catalog.relation_by_oid(task.stream_oid)
        if (stream is not None and stream.stream is not None and not stream.stream.keep_batches
                and not self.executor.readers.holds(task.stream_oid, task.batch)):
            delete_batch(self.executor.database, stream, task.batch)

    def oldest_waiting(self, stream_oid: int) -> int | None:
        """The lowest batch id of the stream some TE has yet to run on."""
        return min((batch for stream, batch in self._consumers if stream == stream_oid),
                   default=None)

    def _stop(self, task: Task, error: errors.SqlError) -> None:
        stream = self.executor.catalog.relation_by_oid(task.stream_oid)
        name = stream.name if stream is not None else str(task.stream_oid)
        procedure = self.executor.catalog.procedures.get(task.procedure)
        self.failures[task.procedure] = Failure(procedure.oid if procedure else 0, task.batch,
                                                name, error)
        self.held.setdefault(task.procedure, deque()).appendleft(task)
        log.error("procedure %s stopped at batch %d of stream %s: %s %s", task.procedure[1],
                  task.batch, name, error.sqlstate, error.message)

    def _release_dropped(self) -> None:
        """A stopped procedure that was dropped (or dropped and created anew)
        holds nothing back: its waiting TEs run as no-ops, so the batches they
        kept are collected."""
        procedures = self.executor.catalog.procedures
        for key, failure in list(self.failures.items()):
            current = procedures.get(key)
            if current is None or current.oid != failure.procedure_oid:
                del self.failures[key]
                self.queue.extendleft(reversed(self.held.pop(key, deque())))

    # --- recovery ------------------------------------------------------------------

    def unpause(self) -> None:
        """PE triggers on again (recovery is over): the waiting TEs run."""
        self.paused = False
        self._start()

    def replay(self, task: Task, seed: int) -> bool:
        """Run the waiting TE ``task`` now with its recorded random seed (a
        logged TE during strong recovery); False if no such TE waits."""
        for waiting in (self.queue, *self.held.values()):
            if task in waiting:
                waiting.remove(task)
                self._run_one(task, seed)
                return True
        return False

    def pending(self) -> dict[int, set[int]]:
        """Stream OID -> its batches that some PE-triggered procedure has
        still to run for."""
        found: dict[int, set[int]] = {}
        for stream_oid, batch in self._consumers:
            found.setdefault(stream_oid, set()).add(batch)
        return found

    def waiting(self) -> list[Task]:
        """Every TE not yet run: stopped procedures' first, then the queue."""
        return [task for held in self.held.values() for task in held] + list(self.queue)

    def state(self) -> SchedulerState:
        return (tuple((*t.procedure, t.stream_oid, t.batch) for t in self.waiting()),
                tuple((*key, count) for key, count in self._consumers.items()))

    def restore(self, state: SchedulerState) -> None:
        """Put back waiting TEs (a stopped procedure is tried again)."""
        tasks, consumers = state
        self.queue = deque(Task((schema, name), stream, batch)
                           for schema, name, stream, batch in tasks)
        self.held.clear()
        self.failures.clear()
        self._consumers = {(stream, batch): count for stream, batch, count in consumers}

    # --- control -------------------------------------------------------------------

    def resume(self, procedure: ProcedureKey) -> int:
        """Run a stopped procedure again from its failed batch; returns how
        many TEs were waiting."""
        self.failures.pop(procedure, None)
        waiting = self.held.pop(procedure, deque())
        self.queue.extendleft(reversed(waiting))
        self._start()
        return len(waiting)

    def drain(self, timeout: float | None = None) -> bool:
        """sqlext_drain(): the executor is never free while runnable TEs
        wait, so a caller finds them all done; what remains is a stopped
        procedure, reported as an error rather than waited for."""
        if timeout is not None and timeout < 0:
            raise errors.InvalidParameterValue("sqlext_drain timeout must not be negative")
        self._release_dropped()
        self._start()
        for procedure, failure in sorted(self.failures.items()):
            raise errors.ObjectNotInPrerequisiteState(
                f"procedure {procedure[1]} is stopped at batch {failure.batch} of stream "
                f"{failure.stream}: {failure.error.message}",
                hint=f"Fix it with CREATE OR REPLACE PROCEDURE, then run ALTER PROCEDURE "
                     f"{procedure[1]} RESUME.")
        return True


def _cycle(task: Task, executor: Executor) -> errors.SqlError:
    stream = executor.catalog.relation_by_oid(task.stream_oid)
    name = stream.name if stream is not None else str(task.stream_oid)
    return errors.ProgramLimitExceeded(
        f"batch {task.batch} of stream {name} comes at the end of a chain of "
        f"{MAX_GENERATIONS} transactions: the dataflow has a cycle",
        hint=f"Procedure {task.procedure[1]} is fed, through its triggers, by what it "
             "writes itself. Change the procedures or triggers so that no batch leads back "
             f"to a stream it came from, then ALTER PROCEDURE {task.procedure[1]} RESUME.")
