"""GROUP BY GROUPING SETS, ROLLUP and CUBE, and GROUPING(), as a rewrite of
the PostgreSQL tree before it is translated.

A query with several grouping sets becomes the UNION ALL of one grouped
query per set, inside an outer query that keeps the select list's names,
DISTINCT, ORDER BY, LIMIT and OFFSET::

    SELECT a, b, GROUPING(a, b), sum(c) FROM t
    GROUP BY GROUPING SETS ((a, b), (a)) ORDER BY 3
    =>
    SELECT _g._g0 AS a, _g._g1 AS b, _g._g2 AS grouping, _g._g3 AS sum
    FROM (SELECT a AS _g0, b AS _g1, 0 AS _g2, sum(c) AS _g3 FROM t GROUP BY a, b
          UNION ALL
          SELECT a, CASE WHEN false THEN b END, 1, sum(c) FROM t GROUP BY a) AS _g
    ORDER BY _g._g2

In each branch a grouping expression the set leaves out is NULL, of the
expression's type (outside aggregate calls, which still see the rows'
values); ``GROUPING(...)`` is the constant bit mask of the arguments left
out; ORDER BY expressions that are not outputs are computed as hidden
columns. When a set is empty (``ROLLUP`` has one), every branch gets a
hidden ``count(*)``: grouping by nothing makes one row even of no rows.
With plain GROUP BY, ``GROUPING(...)`` is 0.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Final

from sqlglot import exp

from catalog import errors
from executor.functions.registry import FUNCTIONS
from sqlext.translate.naming import output_name

_SETS: Final = (exp.Rollup, exp.Cube, exp.GroupingSets)
_ALIAS: Final = "_g"

GroupingSet = tuple[int, ...]
"""Positions in the query's list of grouping expressions."""


