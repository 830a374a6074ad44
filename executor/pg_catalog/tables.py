"""pg_catalog as data: the system tables, refilled from the catalog after
every schema change, inside the transaction that made it.

Clients' catalog queries (psql's \\d family, pgjdbc's DatabaseMetaData)
then run as ordinary SQL against these tables. Some depend on the session
rather than on the schema (pg_database names the database the client
connected to, pg_settings shows its settings, pg_views and pg_matviews
print definitions for its search path): those are SQLite views over
functions that read the running statement's context.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from typing import Any

from catalog import types as t
from catalog.acl import Acl
from catalog.dataflow import Procedure, Trigger
from catalog.extension import EXTENSION_NAME, EXTENSION_SCHEMA
from catalog.extension_members import members
from catalog.introspection import (
    SEQUENCE_MAX,
    bound_names,
    descriptions,
    index_definition,
    index_keys,
    owner_column,
    sequence_type,
)
from catalog.roles import BOOTSTRAP_SUPERUSER_OID
from catalog.schema import (
    INFORMATION_SCHEMA,
    PG_CATALOG,
    SEQUENCE_COLUMNS,
    SYSTEM_SCHEMAS,
    Catalog,
    Column,
    Constraint,
    Relation,
    Schema,
    Sequence,
)
from catalog.system import (
    C_COLLATION,
    COLLATIONS,
    DEFAULT_COLLATION,
    INFORMATION_SCHEMA_TABLES,
    KNOWN_OIDS,
    SYSTEM_TABLES,
    columns_of,
    system_relations,
)
from executor.pg_catalog.information_schema import (
    PER_ROLE,
    column_rows,
    information_schema_rows,
    storage_name,
)
from executor.pg_catalog.rows import NO_FUNCTION, Row, RowsOfRelation, row, select_list
from storage.sqlite import Database

HEAP_AM = 2
BTREE_AM = 403
DATABASE_OID = 16384 - 1
DEFAULT_TABLESPACE = 1663
PYTHON_LANGUAGE_OID = 16383 - 2
"""pg_language has no python row in PostgreSQL; this one sits below user OIDs."""
UTF8 = 6
PG_NODE_TREE = 194

_FK_ACTIONS = {None: "a", "NO ACTION": "a", "RESTRICT": "r", "CASCADE": "c",
               "SET NULL": "n", "SET DEFAULT": "d"}
_INDOPTION_DESC = 3
"""pg_index.indoption of a DESC key: INDOPTION_DESC | INDOPTION_NULLS_FIRST."""

_VIEWS_OF_KIND = (" FROM pg_class AS c LEFT JOIN pg_namespace AS n ON n.oid = c.relnamespace "
                  "WHERE c.relkind = '{kind}'")
_SESSION_VIEWS = {
    "pg_database": "SELECT " + select_list(
        "pg_database", oid=str(DATABASE_OID), datname="sqlext_current_database()",
        datdba=str(BOOTSTRAP_SUPERUSER_OID), encoding=str(UTF8), datlocprovider="'c'",
        datallowconn="1", datconnlimit="-1", dattablespace=str(DEFAULT_TABLESPACE),
        datcollate="'C.UTF-8'", datctype="'C.UTF-8'"),
    "pg_settings": "SELECT " + select_list(
        "pg_settings", name="key", setting="value", category="'Ungrouped'", short_desc="''",
        context="'user'", vartype="'string'", source="'default'", boot_val="value",
        reset_val="value", pending_restart="0",
    ) + " FROM json_each(sqlext_settings()) ORDER BY key",
    # as PostgreSQL defines them: the definition as pg_get_viewdef shows it
    # to the session reading them (its search path)
    "pg_views": "SELECT " + select_list(
        "pg_views", schemaname="n.nspname", viewname="c.relname",
        viewowner="sqlext_get_userbyid(c.relowner)", definition="sqlext_get_viewdef(c.oid)",
    ) + _VIEWS_OF_KIND.format(kind="v"),
    "pg_matviews": "SELECT " + select_list(
        "pg_matviews", schemaname="n.nspname", matviewname="c.relname",
        matviewowner="sqlext_get_userbyid(c.relowner)", hasindexes="c.relhasindex",
        ispopulated="c.relispopulated", definition="sqlext_get_viewdef(c.oid)",
    ) + _VIEWS_OF_KIND.format(kind="m"),
}


def _create_statements(schema: str, name: str, spec: str) -> Iterator[str]:
    columns = columns_of(spec)
    names = ", ".join(f'"{column}"' for column, _ in columns)
    if schema == PG_CATALOG and name in _SESSION_VIEWS:
        yield f'CREATE VIEW {schema}."{name}" ({names}) AS {_SESSION_VIEWS[name]}'
        return
    declared = ", ".join(f'"{column}" {t.BY_NAME[type_name].storage}'
                         for column, type_name in columns)
    stored = storage_name(name) if schema == INFORMATION_SCHEMA else name
    yield f'CREATE TABLE {schema}."{stored}" ({declared})'
    if schema == INFORMATION_SCHEMA and name in PER_ROLE:
        # pg_has_role(name, 'USAGE') as the view calls it (the SQLite function is ours)
        visible = "sqlext_pg_has_role({}, 'USAGE')"
        yield (f'CREATE VIEW {schema}."{name}" ({names}) AS SELECT {names} FROM '
               f'{schema}."{stored}" WHERE {visible.format("grantor")} OR '
               f"""{visible.format("grantee")} OR grantee = 'PUBLIC'""")


class CatalogTables:
    """Creates and fills the pg_catalog tables."""

    def __init__(self) -> None:
        self._static_done = False
        self._attributes = RowsOfRelation(_column_attribute_rows)
        self._columns = RowsOfRelation(column_rows)

    def create(self, database: Database) -> None:
        for schema, tables in ((PG_CATALOG, SYSTEM_TABLES),
                               (INFORMATION_SCHEMA, INFORMATION_SCHEMA_TABLES)):
            for name, spec in tables.items():
                for statement in _create_statements(schema, name, spec):
                    database.execute(statement)

    def refresh(self, database: Database, catalog: Catalog) -> None:
        if not self._static_done:
            for name, rows in _static_rows():
                _insert(database, PG_CATALOG, name, rows)
            self._static_done = True
        self._attributes.begin()
        self._columns.begin()
        for schema, rows_by_table in (
            (PG_CATALOG, _dynamic_rows(catalog, self._attributes)),
            (INFORMATION_SCHEMA, information_schema_rows(catalog, self._columns)),
        ):
            for name, rows in rows_by_table:
                stored = storage_name(name) if schema == INFORMATION_SCHEMA else name
                replace_rows(database, schema, stored, rows)


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
    yield "pg_am", [
        row("pg_am", oid=oid, amname=name, amhandler=handler, amtype=kind)
        for oid, name, handler, kind in (
            (HEAP_AM, "heap", "heap_tableam_handler", "t"), (BTREE_AM, "btree", "bthandler", "i"),
            (405, "hash", "hashhandler", "i"), (783, "gist", "gisthandler", "i"),
            (2742, "gin", "ginhandler", "i"), (3580, "brin", "brinhandler", "i"),
            (4000, "spgist", "spghandler", "i"))]
    yield "pg_collation", [
        row("pg_collation", oid=oid, collname=name, collnamespace=11,
            collowner=BOOTSTRAP_SUPERUSER_OID, collprovider=provider, collisdeterministic=True,
            collencoding=-1, collcollate=locale, collctype=locale)
        for oid, (name, provider, locale) in COLLATIONS.items()]
    yield "pg_tablespace", [
        row("pg_tablespace", oid=oid, spcname=name, spcowner=BOOTSTRAP_SUPERUSER_OID)
        for oid, name in ((DEFAULT_TABLESPACE, "pg_default"), (1664, "pg_global"))]
    yield "pg_language", [
        row("pg_language", oid=oid, lanname=name, lanowner=BOOTSTRAP_SUPERUSER_OID,
            lanispl=procedural, lanpltrusted=trusted, lanvalidator=validator)
        for oid, name, procedural, trusted, validator in (
            (12, "internal", False, False, 2246), (13, "c", False, False, 2247),
            (14, "sql", False, True, 2248), (PYTHON_LANGUAGE_OID, "python", True, False, 0))]
    yield "pg_init_privs", [
        row("pg_init_privs", objoid=oid, classoid=KNOWN_OIDS[table], objsubid=0,
            privtype="i", initprivs=_acl(acl))
        for table, oid, acl in [
            ("pg_class", r.oid, r.acl) for r in system_relations() if r.acl is not None] + [
            ("pg_namespace", s.oid, s.acl) for s in SYSTEM_SCHEMAS.values()]]


_UNDERSCORE_IO = frozenset({"date", "time", "timestamp", "timestamptz", "interval", "numeric",
                            "uuid", "json", "jsonb", "jsonpath", "pg_node_tree", "record",
                            "cstring", "void", "trigger", "anyelement", "anyarray", "anynonarray",
                            "anycompatible", "anycompatiblearray"})
"""Types whose I/O functions are named date_in, not datein."""
_TYPMOD_TYPES = frozenset({t.BPCHAR, t.VARCHAR, t.TIME, t.TIMESTAMP, t.TIMESTAMPTZ,
                           t.INTERVAL, t.NUMERIC})
_NO_BINARY_IO = frozenset({"aclitem", "trigger", "anyelement", "anynonarray", "anycompatible"})
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
    return "d" if pg_type.length in (8, 16) or pg_type.oid in (
        t.RECORD, t.ANYARRAY, t.ANYCOMPATIBLEARRAY) else "i"


def _storage(pg_type: t.PgType) -> str:
    """pg_type.typstorage: plain for fixed-size values, main for numeric,
    extended (compressible, out of line) for other variable-length ones."""
    if pg_type.length != -1 or pg_type.oid in (t.INT2VECTOR, t.OIDVECTOR):
        return "p"
    return "m" if pg_type.oid == t.NUMERIC else "x"


def _by_value(pg_type: t.PgType) -> bool:
    return pg_type.length in (1, 2, 4, 8) and pg_type.oid != t.NAME


@functools.cache
def _builtin_type_rows() -> list[Row]:
    return [_type_row(t.TYPES[oid]) for oid in sorted(t.TYPES)]


def _row_type_rows(relation: Relation, catalog: Catalog) -> Iterator[Row]:
    """A relation's row type (a composite type) and its array type, as
    PostgreSQL makes them for tables and views."""
    common = {"typnamespace": _namespace_oid(catalog, relation.schema),
              "typowner": catalog.role_oid(relation.owner), "typlen": -1, "typbyval": False,
              "typisdefined": True, "typdelim": ",", "typalign": "d", "typstorage": "x",
              "typtypmod": -1}
    yield row("pg_type", oid=relation.row_type - 1, typname="_" + relation.name, typtype="b",
              typcategory="A", typsubscript="array_subscript_handler",
              typelem=relation.row_type, typinput="array_in", typoutput="array_out",
              typreceive="array_recv", typsend="array_send", typanalyze="array_typanalyze",
              **common)
    yield row("pg_type", oid=relation.row_type, typname=relation.name, typtype="c",
              typcategory="C", typrelid=relation.oid, typarray=relation.row_type - 1,
              typinput="record_in", typoutput="record_out", typreceive="record_recv",
              typsend="record_send", **common)


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
    return row(
        "pg_type", oid=pg_type.oid, typname=pg_type.name, typnamespace=11,
        typowner=BOOTSTRAP_SUPERUSER_OID, typlen=pg_type.length, typbyval=_by_value(pg_type),
        typtype="p" if pg_type.category in ("P", "X") else "b", typcategory=pg_type.category,
        typispreferred=pg_type.preferred, typisdefined=True, typdelim=",",
        typsubscript=subscript, typelem=pg_type.element_oid, typarray=pg_type.array_oid,
        typinput=f"{prefix}in", typoutput=f"{prefix}out",
        typreceive=f"{prefix}recv" if binary else NO_FUNCTION,
        typsend=f"{prefix}send" if binary else NO_FUNCTION,
        typmodin=f"{typmod_name}typmodin" if typmod else NO_FUNCTION,
        typmodout=f"{typmod_name}typmodout" if typmod else NO_FUNCTION,
        typalign=_alignment(pg_type), typstorage=_storage(pg_type), typtypmod=-1,
        typcollation=_collation(pg_type.oid),
    )


# --- rows that follow the schema -------------------------------------------------------


def _dynamic_rows(catalog: Catalog, attributes: RowsOfRelation
                  ) -> Iterator[tuple[str, list[Row]]]:
    relations = list(catalog.relations.values())
    sequences = list(catalog.sequences.values())
    roles = list(catalog.roles.values())
    yield "pg_roles", [
        row("pg_roles", rolname=r.name, rolsuper=r.superuser, rolinherit=True,
            rolcreaterole=r.createrole, rolcreatedb=r.createdb, rolcanlogin=r.login,
            rolreplication=r.superuser, rolconnlimit=r.connection_limit,
            rolpassword="********", rolbypassrls=r.superuser, oid=r.oid)
        for r in roles]
    yield "pg_authid", [
        row("pg_authid", oid=r.oid, rolname=r.name, rolsuper=r.superuser, rolinherit=True,
            rolcreaterole=r.createrole, rolcreatedb=r.createdb, rolcanlogin=r.login,
            rolreplication=r.superuser, rolbypassrls=r.superuser,
            rolconnlimit=r.connection_limit, rolpassword=r.password)
        for r in roles]
    yield "pg_user", [
        row("pg_user", usename=r.name, usesysid=r.oid, usecreatedb=r.createdb,
            usesuper=r.superuser, userepl=r.superuser, usebypassrls=r.superuser,
            passwd="********")
        for r in roles if r.login]
    yield "pg_auth_members", [
        row("pg_auth_members", roleid=catalog.role_oid(m.role), member=catalog.role_oid(m.member),
            grantor=catalog.role_oid(m.grantor), admin_option=m.admin)
        for m in catalog.memberships.values()]
    yield "pg_namespace", [
        row("pg_namespace", oid=schema.oid, nspname=name, nspowner=catalog.role_oid(schema.owner),
            nspacl=_acl(schema.acl))
        for name, schema in catalog.schemas.items()]
    yield "pg_type", _builtin_type_rows() + [
        type_row for r in relations if r.row_type for type_row in _row_type_rows(r, catalog)]
    yield "pg_class", [_class_row(r, catalog) for r in relations] + [
        _sequence_class_row(s, catalog) for s in sequences]
    yield "pg_attribute", [
        attribute for r in relations for attribute in (
            _index_attribute_rows(r, catalog) if r.kind == "i" else attributes.of(r))] + [
        attribute for s in sequences for attribute in _sequence_attribute_rows(s)]
    yield "pg_attrdef", [
        row("pg_attrdef", oid=r.oid * 1000 + number, adrelid=r.oid, adnum=number,
            adbin=column.declared_default)
        for r in relations for number, column in enumerate(r.columns, start=1)
        if column.declared_default is not None]
    yield "pg_index", [_index_row(index, catalog) for index in relations
                       if index.kind == "i"]
    yield "pg_partitioned_table", [
        row("pg_partitioned_table", partrelid=r.oid, partstrat="h", partnatts=1, partdefid=0,
            partattrs=str(1 + [c.name for c in r.columns].index(r.partition_key)),
            partclass="0", partcollation="0")
        for r in relations if r.partition_key is not None]
    yield "pg_constraint", [
        _constraint_row(r, c, catalog) for r in relations for c in r.constraints]
    yield "pg_depend", [dependency for s in sequences for dependency in _sequence_owner(s, catalog)
                        ] + [dependency for r in relations for dependency in _rule_rows(r, catalog)
                             ] + [dependency for r in relations
                                  for dependency in _default_rows(r, catalog)
                                  ] + list(_extension_dependencies(catalog))
    yield "pg_extension", list(_extension_rows(catalog))
    yield "pg_trigger", [_trigger_row(trigger, catalog) for trigger in catalog.triggers.values()]
    yield "pg_rewrite", [
        row("pg_rewrite", oid=r.rule.oid, rulename="_RETURN", ev_class=r.oid, ev_type="1",
            ev_enabled="O", is_instead=True, ev_qual="<>")
        for r in relations if r.rule is not None]
    yield "pg_proc", [_procedure_row(p, catalog) for p in catalog.procedures.values()]
    yield "pg_tables", [
        row("pg_tables", schemaname=r.schema, tablename=r.name, tableowner=r.owner,
            hasindexes=any(True for _ in catalog.indexes_of(r)), hasrules=False,
            hastriggers=False, rowsecurity=False)
        for r in relations if r.kind == "r" and r.schema != INFORMATION_SCHEMA]
    yield "pg_indexes", [
        row("pg_indexes", schemaname=r.schema, tablename=r.index_table, indexname=r.name,
            indexdef=index_definition(r))
        for r in relations if r.kind == "i"]
    yield "pg_description", [
        row("pg_description", objoid=objoid, classoid=classoid, objsubid=objsubid,
            description=text)
        for (objoid, classoid, objsubid), text in descriptions(catalog)]
    yield "pg_sequence", [
        row("pg_sequence", seqrelid=s.oid, seqtypid=type_oid, seqstart=s.start,
            seqincrement=s.increment,
            seqmax=SEQUENCE_MAX[type_oid] if s.increment > 0 else -1,
            seqmin=1 if s.increment > 0 else -SEQUENCE_MAX[type_oid] - 1, seqcache=1,
            seqcycle=False)
        for s in sequences for type_oid in (sequence_type(s, catalog),)]


def _extension_rows(catalog: Catalog) -> Iterator[Row]:
    extension = catalog.extension
    if extension is not None:
        yield row("pg_extension", oid=extension.oid, extname=EXTENSION_NAME,
                  extowner=BOOTSTRAP_SUPERUSER_OID,
                  extnamespace=catalog.schemas[EXTENSION_SCHEMA].oid, extrelocatable=False,
                  extversion=extension.version, extconfig=_json([extension.table_oid]),
                  extcondition=_json([""]))


def _extension_dependencies(catalog: Catalog) -> Iterator[Row]:
    """The extension needs its schema ('n'), unless the schema is its own;
    its members belong to it ('e')."""
    extension = catalog.extension
    if extension is None:
        return
    pg_extension = KNOWN_OIDS["pg_extension"]
    if not extension.owns_schema:
        yield row("pg_depend", classid=pg_extension, objid=extension.oid, objsubid=0,
                  refclassid=KNOWN_OIDS["pg_namespace"],
                  refobjid=catalog.schemas[EXTENSION_SCHEMA].oid, refobjsubid=0, deptype="n")
    for table, oid in members(catalog):
        yield row("pg_depend", classid=KNOWN_OIDS[table], objid=oid, objsubid=0,
                  refclassid=pg_extension, refobjid=extension.oid, refobjsubid=0,
                  deptype="e")


_TRIGGER_TYPES = {"insert": 4, "slide": 0}
"""pg_trigger.tgtype: AFTER INSERT FOR EACH STATEMENT (TRIGGER_TYPE_INSERT);
AFTER SLIDE has no PostgreSQL event."""


def _trigger_row(trigger: Trigger, catalog: Catalog) -> Row:
    target = catalog.relations.get(trigger.target)
    procedure = catalog.procedures.get(trigger.procedure) if trigger.procedure else None
    return row("pg_trigger", oid=trigger.oid, tgrelid=target.oid if target else 0,
               tgparentid=0, tgname=trigger.name, tgfoid=procedure.oid if procedure else 0,
               tgtype=_TRIGGER_TYPES[trigger.event], tgenabled="O", tgisinternal=False,
               tgconstrrelid=0, tgconstrindid=0, tgconstraint=0, tgdeferrable=False,
               tginitdeferred=False, tgnargs=0)


def _procedure_row(procedure: Procedure, catalog: Catalog) -> Row:
    """A procedure as pg_proc shows it (prokind 'p', result type void)."""
    types = [p.type_oid for p in procedure.params]
    names = [p.name or "" for p in procedure.params]
    language = PYTHON_LANGUAGE_OID if procedure.language == "python" else 14
    return row(
        "pg_proc", oid=procedure.oid, proname=procedure.name,
        pronamespace=catalog.schemas[procedure.schema].oid,
        proowner=catalog.role_oid(procedure.owner), prolang=language, procost=100.0,
        prosupport=None, prokind="p", provolatile="v", proparallel="u", prorettype=t.VOID,
        pronargs=len(types),
        pronargdefaults=sum(1 for p in procedure.params if p.default),
        proargtypes=" ".join(map(str, types)),
        proargnames=_json(names) if any(names) else None, prosrc=procedure.body,
        proacl=_acl(procedure.acl),
    )


def _acl(acl: Acl | None) -> str | None:
    """An ACL as an aclitem[] value (NULL while the object has the default)."""
    return None if acl is None else _json([item.text() for item in acl])


def _namespace_oid(catalog: Catalog, name: str) -> int:
    schema: Schema | None = catalog.schemas.get(name)
    return schema.oid if schema is not None else 0


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
    has_triggers = bool(catalog.triggers_on(relation)) or any(
        c.kind == "f" for c in relation.constraints) or any(
        c.kind == "f" and c.ref_table == key
        for other in catalog.relations.values() for c in other.constraints)
    return row(
        "pg_class", oid=relation.oid, relname=relation.name,
        relnamespace=_namespace_oid(catalog, relation.schema), reltype=relation.row_type,
        relowner=catalog.role_oid(relation.owner), relam=am, relfilenode=relation.oid,
        relpages=int(index), reltuples=0.0 if index else -1.0, relhasindex=bool(indexes),
        relpersistence="p", relkind=relation.kind,
        relnatts=len(relation.index_columns) if index else len(relation.columns),
        relchecks=checks, relhasrules=relation.kind in ("v", "m"),
        relhastriggers=has_triggers, relispopulated=True,
        relreplident="d" if relation.kind in ("r", "m") else "n",
        relacl=None if relation.schema in (PG_CATALOG, INFORMATION_SCHEMA) else _acl(
            relation.acl),
    )


def _sequence_class_row(sequence: Sequence, catalog: Catalog) -> Row:
    return row(
        "pg_class", oid=sequence.oid, relname=sequence.name,
        relnamespace=catalog.schemas[sequence.schema].oid,
        relowner=catalog.role_oid(sequence.owner),
        relfilenode=sequence.oid, relpages=1, reltuples=1.0, relpersistence="p", relkind="S",
        relnatts=len(SEQUENCE_COLUMNS), relispopulated=True, relreplident="n",
    )


def _attribute_row(relation_oid: int, name: str, number: int, type_oid: int, typmod: int,
                   not_null: bool, has_default: bool, acl: Acl = (), identity: str = "") -> Row:
    pg_type = t.TYPES[type_oid]
    return row(
        "pg_attribute", attrelid=relation_oid, attname=name, atttypid=type_oid,
        attstattarget=-1, attlen=pg_type.length, attnum=number,
        attndims=int(_is_array(pg_type)), attcacheoff=-1, atttypmod=typmod,
        attbyval=_by_value(pg_type), attalign=_alignment(pg_type),
        attstorage=_storage(pg_type), attnotnull=not_null, atthasdef=has_default,
        attidentity=identity, attgenerated="", attacl=_acl(acl or None),
        attislocal=True, attcollation=_collation(type_oid),
    )


def _index_attribute_rows(index: Relation, catalog: Catalog) -> Iterator[Row]:
    """An index's key columns (they depend on its table as well)."""
    _, keys = _index_keys(index, catalog)
    for number, (_, column) in enumerate(keys, start=1):
        yield _attribute_row(index.oid, column.name, number, column.type_oid,
                             column.typmod, False, False)


