"""The shape of a materialized view's query, as incremental maintenance
needs it: which base relations it joins (and on what), the filter each one's
rows must pass, the grouping keys and the aggregates.

It reads the *translated* query (SQLite-shaped, every column qualified by
its source's alias), so types, casts and function names are already what
SQLite computes. A query that does not fit (outer joins, subqueries, LIMIT,
window functions, aggregates without a delta rule...) raises
``NotIncremental`` with the reason, and the view is recomputed in full
instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar, Final

from sqlglot import exp

from catalog.schema import INFORMATION_SCHEMA, PG_CATALOG, Relation
from executor.functions.registry import FUNCTIONS
from executor.streaming.windows import VISIBLE

INCREMENTAL_AGGREGATES: Final = {
    "sum": "sum", "sqlext_numeric_sum": "numeric_sum", "avg": "avg",
    "sqlext_numeric_avg": "numeric_avg", "min": "min", "max": "max", "count": "count",
}
"""SQLite aggregate (as the translator names it) -> delta rule."""

_AGGREGATE_NAMES: Final = frozenset(
    name for definition in FUNCTIONS.values() if definition.aggregate
    for name in (definition.target, definition.numeric_target) if name)

VALUE_SET_KINDS: Final = frozenset({"min", "max", "count_distinct"})
"""Aggregates kept through the multiset of their argument's values (a
delete can remove the current minimum; the next one must be at hand)."""

SUMMABLE_KINDS: Final = frozenset({"count", "sum", "numeric_sum", "avg", "numeric_avg"})


class NotIncremental(Exception):
    """The query cannot be maintained incrementally; the message says why."""


@dataclass(frozen=True, slots=True)
class Source:
    alias: str
    relation: Relation
    condition: exp.Expression | None
    """What a row of this source must satisfy on its own (WHERE conjuncts that
    name no other source; a window's visibility)."""


@dataclass(slots=True)
class Aggregate:
    kind: str
    """count_star, count, sum, numeric_sum, avg, numeric_avg, min, max, count_distinct."""
    argument: exp.Expression | None
    call: exp.Expression


@dataclass(slots=True)
class Shape:
    sources: list[Source]
    joins: list[exp.Expression]
    """Conditions over two or more sources."""
    keys: list[exp.Expression]
    aggregates: list[Aggregate]
    outputs: list[exp.Expression]
    """The select list, aggregates replaced by ``StateRef('a', j)`` and
    grouping expressions by ``StateRef('k', i)``."""
    having: exp.Expression | None
    grouped: bool
    """False for a global aggregate (exactly one row, even over no rows)."""
    expand: bool
    """A query without aggregates or DISTINCT: each distinct row is kept once
    with its count, and shown that many times."""
    columns_used: dict[str, set[str]] = field(default_factory=dict)
    """Source alias -> its columns the query uses."""


class StateRef(exp.Expression):
    """A state column standing for a grouping key ('k') or an aggregate ('a')."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "index": True}


def aliases_in(node: exp.Expression) -> set[str]:
    return {column.table for column in node.find_all(exp.Column) if column.table}


def conjuncts(node: exp.Expression | None) -> list[exp.Expression]:
    if node is None:
        return []
    if isinstance(node, exp.And):
        return conjuncts(node.this) + conjuncts(node.expression)
    if isinstance(node, exp.Paren):
        return conjuncts(node.this)
    return [node]


def conjunction(parts: Iterable[exp.Expression]) -> exp.Expression | None:
    result: exp.Expression | None = None
    for part in parts:
        wrapped = exp.Paren(this=part.copy())
        result = wrapped if result is None else exp.And(this=result, expression=wrapped)
    return result


def analyse(select: exp.Expression, relations: dict[str, Relation]) -> Shape:
    """The shape of ``select`` (translated); ``relations`` maps storage names
    to the relations they hold."""
    if not isinstance(select, exp.Select):
        raise NotIncremental("it is not a single SELECT")
    for clause, what in (("with_", "WITH"), ("limit", "LIMIT"), ("offset", "OFFSET")):
        if select.args.get(clause):
            raise NotIncremental(f"it uses {what}")
    distinct = select.args.get("distinct")
    if distinct is not None and distinct.args.get("on") is not None:
        raise NotIncremental("it uses DISTINCT ON")
    for node in select.walk():
        if isinstance(node, exp.Window):
            raise NotIncremental("it uses a window function")
        if isinstance(node, exp.Filter):
            raise NotIncremental("an aggregate has a FILTER clause")
    sources, conditions = _sources(select, relations)
    aliases = {s.alias for s in sources}
    where = select.args.get("where")
    conditions += conjuncts(where.this if where is not None else None)
    for part in conditions:
        _no_subquery(part, "WHERE")
    local: dict[str, list[exp.Expression]] = {
        s.alias: [s.condition] if s.condition is not None else [] for s in sources}
    joins: list[exp.Expression] = []
    for part in conditions:
        named = aliases_in(part) & aliases
        if len(named) > 1:
            joins.append(part)
        else:
            # a condition on no source at all holds for every row or for none
            for alias in named or aliases:
                local[alias].append(part)
    projections = [p.this if isinstance(p, exp.Alias) else p for p in select.expressions]
    for projection in projections:
        _no_subquery(projection, "the select list")
    having = select.args.get("having")
    if having is not None:
        _no_subquery(having.this, "HAVING")
    aggregates: list[Aggregate] = []
    for node in [*projections, *([having.this] if having is not None else [])]:
        _collect_aggregates(node, aggregates)
    group = select.args.get("group")
    keys = _group_keys(group, select) if group is not None else []
    for key in keys:
        _no_subquery(key, "GROUP BY")
        if any(_aggregate_kind(n) for n in key.walk()):
            raise NotIncremental("it groups by an aggregate")
    if distinct is not None:
        if group is not None or aggregates:
            raise NotIncremental("it uses DISTINCT with aggregates")
        keys = [p.copy() for p in projections]
    expand = not aggregates and group is None and distinct is None
    if expand:
        keys = [p.copy() for p in projections]
    outputs = [_placeholders(p.copy(), keys, aggregates, aliases) for p in projections]
    having_shape = (_placeholders(having.this.copy(), keys, aggregates, aliases)
                    if having is not None else None)
    shape = Shape(
        [Source(s.alias, s.relation, conjunction(local[s.alias])) for s in sources],
        joins, keys, aggregates, outputs, having_shape,
        grouped=bool(keys), expand=expand)
    for source in shape.sources:
        shape.columns_used[source.alias] = set()
    for node in [*keys, *joins, *(a.argument for a in aggregates if a.argument is not None),
                 *(s.condition for s in shape.sources if s.condition is not None)]:
        for column in node.find_all(exp.Column):
            if column.table in shape.columns_used:
                shape.columns_used[column.table].add(column.name)
    return shape


def _no_subquery(node: exp.Expression, where: str) -> None:
    if any(isinstance(n, exp.Select) for n in node.walk()):
        raise NotIncremental(f"{where} has a subquery")


def _sources(select: exp.Select, relations: dict[str, Relation]
             ) -> tuple[list[Source], list[exp.Expression]]:
    """The FROM items as sources, and the join conditions (ON, USING)."""
    from_ = select.args.get("from_")
    if from_ is None:
        raise NotIncremental("it has no FROM clause")
    items: list[tuple[exp.Expression, exp.Join | None]] = [(from_.this, None)]
    items += [(join.this, join) for join in select.args.get("joins") or []]
    sources: list[Source] = []
    conditions: list[exp.Expression] = []
    for item, join in items:
        source = _source(item, relations)
        if any(s.relation.oid == source.relation.oid for s in sources):
            raise NotIncremental(f'it reads "{source.relation.name}" twice')
        if join is not None:
            side = str(join.args.get("side") or "").upper()
            kind = str(join.args.get("kind") or "").upper()
            if side or kind not in ("", "INNER", "CROSS") or join.args.get("method"):
                raise NotIncremental("it uses an outer or natural join")
            conditions.extend(conjuncts(join.args.get("on")))
            for identifier in join.args.get("using") or []:
                conditions.append(_using(identifier.name, source, sources))
        sources.append(source)
    return sources, conditions


def _source(item: exp.Expression, relations: dict[str, Relation]) -> Source:
    alias = item.alias
    if isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier):
        relation = relations.get(item.name) if not item.db else None
        condition = None
    elif isinstance(item, exp.Subquery) and _is_window_rows(item.this, relations):
        inner = item.this
        relation = relations[inner.args["from_"].this.name]
        condition = exp.EQ(this=exp.column(VISIBLE, table=alias, quoted=True),
                           expression=exp.Literal.number(1))
    else:
        raise NotIncremental("it reads a subquery or a function in FROM")
    if relation is None or relation.schema in (PG_CATALOG, INFORMATION_SCHEMA):
        raise NotIncremental("it reads a system catalog")
    if relation.kind != "r":
        raise NotIncremental(f'it reads "{relation.name}", which is not a table, stream or '
                             "window")
    return Source(alias, relation, condition)


def _is_window_rows(select: exp.Expression, relations: dict[str, Relation]) -> bool:
    """The translator's ``(SELECT * FROM window WHERE visible = 1)``."""
    if not isinstance(select, exp.Select) or select.args.get("joins"):
        return False
    from_ = select.args.get("from_")
    if from_ is None or not isinstance(from_.this, exp.Table):
        return False
    relation = relations.get(from_.this.name)
    return (relation is not None and relation.window is not None
            and len(select.expressions) == 1 and isinstance(select.expressions[0], exp.Star))


def _using(name: str, source: Source, earlier: list[Source]) -> exp.Expression:
    for other in earlier:
        if any(c.name == name for c in other.relation.columns):
            return exp.EQ(this=exp.column(name, table=other.alias, quoted=True),
                          expression=exp.column(name, table=source.alias, quoted=True))
    raise NotIncremental(f'USING ("{name}") names no earlier column')


def _group_keys(group: exp.Group, select: exp.Select) -> list[exp.Expression]:
    if group.args.get("rollup") or group.args.get("cube") or group.args.get("grouping_sets"):
        raise NotIncremental("it uses ROLLUP, CUBE or GROUPING SETS")
    keys: list[exp.Expression] = []
    for item in group.expressions:
        if isinstance(item, exp.Literal) and item.is_int:
            projection = select.expressions[int(item.name) - 1]
            item = projection.this if isinstance(projection, exp.Alias) else projection
        elif isinstance(item, exp.Column) and not item.table:
            named = [p.this for p in select.expressions
                     if isinstance(p, exp.Alias) and p.alias == item.name]
            if len(named) != 1:
                raise NotIncremental(f'GROUP BY "{item.name}" is ambiguous')
            item = named[0]
        if not any(item == key for key in keys):
            keys.append(item.copy())
    return keys


def _aggregate_kind(node: exp.Expression) -> str | None:
    """The delta rule of an aggregate call (None: not an aggregate)."""
    if isinstance(node, exp.GroupConcat):
        raise NotIncremental("string_agg cannot be maintained incrementally")
    if not isinstance(node, exp.Anonymous):
        return None
    name = node.name.lower()
    args = node.expressions
    if name in ("min", "max") and len(args) != 1:
        return None  # the scalar functions of SQLite (greatest, least)
    if name not in INCREMENTAL_AGGREGATES:
        if name in _AGGREGATE_NAMES:
            raise NotIncremental(f"the aggregate {name} cannot be maintained incrementally")
        return None
    kind = INCREMENTAL_AGGREGATES[name]
    if len(args) == 1 and isinstance(args[0], exp.Star):
        return "count_star"
    if len(args) == 1 and isinstance(args[0], exp.Distinct):
        if kind in ("min", "max"):
            return kind
        if kind == "count" and len(args[0].expressions) == 1:
            return "count_distinct"
        raise NotIncremental(f"{name}(DISTINCT ...) cannot be maintained incrementally")
    return kind


def _argument(call: exp.Expression) -> exp.Expression | None:
    arg = call.expressions[0]
    if isinstance(arg, exp.Star):
        return None
    if isinstance(arg, exp.Distinct):
        return arg.expressions[0]
    return arg


def _collect_aggregates(node: exp.Expression, found: list[Aggregate]) -> None:
    for candidate in node.walk():
        kind = _aggregate_kind(candidate)
        if kind is not None and not any(a.call == candidate for a in found):
            found.append(Aggregate(kind, _argument(candidate), candidate.copy()))


def _placeholders(node: exp.Expression, keys: list[exp.Expression],
                  aggregates: list[Aggregate], aliases: set[str]) -> exp.Expression:
    """``node`` with its grouping keys and aggregates replaced by placeholders."""

    def replace(current: exp.Expression) -> exp.Expression:
        for index, key in enumerate(keys):
            if current == key:
                return StateRef(this="k", index=index)
        for index, aggregate in enumerate(aggregates):
            if current == aggregate.call:
                return StateRef(this="a", index=index)
        if isinstance(current, exp.Column) and current.table in aliases:
            raise NotIncremental(f'column "{current.name}" is neither grouped nor aggregated')
        for key, value in list(current.args.items()):
            if isinstance(value, exp.Expression):
                current.set(key, replace(value))
            elif isinstance(value, list):
                current.set(key, [replace(v) if isinstance(v, exp.Expression) else v
                                  for v in value])
        return current

    return replace(node)
