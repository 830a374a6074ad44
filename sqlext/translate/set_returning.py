"""Set-returning functions in select lists, with PostgreSQL 10's meaning:
the rest of the query runs first, then each row makes as many rows as the
longest function returns (the others padded with NULLs); a function may sit
inside an expression (``generate_series(1, 3) * 2``) and in ORDER BY.
Where PostgreSQL refuses them (WHERE, CASE, aggregate arguments...) the
error is PostgreSQL's. ``lateral.SelectListRows`` says how the query is
rebuilt.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from sqlglot import exp

from catalog import errors
from catalog.sqltypes import SqlType
from executor.functions.registry import FUNCTIONS
from sqlext.translate.function_rules import SpecialForm
from sqlext.translate.lateral import (
    BELOW,
    ROWS,
    RowValue,
    SelectListRows,
    packed_value,
    row_number,
)
from sqlext.translate.scope import Scope
from sqlext.translate.sources import SourceTranslator

_LATERAL_HINT = "You might be able to move the set-returning function into a LATERAL FROM item."


class SetReturningRules(SourceTranslator):
    """Translates set-returning function calls in select lists."""

    def _set_returning_call(self, node: exp.Anonymous, name: str,
                            scope: Scope) -> tuple[exp.Expression, SqlType]:
        rows = self._select_list_rows(node)
        if any(self.is_set_returning(inner) for arg in node.expressions
               for inner in _expressions(arg)):
            raise errors.FeatureNotSupported(
                "set-returning functions in the arguments of set-returning functions are not "
                "supported")
        for arg in list(node.expressions):
            named = isinstance(arg, exp.Kwarg | exp.PropertyEQ)  # name => value
            translated, arg_type = self.expr(arg.expression if named else arg, scope)
            if not arg_type.is_unknown:  # untyped literals and parameters stay to be typed
                translated.replace(rows.argument(translated.copy(), arg_type))
        query, value_type = self.set_function(node, name, rows.scope)
        value = rows.add(query, value_type)
        node.replace(value)
        return value, value_type

    def _select_list_rows(self, node: exp.Anonymous) -> SelectListRows:
        """The select list a call belongs to, or PostgreSQL's error for a
        set-returning function where it stands."""
        context = self._set_returning[-1] if self._set_returning else None
        if context == "FROM":
            raise errors.FeatureNotSupported(
                "set-returning functions must appear at top level of FROM")
        if not isinstance(context, SelectListRows):
            where = f"in {context}" if context else "here"
            raise errors.FeatureNotSupported(f"set-returning functions are not allowed {where}")
        child: exp.Expression = node
        parent = node.parent
        while parent is not None and not isinstance(parent, exp.Query | exp.Subquery):
            coalesce = isinstance(parent, exp.Coalesce) or (
                isinstance(parent, exp.Anonymous) and parent.name.lower() == "coalesce")
            if coalesce or isinstance(parent, exp.Case | exp.If):
                construct = "COALESCE" if coalesce else "CASE"
                raise errors.FeatureNotSupported(
                    f"set-returning functions are not allowed in {construct}",
                    hint=_LATERAL_HINT)
            if (isinstance(parent, exp.Window) and child is parent.this) or self._is_aggregate(
                    parent):
                windowed = isinstance(parent, exp.Window) or (
                    isinstance(parent.parent, exp.Window) and parent is parent.parent.this)
                calls = "window function calls" if windowed else "aggregate function calls"
                raise errors.FeatureNotSupported(
                    f"{calls} cannot contain set-returning function calls", hint=_LATERAL_HINT)
            child, parent = parent, parent.parent
        return context

    @staticmethod
    def _is_aggregate(node: exp.Expression) -> bool:
        if isinstance(node, exp.AggFunc):
            return True
        definition = FUNCTIONS.get(node.name.lower()) if isinstance(node, exp.Anonymous) else None
        return definition is not None and definition.aggregate

    def is_set_returning(self, node: exp.Expression) -> bool:
        """Whether ``node`` calls a set-returning function."""
        if not isinstance(node, exp.Anonymous):
            return False
        name = node.name.lower().rpartition(".")[2]
        definition = FUNCTIONS.get(name)
        return name in self.TABLE_FUNCTIONS or (
            definition is not None and definition.set_returning)

    SPECIAL_FORMS: ClassVar[dict[str, SpecialForm]] = {
        **SourceTranslator.SPECIAL_FORMS,
        **dict.fromkeys(SourceTranslator.TABLE_FUNCTIONS, _set_returning_call),
        **dict.fromkeys((name for name, definition in FUNCTIONS.items()
                         if definition.set_returning), _set_returning_call),
    }


def _expressions(node: exp.Expression) -> Iterator[exp.Expression]:
    """``node`` and what it contains, subqueries left out."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(child for child in current.iter_expressions()
                       if not isinstance(child, exp.Query | exp.Subquery))