def _bare(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _same(node: exp.Expression, key: exp.Expression) -> bool:
    """Whether an expression is a grouping expression (a column matches with
    or without its table name)."""
    node, key = _bare(node), _bare(key)
    if isinstance(node, exp.Column) and isinstance(key, exp.Column):
        return node.name == key.name and not (node.table and key.table
                                              and node.table != key.table)
    return node == key


def _is_grouping(node: exp.Expression) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.lower() == "grouping"


def _is_aggregate(node: exp.Expression) -> bool:
    if isinstance(node, exp.AggFunc | exp.WithinGroup | exp.Filter):
        return True
    definition = FUNCTIONS.get(node.name.lower()) if isinstance(node, exp.Anonymous) else None
    return definition is not None and definition.aggregate


def _this_level(node: exp.Expression | None) -> list[exp.Expression]:
    """The nodes of an expression outside its subqueries."""
    found: list[exp.Expression] = []
    pending = [node] if node is not None else []
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(child for child in current.iter_expressions()
                       if not isinstance(child, exp.Query | exp.Subquery))
    return found


def _clauses(node: exp.Select) -> dict[str, list[exp.Expression]]:
    """The query's expressions by clause (ORDER BY items and DISTINCT ON keys
    included), for finding GROUPING() calls."""
    joins = node.args.get("joins") or []
    return {
        "WHERE": [node.args["where"]] if node.args.get("where") else [],
        "JOIN conditions": [join.args["on"] for join in joins if join.args.get("on")],
        "": [*node.expressions, *([node.args["having"]] if node.args.get("having") else []),
             *(node.args["order"].expressions if node.args.get("order") else [])],
    }


def needs_rewrite(node: exp.Select) -> bool:
    """Whether a SELECT has grouping sets, GROUP BY () or GROUPING() calls."""
    group = node.args.get("group")
    if group is not None and any(isinstance(item, _SETS) or (
            isinstance(item, exp.Tuple) and not item.expressions) for item in group.expressions):
        return True
    return any(_is_grouping(found) for nodes in _clauses(node).values() for expression in nodes
               for found in _this_level(expression))


class _Expansion:
    """The query's grouping expressions and its grouping sets."""

    def __init__(self, node: exp.Select, is_input_column: Callable[[str], bool]) -> None:
        self.node = node
        self.is_input_column = is_input_column
        self.keys: list[exp.Expression] = []
        group = node.args.get("group")
        self.sets: list[GroupingSet] = [()]
        for item in group.expressions if group is not None else []:
            self.sets = [left + right for left in self.sets for right in self._item(item)]
        if group is not None and group.args.get("all") is False:  # GROUP BY DISTINCT
            unique: dict[frozenset[int], GroupingSet] = {}
            for found in self.sets:
                unique.setdefault(frozenset(found), found)
            self.sets = list(unique.values())
        self.plain = group is None or not any(
            isinstance(item, _SETS) or (isinstance(item, exp.Tuple) and not item.expressions)
            for item in group.expressions)

    def _key(self, item: exp.Expression) -> int:
        resolved = self._resolved(item)
        for index, key in enumerate(self.keys):
            if _same(resolved, key):
                return index
        self.keys.append(resolved)
        return len(self.keys) - 1

    def _resolved(self, item: exp.Expression) -> exp.Expression:
        """A grouping item as an expression: positions and output names
        (that are not input columns) stand for the select list's expressions."""
        projections = self.node.expressions
        bare = _bare(item)
        if isinstance(bare, exp.Literal) and bare.is_int:
            position = int(bare.name)
            if not 1 <= position <= len(projections):
                raise errors.InvalidColumnReference(
                    f"GROUP BY position {position} is not in select list")
            return _unaliased(projections[position - 1])
        if isinstance(bare, exp.Column) and not bare.table:
            for projection in projections:
                if isinstance(projection, exp.Alias) and projection.alias == bare.name and not (
                        self.is_input_column(bare.name)):
                    return projection.this
        return item

    def _item(self, item: exp.Expression) -> list[GroupingSet]:
        """The grouping sets one GROUP BY item stands for."""
        if isinstance(item, exp.Rollup):
            units = [self._unit(unit) for unit in item.expressions]
            return [tuple(itertools.chain(*units[:count]))
                    for count in range(len(units), -1, -1)]
        if isinstance(item, exp.Cube):
            units = [self._unit(unit) for unit in item.expressions]
            return [tuple(itertools.chain(*(unit for unit, kept in zip(units, mask, strict=True)
                                            if kept)))
                    for mask in itertools.product((True, False), repeat=len(units))]
        if isinstance(item, exp.GroupingSets):
            return [found for inner in item.expressions for found in (
                [self._unit(inner)] if isinstance(inner, exp.Tuple) else self._item(inner))]
        if isinstance(item, exp.Tuple) and not item.expressions:
            return [()]
        return [(self._key(item),)]

    def _unit(self, unit: exp.Expression) -> GroupingSet:
        """A parenthesized list of expressions inside ROLLUP, CUBE or
        GROUPING SETS, or a single expression."""
        if isinstance(unit, exp.Tuple):
            return tuple(self._key(item) for item in unit.expressions)
        return (self._key(unit),)

    def mask(self, call: exp.Anonymous, present: GroupingSet) -> int:
        """GROUPING(args): a bit per argument, set when the grouping set
        leaves it out; the first argument is the most significant."""
        value = 0
        for arg in call.expressions:
            index = next((i for i, key in enumerate(self.keys) if _same(arg, key)), None)
            if index is None:
                raise errors.GroupingError("arguments to GROUPING must be grouping expressions "
                                           "of the associated query level")
            value = value * 2 + (index not in present)
        return value

    def substituted(self, expression: exp.Expression, present: GroupingSet) -> exp.Expression:
        """A copy of an expression as the branch of one grouping set sees it."""

        def visit(node: exp.Expression) -> exp.Expression:
            if _is_grouping(node):
                return exp.Literal.number(self.mask(node, present))
            if isinstance(node, exp.Query | exp.Subquery) or _is_aggregate(node):
                return node.copy()  # left as it is (a copy: not visited further)
            for index, key in enumerate(self.keys):
                if index not in present and _same(node, key):
                    return _typed_null(key)
            return node

        return expression.transform(visit)


def _typed_null(key: exp.Expression) -> exp.Expression:
    """NULL of the type of a grouping expression (a bare NULL would be text
    in the branch, and no UNION of it with the branch grouping by the
    expression): ``CASE WHEN false THEN key END``."""
    return exp.Case(ifs=[exp.If(this=exp.false(), true=key.copy())])


def _unaliased(node: exp.Expression) -> exp.Expression:
    return node.this if isinstance(node, exp.Alias) else node


def rewrite(node: exp.Select, is_input_column: Callable[[str], bool]) -> None:
    """Rewrite a SELECT for which ``needs_rewrite`` holds, in place.
    ``is_input_column(name)``: whether a name is a column of its FROM items."""
    expansion = _Expansion(node, is_input_column)
    for clause, nodes in _clauses(node).items():
        calls = [found for expression in nodes for found in _this_level(expression)
                 if _is_grouping(found)]
        if calls and clause:
            raise errors.GroupingError(f"grouping operations are not allowed in {clause}")
        for call in calls:
            expansion.mask(call, ())
    if expansion.plain:
        for projection in node.expressions:
            if _is_grouping(projection):  # keeps its name
                projection.replace(exp.alias_(projection.copy(), output_name(projection)))
        for nodes in _clauses(node).values():
            for found in [found for expression in nodes for found in _this_level(expression)]:
                if _is_grouping(found):
                    found.replace(exp.Literal.number(0))
        return
    if any(isinstance(found, exp.Window) for nodes in _clauses(node).values()
           for expression in nodes for found in _this_level(expression)):
        raise errors.FeatureNotSupported(
            "window functions in a query with GROUPING SETS, ROLLUP or CUBE are not supported")
    _rewrite_sets(node, expansion)


def _rewrite_sets(node: exp.Select, expansion: _Expansion) -> None:
    projections = [_unaliased(projection) for projection in node.expressions]
    names = [output_name(projection) for projection in node.expressions]
    hidden: list[exp.Expression] = []
    order = node.args.get("order")
    ordered = [item.copy() for item in order.expressions] if order is not None else []
    for item in ordered:
        item.set("this", exp.column(_output(item.this, projections, names, hidden),
                                    _ALIAS, quoted=True))
    distinct = node.args.get("distinct")
    if distinct is not None and hidden:
        raise errors.InvalidColumnReference(
            "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
    branches = []
    for present in expansion.sets:
        branch = node.copy()
        for key in ("with_", "with", "order", "limit", "offset", "distinct"):
            branch.set(key, None)
        columns = [exp.alias_(expansion.substituted(expression, present), f"_g{index}",
                              quoted=True)
                   for index, expression in enumerate(projections + hidden)]
        if () in expansion.sets:
            columns.append(exp.alias_(exp.Anonymous(this="count", expressions=[exp.Star()]),
                                      "_gn", quoted=True))
        branch.set("expressions", columns)
        branch.set("group", exp.Group(expressions=[
            expansion.keys[index].copy() for index in present]) if present else None)
        if node.args.get("having") is not None:
            branch.set("having", exp.Having(this=expansion.substituted(
                node.args["having"].this, present)))
        branches.append(branch)
    union: exp.Expression = branches[0]
    for branch in branches[1:]:
        union = exp.union(union, branch, distinct=False, copy=False)
    outer = exp.select(*[exp.alias_(exp.column(f"_g{index}", _ALIAS, quoted=True), name,
                                    quoted=True)
                         for index, name in enumerate(names)]).from_(
        exp.Subquery(this=union, alias=exp.TableAlias(this=exp.to_identifier(_ALIAS))))
    if ordered:
        outer.set("order", exp.Order(expressions=ordered))
    for key in ("with_", "with", "limit", "offset", "distinct"):
        if node.args.get(key) is not None:
            outer.set(key, node.args[key])
    for key in set(node.args) | set(outer.args):
        node.set(key, outer.args.get(key))


def _output(item: exp.Expression, projections: list[exp.Expression], names: list[str],
            hidden: list[exp.Expression]) -> str:
    """The column of the union an ORDER BY item sorts by: a position, an
    output name, a select list expression, or a hidden column."""
    bare = _bare(item)
    if isinstance(bare, exp.Literal) and bare.is_int:
        position = int(bare.name)
        if not 1 <= position <= len(projections):
            raise errors.InvalidColumnReference(
                f"ORDER BY position {position} is not in select list")
        return f"_g{position - 1}"
    if isinstance(bare, exp.Column) and not bare.table and bare.name in names:
        return f"_g{names.index(bare.name)}"
    for index, projection in enumerate(projections):
        if _same(bare, projection):
            return f"_g{index}"
    hidden.append(item)
    return f"_g{len(projections) + len(hidden) - 1}"
