"""ALTER TABLE ... ADD CONSTRAINT and ALTER COLUMN ... SET / DROP DEFAULT.

As in PostgreSQL, a constraint is checked against the rows the table holds
before it is added. Primary keys and unique constraints become unique
indexes (SQLite enforces a key through any unique index, foreign keys
pointing at it included); CHECK and FOREIGN KEY clauses join the table's
definition without copying the table (``Database.add_table_constraint``),
so tables other foreign keys point at keep their rows.
"""

from __future__ import annotations

from dataclasses import replace

from catalog import errors
from catalog.schema import Catalog, Constraint, Relation
from executor.ddl.relations import (
    ConstraintSpec,
    constraint_name,
    index_statement,
    sqlite_constraint,
    storage_name,
)
from storage.sqlite import Database, quoted


def set_default(table: Relation, column: str, default: str | None) -> Relation:
    found = table.column(column)
    if found.identity:
        raise errors.SqlSyntaxError(
            f'column "{column}" of relation "{table.name}" is an identity column',
            hint="Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead.")
    return replace(table, columns=tuple(replace(c, default=default) if c.name == column else c
                                        for c in table.columns))


def set_not_null(table: Relation, column: str, not_null: bool, database: Database
                 ) -> Relation:
    """ALTER COLUMN ... SET NOT NULL (the rows are checked first) | DROP NOT
    NULL (not of a primary key's or an identity column)."""
    found = table.column(column)
    if not_null and not found.not_null:
        _check_rows(database, table, f"{quoted(column)} IS NULL", errors.NotNullViolation(
            f'column "{column}" of relation "{table.name}" contains null values'))
    elif not not_null and found.not_null:
        primary = table.primary_key
        if primary is not None and column in primary.columns:
            raise errors.InvalidTableDefinition(f'column "{column}" is in a primary key')
        if found.identity:
            raise errors.SqlSyntaxError(
                f'column "{column}" of relation "{table.name}" is an identity column')
    if found.not_null != not_null:
        database.set_column_not_null(table.physical, column, not_null)
    return replace(table, columns=tuple(replace(c, not_null=not_null) if c.name == column else c
                                        for c in table.columns))


def add_constraint(table: Relation, spec: ConstraintSpec, catalog: Catalog,
                   database: Database) -> Catalog:
    """The catalog with ``spec`` added to ``table`` (checked against its rows)."""
    if spec.kind == "p" and table.primary_key is not None:
        raise errors.InvalidTableDefinition(
            f'multiple primary keys for table "{table.name}" are not allowed')
    name = spec.name or _free_name(constraint_name(table.name, spec), table, catalog)
    if spec.kind in ("p", "u") and catalog.find_relation(name, table.schema) is not None:
        raise errors.DuplicateTable(f'relation "{name}" already exists')
    if any(c.name == name for c in table.constraints):
        raise errors.DuplicateObject(
            f'constraint "{name}" for relation "{table.name}" already exists')
    for column in spec.columns:
        table.column(column)
    catalog, oid = catalog.allocate_oids(2)
    index_name = name if spec.kind in ("p", "u") else None
    constraint = Constraint(name, spec.kind, spec.columns, spec.check_sql, spec.ref_table,
                            spec.ref_columns, index_name, oid, spec.on_delete, spec.on_update)
    if spec.kind in ("p", "u"):
        return _add_key(table, constraint, oid + 1, catalog, database)
    if spec.kind == "c":
        _check_rows(database, table, f"NOT ({spec.check_sqlite})", errors.CheckViolation(
            f'check constraint "{name}" of relation "{table.name}" is violated by some row'))
    else:
        _check_references(table, constraint, catalog, database)
    database.add_table_constraint(table.physical, sqlite_constraint(
        spec, name, catalog, (table.schema, table.name, table.physical)))
    return catalog.with_relation(replace(table, constraints=(*table.constraints, constraint)))


def _free_name(name: str, table: Relation, catalog: Catalog) -> str:
    """The name PostgreSQL gives an unnamed constraint: the usual one, or
    with 1, 2... added while a relation of the schema or a constraint of
    the table has it."""
    candidate, number = name, 0
    while catalog.find_relation(candidate, table.schema) is not None or any(
            c.name == candidate for c in table.constraints):
        number += 1
        candidate = f"{name}{number}"
    return candidate


def _check_rows(database: Database, table: Relation, failing: str,
                error: errors.SqlError) -> None:
    found = database.execute(
        f"SELECT 1 FROM {quoted(table.physical)} WHERE {failing} LIMIT 1").fetchone()
    if found is not None:
        raise error


