"""nextval(), currval() and setval(): sequences are the executor's
(``executor.core``), so that their positions are logged and replayed."""

from __future__ import annotations

from typing import Any

from catalog.sqltypes import BOOL, INT8, TEXT
from executor.functions.declare import Declarations, Function, Runtime

FUNCTIONS = Declarations()


@FUNCTIONS.runtime("nextval", INT8, TEXT, min_args=1, max_args=1, changes_engine=True)
def _nextval(runtime: Runtime) -> Function:
    return lambda name: runtime.executor.nextval(str(name), runtime.context())


@FUNCTIONS.runtime("currval", INT8, TEXT, min_args=1, max_args=1)
def _currval(runtime: Runtime) -> Function:
    return lambda name: runtime.executor.currval(str(name), runtime.context())


@FUNCTIONS.runtime("setval", INT8, TEXT, INT8, BOOL, min_args=2, max_args=3,
                   changes_engine=True)
def _setval(runtime: Runtime) -> Function:
    def setval(name: Any, value: Any, called: Any = 1) -> Any:
        return runtime.executor.setval(str(name), int(value), bool(called), runtime.context())
    return setval


@FUNCTIONS.internal("sqlext_sequence_last_value", 2, runtime=True)
def _last_value(runtime: Runtime) -> Function:
    """A sequence read as a relation: the value nextval() gave last (its
    start before the first call)."""
    def last_value(schema: str, name: str) -> int:
        position = runtime.executor.sequences.get((schema, name))
        if position is not None:
            return position
        return runtime.context().catalog.sequences[(schema, name)].start
    return last_value


@FUNCTIONS.internal("sqlext_sequence_is_called", 2, runtime=True)
def _is_called(runtime: Runtime) -> Function:
    """Whether nextval() (or setval) has moved the sequence."""
    return lambda schema, name: int(runtime.executor.sequences.get((schema, name)) is not None)
