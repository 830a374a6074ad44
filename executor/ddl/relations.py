"""Schema changes: what the dialect layer asks for (specs) and how the
executor applies them to SQLite and to the working catalog.

Each ``apply_*`` runs inside the owner's transaction: the SQLite DDL and the
new catalog value are published together at COMMIT or vanish at ROLLBACK.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from catalog import errors
from catalog import types as t
from catalog.dataflow import BATCH_ID, StreamOptions
from catalog.extension_members import check_changeable
from catalog.introspection import quote_identifier
from catalog.matviews import Matview
from catalog.partitioning import check_key_type
from catalog.schema import (
    PUBLIC,
    Catalog,
    Column,
    Constraint,
    Relation,
    Schema,
    Sequence,
    ViewRule,
)
from executor import matview_maintenance
from executor.ddl.partitioned import owner_check
from storage.sqlite import Database, OperationalError, quoted


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    name: str
    type_oid: int
    typmod: int = -1
    not_null: bool = False
    default: str | None = None
    serial: bool = False
    default_sqlite: str | None = None
    """ALTER TABLE ADD COLUMN: the default as SQLite SQL, to fill existing rows."""
    identity: str = ""
    """An identity column (serial too): 'a' GENERATED ALWAYS, 'd' BY DEFAULT."""
    start: int = 1
    increment: int = 1
    """A serial or identity column's sequence."""


@dataclass(frozen=True, slots=True)
class ConstraintSpec:
    kind: str
    """'p', 'u', 'c' or 'f' (as pg_constraint.contype)."""
    columns: tuple[str, ...] = ()
    name: str | None = None
    check_sql: str | None = None
    """CHECK: PostgreSQL text (shown to clients)."""
    check_sqlite: str | None = None
    """CHECK: the same condition translated for SQLite."""
    ref_table: tuple[str, str] | None = None
    ref_columns: tuple[str, ...] = ()
    on_delete: str | None = None
    on_update: str | None = None


@dataclass(frozen=True, slots=True)
class CreateTable:
    schema: str
    name: str
    columns: tuple[ColumnSpec, ...]
    constraints: tuple[ConstraintSpec, ...] = ()
    if_not_exists: bool = False
    stream: StreamOptions | None = None
    """CREATE STREAM: the stream's options."""
    partition_key: str | None = None
    """PARTITION BY HASH (column): the column that places rows on nodes."""


@dataclass(frozen=True, slots=True)
class Predicate:
    """A partial index's WHERE condition."""

    text: str
    """As pg_get_expr prints it."""
    sqlite: str
    """As SQLite evaluates it."""


@dataclass(frozen=True, slots=True)
class CreateIndex:
    schema: str
    name: str | None
    table: str
    columns: tuple[tuple[str, bool], ...]
    """(column, descending) pairs."""
    unique: bool = False
    if_not_exists: bool = False
    predicate: Predicate | None = None


@dataclass(frozen=True, slots=True)
class CreateView:
    schema: str
    name: str
    definition: str
    """The SELECT as PostgreSQL text (pg_get_viewdef)."""
    sqlite_query: str
    columns: tuple[Column, ...]
    replace: bool = False
    reads: tuple[tuple[str, str], ...] = ()
    """The relations its query reads (their readers' privileges are checked)."""
    uses: tuple[tuple[int, tuple[str, ...]], ...] = ()
    """What the view depends on (``ViewRule.reads``)."""


@dataclass(frozen=True, slots=True)
class CreateMatview:
    schema: str
    name: str
    physical: str
    definition: str
    columns: tuple[Column, ...]
    create: tuple[str, ...]
    """SQLite statements making its storage and triggers (then it is populated)."""
    matview: Matview
    notice: str | None = None
    if_not_exists: bool = False
    uses: tuple[tuple[int, tuple[str, ...]], ...] = ()
    """What the view depends on (``ViewRule.reads``)."""


@dataclass(frozen=True, slots=True)
class RefreshMatview:
    schema: str | None
    name: str


@dataclass(frozen=True, slots=True)
class CreateSchema:
    name: str
    if_not_exists: bool = False


