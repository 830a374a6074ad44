"""PostgreSQL functions: their result types and what SQLite calls instead.

``FUNCTIONS`` maps a lower-case PostgreSQL function name to a
``FunctionDef``. ``target`` is the SQLite function that implements it: a
SQLite built-in with the same meaning, or one of our functions registered
by ``executor.functions.builtin`` (every target must exist in one of the two; a
test checks it). Result types follow PostgreSQL's ``pg_proc.prorettype``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from catalog import types as t
from catalog.sqltypes import (
    BOOL,
    FLOAT8,
    INT4,
    INT8,
    INTERVAL,
    NAME,
    NUMERIC,
    TEXT,
    TIMESTAMP,
    TIMESTAMPTZ,
    SqlType,
    common_type,
)

ResultRule = SqlType | Callable[[list[SqlType]], SqlType]

SESSION_CONTROL: Final = frozenset({"pg_cancel_backend", "pg_terminate_backend"})
"""Functions that act on other sessions: a query calling them must not wait
for the executor (the session to end may be the one holding it)."""
WAITS_FOR_DATAFLOW: Final = frozenset({"sqlext_drain"})
"""Functions whose answer needs the executor free of other transactions."""


@dataclass(frozen=True, slots=True)
class FunctionDef:
    result: ResultRule
    target: str
    args: tuple[SqlType | None, ...] = ()
    """Types that unknown-typed arguments (literals, parameters) take, by
    position; the last entry repeats for variadic functions."""
    min_args: int = 0
    max_args: int | None = None
    aggregate: bool = False
    numeric_target: str | None = None
    """Used instead of ``target`` when the first argument is numeric (exact
    decimal arithmetic instead of SQLite's floating point)."""
    element_args: bool = False
    """anyarray, anyelement: arguments of unknown type after the first take
    the element type of the first (an array)."""

    def result_type(self, arg_types: list[SqlType]) -> SqlType:
        if isinstance(self.result, SqlType):
            return self.result
        return self.result(arg_types)

    def arg_type(self, index: int) -> SqlType | None:
        if not self.args:
            return None
        return self.args[min(index, len(self.args) - 1)]


def _first(types: list[SqlType]) -> SqlType:
    """The type of the first argument whose type is known (text if none is)."""
    for found in types:
        if not found.is_unknown:
            return SqlType(found.oid, -1, found.display_scale)
    return TEXT


def _common(types: list[SqlType]) -> SqlType:
    found = common_type(types)
    return TEXT if found.is_unknown else found


def _sum(types: list[SqlType]) -> SqlType:
    oid = types[0].oid if types else t.NUMERIC
    if oid in (t.INT2, t.INT4):
        return INT8
    if oid == t.INT8:
        return SqlType(t.NUMERIC, -1, 0)
    if oid == t.NUMERIC:
        return SqlType(t.NUMERIC, -1, types[0].display_scale)
    if oid in (t.FLOAT4, t.FLOAT8):
        return SqlType(oid)
    if oid == t.INTERVAL:
        return INTERVAL
    return NUMERIC


def _avg(types: list[SqlType]) -> SqlType:
    oid = types[0].oid if types else t.NUMERIC
    if oid in (t.FLOAT4, t.FLOAT8):
        return FLOAT8
    if oid == t.INTERVAL:
        return INTERVAL
    return NUMERIC


def _array_of_first(types: list[SqlType]) -> SqlType:
    element = _first(types)
    return SqlType(t.array_of(element.oid) or t.array_of(t.TEXT))


def _numeric_like_first(types: list[SqlType]) -> SqlType:
    if types and types[0].oid in (t.FLOAT4, t.FLOAT8):
        return FLOAT8
    if types and types[0].oid in (t.INT2, t.INT4, t.INT8):
        return SqlType(types[0].oid)
    return NUMERIC


def _float_or_numeric(types: list[SqlType]) -> SqlType:
    if types and types[0].oid in (t.FLOAT4, t.FLOAT8):
        return FLOAT8
    return NUMERIC


def _float_unless_numeric(types: list[SqlType]) -> SqlType:
    """Math functions: numeric in, numeric out; everything else is double."""
    return NUMERIC if types and types[0].oid == t.NUMERIC else FLOAT8


def _f(result: ResultRule, target: str, *args: SqlType | None, min_args: int = 0,
       max_args: int | None = None) -> FunctionDef:
    return FunctionDef(result, target, args, min_args, max_args)


def _agg(result: ResultRule, target: str, *args: SqlType | None, min_args: int = 1,
         max_args: int | None = 1, numeric_target: str | None = None) -> FunctionDef:
    return FunctionDef(result, target, args, min_args, max_args, aggregate=True,
                       numeric_target=numeric_target)


TEXT_ARRAY: Final = SqlType(t.array_of(t.TEXT))
NAME_ARRAY: Final = SqlType(t.array_of(t.NAME))

FUNCTIONS: Final[dict[str, FunctionDef]] = {
    # session and system information
    "version": _f(TEXT, "sqlext_version", max_args=0),
    "current_database": _f(NAME, "sqlext_current_database", max_args=0),
    "current_catalog": _f(NAME, "sqlext_current_database", max_args=0),
    "current_schema": _f(NAME, "sqlext_current_schema", max_args=0),
    "current_schemas": _f(NAME_ARRAY, "sqlext_current_schemas", BOOL, min_args=1, max_args=1),
    "current_user": _f(NAME, "sqlext_current_user", max_args=0),
    "session_user": _f(NAME, "sqlext_current_user", max_args=0),
    "user": _f(NAME, "sqlext_current_user", max_args=0),
    "current_role": _f(NAME, "sqlext_current_user", max_args=0),
    "current_setting": _f(TEXT, "sqlext_current_setting", TEXT, BOOL, min_args=1, max_args=2),
    "pg_backend_pid": _f(INT4, "sqlext_backend_pid", max_args=0),
    "pg_reload_conf": _f(BOOL, "sqlext_reload_conf", max_args=0),
    "pg_cancel_backend": _f(BOOL, "sqlext_cancel_backend", INT4, min_args=1, max_args=1),
    "pg_terminate_backend": _f(BOOL, "sqlext_terminate_backend", INT4, INT8, min_args=1,
                               max_args=2),
    "now": _f(TIMESTAMPTZ, "sqlext_now", max_args=0),
    "transaction_timestamp": _f(TIMESTAMPTZ, "sqlext_now", max_args=0),
    "statement_timestamp": _f(TIMESTAMPTZ, "sqlext_statement_timestamp", max_args=0),
    "clock_timestamp": _f(TIMESTAMPTZ, "sqlext_clock_timestamp", max_args=0),
    "localtimestamp": _f(TIMESTAMP, "sqlext_localtimestamp", max_args=0),
    "pg_is_in_recovery": _f(BOOL, "sqlext_false", max_args=0),
    "txid_current": _f(INT8, "sqlext_txid_current", max_args=0),
    "gen_random_uuid": _f(SqlType(t.UUID), "sqlext_gen_random_uuid", max_args=0),
    "sqlext_drain": _f(BOOL, "sqlext_drain", FLOAT8, max_args=1),
    "pg_notify": _f(SqlType(t.VOID), "sqlext_notify", TEXT, TEXT, min_args=2, max_args=2),
    # strings
    "length": _f(INT4, "length", TEXT, min_args=1, max_args=1),
    "char_length": _f(INT4, "length", TEXT, min_args=1, max_args=1),
    "character_length": _f(INT4, "length", TEXT, min_args=1, max_args=1),
    "octet_length": _f(INT4, "sqlext_octet_length", TEXT, min_args=1, max_args=1),
    "lower": _f(TEXT, "lower", TEXT, min_args=1, max_args=1),
    "upper": _f(TEXT, "upper", TEXT, min_args=1, max_args=1),
    "replace": _f(TEXT, "replace", TEXT, min_args=3, max_args=3),
    "substr": _f(TEXT, "substr", TEXT, INT4, INT4, min_args=2, max_args=3),
    "strpos": _f(INT4, "instr", TEXT, TEXT, min_args=2, max_args=2),
    "btrim": _f(TEXT, "trim", TEXT, min_args=1, max_args=2),
    "ltrim": _f(TEXT, "ltrim", TEXT, min_args=1, max_args=2),
    "rtrim": _f(TEXT, "rtrim", TEXT, min_args=1, max_args=2),
    "concat": _f(TEXT, "sqlext_concat", TEXT),
    "concat_ws": _f(TEXT, "sqlext_concat_ws", TEXT, min_args=1),
    "left": _f(TEXT, "sqlext_left", TEXT, INT4, min_args=2, max_args=2),
    "right": _f(TEXT, "sqlext_right", TEXT, INT4, min_args=2, max_args=2),
    "repeat": _f(TEXT, "sqlext_repeat", TEXT, INT4, min_args=2, max_args=2),
    "lpad": _f(TEXT, "sqlext_lpad", TEXT, INT4, TEXT, min_args=2, max_args=3),
    "rpad": _f(TEXT, "sqlext_rpad", TEXT, INT4, TEXT, min_args=2, max_args=3),
    "split_part": _f(TEXT, "sqlext_split_part", TEXT, TEXT, INT4, min_args=3, max_args=3),
    "reverse": _f(TEXT, "sqlext_reverse", TEXT, min_args=1, max_args=1),
    "initcap": _f(TEXT, "sqlext_initcap", TEXT, min_args=1, max_args=1),
    "md5": _f(TEXT, "sqlext_md5", TEXT, min_args=1, max_args=1),
    "starts_with": _f(BOOL, "sqlext_starts_with", TEXT, TEXT, min_args=2, max_args=2),
    "ascii": _f(INT4, "unicode", TEXT, min_args=1, max_args=1),
    "chr": _f(TEXT, "sqlext_chr", INT4, min_args=1, max_args=1),
    "regexp_replace": _f(TEXT, "sqlext_regexp_replace", TEXT, min_args=3, max_args=4),
    "quote_ident": _f(TEXT, "sqlext_quote_ident", TEXT, min_args=1, max_args=1),
    "quote_literal": _f(TEXT, "sqlext_quote_literal", TEXT, min_args=1, max_args=1),
    # numbers
    "abs": _f(_numeric_like_first, "abs", NUMERIC, min_args=1, max_args=1),
    "round": _f(_numeric_like_first, "sqlext_round", NUMERIC, INT4, min_args=1, max_args=2),
    "trunc": _f(_numeric_like_first, "sqlext_trunc", NUMERIC, INT4, min_args=1, max_args=2),
    "ceil": _f(_numeric_like_first, "ceil", NUMERIC, min_args=1, max_args=1),
    "ceiling": _f(_numeric_like_first, "ceil", NUMERIC, min_args=1, max_args=1),
    "floor": _f(_numeric_like_first, "floor", NUMERIC, min_args=1, max_args=1),
    "sign": _f(_float_unless_numeric, "sign", NUMERIC, min_args=1, max_args=1),
    "sqrt": _f(_float_unless_numeric, "sqrt", FLOAT8, min_args=1, max_args=1),
    "power": _f(_float_unless_numeric, "power", FLOAT8, FLOAT8, min_args=2, max_args=2),
    "pow": _f(_float_unless_numeric, "power", FLOAT8, FLOAT8, min_args=2, max_args=2),
    "exp": _f(_float_unless_numeric, "exp", FLOAT8, min_args=1, max_args=1),
    "ln": _f(_float_unless_numeric, "ln", FLOAT8, min_args=1, max_args=1),
    "log": _f(_float_unless_numeric, "log10", FLOAT8, min_args=1, max_args=1),
    "log10": _f(_float_unless_numeric, "log10", FLOAT8, min_args=1, max_args=1),
    "pi": _f(FLOAT8, "pi", max_args=0),
    "mod": _f(_numeric_like_first, "sqlext_mod", NUMERIC, NUMERIC, min_args=2, max_args=2),
    "random": _f(FLOAT8, "sqlext_random", max_args=0),
    "greatest": _f(_common, "sqlext_greatest", None, min_args=1),
    "least": _f(_common, "sqlext_least", None, min_args=1),
    # conditionals
    "coalesce": _f(_common, "coalesce", None, min_args=1),
    "nullif": _f(_first, "nullif", None, min_args=2, max_args=2),
    # arrays
    "array_to_string": _f(TEXT, "sqlext_array_to_string", None, TEXT, TEXT, min_args=2,
                          max_args=3),
    "array_upper": _f(INT4, "sqlext_array_upper", None, INT4, min_args=2, max_args=2),
    "array_lower": _f(INT4, "sqlext_array_lower", None, INT4, min_args=2, max_args=2),
    "array_length": _f(INT4, "sqlext_array_upper", None, INT4, min_args=2, max_args=2),
    "cardinality": _f(INT4, "sqlext_cardinality", None, min_args=1, max_args=1),
    "array_position": FunctionDef(INT4, "sqlext_array_position", (None,), 2, 2,
                                  element_args=True),
    "array_remove": FunctionDef(_first, "sqlext_array_remove", (None,), 2, 2,
                                element_args=True),
    "string_to_array": _f(TEXT_ARRAY, "sqlext_string_to_array", TEXT, min_args=2,
                          max_args=3),
    # json and binary strings
    "json_typeof": _f(TEXT, "sqlext_json_typeof", SqlType(t.JSON), min_args=1, max_args=1),
    "jsonb_typeof": _f(TEXT, "sqlext_json_typeof", SqlType(t.JSONB), min_args=1, max_args=1),
    "encode": _f(TEXT, "sqlext_encode", SqlType(t.BYTEA), TEXT, min_args=2, max_args=2),
    "decode": _f(SqlType(t.BYTEA), "sqlext_decode", TEXT, min_args=2, max_args=2),
    # sequences
    "nextval": _f(INT8, "sqlext_nextval", TEXT, min_args=1, max_args=1),
    "currval": _f(INT8, "sqlext_currval", TEXT, min_args=1, max_args=1),
    "setval": _f(INT8, "sqlext_setval", TEXT, INT8, BOOL, min_args=2, max_args=3),
    # aggregates
    "count": _agg(INT8, "count", None, min_args=0),
    "sum": _agg(_sum, "sum", NUMERIC, numeric_target="sqlext_numeric_sum"),
    "avg": _agg(_avg, "avg", NUMERIC, numeric_target="sqlext_numeric_avg"),
    "min": _agg(_first, "min", None),
    "max": _agg(_first, "max", None),
    "bool_and": _agg(BOOL, "min", BOOL),
    "bool_or": _agg(BOOL, "max", BOOL),
    "every": _agg(BOOL, "min", BOOL),
    "string_agg": _agg(TEXT, "group_concat", TEXT, TEXT, min_args=2, max_args=2),
    "array_agg": _agg(_array_of_first, "json_group_array", None),
    "stddev": _agg(_float_or_numeric, "sqlext_stddev_samp", FLOAT8),
    "stddev_samp": _agg(_float_or_numeric, "sqlext_stddev_samp", FLOAT8),
    "stddev_pop": _agg(_float_or_numeric, "sqlext_stddev_pop", FLOAT8),
    "variance": _agg(_float_or_numeric, "sqlext_var_samp", FLOAT8),
    "var_samp": _agg(_float_or_numeric, "sqlext_var_samp", FLOAT8),
    "var_pop": _agg(_float_or_numeric, "sqlext_var_pop", FLOAT8),
    # window functions
    "row_number": _f(INT8, "row_number", max_args=0),
    "rank": _f(INT8, "rank", max_args=0),
    "dense_rank": _f(INT8, "dense_rank", max_args=0),
    "percent_rank": _f(FLOAT8, "percent_rank", max_args=0),
    "cume_dist": _f(FLOAT8, "cume_dist", max_args=0),
    "ntile": _f(INT4, "ntile", INT4, min_args=1, max_args=1),
    "lag": _f(_first, "lag", None, INT4, None, min_args=1, max_args=3),
    "lead": _f(_first, "lead", None, INT4, None, min_args=1, max_args=3),
    "first_value": _f(_first, "first_value", None, min_args=1, max_args=1),
    "last_value": _f(_first, "last_value", None, min_args=1, max_args=1),
    "nth_value": _f(_first, "nth_value", None, INT4, min_args=2, max_args=2),
}

WINDOW_ONLY: Final = frozenset({"row_number", "rank", "dense_rank", "percent_rank",
                                "cume_dist", "ntile", "lag", "lead", "first_value",
                                "last_value", "nth_value"})
