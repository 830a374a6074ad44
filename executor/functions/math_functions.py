"""Mathematical functions, and division and modulo as PostgreSQL does them.

NaN is stored as the text 'NaN' (SQLite has no NaN: a float NaN would
become NULL), so every function here lets it through or answers with it.
"""

from __future__ import annotations

import math
from typing import Any

from catalog import errors
from catalog import types as t
from catalog.sqltypes import FLOAT8, INT4, NUMERIC, SqlType
from executor.functions.declare import Declarations, Function, Runtime
from executor.values.conversions import integer_result

FUNCTIONS = Declarations()


def numeric_like_first(types: list[SqlType]) -> SqlType:
    """Integers and doubles stay what they are; anything else is numeric."""
    if types and types[0].oid in (t.FLOAT4, t.FLOAT8):
        return FLOAT8
    if types and types[0].oid in (t.INT2, t.INT4, t.INT8):
        return SqlType(types[0].oid)
    return NUMERIC


def float_or_numeric(types: list[SqlType]) -> SqlType:
    if types and types[0].oid in (t.FLOAT4, t.FLOAT8):
        return FLOAT8
    return NUMERIC


def _float_unless_numeric(types: list[SqlType]) -> SqlType:
    """Math functions: numeric in, numeric out; everything else is double."""
    return NUMERIC if types and types[0].oid == t.NUMERIC else FLOAT8


def is_nan(value: Any) -> bool:
    """NaN as stored: the text 'NaN', or a float NaN on its way in."""
    return value == "NaN" or (isinstance(value, float) and math.isnan(value))


def _stored(value: float) -> Any:
    """A float result as stored (inf / inf and fmod(inf, x) are NaN)."""
    return "NaN" if math.isnan(value) else value


FUNCTIONS.builtin("abs", numeric_like_first, "abs", NUMERIC, min_args=1, max_args=1,
                  integer_range=True)
FUNCTIONS.builtin("ceil", numeric_like_first, "ceil", NUMERIC, min_args=1, max_args=1,
                  names=("ceiling",))
FUNCTIONS.builtin("floor", numeric_like_first, "floor", NUMERIC, min_args=1, max_args=1)
FUNCTIONS.builtin("sign", _float_unless_numeric, "sign", NUMERIC, min_args=1, max_args=1)
FUNCTIONS.builtin("sqrt", _float_unless_numeric, "sqrt", FLOAT8, min_args=1, max_args=1)
FUNCTIONS.builtin("power", _float_unless_numeric, "power", FLOAT8, FLOAT8, min_args=2,
                  max_args=2, names=("pow",))
FUNCTIONS.builtin("exp", _float_unless_numeric, "exp", FLOAT8, min_args=1, max_args=1)
FUNCTIONS.builtin("ln", _float_unless_numeric, "ln", FLOAT8, min_args=1, max_args=1)
FUNCTIONS.builtin("log", _float_unless_numeric, "log10", FLOAT8, min_args=1, max_args=1,
                  names=("log10",))
FUNCTIONS.builtin("pi", FLOAT8, "pi", max_args=0)


def _unscalable(value: Any, places: Any) -> bool:
    """NaN, infinities, and places beyond a double's range (where rounding
    changes nothing, or the scaled value overflows): the value stays."""
    if isinstance(value, str) or (isinstance(value, float) and not math.isfinite(value)):
        return True
    return not -300 <= int(places) <= 300 or not math.isfinite(abs(value) * 10.0 ** int(places))


@FUNCTIONS.scalar("round", numeric_like_first, NUMERIC, INT4, min_args=1, max_args=2)
def _round(value: Any, places: Any = 0) -> Any:
    if value is None or places is None:
        return None
    if _unscalable(value, places):
        return value
    factor = 10.0 ** int(places)
    rounded = math.floor(abs(value) * factor + 0.5) / factor
    result = math.copysign(rounded, value)
    return int(result) if isinstance(value, int) else result


@FUNCTIONS.scalar("trunc", numeric_like_first, NUMERIC, INT4, min_args=1, max_args=2)
def _trunc(value: Any, places: Any = 0) -> Any:
    if value is None or places is None:
        return None
    if _unscalable(value, places):
        return value
    factor = 10.0 ** int(places)
    return math.trunc(value * factor) / factor


FUNCTIONS.internal("sqlext_integer_result", 2)(integer_result)


@FUNCTIONS.internal("sqlext_div", 3)
def _div(left: Any, right: Any, integer: int) -> Any:
    """The / operator where SQLite's would be wrong: division by zero is an
    error, integers divide truncating towards zero."""
    if left is None or right is None:
        return None
    if is_nan(left) or is_nan(right):
        return "NaN"
    if right == 0:
        raise errors.DivisionByZero("division by zero")
    if integer:
        quotient = abs(left) // abs(right)
        return quotient if (left >= 0) == (right >= 0) else -quotient
    return _stored(left / right)


# the % operator calls it too, with a third argument: whether both sides are integers
@FUNCTIONS.scalar("mod", numeric_like_first, NUMERIC, NUMERIC, min_args=2, max_args=2,
                  sqlite_args=-1)
def _mod(left: Any, right: Any, integer: int = 1) -> Any:
    if left is None or right is None:
        return None
    if is_nan(left) or is_nan(right):
        return "NaN"
    if right == 0:
        raise errors.DivisionByZero("division by zero")
    if isinstance(left, float) and math.isinf(left):
        return "NaN"  # as PostgreSQL's numeric: Infinity % x
    if isinstance(right, float) and math.isinf(right):
        return left
    if not integer or isinstance(left, float) or isinstance(right, float):
        return _stored(math.fmod(left, right))
    remainder = abs(left) % abs(right)  # exact for every bigint, unlike fmod
    return remainder if left >= 0 else -remainder


@FUNCTIONS.runtime("random", FLOAT8, max_args=0)
def _random(runtime: Runtime) -> Function:
    """From the transaction's seeded generator, so a replay draws the same."""
    return lambda: runtime.executor.random().random()
