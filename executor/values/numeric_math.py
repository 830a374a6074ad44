"""numeric arithmetic with PostgreSQL 15's results: values, display scales, errors.

A numeric is a :class:`decimal.Decimal` in canonical form:

* finite: the exponent is minus the display scale (dscale, 0..16383), so
  ``Decimal('1.50')`` is 1.50 with dscale 2 and ``Decimal('1500')`` has dscale 0;
  never a positive exponent, never negative zero, and ``abs(value) < 10**131072``;
* special: the module's singletons ``NAN``, ``POS_INF`` and ``NEG_INF``
  (``Decimal('NaN')``, ``Decimal('Infinity')``, ``Decimal('-Infinity')``). Every
  function returns these very objects, so a NaN is found again as a dict key
  (Decimal NaN is unequal to itself, but dicts match identical keys first).

Every function takes canonical values and returns canonical values; ``from_text``
makes them. Result scales and rounding (half away from zero) follow numeric.c:
``add``/``sub`` keep the larger dscale, ``mul`` the sum (rounded to 16383),
``div`` picks the scale that gives at least 16 significant digits
(select_div_scale, worked out on base-10000 digits as numeric.c stores them),
and the functions pick theirs from the same floating-point estimates numeric.c
makes. Quotients, square roots and integer powers are correctly rounded (as
numeric.c's are); exp and ln repeat numeric.c's series step by step, because
their last digit can differ from the correctly rounded one. Results outside
numeric's range raise 22003, like numeric.c's make_result.

Cost per call (timeit, best of 5 runs, Python 3.11, operands 12345.678 and
-3.50; ranges are over runs on the 2-core machine shared with other jobs):
add, sub, mul 0.09 µs; compare 0.06 µs; to_text 0.07 µs; mod 0.17 µs;
apply_typmod and round 0.3-0.7 µs; from_text 0.6-1 µs; div 2-3 µs (its scale
needs both operands' base-10000 shape); aggregate step 0.3-1 µs; sqrt 2-7 µs;
exp 17-25 µs; ln 30-90 µs; power with a fractional exponent 90-270 µs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import (
    ROUND_CEILING,
    ROUND_DOWN,
    ROUND_FLOOR,
    ROUND_HALF_EVEN,
    ROUND_HALF_UP,
    Context,
    Decimal,
    Inexact,
    InvalidOperation,
    Overflow,
    Rounded,
)
from functools import lru_cache
from typing import Final

from catalog import errors
from executor.codecs import numeric_storage

DSCALE_MAX: Final = 16383
"""NUMERIC_DSCALE_MAX: the most digits a numeric keeps after the point."""
MAX_DISPLAY_SCALE: Final = 1000
"""NUMERIC_MAX_DISPLAY_SCALE: the largest scale a computed result chooses."""
MAX_RESULT_SCALE: Final = 2000
"""NUMERIC_MAX_RESULT_SCALE: bounds numeric.c's exponential estimates."""
MIN_SIG_DIGITS: Final = 16
"""NUMERIC_MIN_SIG_DIGITS: division and the functions keep at least this many."""
MAX_ADJUSTED: Final = 131071
"""Largest decimal exponent of a leading digit: numeric's weight is an int16 of
base-10000 digits, so every finite value is below 10**131072."""

NAN: Final = numeric_storage.NAN
POS_INF: Final = numeric_storage.INFINITY
NEG_INF: Final = numeric_storage.NEGATIVE_INFINITY
"""The specials are the storage module's objects, so values read from storage
are the singletons too."""
ZERO: Final = Decimal(0)
ONE: Final = Decimal(1)

# round() and trunc() clamp their scale to these (one digit more before the point
# than a numeric holds, so rounding up into it still overflows).
_ROUND_SCALES: Final = (-(MAX_ADJUSTED + 1) - 1, DSCALE_MAX)
_INT32_MIN: Final = -(2**31)
_INT32_MAX: Final = 2**31 - 1
_DEC_DIGITS: Final = 4  # decimal digits per base-10000 digit of numeric.c
_LOG10_E: Final = 0.434294481903252  # numeric.c's constants, for the same estimates
_LN_10: Final = 2.302585092994046
_LOG10_2: Final = 0.301029995663981
_GUARD: Final = 12  # extra digits when computing a transcendental result
# Decimal's operators (+, -, *, /, abs) round to the thread's context (28 digits
# by default): every operation here names its context instead.
# Enough digits for any exact sum or product of two numerics.
_WIDEST: Final = 2 * (MAX_ADJUSTED + 1 + DSCALE_MAX)
_EXACT: Final = Context(prec=_WIDEST, rounding=ROUND_HALF_UP, Emax=MAX_ADJUSTED,
                        Emin=-_WIDEST, traps=[Overflow])