@dataclass(frozen=True, slots=True)
class CreateSequence:
    schema: str
    name: str
    start: int = 1
    increment: int = 1
    if_not_exists: bool = False
    type_oid: int = t.INT8


@dataclass(frozen=True, slots=True)
class Drop:
    """Applied by ``executor.ddl.drops`` (``drop_schema`` for schemas)."""

    kind: str
    """'table', 'view', 'index', 'sequence' or 'schema'."""
    names: tuple[tuple[str | None, str], ...]
    if_exists: bool = False
    cascade: bool = False


@dataclass(frozen=True, slots=True)
class Truncate:
    tables: tuple[tuple[str | None, str], ...]


@dataclass(frozen=True, slots=True)
class AlterTable:
    """Applied by ``executor.ddl.alter_table``."""

    schema: str | None
    name: str
    add_columns: tuple[ColumnSpec, ...] = ()
    drop_columns: tuple[tuple[str, bool], ...] = ()
    """(column, CASCADE: what uses it goes with it)."""
    rename_to: str | None = None
    rename_column: tuple[str, str] | None = None
    if_exists: bool = False
    set_defaults: tuple[tuple[str, str | None], ...] = ()
    """ALTER COLUMN ... SET DEFAULT (PostgreSQL text) | DROP DEFAULT (None)."""
    add_constraints: tuple[ConstraintSpec, ...] = ()
    drop_constraints: tuple[tuple[str, bool, bool], ...] = ()
    """DROP CONSTRAINT (name, IF EXISTS, CASCADE)."""
    nullability: tuple[tuple[str, bool], ...] = ()
    """ALTER COLUMN ... SET NOT NULL (True) | DROP NOT NULL (False)."""


CreateSpec = (CreateTable | CreateIndex | CreateView | CreateMatview | RefreshMatview
              | CreateSchema | CreateSequence | Truncate)
"""The changes ``apply`` makes."""
DdlSpec = CreateSpec | Drop | AlterTable


@dataclass
class DdlResult:
    catalog: Catalog
    tag: str
    notices: list[str] = field(default_factory=list)
    cascaded: list[str] = field(default_factory=list)
    """What CASCADE dropped besides the objects named (``view v``): one
    NOTICE says it (``catalog.dependencies.cascade_notice``)."""
    warnings: list[tuple[str, str]] = field(default_factory=list)
    """(SQLSTATE, message) of each WARNING the change gives."""


def storage_name(schema: str, name: str, catalog: Catalog | None = None) -> str:
    """What SQLite calls a relation. Its names ignore case, so where another
    relation's name differs only in case (``"Orders"`` beside ``orders``) a
    suffix keeps them apart (``catalog``: the relations there are)."""
    base = name if schema == PUBLIC else f"{schema}.{name}"
    if catalog is None:
        return base
    taken = {r.physical.casefold() for key, r in catalog.relations.items()
             if key != (schema, name)}
    physical, number = base, 1
    while physical.casefold() in taken:
        number += 1
        physical = f"{base}~{number}"
    return physical


def _sqlite_column(spec: ColumnSpec, primary: bool) -> str:
    declared = t.storage_declaration(spec.type_oid, spec.typmod)
    if primary and declared == "INTEGER":
        declared = "INT"  # not a rowid alias: NULL must fail, not get a rowid
    parts = [quoted(spec.name)]
    if declared:
        parts.append(declared)
    if spec.not_null or primary:
        parts.append("NOT NULL")
    return " ".join(parts)


def constraint_name(table: str, spec: ConstraintSpec) -> str:
    if spec.name:
        return spec.name
    suffix = {"p": "pkey", "u": "key", "c": "check", "f": "fkey"}[spec.kind]
    if spec.kind == "p":
        return f"{table}_pkey"
    columns = "_".join(spec.columns) if spec.columns else ""
    return f"{table}_{columns}_{suffix}" if columns else f"{table}_{suffix}"


