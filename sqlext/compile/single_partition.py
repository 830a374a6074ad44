"""The single-partition rule: a dataflow step never needs another node's rows.

On a cluster every node runs the same dataflow over its own batches: a
procedure started by a batch of a stream declared ``PARTITION BY HASH
(key)`` runs on the node that owns the batch and sees that node's rows
only. So when a trigger is created (and when a procedure that triggers run
is replaced) each statement its step runs, through the procedures it
CALLs, is checked:

* a partitioned relation it touches must be keyed like the stream (both
  integer keys, or both text-like keys: equal values then hash alike);
* it reads or updates such a relation only pinned to the batch's keys: an
  equality of the relation's key with the key of the stream (or of another
  pinned relation, or a column of that name from a subquery or WITH over
  them); a row it INSERTs goes where its key says, which the owner check
  (``executor.ddl.partitioned``) enforces when it runs;
* it may read replicated (unpartitioned) tables but not write them: each
  node sees different batches, so the copies would drift apart;
* a Python procedure cannot be checked, so it cannot run there.

A dataflow on a stream that is not partitioned (replicated: every node
gets every batch) must not touch partitioned relations at all. Anything
else is refused with 0A000 naming the statement's relation and the fix.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlglot import exp

from catalog import errors
from catalog.dataflow import Procedure
from catalog.partitioning import INTEGER_KEYS
from catalog.schema import Catalog, Relation
from sqlext.compile.bodies import body_statements
from sqlext.sql import nodes as x

_CROSS_PARTITION = ("Cross-partition questions are ordinary Spark queries over the nodes' "
                    "rows (docs/scale.md).")


@dataclass(frozen=True, slots=True)
class Feed:
    """The stream a dataflow step is fed from, and how it is partitioned."""

    stream: Relation
    exempt: frozenset[int]
    """The OIDs that denote the step's own batch (the stream, its window)."""

    @property
    def key(self) -> str | None:
        return self.stream.partition_key

    def key_class(self, relation: Relation) -> bool:
        """True for an integer key, False for a text-like one."""
        assert relation.partition_key is not None
        return relation.column(relation.partition_key).type_oid in INTEGER_KEYS


def feed_of(catalog: Catalog, target: Relation) -> Feed | None:
    """The stream behind a trigger's relation (a window's stream), None for
    a table (an EE trigger on a table is checked as a statement on it)."""
    if target.window is not None:
        stream = catalog.relation(target.window.stream[1], target.window.stream[0])
        return Feed(stream, frozenset({stream.oid, target.oid}))
    if target.stream is not None:
        return Feed(target, frozenset({target.oid}))
    return None


@dataclass(frozen=True, slots=True)
class SingleCheck:
    catalog: Catalog
    search_path: tuple[str, ...]

    def trigger(self, target: Relation, step: str, procedure: Procedure | None,
                statements: Iterable[exp.Expression]) -> None:
        """Refuses a trigger whose step would need another partition's rows."""
        feed = feed_of(self.catalog, target)
        if feed is None:
            if target.partition_key is None:
                return
            feed = Feed(target, frozenset())
        if procedure is not None:
            self._procedure(feed, procedure, step, set())
        else:
            self._statements(feed, statements, step, (target.schema, *self.search_path), set())

    def replaced(self, procedure: Procedure) -> None:
        """Checks the steps of the PE triggers that run ``procedure``."""
        for trigger in self.catalog.triggers.values():
            if trigger.procedure == (procedure.schema, procedure.name):
                target = self.catalog.relation(trigger.target[1], trigger.target[0])
                self.trigger(target, f'procedure "{procedure.name}"', procedure, ())

    def _procedure(self, feed: Feed, procedure: Procedure, step: str,
                   seen: set[tuple[str, str]]) -> None:
        key = (procedure.schema, procedure.name)
        if key in seen:
            return
        seen.add(key)
        if procedure.language == "python":
            if feed.key is None:
                return
            raise errors.FeatureNotSupported(
                f'{step} cannot run in a dataflow on partitioned stream "{feed.stream.name}": '
                f'procedure "{procedure.name}" is written in Python, so what it reads cannot '
                "be checked to stay on one partition",
                hint="Write the procedure in SQL. " + _CROSS_PARTITION)
        self._statements(feed, body_statements(procedure.body, "a procedure"), step,
                         (procedure.schema, *self.search_path), seen)

    def _statements(self, feed: Feed, statements: Iterable[exp.Expression], step: str,
                    search_path: tuple[str, ...], seen: set[tuple[str, str]]) -> None:
        for statement in statements:
            if isinstance(statement, x.Call):
                called = self.catalog.find_procedure(statement.this.name,
                                                     statement.this.db or None, search_path)
                if called is not None:
                    self._procedure(feed, called, step, seen)
                continue
            _Statement(feed, statement, step, self._relations(statement, search_path)).check()

    def _relations(self, statement: exp.Expression, search_path: tuple[str, ...]
                   ) -> dict[str, Relation]:
        """The relations the statement names, by the alias it gives them (CTE
        names are not relations)."""
        ctes = {cte.alias for cte in statement.find_all(exp.CTE)}
        found: dict[str, Relation] = {}
        for table in statement.find_all(exp.Table):
            if not table.db and table.name in ctes:
                continue
            relation = self.catalog.find_relation(table.name, table.db or None, search_path)
            if relation is not None:
                found[table.alias_or_name] = relation
        return found


