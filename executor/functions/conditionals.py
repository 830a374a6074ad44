"""Conditional expressions written as functions: COALESCE, NULLIF, GREATEST
and LEAST; and counting NULLs, num_nulls() and num_nonnulls()."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catalog import types as t
from catalog.sqltypes import INT4
from executor.functions.declare import Declarations, common, first_known
from executor.functions.math_functions import is_nan

FUNCTIONS = Declarations()

FUNCTIONS.builtin("coalesce", common, "coalesce", None, min_args=1, same_kind_args=True)
FUNCTIONS.builtin("nullif", first_known, "nullif", None, min_args=2, max_args=2)


def _extreme(pick: Callable[..., Any]) -> Callable[..., Any]:
    def choose(*values: Any) -> Any:
        present = [v for v in values if v is not None]
        if not present:
            return None
        if any(isinstance(v, int | float) for v in present):
            # Numbers: NaN (stored as the text 'NaN') is above all others.
            return pick(present, key=_nan_last)
        return pick(present)
    return choose


def _nan_last(value: Any) -> tuple[int, Any]:
    return (1, 0) if is_nan(value) else (0, value)


_NUMBERS = frozenset({t.NUMERIC})
"""GREATEST and LEAST of numerics compare keys by value (1.1 = 1.10: the first wins)."""

FUNCTIONS.scalar("greatest", common, None, min_args=1, same_kind_args=True,
                 numeric_target="sqlext_numeric_greatest", numeric_args=_NUMBERS)(_extreme(max))
FUNCTIONS.scalar("least", common, None, min_args=1, same_kind_args=True,
                 numeric_target="sqlext_numeric_least", numeric_args=_NUMBERS)(_extreme(min))


@FUNCTIONS.scalar("num_nulls", INT4, None, min_args=1, any_args=0)
def _num_nulls(*values: Any) -> int:
    return sum(value is None for value in values)


@FUNCTIONS.scalar("num_nonnulls", INT4, None, min_args=1, any_args=0)
def _num_nonnulls(*values: Any) -> int:
    return sum(value is not None for value in values)
