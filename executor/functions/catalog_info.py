"""PostgreSQL's catalog information functions (format_type, pg_get_expr,
pg_table_is_visible, pg_get_indexdef...), as SQLite functions.

psql's backslash commands and pgjdbc's DatabaseMetaData call these from
ordinary catalog queries; they answer from the catalog of the running
statement (``executor.context``), so they see the session's own uncommitted
schema changes like every other statement does. What they derive from the
catalog (index keys, sequence types, view text) comes from
``catalog.introspection``, as the pg_catalog rows' does, so both agree.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from catalog import errors
from catalog import types as t
from catalog.introspection import (
    QUOTED,
    descriptions,
    index_definition,
    index_keys,
    name_parts,
    quote_identifier,
    shown_expression,
)
from catalog.schema import PG_CATALOG, Catalog, Constraint, Relation
from catalog.sqltypes import BOOL, INT4, INT8, NAME, OID, TEXT, TIMESTAMPTZ, SqlType
from catalog.system import KNOWN_OIDS
from executor.context import StatementContext
from executor.functions.declare import Declarations, Function, Runtime
from executor.functions.view_text import view_definition

FUNCTIONS = Declarations()

ENCODINGS = {6: "UTF8", 0: "SQL_ASCII"}
_STARTED = datetime.now(UTC)


def oid_argument(value: Any) -> int | None:
    """An OID argument as an int (None for NULL or what is not a number)."""
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


def constraint_definition(catalog: Catalog, constraint: Constraint, pretty: bool,
                          search_path: tuple[str, ...] | None = None) -> str:
    """What pg_get_constraintdef prints for a constraint (a referenced table
    is named as ``relation_name`` names it)."""
    columns = ", ".join(quote_identifier(c) for c in constraint.columns)
    if constraint.kind == "p":
        return f"PRIMARY KEY ({columns})"
    if constraint.kind == "u":
        return f"UNIQUE ({columns})"
    if constraint.kind == "c":
        # PostgreSQL parenthesises the expression unless asked for pretty output.
        return f"CHECK ({constraint.check})" if pretty else f"CHECK (({constraint.check}))"
    assert constraint.ref_table is not None
    schema, name = constraint.ref_table
    referenced_table = catalog.find_relation(name, schema)
    target = (relation_name(catalog, referenced_table.oid, search_path)
              if referenced_table is not None else None
              ) or f"{quote_identifier(schema)}.{quote_identifier(name)}"
    referenced = ", ".join(quote_identifier(c) for c in constraint.ref_columns)
    actions = "".join(f" ON {event} {action}" for event, action in (
        ("UPDATE", constraint.on_update), ("DELETE", constraint.on_delete))
        if action and action != "NO ACTION")
    return f"FOREIGN KEY ({columns}) REFERENCES {target}({referenced}){actions}"


def _class_entry(catalog: Catalog, oid: int) -> tuple[str, str] | None:
    """(schema, name) of a pg_class row: a relation or a sequence."""
    relation = catalog.relation_by_oid(oid)
    if relation is not None:
        return relation.schema, relation.name
    for sequence in catalog.sequences.values():
        if sequence.oid == oid:
            return sequence.schema, sequence.name
    return None


def _visible(catalog: Catalog, search_path: tuple[str, ...], schema: str, name: str) -> bool:
    """Whether the unqualified name finds this relation: tables, views,
    indexes and sequences share one namespace per schema."""
    for candidate in (PG_CATALOG, *search_path):
        if (candidate, name) in catalog.relations or (candidate, name) in catalog.sequences:
            return candidate == schema
    return False


def _visible_to(context: StatementContext) -> Callable[[str, str], bool]:
    """Whether the statement's search path finds (schema, name) unqualified."""
    return lambda schema, name: _visible(context.catalog, context.search_path, schema, name)


def _table_is_visible(context: StatementContext, oid: Any) -> int:
    entry = _class_entry(context.catalog, oid_argument(oid) or 0)
    return int(entry is not None and _visible(context.catalog, context.search_path, *entry))


