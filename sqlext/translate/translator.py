"""PostgreSQL statement trees to SQLite statement trees, with types.

A ``Translator`` walks a (copied) statement tree once and rewrites it in
place into a tree ``sqlext.sql.sqlite_dialect`` prints as SQLite SQL; it also reports the
result columns and parameter types clients are told about. It is assembled
from layers, each in its own module:

* ``expression_rules``: types of expressions, literals and parameters that
  take their type from context, casts, operators;
* ``function_rules``: function calls, aggregates, window functions;
* ``sources``: FROM items (storage names of tables, subqueries, VALUES,
  table functions);
* this module: queries (SELECT, set operations, WITH, ORDER BY, ``*``).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.sqltypes import INT8, TEXT, SqlType, check_matchable, common_type, is_numeric
from executor.functions.record_text import record_layout
from executor.functions.registry import FUNCTIONS
from sqlext.sql.sqlite_dialect import ScaledNumeric, not_a_position
from sqlext.translate import grouping_sets
from sqlext.translate.composite import record_fields
from sqlext.translate.expression_rules import REG_TYPES, is_unknown_literal, reg_name, unalias
from sqlext.translate.lateral import COLUMN_POSITION, SelectListRows
from sqlext.translate.naming import output_name
from sqlext.translate.scope import ColumnInfo, Scope, Source
from sqlext.translate.set_returning import SetReturningRules, expand_select_list
from sqlext.translate.sources import flatten_join_groups, physical_table

__all__ = ["Translator", "output_name", "physical_table", "readable_outputs"]

_SET_OPERAND = "sqlext_set_operand"
"""Marks (in ``meta``) a SELECT that is an operand of UNION, INTERSECT or
EXCEPT: its untyped literals and NULLs take the type of the other operand's
column, as in PostgreSQL (``SELECT NULL::date UNION SELECT '2024-01-01'``)."""


class Translator(SetReturningRules):
    """Translates one statement. Not reusable: create one per statement."""

    def query(self, node: exp.Expression, parent: Scope | None = None) -> list[ColumnInfo]:
        """Translate a query in place; returns its result columns."""
        if isinstance(node, exp.Subquery):
            return self.query(node.this, parent)
        if isinstance(node, exp.SetOperation):
            return self._set_operation(node, parent)
        if isinstance(node, exp.Values):
            return self._values(node, parent)
        if isinstance(node, exp.Select):
            return self._select(node, parent)
        raise errors.FeatureNotSupported(f"{node.key.upper()} is not supported as a query")

    def _with(self, node: exp.Expression, scope: Scope) -> None:
        with_ = node.args.get("with_") or node.args.get("with")
        if not with_:
            return
        for cte in with_.expressions:
            name = cte.alias
            alias_columns = [c.name for c in cte.args["alias"].columns] if cte.args.get(
                "alias") else []
            body = cte.this
            if with_.args.get("recursive") and isinstance(body, exp.SetOperation):
                anchor = self.query(body.this, scope)
                columns = self._rename(anchor, alias_columns)
                scope.ctes[name] = columns
                if len(self.query(body.expression, scope)) != len(anchor):
                    raise errors.SqlSyntaxError(
                        f"each {body.key.upper()} query must have the same number of columns")
            else:
                columns = self._rename(self.query(body, scope), alias_columns)
            if alias_columns and len(alias_columns) < len(columns):
                # PostgreSQL names the rest after the query; SQLite wants all.
                for column in columns[len(alias_columns):]:
                    cte.args["alias"].append("columns", exp.to_identifier(column.name,
                                                                          quoted=True))
            scope.ctes[name] = columns

    def _set_operation(self, node: exp.SetOperation, parent: Scope | None) -> list[ColumnInfo]:
        left_operand = node.this
        if isinstance(left_operand, exp.Select) and any(
                left_operand.args.get(key) for key in ("order", "limit", "offset")):
            # PostgreSQL's grammar takes ORDER BY and LIMIT before UNION only
            # inside parentheses; sqlglot accepts them, SQLite would not.
            operator = node.key.upper()
            raise errors.SqlSyntaxError(f'syntax error at or near "{operator}"')
        scope = Scope(parent)
        self._with(node, scope)
        for operand in (node.this, node.expression):
            operand.meta[_SET_OPERAND] = True
        left = self.query(node.this, scope)
        right = self.query(node.expression, scope)
        if len(left) != len(right):
            raise errors.SqlSyntaxError(
                f"each {node.key.upper()} query must have the same number of columns"
            )
        for a, b in zip(left, right, strict=True):
            check_matchable([a.type, b.type], node.key.upper())
        columns = [
            ColumnInfo(a.name, common_type([a.type, b.type]))
            for a, b in zip(left, right, strict=True)
        ]
        for operand in (node.this, node.expression):
            if isinstance(operand, exp.Select):
                # the untyped literals left for the operands' common type
                for projection, column in zip(operand.expressions, columns, strict=True):
                    if is_unknown_literal(unalias(projection)):
                        self.coerce(unalias(projection), column.type)
        order = node.args.get("order")
        for ordered in order.expressions if order is not None else []:
            item = ordered.this
            if not (_position(item, "ORDER BY", len(columns)) or (isinstance(
                    item, exp.Column) and not item.table and any(
                    c.name == item.name for c in columns))):
                # SQLite too sorts a set operation by its result columns only.
                raise errors.FeatureNotSupported(
                    "invalid UNION/INTERSECT/EXCEPT ORDER BY clause",
                    detail="Only result column names can be used, not expressions or "
                           "functions.")
        self._order_and_limit(node, scope, len(columns))
        return [ColumnInfo(c.name, TEXT if c.type.is_unknown else c.type) for c in columns]

    def _select(self, node: exp.Select, parent: Scope | None) -> list[ColumnInfo]:
        flatten_join_groups(node)
        if grouping_sets.needs_rewrite(node):
            grouping_sets.rewrite(node, lambda name: self._input_column(node, parent, name))
        scope = Scope(parent)
        self._with(node, scope)
        from_ = node.args.get("from_") or node.args.get("from")
        with self.refusing_set_returning("FROM"):
            if from_ is not None:
                self.from_item(from_.this, scope)
            elif node.args.get("joins"):  # sqlglot takes 'SELECT 1 JOIN t' for a join
                raise errors.SqlSyntaxError('syntax error at or near "JOIN"')
            for join in node.args.get("joins") or []:
                self.join_source(join, scope)
        if node.args.get("locks"):
            self.writes = True
            node.set("locks", None)
        where = node.args.get("where")
        if where is not None:
            with self.refusing_set_returning("WHERE"):
                self.condition(where.this, scope)
        self._expand_stars(node, scope)
        if not node.expressions:
            raise errors.FeatureNotSupported("SELECT without result columns is not supported")
        rows = SelectListRows()
        self._set_returning.append(rows)
        try:
            columns = self._select_list(node, scope)
        finally:
            self._set_returning.pop()
        having = node.args.get("having")
        if rows.queries:
            below = expand_select_list(node, rows)
            if having is not None and node.args.get("group") is None:
                _having_without_group(below, [ColumnInfo(p.alias, TEXT)
                                              for p in below.expressions])
        elif having is not None and node.args.get("group") is None:
            _having_without_group(node, columns)
        distinct = node.args.get("distinct")
        if distinct is not None and distinct.args.get("on") is not None:
            _distinct_on(node, columns)
        return columns

    def _select_list(self, node: exp.Select, scope: Scope) -> list[ColumnInfo]:
        """The select list and what refers to it (GROUP BY, HAVING, DISTINCT
        ON, ORDER BY, LIMIT); returns the result columns."""
        calls = [_call_kind(projection) for projection in node.expressions]
        columns: list[ColumnInfo] = []
        for projection in list(node.expressions):
            name = output_name(projection)
            translated, sql_type = self.expr(projection, scope)
            value = unalias(translated)
            if sql_type.is_unknown and not (node.meta.get(_SET_OPERAND) and (
                    is_unknown_literal(value) or isinstance(value, exp.Null))):
                if is_unknown_literal(value):
                    self.coerce(value, TEXT)
                sql_type = TEXT
            info = self._column_info(value, name, sql_type, scope)
            columns.append(info)
            scope.outputs.setdefault(name, sql_type)
            if not isinstance(translated, exp.Alias):
                translated.replace(exp.alias_(translated.copy(), name, quoted=True))
        group = node.args.get("group")
        distinct = node.args.get("distinct")
        if group is not None:
            # SQLite's rewrite of a query with window functions (DISTINCT ON
            # adds one) loses what GROUP BY positions and output names refer to.
            windowed = "window" in calls or (
                distinct is not None and distinct.args.get("on") is not None)
            for item in list(group.expressions):
                position = _position(item, "GROUP BY", len(columns))
                if position is not None and calls[position - 1] == "window":
                    raise errors.WindowingError("window functions are not allowed in GROUP BY")
                if position is not None and calls[position - 1] == "aggregate":
                    raise errors.GroupingError("aggregate functions are not allowed in GROUP BY")
                output = position or (
                    next(i for i, c in enumerate(columns, 1) if c.name == item.name)
                    if _names_output(item, scope, grouping=True) else None)
                if windowed and output is not None:
                    item.replace(not_a_position(unalias(node.expressions[output - 1]).copy()))
                else:
                    self._order_item(item, scope)
        having = node.args.get("having")
        if having is not None:
            with self.refusing_set_returning("HAVING"):
                self.condition(having.this, scope)
        if distinct is not None and distinct.args.get("on") is not None:
            for item in distinct.args["on"].expressions:
                _position(item, "DISTINCT ON", len(columns))
                self._order_item(item, scope)
        self._order_and_limit(node, scope, len(columns))
        return columns

    def _input_column(self, node: exp.Select, parent: Scope | None, name: str) -> bool:
        """Whether ``name`` is a column of the query's FROM items (read from
        a copy: GROUP BY takes input columns before output names)."""
        scratch = node.copy()
        scope = Scope(parent)
        self._with(scratch, scope)
        from_ = scratch.args.get("from_") or scratch.args.get("from")
        if from_ is not None:
            self.from_item(from_.this, scope)
        for join in scratch.args.get("joins") or []:
            self.join_source(join, scope)
        try:
            return scope.resolve(name) is not None
        except errors.AmbiguousColumn:
            return True

    def _column_info(self, node: exp.Expression, name: str, sql_type: SqlType,
                     scope: Scope) -> ColumnInfo:
        if isinstance(node, ScaledNumeric):  # a numeric(p,s) column, as stored
            node = node.this
        if isinstance(node, exp.Column):
            found = scope.resolve(node.name, node.table or None)
            if found is not None:
                return ColumnInfo(name, sql_type, found.table_oid, found.column_number,
                                  found.nullable)
        return ColumnInfo(name, sql_type)

    def _order_and_limit(self, node: exp.Expression, scope: Scope, outputs: int) -> None:
        order = node.args.get("order")
        if order is not None:
            for ordered in order.expressions:
                _position(ordered.this, "ORDER BY", outputs)
                self._order_item(ordered.this, scope)
        for key in ("limit", "offset"):
            clause = node.args.get(key)
            if clause is None:
                continue
            value = clause.args.get("expression") or clause.this
            if (isinstance(value, exp.Var) and value.name.upper() == "ALL") or (
                value is not None and value.sql().upper() == "ALL"
            ) or isinstance(value, exp.Null):
                node.set(key, None)  # LIMIT NULL is no limit, OFFSET NULL none
                continue
            if value is None:
                continue
            # The query's own columns are not visible here (outer ones are).
            with self.refusing_set_returning(key.upper()):
                translated, value_type = self.expr(value, Scope(scope.parent))
            if value_type.is_unknown:
                translated = self.coerce(translated, INT8, scope)
            elif not is_numeric(value_type):
                raise errors.DatatypeMismatch(
                    f"argument of {key.upper()} must be type bigint, not type "
                    f"{t.format_type(value_type.oid)}")
            if not (isinstance(translated, exp.Literal) and translated.is_int
                    and int(translated.name) >= 0):
                # A negative count is an error (SQLite would take it as none).
                translated.replace(exp.Anonymous(this="sqlext_row_count", expressions=[
                    translated.copy(), exp.Literal.string(key.upper())]))

    def _order_item(self, item: exp.Expression, scope: Scope) -> None:
        """ORDER BY / GROUP BY items: output names, ordinals or expressions."""
        if (isinstance(item, exp.Literal) and not item.is_string) or _ordinal(item) is not None:
            return
        if _names_output(item, scope, grouping=isinstance(item.parent, exp.Group)):
            item.replace(exp.column(item.name, quoted=True))
            return
        translated, _ = self.expr(item, scope)
        if isinstance(translated, ScaledNumeric):
            # scaled integers order and group as their values do (NaN last)
            raw = translated.this.copy()
            translated.replace(raw)
            translated = raw
        translated.replace(not_a_position(translated.copy()))

    def _expand_stars(self, node: exp.Select, scope: Scope) -> None:
        expanded: list[exp.Expression] = []
        changed = False
        for projection in node.expressions:
            star_of = self._star_source(projection)
            if star_of is None:
                expanded.append(projection)
                continue
            changed = True
            sources = scope.sources if star_of == "*" else [self._source(star_of, scope)]
            if not sources:
                raise errors.SqlSyntaxError("SELECT * with no tables specified is not valid")
            for position, source in enumerate(sources):
                for number, column in enumerate(source.columns):
                    if star_of == "*" and column.name in source.merged:
                        continue
                    reference = exp.column(column.name, source.alias, quoted=True)
                    if source.packed:
                        reference.meta[COLUMN_POSITION] = number
                    joined = [later for later in sources[position + 1:]
                              if column.name in later.merged] if star_of == "*" else []
                    if joined:
                        # A USING/NATURAL join column: whichever side has it.
                        reference = exp.alias_(exp.Coalesce(this=reference, expressions=[
                            exp.column(column.name, later.alias, quoted=True)
                            for later in joined]), column.name, quoted=True)
                    expanded.append(reference)
        if changed:
            node.set("expressions", expanded)

    @staticmethod
    def _star_source(projection: exp.Expression) -> str | None:
        if isinstance(projection, exp.Star):
            return "*"
        if isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star):
            return projection.table
        return None

    def _source(self, alias: str, scope: Scope) -> Source:
        source = scope.source(alias)
        if source is None:
            raise errors.UndefinedTable(f'missing FROM-clause entry for table "{alias}"')
        return source


def _ordinal(item: exp.Expression) -> int | None:
    """The number of an integer constant (in parentheses, negative or not),
    which ORDER BY and GROUP BY take for a position in the select list."""
    number, negative = _constant(item)
    if not (isinstance(number, exp.Literal) and number.is_int):
        return None
    return -int(number.name) if negative else int(number.name)


def _constant(item: exp.Expression) -> tuple[exp.Expression, bool]:
    """The item without parentheses, and whether it is a negated number (as
    PostgreSQL's parser folds ``-(1)`` into the constant -1)."""
    while isinstance(item, exp.Paren):
        item = item.this
    if isinstance(item, exp.Neg):
        negated = item.this
        while isinstance(negated, exp.Paren):
            negated = negated.this
        if isinstance(negated, exp.Literal) and negated.is_number:
            return negated, True
    return item, False


def _names_output(item: exp.Expression, scope: Scope, grouping: bool) -> bool:
    """Whether an ORDER BY / GROUP BY item is the name of an output column.
    ORDER BY takes output names first; GROUP BY, input columns first."""
    if not isinstance(item, exp.Column) or item.table or item.name not in scope.outputs:
        return False
    if not grouping:
        return True
    try:
        return scope.resolve(item.name) is None
    except errors.AmbiguousColumn:
        return True


def _position(item: exp.Expression, clause: str, outputs: int) -> int | None:
    """The output an ORDER BY / GROUP BY position refers to (an error when
    there is none), or None for items that are not positions."""
    position = _ordinal(item)
    constant, _ = _constant(item)
    if isinstance(constant, exp.Boolean | exp.Null) or (
            isinstance(constant, exp.Literal) and not constant.is_int):
        raise errors.SqlSyntaxError(f"non-integer constant in {clause}")
    if position is not None and not 1 <= position <= outputs:
        raise errors.InvalidColumnReference(
            f"{clause} position {position} is not in select list")
    return position


def _call_kind(node: exp.Expression) -> str | None:
    """"window" or "aggregate" when the expression calls one (subqueries
    aside), else None."""
    kind = None
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, exp.Window):
            return "window"
        definition = FUNCTIONS.get(current.name.lower()) if isinstance(
            current, exp.Anonymous) else None
        if isinstance(current, exp.AggFunc | exp.WithinGroup) or (
                definition is not None and definition.aggregate):
            kind = "aggregate"
        pending.extend(child for child in current.iter_expressions()
                       if not isinstance(child, exp.Query | exp.Subquery))
    return kind