def sqlite_constraint(spec: ConstraintSpec, name: str, catalog: Catalog,
                       creating: tuple[str, str, str]) -> str:
    """``creating``: (schema, name, storage name) of the table the constraint
    is for, which a foreign key may reference."""
    columns = ", ".join(quoted(c) for c in spec.columns)
    if spec.kind == "p":
        return f"CONSTRAINT {quoted(name)} PRIMARY KEY ({columns})"
    if spec.kind == "u":
        return f"CONSTRAINT {quoted(name)} UNIQUE ({columns})"
    if spec.kind == "c":
        return f"CONSTRAINT {quoted(name)} CHECK ({spec.check_sqlite})"
    assert spec.ref_table is not None
    if spec.ref_table == creating[:2]:
        physical = creating[2]
    else:
        physical = catalog.relation(spec.ref_table[1], spec.ref_table[0]).physical
    referenced = ", ".join(quoted(c) for c in spec.ref_columns)
    actions = ""
    if spec.on_delete:
        actions += f" ON DELETE {spec.on_delete}"
    if spec.on_update:
        actions += f" ON UPDATE {spec.on_update}"
    return (f"CONSTRAINT {quoted(name)} FOREIGN KEY ({columns}) REFERENCES "
            f"{quoted(physical)} ({referenced}){actions}")


def apply(spec: CreateSpec, catalog: Catalog, database: Database) -> DdlResult:
    """Apply one schema change; returns the new catalog and the command tag."""
    if isinstance(spec, CreateTable):
        return _create_table(spec, catalog, database)
    if isinstance(spec, CreateIndex):
        return _create_index(spec, catalog, database)
    if isinstance(spec, CreateView):
        return _create_view(spec, catalog, database)
    if isinstance(spec, CreateMatview):
        return _create_matview(spec, catalog, database)
    if isinstance(spec, RefreshMatview):
        matview = matview_maintenance.matview(catalog, spec.schema, spec.name)
        matview_maintenance.refresh(matview, database)
        return DdlResult(catalog, "REFRESH MATERIALIZED VIEW")
    if isinstance(spec, CreateSchema):
        return _create_schema(spec, catalog)
    if isinstance(spec, CreateSequence):
        return _create_sequence(spec, catalog)
    return _truncate(spec, catalog, database)


def _exists_notice(kind: str, name: str) -> str:
    return f'{kind} "{name}" already exists, skipping'