"""Exact arithmetic; NaN and infinities flow through quietly (Inf - Inf is NaN)."""
UNBOUNDED: Final = Context(prec=_WIDEST, rounding=ROUND_HALF_UP, Emax=10 * _WIDEST,
                           Emin=-10 * _WIDEST, traps=[InvalidOperation])
"""Exact arithmetic on finite values beyond numeric's range, for intermediate
results and running sums (numeric.c checks the range only of final results)."""
# Products of up to DSCALE_MAX + 1 digits and a scale of at most DSCALE_MAX
# (Etiny = Emin - prec + 1 = -DSCALE_MAX) come out exact; any other product
# raises Rounded and takes the slow path, so mul needs no exponent check.
_MUL_FAST: Final = Context(prec=DSCALE_MAX + 1, rounding=ROUND_HALF_UP, Emax=MAX_ADJUSTED,
                           Emin=0, traps=[Rounded])
_ADD: Final = _EXACT.add
_SUB: Final = _EXACT.subtract
_MUL: Final = _MUL_FAST.multiply
_HALF: Final = Decimal("0.5")
_TWO: Final = Decimal(2)
_TEN: Final = Decimal(10)
_POINT_NINE: Final = Decimal("0.9")
_ONE_POINT_ONE: Final = Decimal("1.1")

_SPACE: Final = " \t\n\r\v\f"
_NUMBER: Final = re.compile(
    r"[ \t\n\r\v\f]*([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?:[eE][ \t\n\r\v\f]*([+-]?[0-9]+))?[ \t\n\r\v\f]*",
    re.ASCII,
)
# numeric_in's words, tried in its order; the first prefix that matches decides.
_WORDS: Final = (("nan", NAN), ("infinity", POS_INF), ("+infinity", POS_INF),
                 ("-infinity", NEG_INF), ("inf", POS_INF), ("+inf", POS_INF),
                 ("-inf", NEG_INF))
_EXPONENT_LIMIT: Final = 1073741823  # INT_MAX / 2, numeric_in's bound on the exponent


# --- errors -------------------------------------------------------------------

def _overflow() -> errors.NumericValueOutOfRange:
    return errors.NumericValueOutOfRange("value overflows numeric format")


def _division_by_zero() -> errors.DivisionByZero:
    return errors.DivisionByZero("division by zero")


def _negative_log() -> errors.InvalidArgumentForLogarithm:
    return errors.InvalidArgumentForLogarithm("cannot take logarithm of a negative number")


def _negative_sqrt() -> errors.InvalidArgumentForPowerFunction:
    return errors.InvalidArgumentForPowerFunction("cannot take square root of a negative number")


# --- representation helpers ---------------------------------------------------

def _special(value: Decimal) -> Decimal:
    """The singleton for a NaN or an infinity."""
    if value.is_nan():
        return NAN
    return NEG_INF if value.is_signed() else POS_INF


@lru_cache(maxsize=4096)
def _quantum(scale: int) -> Decimal:
    """1 with exponent ``-scale``, the target of ``quantize``."""
    return Decimal((0, (1,), -scale))


@lru_cache(maxsize=4096)
def _zero(scale: int) -> Decimal:
    return Decimal((0, (0,), -scale))


def _dscale(value: Decimal) -> int:
    """The display scale of a finite canonical value (str is faster than as_tuple)."""
    text = str(value)
    if "E" in text:
        exponent = value.as_tuple().exponent
        assert isinstance(exponent, int)
        return -exponent
    point = text.find(".")
    return 0 if point < 0 else len(text) - point - 1


def _clamp_scale(scale: int) -> int:
    return min(max(scale, 0), MAX_DISPLAY_SCALE)


def _rescale(value: Decimal, scale: int, rounding: str = ROUND_HALF_UP) -> Decimal:
    """round_var / trunc_var: ``value`` at ``scale`` digits (dscale never negative)."""
    result = value.quantize(_quantum(scale), rounding, UNBOUNDED)
    if scale < 0:
        result = result.quantize(ONE, ROUND_HALF_UP, UNBOUNDED)
    if not result:
        return result.copy_abs()
    if result.adjusted() > MAX_ADJUSTED:
        raise _overflow()
    return result


def _shape(value: Decimal) -> tuple[int, int, int]:
    """dscale, weight and first digit of ``value`` as numeric.c stores it in base
    10000 (weight and digit 0 for zero), read off the plain text (str is cheap)."""
    text = str(value).lstrip("-")
    if "E" in text:
        if not value:
            return _dscale(value), 0, 0
        weight = value.adjusted() // _DEC_DIGITS
        first = abs(int(_EXACT.scaleb(value, -_DEC_DIGITS * weight)))
        return _dscale(value), weight, first
    whole, _, fraction = text.partition(".")
    if whole != "0":
        weight, lead = divmod(len(whole) - 1, _DEC_DIGITS)
        return len(fraction), weight, int(whole[: lead + 1])
    significant = fraction.lstrip("0")
    if not significant:
        return len(fraction), 0, 0
    weight = (len(significant) - len(fraction) - 1) // _DEC_DIGITS  # adjusted // 4
    start = -_DEC_DIGITS * weight - _DEC_DIGITS
    return len(fraction), weight, int(fraction[start:start + _DEC_DIGITS].ljust(_DEC_DIGITS, "0"))


