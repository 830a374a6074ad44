"""Aggregate and window functions, and what materialized views keep of them.

SQLite's own aggregates do where they mean the same; those of numeric
values (and avg() and the variance family of integers) are exact, on
numeric's storage forms (``numeric_functions``).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any, Final

from catalog import types as t
from catalog.sqltypes import BOOL, FLOAT8, INT4, INT8, INTERVAL, NUMERIC, TEXT, SqlType
from executor.functions import numeric_functions
from executor.functions.declare import Declarations, first_known
from executor.functions.math_functions import float_or_numeric

FUNCTIONS = Declarations()


def _sum(types: list[SqlType]) -> SqlType:
    oid = types[0].oid if types else t.NUMERIC
    if oid in (t.INT2, t.INT4):
        return INT8
    if oid == t.INT8:
        return NUMERIC
    if oid == t.NUMERIC:
        return NUMERIC
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
    element = first_known(types)
    return SqlType(t.array_of(element.oid) or t.array_of(t.TEXT))


class _Deviation:
    """stddev/variance aggregates (Welford's algorithm)."""

    population = False
    root = True

    def __init__(self) -> None:
        self.count = 0
        self.mean = 0.0
        self.m2 = 0.0

    def step(self, value: Any) -> None:
        if value is None or isinstance(value, str):
            return
        self.count += 1
        delta = value - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (value - self.mean)

    def finalize(self) -> Any:
        divisor = self.count if self.population else self.count - 1
        if divisor <= 0:
            return None
        variance = self.m2 / divisor
        return math.sqrt(variance) if self.root else variance


class _StddevSamp(_Deviation):
    pass


class _StddevPop(_Deviation):
    population = True


class _VarSamp(_Deviation):
    root = False


class _VarPop(_Deviation):
    population = True
    root = False


_UNSIGNED_64: Final = (1 << 64) - 1


class _Bitwise(ABC):
    """bit_and, bit_or and bit_xor of integers: NULLs are skipped, and
    without a value the result is NULL. It counts, for each of the 64 bits
    (two's complement), the values that have it set: a value leaving a
    window frame is taken back out (``inverse``)."""

    @staticmethod
    @abstractmethod
    def keeps(found: int, count: int) -> bool:
        """Whether a bit set in ``found`` of ``count`` values is set in the result."""

    def __init__(self) -> None:
        self.count = 0
        self.set_bits = [0] * 64

    def _add(self, value: int, change: int) -> None:
        self.count += change
        bits = value & _UNSIGNED_64
        while bits:
            lowest = bits & -bits
            self.set_bits[lowest.bit_length() - 1] += change
            bits ^= lowest

    def step(self, value: Any) -> None:
        if value is not None:
            self._add(value, 1)

    def inverse(self, value: Any) -> None:
        if value is not None:
            self._add(value, -1)

    def value(self) -> Any:
        if not self.count:
            return None
        result = sum(1 << bit for bit, found in enumerate(self.set_bits)
                     if self.keeps(found, self.count))
        return result - (1 << 64) if result >> 63 else result

    def finalize(self) -> Any:
        return self.value()


class _BitAnd(_Bitwise):
    @staticmethod
    def keeps(found: int, count: int) -> bool:
        return found == count


class _BitOr(_Bitwise):
    @staticmethod
    def keeps(found: int, count: int) -> bool:
        return found > 0


class _BitXor(_Bitwise):
    @staticmethod
    def keeps(found: int, count: int) -> bool:
        return found % 2 == 1


FUNCTIONS.aggregate("count", INT8, "count", None, min_args=0)
_INTEGERS_AND_NUMERIC = frozenset({t.INT2, t.INT4, t.INT8, t.NUMERIC})
"""avg() and the variance family of integers are numeric, as in PostgreSQL."""

FUNCTIONS.aggregate("sum", _sum, "sum", NUMERIC, numeric=numeric_functions.SUM,
                    interval_too=True)
FUNCTIONS.aggregate("avg", _avg, "avg", NUMERIC, numeric=numeric_functions.AVG,
                    interval_too=True, numeric_args=_INTEGERS_AND_NUMERIC)


def _extreme(types: list[SqlType]) -> SqlType:
    """min() and max(): of the argument's type; PostgreSQL takes a cidr as
    the inet it is (there is no min(cidr))."""
    found = first_known(types)
    return SqlType(t.INET) if found.oid == t.CIDR else found


FUNCTIONS.aggregate("min", _extreme, "min", None)
FUNCTIONS.aggregate("max", _extreme, "max", None)
FUNCTIONS.aggregate("bool_and", BOOL, "min", BOOL, names=("every",))
FUNCTIONS.aggregate("bool_or", BOOL, "max", BOOL)
FUNCTIONS.aggregate("bit_and", first_known, _BitAnd, INT8)
FUNCTIONS.aggregate("bit_or", first_known, _BitOr, INT8)
FUNCTIONS.aggregate("bit_xor", first_known, _BitXor, INT8)
FUNCTIONS.aggregate("string_agg", TEXT, "group_concat", TEXT, TEXT, min_args=2, max_args=2)
FUNCTIONS.aggregate("array_agg", _array_of_first, "json_group_array", None, json_args=True)
FUNCTIONS.aggregate("stddev_samp", float_or_numeric, _StddevSamp, FLOAT8, names=("stddev",),
                    numeric=numeric_functions.STDDEV_SAMP, numeric_args=_INTEGERS_AND_NUMERIC)
FUNCTIONS.aggregate("stddev_pop", float_or_numeric, _StddevPop, FLOAT8,
                    numeric=numeric_functions.STDDEV_POP, numeric_args=_INTEGERS_AND_NUMERIC)
FUNCTIONS.aggregate("var_samp", float_or_numeric, _VarSamp, FLOAT8, names=("variance",),
                    numeric=numeric_functions.VAR_SAMP, numeric_args=_INTEGERS_AND_NUMERIC)
FUNCTIONS.aggregate("var_pop", float_or_numeric, _VarPop, FLOAT8,
                    numeric=numeric_functions.VAR_POP, numeric_args=_INTEGERS_AND_NUMERIC)

# window functions: SQLite's
for _name, _result in (("row_number", INT8), ("rank", INT8), ("dense_rank", INT8),
                       ("percent_rank", FLOAT8), ("cume_dist", FLOAT8)):
    FUNCTIONS.builtin(_name, _result, _name, max_args=0, window_only=True)
FUNCTIONS.builtin("ntile", INT4, "ntile", INT4, min_args=1, max_args=1, window_only=True)
FUNCTIONS.builtin("lag", first_known, "lag", None, INT4, None, min_args=1, max_args=3,
                  window_only=True)
FUNCTIONS.builtin("lead", first_known, "lead", None, INT4, None, min_args=1, max_args=3,
                  window_only=True)
FUNCTIONS.builtin("first_value", first_known, "first_value", None, min_args=1, max_args=1,
                  window_only=True)
FUNCTIONS.builtin("last_value", first_known, "last_value", None, min_args=1, max_args=1,
                  window_only=True)
FUNCTIONS.builtin("nth_value", first_known, "nth_value", None, INT4, min_args=2, max_args=2,
                  window_only=True)


# --- what materialized views keep: sums and counts ----------------------------------------

@FUNCTIONS.internal("sqlext_average", 2)
def _average(total: Any, count: Any) -> Any:
    """avg() of other values kept as a sum and a count (SQLite's avg is a double)."""
    return float(total) / count if count else None
