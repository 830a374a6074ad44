"""Aggregate calls with ORDER BY or DISTINCT inside, and the ordered-set
aggregates (``percentile_cont(0.5) WITHIN GROUP (ORDER BY x)``, ``mode()``,
the hypothetical ``rank(3) WITHIN GROUP (ORDER BY x)``).

SQLite 3.40 has no ORDER BY inside aggregate calls: such a call of an
aggregate whose result depends on the order of its rows becomes
``sqlext_sorted(spec, ...)`` (``executor.functions.ordered_aggregates``).
Where the order cannot change the result (count, sum, max...), ORDER BY is
checked and dropped, and DISTINCT stays SQLite's.
"""

from __future__ import annotations

from typing import ClassVar, Final

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.schema import PG_CATALOG
from catalog.sqltypes import FLOAT8, TEXT, SqlType, check_matchable, common_type, is_numeric
from executor.functions.declare import FunctionDef
from executor.functions.ordered_aggregates import HYPOTHETICAL, SortedCall, SortKey
from executor.functions.registry import FUNCTIONS
from sqlext.sql.sqlite_dialect import StorageLiteral
from sqlext.translate.expression_rules import Handler
from sqlext.translate.function_rules import FunctionRules
from sqlext.translate.json_rules import JsonRules
from sqlext.translate.scope import Scope

ORDER_SENSITIVE: Final = frozenset({"string_agg", "array_agg", "json_agg", "jsonb_agg",
                                    "json_object_agg", "jsonb_object_agg"})
"""Aggregates whose result depends on the order of their rows."""

_EMPTY_HYPOTHETICAL: Final[dict[str, int | float]] = {
    "rank": 1, "dense_rank": 1, "percent_rank": 0.0, "cume_dist": 1.0}
"""What a hypothetical-set aggregate of no rows is."""

Translated = tuple[exp.Expression, SqlType]


def _call_parts(items: list[exp.Expression]) -> tuple[list[exp.Expression], bool,
                                                      list[exp.Ordered] | None]:
    """A call's arguments, whether DISTINCT, and its ORDER BY items, from
    sqlglot's shapes: ``[Order(this=Distinct([a, b]))]``, ``[a, Order(this=b)]``."""
    args: list[exp.Expression] = []
    distinct = False
    order: list[exp.Ordered] | None = None
    for item in items:
        if isinstance(item, exp.Order):
            order = list(item.expressions)
            item = item.this
        if isinstance(item, exp.Distinct):
            distinct = True
            args.extend(item.expressions)
        else:
            args.append(item)
    return args, distinct, order


def _function_name(call: exp.Anonymous) -> str:
    """The name a call names (pg_catalog.name too)."""
    schema, _, name = call.name.lower().rpartition(".")
    if schema and schema != PG_CATALOG:
        raise errors.UndefinedFunction(f"function {call.name} does not exist")
    return name


def _sort_key(column: int, ordered: exp.Ordered) -> SortKey:
    descending = bool(ordered.args.get("desc"))
    nulls_first = ordered.args.get("nulls_first")
    return SortKey(column, descending, descending if nulls_first is None else bool(nulls_first))


def _windowed(node: exp.Expression) -> bool:
    """Whether a call (possibly with FILTER) has an OVER clause."""
    parent = node.parent
    if isinstance(parent, exp.Filter):
        parent = parent.parent
    return isinstance(parent, exp.Window)


def _check_sortable(sql_type: SqlType, what: str) -> None:
    if sql_type.oid == t.JSON:
        raise errors.UndefinedFunction(
            f"could not identify an {what} operator for type json",
            hint="Use an explicit ordering operator or modify the query."
            if what == "ordering" else None)