# --- text ---------------------------------------------------------------------

def to_text(value: Decimal) -> str:
    """numeric_out: plain notation with dscale digits, 'NaN', 'Infinity', '-Infinity'."""
    if value.is_finite():
        text = str(value)
        return format(value, "f") if "E" in text else text
    if value.is_nan():
        return "NaN"
    return "-Infinity" if value.is_signed() else "Infinity"


def from_text(text: str) -> Decimal:
    """numeric_in: the canonical value of ``text``; 22P02 or 22003 otherwise."""
    match = _NUMBER.fullmatch(text)
    if match is None:
        return _special_word(text)
    mantissa, exponent_text = match.groups()
    if exponent_text is None:
        value = Decimal(mantissa)
        point = mantissa.find(".")
        digits = 0 if point < 0 else len(mantissa) - point - 1
    else:
        exponent = int(exponent_text)
        if not -_EXPONENT_LIMIT < exponent < _EXPONENT_LIMIT:
            raise _overflow()
        value = Decimal(f"{mantissa}E{exponent}")
        value_exponent = value.as_tuple().exponent
        assert isinstance(value_exponent, int)
        digits = -value_exponent
    if digits > DSCALE_MAX or (value and value.adjusted() > MAX_ADJUSTED):
        raise _overflow()
    if digits < 0:  # 1.5e3 has dscale 0
        value = value.quantize(ONE, ROUND_HALF_UP, _EXACT)
    return value if value else value.copy_abs()


def _special_word(text: str) -> Decimal:
    stripped = text.lstrip(_SPACE)
    for word, value in _WORDS:
        head = stripped[: len(word)]
        if head.isascii() and head.lower() == word:
            if stripped[len(word):].strip(_SPACE):
                break
            return value
    raise errors.InvalidTextRepresentation(f'invalid input syntax for type numeric: "{text}"')


# --- typmod -------------------------------------------------------------------

def apply_typmod(value: Decimal, precision: int, scale: int) -> Decimal:
    """numeric(precision, scale): round to ``scale`` (which may be negative or exceed
    ``precision``), then require fewer than ``precision - scale`` integer digits."""
    if not value.is_finite():
        if value.is_nan():
            return value
        raise errors.NumericValueOutOfRange(
            "numeric field overflow",
            detail=f"A field with precision {precision}, scale {scale} "
                   "cannot hold an infinite value.")
    max_digits = precision - scale
    # A value already too wide fails whatever the rounding does.
    if not value or value.adjusted() < max_digits:
        if scale < 0 or not value.same_quantum(_quantum(scale)):
            value = _rescale(value, scale)
        if not value or value.adjusted() < max_digits:
            return value
    bound = f"10^{max_digits}" if max_digits else "1"
    raise errors.NumericValueOutOfRange(
        "numeric field overflow",
        detail=f"A field with precision {precision}, scale {scale} must round to an "
               f"absolute value less than {bound}.")


# --- comparison ---------------------------------------------------------------

def compare(a: Decimal, b: Decimal) -> int:
    """cmp_numerics: -1, 0 or 1; NaN equals NaN and sorts above +Infinity."""
    if a.is_nan():
        return 0 if b.is_nan() else 1
    if b.is_nan():
        return -1
    return (a > b) - (a < b)


def sort_key(value: Decimal) -> tuple[bool, Decimal]:
    """A key for ``sorted`` in PostgreSQL's order (NaN last)."""
    return (True, ZERO) if value.is_nan() else (False, value)


# --- arithmetic ---------------------------------------------------------------

def add(a: Decimal, b: Decimal) -> Decimal:
    try:
        result = _ADD(a, b)
    except Overflow:
        raise _overflow() from None
    return result if result.is_finite() else _special(result)


def sub(a: Decimal, b: Decimal) -> Decimal:
    try:
        result = _SUB(a, b)
    except Overflow:
        raise _overflow() from None
    return result if result.is_finite() else _special(result)


def mul(a: Decimal, b: Decimal) -> Decimal:
    """The exact product, rounded to 16383 digits after the point if it has more."""
    try:
        result = _MUL(a, b)
    except Rounded:
        result = _mul_wide(a, b)
    if result.is_finite():
        return result if result else result.copy_abs()
    return _special(result)


def _mul_wide(a: Decimal, b: Decimal) -> Decimal:
    try:
        product = _EXACT.multiply(a, b)
    except Overflow:
        raise _overflow() from None
    if product.is_finite() and _dscale(product) > DSCALE_MAX:
        return _rescale(product, DSCALE_MAX)
    return product


