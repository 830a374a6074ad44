"""Functions behind streams: batch ids of inserted rows, the batch a
stream's name denotes inside a transaction execution, and sqlext_drain()."""

from __future__ import annotations

from typing import Any

from catalog import errors
from catalog.sqltypes import BOOL, FLOAT8
from executor.functions.declare import Declarations, Function, Runtime

FUNCTIONS = Declarations()


@FUNCTIONS.runtime("sqlext_drain", BOOL, FLOAT8, max_args=1, sqlite="sqlext_drain",
                   waits_for_dataflow=True)
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


@FUNCTIONS.internal("sqlext_current_batch", 1, runtime=True)
def _current_batch(runtime: Runtime) -> Function:
    """The batch a stream's name denotes in the running TE."""
    def current_batch(stream_oid: int) -> Any:
        batch = runtime.executor.bound_batches.get(stream_oid)
        if batch is None:
            raise errors.ObjectNotInPrerequisiteState("no batch is bound to this stream")
        return batch
    return current_batch