def relation_name(catalog: Catalog, oid: int, search_path: tuple[str, ...] | None = None
                  ) -> str | None:
    """A relation's or sequence's name as a regclass prints it: qualified
    unless ``search_path`` finds it (always, without one), quoted where needed."""
    entry = _class_entry(catalog, oid)
    if entry is None:
        return None
    schema, name = entry
    if search_path is not None and _visible(catalog, search_path, schema, name):
        return quote_identifier(name)
    return f"{quote_identifier(schema)}.{quote_identifier(name)}"


def _index_definition(context: StatementContext, oid: Any, column: Any = 0,
                      pretty: Any = 0) -> str | None:
    """pg_get_indexdef: the whole CREATE INDEX, or one key column's text."""
    index = context.catalog.relation_by_oid(oid_argument(oid) or 0)
    definition = None if index is None or index.kind != "i" else index_definition(index)
    if index is None or definition is None:
        return None
    number = oid_argument(column) or 0
    if number:
        keys = index_keys(index)
        return keys[number - 1][0] if number <= len(keys) else None
    table = context.catalog.find_relation(index.index_table or "", index.schema)
    if pretty and table is not None and _table_is_visible(context, table.oid):
        # pretty output qualifies the table only where the search path would not find it
        return definition.replace(f" ON {quote_identifier(index.schema)}.", " ON ", 1)
    return definition


def _description(catalog: Catalog, oid: Any, catalog_name: Any, subid: int = 0
                 ) -> str | None:
    """obj_description / col_description / shobj_description (without a
    catalog's name, the deprecated obj_description(oid): of any catalog)."""
    object_oid = oid_argument(oid)
    class_oid = None if catalog_name is None else KNOWN_OIDS.get(
        str(catalog_name).removeprefix("pg_catalog."))
    if object_oid is None or (class_oid is None and catalog_name is not None):
        return None
    return next((text for (objoid, classoid, objsubid), text in descriptions(catalog)
                 if (objoid, objsubid) == (object_oid, subid)
                 and class_oid in (None, classoid)), None)


# --- the functions ----------------------------------------------------------------------

@FUNCTIONS.scalar("format_type", TEXT, OID, INT4, min_args=2, max_args=2)
def _format_type(oid: Any, typmod: Any) -> Any:
    if oid is None:
        return None
    return t.format_type(int(oid), -1 if typmod is None else int(typmod),
                         typmod_given=typmod is not None)


@FUNCTIONS.runtime("pg_get_expr", TEXT, TEXT, OID, BOOL, min_args=2, max_args=3)
def _pg_get_expr(runtime: Runtime) -> Function:
    """Expressions are kept as their PostgreSQL text (pg_attrdef.adbin);
    ``pretty`` leaves out the parentheses around the whole."""
    def get_expr(expression: Any, _relation: Any = None, pretty: Any = 0) -> Any:
        if expression is None:
            return None
        text = shown_expression(str(expression), _visible_to(runtime.context()))
        return text[1:-1] if pretty and _parenthesised(text) else text
    return get_expr


def _parenthesised(text: str) -> bool:
    """Whether the whole text is one parenthesised expression."""
    depth = 0
    for position, char in enumerate(QUOTED.sub(lambda m: "_" * len(m.group(0)), text)):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return position == len(text) - 1 and char == ")"
    return False


@FUNCTIONS.runtime("pg_table_is_visible", BOOL, OID, min_args=1, max_args=1,
                   sqlite="sqlext_table_is_visible")
def _table_visibility(runtime: Runtime) -> Function:
    return lambda oid: _table_is_visible(runtime.context(), oid)


@FUNCTIONS.runtime("pg_get_userbyid", NAME, OID, min_args=1, max_args=1,
                   sqlite="sqlext_get_userbyid")
def _get_userbyid(runtime: Runtime) -> Function:
    def get_userbyid(oid: Any) -> Any:
        if oid is None:
            return None
        return runtime.context().catalog.role_name(int(oid)) or f"unknown (OID={oid})"
    return get_userbyid


@FUNCTIONS.scalar("pg_encoding_to_char", NAME, INT4, min_args=1, max_args=1,
                  sqlite="sqlext_encoding_to_char")
