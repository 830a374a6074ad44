"""pg_catalog as data: the system tables, refilled from the catalog after
every schema change, inside the transaction that made it.

Clients' catalog queries (psql's \\d family, pgjdbc's DatabaseMetaData)
then run as ordinary SQL against these tables. Two of them depend on the
session rather than on the schema (pg_database names the database the client
connected to, pg_settings shows its settings): those are SQLite views over
functions that read the running statement's context.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from catalog import types as t
from catalog.dataflow import Procedure
from catalog.roles import BOOTSTRAP_SUPERUSER_OID, Acl, acl_items
from catalog.schema import (
    INFORMATION_SCHEMA,
    PG_CATALOG,
    PUBLIC,
    Catalog,
    Column,
    Constraint,
    Relation,
    Sequence,
)
from catalog.system import (
    DESCRIPTIONS,
    INFORMATION_SCHEMA_TABLES,
    KNOWN_OIDS,
    SYSTEM_TABLES,
    columns_of,
    schema_owner,
)
from executor.functions.catalog_info import (
    SEQUENCE_MAX,
    index_keys,
    owner_column,
    sequence_type,
    view_definition,
)
from executor.pg_catalog.information_schema import information_schema_rows
from storage.sqlite import Database

Row = tuple[Any, ...]

HEAP_AM = 2
BTREE_AM = 403
DATABASE_OID = 16384 - 1
DEFAULT_COLLATION = 100
C_COLLATION = 950
DEFAULT_TABLESPACE = 1663
PYTHON_LANGUAGE_OID = 16383 - 2
"""pg_language has no python row in PostgreSQL; this one sits below user OIDs."""
UTF8 = 6
PG_NODE_TREE = 194
NO_FUNCTION = "-"
"""How a regproc column shows "no function" (stored as function names)."""

_FK_ACTIONS = {None: "a", "NO ACTION": "a", "RESTRICT": "r", "CASCADE": "c",
               "SET NULL": "n", "SET DEFAULT": "d"}
_INDOPTION_DESC = 3
"""pg_index.indoption of a DESC key: INDOPTION_DESC | INDOPTION_NULLS_FIRST."""
_SEQUENCE_COLUMNS = (("last_value", t.INT8), ("log_cnt", t.INT8), ("is_called", t.BOOL))

_SESSION_VIEWS = {
    "pg_database": (
        f"SELECT {DATABASE_OID}, sqlext_current_database(), {BOOTSTRAP_SUPERUSER_OID}, "
        f"{UTF8}, 'c', 0, 1, -1, 0, 0, {DEFAULT_TABLESPACE}, 'C.UTF-8', 'C.UTF-8', NULL, "
        "NULL, NULL"
    ),
    "pg_settings": (
        "SELECT key, value, NULL, 'Ungrouped', '', NULL, 'user', 'string', 'default', "
        "NULL, NULL, NULL, value, value, NULL, NULL, 0 "
        "FROM json_each(sqlext_settings()) ORDER BY key"
    ),
}


def _create_statement(schema: str, name: str, spec: str) -> str:
    columns = columns_of(spec)
    if schema == PG_CATALOG and name in _SESSION_VIEWS:
        names = ", ".join(f'"{column}"' for column, _ in columns)
        return f'CREATE VIEW {schema}."{name}" ({names}) AS {_SESSION_VIEWS[name]}'
    declared = ", ".join(f'"{column}" {t.BY_NAME[type_name].storage}'
                         for column, type_name in columns)
    return f'CREATE TABLE {schema}."{name}" ({declared})'


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
            for name, rows in _static_rows():
                _insert(database, PG_CATALOG, name, rows)
            self._static_done = True
        for schema, rows_by_table in (
            (PG_CATALOG, _dynamic_rows(catalog)),
            (INFORMATION_SCHEMA, information_schema_rows(catalog)),
        ):
            for name, rows in rows_by_table:
                replace_rows(database, schema, name, rows)


def replace_rows(database: Database, schema: str, name: str, rows: list[Row]) -> None:
    """A system table's whole contents."""
    database.execute(f'DELETE FROM {schema}."{name}"')
    _insert(database, schema, name, rows)


