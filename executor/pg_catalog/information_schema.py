"""Rows of the SQL-standard information_schema views, from the catalog.

Like pg_catalog, these are tables refilled after every schema change (SQLite
views in one attached database cannot read another's tables).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from catalog import types as t
from catalog.schema import Catalog, Relation
from catalog.system import schema_owner
from executor.functions.catalog_info import sequence_type, view_definition

Row = tuple[Any, ...]
CATALOG_NAME = "postgres"
_CONSTRAINT_TYPES = {"p": "PRIMARY KEY", "u": "UNIQUE", "c": "CHECK", "f": "FOREIGN KEY"}
_TABLE_TYPES = {"r": "BASE TABLE", "v": "VIEW"}


def _yes(value: bool) -> str:
    return "YES" if value else "NO"


def _data_type(oid: int) -> str:
    pg_type = t.TYPES[oid]
    if pg_type.category == "A" and pg_type.element_oid:
        return "ARRAY"
    return pg_type.sql_name


def _column_rows(relation: Relation) -> Iterator[Row]:
    for position, column in enumerate(relation.columns, start=1):
        precision_scale = t.numeric_precision_scale(column.typmod) if (
            column.type_oid == t.NUMERIC) else None
        numeric_precision: int | None = {t.INT2: 16, t.INT4: 32, t.INT8: 64, t.FLOAT4: 24,
                                         t.FLOAT8: 53}.get(column.type_oid)
        numeric_scale: int | None = 0 if column.type_oid in (t.INT2, t.INT4, t.INT8) else None
        if precision_scale is not None:
            numeric_precision, numeric_scale = precision_scale
        datetime_precision = 6 if column.type_oid in (t.TIME, t.TIMESTAMP, t.TIMESTAMPTZ,
                                                      t.INTERVAL) else (
            0 if column.type_oid == t.DATE else None)
        yield (
            CATALOG_NAME, relation.schema, relation.name, column.name, position,
            column.default, _yes(not column.not_null), _data_type(column.type_oid),
            t.char_length(column.typmod) if column.type_oid in (t.VARCHAR, t.BPCHAR) else None,
            numeric_precision, numeric_scale, datetime_precision, CATALOG_NAME, "pg_catalog",
            t.TYPES[column.type_oid].name, "NO", "NEVER", _yes(relation.kind == "r"),
        )


def information_schema_rows(catalog: Catalog) -> Iterator[tuple[str, list[Row]]]:
    """(table name, rows) for every information_schema table."""
    relations = [r for r in catalog.relations.values() if r.kind in ("r", "v")]
    yield "schemata", [(CATALOG_NAME, name, schema_owner(name))
                       for name in catalog.schemas]
    yield "tables", [(CATALOG_NAME, r.schema, r.name, _TABLE_TYPES[r.kind],
                      _yes(r.kind == "r"), "NO") for r in relations]
    yield "columns", [row for r in relations for row in _column_rows(r)]
    yield "views", [(CATALOG_NAME, r.schema, r.name, view_definition(r), "NO")
                    for r in relations if r.kind == "v"]
    yield "table_constraints", [
        (CATALOG_NAME, r.schema, c.name, CATALOG_NAME, r.schema, r.name,
         _CONSTRAINT_TYPES[c.kind], "NO", "NO")
        for r in relations for c in r.constraints] + [
        # PostgreSQL lists each NOT NULL column as a CHECK constraint here.
        (CATALOG_NAME, r.schema,
         f"{catalog.schemas.get(r.schema, 0)}_{r.oid}_{number}_not_null", CATALOG_NAME,
         r.schema, r.name, "CHECK", "NO", "NO")
        for r in relations if r.kind == "r"
        for number, column in enumerate(r.columns, start=1) if column.not_null]
    yield "key_column_usage", [
        (CATALOG_NAME, r.schema, c.name, CATALOG_NAME, r.schema, r.name, column, position)
        for r in relations for c in r.constraints if c.kind in ("p", "u", "f")
        for position, column in enumerate(c.columns, start=1)]
    yield "sequences", [(CATALOG_NAME, s.schema, s.name,
                         t.TYPES[sequence_type(s, catalog)].sql_name, str(s.start),
                         str(s.increment)) for s in catalog.sequences.values()]