def _add_key(table: Relation, constraint: Constraint, index_oid: int, catalog: Catalog,
             database: Database) -> Catalog:
    """A primary key or unique constraint: its unique index (a primary
    key's columns become NOT NULL; they must hold no NULL)."""
    primary = constraint.kind == "p"
    columns = constraint.columns
    if primary:
        for column in columns:
            if not table.column(column).not_null:
                # SQLite cannot add NOT NULL to a column without copying its table.
                raise errors.FeatureNotSupported(
                    f'column "{column}" of a primary key added to table "{table.name}" '
                    "must be declared NOT NULL",
                    hint="Add the primary key in CREATE TABLE, or ALTER TABLE with NOT NULL "
                         "columns.")
    physical = storage_name(table.schema, constraint.name, catalog)
    listed = ", ".join(quoted(c) for c in columns)
    duplicate = database.execute(
        f"SELECT {listed} FROM {quoted(table.physical)} WHERE "
        + " AND ".join(f"{quoted(c)} IS NOT NULL" for c in columns)
        + f" GROUP BY {listed} HAVING count(*) > 1 LIMIT 1").fetchone()
    if duplicate is not None:
        raise errors.UniqueViolation(
            f'could not create unique index "{constraint.name}"',
            detail=f"Key ({', '.join(columns)})=({', '.join(map(str, duplicate))}) is "
                   "duplicated.")
    database.execute(f"CREATE UNIQUE INDEX {quoted(physical)} ON {quoted(table.physical)} "
                     f"({listed})")
    index = Relation(index_oid, table.schema, constraint.name, "i", physical,
                     definition=index_statement(table.schema, table.name, constraint.name,
                                                 [(c, False) for c in columns], unique=True),
                     index_table=table.name, index_columns=columns, unique=True,
                     primary=primary, owner=table.owner)
    keyed = tuple(replace(c, not_null=True) if primary and c.name in columns else c
                  for c in table.columns)
    return catalog.with_relations([replace(table, columns=keyed,
                                           constraints=(*table.constraints, constraint)),
                                   index])


def _check_references(table: Relation, constraint: Constraint, catalog: Catalog,
                      database: Database) -> None:
    """A foreign key (its compiler made sure it references a key): every
    row's values (with no NULL among them) must be there."""
    assert constraint.ref_table is not None
    schema, name = constraint.ref_table
    referenced = catalog.relation(name, schema)
    for column in constraint.ref_columns:
        referenced.column(column)
    if len(constraint.ref_columns) != len(constraint.columns):
        raise errors.InvalidForeignKey(
            "number of referencing and referenced columns for foreign key disagree")
    present = " AND ".join(f"r.{quoted(theirs)} = t.{quoted(ours)}" for ours, theirs in zip(
        constraint.columns, constraint.ref_columns, strict=True))
    missing = database.execute(
        f"SELECT {', '.join(f't.{quoted(c)}' for c in constraint.columns)} FROM "
        f"{quoted(table.physical)} AS t WHERE "
        + " AND ".join(f"t.{quoted(c)} IS NOT NULL" for c in constraint.columns)
        + f" AND NOT EXISTS (SELECT 1 FROM {quoted(referenced.physical)} AS r WHERE {present})"
        " LIMIT 1").fetchone()
    if missing is not None:
        raise errors.ForeignKeyViolation(
            f'insert or update on table "{table.name}" violates foreign key constraint '
            f'"{constraint.name}"',
            detail=f"Key ({', '.join(constraint.columns)})=({', '.join(map(str, missing))}) "
                   f'is not present in table "{referenced.name}".')


def drop_constraint(table: Relation, name: str, if_exists: bool, cascade: bool,
                    catalog: Catalog, database: Database, notices: list[str],
                    cascaded: list[str]) -> Catalog:
    """ALTER TABLE ... DROP CONSTRAINT: a CHECK or FOREIGN KEY leaves the
    table's definition (``Database.remove_table_constraint``); a key added
    by ALTER TABLE drops its unique index, once the foreign keys that
    reference it are gone (CASCADE) or none does (else 2BP01)."""
    constraint = next((c for c in table.constraints if c.name == name), None)
    if constraint is None:
        if if_exists:
            notices.append(f'constraint "{name}" of relation "{table.name}" does not exist, '
                           "skipping")
            return catalog
        raise errors.UndefinedObject(
            f'constraint "{name}" of relation "{table.name}" does not exist')
    if constraint.kind in ("c", "f"):
        database.remove_table_constraint(table.physical, name)
        return _without(catalog, table, name)
    if database.table_constraint(table.physical, name) is not None:
        # SQLite keeps a key made with its table inside the table's storage.
        raise errors.FeatureNotSupported(
            f'cannot drop constraint "{name}" of table "{table.name}": it was made with the '
            "table", hint="Keys added by ALTER TABLE ... ADD CONSTRAINT can be dropped.")
    for other in list(catalog.relations.values()):
        for reference in other.constraints:
            if reference.kind == "f" and reference.ref_table == (table.schema, table.name) and (
                    set(reference.ref_columns) == set(constraint.columns)):
                if not cascade:
                    raise errors.DependentObjectsStillExist(
                        f'cannot drop constraint {name} on table {table.name} because other '
                        "objects depend on it",
                        detail=f"constraint {reference.name} on table {other.name} depends on "
                               f"index {name}",
                        hint="Use DROP ... CASCADE to drop the dependent objects too.")
                database.remove_table_constraint(other.physical, reference.name)
                catalog = _without(catalog, other, reference.name)
                cascaded.append(f"constraint {reference.name} on table {other.name}")
    index = catalog.relation(name, table.schema)
    database.execute(f"DROP INDEX {quoted(index.physical)}")
    table = catalog.relation(table.name, table.schema)
    return _without(catalog.without_relation(table.schema, name), table, name)


def _without(catalog: Catalog, table: Relation, name: str) -> Catalog:
    return catalog.with_relation(replace(
        table, constraints=tuple(c for c in table.constraints if c.name != name)))
