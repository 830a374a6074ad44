"""What depends on a relation or on one of its columns, found the way
PostgreSQL's ``findDependentObjects`` walks pg_depend, so that DROP refuses
(2BP01), reports and cascades exactly as PostgreSQL does.

The dependencies are the catalog's own records:

* a view or materialized view depends on what its query reads
  (``ViewRule.reads``: relations by OID, and the columns it uses);
* a foreign key depends on the table and the columns it references;
* a window depends on its stream.

What belongs to a relation (its indexes, constraints, triggers and serial
sequences) goes with it without a word, as PostgreSQL's internal and
automatic dependencies do; procedures and their triggers are
``executor.ddl.dataflow_objects``' business.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from catalog import errors
from catalog.schema import Catalog, Constraint, Relation

Target = tuple[Relation, str | None]
"""Something DROP removes: a relation, or (ALTER TABLE ... DROP COLUMN) one
of its columns."""

_HINT = "Use DROP ... CASCADE to drop the dependent objects too."


@dataclass(frozen=True, slots=True)
class Dependent:
    """An object that goes before what it depends on (CASCADE), or that makes
    the DROP fail."""

    relation: Relation
    """The view, materialized view or window; for a foreign key, its table."""
    constraint: Constraint | None
    """The foreign key."""
    on: str
    """What it was found depending on, as PostgreSQL names it."""

    @property
    def key(self) -> tuple[int, int]:
        return self.relation.oid, self.constraint.oid if self.constraint else 0

    @property
    def order(self) -> int:
        """PostgreSQL visits the dependents of an object newest first: by
        the OID of the dependent pg_depend row (a view's rule, a constraint)."""
        if self.constraint is not None:
            return self.constraint.oid
        return self.relation.rule.oid if self.relation.rule else self.relation.oid

    @property
    def description(self) -> str:
        if self.constraint is not None:
            return f"constraint {self.constraint.name} on {describe(self.relation)}"
        return describe(self.relation)


def describe(relation: Relation, column: str | None = None) -> str:
    """An object as PostgreSQL's messages name it: ``view v``, ``column a of table t``."""
    shown = f"{relation.kind_name} {relation.name}"
    return shown if column is None else f"column {column} of {shown}"


def dependents(catalog: Catalog, targets: Sequence[Target]) -> list[Dependent]:
    """Everything that depends on ``targets``, directly or through other
    dependents, in the order PostgreSQL reports it (each before what depends
    on it; dropping goes the other way). What the targets drop anyway is not
    listed: one of them depending on another (``DROP VIEW v, v2``), the
    foreign keys of a table dropped."""
    dropped = {relation.oid for relation, _ in targets}
    seen: set[tuple[int, int]] = set()
    finished: list[Dependent] = []

    def visit(relation: Relation, column: str | None) -> None:
        for dependent in sorted(_direct(catalog, relation, column), key=lambda d: -d.order):
            if dependent.key in seen or dependent.relation.oid in dropped:
                continue  # found before, or dropped anyway (a target, its foreign keys)
            seen.add(dependent.key)
            if dependent.constraint is None:
                visit(dependent.relation, None)
            finished.append(dependent)

    for relation, column in targets:
        visit(relation, column)
    return finished[::-1]


def still_needed(targets: Sequence[Target], found: Sequence[Dependent]
                 ) -> errors.DependentObjectsStillExist:
    """The error of a DROP without CASCADE that ``found`` objects need."""
    if len(targets) == 1:
        message = f"cannot drop {describe(*targets[0])} because other objects depend on it"
    else:
        message = "cannot drop desired object(s) because other objects depend on them"
    return errors.DependentObjectsStillExist(
        message, detail="\n".join(f"{d.description} depends on {d.on}" for d in found),
        hint=_HINT)


def cascade_notice(dropped: Sequence[str]) -> tuple[str, str | None]:
    """The NOTICE (message, detail) of a statement whose CASCADE dropped the
    ``dropped`` objects (described, in order)."""
    if len(dropped) == 1:
        return f"drop cascades to {dropped[0]}", None
    return (f"drop cascades to {len(dropped)} other objects",
            "\n".join(f"drop cascades to {what}" for what in dropped))


def views_using(catalog: Catalog, table: Relation, column: str) -> list[Relation]:
    """The views and materialized views whose query uses ``column`` of
    ``table``, oldest first."""
    return sorted((view for view in catalog.relations.values()
                   if column in (_reads(catalog, view).get(table.oid) or ())),
                  key=lambda view: view.oid)


def _direct(catalog: Catalog, relation: Relation, column: str | None) -> Iterator[Dependent]:
    on = describe(relation, column)
    key = (relation.schema, relation.name)
    for other in catalog.relations.values():
        read = _reads(catalog, other).get(relation.oid)
        if read is not None and (column is None or column in read):
            yield Dependent(other, None, on)
        if column is None and other.window is not None and other.window.stream == key:
            yield Dependent(other, None, on)
        if other is relation:
            continue  # a table's foreign key on itself goes with it
        for constraint in other.constraints:
            if constraint.kind == "f" and constraint.ref_table == key and (
                    column is None or column in constraint.ref_columns):
                yield Dependent(other, constraint, on)


def _reads(catalog: Catalog, view: Relation) -> dict[int, tuple[str, ...]]:
    """What a view or materialized view reads: relation OID -> columns used.
    A materialized view from an older snapshot has no rule: it depends on
    the relations it lists as its sources, as a whole."""
    if view.rule is not None:
        return dict(view.rule.reads)
    if view.matview is None:
        return {}
    return {source.oid: () for key in view.matview.sources
            if (source := catalog.relations.get(key)) is not None}
