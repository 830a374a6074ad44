"""DROP SCHEMA: refused (2BP01) while the schema holds objects, unless
CASCADE, which drops each of them first, with what depends on them in other
schemas (foreign keys, windows, materialized views, triggers), as the DROP
of each object with CASCADE would."""

from __future__ import annotations

from catalog import errors
from catalog.schema import PUBLIC, Catalog
from executor.ddl.create_extension import check_droppable
from executor.ddl.dataflow_objects import drop_procedure
from executor.ddl.drops import drop_relations
from executor.ddl.relations import DdlResult, Drop
from storage.sqlite import Database

SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", PUBLIC)


def drop_schemas(spec: Drop, catalog: Catalog, database: Database) -> DdlResult:
    notices: list[str] = []
    cascaded: list[str] = []
    for _, name in spec.names:
        catalog = _drop_schema(name, spec, catalog, database, notices, cascaded)
    return DdlResult(catalog, "DROP SCHEMA", notices, cascaded)


def _drop_schema(name: str, spec: Drop, catalog: Catalog, database: Database,
                 notices: list[str], cascaded: list[str]) -> Catalog:
    if name not in catalog.schemas:
        if not spec.if_exists:
            raise errors.InvalidSchemaName(f'schema "{name}" does not exist')
        notices.append(f'schema "{name}" does not exist, skipping')
        return catalog
    if name in SYSTEM_SCHEMAS:
        raise errors.DependentObjectsStillExist(
            f"cannot drop schema {name} because it is required by the database system")
    check_droppable(catalog, name)
    held = contents(catalog, name)
    if held and not spec.cascade:
        raise errors.DependentObjectsStillExist(
            f"cannot drop schema {name} because other objects depend on it",
            detail="\n".join(f"{what} depends on schema {name}" for what in held),
            hint="Use DROP ... CASCADE to drop the dependent objects too.")
    cascaded.extend(held)
    relations = [r for r in catalog.relations.values() if r.schema == name and r.kind != "i"]
    catalog = drop_relations(relations, catalog, database, True, cascaded)
    for procedure in [p for p in catalog.procedures.values() if p.schema == name]:
        catalog = drop_procedure(procedure, catalog, True, cascaded)
    for sequence in [s for s in catalog.sequences.values() if s.schema == name]:
        catalog = catalog.without_sequence(sequence.schema, sequence.name)
    for trigger in [t for t in catalog.triggers.values() if t.schema == name]:
        catalog = catalog.without_trigger(trigger.schema, trigger.name)
    return catalog.without_schema(name)


def contents(catalog: Catalog, schema: str) -> list[str]:
    """The objects in ``schema`` as PostgreSQL lists them ("table s.t"), in
    the order they were made; indexes and the sequences of serial columns
    go with their tables."""
    found = [(r.oid, f"{r.kind_name} {schema}.{r.name}") for r in catalog.relations.values()
             if r.schema == schema and r.kind != "i"]
    found += [(s.oid, f"sequence {schema}.{s.name}") for s in catalog.sequences.values()
              if s.schema == schema and s.owned_by is None]
    found += [(p.oid, f"procedure {schema}.{p.name}()") for p in catalog.procedures.values()
              if p.schema == schema]
    return [what for _, what in sorted(found)]