def _column_attribute_rows(relation: Relation) -> Iterator[Row]:
    for number, column in enumerate(relation.columns, start=1):
        yield _attribute_row(relation.oid, column.name, number, column.type_oid,
                             column.typmod, column.not_null,
                             column.declared_default is not None and relation.kind == "r",
                             column.acl, column.identity)


def _sequence_attribute_rows(sequence: Sequence) -> Iterator[Row]:
    for number, (name, column_type) in enumerate(SEQUENCE_COLUMNS, start=1):
        yield _attribute_row(sequence.oid, name, number, column_type.oid, -1, True, False)


def _sequence_owner(sequence: Sequence, catalog: Catalog) -> Iterator[Row]:
    owner = owner_column(sequence, catalog)
    if owner is not None and owner[1]:
        table, number = owner
        pg_class = KNOWN_OIDS["pg_class"]
        identity = bool(table.columns[number - 1].identity)
        yield row("pg_depend", classid=pg_class, objid=sequence.oid, refclassid=pg_class,
                  refobjid=table.oid, refobjsubid=number, deptype="i" if identity else "a")


def _default_rows(table: Relation, catalog: Catalog) -> Iterator[Row]:
    """A column default's pg_depend rows, as PostgreSQL records them: it
    goes with its column ('a') and needs the sequences it names ('n')."""
    pg_class = KNOWN_OIDS["pg_class"]
    for number, column in enumerate(table.columns, start=1):
        if column.default is None or column.identity:
            continue

        def depends(oid: int, column: int, kind: str, default: int = number) -> Row:
            return row("pg_depend", classid=KNOWN_OIDS["pg_attrdef"],
                       objid=table.oid * 1000 + default, objsubid=0, refclassid=pg_class,
                       refobjid=oid, refobjsubid=column, deptype=kind)

        yield depends(table.oid, number, "a")
        for name in bound_names(column.default):
            sequence = catalog.sequences.get(name)
            if sequence is not None:
                yield depends(sequence.oid, 0, "n")


