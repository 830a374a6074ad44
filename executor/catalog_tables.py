"""pg_catalog as data: the system tables, refilled from the catalog after
every schema change, inside the transaction that made it.

Clients' catalog queries (psql's \\d family, pgjdbc's DatabaseMetaData)
then run as ordinary SQL against these tables.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from catalog import types as t
from catalog.schema import (
    BOOTSTRAP_SUPERUSER_OID,
    INFORMATION_SCHEMA,
    PG_CATALOG,
    Catalog,
    Relation,
)
from catalog.system import INFORMATION_SCHEMA_TABLES, SYSTEM_TABLES
from executor.information_schema import information_schema_rows
from storage.engine import Database

Row = tuple[Any, ...]

HEAP_AM = 2
BTREE_AM = 403
DATABASE_OID = 16384 - 1
DEFAULT_COLLATION = 100


class _Config(Protocol):
    pass


def _create_statement(schema: str, name: str, spec: str) -> str:
    columns = []
    for part in spec.split(","):
        column, type_name = part.split()
        columns.append(f'"{column}" {t.BY_NAME[type_name].storage}')
    return f'CREATE TABLE {schema}."{name}" ({", ".join(columns)})'


class CatalogTables:
    """Creates and fills the pg_catalog tables."""

    def __init__(self, config: object) -> None:
        self.config = config
        self._static_done = False

    def create(self, database: Database) -> None:
        for schema, tables in ((PG_CATALOG, SYSTEM_TABLES),
                               (INFORMATION_SCHEMA, INFORMATION_SCHEMA_TABLES)):
            for name, spec in tables.items():
                database.execute(_create_statement(schema, name, spec))

    def refresh(self, database: Database, catalog: Catalog) -> None:
        if not self._static_done:
            self._fill_static(database)
            self._static_done = True
        for schema, rows_by_table in (
            (PG_CATALOG, self._dynamic_rows(catalog)),
            (INFORMATION_SCHEMA, information_schema_rows(catalog)),
        ):
            for name, rows in rows_by_table:
                database.execute(f'DELETE FROM {schema}."{name}"')
                if rows:
                    marks = ", ".join("?" * len(rows[0]))
                    database.executemany(f'INSERT INTO {schema}."{name}" VALUES ({marks})',
                                         rows)

    # --- rows ------------------------------------------------------------------------

    def _fill_static(self, database: Database) -> None:
        def insert(name: str, rows: list[Row]) -> None:
            if rows:
                marks = ", ".join("?" * len(rows[0]))
                database.executemany(f'INSERT INTO {PG_CATALOG}."{name}" VALUES ({marks})',
                                     rows)

        insert("pg_type", [_type_row(pg_type) for pg_type in t.TYPES.values()])
        insert("pg_am", [(HEAP_AM, "heap", 0, "t"), (BTREE_AM, "btree", 0, "i")])
        insert("pg_database", [(
            DATABASE_OID, "postgres", BOOTSTRAP_SUPERUSER_OID, 6, "c", 0, 1, -1, 0, 0, 1663,
            "C.UTF-8", "C.UTF-8", None, None, None)])
        insert("pg_roles", [(BOOTSTRAP_SUPERUSER_OID, "postgres", 1, 1, 1, 1, 1, 1, -1,
                             "********", None, 1, None)])
        insert("pg_authid", [(BOOTSTRAP_SUPERUSER_OID, "postgres", 1, 1, 1, 1, 1, 1, 1, -1,
                              None, None)])
        insert("pg_user", [("postgres", BOOTSTRAP_SUPERUSER_OID, 1, 1, 1, 1, "********",
                            None, None)])
        insert("pg_collation", [(DEFAULT_COLLATION, "default", 11, BOOTSTRAP_SUPERUSER_OID,
                                 "d", 1, -1, None, None)])
        insert("pg_tablespace", [(1663, "pg_default", BOOTSTRAP_SUPERUSER_OID, None, None)])

    def _dynamic_rows(self, catalog: Catalog) -> Iterator[tuple[str, list[Row]]]:
        relations = list(catalog.relations.values())
        yield "pg_namespace", [(oid, name, BOOTSTRAP_SUPERUSER_OID, None)
                               for name, oid in catalog.schemas.items()]
        yield "pg_class", [_class_row(r, catalog) for r in relations] + [
            _sequence_class_row(s.oid, s.name, catalog.schemas[s.schema])
            for s in catalog.sequences.values()]
        yield "pg_attribute", [row for r in relations if r.kind in ("r", "v")
                               for row in _attribute_rows(r)]
        yield "pg_attrdef", [
            (r.oid * 1000 + number, r.oid, number, column.default)
            for r in relations for number, column in enumerate(r.columns, start=1)
            if column.default is not None]
        yield "pg_index", [_index_row(index, catalog) for index in relations
                           if index.kind == "i"]
        yield "pg_constraint", [
            _constraint_row(r, c, catalog) for r in relations for c in r.constraints]
        yield "pg_tables", [
            (r.schema, r.name, r.owner, None, any(True for _ in catalog.indexes_of(r)), False,
             False, False)
            for r in relations if r.kind == "r" and r.schema != INFORMATION_SCHEMA]
        yield "pg_views", [(r.schema, r.name, r.owner, r.definition)
                           for r in relations if r.kind == "v"]
        yield "pg_indexes", [(r.schema, r.index_table, r.name, None, r.definition)
                             for r in relations if r.kind == "i"]
        yield "pg_sequence", [(s.oid, t.INT8, s.start, s.increment, 2**63 - 1, 1, 1, False)
                              for s in catalog.sequences.values()]


def _type_row(pg_type: t.PgType) -> Row:
    typtype = "p" if pg_type.category == "P" else "b"
    by_value = pg_type.length in (1, 2, 4, 8) and pg_type.oid not in (t.NAME,)
    element = pg_type.element_oid
    is_array = pg_type.category == "A" and pg_type.name.startswith("_")
    input_function = "array_in" if is_array else f"{pg_type.name}in"
    return (
        pg_type.oid, pg_type.name, 11, BOOTSTRAP_SUPERUSER_OID, pg_type.length, by_value,
        typtype, pg_type.category, pg_type.preferred, True, ",", 0, 0, element,
        pg_type.array_oid, input_function, f"{pg_type.name}out", f"{pg_type.name}recv",
        f"{pg_type.name}send", 0, 0, 0, "i", "p", False, 0, -1, 0,
        DEFAULT_COLLATION if pg_type.category == "S" else 0, None, None, None,
    )


def _class_row(relation: Relation, catalog: Catalog) -> Row:
    indexes = list(catalog.indexes_of(relation)) if relation.kind == "r" else []
    checks = sum(1 for c in relation.constraints if c.kind == "c")
    am = HEAP_AM if relation.kind == "r" else (BTREE_AM if relation.kind == "i" else 0)
    # PostgreSQL enforces foreign keys with triggers; psql shows them only then.
    key = (relation.schema, relation.name)
    has_triggers = any(c.kind == "f" for c in relation.constraints) or any(
        c.kind == "f" and c.ref_table == key
        for other in catalog.relations.values() for c in other.constraints)
    return (
        relation.oid, relation.name, catalog.schemas.get(relation.schema, 0), 0, 0,
        BOOTSTRAP_SUPERUSER_OID, am, relation.oid, 0, 0, -1.0, 0, 0, bool(indexes), False,
        "p", relation.kind, len(relation.columns), checks, False, has_triggers, False, False,
        False, True, "d", False, 0, 0, 0, None, None, None,
    )


def _sequence_class_row(oid: int, name: str, namespace: int) -> Row:
    return (oid, name, namespace, 0, 0, BOOTSTRAP_SUPERUSER_OID, 0, oid, 0, 1, 1.0, 0, 0,
            False, False, "p", "S", 3, 0, False, False, False, False, False, True, "n",
            False, 0, 0, 0, None, None, None)


def _attribute_rows(relation: Relation) -> Iterator[Row]:
    for number, column in enumerate(relation.columns, start=1):
        pg_type = t.TYPES[column.type_oid]
        dimensions = 1 if pg_type.category == "A" else 0
        collation = DEFAULT_COLLATION if pg_type.category == "S" else 0
        yield (
            relation.oid, column.name, column.type_oid, -1, pg_type.length, number,
            dimensions, -1, column.typmod, pg_type.length in (1, 2, 4, 8), "i", "p", "",
            column.not_null, column.default is not None, False, "", "", False, True, 0,
            collation, None, None, None,
        )


def _index_row(index: Relation, catalog: Catalog) -> Row:
    table = catalog.find_relation(index.index_table or "", index.schema)
    positions = [table.column_number(c) for c in index.index_columns] if table else []
    key = " ".join(str(p) for p in positions)
    return (
        index.oid, table.oid if table else 0, len(positions), len(positions), index.unique,
        False, index.primary, False, True, False, True, False, True, True, False, key,
        " ".join(str(DEFAULT_COLLATION) for _ in positions), "", " ".join("0" for _ in
                                                                        positions),
        None, None,
    )


def _constraint_row(relation: Relation, constraint: Any, catalog: Catalog) -> Row:
    positions = [relation.column_number(c) for c in constraint.columns]
    index_oid = 0
    if constraint.index_name:
        index = catalog.find_relation(constraint.index_name, relation.schema)
        index_oid = index.oid if index else 0
    referenced_oid = 0
    referenced_positions: list[int] = []
    if constraint.ref_table:
        referenced = catalog.find_relation(constraint.ref_table[1], constraint.ref_table[0])
        if referenced is not None:
            referenced_oid = referenced.oid
            referenced_positions = [referenced.column_number(c)
                                    for c in constraint.ref_columns]
    return (
        constraint.oid, constraint.name, catalog.schemas.get(relation.schema, 0),
        constraint.kind, False, False, True, relation.oid, 0, index_oid, 0, referenced_oid,
        "a", "a", "s", True, 0, True, _json_list(positions),
        _json_list(referenced_positions) if constraint.ref_table else None, constraint.check,
    )


def _json_list(values: list[int]) -> str:
    return "[" + ",".join(str(v) for v in values) + "]"
