"""The functions behind the extension sqlext's configuration table
``sqlext.dataflow`` (``executor.ddl.create_extension``), and pg_get_triggerdef: the
dataflow's objects written as the statements that make them."""

from __future__ import annotations

import json
from typing import Any

from catalog.sqltypes import BOOL, OID, TEXT
from executor.functions.declare import Declarations, Function, Runtime

FUNCTIONS = Declarations()


@FUNCTIONS.internal("sqlext_dataflow_rows", 0, runtime=True)
def _dataflow_rows(runtime: Runtime) -> Function:
    """The rows of ``sqlext.dataflow`` as a JSON array of [position, statement]."""
    return lambda: json.dumps(runtime.dataflow_text.definitions(runtime.context().catalog))


@FUNCTIONS.internal("sqlext_dataflow_insert", 2, runtime=True)
def _dataflow_insert(runtime: Runtime) -> Function:
    """A row inserted into ``sqlext.dataflow``: its statement runs when the
    INSERT or COPY is done (``StatementContext.definitions``)."""
    def insert(position: Any, statement: Any) -> None:
        runtime.context().definitions.append(
            (0 if position is None else int(position), "" if statement is None else statement))
    return insert


@FUNCTIONS.runtime("pg_get_triggerdef", TEXT, OID, BOOL, min_args=1, max_args=2,
                   sqlite="sqlext_get_triggerdef", sqlite_args=-1)
def _get_triggerdef(runtime: Runtime) -> Function:
    def get_triggerdef(oid: Any, *_: Any) -> str | None:
        catalog = runtime.context().catalog
        trigger = next((t for t in catalog.triggers.values() if t.oid == oid), None)
        return None if trigger is None else runtime.dataflow_text.trigger(catalog, trigger)
    return get_triggerdef