def _having_without_group(node: exp.Select, columns: list[ColumnInfo]) -> None:
    """``SELECT ... HAVING cond`` without GROUP BY is one group, as if the
    select list held an aggregate; SQLite wants one there. The query gets a
    hidden count(*) and is wrapped in one that leaves it out. DISTINCT means
    nothing for at most one row, but the DISTINCT ON keys and ORDER BY stay
    inside (they may hold parameters, which SQLite counts)."""
    projections = [p.this if isinstance(p, exp.Alias) else p for p in node.expressions]
    resolved = _output_resolver(projections, [c.name for c in columns])
    inner = node.copy()
    inner.set("expressions", [exp.alias_(projection.copy(), f"_h{index}", quoted=True)
                              for index, projection in enumerate(projections)])
    distinct = node.args.get("distinct")
    keys = distinct.args["on"].expressions if distinct is not None and distinct.args.get(
        "on") is not None else []
    for index, key in enumerate(keys):
        inner.append("expressions", exp.alias_(resolved(key), f"_hk{index}", quoted=True))
    inner.append("expressions", exp.alias_(exp.Count(this=exp.Star()), "_hc", quoted=True))
    order = inner.args.get("order")
    for ordered in order.expressions if order is not None else []:
        ordered.set("this", resolved(ordered.this))
    for key in ("limit", "offset", "distinct"):
        inner.set(key, None)
    outer = exp.select(*[exp.alias_(exp.column(f"_h{index}", quoted=True), column.name,
                                    quoted=True)
                         for index, column in enumerate(columns)]).from_(
        exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("_h"))))
    for key in ("limit", "offset"):
        if node.args.get(key) is not None:
            outer.set(key, node.args[key].copy())
    for key in set(node.args) | set(outer.args):
        node.set(key, outer.args.get(key))


