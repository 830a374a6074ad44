"""Rows of the SQL-standard information_schema views, from the catalog.

Like pg_catalog, these are tables refilled after every schema change (SQLite
views in one attached database cannot read another's tables).
"""

from __future__ import annotations

from collections.abc import Iterator

from catalog import acl as acls
from catalog import types as t
from catalog.acl import PUBLIC_GRANTEE, AclItem
from catalog.introspection import sequence_type, shown_expression
from catalog.schema import Catalog, Relation
from executor.functions.view_text import in_public, view_definition
from executor.pg_catalog.rows import Row, RowsOfRelation, row

CATALOG_NAME = "postgres"
_CONSTRAINT_TYPES = {"p": "PRIMARY KEY", "u": "UNIQUE", "c": "CHECK", "f": "FOREIGN KEY"}
_TABLE_TYPES = {"r": "BASE TABLE", "v": "VIEW"}
PER_ROLE = frozenset({"table_privileges", "column_privileges"})
"""Views that show each role only the grants it is concerned by: made by
or to a role whose privileges it has, or to PUBLIC (``storage_name``)."""


def _yes(value: bool) -> str:
    return "YES" if value else "NO"


def _data_type(oid: int) -> str:
    pg_type = t.TYPES[oid]
    if pg_type.category == "A" and pg_type.element_oid:
        return "ARRAY"
    return pg_type.sql_name


def column_rows(relation: Relation) -> Iterator[Row]:
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
        yield row(
            "columns", table_catalog=CATALOG_NAME, table_schema=relation.schema,
            table_name=relation.name, column_name=column.name, ordinal_position=position,
            column_default=None if column.declared_default is None else
            shown_expression(column.declared_default, in_public),
            is_nullable=_yes(not column.not_null),
            data_type=_data_type(column.type_oid),
            character_maximum_length=t.char_length(column.typmod) if column.type_oid in (
                t.VARCHAR, t.BPCHAR) else None,
            numeric_precision=numeric_precision, numeric_scale=numeric_scale,
            datetime_precision=datetime_precision, udt_catalog=CATALOG_NAME,
            udt_schema="pg_catalog", udt_name=t.TYPES[column.type_oid].name,
            is_identity=_yes(bool(column.identity)),
            is_generated="NEVER", is_updatable=_yes(relation.kind == "r"),
        )


def information_schema_rows(catalog: Catalog, columns: RowsOfRelation
                            ) -> Iterator[tuple[str, list[Row]]]:
    """(table name, rows) for every information_schema table (``columns``:
    the rows of ``columns`` by relation)."""
    relations = [r for r in catalog.relations.values() if r.kind in ("r", "v")]
    yield "schemata", [
        row("schemata", catalog_name=CATALOG_NAME, schema_name=name,
            schema_owner=schema.owner)
        for name, schema in catalog.schemas.items()]
    yield "tables", [
        row("tables", table_catalog=CATALOG_NAME, table_schema=r.schema, table_name=r.name,
            table_type=_TABLE_TYPES[r.kind], is_insertable_into=_yes(r.kind == "r"),
            is_typed="NO")
        for r in relations]
    yield "columns", [column for r in relations for column in columns.of(r)]
    yield "views", [
        row("views", table_catalog=CATALOG_NAME, table_schema=r.schema, table_name=r.name,
            view_definition=view_definition(r, in_public), is_updatable="NO")
        for r in relations if r.kind == "v"]
    yield "table_constraints", [
        _table_constraint(r, c.name, _CONSTRAINT_TYPES[c.kind])
        for r in relations for c in r.constraints] + [
        # PostgreSQL lists each NOT NULL column as a CHECK constraint here.
        _table_constraint(
            r, f"{catalog.schemas[r.schema].oid}_{r.oid}_{number}_not_null", "CHECK")
        for r in relations if r.kind == "r"
        for number, column in enumerate(r.columns, start=1) if column.not_null]
    yield "key_column_usage", [
        row("key_column_usage", constraint_catalog=CATALOG_NAME, constraint_schema=r.schema,
            constraint_name=c.name, table_catalog=CATALOG_NAME, table_schema=r.schema,
            table_name=r.name, column_name=column, ordinal_position=position)
        for r in relations for c in r.constraints if c.kind in ("p", "u", "f")
        for position, column in enumerate(c.columns, start=1)]
    yield "sequences", [
        row("sequences", sequence_catalog=CATALOG_NAME, sequence_schema=s.schema,
            sequence_name=s.name, data_type=t.TYPES[sequence_type(s, catalog)].sql_name,
            start_value=str(s.start), increment=str(s.increment))
        for s in catalog.sequences.values()]
    granted = [r for r in catalog.user_relations() if r.kind in ("r", "v")]
    yield "table_privileges", [
        row("table_privileges", **_grant(item, letter, r, catalog),
            with_hierarchy=_yes(letter == "r"))
        for r in granted for item in acls.effective(r.acl, "relation", r.owner)
        for letter in item.privileges]
    yield "column_privileges", [
        row("column_privileges", **_grant(item, letter, r, catalog), column_name=column)
        for r in granted for item, letter, column in _column_grants(r)]


def storage_name(name: str) -> str:
    """The SQLite table an information_schema table's rows are kept in
    (the views of ``PER_ROLE`` read theirs from another)."""
    return f"all_{name}" if name in PER_ROLE else name


def _column_grants(relation: Relation) -> list[tuple[AclItem, str, str]]:
    """Who may use each column how: the relation's column privileges apply
    to every column, a column's own to it (once each, as PostgreSQL's
    UNION gives them)."""
    found: dict[tuple[str, str, str, str, bool], tuple[AclItem, str, str]] = {}
    for column in relation.columns:
        for item in (*acls.effective(relation.acl, "relation", relation.owner), *column.acl):
            for letter in item.privileges:
                if letter in acls.ALL_PRIVILEGES["column"]:
                    key = (item.grantor, item.grantee, column.name, letter, letter in item.options)
                    found.setdefault(key, (item, letter, column.name))
    return list(found.values())


def _grant(item: AclItem, letter: str, relation: Relation, catalog: Catalog) -> dict[str, object]:
    """The columns of a privilege row (table_privileges, column_privileges)."""
    public = item.grantee == PUBLIC_GRANTEE
    grantable = letter in item.options or (
        not public and catalog.has_privileges_of(item.grantee, relation.owner))
    return {"grantor": item.grantor, "grantee": "PUBLIC" if public else item.grantee,
            "table_catalog": CATALOG_NAME, "table_schema": relation.schema,
            "table_name": relation.name, "privilege_type": acls.PRIVILEGE_NAMES[letter],
            "is_grantable": _yes(grantable)}


def _table_constraint(relation: Relation, name: str, kind: str) -> Row:
    return row("table_constraints", constraint_catalog=CATALOG_NAME,
               constraint_schema=relation.schema, constraint_name=name,
               table_catalog=CATALOG_NAME, table_schema=relation.schema,
               table_name=relation.name, constraint_type=kind, is_deferrable="NO",
               initially_deferred="NO")