def _encoding_to_char(code: Any) -> Any:
    return ENCODINGS.get(oid_argument(code) or 0, "")


@FUNCTIONS.scalar("pg_char_to_encoding", INT4, NAME, min_args=1, max_args=1,
                  sqlite="sqlext_char_to_encoding")
def _char_to_encoding(name: Any) -> int:
    return next((code for code, known in ENCODINGS.items() if known == name), -1)


@FUNCTIONS.runtime("pg_get_indexdef", TEXT, OID, INT4, BOOL, min_args=1, max_args=3,
                   sqlite="sqlext_get_indexdef")
def _get_indexdef(runtime: Runtime) -> Function:
    return lambda *args: _index_definition(runtime.context(), *args)


@FUNCTIONS.runtime("pg_get_constraintdef", TEXT, OID, BOOL, min_args=1, max_args=2,
                   sqlite="sqlext_get_constraintdef")
def _get_constraintdef(runtime: Runtime) -> Function:
    def get_constraintdef(oid: Any, pretty: Any = 0) -> Any:
        context = runtime.context()
        found = _constraint(context.catalog, oid_argument(oid) or 0)
        if found is None:
            return None
        return constraint_definition(context.catalog, found[1], bool(pretty),
                                     context.search_path)
    return get_constraintdef


@FUNCTIONS.runtime("pg_get_viewdef", TEXT, OID, BOOL, min_args=1, max_args=2,
                   sqlite="sqlext_get_viewdef")
def _get_viewdef(runtime: Runtime) -> Function:
    def get_viewdef(view: Any, *_: Any) -> Any:
        context = runtime.context()
        oid = oid_argument(view)
        relation = (context.catalog.relation_by_oid(oid) if oid is not None
                    else context.catalog.find_relation(str(view), None, context.search_path))
        if relation is None:
            return None
        return view_definition(relation, _visible_to(context))
    return get_viewdef


@FUNCTIONS.runtime("pg_get_serial_sequence", TEXT, TEXT, TEXT, min_args=2, max_args=2,
                   sqlite="sqlext_get_serial_sequence")
def _get_serial_sequence(runtime: Runtime) -> Function:
    def get_serial_sequence(table: Any, column: Any) -> Any:
        context = runtime.context()
        catalog = context.catalog
        schema, _, name = str(table).rpartition(".")
        relation = catalog.find_relation(name.strip('"'), schema.strip('"') or None,
                                         context.search_path)
        if relation is None:
            return None
        for sequence in catalog.sequences.values():
            if sequence.owned_by == (relation.name, str(column)) and (
                sequence.schema == relation.schema
            ):
                return relation_name(catalog, sequence.oid)
        return None
    return get_serial_sequence


def _arguments(catalog: Catalog, oid: Any, defaults: bool) -> str | None:
    """Of procedures: "name type [DEFAULT value][, ...]"."""
    procedure = next((p for p in catalog.procedures.values() if p.oid == oid_argument(oid)), None)
    if procedure is None:
        return None
    return ", ".join(" ".join(part for part in (
        p.name, t.format_type(p.type_oid, p.typmod),
        f"DEFAULT {p.default}" if p.default and defaults else "") if part)
        for p in procedure.params)


@FUNCTIONS.runtime("pg_get_function_arguments", TEXT, OID, min_args=1, max_args=1,
                   sqlite="sqlext_function_arguments", sqlite_args=-1)
def _function_arguments(runtime: Runtime) -> Function:
    return lambda oid, *_: _arguments(runtime.context().catalog, oid, defaults=True)


@FUNCTIONS.runtime("pg_get_function_identity_arguments", TEXT, OID, min_args=1, max_args=1,
                   sqlite="sqlext_function_identity_arguments")
def _function_identity_arguments(runtime: Runtime) -> Function:
    """What names a procedure (GRANT ... ON PROCEDURE p(...)): no defaults."""
    return lambda oid: _arguments(runtime.context().catalog, oid, defaults=False)


