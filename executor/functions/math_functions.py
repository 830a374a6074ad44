"""Mathematical functions, and division and modulo as PostgreSQL does them.

Each function has PostgreSQL's signatures (``abs(integer)``,
``abs(numeric)``, ``round(double precision)``...), chosen as PostgreSQL
chooses them; the implementation gets the chosen signature's first
parameter type. numeric values are computed exactly by
``executor.values.numeric_math`` on their keys; double precision values are
floats, NaN stored as the text 'NaN' (SQLite has no NaN: a float NaN would
become NULL), so every float function lets it through or answers with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.sqltypes import FLOAT8, INT2, INT4, INT8, NUMERIC, VOID, SqlType
from executor.codecs import numeric_storage
from executor.codecs.numeric import exact
from executor.functions.declare import Declarations, Function, Overload, Runtime
from executor.values import numeric_math as nm
from executor.values.conversions import integer_result

FUNCTIONS = Declarations()


def float_or_numeric(types: list[SqlType]) -> SqlType:
    if types and types[0].oid in (t.FLOAT4, t.FLOAT8):
        return FLOAT8
    return NUMERIC


def is_nan(value: Any) -> bool:
    """NaN as stored: the text 'NaN', or a float NaN on its way in."""
    return value == "NaN" or (isinstance(value, float) and math.isnan(value))


def _stored(value: float) -> Any:
    """A float result as stored (inf / inf and fmod(inf, x) are NaN)."""
    return "NaN" if math.isnan(value) else value


def _key(value: Decimal) -> str:
    return numeric_storage.key(value)


def _unary(float_function: Callable[[float], float],
           numeric_function: Callable[[Decimal], Decimal]) -> Callable[[int, Any], Any]:
    """A function of one number: numeric exactly, double precision as a float."""
    def call(oid: int, value: Any) -> Any:
        if value is None:
            return None
        if oid == t.NUMERIC:
            return _key(numeric_function(exact(value)))
        if is_nan(value):
            return "NaN"
        return _stored(float_function(float(value)))
    return call


def _float_sqrt(value: float) -> float:
    if value < 0:
        raise errors.InvalidArgumentForPowerFunction(
            "cannot take square root of a negative number")
    return math.sqrt(value)


def _float_log(function: Callable[[float], float]) -> Callable[[float], float]:
    def log(value: float) -> float:
        if value == 0:
            raise errors.InvalidArgumentForLogarithm("cannot take logarithm of zero")
        if value < 0:
            raise errors.InvalidArgumentForLogarithm(
                "cannot take logarithm of a negative number")
        return function(value)
    return log


def _float_exp(value: float) -> float:
    try:
        return math.exp(value)
    except OverflowError:
        raise errors.NumericValueOutOfRange("value out of range: overflow") from None


def _float_power(base: float, exponent: float) -> float:
    if base == 0 and exponent < 0:
        raise errors.InvalidArgumentForPowerFunction(
            "zero raised to a negative power is undefined")
    if base < 0 and exponent != math.floor(exponent) and math.isfinite(exponent):
        raise errors.InvalidArgumentForPowerFunction(
            "a negative number raised to a non-integer power yields a complex result")
    try:
        return math.pow(base, exponent)
    except OverflowError:
        raise errors.NumericValueOutOfRange("value out of range: overflow") from None


def _signed(integral: Callable[[float], int], value: float) -> float:
    """ceil, floor, rint, trunc of a float as C computes them: infinities
    stay, and a zero result keeps the argument's sign (ceil(-0.5) is -0)."""
    if not math.isfinite(value):
        return value
    return math.copysign(float(integral(value)), value)


_FLOAT_AND_NUMERIC: Final = (Overload((FLOAT8,), FLOAT8), Overload((NUMERIC,), NUMERIC))
_UNARY: Final[dict[str, tuple[Callable[[float], float], Callable[[Decimal], Decimal]]]] = {
    "ceil": (lambda value: _signed(math.ceil, value), nm.ceil),
    "floor": (lambda value: _signed(math.floor, value), nm.floor),
    "sign": (lambda value: float((value > 0) - (value < 0)), nm.sign),
    "sqrt": (_float_sqrt, nm.sqrt),
    "exp": (_float_exp, nm.exp),
    "ln": (_float_log(math.log), nm.ln),
    "log10": (_float_log(math.log10), nm.log10),
}
for _name, (_float_function, _numeric_function) in _UNARY.items():
    FUNCTIONS.overloaded(_name, *_FLOAT_AND_NUMERIC, type_args=(0,),
                         names=("ceiling",) if _name == "ceil" else ())(
        _unary(_float_function, _numeric_function))


