"""sqlext_export_snapshot() and sqlext_release_snapshot(): the held images
that partitions of one read share (``sqlext.session.exported_snapshots``)."""

from __future__ import annotations

from typing import Any, Final

from catalog.sqltypes import BOOL, FLOAT8, TEXT
from executor.functions.declare import Declarations, Function, Overload, Runtime

FUNCTIONS = Declarations()

EXPORT: Final = "sqlext_export_snapshot"
DEFAULT_IDLE_TIMEOUT_S: Final = 300.0


@FUNCTIONS.overloaded(EXPORT, Overload((FLOAT8,), TEXT, ("idle_timeout_s",),
                                      (DEFAULT_IDLE_TIMEOUT_S,)),
                      runtime=True, sqlite=EXPORT, waits_for_dataflow=True,
                      changes_engine=True)
def _export(runtime: Runtime) -> Function:
    """The id of a snapshot of everything committed when the query began,
    kept until released or unused for ``idle_timeout_s`` seconds."""
    def export(idle_timeout_s: Any) -> str | None:
        return None if idle_timeout_s is None else runtime.snapshots.publish(idle_timeout_s)
    return export


@FUNCTIONS.runtime("sqlext_release_snapshot", BOOL, TEXT, min_args=1, max_args=1,
                   sqlite="sqlext_release_snapshot", changes_engine=True)
def _release(runtime: Runtime) -> Function:
    def release(snapshot_id: Any) -> int | None:
        if snapshot_id is None:
            return None
        runtime.snapshots.release(str(snapshot_id))
        return 1
    return release
