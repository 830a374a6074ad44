"""The running dataflow's state, read straight from the objects that run it:
the scheduler (queued and held TEs, failures, counts of TEs), the batch
ledger (batch ids) and the stream and window tables (what they hold now).

``observe`` is the one reader; EXPLAIN DATAFLOW and the dataflow graph's
other forms show what it returns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from catalog.schema import Relation
from executor.core import Executor
from executor.streaming.scheduler import ProcedureKey, Scheduler
from storage.sqlite import quoted


@dataclass(frozen=True, slots=True)
class StreamState:
    last_batch: int
    """The highest batch id committed on the stream."""
    tuples: int
    """The tuples the stream holds (a stream nothing consumes keeps them)."""
    pending_batches: int
    """Batches some PE-triggered procedure has still to run for."""
    pending_tuples: int
    """The tuples of those batches."""


@dataclass(frozen=True, slots=True)
class WindowState:
    visible: int
    staged: int
    slides: int


@dataclass(frozen=True, slots=True)
class ProcedureState:
    state: str
    """idle, running (a TE of it runs or batches wait for it) or stopped (a
    TE failed)."""
    waiting_batches: int
    batches_run: int
    batches_failed: int
    stopped_at_batch: int | None = None
    stopped_on_stream: str | None = None
    error_code: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Observed:
    relations: dict[tuple[str, str], StreamState | WindowState]
    """Streams and windows by (schema, name)."""
    procedures: dict[ProcedureKey, ProcedureState]


def observe(executor: Executor, scheduler: Scheduler, relations: Iterable[Relation],
            procedures: Iterable[ProcedureKey]) -> Observed:
    """The state of these streams and windows (other relations are skipped)
    and procedures. Reads committed data: the caller may read (see
    ``Executor.check_readable``)."""
    database = executor.database
    pending = scheduler.pending()
    states: dict[tuple[str, str], StreamState | WindowState] = {}
    for relation in relations:
        key = (relation.schema, relation.name)
        if relation.window is not None:
            states[key] = WindowState(*scheduler.windows.counts(relation))
        elif relation.stream is not None:
            waiting = pending.get(relation.oid, set())
            tuples = pending_tuples = 0
            for batch, count in database.execute(
                    f"SELECT batch_id, count(*) FROM {quoted(relation.physical)} "
                    "GROUP BY batch_id"):
                tuples += count
                if batch in waiting:
                    pending_tuples += count
            states[key] = StreamState(executor.batches.counters(relation.oid).last_batch,
                                      tuples, len(waiting), pending_tuples)
    queued: dict[ProcedureKey, int] = {}
    for task in scheduler.queue:
        queued[task.procedure] = queued.get(task.procedure, 0) + 1
    current = scheduler.current.procedure if scheduler.current is not None else None
    found: dict[ProcedureKey, ProcedureState] = {}
    for key in procedures:
        stats = scheduler.stats.get(key)
        runs, failed = (stats.runs, stats.failures) if stats else (0, 0)
        waiting = queued.get(key, 0) + len(scheduler.held.get(key, ()))
        failure = scheduler.failures.get(key)
        if failure is not None:
            found[key] = ProcedureState("stopped", waiting, runs, failed, failure.batch,
                                        failure.stream, failure.error.sqlstate,
                                        failure.error.message)
        else:
            found[key] = ProcedureState("running" if waiting or key == current else "idle",
                                        waiting, runs, failed)
    return Observed(states, found)
