"""Materialized views in the executor: running the programs the dialect
layer generated (``catalog.matviews.Matview``), and recomputing stale views
before a statement reads them. (They are dropped with what they read:
``executor.ddl.drops``.)"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from catalog import errors
from catalog.schema import Catalog, Relation
from storage.sqlite import Database

STALE_TABLE: Final = "sqlext_matview_stale"
"""One row per view recomputed in full: whether its tables changed since."""

def run(database: Database, statements: Iterable[str]) -> None:
    for statement in statements:
        database.execute(statement)


def matview(catalog: Catalog, schema: str | None, name: str) -> Relation:
    relation = catalog.relation(name, schema)
    if relation.matview is None:
        raise errors.WrongObjectType(f'"{name}" is not a materialized view')
    return relation


def refresh(relation: Relation, database: Database) -> None:
    """Compute the view from scratch (REFRESH MATERIALIZED VIEW)."""
    assert relation.matview is not None
    run(database, relation.matview.clear)
    run(database, relation.matview.populate)


def recompute_stale(database: Database, catalog: Catalog,
                    keys: Iterable[tuple[str, str]]) -> None:
    """Before a statement reads them: recompute the views (not maintained
    incrementally) whose tables changed since they were last computed, and
    first the stale views they read themselves."""
    for key in keys:
        relation = catalog.relations.get(key)
        if relation is None or relation.matview is None or relation.matview.incremental:
            continue
        recompute_stale(database, catalog, relation.matview.sources)
        found = database.execute(f"SELECT stale FROM {STALE_TABLE} WHERE matview = ?",
                                 (relation.physical,)).fetchone()
        if found is not None and found[0]:
            refresh(relation, database)


def check_alterable(relation: Relation, catalog: Catalog, change: str) -> None:
    """Renaming or dropping columns of a relation a materialized view reads
    would leave the view's triggers reading names that no longer exist;
    ``change`` says what was asked (``drop column c of table t``)."""
    key = (relation.schema, relation.name)
    found = sorted((r for r in catalog.relations.values()
                    if r.matview is not None and key in r.matview.sources),
                   key=lambda r: r.name)
    if found:
        raise errors.DependentObjectsStillExist(
            f"cannot {change} because other objects depend on it",
            detail="\n".join(f"materialized view {view.name} depends on {relation.kind_name} "
                             f"{relation.name}" for view in found),
            hint="Drop the materialized views first, and create them again afterwards.")
