"""DROP TABLE / VIEW / MATERIALIZED VIEW / INDEX / SEQUENCE, and dropping
any relation (or a column: ALTER TABLE ... DROP COLUMN) together with what
depends on it (``catalog.dependencies``): without CASCADE a dependent makes
the DROP fail with 2BP01, as in PostgreSQL; with it, the dependents go
first, each before what it depends on, and the statement's one NOTICE names
them (``DdlResult.cascaded``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from catalog import errors
from catalog.dependencies import Dependent, Target, dependents, still_needed
from catalog.schema import RELKIND_NAMES, Catalog, Relation
from executor import matview_maintenance
from executor.ddl.create_extension import check_droppable
from executor.ddl.relations import DdlResult, Drop, rebuild_table
from executor.streaming import windows
from storage.sqlite import Database, quoted

_DROP_KINDS = {"table": ("r", "DROP TABLE"), "view": ("v", "DROP VIEW"),
               "materialized view": ("m", "DROP MATERIALIZED VIEW"),
               "index": ("i", "DROP INDEX"), "sequence": ("S", "DROP SEQUENCE")}
"""DROP SCHEMA is ``drop_schema.drop_schemas``."""


def apply_drop(spec: Drop, catalog: Catalog, database: Database) -> DdlResult:
    relkind, tag = _DROP_KINDS[spec.kind]
    notices: list[str] = []
    targets: list[Relation] = []
    for schema, name in spec.names:
        if spec.kind == "sequence":
            sequence = catalog.find_sequence(name, schema)
            if sequence is None:
                if not spec.if_exists:
                    raise errors.UndefinedTable(f'sequence "{name}" does not exist')
                notices.append(f'sequence "{name}" does not exist, skipping')
                continue
            catalog = catalog.without_sequence(sequence.schema, sequence.name)
            continue
        relation = catalog.find_relation(name, schema)
        if relation is None or relation.schema in ("pg_catalog", "information_schema"):
            if not spec.if_exists:
                raise errors.UndefinedTable(f'{RELKIND_NAMES[relkind]} "{name}" does not exist')
            notices.append(f'{spec.kind} "{name}" does not exist, skipping')
            continue
        if (relation.stream or relation.window) is not None and spec.kind == "table":
            other = "STREAM" if relation.stream else "WINDOW"
            raise errors.WrongObjectType(f'"{name}" is not a table',
                                         hint=f"Use DROP {other} to remove it.")
        if relation.kind != relkind:
            raise errors.WrongObjectType(f'"{name}" is not a {spec.kind}',
                                         hint=f"Use DROP {_kind_word(relation.kind)} to "
                                              "remove it.")
        targets.append(relation)
    cascaded: list[str] = []
    catalog = drop_relations(targets, catalog, database, spec.cascade, cascaded)
    return DdlResult(catalog, tag, notices, cascaded)


def _kind_word(relkind: str) -> str:
    return RELKIND_NAMES.get(relkind, "table").upper()


def drop_relations(targets: Sequence[Relation], catalog: Catalog, database: Database,
                   cascade: bool, cascaded: list[str]) -> Catalog:
    """Drop ``targets``, after what depends on them (with ``cascade``,
    which adds their descriptions to ``cascaded``; 2BP01 without)."""
    for relation in targets:
        check_droppable(catalog, relation.schema, relation)
    catalog = drop_dependents([(relation, None) for relation in targets], catalog, database,
                              cascade, cascaded)
    for oid in sorted((relation.oid for relation in targets), reverse=True):
        # Newest first: a view goes before the table it reads.
        relation = catalog.relation_by_oid(oid)
        if relation is not None:
            catalog = _remove(relation, catalog, database)
    return catalog


def drop_dependents(targets: Sequence[Target], catalog: Catalog, database: Database,
                    cascade: bool, cascaded: list[str]) -> Catalog:
    """What depends on ``targets`` (relations, or a column of one) goes
    (``cascade``) or the drop fails; the targets stay."""
    found = dependents(catalog, targets)
    if found and not cascade:
        raise still_needed(targets, found)
    cascaded.extend(dependent.description for dependent in found)
    for dependent in reversed(found):
        catalog = _remove_dependent(dependent, catalog, database)
    return catalog


def _remove_dependent(dependent: Dependent, catalog: Catalog, database: Database) -> Catalog:
    relation = catalog.relation_by_oid(dependent.relation.oid)
    assert relation is not None
    if dependent.constraint is None:
        return _remove(relation, catalog, database)
    # SQLite cannot drop a constraint: the table is rebuilt without it.
    changed = replace(relation, constraints=tuple(
        c for c in relation.constraints if c.oid != dependent.constraint.oid))
    rebuild_table(relation, changed, catalog, database)
    return catalog.with_relation(changed)


def _remove(relation: Relation, catalog: Catalog, database: Database) -> Catalog:
    """One relation and what belongs to it; nothing may depend on it any more."""
    if relation.matview is not None:
        matview_maintenance.run(database, relation.matview.drop)
    elif relation.window is not None:
        windows.drop_storage(database, relation)
        catalog = catalog.without_triggers_on(relation)
    elif relation.kind == "r":
        catalog = _remove_table(relation, catalog, database)
    elif relation.kind == "v":
        database.execute(f"DROP VIEW {quoted(relation.physical)}")
    elif relation.kind == "i":
        owner = catalog.find_relation(relation.index_table or "", relation.schema)
        if owner is not None and any(c.index_name == relation.name for c in owner.constraints):
            raise errors.DependentObjectsStillExist(
                f"cannot drop index {relation.name} because constraint {relation.name} on "
                f"table {owner.name} requires it",
                hint=f"You can drop constraint {relation.name} on table {owner.name} instead.")
        database.execute(f"DROP INDEX {quoted(relation.physical)}")
    return catalog.without_relation(relation.schema, relation.name)


def _remove_table(table: Relation, catalog: Catalog, database: Database) -> Catalog:
    """A table or stream's storage, its indexes, triggers and the sequences
    of its serial columns."""
    for index in list(catalog.indexes_of(table)):
        catalog = catalog.without_relation(index.schema, index.name)
    for sequence in list(catalog.sequences.values()):
        if sequence.owned_by and sequence.owned_by[0] == table.name and (
            sequence.schema == table.schema
        ):
            catalog = catalog.without_sequence(sequence.schema, sequence.name)
    database.execute(f"DROP TABLE {quoted(table.physical)}")
    return catalog.without_triggers_on(table)
