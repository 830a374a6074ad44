"""The live system views: pg_catalog tables refilled just before a
statement that reads them runs (``SqlPlan.refresh``).

The dataflow's views (``sqlext_procedures``, ``sqlext_streams``,
``sqlext_stream_readers``, ``sqlext_windows``, ``sqlext_triggers``) are
built here from the catalog, the scheduler, the batch ledger, the streams'
readers and the stream and window tables. The others describe
what only the layer above knows (sessions, the command log, snapshots,
checkpoints); it hands in their rows with ``provide``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping

from catalog.dataflow import WindowSpec
from catalog.schema import PG_CATALOG, Relation
from catalog.types import INT2, INT4, INT8
from executor.codecs.intervals import format_interval
from executor.core import Executor
from executor.pg_catalog.rows import Row, row
from executor.pg_catalog.tables import replace_rows
from executor.streaming.observe import StreamState, observe
from executor.streaming.scheduler import ProcedureStats, Scheduler
from executor.values.conversions import epoch_timestamp
from storage.sqlite import quoted


class LiveTables:
    def __init__(self, executor: Executor, scheduler: Scheduler,
                 inline_fired: Mapping[int, int]) -> None:
        """``inline_fired``: EE and AFTER SLIDE trigger OID -> times its
        statements ran (counted where they run, by the dataflow runtime)."""
        self.executor = executor
        self.scheduler = scheduler
        self.inline_fired = inline_fired
        self._rows: dict[str, Callable[[], list[Row]]] = {
            "sqlext_procedures": self._procedures,
            "sqlext_streams": self._streams,
            "sqlext_stream_readers": self._stream_readers,
            "sqlext_windows": self._windows,
            "sqlext_triggers": self._triggers,
        }
        executor.refresh_live = self.refresh

    def provide(self, name: str, rows: Callable[[], list[Row]]) -> None:
        """A view whose rows come from a layer above."""
        self._rows[name] = rows

    def refresh(self, names: Iterable[str]) -> None:
        for name in names:
            replace_rows(self.executor.database, PG_CATALOG, name, self.rows(name))

    def rows(self, name: str) -> list[Row]:
        """The view's rows now (the dashboard reads them without SQL)."""
        return self._rows[name]()

    def _procedures(self) -> list[Row]:
        scheduler = self.scheduler
        procedures = sorted(self.executor.catalog.procedures.items())
        observed = observe(self.executor, scheduler, (), (key for key, _ in procedures))
        current = scheduler.current.procedure if scheduler.current is not None else None
        rows = []
        for key, procedure in procedures:
            state = observed.procedures[key]
            rows.append(row(
                "sqlext_procedures", schema=procedure.schema, name=procedure.name,
                language=procedure.language, state=state.state,
                waiting_batches=state.waiting_batches, batches_run=state.batches_run,
                batches_failed=state.batches_failed, stopped_at_batch=state.stopped_at_batch,
                stopped_on_stream=state.stopped_on_stream, error_code=state.error_code,
                error=state.error, running=key == current,
                **_latency(scheduler.stats.get(key) or ProcedureStats())))
        return rows

    def _streams(self) -> list[Row]:
        catalog = self.executor.catalog
        streams = [r for r in _sorted(catalog.user_relations()) if r.stream is not None]
        observed = observe(self.executor, self.scheduler, streams, ()).relations
        rows = []
        for relation in streams:
            state = observed[(relation.schema, relation.name)]
            assert isinstance(state, StreamState) and relation.stream is not None
            triggers = catalog.triggers_on(relation)
            consumers = [f"procedure {t.procedure[1]}" for t in triggers if t.procedure] + [
                f"window {w.name}" for w in catalog.windows_on(relation)] + [
                f"trigger {t.name}" for t in triggers if t.body]
            rows.append(row(
                "sqlext_streams", schema=relation.schema, name=relation.name,
                batch_column=relation.stream.batch_column, last_batch=state.last_batch,
                tuples=state.tuples,
                skipped_batches=self.executor.batches.counters(relation.oid).skipped,
                consumers=", ".join(consumers) or None, pending_batches=state.pending_batches,
                pending_tuples=state.pending_tuples, oldest_batch=self.executor.database.execute(
                    f"SELECT min(batch_id) FROM {quoted(relation.physical)}").fetchone()[0],
                readers=len(self.executor.readers.of(relation.oid))))
        return rows

    def _stream_readers(self) -> list[Row]:
        executor = self.executor
        rows = []
        for relation in _sorted(executor.catalog.user_relations()):
            readers = executor.readers.of(relation.oid) if relation.stream else {}
            for reader, after in sorted(readers.items()):
                held, oldest = executor.database.execute(
                    f"SELECT count(DISTINCT batch_id), min(batch_id) FROM "
                    f"{quoted(relation.physical)} WHERE batch_id > ?", (after,)).fetchone()
                rows.append(row(
                    "sqlext_stream_readers", schema=relation.schema, stream=relation.name,
                    reader=reader, after_batch=after, held_batches=held, oldest_held=oldest))
        return rows

    def _windows(self) -> list[Row]:
        rows = []
        for relation in _sorted(self.executor.catalog.user_relations()):
            spec = relation.window
            if spec is None:
                continue
            visible, staged, slides = self.scheduler.windows.counts(relation)
            rows.append(row(
                "sqlext_windows", schema=relation.schema, name=relation.name,
                stream=spec.stream[1], kind="rows" if spec.rows else "range",
                size=_extent(spec, spec.size), slide=_extent(spec, spec.slide),
                range_column=spec.column, partition_column=spec.partition,
                visible_tuples=visible, staged_tuples=staged, slides=slides))
        return rows

    def _triggers(self) -> list[Row]:
        catalog = self.executor.catalog
        rows = []
        for _, trigger in sorted(catalog.triggers.items()):
            relation = catalog.relations.get(trigger.target)
            if trigger.procedure is not None:
                kind, fired = "PE", self.scheduler.fired.get(trigger.oid, 0)
            else:
                kind = "slide" if trigger.event == "slide" else "EE"
                fired = self.inline_fired.get(trigger.oid, 0)
            rows.append(row(
                "sqlext_triggers", schema=trigger.schema, name=trigger.name, kind=kind,
                relation=trigger.target[1],
                relation_kind=relation.kind_name if relation is not None else None,
                procedure=trigger.procedure[1] if trigger.procedure else None, fired=fired))
        return rows


def _sorted(relations: Iterable[Relation]) -> list[Relation]:
    return sorted(relations, key=lambda r: (r.schema, r.name))


def _latency(stats: ProcedureStats) -> dict[str, float | str | None]:
    """avg_ms, p99_ms (nearest rank) and last_run of a procedure's TEs (none
    before its first)."""
    durations = sorted(stats.durations)
    if not durations or stats.last_end is None:
        return {}
    average = sum(durations) / len(durations)
    p99 = durations[math.ceil(0.99 * len(durations)) - 1]
    ended = time.time() - (time.perf_counter() - stats.last_end)
    return {"avg_ms": round(average * 1000, 3), "p99_ms": round(p99 * 1000, 3),
            "last_run": epoch_timestamp(ended)}


def _extent(spec: WindowSpec, value: int) -> str:
    """A window's size or slide as written: a count, a column value, or
    (RANGE over timestamps) an interval."""
    if spec.rows or spec.column_type in (INT2, INT4, INT8):
        return str(value)
    return format_interval(0, 0, value)