def _insert(database: Database, schema: str, name: str, rows: list[Row]) -> None:
    if rows:
        marks = ", ".join("?" * len(rows[0]))
        database.executemany(f'INSERT INTO {schema}."{name}" VALUES ({marks})', rows)


# --- rows that never change ------------------------------------------------------------


def _static_rows() -> Iterator[tuple[str, list[Row]]]:
    yield "pg_type", [_type_row(t.TYPES[oid]) for oid in sorted(t.TYPES)]
    yield "pg_am", [(HEAP_AM, "heap", "heap_tableam_handler", "t"),
                    (BTREE_AM, "btree", "bthandler", "i"), (405, "hash", "hashhandler", "i"),
                    (783, "gist", "gisthandler", "i"), (2742, "gin", "ginhandler", "i"),
                    (3580, "brin", "brinhandler", "i"), (4000, "spgist", "spghandler", "i")]
    yield "pg_collation", [
        (DEFAULT_COLLATION, "default", 11, BOOTSTRAP_SUPERUSER_OID, "d", 1, -1, None, None,
         None, None),
        (C_COLLATION, "C", 11, BOOTSTRAP_SUPERUSER_OID, "c", 1, -1, "C", "C", None, None)]
    yield "pg_tablespace", [(DEFAULT_TABLESPACE, "pg_default", BOOTSTRAP_SUPERUSER_OID, None,
                             None),
                            (1664, "pg_global", BOOTSTRAP_SUPERUSER_OID, None, None)]
    yield "pg_language", [
        (12, "internal", BOOTSTRAP_SUPERUSER_OID, False, False, 0, 0, 2246, None),
        (13, "c", BOOTSTRAP_SUPERUSER_OID, False, False, 0, 0, 2247, None),
        (14, "sql", BOOTSTRAP_SUPERUSER_OID, False, True, 0, 0, 2248, None),
        (PYTHON_LANGUAGE_OID, "python", BOOTSTRAP_SUPERUSER_OID, True, False, 0, 0, 0, None)]
    yield "pg_description", [(*key, text) for key, text in DESCRIPTIONS.items()]


_UNDERSCORE_IO = frozenset({"date", "time", "timestamp", "timestamptz", "interval", "numeric",
                            "uuid", "json", "jsonb", "pg_node_tree", "record", "cstring",
                            "void", "trigger", "anyelement"})
"""Types whose I/O functions are named date_in, not datein."""
_TYPMOD_TYPES = frozenset({t.BPCHAR, t.VARCHAR, t.TIME, t.TIMESTAMP, t.TIMESTAMPTZ,
                           t.INTERVAL, t.NUMERIC})
_NO_BINARY_IO = frozenset({"aclitem", "trigger", "anyelement"})
_SUBSCRIPT_HANDLERS = {t.NAME: "raw_array_subscript_handler",
                       t.JSONB: "jsonb_subscript_handler"}


def _is_array(pg_type: t.PgType) -> bool:
    return pg_type.category == "A" and pg_type.name.startswith("_")


def _collation(oid: int) -> int:
    """The collation of a type's values (0: not collatable)."""
    pg_type = t.TYPES[oid]
    if _is_array(pg_type):
        return _collation(pg_type.element_oid)
    if oid == t.NAME:
        return C_COLLATION
    return DEFAULT_COLLATION if pg_type.category == "S" or oid == PG_NODE_TREE else 0


def _alignment(pg_type: t.PgType) -> str:
    if _is_array(pg_type):
        return "d" if _alignment(t.TYPES[pg_type.element_oid]) == "d" else "i"
    if pg_type.length in (1, -2) or pg_type.oid in (t.NAME, t.UUID):
        return "c"
    if pg_type.length == 2:
        return "s"
    return "d" if pg_type.length in (8, 16) or pg_type.oid == t.RECORD else "i"


def _storage(pg_type: t.PgType) -> str:
    """pg_type.typstorage: plain for fixed-size values, main for numeric,
    extended (compressible, out of line) for other variable-length ones."""
    if pg_type.length != -1 or pg_type.oid in (t.INT2VECTOR, t.OIDVECTOR):
        return "p"
    return "m" if pg_type.oid == t.NUMERIC else "x"


def _by_value(pg_type: t.PgType) -> bool:
    return pg_type.length in (1, 2, 4, 8) and pg_type.oid != t.NAME


