"""Function calls: PostgreSQL's functions, aggregates and window functions,
and the SQL-standard special forms (EXTRACT, SUBSTRING, TRIM...)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import ClassVar, Final

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.schema import PG_CATALOG
from catalog.sqltypes import (
    DATE,
    INT4,
    NUMERIC,
    TEXT,
    TIMESTAMP,
    TIMESTAMPTZ,
    UNKNOWN,
    SqlType,
    check_matchable,
    is_numeric,
    is_string,
)
from executor.functions.declare import FunctionDef
from executor.functions.registry import FUNCTIONS
from executor.values.datetime_fields import EXTRACT_SCALES, unit_of
from sqlext.sql.sqlite_dialect import NumericKey, StorageLiteral
from sqlext.translate import numeric_rules
from sqlext.translate.expression_rules import (
    DATETIME_OIDS,
    REG_TYPES,
    ExpressionTranslator,
    Handler,
    json_element,
    reg_name,
)
from sqlext.translate.overloads import Argument, choose
from sqlext.translate.scope import Scope

_INTEGERS: Final = frozenset({t.INT2, t.INT4, t.INT8, t.OID})
"""Types whose values SQLite passes to a function as PostgreSQL prints them."""

_CURRENT_FUNCTIONS: dict[type[exp.Expression], tuple[str, SqlType]] = {
    exp.CurrentTimestamp: ("sqlext_now", TIMESTAMPTZ),
    exp.CurrentDate: ("sqlext_current_date", DATE),
    exp.CurrentUser: ("sqlext_current_user", SqlType(t.NAME)),
    exp.SessionUser: ("sqlext_session_user", SqlType(t.NAME)),
    exp.CurrentSchema: ("sqlext_current_schema", SqlType(t.NAME)),
    exp.CurrentCatalog: ("sqlext_current_database", SqlType(t.NAME)),
    exp.Localtimestamp: ("sqlext_localtimestamp", TIMESTAMP),
    exp.CurrentTime: ("sqlext_current_time", SqlType(t.TIME)),
    exp.Localtime: ("sqlext_current_time", SqlType(t.TIME)),
}


class _ListeningChannels(exp.Expression):
    """The array pg_listening_channels() unnests: the session's channels."""

    arg_types: ClassVar[dict[str, bool]] = {}


def listening_channels_call() -> exp.Anonymous:
    """pg_listening_channels() as the unnest() of a text[]."""
    return exp.Anonymous(this="unnest", expressions=[_ListeningChannels()])


SpecialForm = Callable[["FunctionRules", exp.Anonymous, str, Scope],
                       "tuple[exp.Expression, SqlType] | None"]