def _output_resolver(projections: list[exp.Expression],
                     names: list[str]) -> Callable[[exp.Expression], exp.Expression]:
    """For ORDER BY and DISTINCT ON items moved into a query whose outputs
    are renamed: positions and output names become (copies of) the select
    list's expressions, other items are copied."""

    def resolved(item: exp.Expression) -> exp.Expression:
        position = _ordinal(item)
        if position is not None:
            return not_a_position(projections[position - 1].copy())
        if isinstance(item, exp.Column) and not item.table and item.name in names:
            return not_a_position(projections[names.index(item.name)].copy())
        return item.copy()

    return resolved


def readable_outputs(tree: exp.Expression, columns: list[ColumnInfo]) -> set[int]:
    """Result columns of reg* types are sent as names, and records as
    ``(a,1)``, as PostgreSQL prints them; returns the positions of those
    columns (their values are text)."""
    named: set[int] = set()
    if not isinstance(tree, exp.Select):
        return named
    for index, (projection, column) in enumerate(zip(tree.expressions, columns,
                                                     strict=False)):
        if not isinstance(projection, exp.Alias):
            continue
        fields = record_fields(column.type)
        if column.type.oid in REG_TYPES:
            projection.set("this", reg_name(projection.this.copy(), column.type))
        elif fields:
            layout = record_layout([(name, field.oid, field.typmod) for name, field in fields])
            projection.set("this", exp.Anonymous(this="sqlext_record_text", expressions=[
                projection.this.copy(), exp.Literal.string(layout)]))
        else:
            continue
        named.add(index)
    return named


