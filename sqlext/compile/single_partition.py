"""The single-partition rule: a dataflow step never needs another node's rows.

On a cluster every node runs the same dataflow over its own batches: a
procedure started by a batch of a stream declared ``PARTITION BY HASH
(key)`` runs on the node that owns the batch and sees that node's rows
only. So when a trigger is created (and when a procedure that triggers run
is replaced) each statement its step runs, through the procedures it
CALLs, is checked:

* a partitioned relation it touches must be keyed like the stream (both
  integer keys, or both text-like keys: equal values then hash alike);
* it reads or updates such a relation only pinned to the batch's keys: in
  the SELECT (or UPDATE, DELETE) that names it, a top-level AND condition
  ``relation.key = <batch key>`` or ``relation.key IN (SELECT <batch key>
  ...)``, where a batch key is the stream's key column, the key of a table
  pinned so, or a column of a subquery or WITH that passes one on
  unchanged (sqlglot's scopes say which name is which); a row it INSERTs
  goes where its key says, which the owner check
  (``executor.ddl.partitioned``) enforces when it runs;
* it may read replicated (unpartitioned) tables but not write them: each
  node sees different batches, so the copies would drift apart;
* a Python procedure cannot be checked, so it cannot run there.

A dataflow on a stream or table that is not partitioned (replicated: every
node gets every row) must not touch partitioned relations at all. Anything
else is refused with 0A000 naming the statement's relation and the fix.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, ScopeType, build_scope, traverse_scope

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
        if not any(r.partition_key for r in self.catalog.relations.values()):
            return  # nothing is partitioned: every step is one node's
        feed = feed_of(self.catalog, target) or Feed(
            target, frozenset() if target.partition_key is not None else frozenset({target.oid}))
        if procedure is not None:
            self._procedure(feed, procedure, step, set())
        else:
            self._statements(feed, statements, step, (target.schema, *self.search_path), set())

    def replaced(self, procedure: Procedure) -> None:
        """Checks, with ``procedure``'s new body, the steps of the triggers
        that run it, directly or through CALLs."""
        key = (procedure.schema, procedure.name)
        after = SingleCheck(self.catalog.with_procedure(procedure), self.search_path)
        for trigger in self.catalog.triggers.values():
            if trigger.procedure is None or key not in after._called(trigger.procedure):
                continue
            target = after.catalog.relation(trigger.target[1], trigger.target[0])
            started = after.catalog.procedures[trigger.procedure]
            after.trigger(target, f'procedure "{started.name}"', started, ())

    def _called(self, start: tuple[str, str]) -> set[tuple[str, str]]:
        """The procedures ``start`` runs: itself and those it CALLs, on down."""
        found: set[tuple[str, str]] = set()
        waiting = [start]
        while waiting:
            key = waiting.pop()
            procedure = self.catalog.procedures.get(key)
            if key in found or procedure is None:
                continue
            found.add(key)
            if procedure.language == "sql":
                for statement in body_statements(procedure.body, "a procedure"):
                    if isinstance(statement, x.Call):
                        called = self.catalog.find_procedure(
                            statement.this.name, statement.this.db or None,
                            (procedure.schema, *self.search_path))
                        if called is not None:
                            waiting.append((called.schema, called.name))
        return found

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
            if isinstance(statement, exp.Query | exp.Insert | exp.Update | exp.Delete):
                _Statement(feed, step, self.catalog, search_path).check(statement)


@dataclass(frozen=True, slots=True)
class _Statement:
    """One statement of a step, checked scope by scope."""

    feed: Feed
    step: str
    catalog: Catalog
    search_path: tuple[str, ...]

    def check(self, statement: exp.Expression) -> None:
        target = _target(statement)
        written = self._relation(target) if target is not None else None
        if written is not None:
            self._allowed(written)
            if written.partition_key is None and self.feed.key is not None and (
                    written.oid not in self.feed.exempt):
                self._refuse(f'it writes replicated table "{written.name}", whose copies '
                             "would drift apart: each node runs only its own batches",
                             f'Declare "{written.name}" PARTITION BY HASH by the '
                             "stream's key, or write it outside the dataflow.")
        dml = isinstance(statement, exp.Update | exp.Delete)
        sources: dict[str, exp.Table | Scope] = {}
        for scope in traverse_scope(statement):
            if dml and scope.scope_type is ScopeType.ROOT:
                sources.update(scope.sources)  # UPDATE's FROM, DELETE's USING
                continue
            self._scope(scope.sources, _conditions(scope.expression), self._outer(scope))
        if dml and target is not None:
            sources[target.alias_or_name] = target
            self._scope(sources, _conjuncts(statement.args.get("where")), {})

    def _outer(self, scope: Scope) -> dict[str, frozenset[str]]:
        """What enclosing scopes pin (a correlated subquery may use them)."""
        parent = scope.parent
        if parent is None:
            return {}
        return self._keyed(parent.sources, _conditions(parent.expression), self._outer(parent))

    def _scope(self, sources: dict[str, exp.Table | Scope], conditions: list[exp.Expression],
               outer: dict[str, frozenset[str]]) -> None:
        keyed = self._keyed(sources, conditions, outer)
        for alias, source in sources.items():
            relation = self._relation(source) if isinstance(source, exp.Table) else None
            if relation is None or relation.oid in self.feed.exempt:
                continue
            self._allowed(relation)
            if relation.partition_key is not None and alias not in keyed:
                self._refuse(
                    f'it reads "{relation.name}" without pinning its partition key '
                    f'"{relation.partition_key}" to the batch\'s keys, so it would need '
                    "rows other nodes hold",
                    f"Join or filter on {alias}.{relation.partition_key} = the stream's "
                    f'"{self.feed.key}" (AND-ed, in the query that names "{relation.name}").')

    def _keyed(self, sources: dict[str, exp.Table | Scope], conditions: list[exp.Expression],
               outer: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
        """The sources that carry batch keys, with the columns that carry
        them: the stream, subqueries passing its key on, and (until nothing
        more is found) partitioned tables pinned to those."""
        keyed = {alias: names for alias, names in outer.items() if alias not in sources}
        for alias, source in sources.items():
            carried = self._carried(source)
            if carried:
                keyed[alias] = carried
        found = True
        while found:
            found = False
            for alias, source in sources.items():
                relation = self._relation(source) if isinstance(source, exp.Table) else None
                if (alias in keyed or relation is None or relation.partition_key is None
                        or not any(self._pins(condition, alias, relation.partition_key,
                                              sources, keyed) for condition in conditions)):
                    continue
                keyed[alias] = frozenset({relation.partition_key})
                found = True
        return keyed

    def _carried(self, source: exp.Table | Scope) -> frozenset[str]:
        """The columns of a source that are batch keys: the stream's key; a
        subquery's or WITH's output columns that are such a column unchanged."""
        if isinstance(source, exp.Table):
            relation = self._relation(source)
            if relation is not None and relation.oid in self.feed.exempt and self.feed.key:
                return frozenset({self.feed.key})
            return frozenset()
        select = source.expression
        if not isinstance(select, exp.Select):
            return frozenset()
        inner = self._keyed(source.sources, _conditions(select), {})
        carried = set()
        for projection in select.expressions:
            column = projection.this if isinstance(projection, exp.Alias) else projection
            if isinstance(column, exp.Column) and column.name in self._owner_keys(
                    column, source.sources, inner):
                carried.add(projection.alias_or_name)
        return frozenset(carried)

    def _pins(self, condition: exp.Expression, alias: str, key: str,
              sources: dict[str, exp.Table | Scope], keyed: dict[str, frozenset[str]]) -> bool:
        """``alias.key = <batch key>`` or ``alias.key IN (SELECT <batch key> ...)``."""
        if isinstance(condition, exp.EQ):
            sides = (condition.this, condition.expression)
            return any(self._is_column(mine, alias, key, sources)
                       and isinstance(other, exp.Column)
                       and other.name in self._owner_keys(other, sources, keyed, alias)
                       for mine, other in (sides, sides[::-1]))
        if isinstance(condition, exp.In) and self._is_column(condition.this, alias, key,
                                                             sources):
            query = condition.args.get("query")
            select = query.this if isinstance(query, exp.Subquery) else query
            if isinstance(select, exp.Select) and len(select.expressions) == 1:
                inner = build_scope(select)
                column = select.expressions[0]
                return inner is not None and isinstance(column, exp.Column) and (
                    column.name in self._owner_keys(
                        column, inner.sources, self._keyed(inner.sources,
                                                           _conditions(select), {})))
        return False

    def _is_column(self, column: exp.Expression, alias: str, name: str,
                   sources: dict[str, exp.Table | Scope]) -> bool:
        return isinstance(column, exp.Column) and column.name == name and (
            column.table == alias or (not column.table and self._only_owner(
                name, sources) == alias))

    def _owner_keys(self, column: exp.Column, sources: dict[str, exp.Table | Scope],
                    keyed: dict[str, frozenset[str]], exclude: str = "") -> frozenset[str]:
        """The batch-key columns of the source ``column`` belongs to."""
        owner = column.table or self._only_owner(column.name, sources)
        if owner is None or owner == exclude:
            return frozenset()
        return keyed.get(owner, frozenset())

    def _only_owner(self, name: str, sources: dict[str, exp.Table | Scope]) -> str | None:
        """The one source with a column ``name`` (an unqualified column's)."""
        owners = []
        for alias, source in sources.items():
            if isinstance(source, exp.Table):
                relation = self._relation(source)
                has = relation is not None and any(c.name == name for c in relation.columns)
            else:
                has = isinstance(source.expression, exp.Select) and any(
                    p.alias_or_name == name for p in source.expression.expressions)
            if has:
                owners.append(alias)
        return owners[0] if len(owners) == 1 else None

    def _allowed(self, relation: Relation) -> None:
        """Refuses a partitioned relation this feed may not touch at all."""
        if relation.partition_key is None or relation.oid in self.feed.exempt:
            return
        if self.feed.key is None:
            fed = self.feed.stream
            self._refuse(f'it uses partitioned table "{relation.name}" from a dataflow on '
                         f'{fed.kind_name} "{fed.name}", which is not partitioned: every node '
                         "runs every row and holds only its own share",
                         f'Declare "{self.feed.stream.name}" PARTITION BY HASH like '
                         f'"{relation.name}".')
        if self.feed.key_class(relation) != self.feed.key_class(self.feed.stream):
            self._refuse(f'"{relation.name}" is partitioned by a key of another kind than '
                         f'stream "{self.feed.stream.name}" (integer and text keys of equal '
                         "meaning land on different nodes)",
                         "Partition both by keys of the same type.")

    def _relation(self, table: exp.Table) -> Relation | None:
        return self.catalog.find_relation(table.name, table.db or None, self.search_path)

    def _refuse(self, why: str, hint: str) -> None:
        raise errors.FeatureNotSupported(
            f"{self.step} would leave its partition: {why}",
            hint=f"{hint} {_CROSS_PARTITION}")


def _target(statement: exp.Expression) -> exp.Table | None:
    """The table an INSERT, UPDATE or DELETE writes."""
    if not isinstance(statement, exp.Insert | exp.Update | exp.Delete):
        return None
    target = statement.this
    if isinstance(target, exp.Schema):
        target = target.this
    return target if isinstance(target, exp.Table) else None


def _conjuncts(condition: exp.Expression | None) -> list[exp.Expression]:
    """The AND-ed parts of a condition (an OR is one part: it pins nothing)."""
    if condition is None:
        return []
    if isinstance(condition, exp.Where):
        condition = condition.this
    while isinstance(condition, exp.Paren):
        condition = condition.this
    if isinstance(condition, exp.And):
        return _conjuncts(condition.this) + _conjuncts(condition.expression)
    return [condition]


def _conditions(select: exp.Expression) -> list[exp.Expression]:
    """The AND-ed conditions of a SELECT's WHERE and of its joins' ON."""
    if not isinstance(select, exp.Select):
        return []
    found = _conjuncts(select.args.get("where"))
    for join in select.args.get("joins") or ():
        found += _conjuncts(join.args.get("on"))
    return found
