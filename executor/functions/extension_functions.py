"""The functions behind the extension sqlext's configuration table
``sqlext.dataflow`` (``executor.ddl.create_extension``), and pg_get_triggerdef: the
dataflow's objects written as the statements that make them."""

from __future__ import annotations

import json
from typing import Any

from catalog import types as t
from catalog.extension import EXTENSION_NAME
from catalog.schema import RELKIND_NAMES
from catalog.sqltypes import BOOL, INT4, OID, TEXT
from catalog.system import KNOWN_OIDS
from executor.context import StatementContext
from executor.functions.catalog_info import relation_name
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


def _relation_name(context: StatementContext, oid: int) -> str | None:
    """``kind name`` of a pg_class row (the name as ``relation_name`` gives it)."""
    catalog = context.catalog
    name = relation_name(catalog, oid, context.search_path)
    if name is None:
        return None
    relation = catalog.relation_by_oid(oid)
    return f"{RELKIND_NAMES[relation.kind if relation is not None else 'S']} {name}"


def _description(context: StatementContext, class_oid: int, oid: int, column: int
                 ) -> str | None:
    catalog = context.catalog
    if class_oid == KNOWN_OIDS["pg_class"]:
        relation = _relation_name(context, oid)
        found = catalog.relation_by_oid(oid)
        if relation is None or not column:
            return relation
        if found is None or not 0 < column <= len(found.columns):
            return None
        return f"column {found.columns[column - 1].name} of {relation}"
    if class_oid == KNOWN_OIDS["pg_namespace"]:
        return next((f"schema {name}" for name, s in catalog.schemas.items() if s.oid == oid),
                    None)
    if class_oid == KNOWN_OIDS["pg_extension"]:
        extension = catalog.extension
        return f"extension {EXTENSION_NAME}" if extension and extension.oid == oid else None
    if class_oid == KNOWN_OIDS["pg_proc"]:
        procedure = next((p for p in catalog.procedures.values() if p.oid == oid), None)
        if procedure is None:
            return None
        visible = catalog.find_procedure(procedure.name, None, context.search_path)
        name = procedure.name if visible is procedure else (
            f"{procedure.schema}.{procedure.name}")
        types = ",".join(t.format_type(p.type_oid, p.typmod) for p in procedure.params)
        return f"function {name}({types})"
    if class_oid == KNOWN_OIDS["pg_trigger"]:
        trigger = next((x for x in catalog.triggers.values() if x.oid == oid), None)
        target = catalog.relations.get(trigger.target) if trigger is not None else None
        if trigger is None or target is None:
            return None
        return f"trigger {trigger.name} on {_relation_name(context, target.oid)}"
    return None


@FUNCTIONS.runtime("pg_describe_object", TEXT, OID, OID, INT4, min_args=3, max_args=3)
def _describe_object(runtime: Runtime) -> Function:
    """An object as messages and psql name it: "table t", "column a of table
    t", "function p(integer)", "trigger go on table s" (NULL for none)."""
    def describe_object(class_oid: Any, oid: Any, column: Any) -> str | None:
        if class_oid is None or oid is None or column is None:
            return None
        return _description(runtime.context(), int(class_oid), int(oid), int(column))
    return describe_object