def _type_row(pg_type: t.PgType) -> Row:
    array = _is_array(pg_type)
    prefix = "array_" if array else pg_type.name + (
        "_" if pg_type.name in _UNDERSCORE_IO else "")
    binary = pg_type.name not in _NO_BINARY_IO
    typmod_type = pg_type.element_oid if array else pg_type.oid
    typmod_name = t.TYPES[typmod_type].name
    typmod = typmod_type in _TYPMOD_TYPES
    subscript = "array_subscript_handler" if pg_type.element_oid else (
        _SUBSCRIPT_HANDLERS.get(pg_type.oid, NO_FUNCTION))
    return (
        pg_type.oid, pg_type.name, 11, BOOTSTRAP_SUPERUSER_OID, pg_type.length,
        _by_value(pg_type), "p" if pg_type.category in ("P", "X") else "b",
        pg_type.category, pg_type.preferred, True, ",", 0, subscript, pg_type.element_oid,
        pg_type.array_oid, f"{prefix}in", f"{prefix}out",
        f"{prefix}recv" if binary else NO_FUNCTION, f"{prefix}send" if binary else NO_FUNCTION,
        f"{typmod_name}typmodin" if typmod else NO_FUNCTION,
        f"{typmod_name}typmodout" if typmod else NO_FUNCTION, NO_FUNCTION,
        _alignment(pg_type), _storage(pg_type), False, 0, -1, 0, _collation(pg_type.oid),
        None, None, None,
    )


# --- rows that follow the schema -------------------------------------------------------


def _dynamic_rows(catalog: Catalog) -> Iterator[tuple[str, list[Row]]]:
    relations = list(catalog.relations.values())
    sequences = list(catalog.sequences.values())
    roles = list(catalog.roles.values())
    yield "pg_roles", [(r.name, r.superuser, True, r.createrole, r.createdb, r.login,
                        r.superuser, r.connection_limit, "********", None, r.superuser, None,
                        r.oid) for r in roles]
    yield "pg_authid", [(r.oid, r.name, r.superuser, True, r.createrole, r.createdb, r.login,
                         r.superuser, r.superuser, r.connection_limit, r.password, None)
                        for r in roles]
    yield "pg_user", [(r.name, r.oid, r.createdb, r.superuser, r.superuser, r.superuser,
                       "********", None, None) for r in roles if r.login]
    yield "pg_namespace", [_namespace_row(name, oid, catalog)
                           for name, oid in catalog.schemas.items()]
    yield "pg_class", [_class_row(r, catalog) for r in relations] + [
        _sequence_class_row(s, catalog) for s in sequences]
    yield "pg_attribute", [row for r in relations for row in _attribute_rows(r, catalog)] + [
        row for s in sequences for row in _sequence_attribute_rows(s)]
    yield "pg_attrdef", [
        (r.oid * 1000 + number, r.oid, number, column.default)
        for r in relations for number, column in enumerate(r.columns, start=1)
        if column.default is not None]
    yield "pg_index", [_index_row(index, catalog) for index in relations
                       if index.kind == "i"]
    yield "pg_constraint", [
        _constraint_row(r, c, catalog) for r in relations for c in r.constraints]
    yield "pg_depend", [row for s in sequences for row in _sequence_owner(s, catalog)]
    yield "pg_proc", [_procedure_row(p, catalog) for p in catalog.procedures.values()]
    yield "pg_tables", [
        (r.schema, r.name, r.owner, None, any(True for _ in catalog.indexes_of(r)), False,
         False, False)
        for r in relations if r.kind == "r" and r.schema != INFORMATION_SCHEMA]
    yield "pg_views", [(r.schema, r.name, r.owner, view_definition(r))
                       for r in relations if r.kind == "v"]
    yield "pg_matviews", [(r.schema, r.name, r.owner, None, False, True, view_definition(r))
                          for r in relations if r.kind == "m"]
    yield "pg_indexes", [(r.schema, r.index_table, r.name, None, r.definition)
                         for r in relations if r.kind == "i"]
    yield "pg_sequence", [(s.oid, type_oid, s.start, s.increment, SEQUENCE_MAX[type_oid], 1,
                           1, False)
                          for s in sequences for type_oid in (sequence_type(s, catalog),)]