def negate(value: Decimal) -> Decimal:
    """Unary minus (no negative zero)."""
    if value.is_finite():
        return value.copy_negate() if value else value
    return _special(value.copy_negate())


def absolute(value: Decimal) -> Decimal:
    """abs(): keeps the dscale."""
    return value.copy_abs() if value.is_finite() else _special(value.copy_abs())


def sign(value: Decimal) -> Decimal:
    """sign(): -1, 0 or 1 with dscale 0; NaN for NaN."""
    if value.is_nan():
        return NAN
    return Decimal((value > 0) - (value < 0))


def div(a: Decimal, b: Decimal) -> Decimal:
    """The / operator: rounded at the scale select_div_scale picks."""
    if not (a.is_finite() and b.is_finite()):
        return _divide_special(a, b)
    if not b:
        raise _division_by_zero()
    return _quotient(a, b, _div_scale(a, b))


def div_trunc(a: Decimal, b: Decimal) -> Decimal:
    """div(): the quotient truncated towards zero, dscale 0."""
    if not (a.is_finite() and b.is_finite()):
        return _divide_special(a, b)
    if not b:
        raise _division_by_zero()
    try:
        result = _EXACT.divide_int(a, b)
    except Overflow:
        raise _overflow() from None
    return result if result else ZERO


def mod(a: Decimal, b: Decimal) -> Decimal:
    """The % operator: a - trunc(a / b) * b, sign of ``a``, dscale the larger."""
    if not (a.is_finite() and b.is_finite()):
        if a.is_nan() or b.is_nan():
            return NAN
        if not a.is_finite():
            if b.is_finite() and not b:
                raise _division_by_zero()
            return NAN
        return a
    if not b:
        raise _division_by_zero()
    result = _EXACT.remainder(a, b)
    return result if result else result.copy_abs()


def _divide_special(a: Decimal, b: Decimal) -> Decimal:
    """numeric_div's and numeric_div_trunc's rules when an operand is not finite."""
    if a.is_nan() or b.is_nan():
        return NAN
    if a.is_infinite():
        if b.is_infinite():
            return NAN
        if not b:
            raise _division_by_zero()
        return POS_INF if a.is_signed() == b.is_signed() else NEG_INF
    return ZERO  # finite / ±Infinity: numeric has no underflow, so zero


def _div_scale(a: Decimal, b: Decimal) -> int:
    """select_div_scale: at least 16 significant digits, at least either dscale."""
    scale1, weight1, first1 = _shape(a)
    scale2, weight2, first2 = _shape(b)
    quotient_weight = weight1 - weight2 - (first1 <= first2)
    return _clamp_scale(max(MIN_SIG_DIGITS - quotient_weight * _DEC_DIGITS, scale1, scale2))


@lru_cache(maxsize=256)
def _truncating(digits: int) -> Context:
    return Context(prec=digits, rounding=ROUND_DOWN, Emax=10 * _WIDEST, Emin=-10 * _WIDEST,
                   traps=[InvalidOperation])


def _quotient(a: Decimal, b: Decimal, scale: int, *, bounded: bool = True) -> Decimal:
    """div_var with rounding: ``a / b`` (b nonzero) rounded half away from zero,
    within numeric's range unless not ``bounded`` (an intermediate result).

    Truncating one digit past ``scale`` and then rounding half up is exact: the
    truncated value is on the same side of every halfway point as the quotient.
    """
    digits = a.adjusted() - b.adjusted() + scale + 2
    if digits <= 0 or not a:
        return _zero(scale)  # |a / b| < 10 ** (-scale - 1)
    quotient = _truncating(digits).divide(a, b)
    result = quotient.quantize(_quantum(scale), ROUND_HALF_UP, UNBOUNDED)
    if not result:
        return result.copy_abs()
    if bounded and result.adjusted() > MAX_ADJUSTED:
        raise _overflow()
    return result


# --- rounding -----------------------------------------------------------------

def round(value: Decimal, scale: int = 0) -> Decimal:
    """round(x, s): half away from zero; a negative ``s`` rounds left of the point."""
    if not value.is_finite():
        return value
    return _rescale(value, _round_scale(scale))


def trunc(value: Decimal, scale: int = 0) -> Decimal:
    if not value.is_finite():
        return value
    return _rescale(value, _round_scale(scale), ROUND_DOWN)


def _round_scale(scale: int) -> int:
    low, high = _ROUND_SCALES
    return min(max(scale, low), high)


def ceil(value: Decimal) -> Decimal:
    return _rescale(value, 0, ROUND_CEILING) if value.is_finite() else value


def floor(value: Decimal) -> Decimal:
    return _rescale(value, 0, ROUND_FLOOR) if value.is_finite() else value