@FUNCTIONS.overloaded("abs", Overload((INT2,), INT2), Overload((INT4,), INT4),
                      Overload((INT8,), INT8), *_FLOAT_AND_NUMERIC, type_args=(0,))
def _abs(oid: int, value: Any) -> Any:
    if value is None:
        return None
    if oid == t.NUMERIC:
        return _key(nm.absolute(exact(value)))
    if oid == t.FLOAT8:
        return value if is_nan(value) else abs(value)
    return integer_result(abs(value), oid)


@FUNCTIONS.overloaded("log", Overload((FLOAT8,), FLOAT8), Overload((NUMERIC,), NUMERIC),
                      Overload((NUMERIC, NUMERIC), NUMERIC), type_args=(0,))
def _log(oid: int, first: Any, second: Any = None) -> Any:
    """log(x) is log10(x); log(b, x) the logarithm of x to base b."""
    if first is None:
        return None
    if oid == t.FLOAT8:
        return "NaN" if is_nan(first) else _stored(_float_log(math.log10)(float(first)))
    if second is None:
        return _key(nm.log10(exact(first)))
    return _key(nm.log(exact(first), exact(second)))


@FUNCTIONS.overloaded("power", Overload((FLOAT8, FLOAT8), FLOAT8),
                      Overload((NUMERIC, NUMERIC), NUMERIC), type_args=(0,),
                      names=("pow",))
def _power(oid: int, base: Any, exponent: Any) -> Any:
    if base is None or exponent is None:
        return None
    if oid == t.NUMERIC:
        return _key(nm.power(exact(base), exact(exponent)))
    if is_nan(base) or is_nan(exponent):
        return 1.0 if (base == 1 or exponent == 0) else "NaN"
    return _stored(_float_power(float(base), float(exponent)))


def _scaled(numeric_function: Callable[[Decimal, int], Decimal],
            float_function: Callable[[float], float]) -> Callable[..., Any]:
    """round and trunc: numeric to a number of places, or a float to an integer."""
    def call(oid: int, value: Any, places: Any = 0) -> Any:
        if value is None or places is None:
            return None
        if oid == t.NUMERIC:
            return _key(numeric_function(exact(value), places))
        if is_nan(value) or not math.isfinite(value):
            return value
        return float_function(float(value))
    return call


_ROUNDING: Final = (Overload((FLOAT8,), FLOAT8), Overload((NUMERIC,), NUMERIC),
                    Overload((NUMERIC, INT4), NUMERIC))
# double precision rounds half to even (rint), numeric half away from zero
FUNCTIONS.overloaded("round", *_ROUNDING, type_args=(0,))(
    _scaled(nm.round, lambda value: _signed(round, value)))
FUNCTIONS.overloaded("trunc", *_ROUNDING, type_args=(0,))(
    _scaled(nm.trunc, lambda value: _signed(math.trunc, value)))


def _numeric_only(function: Callable[..., Any], *params: SqlType, result: SqlType = NUMERIC,
                  name: str) -> None:
    """A function of numerics only: keys (or integers) in, a key out."""
    def call(*values: Any) -> Any:
        if any(value is None for value in values):
            return None
        found = function(*(exact(value) for value in values))
        return _key(found) if isinstance(found, Decimal) else found
    FUNCTIONS.overloaded(name, Overload(params, result), sqlite=f"sqlext_{name}_numeric")(call)


_numeric_only(nm.div_trunc, NUMERIC, NUMERIC, name="div")
_numeric_only(nm.scale, NUMERIC, result=INT4, name="scale")
_numeric_only(nm.min_scale, NUMERIC, result=INT4, name="min_scale")
_numeric_only(nm.trim_scale, NUMERIC, name="trim_scale")
_numeric_only(lambda value: nm.factorial(int(value)), INT8, name="factorial")


@FUNCTIONS.overloaded("width_bucket", Overload((FLOAT8, FLOAT8, FLOAT8, INT4), INT4),
                      Overload((NUMERIC, NUMERIC, NUMERIC, INT4), INT4), type_args=(0,))
def _width_bucket(oid: int, operand: Any, low: Any, high: Any, count: Any) -> Any:
    if operand is None or low is None or high is None or count is None:
        return None
    if oid == t.NUMERIC:
        return nm.width_bucket(exact(operand), exact(low), exact(high), count)
    return nm.width_bucket(*(Decimal(repr(float(v))) for v in (operand, low, high)), count)