def _procedure_row(procedure: Procedure, catalog: Catalog) -> Row:
    """A procedure as pg_proc shows it (prokind 'p', no result type)."""
    types = [p.type_oid for p in procedure.params]
    names = [p.name or "" for p in procedure.params]
    language = PYTHON_LANGUAGE_OID if procedure.language == "python" else 14
    return (procedure.oid, procedure.name, catalog.schemas[procedure.schema],
            catalog.role_oid(procedure.owner), language, 100.0, 0.0, 0, None, "p", False,
            False, False, False, "v", "u", len(types),
            sum(1 for p in procedure.params if p.default), 0, " ".join(map(str, types)), None,
            None, _json(names) if any(names) else None, procedure.body, None, None,
            _acl(procedure.acl, procedure.owner))


def _acl(acl: Acl | None, owner: str) -> str | None:
    items = acl_items(acl, owner)
    return None if items is None else _json(items)


def _namespace_row(name: str, oid: int, catalog: Catalog) -> Row:
    """Schemas, owned and granted as in a fresh PostgreSQL 15 database."""
    role = schema_owner(name)
    owner = catalog.role_oid(role)
    if name not in (PUBLIC, PG_CATALOG, INFORMATION_SCHEMA):
        return oid, name, owner, None
    return oid, name, owner, _json([f"{role}=UC/{role}", f"=U/{role}"])


def _index_keys(index: Relation, catalog: Catalog) -> tuple[int, list[tuple[int, Column]]]:
    """The indexed table's OID and (column number, column) of each key that
    still names one of its columns."""
    table = catalog.find_relation(index.index_table or "", index.schema)
    if table is None:
        return 0, []
    numbers = [table.column_number(name) for name in index.index_columns]
    return table.oid, [(number, table.columns[number - 1]) for number in numbers if number]


def _class_row(relation: Relation, catalog: Catalog) -> Row:
    indexes = list(catalog.indexes_of(relation)) if relation.kind == "r" else []
    checks = sum(1 for c in relation.constraints if c.kind == "c")
    am = {"r": HEAP_AM, "m": HEAP_AM, "i": BTREE_AM}.get(relation.kind, 0)
    index = relation.kind == "i"
    # PostgreSQL enforces foreign keys with triggers; psql shows them only then.
    key = (relation.schema, relation.name)
    has_triggers = any(c.kind == "f" for c in relation.constraints) or any(
        c.kind == "f" and c.ref_table == key
        for other in catalog.relations.values() for c in other.constraints)
    return (
        relation.oid, relation.name, catalog.schemas.get(relation.schema, 0), 0, 0,
        catalog.role_oid(relation.owner), am, relation.oid, 0, int(index),
        0.0 if index else -1.0, 0, 0, bool(indexes), False, "p", relation.kind,
        len(relation.index_columns) if index else len(relation.columns), checks,
        relation.kind in ("v", "m"), has_triggers, False, False, False, True,
        "d" if relation.kind in ("r", "m") else "n", False, 0, 0, 0,
        None if relation.schema in (PG_CATALOG, INFORMATION_SCHEMA) else _acl(
            relation.acl, relation.owner), None, None,
    )


def _sequence_class_row(sequence: Sequence, catalog: Catalog) -> Row:
    return (sequence.oid, sequence.name, catalog.schemas[sequence.schema], 0, 0,
            BOOTSTRAP_SUPERUSER_OID, 0, sequence.oid, 0, 1, 1.0, 0, 0, False, False, "p", "S",
            len(_SEQUENCE_COLUMNS), 0, False, False, False, False, False, True, "n", False, 0,
            0, 0, None, None, None)


def _attribute_row(relation_oid: int, name: str, number: int, type_oid: int, typmod: int,
                   not_null: bool, has_default: bool) -> Row:
    pg_type = t.TYPES[type_oid]
    return (
        relation_oid, name, type_oid, -1, pg_type.length, number, int(_is_array(pg_type)), -1,
        typmod, _by_value(pg_type), _alignment(pg_type), _storage(pg_type), "", not_null,
        has_default, False, "", "", False, True, 0, _collation(type_oid), None, None, None,
    )


