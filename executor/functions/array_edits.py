"""Array functions that make a new array: array_append, array_prepend,
array_cat, array_remove, array_replace, array_fill and trim_array.

Their parameters are polymorphic as in PostgreSQL (the translator resolves
the types and converts the arguments); arrays are one-dimensional with
lower bound 1, the only ones sqlext stores.
"""

from __future__ import annotations

from typing import Any, Final

from catalog import errors
from catalog.sqltypes import (
    ANYARRAY,
    ANYCOMPATIBLE,
    ANYCOMPATIBLEARRAY,
    ANYELEMENT,
    INT4,
)
from executor.functions.array_functions import INT4_ARRAY, elements, matches, stored
from executor.functions.declare import Declarations, Overload

FUNCTIONS = Declarations()

_MAX_ELEMENTS: Final = 134_217_727
"""MaxArraySize: the most elements an array may have."""
_MAX_DIMENSIONS: Final = 6
_NOT_GIVEN: Final = object()
"""array_fill's lower bounds when the call has none."""


@FUNCTIONS.overloaded("array_append",
                      Overload((ANYCOMPATIBLEARRAY, ANYCOMPATIBLE), ANYCOMPATIBLEARRAY))
def _array_append(array: Any, element: Any) -> Any:
    return stored([*(elements(array) or []), element])


@FUNCTIONS.overloaded("array_prepend",
                      Overload((ANYCOMPATIBLE, ANYCOMPATIBLEARRAY), ANYCOMPATIBLEARRAY))
def _array_prepend(element: Any, array: Any) -> Any:
    return stored([element, *(elements(array) or [])])


@FUNCTIONS.overloaded("array_cat",
                      Overload((ANYCOMPATIBLEARRAY, ANYCOMPATIBLEARRAY), ANYCOMPATIBLEARRAY),
                      sqlite="sqlext_array_concat")  # sqlext_array_cat is ||
def _array_cat(left: Any, right: Any) -> Any:
    if left is None or right is None:
        return right if left is None else left
    return stored([*(elements(left) or []), *(elements(right) or [])])


@FUNCTIONS.overloaded("array_remove",
                      Overload((ANYCOMPATIBLEARRAY, ANYCOMPATIBLE), ANYCOMPATIBLEARRAY),
                      type_args=(0,), sqlite="sqlext_array_remove_of")
def _array_remove(array_oid: int, array: Any, element: Any) -> Any:
    items = elements(array, array_oid)
    if items is None:
        return None
    return stored([item for item, match in zip(items, matches(array_oid, items, element),
                                               strict=True) if not match])


@FUNCTIONS.overloaded("array_replace", Overload(
    (ANYCOMPATIBLEARRAY, ANYCOMPATIBLE, ANYCOMPATIBLE), ANYCOMPATIBLEARRAY), type_args=(0,))
def _array_replace(array_oid: int, array: Any, element: Any, replacement: Any) -> Any:
    items = elements(array, array_oid)
    if items is None:
        return None
    return stored([replacement if match else item for item, match in zip(
        items, matches(array_oid, items, element), strict=True)])


@FUNCTIONS.overloaded("array_fill", Overload((ANYELEMENT, INT4_ARRAY), ANYARRAY),
                      Overload((ANYELEMENT, INT4_ARRAY, INT4_ARRAY), ANYARRAY))
def _array_fill(value: Any, dimensions: Any, lower_bounds: Any = _NOT_GIVEN) -> Any:
    lengths = elements(dimensions)
    lows = [1] if lower_bounds is _NOT_GIVEN else elements(lower_bounds)
    if lengths is None or lows is None:
        raise errors.NullValueNotAllowed("dimension array or low bound array cannot be null")
    if None in lengths:
        raise errors.NullValueNotAllowed("dimension values cannot be null")
    if len(lengths) > _MAX_DIMENSIONS:
        raise errors.ProgramLimitExceeded(
            f"number of array dimensions ({len(lengths)}) exceeds the maximum allowed "
            f"({_MAX_DIMENSIONS})")
    if lower_bounds is not _NOT_GIVEN:
        if None in lows:
            raise errors.NullValueNotAllowed("dimension values cannot be null")
        if len(lows) != len(lengths):
            raise errors.ArraySubscriptError(
                "wrong number of array subscripts",
                detail="Low bound array has different size than dimensions array.")
    total = 1
    for length in lengths:
        total *= length
        if length < 0 or total > _MAX_ELEMENTS:
            raise errors.ProgramLimitExceeded(
                f"array size exceeds the maximum allowed ({_MAX_ELEMENTS})")
    if not lengths or total == 0:
        return "[]"
    if len(lengths) > 1:
        raise errors.FeatureNotSupported("multidimensional arrays are not supported")
    if lows[0] != 1:
        raise errors.FeatureNotSupported("array lower bounds other than 1 are not supported")
    return stored([value] * total)


@FUNCTIONS.overloaded("trim_array", Overload((ANYARRAY, INT4), ANYARRAY))
def _trim_array(array: Any, count: Any) -> Any:
    items = elements(array)
    if items is None or count is None:
        return None
    if not 0 <= count <= len(items):
        raise errors.ArraySubscriptError(
            f"number of elements to trim must be between 0 and {len(items)}")
    return stored(items[:len(items) - count])
