"""numeric in SQLite: the functions the translator calls to convert to and
from numeric's storage forms and to compute with numeric values exactly.

Every numeric a query computes is a key (``executor.codecs.numeric_storage``);
a column of scaled integers is read through ``sqlext_numeric_key`` unless a
rule works on the integers themselves. Arguments may also be integers
(SQLite's own integer values: a bigint operand, a count), which stand for
themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any, Final

from catalog import errors
from catalog import types as t
from executor.codecs import numeric_storage as storage
from executor.codecs.numeric import exact, fit, parse_decimal, stored
from executor.functions.declare import Declarations
from executor.values import numeric_aggregates
from executor.values import numeric_math as nm

FUNCTIONS = Declarations()

_OPERATORS: Final[dict[str, Callable[[Decimal, Decimal], Decimal]]] = {
    "+": nm.add, "-": nm.sub, "*": nm.mul, "/": nm.div, "%": nm.mod, "^": nm.power,
}


@FUNCTIONS.internal("sqlext_numeric_key", 2)
def _key_of_scaled(scaled: Any, scale: int) -> str | None:
    if scaled is None:
        return None
    return storage.key(exact(scaled, t.numeric_typmod(18, scale)))


@FUNCTIONS.internal("sqlext_numeric_of", 3)
def _numeric_of(value: Any, source: int, typmod: int) -> str | None:
    """CAST(value AS numeric[(p,s)]) in an expression: the key."""
    if value is None:
        return None
    if source in (t.FLOAT4, t.FLOAT8):
        number = float(value) if value != "NaN" else float("nan")
        # float8_numeric (float4_numeric): the value printed with 15 (6)
        # significant digits
        digits = 15 if source == t.FLOAT8 else 6
        converted = nm.from_text(f"{number:.{digits}g}") if number == number else nm.NAN
    elif source == t.NUMERIC or type(value) is int:
        converted = exact(value)
    else:
        converted = parse_decimal(str(value))
    return storage.key(fit(converted, typmod))


@FUNCTIONS.internal("sqlext_numeric_store", 2)
def _store(value: Any, typmod: int) -> int | str | None:
    """A numeric (key or integer) stored into a column of ``typmod``."""
    if value is None:
        return None
    return stored(fit(exact(value), typmod), typmod)


@FUNCTIONS.internal("sqlext_numeric_float", 1)
def _to_float(value: Any) -> float | str | None:
    """numeric to double precision (float storage keeps NaN as text)."""
    if value is None:
        return None
    number = exact(value)
    if number.is_nan():
        return "NaN"
    converted = float(number)
    if (converted in (_INFINITY, -_INFINITY) and number.is_finite()) or (
            converted == 0 and not number.is_zero()):
        raise errors.NumericValueOutOfRange(
            f'"{nm.to_text(number)}" is out of range for type double precision')
    return converted


_INFINITY: Final = float("inf")


@FUNCTIONS.internal("sqlext_numeric_op", 3)
def _operator(operator: str, left: Any, right: Any) -> str | None:
    if left is None or right is None:
        return None
    return storage.key(_OPERATORS[operator](exact(left), exact(right)))


@FUNCTIONS.internal("sqlext_numeric_series_step", 3)
def _series_step(start: Any, stop: Any, step: Any) -> str | None:
    """generate_series(numeric...)'s step, once its bounds and it are checked
    as PostgreSQL checks them (NULL: no rows)."""
    if start is None or stop is None or step is None:
        return None
    for name, number in (("start value", exact(start)), ("stop value", exact(stop)),
                         ("step size", exact(step))):
        if number.is_nan():
            raise errors.InvalidParameterValue(f"{name} cannot be NaN")
        if number.is_infinite():
            raise errors.InvalidParameterValue(f"{name} cannot be infinity")
    if exact(step).is_zero():
        raise errors.InvalidParameterValue("step size cannot equal zero")
    return storage.key(exact(step))


@FUNCTIONS.internal("sqlext_numeric_negate", 1)
def _negate(value: Any) -> str | None:
    return None if value is None else storage.key(nm.negate(exact(value)))


class _Aggregate:
    """A numeric aggregate of numeric_aggregates as SQLite calls it."""

    kind: type[numeric_aggregates.NumericSum] = numeric_aggregates.NumericSum

    def __init__(self) -> None:
        self.state = self.kind()

    def step(self, value: Any) -> None:
        if value is not None:
            self.state.step(exact(value))

    def inverse(self, value: Any) -> None:
        if value is not None:
            self.state.inverse(exact(value))

    def value(self) -> str | None:
        result = self.state.finish()
        return None if result is None else storage.key(result)

    finalize = value


def _aggregate_of(kind: type[numeric_aggregates.NumericSum]) -> type[_Aggregate]:
    return type(f"Exact{kind.__name__}", (_Aggregate,), {"kind": kind})


SUM: Final = _aggregate_of(numeric_aggregates.NumericSum)
AVG: Final = _aggregate_of(numeric_aggregates.NumericAvg)
VAR_SAMP: Final = _aggregate_of(numeric_aggregates.VarSamp)
VAR_POP: Final = _aggregate_of(numeric_aggregates.VarPop)
STDDEV_SAMP: Final = _aggregate_of(numeric_aggregates.StddevSamp)
STDDEV_POP: Final = _aggregate_of(numeric_aggregates.StddevPop)


@FUNCTIONS.internal("sqlext_numeric_add", 3)
def _numeric_add(total: Any, value: Any, sign: int) -> Any:
    """A materialized view's numeric sum plus (sign 1) or minus (-1) a value,
    exactly, as sum() adds. NaN and infinities are sticky: once in, the
    total stays that value."""
    if value is None:
        return total
    if total is None:
        return storage.key(exact(value)) if sign > 0 else storage.key(nm.negate(exact(value)))
    current = exact(total)
    if not current.is_finite():
        return total
    added = exact(value)
    if not added.is_finite():
        return storage.key(added) if sign > 0 else total
    return storage.key(nm.add(current, added) if sign > 0 else nm.sub(current, added))


@FUNCTIONS.internal("sqlext_numeric_quotient", 2)
def _numeric_quotient(total: Any, count: Any) -> Any:
    """avg() of numeric values kept as a sum and a count."""
    if not count or total is None:
        return None
    return storage.key(nm.div(exact(total), Decimal(count)))


def _numeric_extreme(pick: Callable[..., Any]) -> Callable[..., Any]:
    """GREATEST / LEAST of keys: by value, the first of equal values."""
    def choose(*keys: Any) -> Any:
        present = [key for key in keys if key is not None]
        return pick(present, key=_by_value) if present else None
    return choose


def _by_value(key: str) -> str:
    return key.rstrip(" ")  # the display scale's padding (numeric_storage)


FUNCTIONS.internal("sqlext_numeric_greatest", -1)(_numeric_extreme(max))
FUNCTIONS.internal("sqlext_numeric_least", -1)(_numeric_extreme(min))


def _scaled_total(high: int | None, low: int | None, greatest: Any, scale: int
                  ) -> Decimal | None:
    """The exact sum of a column of scaled integers from the sums of their
    high and low 32 bits (``numeric_rules.scaled_aggregate``); NaN if the
    column's greatest value is NaN."""
    if high is None or low is None:
        return None
    if greatest == storage.NAN_STORED:
        return nm.NAN
    return Decimal((high << 32) + low).scaleb(-scale)


@FUNCTIONS.internal("sqlext_scaled_sum", 4)
def _scaled_sum(high: Any, low: Any, greatest: Any, scale: int) -> str | None:
    total = _scaled_total(high, low, greatest, scale)
    return None if total is None else storage.key(total)


@FUNCTIONS.internal("sqlext_scaled_avg", 5)
def _scaled_avg(high: Any, low: Any, greatest: Any, count: int, scale: int) -> str | None:
    total = _scaled_total(high, low, greatest, scale)
    if total is None:
        return None
    return storage.key(total if total.is_nan() else nm.div(total, Decimal(count)))