def scale(value: Decimal) -> int | None:
    """scale(): the dscale; NULL for NaN and infinities."""
    return _dscale(value) if value.is_finite() else None


def min_scale(value: Decimal) -> int | None:
    """min_scale(): the fewest digits after the point that show ``value`` exactly."""
    if not value.is_finite():
        return None
    if not value:
        return 0
    exponent = _EXACT.normalize(value).as_tuple().exponent
    assert isinstance(exponent, int)
    return max(-exponent, 0)


def trim_scale(value: Decimal) -> Decimal:
    """trim_scale(): ``value`` with its trailing fractional zeros removed."""
    if not value.is_finite():
        return value
    digits = min_scale(value)
    assert digits is not None
    return _rescale(value, digits)


# --- integers -----------------------------------------------------------------

def gcd(a: Decimal, b: Decimal) -> Decimal:
    """gcd(): dscale the larger of the two; NaN if either is not finite."""
    if not (a.is_finite() and b.is_finite()):
        return NAN
    return _rescale(_euclid(a, b), max(_dscale(a), _dscale(b)))


def lcm(a: Decimal, b: Decimal) -> Decimal:
    """lcm(): |a / gcd(a, b) * b|, dscale the larger of the two; zero if either is zero."""
    if not (a.is_finite() and b.is_finite()):
        return NAN
    digits = max(_dscale(a), _dscale(b))
    if not a or not b:
        return _zero(digits)
    multiple = UNBOUNDED.multiply(UNBOUNDED.divide_int(a, _euclid(a, b)), b)
    return _rescale(multiple.copy_abs(), digits)


def _euclid(a: Decimal, b: Decimal) -> Decimal:
    """The greatest common divisor by Euclid's algorithm (exact on decimals)."""
    a, b = a.copy_abs(), b.copy_abs()
    while b:
        a, b = b, UNBOUNDED.remainder(a, b)
    return a


def factorial(n: int) -> Decimal:
    """factorial(bigint)."""
    if n < 0:
        raise errors.NumericValueOutOfRange("factorial of a negative number is undefined")
    if n > 32177:  # 32178! has more than 131072 digits
        raise _overflow()
    return _product(1, n) if n > 1 else ONE


def _product(low: int, high: int) -> Decimal:
    """low * (low + 1) * ... * high, as a product tree: libmpdec multiplies long
    numbers quickly, where converting math.factorial's int would be quadratic."""
    if high - low < 32:
        result = Decimal(low)
        for factor in range(low + 1, high + 1):
            result = UNBOUNDED.multiply(result, factor)
        return result
    middle = (low + high) // 2
    return UNBOUNDED.multiply(_product(low, middle), _product(middle + 1, high))


def width_bucket(operand: Decimal, low: Decimal, high: Decimal, count: int) -> int:
    """width_bucket(numeric, numeric, numeric, int): the bucket of ``operand``."""
    if count <= 0:
        raise errors.InvalidArgumentForWidthBucketFunction("count must be greater than zero")
    if operand.is_nan() or low.is_nan() or high.is_nan():
        raise errors.InvalidArgumentForWidthBucketFunction(
            "operand, lower bound, and upper bound cannot be NaN")
    if low.is_infinite() or high.is_infinite():
        raise errors.InvalidArgumentForWidthBucketFunction("lower and upper bounds must be finite")
    if low == high:
        raise errors.InvalidArgumentForWidthBucketFunction("lower bound cannot equal upper bound")
    ascending = low < high
    if (operand < low) if ascending else (operand > low):
        return 0
    if (operand >= high) if ascending else (operand <= high):
        if count == _INT32_MAX:
            raise errors.NumericValueOutOfRange("integer out of range")
        return count + 1
    offset = UNBOUNDED.subtract(operand, low) if ascending else UNBOUNDED.subtract(low, operand)
    width = UNBOUNDED.subtract(high, low) if ascending else UNBOUNDED.subtract(low, high)
    # PostgreSQL 15 divides with select_div_scale's rounding before taking the floor.
    scaled = UNBOUNDED.multiply(offset, count)
    quotient = _quotient(scaled, width, _div_scale(scaled, width), bounded=False)
    return int(quotient.to_integral_value(ROUND_FLOOR, UNBOUNDED)) + 1


# --- roots, exponentials, logarithms ------------------------------------------
#
# exp_var and ln_var below follow numeric.c's algorithms step by step, rounding
# where it rounds: their last digits are then PostgreSQL's even where the
# correctly rounded value differs (numeric.c drops Taylor terms below its
# working scale, which decides results that lie within them of a halfway point).

def sqrt(value: Decimal) -> Decimal:
    """sqrt(): at least 16 significant digits, at least the argument's dscale."""
    if not value.is_finite():
        if value is NEG_INF:
            raise _negative_sqrt()
        return value
    if value < 0:
        raise _negative_sqrt()
    result_weight = 2 * _weight(value) + 1  # (weight + 1) * DEC_DIGITS / 2 - 1
    return _sqrt_var(value, _clamp_scale(max(MIN_SIG_DIGITS - result_weight, _dscale(value))))