@dataclass(frozen=True, slots=True)
class _Statement:
    feed: Feed
    statement: exp.Expression
    step: str
    relations: dict[str, Relation]

    def check(self) -> None:
        written = self._written()
        for alias, relation in self.relations.items():
            if relation.oid in self.feed.exempt:
                continue
            if relation.partition_key is None:
                if alias == written and self.feed.key is not None:
                    self._refuse(f'it writes replicated table "{relation.name}", whose copies '
                                 "would drift apart: each node runs only its own batches",
                                 f'Declare "{relation.name}" PARTITION BY HASH by the '
                                 "stream's key, or write it outside the dataflow.")
                continue
            if self.feed.key is None:
                self._refuse(f'it uses partitioned table "{relation.name}" from a dataflow on '
                             f'stream "{self.feed.stream.name}", which is not partitioned: '
                             "every node runs every batch and holds only its own rows",
                             f'Declare stream "{self.feed.stream.name}" PARTITION BY HASH '
                             f'like "{relation.name}".')
            if self.feed.key_class(relation) != self.feed.key_class(self.feed.stream):
                self._refuse(f'"{relation.name}" is partitioned by a key of another kind than '
                             f'stream "{self.feed.stream.name}" (integer and text keys of equal '
                             "meaning land on different nodes)",
                             "Partition both by keys of the same type.")
            reads = alias != written or isinstance(self.statement, exp.Update | exp.Delete)
            if reads and not self._pinned(alias, relation):
                self._refuse(
                    f'it reads "{relation.name}" without pinning its partition key '
                    f'"{relation.partition_key}" to the batch\'s keys, so it would need '
                    "rows other nodes hold",
                    f"Join or filter on {alias}.{relation.partition_key} = the stream's "
                    f'"{self.feed.key}" (or that of a table keyed like it).')

    def _written(self) -> str | None:
        target = self.statement.this if isinstance(
            self.statement, exp.Insert | exp.Update | exp.Delete) else None
        if isinstance(target, exp.Schema):
            target = target.this
        return target.alias_or_name if isinstance(target, exp.Table) else None

    def _pinned(self, alias: str, relation: Relation) -> bool:
        """An ``alias.key = batch key`` or ``alias.key IN (SELECT batch key ...)``."""
        for equality in self.statement.find_all(exp.EQ):
            sides = (equality.this, equality.expression)
            for mine, other in (sides, sides[::-1]):
                if self._key_of(mine, alias, relation) and self._batch_key(other, alias):
                    return True
        for member in self.statement.find_all(exp.In):
            query = member.args.get("query")
            select = query.this if isinstance(query, exp.Subquery) else query
            if (self._key_of(member.this, alias, relation) and isinstance(select, exp.Select)
                    and len(select.expressions) == 1
                    and self._batch_key(select.expressions[0], alias)):
                return True
        return False

    @staticmethod
    def _key_of(column: exp.Expression, alias: str, relation: Relation) -> bool:
        return (isinstance(column, exp.Column) and column.name == relation.partition_key
                and column.table in (alias, ""))

    def _batch_key(self, column: exp.Expression, alias: str) -> bool:
        """A column that carries the batch's partition keys: the key of the
        stream or of another partitioned relation of the statement, or a
        column of that name from a subquery or WITH."""
        if not isinstance(column, exp.Column) or column.table == alias:
            return False
        keyed = {name for name, relation in self.relations.items()
                 if relation.partition_key == column.name and name != alias}
        if column.table:
            return column.table in keyed or (
                column.table not in self.relations and column.name in self._key_names())
        return bool(keyed)

    def _key_names(self) -> set[str]:
        return {relation.partition_key for relation in self.relations.values()
                if relation.partition_key is not None}

    def _refuse(self, why: str, hint: str) -> None:
        raise errors.FeatureNotSupported(
            f"{self.step} would leave its partition: {why}",
            hint=f"{hint} {_CROSS_PARTITION}")