@FUNCTIONS.runtime("obj_description", TEXT, OID, NAME, min_args=1, max_args=2,
                   names=("shobj_description",), sqlite="sqlext_obj_description",
                   sqlite_args=-1)
def _obj_description(runtime: Runtime) -> Function:
    return lambda oid, catalog_name=None: _description(runtime.context().catalog, oid,
                                                       catalog_name)


@FUNCTIONS.runtime("col_description", TEXT, OID, INT4, min_args=2, max_args=2)
def _col_description(runtime: Runtime) -> Function:
    return lambda table, column: _description(runtime.context().catalog, table, "pg_class",
                                              oid_argument(column) or 0)


@FUNCTIONS.scalar("pg_size_pretty", TEXT, INT8, min_args=1, max_args=1,
                  sqlite="sqlext_size_pretty")
def _size_pretty(size: Any) -> Any:
    return None if size is None else f"{int(size)} bytes"


@FUNCTIONS.scalar("pg_postmaster_start_time", TIMESTAMPTZ, max_args=0,
                  sqlite="sqlext_postmaster_start_time")
def _postmaster_start_time() -> str:
    return _STARTED.strftime("%Y-%m-%d %H:%M:%S.%f")


# --- what sqlext does not have: privileges are checked when statements run,
# sizes are not tracked, no table is partitioned, nothing is published ------------------

@FUNCTIONS.scalar("pg_type_is_visible", BOOL, OID, min_args=1, max_args=1, sqlite="sqlext_yes",
                  names=("pg_function_is_visible", "pg_conversion_is_visible",
                         "pg_opclass_is_visible", "pg_opfamily_is_visible"))
@FUNCTIONS.scalar("has_table_privilege", BOOL, TEXT, min_args=1, max_args=4,
                  sqlite="sqlext_yes",
                  names=("has_schema_privilege", "has_database_privilege",
                         "has_column_privilege", "has_function_privilege",
                         "has_sequence_privilege"))
def _yes(*_: Any) -> int:
    return 1


@FUNCTIONS.scalar("pg_relation_is_publishable", BOOL, OID, min_args=1, max_args=1,
                  sqlite="sqlext_no", names=("pg_is_other_temp_schema",))
def _no(*_: Any) -> int:
    return 0


@FUNCTIONS.scalar("pg_get_function_result", TEXT, OID, TEXT, min_args=1, max_args=3,
                  sqlite="sqlext_nothing",
                  names=("pg_get_statisticsobjdef_columns",
                         "pg_get_ruledef", "pg_get_function_sqlbody"))
def _nothing(*_: Any) -> None:
    return None


@FUNCTIONS.scalar("pg_my_temp_schema", OID, max_args=0, sqlite="sqlext_zero")
@FUNCTIONS.scalar("pg_relation_size", INT8, OID, TEXT, min_args=1, max_args=2,
                  sqlite="sqlext_zero")
@FUNCTIONS.scalar("pg_total_relation_size", INT8, OID, min_args=1, max_args=1,
                  sqlite="sqlext_zero", names=("pg_table_size", "pg_indexes_size"))
@FUNCTIONS.scalar("pg_database_size", INT8, NAME, min_args=1, max_args=1, sqlite="sqlext_zero")
def _zero(*_: Any) -> int:
    return 0


@FUNCTIONS.scalar("pg_tablespace_location", TEXT, OID, min_args=1, max_args=1,
                  sqlite="sqlext_empty")
def _empty(*_: Any) -> str:
    return ""


# No table is partitioned, so a table's partition ancestry is itself.
@FUNCTIONS.scalar("pg_partition_ancestors", SqlType(t.REGCLASS), SqlType(t.REGCLASS),
                  min_args=1, max_args=1, sqlite="sqlext_same", names=("pg_partition_root",))
def _same(value: Any) -> Any:
    return value


# --- to_regclass() and friends: a name looked up, NULL when nothing has it -----------------

