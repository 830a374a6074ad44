"""SQLite functions behind streams: batch ids of inserted rows, and the batch
a stream's name denotes inside a transaction execution."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catalog import errors
from executor.core import Executor
from executor.streaming.scheduler import Scheduler


def stream_functions(executor: Executor, scheduler: Scheduler) -> dict[
        str, tuple[int, Callable[..., Any]]]:
    """name -> (argument count, implementation)."""

    def accept_batch(stream_oid: int, batch: Any) -> int:
        """BEFORE INSERT on a stream with a batch column: 1 stores the row,
        0 skips it (a re-delivered batch)."""
        scheduler.admit(stream_oid)
        relation = executor.context.catalog.relation_by_oid(stream_oid)
        name = relation.name if relation is not None else str(stream_oid)
        first_skip = executor.batches.skipped_batch(stream_oid) is None
        accepted = executor.batches.accept(stream_oid, name, None if batch is None
                                           else int(batch))
        if not accepted and first_skip:
            executor.context.notices.append(
                f'batch {batch} of stream "{name}" was already accepted: skipping it')
        return int(accepted)

    def batch_of(stream_oid: int) -> int:
        scheduler.admit(stream_oid)
        return executor.batches.batch_for(stream_oid)

    def current_batch(stream_oid: int) -> Any:
        batch = executor.bound_batches.get(stream_oid)
        if batch is None:
            raise errors.ObjectNotInPrerequisiteState("no batch is bound to this stream")
        return batch

    return {
        "sqlext_batch_of": (1, batch_of),
        "sqlext_accept_batch": (2, accept_batch),
        "sqlext_current_batch": (1, current_batch),
        "sqlext_drain": (-1, lambda timeout=None: int(scheduler.drain(
            None if timeout is None else float(timeout)))),
    }
