"""Functions behind streams: batch ids of inserted rows, sqlext_drain()
and the readers' holds (the batch a stream's name denotes inside a
transaction execution is a bound parameter: ``executor.plans.Slot``)."""

from __future__ import annotations

from typing import Any

from catalog import errors
from catalog import types as t
from catalog.schema import Relation
from catalog.sqltypes import BOOL, FLOAT8, INT8, TEXT
from executor.functions.catalog_info import reg_input
from executor.functions.declare import Declarations, Function, Runtime
from executor.streaming import retention

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


@FUNCTIONS.runtime("sqlext_hold_stream", INT8, TEXT, TEXT, INT8, min_args=3, max_args=3,
                   sqlite="sqlext_hold_stream", changes_state=True)
def _hold_stream(runtime: Runtime) -> Function:
    """Registers (or moves) a reader of a stream that has read every batch
    up to ``after_batch``: the stream keeps the later ones for it. Returns
    the oldest batch the stream holds for the reader (NULL: none yet)."""
    def hold_stream(stream: Any, reader: Any, after_batch: Any) -> int | None:
        if after_batch is None:
            raise errors.NullValueNotAllowed("after_batch must not be null")
        return retention.hold(runtime.executor, runtime.scheduler, _stream(runtime, stream),
                              _reader(reader), int(after_batch))
    return hold_stream


@FUNCTIONS.runtime("sqlext_release_stream", BOOL, TEXT, TEXT, min_args=2, max_args=2,
                   sqlite="sqlext_release_stream", changes_state=True)
def _release_stream(runtime: Runtime) -> Function:
    """Drops a reader's hold on a stream: false if it held none."""
    def release_stream(stream: Any, reader: Any) -> int:
        return int(retention.release(runtime.executor, runtime.scheduler,
                                     _stream(runtime, stream), _reader(reader)))
    return release_stream


def _stream(runtime: Runtime, name: Any) -> Relation:
    """The stream a name (as regclass reads it) denotes, which the running
    role may read (42501 otherwise)."""
    if name is None:
        raise errors.NullValueNotAllowed("stream must not be null")
    context = runtime.context()
    catalog = context.catalog
    relation = catalog.relation_by_oid(int(reg_input(catalog, context.search_path,
                                                     context.database, str(name), t.REGCLASS)))
    if relation is None or relation.stream is None:
        raise errors.WrongObjectType(f'"{name}" is not a stream')
    if not catalog.is_superuser(context.user):
        catalog.require_schema(context.user, relation.schema)
        catalog.require_access(context.user, relation, "r", {})
    return relation


def _reader(name: Any) -> str:
    if name is None or not str(name):
        raise errors.InvalidParameterValue("a stream reader needs a name")
    return str(name)
