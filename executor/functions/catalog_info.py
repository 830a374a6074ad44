"""PostgreSQL's catalog information functions (format_type, pg_get_expr,
pg_table_is_visible, pg_get_indexdef...), as SQLite functions.

psql's backslash commands and pgjdbc's DatabaseMetaData call these from
ordinary catalog queries; they answer from the catalog of the running
statement (``executor.context``), so they see the session's own uncommitted
schema changes like every other statement does. What they derive from the
catalog (index keys, sequence types, view text) is shared with the
pg_catalog rows (``executor.pg_catalog.tables``), so both always agree.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from catalog import types as t
from catalog.schema import PG_CATALOG, Catalog, Constraint, Relation, Sequence
from catalog.system import DESCRIPTIONS, KNOWN_OIDS
from executor.context import StatementContext

ENCODINGS = {6: "UTF8", 0: "SQL_ASCII"}
_STARTED = datetime.now(UTC)
_INDEX_KEYS = " USING btree ("


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


def _constraint_definition(relation: Relation, constraint: Constraint, pretty: bool) -> str:
    """What pg_get_constraintdef prints for a constraint."""
    columns = ", ".join(_quote(c) for c in constraint.columns)
    if constraint.kind == "p":
        return f"PRIMARY KEY ({columns})"
    if constraint.kind == "u":
        return f"UNIQUE ({columns})"
    if constraint.kind == "c":
        # PostgreSQL parenthesises the expression unless asked for pretty output.
        return f"CHECK ({constraint.check})" if pretty else f"CHECK (({constraint.check}))"
    assert constraint.ref_table is not None
    schema, name = constraint.ref_table
    target = name if schema in ("public", relation.schema) else f"{schema}.{name}"
    referenced = ", ".join(_quote(c) for c in constraint.ref_columns)
    actions = "".join(f" ON {event} {action}" for event, action in (
        ("UPDATE", constraint.on_update), ("DELETE", constraint.on_delete)) if action)
    return f"FOREIGN KEY ({columns}) REFERENCES {_quote(target)}({referenced}){actions}"


def view_definition(view: Relation) -> str | None:
    """A view's query as pg_get_viewdef and pg_views show it."""
    return f" {view.definition};" if view.kind in ("v", "m") and view.definition else None


def index_keys(index: Relation) -> list[tuple[str, bool]]:
    """An index's key columns as its definition spells them (quoted where
    needed), each with whether it is descending."""
    definition = index.definition or ""
    _, found, keys = definition.partition(_INDEX_KEYS)
    if not found:
        return [(_quote(column), False) for column in index.index_columns]
    parts: list[str] = []
    current, quoted = "", False
    for character in keys.removesuffix(")"):
        if character == '"':
            quoted = not quoted
        if character == "," and not quoted:
            parts.append(current.strip())
            current = ""
        else:
            current += character
    parts.append(current.strip())
    return [(part.removesuffix(" DESC"), part.endswith(" DESC")) for part in parts]


SEQUENCE_MAX = {t.INT2: 2**15 - 1, t.INT4: 2**31 - 1, t.INT8: 2**63 - 1}


def owner_column(sequence: Sequence, catalog: Catalog) -> tuple[Relation, int] | None:
    """The table and column number a serial column's sequence belongs to."""
    if sequence.owned_by is None:
        return None
    table = catalog.find_relation(sequence.owned_by[0], sequence.schema)
    if table is None:
        return None
    return table, table.column_number(sequence.owned_by[1])


def sequence_type(sequence: Sequence, catalog: Catalog) -> int:
    """A serial column's sequence has the column's type; others are bigint."""
    owner = owner_column(sequence, catalog)
    if owner is None or not owner[1]:
        return t.INT8
    table, number = owner
    type_oid = table.columns[number - 1].type_oid
    return type_oid if type_oid in SEQUENCE_MAX else t.INT8


def _class_entry(catalog: Catalog, oid: int) -> tuple[str, str] | None:
    """(schema, name) of a pg_class row: a relation or a sequence."""
    relation = catalog.relation_by_oid(oid)
    if relation is not None:
        return relation.schema, relation.name
    for sequence in catalog.sequences.values():
        if sequence.oid == oid:
            return sequence.schema, sequence.name
    return None