def _create_table(spec: CreateTable, catalog: Catalog, database: Database) -> DdlResult:
    if spec.schema not in catalog.schemas:
        raise errors.InvalidSchemaName(f'schema "{spec.schema}" does not exist')
    if catalog.find_relation(spec.name, spec.schema) is not None:
        if spec.if_not_exists:
            return DdlResult(catalog, "CREATE TABLE", [_exists_notice("relation", spec.name)])
        raise errors.DuplicateTable(f'relation "{spec.name}" already exists')
    names = [c.name for c in spec.columns]
    for name in names:
        if names.count(name) > 1:
            raise errors.DuplicateColumn(f'column "{name}" specified more than once')
    if spec.stream is not None:
        _check_stream_columns(spec)
    if spec.partition_key is not None:
        _check_partition_key(spec)
    primary = next((c for c in spec.constraints if c.kind == "p"), None)
    if sum(1 for c in spec.constraints if c.kind == "p") > 1:
        raise errors.InvalidTableDefinition(
            f'multiple primary keys for table "{spec.name}" are not allowed')
    for constraint in spec.constraints:
        for column in constraint.columns:
            if column not in names:
                raise errors.UndefinedColumn(
                    f'column "{column}" named in key does not exist')
    # the table, a constraint and its index each, a sequence per column at
    # most, the row type and its array type last
    count = 4 + len(spec.constraints) * 2 + len(spec.columns)
    catalog, oid = catalog.allocate_oids(count)
    next_oid = oid + 1
    physical = storage_name(spec.schema, spec.name, catalog)
    columns: list[Column] = []
    sequences: list[Sequence] = []
    for column in spec.columns:
        default = column.default
        if column.serial:
            sequence = owned_sequence(next_oid, spec.schema, spec.name, column)
            sequences.append(sequence)
            next_oid += 1
            default = nextval_default(sequence)
        in_primary = primary is not None and column.name in primary.columns
        columns.append(Column(column.name, column.type_oid, column.typmod,
                              column.not_null or column.serial or in_primary, default,
                              identity=column.identity))
    constraints: list[Constraint] = []
    clauses = [_sqlite_column(c, primary is not None and c.name in primary.columns)
               for c in spec.columns]
    indexes: list[Relation] = []
    for constraint in spec.constraints:
        name = constraint_name(spec.name, constraint)
        if any(existing.name == name for existing in constraints):
            raise errors.DuplicateObject(f'constraint "{name}" for relation "{spec.name}" '
                                         "already exists")
        index_name = name if constraint.kind in ("p", "u") else None
        constraints.append(Constraint(
            name, constraint.kind, constraint.columns, constraint.check_sql,
            constraint.ref_table, constraint.ref_columns, index_name, next_oid,
            constraint.on_delete, constraint.on_update))
        next_oid += 1
        if index_name is not None:
            indexes.append(Relation(
                next_oid, spec.schema, index_name, "i",
                storage_name(spec.schema, index_name, catalog),
                definition=index_statement(spec.schema, spec.name, index_name,
                                             [(c, False) for c in constraint.columns],
                                             unique=True),
                index_table=spec.name, index_columns=constraint.columns, unique=True,
                primary=constraint.kind == "p"))
            next_oid += 1
        clauses.append(sqlite_constraint(constraint, name, catalog,
                                          (spec.schema, spec.name, physical)))
    if spec.stream is not None:
        clauses.insert(len(spec.columns), _batch_id_column(oid, spec.stream))
    if spec.partition_key is not None:
        clauses.append(owner_check(oid, spec.partition_key))
    database.execute(f"CREATE TABLE {quoted(physical)} ({', '.join(clauses)})")
    if spec.stream is not None:
        _create_stream_storage(physical, oid, spec.stream, database)
    relation = Relation(oid, spec.schema, spec.name, "r", physical, tuple(columns),
                        tuple(constraints), stream=spec.stream, row_type=oid + count - 1,
                        partition_key=spec.partition_key)
    catalog = catalog.with_relations([relation, *indexes])
    for sequence in sequences:
        catalog = catalog.with_sequence(sequence)
    return DdlResult(catalog, "CREATE STREAM" if spec.stream else "CREATE TABLE")


def owned_sequence(oid: int, schema: str, table: str, column: ColumnSpec,
                   name: str | None = None) -> Sequence:
    """The sequence of a serial or identity column (named ``table_column_seq``
    unless ``name`` says otherwise), of the column's type."""
    type_oid = column.type_oid if column.type_oid in (t.INT2, t.INT4) else t.INT8
    return Sequence(oid, schema, name or f"{table}_{column.name}_seq", column.start,
                    column.increment, owned_by=(table, column.name), type_oid=type_oid)


def _check_stream_columns(spec: CreateTable) -> None:
    if any(c.name == BATCH_ID for c in spec.columns):
        raise errors.DuplicateColumn(
            f'column name "{BATCH_ID}" conflicts with a system column name',
            hint="Every stream has a batch_id column; give the batch column another name "
                 "and name it in WITH (batch_column = '...').")
    assert spec.stream is not None
    batch_column = spec.stream.batch_column
    if batch_column is None:
        return
    column = next((c for c in spec.columns if c.name == batch_column), None)
    if column is None:
        raise errors.UndefinedColumn(f'batch column "{batch_column}" does not exist')
    if column.type_oid not in (t.INT2, t.INT4, t.INT8):
        raise errors.DatatypeMismatch(
            f'batch column "{batch_column}" must be an integer column, not '
            f"{t.format_type(column.type_oid, column.typmod)}")


def _batch_id_column(oid: int, options: StreamOptions) -> str:
    """A stream's batch_id: numbered by the engine, or (client-assigned ids)
    the batch column itself."""
    if options.batch_column is not None:
        return (f"{quoted(BATCH_ID)} INTEGER GENERATED ALWAYS AS "
                f"({quoted(options.batch_column)}) VIRTUAL")
    return f"{quoted(BATCH_ID)} INTEGER NOT NULL DEFAULT (sqlext_batch_of({oid}))"


