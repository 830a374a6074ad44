"""ALTER TABLE: ADD COLUMN, DROP COLUMN (with what depends on the column,
``executor.ddl.drops``), RENAME and RENAME COLUMN (whatever names the table
or column elsewhere follows, ``catalog.renames``; views keep working, bound
to the table as in PostgreSQL), ALTER COLUMN SET / DROP DEFAULT and ADD
CONSTRAINT (``executor.ddl.table_constraints``)."""

from __future__ import annotations

from dataclasses import replace

from catalog import errors, renames
from catalog import types as t
from catalog.extension import EXTENSION_NAME
from catalog.schema import Catalog, Column, Relation
from executor import matview_maintenance
from executor.ddl.drops import drop_dependents
from executor.ddl.relations import (
    AlterTable,
    DdlResult,
    rebuild_table,
    referencing_tables,
    storage_name,
)
from executor.ddl.table_constraints import (
    add_constraint,
    drop_constraint,
    set_default,
    set_not_null,
)
from storage.sqlite import Database, quoted


def alter_table(spec: AlterTable, catalog: Catalog, database: Database) -> DdlResult:
    relation = catalog.find_relation(spec.name, spec.schema)
    if relation is None:
        if spec.if_exists:
            return DdlResult(catalog, "ALTER TABLE",
                             [f'relation "{spec.name}" does not exist, skipping'])
        raise errors.UndefinedTable(f'relation "{spec.name}" does not exist')
    if relation.kind != "r":
        raise errors.WrongObjectType(f'"{spec.name}" is not a table')
    if catalog.extension is not None and relation.oid == catalog.extension.table_oid:
        raise errors.FeatureNotSupported(
            f'cannot alter table "{spec.name}": it belongs to extension {EXTENSION_NAME}')
    if relation.stream is not None or relation.window is not None:
        raise errors.FeatureNotSupported(
            f'cannot alter {relation.kind_name} "{spec.name}"',
            hint=f"Drop the {relation.kind_name} and create it again.")
    if spec.rename_column or spec.rename_to:
        matview_maintenance.check_alterable(relation, catalog,
                                            f"rename table {spec.name} or its columns")
    for column in spec.add_columns:
        if any(c.name == column.name for c in relation.columns):
            raise errors.DuplicateColumn(
                f'column "{column.name}" of relation "{relation.name}" already exists')
        if column.not_null and column.default is None:
            count = database.execute(f"SELECT count(*) FROM {quoted(relation.physical)}")
            if count.fetchone()[0]:
                raise errors.NotNullViolation(
                    f'column "{column.name}" of relation "{relation.name}" contains null '
                    "values")
        declared = t.storage_declaration(column.type_oid, column.typmod)
        database.execute(f"ALTER TABLE {quoted(relation.physical)} ADD COLUMN "
                         f"{quoted(column.name)} {declared}")
        if column.default_sqlite is not None:
            # Existing rows take the default, as in PostgreSQL.
            database.execute(f"UPDATE {quoted(relation.physical)} SET {quoted(column.name)} = "
                             f"{column.default_sqlite}")
        relation = replace(relation, columns=(*relation.columns, Column(
            column.name, column.type_oid, column.typmod, column.not_null, column.default)))
    for column, default in spec.set_defaults:
        relation = set_default(relation, column, default)
    for column, not_null in spec.nullability:
        relation = set_not_null(relation, column, not_null, database)
    catalog = catalog.with_relation(relation)
    for constraint in spec.add_constraints:
        catalog = add_constraint(relation, constraint, catalog, database)
        relation = catalog.relation(relation.name, relation.schema)
    cascaded: list[str] = []
    notices: list[str] = []
    for name, if_exists, cascade in spec.drop_constraints:
        catalog = drop_constraint(relation, name, if_exists, cascade, catalog, database,
                                  notices, cascaded)
        relation = catalog.relation(relation.name, relation.schema)
    for name, cascade in spec.drop_columns:
        catalog, relation = _drop_column(relation, name, catalog, database, cascade, cascaded)
    if spec.rename_column is not None:
        old, new = spec.rename_column
        relation.column(old)
        if any(c.name == new for c in relation.columns):
            raise errors.DuplicateColumn(
                f'column "{new}" of relation "{relation.name}" already exists')
        database.execute(f"ALTER TABLE {quoted(relation.physical)} RENAME COLUMN "
                         f"{quoted(old)} TO {quoted(new)}")
        catalog = renames.column_renamed(catalog, relation, old, new)
        relation = catalog.relation(relation.name, relation.schema)
    if spec.rename_to is not None:
        if catalog.find_relation(spec.rename_to, relation.schema) is not None:
            raise errors.DuplicateTable(f'relation "{spec.rename_to}" already exists')
        physical = storage_name(relation.schema, spec.rename_to, catalog)
        database.execute(f"ALTER TABLE {quoted(relation.physical)} RENAME TO {quoted(physical)}")
        catalog = renames.table_renamed(catalog, relation, spec.rename_to, physical)
    return DdlResult(catalog, "ALTER TABLE", notices, cascaded=cascaded)


def _drop_column(table: Relation, name: str, catalog: Catalog, database: Database,
                 cascade: bool, cascaded: list[str]) -> tuple[Catalog, Relation]:
    """DROP COLUMN as PostgreSQL does it: what uses the column elsewhere (a
    view, another table's foreign key) makes it fail with 2BP01, or goes
    first with CASCADE; the indexes and constraints of the table that use
    it go with it. SQLite drops no constraint, so a table that loses one is
    rebuilt."""
    table.column(name)
    if name == table.partition_key:
        raise errors.InvalidTableDefinition(
            f'cannot drop column "{name}" because it is part of the partition key of relation '
            f'"{table.name}"')
    catalog = drop_dependents([(table, name)], catalog, database, cascade, cascaded)
    if len(table.columns) == 1:
        raise errors.FeatureNotSupported(
            f'cannot drop column "{name}", the only column of table "{table.name}"',
            hint="Tables need at least one column here: add another column first.")
    matview_maintenance.check_alterable(table, catalog,
                                        f"drop column {name} of table {table.name}")
    for index in list(catalog.indexes_of(table)):
        if name in index.index_columns:
            if not any(c.index_name == index.name for c in table.constraints):
                database.execute(f"DROP INDEX {quoted(index.physical)}")
            catalog = catalog.without_relation(index.schema, index.name)
    kept = tuple(c for c in table.constraints if name not in c.columns)
    changed = replace(table, columns=tuple(c for c in table.columns if c.name != name),
                      constraints=kept)
    if kept != table.constraints:
        referencing = referencing_tables(catalog, table)
        if referencing:
            # SQLite cannot rebuild a table other tables' foreign keys point at.
            raise errors.FeatureNotSupported(
                f"cannot drop column {name} of table {table.name}: a constraint on it would "
                f"be dropped, and table {referencing[0].name} references table {table.name}",
                hint="Drop the foreign key first, or the table's constraint on the column.")
        rebuild_table(table, changed, catalog, database)
    else:
        database.execute(f"ALTER TABLE {quoted(table.physical)} DROP COLUMN {quoted(name)}")
    return catalog.with_relation(changed), changed