def _table_is_visible(context: StatementContext, oid: Any) -> int:
    """Whether the unqualified name finds this relation: tables, views,
    indexes and sequences share one namespace per schema."""
    catalog = context.catalog
    entry = _class_entry(catalog, _oid(oid) or 0)
    if entry is None:
        return 0
    schema, name = entry
    for candidate in (PG_CATALOG, *context.search_path):
        if (candidate, name) in catalog.relations or (candidate, name) in catalog.sequences:
            return int(candidate == schema)
    return 0


def _index_definition(context: StatementContext, oid: Any, column: Any = 0,
                      pretty: Any = 0) -> str | None:
    """pg_get_indexdef: the whole CREATE INDEX, or one key column's text."""
    index = context.catalog.relation_by_oid(_oid(oid) or 0)
    if index is None or index.kind != "i" or index.definition is None:
        return None
    number = _oid(column) or 0
    if number:
        keys = index_keys(index)
        return keys[number - 1][0] if number <= len(keys) else None
    table = context.catalog.find_relation(index.index_table or "", index.schema)
    if pretty and table is not None and _table_is_visible(context, table.oid):
        # pretty output qualifies the table only where the search path would not find it
        return index.definition.replace(f" ON {index.schema}.", " ON ", 1)
    return index.definition


def _description(oid: Any, catalog_name: Any, subid: int = 0) -> str | None:
    """obj_description / col_description / shobj_description."""
    object_oid = _oid(oid)
    class_oid = KNOWN_OIDS.get(str(catalog_name).removeprefix("pg_catalog."))
    if object_oid is None or class_oid is None:
        return None
    return DESCRIPTIONS.get((object_oid, class_oid, subid))


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
        return context().catalog.role_name(int(oid)) or f"unknown (OID={oid})"

    def get_constraintdef(oid: Any, pretty: Any = 0) -> Any:
        found = _constraint(context().catalog, _oid(oid) or 0)
        return _constraint_definition(*found, bool(pretty)) if found else None

    def get_viewdef(view: Any, *_: Any) -> Any:
        catalog = context().catalog
        oid = _oid(view)
        relation = (catalog.relation_by_oid(oid) if oid is not None
                    else catalog.find_relation(str(view), None, context().search_path))
        return view_definition(relation) if relation is not None else None

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

    def encoding_number(name: Any) -> int:
        return next((code for code, known in ENCODINGS.items() if known == name), -1)

    def function_arguments(oid: Any, *_: Any) -> Any:
        """pg_get_function_arguments for procedures: "name type[, ...]"."""
        procedure = next((p for p in context().catalog.procedures.values()
                          if p.oid == _oid(oid)), None)
        if procedure is None:
            return None
        return ", ".join(" ".join(part for part in (p.name, t.format_type(p.type_oid, p.typmod),
                                                    f"DEFAULT {p.default}" if p.default
                                                    else "") if part)
                         for p in procedure.params)

    def yes(*_: Any) -> int:
        return 1

    def no(*_: Any) -> int:
        return 0

    def nothing(*_: Any) -> None:
        return None

    return {
        "sqlext_format_type": (2, format_type),
        "sqlext_pg_get_expr": (-1, lambda expression, *_: expression),
        "sqlext_table_is_visible": (1, lambda oid: _table_is_visible(context(), oid)),
        "sqlext_get_userbyid": (1, get_userbyid),
        "sqlext_encoding_to_char": (1, lambda code: ENCODINGS.get(_oid(code) or 0, "")),
        "sqlext_char_to_encoding": (1, encoding_number),
        "sqlext_get_indexdef": (-1, lambda *args: _index_definition(context(), *args)),
        "sqlext_get_constraintdef": (-1, get_constraintdef),
        "sqlext_get_viewdef": (-1, get_viewdef),
        "sqlext_get_serial_sequence": (2, get_serial_sequence),
        "sqlext_obj_description": (-1, _description),
        "sqlext_col_description": (2, lambda table, column: _description(
            table, "pg_class", _oid(column) or 0)),
        "sqlext_settings": (0, lambda: json.dumps(dict(context().settings))),
        "sqlext_function_arguments": (-1, function_arguments),
        "sqlext_yes": (-1, yes),
        "sqlext_no": (-1, no),
        "sqlext_nothing": (-1, nothing),
        "sqlext_zero": (-1, lambda *_: 0),
        "sqlext_empty": (-1, lambda *_: ""),
        "sqlext_same": (1, lambda value: value),
        "sqlext_size_pretty": (1, lambda size: None if size is None else f"{int(size)} bytes"),
        "sqlext_postmaster_start_time": (0, lambda: _STARTED.strftime(
            "%Y-%m-%d %H:%M:%S.%f")),
    }