def _create_stream_storage(physical: str, oid: int, options: StreamOptions,
                           database: Database) -> None:
    """The batch index, and for client-assigned ids the trigger that
    accepts each batch or skips a re-delivered one."""
    database.execute(f"CREATE INDEX {quoted(physical + '__batch')} ON {quoted(physical)} "
                     f"({quoted(BATCH_ID)})")
    if options.batch_column is not None:
        database.execute(
            f"CREATE TRIGGER {quoted(physical + '__accept')} BEFORE INSERT ON "
            f"{quoted(physical)} FOR EACH ROW WHEN sqlext_accept_batch({oid}, "
            f"NEW.{quoted(options.batch_column)}) = 0 BEGIN SELECT RAISE(IGNORE); END")


def nextval_default(sequence: Sequence) -> str:
    """The default of a serial or identity column: the sequence named in
    full, as PostgreSQL binds it (pg_get_expr leaves the schema out where
    the reader's search path finds it)."""
    qualified = f"{quote_identifier(sequence.schema)}.{quote_identifier(sequence.name)}"
    return "nextval('" + qualified.replace("'", "''") + "'::regclass)"


def index_statement(schema: str, table: str, name: str, columns: list[tuple[str, bool]],
                    unique: bool) -> str:
    shown = ", ".join(quote_identifier(c) + (" DESC" if desc else "") for c, desc in columns)
    qualified = f"{quote_identifier(schema)}.{quote_identifier(table)}"
    return (f"CREATE {'UNIQUE ' if unique else ''}INDEX {quote_identifier(name)} ON {qualified} "
            f"USING btree ({shown})")


def _create_index(spec: CreateIndex, catalog: Catalog, database: Database) -> DdlResult:
    table = catalog.relation(spec.table, spec.schema)
    if table.kind != "r":
        raise errors.WrongObjectType(f'"{table.name}" is not a table')
    for column, _ in spec.columns:
        table.column(column)
    name = spec.name or f"{spec.table}_{'_'.join(c for c, _ in spec.columns)}_idx"
    if catalog.find_relation(name, table.schema) is not None:
        if spec.if_not_exists:
            return DdlResult(catalog, "CREATE INDEX", [_exists_notice("relation", name)])
        raise errors.DuplicateTable(f'relation "{name}" already exists')
    catalog, oid = catalog.allocate_oids()
    physical = storage_name(table.schema, name, catalog)
    columns = ", ".join(quoted(c) + (" DESC" if desc else "") for c, desc in spec.columns)
    unique = "UNIQUE " if spec.unique else ""
    predicate = spec.predicate
    create = f"CREATE {unique}INDEX {quoted(physical)} ON {quoted(table.physical)} ({columns})"
    try:
        database.execute(create + (f" WHERE {predicate.sqlite}" if predicate else ""))
    except OperationalError as exc:
        if spec.unique or "prohibited in partial index" not in str(exc):
            raise
        # SQLite takes no function of ours in an index's condition; a
        # non-unique index finds the same rows with all of them in it
        database.execute(create)
    index = Relation(oid, table.schema, name, "i", physical,
                     definition=index_statement(table.schema, table.name, name,
                                                  list(spec.columns), spec.unique),
                     index_table=table.name,
                     index_columns=tuple(c for c, _ in spec.columns), unique=spec.unique,
                     predicate=predicate.text if predicate else None)
    return DdlResult(catalog.with_relation(index), "CREATE INDEX")


