"""The live system views of the dataflow (``sqlext_procedures``,
``sqlext_streams``, ``sqlext_checkpoints``): pg_catalog tables refilled from
the scheduler's, the batch ledger's and the checkpointer's state just before
a statement that reads them runs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from catalog.schema import PG_CATALOG
from executor.catalog_tables import replace_rows
from executor.core import Executor
from executor.ddl import quoted
from executor.scheduler import Scheduler

Row = tuple[Any, ...]


class LiveTables:
    def __init__(self, executor: Executor, scheduler: Scheduler) -> None:
        self.executor = executor
        self.scheduler = scheduler
        self._rows: dict[str, Callable[[], list[Row]]] = {
            "sqlext_procedures": self._procedures,
            "sqlext_streams": self._streams,
            "sqlext_checkpoints": list,
        }

    def provide(self, name: str, rows: Callable[[], list[Row]]) -> None:
        """A view whose rows come from a layer above (the checkpointer)."""
        self._rows[name] = rows

    def refresh(self, names: Iterable[str]) -> None:
        for name in names:
            replace_rows(self.executor.database, PG_CATALOG, name, self.rows(name))

    def rows(self, name: str) -> list[Row]:
        """The view's rows now (the dashboard reads them without SQL)."""
        return self._rows[name]()

    def _procedures(self) -> list[Row]:
        scheduler = self.scheduler
        queued: dict[tuple[str, str], int] = {}
        for task in scheduler.queue:
            queued[task.procedure] = queued.get(task.procedure, 0) + 1
        rows = []
        for key, procedure in sorted(self.executor.catalog.procedures.items()):
            stats = scheduler.stats.get(key)
            failure = scheduler.failures.get(key)
            waiting = queued.get(key, 0) + len(scheduler.held.get(key, ()))
            state = "stopped" if failure else ("running" if waiting else "idle")
            rows.append((
                procedure.schema, procedure.name, procedure.language, state, waiting,
                stats.runs if stats else 0, stats.failures if stats else 0,
                failure.batch if failure else None, failure.stream if failure else None,
                failure.error.sqlstate if failure else None,
                failure.error.message if failure else None))
        return rows

    def _streams(self) -> list[Row]:
        catalog = self.executor.catalog
        rows = []
        for relation in sorted(catalog.user_relations(), key=lambda r: (r.schema, r.name)):
            if relation.stream is None:
                continue
            counters = self.executor.batches.counters(relation.oid)
            tuples = self.executor.database.execute(
                f"SELECT count(*) FROM {quoted(relation.physical)}").fetchone()[0]
            consumers = [f"procedure {t.procedure[1]}" for t in catalog.triggers_on(relation)
                         if t.procedure] + [f"window {w.name}" for w in catalog.windows_on(
                             relation)] + [f"trigger {t.name}" for t in catalog.triggers_on(
                                 relation) if t.body]
            rows.append((relation.schema, relation.name, relation.stream.batch_column,
                         counters.last_batch, tuples, counters.skipped,
                         ", ".join(consumers) or None))
        return rows