def _integer_or_numeric(numeric_function: Callable[[Decimal, Decimal], Decimal],
                        integer_function: Callable[[int, int], int]) -> Callable[..., Any]:
    """gcd, lcm and mod: integers of each width, and numerics."""
    def call(oid: int, left: Any, right: Any, *_: Any) -> Any:
        if left is None or right is None:
            return None
        if oid == t.NUMERIC:
            return _key(numeric_function(exact(left), exact(right)))
        return integer_result(integer_function(left, right), oid)
    return call


_BY_WIDTH: Final = (*(Overload((width, width), width) for width in (INT2, INT4, INT8)),
                    Overload((NUMERIC, NUMERIC), NUMERIC))


def _integer_gcd(left: int, right: int) -> int:
    return math.gcd(left, right)


def _integer_lcm(left: int, right: int) -> int:
    return math.lcm(left, right)


def _integer_mod(left: int, right: int) -> int:
    if right == 0:
        raise errors.DivisionByZero("division by zero")
    remainder = abs(left) % abs(right)  # exact for every bigint, unlike fmod
    return remainder if left >= 0 else -remainder


FUNCTIONS.overloaded("gcd", *_BY_WIDTH[1:], type_args=(0,))(
    _integer_or_numeric(nm.gcd, _integer_gcd))
FUNCTIONS.overloaded("lcm", *_BY_WIDTH[1:], type_args=(0,))(
    _integer_or_numeric(nm.lcm, _integer_lcm))
FUNCTIONS.overloaded("mod", *_BY_WIDTH, type_args=(0,), sqlite="sqlext_mod_function")(
    _integer_or_numeric(nm.mod, _integer_mod))
FUNCTIONS.builtin("pi", FLOAT8, "pi", max_args=0)
FUNCTIONS.internal("sqlext_integer_result", 2)(integer_result)


@FUNCTIONS.internal("sqlext_div", 3)
def _div(left: Any, right: Any, integer: int) -> Any:
    """The / operator of integers and floats where SQLite's would be wrong:
    division by zero is an error, integers divide truncating towards zero."""
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


@FUNCTIONS.internal("sqlext_mod", 3)
def _mod_operator(left: Any, right: Any, integer: int) -> Any:
    """The % operator of integers and floats."""
    if left is None or right is None:
        return None
    if integer:
        return _integer_mod(left, right)
    if is_nan(left) or is_nan(right):
        return "NaN"
    if right == 0:
        raise errors.DivisionByZero("division by zero")
    return _stored(math.fmod(left, right))


@FUNCTIONS.runtime("random", FLOAT8, max_args=0)
def _random(runtime: Runtime) -> Function:
    """From the transaction's seeded generator, so a replay draws the same."""
    return lambda: runtime.executor.random().random()


@FUNCTIONS.overloaded("setseed", Overload((FLOAT8,), VOID), runtime=True)
def _setseed(runtime: Runtime) -> Function:
    """The random numbers random() draws next, in this session, follow from
    the seed (``Executor.set_seed``)."""
    def setseed(seed: Any) -> Any:
        if seed is None:
            return None
        if is_nan(seed) or not -1 <= seed <= 1:
            shown = "NaN" if is_nan(seed) else f"{seed:g}"
            raise errors.InvalidParameterValue(
                f"setseed parameter {shown} is out of allowed range [-1,1]")
        runtime.executor.set_seed(float(seed))
        return ""  # void: prints as nothing, and is not NULL
    return setseed


_RADIANS_PER_DEGREE: Final = 0.0174532925199432957692
"""As PostgreSQL's float.c defines it (degrees() divides by it)."""


def _float_only(function: Callable[[float], float]) -> Callable[[Any], Any]:
    """A function of double precision with float.c's checks: a finite
    argument must give neither an infinite result (overflow) nor a zero
    from a non-zero one (underflow)."""
    def call(value: Any) -> Any:
        if value is None:
            return None
        if is_nan(value):
            return "NaN"
        result = function(float(value))
        if math.isinf(result) and not math.isinf(value):
            raise errors.NumericValueOutOfRange("value out of range: overflow")
        if result == 0.0 and value != 0.0:
            raise errors.NumericValueOutOfRange("value out of range: underflow")
        return result
    return call


FUNCTIONS.overloaded("cbrt", Overload((FLOAT8,), FLOAT8))(_float_only(math.cbrt))
FUNCTIONS.overloaded("degrees", Overload((FLOAT8,), FLOAT8))(
    _float_only(lambda value: value / _RADIANS_PER_DEGREE))
FUNCTIONS.overloaded("radians", Overload((FLOAT8,), FLOAT8))(
    _float_only(lambda value: value * _RADIANS_PER_DEGREE))