def _sqrt_var(value: Decimal, scale: int) -> Decimal:
    """The square root of ``value`` (>= 0) rounded half up at ``scale`` (which may
    be negative), exactly: a root correct to two more digits can round to the
    wrong side of a halfway point only, which squaring the halfway points detects."""
    digits = value.adjusted() // 2 + scale + 3  # the root is below 10**(adjusted//2 + 1)
    if not value or digits <= 0:
        return _zero(scale) if scale >= 0 else ZERO
    quantum = _quantum(scale)
    result = _precise(digits).sqrt(value).quantize(quantum, ROUND_HALF_UP, UNBOUNDED)
    half = UNBOUNDED.scaleb(_HALF, -scale)
    low = UNBOUNDED.subtract(result, half)
    if low > 0 and UNBOUNDED.multiply(low, low) > value:
        return UNBOUNDED.subtract(result, quantum)
    high = UNBOUNDED.add(result, half)
    if UNBOUNDED.multiply(high, high) <= value:
        return UNBOUNDED.add(result, quantum)
    return result


@lru_cache(maxsize=256)
def _precise(digits: int) -> Context:
    return Context(prec=digits, rounding=ROUND_HALF_EVEN, Emax=10 * _WIDEST, Emin=-10 * _WIDEST,
                   traps=[InvalidOperation])


def _weight(value: Decimal) -> int:
    """numeric.c's weight: the position of the first base-10000 digit (0 for zero)."""
    return value.adjusted() // _DEC_DIGITS if value else 0


def _mul_var(a: Decimal, b: Decimal, scale: int) -> Decimal:
    """mul_var: the product rounded at ``scale``, for intermediate results (which
    numeric.c lets exceed numeric's range)."""
    return UNBOUNDED.multiply(a, b).quantize(_quantum(scale), ROUND_HALF_UP, UNBOUNDED)


def exp(value: Decimal) -> Decimal:
    """exp(): at least 16 significant digits, at least the argument's dscale."""
    if not value.is_finite():
        return ZERO if value is NEG_INF else value
    estimate = float(value) * _LOG10_E  # decimal weight of the result
    estimate = min(max(estimate, -MAX_RESULT_SCALE), MAX_RESULT_SCALE)
    return _exp_var(value, _clamp_scale(max(MIN_SIG_DIGITS - int(estimate), _dscale(value))))


def _exp_var(value: Decimal, scale: int) -> Decimal:
    """e ** value at ``scale``: halve the argument into [-0.01, 0.01], sum the
    Taylor series, square back; overflows from 6000 on, like numeric.c."""
    approximate = float(value)
    if abs(approximate) >= MAX_RESULT_SCALE * 3:
        if approximate > 0:
            raise _overflow()
        return _zero(scale)
    dweight = int(approximate * _LOG10_E)
    halvings = 0
    while abs(approximate) > 0.01:
        halvings += 1
        approximate /= 2
    if halvings:
        value = _quotient(value, Decimal(1 << halvings), _dscale(value) + halvings)
    significant = max(1 + dweight + scale + int(halvings * _LOG10_2), 0) + 8
    working = significant - 1
    result = _ADD(ONE, value)
    term = _quotient(_mul_var(value, value, working), _TWO, working)
    n = 2
    while term:
        result = _ADD(result, term)
        n += 1
        term = _quotient(_mul_var(term, value, working), Decimal(n), working)
    for _ in range(halvings):
        working = max(significant - _weight(result) * 2 * _DEC_DIGITS, 0)
        result = _mul_var(result, result, working)
    return _rescale(result, scale)


def ln(value: Decimal) -> Decimal:
    """ln(): at least 16 significant digits, at least the argument's dscale."""
    if not value.is_finite():
        if value is NEG_INF:
            raise _negative_log()
        return value
    _check_log_argument(value)
    estimate = _estimate_ln_dweight(value)
    return _ln_var(value, _clamp_scale(max(MIN_SIG_DIGITS - estimate, _dscale(value))))


def _ln_var(value: Decimal, scale: int) -> Decimal:
    """ln(value) (value > 0) at ``scale``: square roots bring the argument into
    (0.9, 1.1), then the series of 2 * atanh((x - 1) / (x + 1))."""
    factor = _TWO
    roots = 0
    while value <= _POINT_NINE or value >= _ONE_POINT_ONE:
        value = _sqrt_var(value, scale - 2 * _weight(value) + 8)
        factor = _ADD(factor, factor)
        roots += 1
    working = scale + int((roots + 1) * _LOG10_2) + 8
    result = _quotient(_SUB(value, ONE), _ADD(value, ONE), working)
    power = result
    square = _mul_var(result, result, working)
    n = 1
    while True:
        n += 2
        power = _mul_var(power, square, working)
        term = _quotient(power, Decimal(n), working)
        if not term:
            break
        result = _ADD(result, term)
        if _weight(term) < _weight(result) - working * 2 // _DEC_DIGITS:
            break
    return _mul_var(result, factor, scale)