class FunctionRules(ExpressionTranslator):
    """Translates function calls."""

    @contextlib.contextmanager
    def refusing_set_returning(self, clause: str) -> Iterator[None]:
        """Translate ``clause`` (WHERE, HAVING...), where set-returning
        functions are not allowed."""
        self._set_returning.append(clause)
        try:
            yield
        finally:
            self._set_returning.pop()

    def _listening_channels(self, node: exp.Expression,
                            scope: Scope) -> tuple[exp.Expression, SqlType]:
        replacement = exp.Anonymous(this="sqlext_listening_channels", expressions=[])
        node.replace(replacement)
        return replacement, SqlType(t.array_of(t.TEXT))

    def _current(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        name, sql_type = _CURRENT_FUNCTIONS[type(node)]
        replacement = exp.Anonymous(this=name, expressions=[])
        node.replace(replacement)
        return replacement, sql_type

    def _array_call(self, node: exp.Anonymous, name: str, scope: Scope
                    ) -> tuple[exp.Expression, SqlType] | None:
        """ARRAY(subquery)."""
        if len(node.expressions) != 1 or not isinstance(node.expressions[0], exp.Query):
            return None
        array = exp.Array(expressions=[node.expressions[0]])
        node.replace(array)
        return self._array(array, scope)

    def _pg_typeof(self, node: exp.Anonymous, name: str, scope: Scope
                   ) -> tuple[exp.Expression, SqlType] | None:
        """The argument's type, known at translation time."""
        if len(node.expressions) != 1:
            return None
        argument, arg_type = self.expr(node.expressions[0], scope)
        if arg_type.is_unknown and argument.find(exp.Parameter):
            arg_type = TEXT  # what a parameter nothing else types is
        # The argument stays, not evaluated (COALESCE stops at the type): an
        # aggregate in it keeps the query an aggregate one, and SQLite expects
        # as many parameter values as the highest parameter it sees.
        replacement = exp.Coalesce(this=StorageLiteral(this=arg_type.oid),
                                   expressions=[argument.copy()])
        node.replace(replacement)
        return replacement, SqlType(t.REGTYPE)

    SPECIAL_FORMS: ClassVar[dict[str, SpecialForm]] = {
        "array": _array_call,
        "pg_typeof": _pg_typeof,
    }
    """Calls that are not calls of a SQLite function: each translates itself
    (or returns None to be an ordinary call after all)."""

    def _anonymous(self, node: exp.Anonymous, scope: Scope) -> tuple[exp.Expression, SqlType]:
        name = node.name.lower()
        if "." in name:
            schema, _, name = name.rpartition(".")
            if schema != PG_CATALOG:
                raise errors.UndefinedFunction(f"function {node.name} does not exist")
        special = self.SPECIAL_FORMS.get(name)
        if special is not None:
            translated = special(self, node, name, scope)
            if translated is not None:
                return translated
        return self.call(node, name, scope)

    def call(self, node: exp.Anonymous, name: str,
             scope: Scope) -> tuple[exp.Expression, SqlType]:
        """A call of a function of ``FUNCTIONS``: its arguments checked and
        typed, the call made one of its SQLite function."""
        args = list(node.expressions)
        definition = FUNCTIONS.get(name)
        if definition is None:
            raise errors.UndefinedFunction(
                f"function {name}({', '.join('unknown' for _ in args)}) does not exist",
                hint="No function matches the given name and argument types.",
            )
        self.called.add(name)
        if definition.changes_state:
            self.writes = True
        if definition.window_only and not isinstance(node.parent, exp.Window):
            raise errors.WrongObjectType(f"window function {name} requires an OVER clause")
        if definition.overloads:
            return self._overloaded_call(node, name, definition, scope)
        star = len(args) == 1 and isinstance(args[0], exp.Star)
        count = 0 if star else len(args)
        if count < definition.min_args or (
            definition.max_args is not None and count > definition.max_args
        ):
            shown = ", ".join(t.format_type(self.expr(arg, scope)[1].oid)
                              for arg in ([] if star else args))
            raise errors.no_function(f"{name}({shown})")
        arg_types: list[SqlType] = []
        deferred: list[tuple[int, exp.Expression]] = []
        refused = False
        if not star:
            for index, arg in enumerate(args):
                inner = arg.this if isinstance(arg, exp.Distinct) else arg
                if isinstance(arg, exp.Distinct):
                    for distinct_arg in list(arg.expressions):
                        translated, distinct_type = self.expr(distinct_arg, scope)
                        refused = refused or _not_a_number(
                            definition, definition.arg_type(len(arg_types)), distinct_type)
                        if definition.json_args:
                            translated.replace(json_element(translated.copy(), distinct_type))
                        arg_types.append(distinct_type)
                    continue
                if isinstance(inner, exp.Order):
                    raise errors.FeatureNotSupported("ORDER BY inside aggregates is not "
                                                     "supported")
                translated, arg_type = self.expr(arg, scope)
                wanted = definition.arg_type(index)
                any_type = definition.any_args is not None and index >= definition.any_args
                if arg_type.is_unknown:
                    if wanted is None and not any_type:
                        deferred.append((len(arg_types), translated))
                    else:
                        arg_type = wanted or TEXT
                        self.coerce(translated, arg_type)
                elif any_type:
                    if wanted is not None:
                        translated = self._as_text(translated, arg_type, printed=True)
                elif _not_a_number(definition, wanted, arg_type):
                    refused = True
                elif wanted is not None and is_string(wanted) and (
                        arg_type.oid == t.NUMERIC or definition.casts_to_text):
                    translated = self._as_text(translated, arg_type, printed=False)
                elif wanted is not None and wanted.oid in (t.FLOAT4, t.FLOAT8) and (
                        arg_type.oid == t.NUMERIC and definition.numeric_target is None
                        and not definition.aggregate):
                    # numeric's storage is no number: cast it, as PostgreSQL
                    # casts numeric to a float parameter implicitly
                    converted = self.convert(translated.copy(), arg_type, wanted)
                    translated.replace(converted)
                    translated = converted
                if definition.json_args:
                    translated.replace(json_element(translated.copy(), arg_type))
                arg_types.append(arg_type)
        if definition.same_kind_args:
            check_matchable(arg_types, name.upper())
        if refused:
            shown = ", ".join(t.format_type(arg_type.oid) for arg_type in arg_types)
            raise errors.no_function(f"{name}({shown})")
        result = definition.result_type(arg_types)
        for index, translated in deferred:
            # Arguments of polymorphic functions (coalesce, greatest...) whose
            # type is unknown take the type the other arguments decided.
            wanted = TEXT if result.is_unknown else result
            self.coerce(translated, wanted)
            arg_types[index] = wanted
        if definition.same_kind_args:
            # numbers meeting numerics become numerics (keys)
            for index, arg in enumerate(list(node.expressions)):
                if numeric_rules.changes_representation(arg_types[index], result):
                    self.conform(arg, arg_types[index], result)
                    arg_types[index] = result
        scaled = numeric_rules.scaled_aggregate(name, node)
        if scaled is not None:
            node.replace(scaled)
            return scaled, definition.result_type(arg_types)
        target = definition.target
        deciding = result if definition.same_kind_args else (
            arg_types[0] if arg_types else None)
        if definition.numeric_target and deciding is not None and (
                deciding.oid in definition.numeric_args):
            target = definition.numeric_target
        node.set("this", target)
        if target == "coalesce" and len(node.expressions) == 1:
            node.append("expressions", exp.Null())  # SQLite's coalesce wants two arguments
        return node, definition.result_type(arg_types)

    def _as_text(self, node: exp.Expression, node_type: SqlType,
                 printed: bool) -> exp.Expression:
        """``node`` replaced by its text: as its type's output function
        prints it (what PostgreSQL's "any" parameters get), or cast to text
        (true::text is 'true' where the output function prints 't'). Text
        and integers are already that as SQLite passes them on."""
        if is_string(node_type) or node_type.oid in _INTEGERS:
            return node
        if node_type.oid in REG_TYPES:
            text = reg_name(node.copy(), node_type)
        elif printed:
            text = exp.Anonymous(this="sqlext_output", expressions=[
                node.copy(), exp.Literal.number(node_type.oid),
                exp.Literal.number(node_type.typmod)])
        else:
            text = self.convert(node.copy(), node_type, TEXT)
        node.replace(text)
        return text

    def _overloaded_call(self, node: exp.Anonymous, name: str, definition: FunctionDef,
                         scope: Scope) -> tuple[exp.Expression, SqlType]:
        """A call of a function with several signatures: the chosen one's
        parameters get the arguments (converted) and the defaults of those
        not given; the implementation gets the type OIDs it asks for first."""
        arguments: list[Argument] = []
        values: list[exp.Expression] = []
        for arg in list(node.expressions):
            named = isinstance(arg, exp.Kwarg | exp.PropertyEQ)
            translated, arg_type = self.expr(arg.expression if named else arg, scope)
            arguments.append(Argument(arg_type, arg.this.name.lower() if named else None))
            values.append(translated)
        chosen = choose(name, definition.overloads, arguments)
        overload = chosen.overload
        first_default = len(overload.params) - len(overload.defaults)
        passed: list[exp.Expression] = [
            exp.Literal.number(overload.params[index].oid) for index in definition.type_args]
        for index, (param, source) in enumerate(zip(overload.params, chosen.sources,
                                                    strict=True)):
            if source is None:
                passed.append(StorageLiteral(this=overload.defaults[index - first_default]))
            elif arguments[source].type.is_unknown:
                passed.append(self.coerce(values[source], param).copy())
            else:
                passed.append(self.convert(values[source].copy(), arguments[source].type,
                                           param))
        # The call stays the same node: a set-returning function's is
        # replaced by its rows' values later.
        node.set("this", definition.target)
        node.set("expressions", passed)
        return node, overload.result

    def _window(self, node: exp.Window, scope: Scope) -> tuple[exp.Expression, SqlType]:
        _, sql_type = self.expr(node.this, scope)
        for item in node.args.get("partition_by") or []:
            self.expr(item, scope)
        order = node.args.get("order")
        if order is not None:
            for ordered in order.expressions:
                self.expr(ordered.this, scope)
        return node, sql_type

    def _filter(self, node: exp.Filter, scope: Scope) -> tuple[exp.Expression, SqlType]:
        _, sql_type = self.expr(node.this, scope)
        self.expr(node.expression.this if isinstance(node.expression, exp.Where)
                  else node.expression, scope)
        return node, sql_type

    def _distinct(self, node: exp.Distinct, scope: Scope) -> tuple[exp.Expression, SqlType]:
        found = [self.expr(child, scope)[1] for child in list(node.expressions)]
        return node, found[0] if found else UNKNOWN

    def _group_concat(self, node: exp.GroupConcat, scope: Scope) -> tuple[
            exp.Expression, SqlType]:
        inner = node.this
        if isinstance(inner, exp.Order):
            raise errors.FeatureNotSupported("ORDER BY inside aggregates is not supported")
        translated, inner_type = self.expr(inner, scope)
        if inner_type.is_unknown:
            self.coerce(translated, TEXT)
        separator = node.args.get("separator")
        if separator is not None:
            separator_node, separator_type = self.expr(separator, scope)
            if separator_type.is_unknown:
                self.coerce(separator_node, TEXT)
        return node, TEXT

    def _substring(self, node: exp.Substring, scope: Scope) -> tuple[exp.Expression, SqlType]:
        if node.args.get("start") is None and node.args.get("length") is None:
            raise errors.no_function("substring(unknown)")
        if node.args.get("zero_start") is not None:  # 'substring(s, 1 for 3)', four arguments
            raise errors.SqlSyntaxError(
                "syntax error in substring(): it takes a string, a start and a length",
                hint="Write substring(s FROM start FOR length) or substring(s, start, length).")
        parts = {key: self.expr(node.args[key], scope) for key in ("this", "start", "length")
                 if node.args.get(key) is not None}
        start_type = parts["start"][1] if "start" in parts else INT4
        if start_type.is_unknown or is_string(start_type):
            # substring(s FROM pattern): a regular expression; with FOR escape,
            # a SIMILAR TO pattern (also written substring(s SIMILAR p ESCAPE e)).
            arguments = [self.coerce(part, TEXT) if part_type.is_unknown else part
                         for part, part_type in parts.values()]
            call = exp.Anonymous(this="sqlext_substring_similar" if "length" in parts
                                 else "sqlext_substring_regex",
                                 expressions=[argument.copy() for argument in arguments])
            node.replace(call)
            return call, TEXT
        result = TEXT
        for key, (part, part_type) in parts.items():
            if part_type.is_unknown:
                self.coerce(part, TEXT if key == "this" else INT4)
            elif key == "this" and part_type.oid == t.BYTEA:
                result = part_type  # substring of bytea is bytea (SQLite's substr cuts bytes)
        return node, result

    def _trim(self, node: exp.Trim, scope: Scope) -> tuple[exp.Expression, SqlType]:
        for child in list(node.iter_expressions()):
            child_node, child_type = self.expr(child, scope)
            if child_type.is_unknown:
                self.coerce(child_node, TEXT)
        return node, TEXT

    def _position(self, node: exp.StrPosition, scope: Scope) -> tuple[exp.Expression, SqlType]:
        for child in list(node.iter_expressions()):
            child_node, child_type = self.expr(child, scope)
            if child_type.is_unknown:
                self.coerce(child_node, TEXT)
        return node, INT4

    def _overlay(self, node: exp.Overlay, scope: Scope) -> tuple[exp.Expression, SqlType]:
        """overlay(s PLACING r FROM n [FOR m]): the function overlay(s, r, n[, m])."""
        call = exp.Anonymous(this="overlay", expressions=[
            node.args[key].copy() for key in ("this", "expression", "from_", "for_")
            if node.args.get(key) is not None])
        node.replace(call)
        return self.call(call, "overlay", scope)

    def _extract(self, node: exp.Extract, scope: Scope) -> tuple[exp.Expression, SqlType]:
        field = node.this.name.lower()
        value, value_type = self.expr(node.expression, scope)
        if value_type.is_unknown:
            self.coerce(value, TIMESTAMPTZ)
            value_type = TIMESTAMPTZ
        if value_type.oid not in DATETIME_OIDS:
            raise errors.no_function(
                f"pg_catalog.extract(unknown, {t.format_type(value_type.oid)})")
        unit = unit_of(field)
        scale = 0 if value_type.oid == t.DATE or unit is None else EXTRACT_SCALES.get(unit, 0)
        call = NumericKey(this=exp.Anonymous(this="sqlext_extract", expressions=[
            exp.Literal.string(field), value.copy(), exp.Literal.number(value_type.oid),
            exp.Literal.number(scale)]))
        node.replace(call)
        return call, NUMERIC

    def _at_time_zone(self, node: exp.AtTimeZone,
                      scope: Scope) -> tuple[exp.Expression, SqlType]:
        """``value AT TIME ZONE zone``: the call timezone(zone, value)."""
        call = exp.Anonymous(this="timezone", expressions=[node.args["zone"].copy(),
                                                           node.this.copy()])
        node.replace(call)
        return self._anonymous(call, scope)

    HANDLERS: ClassVar[dict[type, Handler]] = {
        **ExpressionTranslator.HANDLERS,
        exp.Anonymous: _anonymous,
        exp.Window: _window,
        exp.Filter: _filter,
        exp.Distinct: _distinct,
        exp.GroupConcat: _group_concat,
        exp.Substring: _substring,
        exp.Trim: _trim,
        exp.StrPosition: _position,
        exp.Extract: _extract,
        exp.Overlay: _overlay,
        exp.AtTimeZone: _at_time_zone,
        **dict.fromkeys(_CURRENT_FUNCTIONS, _current),
        _ListeningChannels: _listening_channels,
    }


def _not_a_number(definition: FunctionDef, wanted: SqlType | None, found: SqlType) -> bool:
    """Whether a numeric parameter gets a value no implicit cast makes a
    number of: boolean, string, uuid, bytea, json, array or date/time (sum
    and avg take intervals), or an integer parameter a fraction.
    variance(bytea) would otherwise fail as it runs. A text parameter
    refuses bytea (rtrim(bytea) would make text that is not UTF-8) unless
    the function has a bytea form too (length, md5...)."""
    if wanted is None or found.is_unknown:
        return False
    if is_string(wanted):
        return found.oid == t.BYTEA and not definition.bytea_too
    if not is_numeric(wanted):
        return False
    if wanted.oid in (t.INT2, t.INT4, t.INT8) and found.oid in (t.FLOAT4, t.FLOAT8, t.NUMERIC):
        return True  # no implicit cast rounds a fraction: split_part(s, d, 1.5)
    return found.category in "BSUAD" or (found.category == "T" and not definition.interval_too)


def check_unnest_argument(array_type: SqlType) -> None:
    """unnest() takes arrays: an untyped literal could be any array type, any
    other type has no unnest."""
    if array_type.is_unknown:
        raise errors.AmbiguousFunction(
            "function unnest(unknown) is not unique",
            hint="Could not choose a best candidate function. You might need to add explicit "
                 "type casts.")
    if not t.array_element(array_type.oid) and array_type.oid not in (t.INT2VECTOR,
                                                                       t.OIDVECTOR):
        raise errors.no_function(f"unnest({t.format_type(array_type.oid)})")