def _rule_rows(view: Relation, catalog: Catalog) -> Iterator[Row]:
    """A view's rule as PostgreSQL 15 records it in pg_depend: it belongs to
    the view ('i'), and depends (deptype 'n') on the view itself (its OLD
    and NEW entries) and on each column it uses of what it reads (or on a
    relation as a whole when it uses no column of it)."""
    rule = view.rule
    if rule is None:
        return
    pg_class = KNOWN_OIDS["pg_class"]

    def depends(oid: int, column: int, kind: str) -> Row:
        return row("pg_depend", classid=KNOWN_OIDS["pg_rewrite"], objid=rule.oid,
                   objsubid=0, refclassid=pg_class, refobjid=oid, refobjsubid=column,
                   deptype=kind)

    yield depends(view.oid, 0, "i")
    yield depends(view.oid, 0, "n")
    for oid, columns in rule.reads:
        read = catalog.relation_by_oid(oid)
        if read is None:
            continue
        for number in [read.column_number(c) for c in columns] or [0]:
            yield depends(oid, number, "n")


def _index_row(index: Relation, catalog: Catalog) -> Row:
    table_oid, keys = _index_keys(index, catalog)
    options = [_INDOPTION_DESC if descending else 0 for _, descending in index_keys(index)]
    return row(
        "pg_index", indexrelid=index.oid, indrelid=table_oid, indnatts=len(keys),
        indnkeyatts=len(keys), indisunique=index.unique, indisprimary=index.primary,
        indimmediate=True, indisvalid=True, indisready=True, indislive=True,
        indkey=" ".join(str(number) for number, _ in keys),
        indcollation=" ".join(str(_collation(column.type_oid)) for _, column in keys),
        indclass=" ".join("0" for _ in keys), indoption=" ".join(str(o) for o in options),
        indpred=index.predicate,
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
    return row(
        "pg_constraint", oid=constraint.oid, conname=constraint.name,
        connamespace=_namespace_oid(catalog, relation.schema), contype=constraint.kind,
        convalidated=True, conrelid=relation.oid, conindid=index_oid,
        confrelid=referenced_oid,
        confupdtype=_FK_ACTIONS[constraint.on_update] if foreign else " ",
        confdeltype=_FK_ACTIONS[constraint.on_delete] if foreign else " ",
        confmatchtype="s" if foreign else " ", conislocal=True,
        connoinherit=constraint.kind != "c", conkey=_json(positions),
        confkey=_json(referenced_positions) if foreign else None, conbin=constraint.check,
    )


def _json(values: list[Any]) -> str:
    """An array value as stored (a compact JSON array, as SQLite's json_array makes)."""
    return json.dumps(values, separators=(",", ":"))