def _check_log_argument(value: Decimal) -> None:
    if not value:
        raise errors.InvalidArgumentForLogarithm("cannot take logarithm of zero")
    if value < 0:
        raise _negative_log()


def _estimate_ln_dweight(value: Decimal) -> int:
    """estimate_ln_dweight: numeric.c's guess at the decimal weight of ln(value)."""
    if value <= 0:
        return 0
    if _POINT_NINE <= value <= _ONE_POINT_ONE:
        # ln(1 + x) ~= x
        difference = _SUB(value, ONE)
        return difference.adjusted() if difference else 0
    weight = _weight(value)
    top = _EXACT.scaleb(value, -_DEC_DIGITS * weight)
    if top == int(top):  # a single base-10000 digit
        digits, dweight = int(top), _DEC_DIGITS * weight
    else:  # the first two
        digits = int(_EXACT.scaleb(value, _DEC_DIGITS - _DEC_DIGITS * weight))
        dweight = _DEC_DIGITS * weight - _DEC_DIGITS
    return int(math.log10(abs(math.log(digits) + dweight * _LN_10)))


def log10(value: Decimal) -> Decimal:
    """log(x) and log10(x): PostgreSQL defines both as log(10, x)."""
    return log(_TEN, value)


def log(base: Decimal, value: Decimal) -> Decimal:
    """log(b, x): ln(x) / ln(b) with log_var's scales."""
    if not (base.is_finite() and value.is_finite()):
        return _log_special(base, value)
    _check_log_argument(base)
    _check_log_argument(value)
    base_estimate = _estimate_ln_dweight(base)
    value_estimate = _estimate_ln_dweight(value)
    estimate = value_estimate - base_estimate
    result_scale = _clamp_scale(max(MIN_SIG_DIGITS - estimate, _dscale(base), _dscale(value)))
    ln_base = _ln_var(base, max(result_scale + estimate - base_estimate + 8, 0))
    ln_value = _ln_var(value, max(result_scale + estimate - value_estimate + 8, 0))
    if not ln_base:
        raise _division_by_zero()
    return _quotient(ln_value, ln_base, result_scale)


def _log_special(base: Decimal, value: Decimal) -> Decimal:
    if base.is_nan() or value.is_nan():
        return NAN
    if base.is_signed() or value.is_signed():
        raise _negative_log()
    if not base or not value:
        raise errors.InvalidArgumentForLogarithm("cannot take logarithm of zero")
    if base.is_infinite():
        return NAN if value.is_infinite() else ZERO
    return POS_INF


# --- power --------------------------------------------------------------------

def power(base: Decimal, exponent: Decimal) -> Decimal:
    """The ^ operator and power(): integer exponents by multiplication, others as
    exp(exponent * ln(base)), with power_var's scales."""
    if base.is_nan():
        return ONE if exponent.is_finite() and not exponent else NAN
    if exponent.is_nan():
        return ONE if base.is_finite() and base == ONE else NAN
    if not base and exponent < 0:
        raise errors.InvalidArgumentForPowerFunction(
            "zero raised to a negative power is undefined")
    if not (base.is_finite() and exponent.is_finite()):
        return _power_special(base, exponent)
    integral = exponent == _EXACT.to_integral_value(exponent)
    if integral and _INT32_MIN <= exponent <= _INT32_MAX:
        return _power_int(base, int(exponent),
                          _clamp_scale(max(MIN_SIG_DIGITS, _dscale(base))))
    if not base:
        return _zero(MIN_SIG_DIGITS)
    negative = False
    if base < 0:
        if not integral:
            raise _complex_power()
        negative = _is_odd(exponent)
        base = base.copy_abs()
    result = _power_var(base, exponent)
    return result.copy_negate() if negative and result else result


def _complex_power() -> errors.InvalidArgumentForPowerFunction:
    return errors.InvalidArgumentForPowerFunction(
        "a negative number raised to a non-integer power yields a complex result")


def _is_odd(integral: Decimal) -> bool:
    return bool(_EXACT.remainder(integral, _TWO))


def _power_special(base: Decimal, exponent: Decimal) -> Decimal:
    """POSIX pow() when either operand is infinite (neither is NaN)."""
    if exponent.is_finite() and not exponent:
        return ONE
    if exponent.is_infinite():
        if base.is_finite():
            if base.copy_abs() == ONE:
                return ONE
            larger = base.copy_abs() > ONE
        else:
            larger = True
        return POS_INF if larger != exponent.is_signed() else ZERO
    if base is POS_INF:
        return ZERO if exponent < 0 else POS_INF
    # -Infinity ^ finite
    if exponent != _EXACT.to_integral_value(exponent):
        raise _complex_power()
    if exponent < 0:
        return ZERO
    return NEG_INF if _is_odd(exponent) else POS_INF


