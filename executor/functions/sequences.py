"""nextval(), currval() and setval(): sequences are the executor's
(``executor.core``), so that their positions are logged and replayed."""

from __future__ import annotations

from typing import Any

from catalog.sqltypes import BOOL, INT8, TEXT
from executor.functions.declare import Declarations, Function, Runtime

FUNCTIONS = Declarations()


@FUNCTIONS.runtime("nextval", INT8, TEXT, min_args=1, max_args=1)
def _nextval(runtime: Runtime) -> Function:
    return lambda name: runtime.executor.nextval(str(name), runtime.context())


@FUNCTIONS.runtime("currval", INT8, TEXT, min_args=1, max_args=1)
def _currval(runtime: Runtime) -> Function:
    return lambda name: runtime.executor.currval(str(name), runtime.context())


@FUNCTIONS.runtime("setval", INT8, TEXT, INT8, BOOL, min_args=2, max_args=3)
def _setval(runtime: Runtime) -> Function:
    def setval(name: Any, value: Any, called: Any = 1) -> Any:
        return runtime.executor.setval(str(name), int(value), bool(called), runtime.context())
    return setval