def _distinct_on(node: exp.Select, columns: list[ColumnInfo]) -> None:
    """SELECT DISTINCT ON (keys) ... ORDER BY ...: keep the first row of each
    key group (row_number() = 1) and keep the query's order, which SQLite's
    window rewrite alone would lose. Keys and sort items that are positions
    or output names become the select list's expressions, and the outer
    query takes the columns by position (several may share a name)."""
    projections = [p.this if isinstance(p, exp.Alias) else p for p in node.expressions]
    names = [c.name for c in columns]
    resolved = _output_resolver(projections, names)
    keys = [resolved(key) for key in node.args["distinct"].args["on"].expressions]
    order = node.args.get("order")
    ordered = [o.copy() for o in order.expressions] if order is not None else []
    for item in ordered:
        item.set("this", resolved(item.this))
    inner = node.copy()
    inner.set("distinct", None)
    inner.set("order", None)
    inner.set("limit", None)
    inner.set("offset", None)
    inner.set("expressions", [exp.alias_(projection.copy(), f"_d{index}", quoted=True)
                              for index, projection in enumerate(projections)])
    for index, item in enumerate(ordered):
        inner.append("expressions", exp.alias_(item.this.copy(), f"_o{index}", quoted=True))
    window = exp.Window(this=exp.Anonymous(this="row_number", expressions=[]),
                        partition_by=keys, order=exp.Order(expressions=ordered) if ordered
                        else None)
    inner.append("expressions", exp.alias_(window, "_rn", quoted=True))
    outer = exp.select(*[exp.alias_(exp.column(f"_d{index}", quoted=True), name, quoted=True)
                         for index, name in enumerate(names)]).from_(
        exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("_d"))))
    outer = outer.where(exp.EQ(this=exp.column("_rn", quoted=True),
                               expression=exp.Literal.number(1)))
    if ordered:
        outer.set("order", exp.Order(expressions=[
            exp.Ordered(this=exp.column(f"_o{index}", quoted=True), desc=o.args.get("desc"),
                        nulls_first=o.args.get("nulls_first"))
            for index, o in enumerate(ordered)]))
    for key in ("limit", "offset"):
        if node.args.get(key) is not None:
            outer.set(key, node.args[key].copy())
    for key in set(node.args) | set(outer.args):
        node.set(key, outer.args.get(key))
