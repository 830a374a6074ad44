"""Functions behind streams: batch ids of inserted rows and sqlext_drain()
(the batch a stream's name denotes inside a transaction execution is a bound
parameter: ``executor.plans.Slot``)."""

from __future__ import annotations

from typing import Any

from catalog.sqltypes import BOOL, FLOAT8
from executor.functions.declare import Declarations, Function, Runtime

FUNCTIONS = Declarations()


@FUNCTIONS.runtime("sqlext_drain", BOOL, FLOAT8, max_args=1, sqlite="sqlext_drain",
                   waits_for_dataflow=True, changes_engine=True)
def _drain(runtime: Runtime) -> Function:
    """Returns once every batch committed before the call has passed through
    the dataflow (57014 after ``timeout`` seconds)."""
    def drain(timeout: Any = None) -> int:
        return int(runtime.scheduler.drain(None if timeout is None else float(timeout)))
    return drain


@FUNCTIONS.internal("sqlext_accept_batch", 2, runtime=True)
def _accept_batch(runtime: Runtime) -> Function:
    """BEFORE INSERT on a stream with a batch column: 1 stores the row, 0
    skips it (a re-delivered batch)."""
    executor = runtime.executor

    def accept_batch(stream_oid: int, batch: Any) -> int:
        runtime.scheduler.admit(stream_oid)
        relation = executor.context.catalog.relation_by_oid(stream_oid)
        name = relation.name if relation is not None else str(stream_oid)
        first_skip = executor.batches.skipped_batch(stream_oid) is None
        accepted = executor.batches.accept(stream_oid, name, None if batch is None
                                           else int(batch))
        if not accepted and first_skip:
            executor.context.notices.append(
                f'batch {batch} of stream "{name}" was already accepted: skipping it')
        return int(accepted)
    return accept_batch


@FUNCTIONS.internal("sqlext_batch_of", 1, runtime=True)
def _batch_of(runtime: Runtime) -> Function:
    """The batch id of the row being inserted into a stream."""
    def batch_of(stream_oid: int) -> int:
        runtime.scheduler.admit(stream_oid)
        return runtime.executor.batches.batch_for(stream_oid)
    return batch_of
