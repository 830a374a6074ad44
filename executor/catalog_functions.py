"""PostgreSQL's catalog information functions (format_type, pg_get_expr,
pg_table_is_visible, pg_get_indexdef...), as SQLite functions.

psql's backslash commands and pgjdbc's DatabaseMetaData call these from
ordinary catalog queries; they answer from the catalog of the running
statement (``executor.context``), so they see the session's own uncommitted
schema changes like every other statement does.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from catalog import types as t
from catalog.schema import (
    BOOTSTRAP_SUPERUSER_OID,
    Catalog,
    Constraint,
    Relation,
)
from executor.context import StatementContext

ENCODINGS = {6: "UTF8", 0: "SQL_ASCII"}
_STARTED = datetime.now(UTC)


def _oid(value: Any) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _constraint(catalog: Catalog, oid: int) -> tuple[Relation, Constraint] | None:
    for relation in catalog.relations.values():
        for constraint in relation.constraints:
            if constraint.oid == oid:
                return relation, constraint
    return None


def _quote(name: str) -> str:
    return name if name.isidentifier() and name == name.lower() else '"' + name.replace(
        '"', '""') + '"'


def constraint_definition(catalog: Catalog, relation: Relation,
                          constraint: Constraint) -> str:
    """What pg_get_constraintdef prints for a constraint."""
    columns = ", ".join(_quote(c) for c in constraint.columns)
    if constraint.kind == "p":
        return f"PRIMARY KEY ({columns})"
    if constraint.kind == "u":
        return f"UNIQUE ({columns})"
    if constraint.kind == "c":
        return f"CHECK (({constraint.check}))"
    assert constraint.ref_table is not None
    schema, name = constraint.ref_table
    target = name if schema in ("public", relation.schema) else f"{schema}.{name}"
    referenced = ", ".join(_quote(c) for c in constraint.ref_columns)
    actions = "".join(f" ON {event} {action}" for event, action in (
        ("UPDATE", constraint.on_update), ("DELETE", constraint.on_delete)) if action)
    return f"FOREIGN KEY ({columns}) REFERENCES {_quote(target)}({referenced}){actions}"


def table_is_visible(context: StatementContext, oid: Any) -> int:
    relation = context.catalog.relation_by_oid(_oid(oid) or 0)
    if relation is None:
        return 0
    found = context.catalog.find_relation(relation.name, None, context.search_path)
    return int(found is relation)


def catalog_functions(context: Callable[[], StatementContext]) -> dict[
        str, tuple[int, Callable[..., Any]]]:
    """name -> (argument count or -1, implementation)."""

    def format_type(oid: Any, typmod: Any) -> Any:
        if oid is None:
            return None
        return t.format_type(int(oid), -1 if typmod is None else int(typmod))

    def get_userbyid(oid: Any) -> Any:
        if oid is None:
            return None
        return "postgres" if int(oid) == BOOTSTRAP_SUPERUSER_OID else f"unknown (OID={oid})"

    def get_indexdef(oid: Any, *_: Any) -> Any:
        relation = context().catalog.relation_by_oid(_oid(oid) or 0)
        return relation.definition if relation is not None and relation.kind == "i" else None

    def get_constraintdef(oid: Any, *_: Any) -> Any:
        found = _constraint(context().catalog, _oid(oid) or 0)
        return constraint_definition(context().catalog, *found) if found else None

    def get_viewdef(view: Any, *_: Any) -> Any:
        catalog = context().catalog
        oid = _oid(view)
        relation = (catalog.relation_by_oid(oid) if oid is not None
                    else catalog.find_relation(str(view), None, context().search_path))
        return f" {relation.definition};" if relation is not None and relation.definition \
            else None

    def get_serial_sequence(table: Any, column: Any) -> Any:
        catalog = context().catalog
        schema, _, name = str(table).rpartition(".")
        relation = catalog.find_relation(name.strip('"'), schema.strip('"') or None,
                                         context().search_path)
        if relation is None:
            return None
        for sequence in catalog.sequences.values():
            if sequence.owned_by == (relation.name, str(column)) and (
                sequence.schema == relation.schema
            ):
                return f"{sequence.schema}.{sequence.name}"
        return None

    def yes(*_: Any) -> int:
        return 1

    def no(*_: Any) -> int:
        return 0

    def nothing(*_: Any) -> None:
        return None

    return {
        "sqlext_format_type": (2, format_type),
        "sqlext_pg_get_expr": (-1, lambda expression, *_: expression),
        "sqlext_table_is_visible": (1, lambda oid: table_is_visible(context(), oid)),
        "sqlext_get_userbyid": (1, get_userbyid),
        "sqlext_encoding_to_char": (1, lambda code: ENCODINGS.get(_oid(code) or 0, "")),
        "sqlext_get_indexdef": (-1, get_indexdef),
        "sqlext_get_constraintdef": (-1, get_constraintdef),
        "sqlext_get_viewdef": (-1, get_viewdef),
        "sqlext_get_serial_sequence": (2, get_serial_sequence),
        "sqlext_yes": (-1, yes),
        "sqlext_no": (-1, no),
        "sqlext_nothing": (-1, nothing),
        "sqlext_zero": (-1, lambda *_: 0),
        "sqlext_same": (1, lambda value: value),
        "sqlext_size_pretty": (1, lambda size: None if size is None else f"{int(size)} bytes"),
        "sqlext_postmaster_start_time": (0, lambda: _STARTED.strftime(
            "%Y-%m-%d %H:%M:%S.%f")),
    }