def _relation_name(text: str, database: str | None) -> list[str]:
    """[schema,] name of a relation name as to_regclass() reads it: a name
    it cannot read is an error, not NULL, as in PostgreSQL. A three-part
    name must name ``database`` (any database when it is None)."""
    parts = name_parts(text)
    if parts is None:
        raise errors.InvalidName("invalid name syntax")
    if len(parts) > 3:
        raise errors.SqlSyntaxError(f"improper relation name (too many dotted names): {text}")
    if len(parts) == 3:
        if database is not None and parts[0] != database:
            raise errors.FeatureNotSupported(
                f"cross-database references are not implemented: {text}")
        parts = parts[1:]
    return parts


def _relation_oid(catalog: Catalog, parts: list[str], search_path: tuple[str, ...]
                  ) -> int | None:
    """The OID of the relation or sequence ``[schema,] name`` names, if any."""
    schema = parts[0] if len(parts) == 2 else None
    if schema is not None and schema not in catalog.schemas:
        return None
    relation = catalog.find_relation(parts[-1], schema, search_path)
    if relation is not None:
        return relation.oid
    sequence = catalog.find_sequence(parts[-1], schema, search_path)
    return None if sequence is None else sequence.oid


def reg_input(catalog: Catalog, search_path: tuple[str, ...], database: str | None,
              text: str, oid: int) -> int | str:
    """A regclass, regtype, regnamespace or regproc value read from text, as
    its input function reads it: a number is the OID itself, a name is looked
    up and must exist. regproc values stay names (there are no pg_proc OIDs)."""
    name = text.strip()
    if name.isdigit():
        return int(name)
    if oid == t.REGPROC:
        return name.rpartition(".")[2]
    if oid == t.REGTYPE:
        return t.lookup_name(name).oid
    if oid == t.REGNAMESPACE:
        parts = name_parts(name)
        if parts is None or len(parts) != 1:
            raise errors.InvalidName("invalid name syntax")
        schema = catalog.schemas.get(parts[0])
        if schema is None:
            raise errors.InvalidSchemaName(f'schema "{parts[0]}" does not exist')
        return schema.oid
    if oid != t.REGCLASS:
        raise errors.InvalidTextRepresentation(
            f'invalid input syntax for type {t.format_type(oid)}: "{text}"')
    parts = _relation_name(name, database)
    found = _relation_oid(catalog, parts, search_path)
    if found is None:
        raise errors.UndefinedTable(f'relation "{name}" does not exist')
    return found


@FUNCTIONS.internal("sqlext_reg_in", 2, runtime=True)
def _reg_in(runtime: Runtime) -> Function:
    """Text cast to a reg type at run time (a parameter, a column)."""
    def reg_in(value: Any, oid: int) -> Any:
        if value is None or not isinstance(value, str):
            return value
        context = runtime.context()
        return reg_input(context.catalog, context.search_path, context.database, value, oid)
    return reg_in


@FUNCTIONS.runtime("to_regclass", SqlType(t.REGCLASS), TEXT, min_args=1, max_args=1,
                   sqlite="sqlext_to_regclass")
def _to_regclass(runtime: Runtime) -> Function:
    def to_regclass(text: Any) -> int | None:
        if text is None:
            return None
        context = runtime.context()
        parts = _relation_name(str(text), context.database)
        return _relation_oid(context.catalog, parts, context.search_path)
    return to_regclass


@FUNCTIONS.scalar("to_regtype", SqlType(t.REGTYPE), TEXT, min_args=1, max_args=1,
                  sqlite="sqlext_to_regtype")
def _to_regtype(text: Any) -> int | None:
    if text is None:
        return None
    try:
        return t.lookup_name(str(text)).oid
    except errors.UndefinedObject:
        return None


@FUNCTIONS.runtime("to_regnamespace", SqlType(t.REGNAMESPACE), TEXT, min_args=1, max_args=1,
                   sqlite="sqlext_to_regnamespace")
def _to_regnamespace(runtime: Runtime) -> Function:
    def to_regnamespace(text: Any) -> int | None:
        parts = None if text is None else name_parts(str(text))
        if parts is None or len(parts) != 1:
            return None
        schema = runtime.context().catalog.schemas.get(parts[0])
        return None if schema is None else schema.oid
    return to_regnamespace