def _create_view(spec: CreateView, catalog: Catalog, database: Database) -> DdlResult:
    existing = catalog.find_relation(spec.name, spec.schema)
    physical = storage_name(spec.schema, spec.name, catalog)
    if existing is not None:
        if not spec.replace or existing.kind != "v":
            raise errors.DuplicateTable(f'relation "{spec.name}" already exists')
        _check_replacement(existing, spec.columns)
        database.execute(f"DROP VIEW {quoted(physical)}")
        if existing.rule is not None:
            rule_oid = existing.rule.oid
        else:  # made before views recorded their rule
            catalog, rule_oid = catalog.allocate_oids()
        view = replace(existing, columns=spec.columns, definition=spec.definition,
                       rule=ViewRule(rule_oid, spec.uses))
    else:
        catalog, oid = catalog.allocate_oids(4)  # the view, its rule, its row type's two
        view = Relation(oid, spec.schema, spec.name, "v", physical, spec.columns,
                        definition=spec.definition, rule=ViewRule(oid + 1, spec.uses),
                        row_type=oid + 3)
    database.execute(f"CREATE VIEW {quoted(physical)} AS {spec.sqlite_query}")
    return DdlResult(catalog.with_relation(view), "CREATE VIEW")


def _check_replacement(view: Relation, columns: tuple[Column, ...]) -> None:
    """CREATE OR REPLACE VIEW keeps the view's columns (what depends on the
    view reads them), as PostgreSQL does; it may add columns at the end."""
    if len(columns) < len(view.columns):
        raise errors.InvalidTableDefinition("cannot drop columns from view")
    for old, new in zip(view.columns, columns, strict=False):
        if old.name != new.name:
            raise errors.InvalidTableDefinition(
                f'cannot change name of view column "{old.name}" to "{new.name}"',
                hint="Use ALTER VIEW ... RENAME COLUMN ... to change name of view column "
                     "instead.")
        if (old.type_oid, old.typmod) != (new.type_oid, new.typmod):
            raise errors.InvalidTableDefinition(
                f'cannot change data type of view column "{old.name}" from '
                f"{t.format_type(old.type_oid, old.typmod)} to "
                f"{t.format_type(new.type_oid, new.typmod)}")


def _create_matview(spec: CreateMatview, catalog: Catalog, database: Database) -> DdlResult:
    if catalog.find_relation(spec.name, spec.schema) is not None:
        if spec.if_not_exists:
            return DdlResult(catalog, "CREATE MATERIALIZED VIEW",
                             [_exists_notice("relation", spec.name)])
        raise errors.DuplicateTable(f'relation "{spec.name}" already exists')
    catalog, oid = catalog.allocate_oids(4)  # the view, its rule, its row type's two
    matview_maintenance.run(database, spec.create)
    view = Relation(oid, spec.schema, spec.name, "m", spec.physical, spec.columns,
                    definition=spec.definition, matview=spec.matview,
                    rule=ViewRule(oid + 1, spec.uses), row_type=oid + 3)
    matview_maintenance.refresh(view, database)
    rows = database.execute(f"SELECT count(*) FROM {quoted(view.physical)}").fetchone()[0]
    return DdlResult(catalog.with_relation(view), f"SELECT {rows}",
                     [spec.notice] if spec.notice else [])


def _create_schema(spec: CreateSchema, catalog: Catalog) -> DdlResult:
    if spec.name in catalog.schemas:
        if spec.if_not_exists:
            return DdlResult(catalog, "CREATE SCHEMA", [_exists_notice("schema", spec.name)])
        raise errors.DuplicateSchema(f'schema "{spec.name}" already exists')
    if spec.name.startswith("pg_"):
        raise errors.SqlError(f'unacceptable schema name "{spec.name}"',
                              detail='The prefix "pg_" is reserved for system schemas.')
    catalog, oid = catalog.allocate_oids()
    return DdlResult(catalog.with_schema(spec.name, Schema(oid)), "CREATE SCHEMA")


def _create_sequence(spec: CreateSequence, catalog: Catalog) -> DdlResult:
    if catalog.find_sequence(spec.name, spec.schema) or catalog.find_relation(
        spec.name, spec.schema
    ):
        if spec.if_not_exists:
            return DdlResult(catalog, "CREATE SEQUENCE",
                             [_exists_notice("relation", spec.name)])
        raise errors.DuplicateTable(f'relation "{spec.name}" already exists')
    catalog, oid = catalog.allocate_oids()
    sequence = Sequence(oid, spec.schema, spec.name, spec.start, spec.increment,
                        type_oid=spec.type_oid)
    return DdlResult(catalog.with_sequence(sequence), "CREATE SEQUENCE")