def _power_int(base: Decimal, exponent: int, scale: int) -> Decimal:
    """power_var_int: ``base ** exponent`` rounded at ``scale``."""
    if exponent == 0:
        return _rescale(ONE, scale)
    if exponent == 1:
        return _rescale(base, scale)
    if exponent == -1:
        return _quotient(ONE, base, scale)
    if exponent == 2:
        try:
            return _rescale(_EXACT.multiply(base, base), scale)
        except Overflow:
            raise _overflow() from None
    if not base:
        return _zero(scale)
    magnitude = base.copy_abs()
    estimate = exponent * (magnitude.adjusted() + math.log10(
        float(_EXACT.scaleb(magnitude, -magnitude.adjusted()))))
    if estimate > MAX_ADJUSTED + 2:
        raise _overflow()
    if estimate < -scale - 2:
        return _zero(scale)
    return _correctly_rounded(lambda context: context.power(base, exponent), scale,
                              math.floor(estimate))


def _power_var(base: Decimal, exponent: Decimal) -> Decimal:
    """power_var for base > 0 and a non-integer (or huge) exponent."""
    ln_estimate = _estimate_ln_dweight(base)
    # A first, low-precision exp * ln(base) chooses the result scale.
    working = max(8 - ln_estimate, 0)
    approximate = float(_mul_var(_ln_var(base, working), exponent, working))
    if abs(approximate) > MAX_RESULT_SCALE * 3.01:
        if approximate > 0:
            raise _overflow()
        return _zero(MAX_DISPLAY_SCALE)
    weight = int(approximate * _LOG10_E)
    result_scale = _clamp_scale(max(MIN_SIG_DIGITS - weight, _dscale(base), _dscale(exponent)))
    working = max(max(result_scale + weight, 0) - ln_estimate + 8, 0)
    return _exp_var(_mul_var(_ln_var(base, working), exponent, working), result_scale)


def _correctly_rounded(compute: Callable[[Context], Decimal], scale: int,
                       estimate: int) -> Decimal:
    """``compute`` correctly rounded half up at ``scale``.

    ``compute`` rounds to the working precision (``_GUARD`` digits beyond
    ``scale``, more if ``estimate``, the expected decimal weight, was low). Rounding
    that again is wrong only when the first rounding landed exactly on a halfway
    point: then the digits are redone with more precision (a result that is
    exactly halfway rounds up).
    """
    digits = max(estimate + scale + _GUARD, _GUARD)
    retries = 0
    while True:
        context = Context(prec=digits, rounding=ROUND_HALF_EVEN, Emax=10 * _WIDEST,
                          Emin=-10 * _WIDEST, traps=[])
        result = compute(context)
        needed = result.adjusted() + scale + _GUARD
        if result and needed > digits:
            digits = needed
        elif context.flags[Inexact] and retries < 3 and _is_halfway(result, scale):
            digits, retries = 2 * digits, retries + 1
        else:
            return _rescale(result, scale)


def _is_halfway(value: Decimal, scale: int) -> bool:
    """Whether ``value`` lies exactly halfway between two multiples of 10**-scale."""
    return _EXACT.remainder(_EXACT.scaleb(value, scale), ONE).copy_abs() == _HALF


# --- aggregates ---------------------------------------------------------------

def variance(count: int, total: Decimal, squares: Decimal, scale: int, *, sample: bool,
             root: bool) -> Decimal:
    """numeric_stddev_internal for ``count`` finite values (more than one for a
    sample) with the exact sum ``total``, the exact sum of squares ``squares`` and
    ``scale`` the largest dscale among them: (N * squares - total**2) / (N * (N - 1))
    (or N * N) at select_div_scale's scale, its square root at the same scale."""
    n = Decimal(count)
    total = total.quantize(_quantum(scale), ROUND_HALF_UP, UNBOUNDED)
    numerator = UNBOUNDED.subtract(UNBOUNDED.multiply(n, squares),
                                   UNBOUNDED.multiply(total, total))
    if numerator <= 0:  # zero, or negative from rounding in numeric.c
        return ZERO
    numerator = numerator.quantize(_quantum(2 * scale), ROUND_HALF_UP, UNBOUNDED)
    denominator = UNBOUNDED.multiply(n, UNBOUNDED.subtract(n, ONE) if sample else n)
    result_scale = _div_scale(numerator, denominator)
    result = _quotient(numerator, denominator, result_scale, bounded=not root)
    return _sqrt_var(result, result_scale) if root else result
