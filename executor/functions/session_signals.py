"""pg_cancel_backend() and pg_terminate_backend(): the sessions they signal
belong to the layer above (``declare.SessionSignals``)."""

from __future__ import annotations

from typing import Any

from catalog import errors
from catalog.sqltypes import BOOL, INT4, INT8
from executor.functions.declare import Declarations, Function, Runtime

FUNCTIONS = Declarations()


@FUNCTIONS.runtime("pg_cancel_backend", BOOL, INT4, min_args=1, max_args=1,
                   sqlite="sqlext_cancel_backend", session_control=True,
                   changes_engine=True)
def _cancel(runtime: Runtime) -> Function:
    def cancel(process_id: Any) -> int | None:
        return None if process_id is None else int(runtime.sessions.cancel(int(process_id)))
    return cancel


@FUNCTIONS.runtime("pg_terminate_backend", BOOL, INT4, INT8, min_args=1, max_args=2,
                   sqlite="sqlext_terminate_backend", session_control=True,
                   changes_engine=True)
def _terminate(runtime: Runtime) -> Function:
    def terminate(process_id: Any, timeout_ms: Any = 0) -> int | None:
        if process_id is None or timeout_ms is None:
            return None
        if int(timeout_ms) < 0:
            raise errors.NumericValueOutOfRange('"timeout" must not be negative')
        # The session ends as soon as the running statement returns, so
        # there is nothing to wait for.
        return int(runtime.sessions.terminate(int(process_id)))
    return terminate