def referencing_tables(catalog: Catalog, relation: Relation) -> list[Relation]:
    """Tables whose foreign keys reference ``relation``."""
    return [
        other for other in catalog.relations.values()
        if other is not relation and any(
            c.kind == "f" and c.ref_table == (relation.schema, relation.name)
            for c in other.constraints)
    ]


def _check_partition_key(spec: CreateTable) -> None:
    """The key must be a column of the table, of a type the hash knows."""
    key = spec.partition_key
    column = next((c for c in spec.columns if c.name == key), None)
    if column is None:
        raise errors.UndefinedColumn(f'column "{key}" named in partition key does not exist')
    check_key_type(column.type_oid, column.name)


def rebuild_table(old: Relation, new: Relation, catalog: Catalog, database: Database) -> None:
    """Recreate a table with a new definition, keeping rows and indexes."""
    temporary = f"{new.physical}__rebuild"
    primary = new.primary_key
    clauses = [
        _sqlite_column(
            ColumnSpec(c.name, c.type_oid, c.typmod, c.not_null),
            primary is not None and c.name in primary.columns)
        for c in new.columns
    ]
    for constraint in new.constraints:
        if constraint.kind == "c":
            # as SQLite keeps it (column renames applied): the catalog has
            # only the PostgreSQL text
            check = database.table_constraint(old.physical, constraint.name)
            assert check is not None
            clauses.append(check)
            continue
        spec = ConstraintSpec(constraint.kind, constraint.columns, constraint.name,
                              constraint.check, None, constraint.ref_table,
                              constraint.ref_columns, constraint.on_delete,
                              constraint.on_update)
        clauses.append(sqlite_constraint(spec, constraint.name, catalog,
                                          (new.schema, new.name, new.physical)))
    if new.partition_key is not None:
        clauses.append(owner_check(new.oid, new.partition_key))
    shared = [c.name for c in new.columns if any(o.name == c.name for o in old.columns)]
    column_list = ", ".join(quoted(c) for c in shared)
    # the indexes as SQLite has them (partial conditions, DESC keys), made again below
    statements = database.index_statements(old.physical)
    database.execute(f"CREATE TABLE {quoted(temporary)} ({', '.join(clauses)})")
    database.execute(f"INSERT INTO {quoted(temporary)} ({column_list}) "
                     f"SELECT {column_list} FROM {quoted(old.physical)}")
    database.execute(f"DROP TABLE {quoted(old.physical)}")
    # Views on the table lack it for a moment, and SQLite's RENAME fails on
    # a view it cannot check; they name the table, not the copy, so the
    # legacy RENAME, which leaves views alone, is the right one here.
    database.execute("PRAGMA legacy_alter_table = ON")
    try:
        database.execute(f"ALTER TABLE {quoted(temporary)} RENAME TO {quoted(new.physical)}")
    finally:
        database.execute("PRAGMA legacy_alter_table = OFF")
    assert new.physical == old.physical  # the statements name the table
    for index in catalog.indexes_of(old):
        if index.unique and any(c.index_name == index.name for c in new.constraints):
            continue
        database.execute(statements[index.physical])




def _truncate(spec: Truncate, catalog: Catalog, database: Database) -> DdlResult:
    relations = [catalog.relation(name, schema) for schema, name in spec.tables]
    for relation in relations:
        if relation.kind != "r":
            raise errors.WrongObjectType(f'"{relation.name}" is not a table')
        check_changeable(catalog, relation, "truncate")
        for other in referencing_tables(catalog, relation):
            if other not in relations:
                raise errors.FeatureNotSupported(
                    "cannot truncate a table referenced in a foreign key constraint",
                    detail=f'Table "{other.name}" references "{relation.name}".',
                    hint=f'Truncate table "{other.name}" at the same time, or use '
                         "TRUNCATE ... CASCADE.")
    for relation in relations:
        database.execute(f"DELETE FROM {quoted(relation.physical)}")
    return DdlResult(catalog, "TRUNCATE TABLE")