def expand_select_list(node: exp.Select, rows: SelectListRows) -> exp.Select:
    """Rebuild a translated SELECT whose select list has set-returning
    functions (see ``SelectListRows``); returns the query that keeps FROM,
    WHERE, GROUP BY, HAVING and the windows, while DISTINCT, ORDER BY and
    LIMIT apply to the rows the functions make. Grouped by what they
    return, they run before the grouping instead, beside the FROM items."""
    names = [projection.alias for projection in node.expressions]
    group = node.args.get("group")
    if group is not None and any(_groups_by_rows(item, node.expressions, names)
                                 for item in group.expressions):
        _join_rows(node, rows)
        return node
    below = node.copy()
    for key in _ABOVE:
        below.set(key, None)
    below_group = below.args.get("group")
    for item in list(below_group.expressions) if below_group is not None else []:
        item.replace(_grouping_item(item, node.expressions, names))
    projections = [_split(index, projection, rows) for index, projection in enumerate(
        node.expressions)]
    _sort_above(node, names, rows)
    below.set("expressions", [below_value for _, below_value in projections] + rows.inputs)
    outer = exp.select(*[above for above, _ in projections]).from_(exp.Subquery(
        this=below, alias=exp.TableAlias(this=exp.to_identifier(BELOW, quoted=True))),
        copy=False).join(rows.source(), copy=False)
    for key in _ABOVE:
        outer.set(key, node.args.get(key))
    for key in set(node.args) | set(outer.args):
        node.set(key, outer.args.get(key))
    _resolve_values(node)
    return below


_ABOVE = ("with", "with_", "distinct", "order", "limit", "offset")
"""What applies to the rows the functions make."""


def _split(index: int, projection: exp.Expression,
           rows: SelectListRows) -> tuple[exp.Expression, exp.Expression]:
    """A select list item as (the item of the query above, the column
    ``_c<index>`` of the query below, which keeps the list's positions)."""
    value = projection.this if isinstance(projection, exp.Alias) else projection
    name = projection.alias_or_name
    if value.find(RowValue) is None:
        return (exp.alias_(exp.column(f"_c{index}", BELOW, quoted=True), name, quoted=True),
                exp.alias_(value.copy(), f"_c{index}", quoted=True))
    return (exp.alias_(_above(value.copy(), rows), name, quoted=True),
            exp.alias_(exp.Null(), f"_c{index}", quoted=True))


def _sort_above(node: exp.Select, names: list[str], rows: SelectListRows) -> None:
    """ORDER BY and DISTINCT ON items for the query above."""
    order = node.args.get("order")
    for ordered in order.expressions if order is not None else []:
        ordered.set("this", _sort_item(ordered.this, names, rows))
    distinct = node.args.get("distinct")
    if order is not None and distinct is None:
        # Rows made from one row keep their order, as PostgreSQL sorts before
        # it runs the functions when it can.
        order.append("expressions", exp.Ordered(this=row_number(ROWS)))
    if distinct is not None and distinct.args.get("on") is not None:
        for key in list(distinct.args["on"].expressions):
            key.replace(_sort_item(key, names, rows))


def _resolve_values(node: exp.Select) -> None:
    """The functions' values, read from their rows (``_srf``)."""
    for value in list(node.find_all(RowValue)):
        value.replace(packed_value(ROWS, value.this))


def _above(value: exp.Expression, rows: SelectListRows) -> exp.Expression:
    """``value``, a select list item or sort key with set-returning function
    values, for the query above: what it needs of the query below becomes
    columns of ``_p``."""
    if isinstance(value, RowValue):
        return value
    if isinstance(value, exp.Window) and value.find(RowValue) is not None:
        raise errors.FeatureNotSupported(
            "set-returning functions in window definitions are not supported")
    if value.find(RowValue) is None:
        if value.find(exp.Column, exp.AggFunc, exp.Window, exp.Anonymous) is None:
            return value  # a constant
        return rows.computed_below(value)
    for child in list(value.iter_expressions()):
        if not isinstance(child, exp.DataType | exp.Var | exp.Identifier):
            child.replace(_above(child, rows))
    return value


def _sort_item(item: exp.Expression, names: list[str], rows: SelectListRows) -> exp.Expression:
    """An ORDER BY or DISTINCT ON item for the query above: positions and
    output names stay, expressions are computed below."""
    if isinstance(item, exp.Literal) and item.is_int:
        return item
    if isinstance(item, exp.Column) and not item.table and item.name in names:
        return item
    return _above(item, rows)


def _join_rows(node: exp.Select, rows: SelectListRows) -> None:
    """Put the set-returning functions' rows beside the query's FROM items,
    their arguments computed there rather than below."""
    source = rows.source()
    computed = {alias.alias: alias.this for alias in rows.inputs}
    for column in list(source.find_all(exp.Column)):
        if column.table == BELOW:
            column.replace(computed[column.name].copy())
    if node.args.get("from_") is None and node.args.get("from") is None:
        node.from_(source, copy=False)
    else:
        node.join(source, copy=False)
    _resolve_values(node)


def _output_position(item: exp.Expression, names: list[str]) -> int | None:
    """The select list item (from 1) a GROUP BY item names by position or
    output name, if it does."""
    if isinstance(item, exp.Column) and not item.table and item.name in names:
        return names.index(item.name) + 1
    return int(item.name) if isinstance(item, exp.Literal) and item.is_int else None


def _groups_by_rows(item: exp.Expression, projections: list[exp.Expression],
                    names: list[str]) -> bool:
    """Whether a GROUP BY item is (or names) a set-returning function's value."""
    position = _output_position(item, names)
    return item.find(RowValue) is not None or (
        position is not None and projections[position - 1].find(RowValue) is not None)


def _grouping_item(item: exp.Expression, projections: list[exp.Expression],
                   names: list[str]) -> exp.Expression:
    """A GROUP BY item for the query below, whose select list items are
    renamed: an output name becomes the item's expression."""
    if isinstance(item, exp.Column) and not item.table and item.name in names:
        projection = projections[names.index(item.name)]
        return (projection.this if isinstance(projection, exp.Alias) else projection).copy()
    return item
