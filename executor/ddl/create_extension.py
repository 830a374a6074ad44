"""CREATE EXTENSION sqlext, and the extension's own objects
(``catalog.extension``): its schema and its configuration table
``sqlext.dataflow``.

The table is a SQLite view: reading it lists the statements that rebuild
the dataflow (``sqlext_dataflow_rows()``, from the catalog of the running
statement), and a row inserted into it (INSERT, COPY FROM) is handed to the
session, which runs its statement once the INSERT or COPY is done
(``sqlext_dataflow_insert()``, ``StatementContext.definitions``).
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog import errors
from catalog import types as t
from catalog.extension import CONFIG_TABLE, EXTENSION_NAME, EXTENSION_SCHEMA, Extension
from catalog.schema import Catalog, Column, Relation, Schema
from executor.ddl.relations import DdlResult, storage_name
from storage.sqlite import Database, quoted


@dataclass(frozen=True, slots=True)
class CreateExtension:
    name: str
    version: str
    """The version sqlext installs (its own)."""
    schema: str | None = None
    wanted_version: str | None = None
    if_not_exists: bool = False


def create_extension(spec: CreateExtension, catalog: Catalog, database: Database,
                     role: str) -> DdlResult:
    if spec.name != EXTENSION_NAME:
        raise errors.FeatureNotSupported(
            f'extension "{spec.name}" is not available',
            hint=f"sqlext provides the extension {EXTENSION_NAME} only.")
    if catalog.extension is not None:
        if spec.if_not_exists:
            return DdlResult(catalog, "CREATE EXTENSION",
                             [f'extension "{spec.name}" already exists, skipping'])
        raise errors.DuplicateObject(f'extension "{spec.name}" already exists')
    if not catalog.is_superuser(role):
        raise errors.InsufficientPrivilege(f'permission denied to create extension "{spec.name}"',
                                           hint="Must be superuser to create this extension.")
    if spec.schema not in (None, EXTENSION_SCHEMA):
        raise errors.FeatureNotSupported(
            f'extension "{spec.name}" must be installed in schema "{EXTENSION_SCHEMA}"')
    if spec.wanted_version not in (None, spec.version):
        raise errors.InvalidParameterValue(
            f'extension "{spec.name}" has no installation script nor update path for version '
            f'"{spec.wanted_version}"')
    return DdlResult(ensure_extension(catalog, database, spec.version), "CREATE EXTENSION")


def ensure_extension(catalog: Catalog, database: Database, version: str) -> Catalog:
    """The catalog with the extension present (made now if it is not)."""
    if catalog.extension is not None:
        return catalog
    owns_schema = EXTENSION_SCHEMA not in catalog.schemas
    if (EXTENSION_SCHEMA, CONFIG_TABLE) in catalog.relations:
        raise errors.DuplicateTable(f'relation "{CONFIG_TABLE}" already exists')
    # the extension, its table, its schema, the table's row type's two
    catalog, oid = catalog.allocate_oids(5)
    if owns_schema:
        catalog = catalog.with_schema(EXTENSION_SCHEMA, Schema(oid + 2))
    physical = storage_name(EXTENSION_SCHEMA, CONFIG_TABLE, catalog)
    database.execute(
        f"CREATE VIEW {quoted(physical)} (position, definition) AS SELECT "
        "json_extract(value, '$[0]'), json_extract(value, '$[1]') "
        "FROM json_each(sqlext_dataflow_rows())")
    database.execute(
        f"CREATE TRIGGER {quoted(physical + '__insert')} INSTEAD OF INSERT ON "
        f"{quoted(physical)} BEGIN SELECT sqlext_dataflow_insert(NEW.position, "
        "NEW.definition); END")
    table = Relation(oid + 1, EXTENSION_SCHEMA, CONFIG_TABLE, "r", physical,
                     (Column("position", t.INT4), Column("definition", t.TEXT)),
                     row_type=oid + 4)
    return catalog.with_relation(table).with_extension(Extension(oid, version, oid + 1,
                                                                 owns_schema))


def check_droppable(catalog: Catalog, schema: str, relation: Relation | None = None) -> None:
    """2BP01 for dropping what the extension needs: its schema (when it made
    it) or its configuration table."""
    extension = catalog.extension
    if extension is None:
        return
    if relation is not None and relation.oid == extension.table_oid:
        raise errors.DependentObjectsStillExist(
            f"cannot drop table {relation.schema}.{relation.name} because extension "
            f"{EXTENSION_NAME} requires it")
    if relation is None and schema == EXTENSION_SCHEMA and extension.owns_schema:
        raise errors.DependentObjectsStillExist(
            f"cannot drop schema {schema} because extension {EXTENSION_NAME} requires it")