def _attribute_rows(relation: Relation, catalog: Catalog) -> Iterator[Row]:
    if relation.kind == "i":
        _, keys = _index_keys(relation, catalog)
        for number, (_, column) in enumerate(keys, start=1):
            yield _attribute_row(relation.oid, column.name, number, column.type_oid,
                                 column.typmod, False, False)
        return
    for number, column in enumerate(relation.columns, start=1):
        yield _attribute_row(relation.oid, column.name, number, column.type_oid,
                             column.typmod, column.not_null,
                             column.default is not None and relation.kind == "r")


def _sequence_attribute_rows(sequence: Sequence) -> Iterator[Row]:
    for number, (name, type_oid) in enumerate(_SEQUENCE_COLUMNS, start=1):
        yield _attribute_row(sequence.oid, name, number, type_oid, -1, True, False)


def _sequence_owner(sequence: Sequence, catalog: Catalog) -> Iterator[Row]:
    owner = owner_column(sequence, catalog)
    if owner is not None:
        pg_class = KNOWN_OIDS["pg_class"]
        yield pg_class, sequence.oid, 0, pg_class, owner[0].oid, owner[1], "a"


def _index_row(index: Relation, catalog: Catalog) -> Row:
    table_oid, keys = _index_keys(index, catalog)
    options = [_INDOPTION_DESC if descending else 0 for _, descending in index_keys(index)]
    return (
        index.oid, table_oid, len(keys), len(keys), index.unique, False, index.primary, False,
        True, False, True, False, True, True, False,
        " ".join(str(number) for number, _ in keys),
        " ".join(str(_collation(column.type_oid)) for _, column in keys),
        " ".join("0" for _ in keys), " ".join(str(o) for o in options), None, None,
    )


_STRING_LITERAL = re.compile(r"'(?:[^']|'')*'")
_IDENTIFIER = re.compile(r'"((?:[^"]|"")+)"|([A-Za-z_][A-Za-z0-9_$]*)')


def _check_columns(relation: Relation, check: str) -> list[int]:
    """Numbers of the columns a CHECK expression mentions (pg_constraint.conkey)."""
    words = {quoted.replace('""', '"') if quoted else bare.lower()
             for quoted, bare in _IDENTIFIER.findall(_STRING_LITERAL.sub("", check))}
    return [number for number, column in enumerate(relation.columns, start=1)
            if column.name in words]


def _referenced_index(constraint: Constraint, referenced: Relation, catalog: Catalog) -> int:
    """The unique index of the referenced table a foreign key relies on."""
    for candidate in referenced.constraints:
        if candidate.kind in ("p", "u") and candidate.columns == constraint.ref_columns and (
            candidate.index_name
        ):
            index = catalog.find_relation(candidate.index_name, referenced.schema)
            return index.oid if index else 0
    return 0


def _constraint_row(relation: Relation, constraint: Constraint, catalog: Catalog) -> Row:
    if constraint.kind == "c":
        positions = _check_columns(relation, constraint.check or "")
    else:
        positions = [relation.column_number(c) for c in constraint.columns]
    index_oid = 0
    if constraint.index_name:
        index = catalog.find_relation(constraint.index_name, relation.schema)
        index_oid = index.oid if index else 0
    referenced_oid = 0
    referenced_positions: list[int] = []
    foreign = constraint.kind == "f"
    if constraint.ref_table:
        referenced = catalog.find_relation(constraint.ref_table[1], constraint.ref_table[0])
        if referenced is not None:
            referenced_oid = referenced.oid
            referenced_positions = [referenced.column_number(c)
                                    for c in constraint.ref_columns]
            index_oid = _referenced_index(constraint, referenced, catalog)
    return (
        constraint.oid, constraint.name, catalog.schemas.get(relation.schema, 0),
        constraint.kind, False, False, True, relation.oid, 0, index_oid, 0, referenced_oid,
        _FK_ACTIONS[constraint.on_update] if foreign else " ",
        _FK_ACTIONS[constraint.on_delete] if foreign else " ", "s" if foreign else " ", True,
        0, constraint.kind != "c", _json(positions),
        _json(referenced_positions) if foreign else None, constraint.check,
    )


def _json(values: list[Any]) -> str:
    """An array value as stored (a compact JSON array, as SQLite's json_array makes)."""
    return json.dumps(values, separators=(",", ":"))