class AggregateRules(JsonRules):
    """Translates aggregate calls that need their rows in order."""

    def _call(self, node: exp.Anonymous, scope: Scope) -> Translated:
        args, distinct, order = _call_parts(list(node.expressions))
        name = _function_name(node)
        if distinct or order is not None:
            return self._qualified(node, name, args, distinct, order, scope)
        definition = FUNCTIONS.get(name)
        if definition is not None and definition.ordered_set:
            raise self._misused(name, definition, args, scope,
                                "WITHIN GROUP is required for ordered-set aggregate {name}")
        return FunctionRules._anonymous(self, node, scope)

    def _string_agg(self, node: exp.GroupConcat, scope: Scope) -> Translated:
        separator = node.args.get("separator")
        args, distinct, order = _call_parts(
            [node.this] + ([separator] if separator is not None else []))
        if distinct or order is not None:
            return self._qualified(node, "string_agg", args, distinct, order, scope)
        if separator is None:
            raise self._no_function("string_agg", args, scope)
        return FunctionRules._group_concat(self, node, scope)

    def _qualified(self, node: exp.Expression, name: str, args: list[exp.Expression],
                   distinct: bool, order: list[exp.Ordered] | None,
                   scope: Scope) -> Translated:
        """A call with DISTINCT or ORDER BY inside."""
        definition = FUNCTIONS.get(name)
        if definition is None:
            raise self._no_function(name, args, scope)
        clause = "DISTINCT" if distinct else "ORDER BY"
        if not definition.aggregate:
            raise errors.WrongObjectType(
                f"{clause} specified, but {name} is not an aggregate function")
        if definition.ordered_set:
            raise self._misused(name, definition, args, scope,
                                "WITHIN GROUP is required for ordered-set aggregate {name}")
        if _windowed(node):
            raise errors.FeatureNotSupported(
                "DISTINCT is not implemented for window functions" if distinct
                else "aggregate ORDER BY is not implemented for window functions")
        positions = [self._distinct_position(ordered, args) for ordered in order or []] if (
            distinct) else []
        if name in ORDER_SENSITIVE:
            return self._sorted(node, name, args, distinct, order or [], positions, scope)
        for ordered in order or []:  # checked, but the order changes nothing
            self.expr(ordered.this.copy(), scope)
        call = exp.Anonymous(this=name, expressions=[exp.Distinct(expressions=args)]
                             if distinct else args)
        node.replace(call)
        return FunctionRules._anonymous(self, call, scope)

    @staticmethod
    def _distinct_position(ordered: exp.Ordered, args: list[exp.Expression]) -> int:
        for position, arg in enumerate(args):
            if arg == ordered.this:
                return position
        raise errors.InvalidColumnReference(
            "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list")

    def _sorted(self, node: exp.Expression, name: str, args: list[exp.Expression],
                distinct: bool, order: list[exp.Ordered], positions: list[int],
                scope: Scope) -> Translated:
        """``sqlext_sorted(spec, inputs..., sort columns...)``."""
        translated = self._aggregate_arguments(name, args, scope)
        inputs, result = self._inputs(name, translated)
        columns = list(inputs)
        keys: list[SortKey] = []
        groups: tuple[int, ...] = ()
        if distinct:
            for _, arg_type in translated:
                _check_sortable(arg_type, "equality")
            values = [value for value, _ in translated]
            first = 0 if values == inputs else len(columns)
            if first:  # the aggregate takes the arguments converted (to JSON)
                columns.extend(values)
            groups = tuple(range(first, first + len(values)))
            keys = [_sort_key(first + position, ordered)
                    for position, ordered in zip(positions, order, strict=True)]
            keys += [SortKey(column) for column in groups
                     if column not in {key.column for key in keys}]
        for ordered in order if not distinct else []:
            key, key_type = self.expr(ordered.this, scope)
            _check_sortable(key_type, "ordering")
            if key_type.is_unknown:
                key = self.coerce(key, TEXT)
            columns.append(key)
            keys.append(_sort_key(len(columns) - 1, ordered))
        spec = SortedCall(name, 0, len(inputs), tuple(keys), groups)
        call = exp.Anonymous(this="sqlext_sorted", expressions=[
            exp.Literal.string(spec.text()), *(column.copy() for column in columns)])
        node.replace(call)
        return call, result

    def _aggregate_arguments(self, name: str, args: list[exp.Expression],
                             scope: Scope) -> list[Translated]:
        """The translated arguments of an order-sensitive aggregate."""
        if len(args) != (2 if name in ("string_agg", "json_object_agg",
                                       "jsonb_object_agg") else 1):
            raise self._no_function(name, args, scope)
        if name.startswith("json"):
            return [self.json_argument(arg, scope, polymorphic=len(args) == 1)
                    for arg in args]
        translated = []
        for arg in args:
            value, value_type = self.expr(arg, scope)
            if value_type.is_unknown:
                value = self.coerce(value, TEXT)
                value_type = TEXT
            translated.append((value, value_type))
        return translated

    def _inputs(self, name: str, translated: list[Translated]) -> tuple[
            list[exp.Expression], SqlType]:
        """What the aggregate's rows hold, and its type."""
        if name.startswith("json"):
            return self.json_aggregate_inputs(name, translated)
        definition = FUNCTIONS[name]
        return [value for value, _ in translated], definition.result_type(
            [value_type for _, value_type in translated])

    def _within_group(self, node: exp.WithinGroup, scope: Scope) -> Translated:
        return self._ordered_set(node, None, scope)

    def _filter(self, node: exp.Filter, scope: Scope) -> Translated:
        if isinstance(node.this, exp.WithinGroup):
            return self._ordered_set(node.this, node, scope)
        return FunctionRules._filter(self, node, scope)

    def _ordered_set(self, node: exp.WithinGroup, filtered: exp.Filter | None,
                     scope: Scope) -> Translated:
        """``name(direct...) WITHIN GROUP (ORDER BY ...) [FILTER (WHERE ...)]``."""
        call = node.this
        if not isinstance(call, exp.Anonymous):
            raise errors.SqlSyntaxError('syntax error at or near "WITHIN"')
        name = _function_name(call)
        direct = list(call.expressions)
        order = list(node.expression.expressions)
        definition = FUNCTIONS.get(name)
        if name not in HYPOTHETICAL and (definition is None or not definition.ordered_set):
            raise self._misused(
                name, definition, direct + [o.this for o in order], scope,
                "{name} is not an ordered-set aggregate, so it cannot have WITHIN GROUP"
                if definition is not None and definition.aggregate
                else "WITHIN GROUP specified, but {name} is not an aggregate function")
        outer = filtered or node
        if isinstance(outer.parent, exp.Window):
            raise errors.FeatureNotSupported(
                f"OVER is not supported for ordered-set aggregate {name}")
        if name in HYPOTHETICAL:
            return self._hypothetical(outer, name, direct, order, filtered, scope)
        assert definition is not None
        if len(direct) != definition.min_args - 1 or len(order) != 1:
            raise self._no_function(name, direct + [o.this for o in order], scope)
        kind = name
        values: list[exp.Expression] = []
        fraction_type = None
        if direct:
            fraction, fraction_type = self.expr(direct[0], scope)
            if fraction_type.is_unknown:
                fraction = self.coerce(fraction, FLOAT8)
                fraction_type = FLOAT8
            if t.element_of(fraction_type.oid):
                kind += "_multi"
            if fraction_type.oid in (t.NUMERIC, t.array_of(t.NUMERIC)):
                # fractions are doubles (numeric ones are keys)
                wanted = SqlType(t.FLOAT8 if fraction_type.oid == t.NUMERIC
                                 else t.array_of(t.FLOAT8) or t.FLOAT8)
                converted = self.convert(fraction.copy(), fraction_type, wanted)
                fraction.replace(converted)
                fraction = converted
            values.append(fraction)
        key, key_type = self.expr(order[0].this, scope)
        if key_type.is_unknown:
            key_type = FLOAT8 if name == "percentile_cont" else TEXT
            key = self.coerce(key, key_type)
        if name == "percentile_cont" and key_type.oid == t.NUMERIC:
            key = self.conform(key, key_type, FLOAT8)
        if name == "percentile_cont" and key_type.oid == t.INTERVAL:
            raise errors.FeatureNotSupported("percentile_cont of interval values is not "
                                             "supported")
        numeric_fraction = fraction_type is None or is_numeric(
            SqlType(t.element_of(fraction_type.oid) or fraction_type.oid))
        if not numeric_fraction or (name == "percentile_cont" and not is_numeric(key_type)):
            raise self._no_function(name, [*direct, order[0].this], scope)
        _check_sortable(key_type, "ordering")
        spec = SortedCall(kind, len(values), 1, (_sort_key(0, order[0]),))
        aggregate = self._sorted_call(spec, [*values, key], filtered, scope)
        result = definition.result_type(
            ([fraction_type] if fraction_type is not None else []) + [key_type])
        if kind in ("percentile_cont", "percentile_disc"):
            # The fraction is checked even when there are no rows.
            aggregate = exp.Coalesce(this=aggregate, expressions=[exp.Anonymous(
                this="sqlext_check_fraction", expressions=[values[0].copy()])])
        outer.replace(aggregate)
        return aggregate, result

    def _hypothetical(self, outer: exp.Expression, name: str, direct: list[exp.Expression],
                      order: list[exp.Ordered], filtered: exp.Filter | None,
                      scope: Scope) -> Translated:
        """rank(args) WITHIN GROUP (ORDER BY keys) and friends: the rank the
        row ``args`` would have among the group's rows."""
        if len(direct) != len(order):
            raise self._no_function(
                name, direct + [o.this for o in order], scope,
                hint=f"To use the hypothetical-set aggregate {name}, the number of "
                     f"hypothetical direct arguments (here {len(direct)}) must match the "
                     f"number of ordering columns (here {len(order)}).")
        values: list[exp.Expression] = []
        keys: list[exp.Expression] = []
        for argument, ordered in zip(direct, order, strict=True):
            value, value_type = self.expr(argument, scope)
            key, key_type = self.expr(ordered.this, scope)
            check_matchable([key_type, value_type], "WITHIN GROUP")
            if key_type.is_unknown:
                key_type = TEXT if value_type.is_unknown else value_type
                key = self.coerce(key, key_type)
            if value_type.is_unknown:
                value = self.coerce(value, key_type)
            common = common_type([key_type, value_type])
            value = self.conform(value, value_type, common)
            key = self.conform(key, key_type, common)
            _check_sortable(key_type, "ordering")
            values.append(value)
            keys.append(key)
        spec = SortedCall(name, len(values), len(keys), tuple(
            _sort_key(column, ordered) for column, ordered in enumerate(order)))
        empty = _EMPTY_HYPOTHETICAL[name]
        aggregate = exp.Coalesce(this=self._sorted_call(spec, values + keys, filtered, scope),
                                 expressions=[StorageLiteral(this=empty)])
        outer.replace(aggregate)
        return aggregate, FUNCTIONS[name].result_type([])

    def _sorted_call(self, spec: SortedCall, columns: list[exp.Expression],
                     filtered: exp.Filter | None, scope: Scope) -> exp.Expression:
        call: exp.Expression = exp.Anonymous(this="sqlext_sorted", expressions=[
            exp.Literal.string(spec.text()), *(column.copy() for column in columns)])
        if filtered is not None:
            condition = filtered.expression
            self.expr(condition.this if isinstance(condition, exp.Where) else condition, scope)
            call = exp.Filter(this=call, expression=filtered.expression.copy())
        return call

    def _no_function(self, name: str, args: list[exp.Expression], scope: Scope,
                     hint: str | None = None) -> errors.SqlError:
        """42883 for a call no signature of ``name`` takes, naming the argument types."""
        shown = []
        for arg in args:
            if isinstance(arg, exp.Star):
                continue
            _, arg_type = self.expr(arg.copy(), scope)
            shown.append("unknown" if arg_type.is_unknown else t.format_type(arg_type.oid))
        error = errors.no_function(f"{name}({', '.join(shown)})")
        if hint is not None:
            error.hint = hint
        return error

    def _misused(self, name: str, definition: FunctionDef | None, args: list[exp.Expression],
                 scope: Scope, message: str) -> errors.SqlError:
        """42809 (``message``) when the function takes this many arguments,
        else 42883, as PostgreSQL finds no function first."""
        count = sum(not isinstance(arg, exp.Star) for arg in args)
        if definition is not None and definition.min_args <= count and (
                definition.max_args is None or count <= definition.max_args):
            return errors.WrongObjectType(message.format(name=name))
        return self._no_function(name, args, scope)

    HANDLERS: ClassVar[dict[type, Handler]] = {
        **JsonRules.HANDLERS,
        exp.Anonymous: _call,
        exp.GroupConcat: _string_agg,
        exp.WithinGroup: _within_group,
        exp.Filter: _filter,
    }
