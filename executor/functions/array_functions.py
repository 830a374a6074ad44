"""Array functions and operators.

Arrays are stored as JSON arrays of their elements' storage values (see
``catalog.types``), so these are operations on JSON documents.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.sqltypes import INT4, TEXT, SqlType
from executor.functions.declare import Declarations, first_known
from executor.functions.json_functions import load
from executor.functions.math_functions import is_nan

FUNCTIONS = Declarations()

TEXT_ARRAY: Final = SqlType(t.array_of(t.TEXT))


def _array(value: Any) -> list[Any] | None:
    if value is None:
        return None
    loaded = load(value)
    if not isinstance(loaded, list):
        raise errors.DatatypeMismatch("argument is not an array")
    return loaded


@FUNCTIONS.scalar("array_to_string", TEXT, None, TEXT, TEXT, min_args=2, max_args=3)
def _array_to_string(array: Any, separator: Any, null_text: Any = None) -> Any:
    items = _array(array)
    if items is None or separator is None:
        return None
    shown = [str(v) if v is not None else null_text for v in items]
    return str(separator).join(v for v in shown if v is not None)


@FUNCTIONS.scalar("array_upper", INT4, None, INT4, min_args=2, max_args=2,
                  names=("array_length",))
def _array_upper(array: Any, dimension: Any) -> Any:
    items = _array(array)
    if items is None or dimension != 1 or not items:
        return None
    return len(items)


@FUNCTIONS.scalar("array_lower", INT4, None, INT4, min_args=2, max_args=2)
def _array_lower(array: Any, dimension: Any) -> Any:
    items = _array(array)
    if items is None or dimension != 1 or not items:
        return None
    return 1


@FUNCTIONS.scalar("cardinality", INT4, None, min_args=1, max_args=1)
def _cardinality(array: Any) -> Any:
    items = _array(array)
    return None if items is None else len(items)


@FUNCTIONS.scalar("array_position", INT4, None, min_args=2, max_args=2,
                  element_args=True)
def _array_position(array: Any, element: Any) -> Any:
    items = _array(array)
    if items is None:
        return None
    for index, item in enumerate(items, start=1):
        if item == element and item is not None:
            return index
    return None


@FUNCTIONS.scalar("array_remove", first_known, None, min_args=2, max_args=2,
                  element_args=True)
def _array_remove(array: Any, element: Any) -> Any:
    items = _array(array)
    if items is None:
        return None
    return json.dumps([item for item in items if item != element], separators=(",", ":"))


@FUNCTIONS.scalar("string_to_array", TEXT_ARRAY, TEXT, min_args=2, max_args=3)
def _string_to_array(text: Any, separator: Any, null_text: Any = None) -> Any:
    if text is None:
        return None
    if text == "":
        return "[]"
    if separator is None:
        parts = list(str(text))
    elif separator == "":
        parts = [str(text)]  # as PostgreSQL: an empty separator splits nothing
    else:
        parts = str(text).split(str(separator))
    return json.dumps([None if part == null_text else part for part in parts],
                      ensure_ascii=False, separators=(",", ":"))


@FUNCTIONS.internal("sqlext_array_cat", 4)
def _array_cat(left: Any, right: Any, left_is_array: int, right_is_array: int) -> Any:
    """array || array, array || element, element || array (NULL arrays act
    as empty, as in PostgreSQL)."""
    head = (_array(left) or []) if left_is_array else [left]
    tail = (_array(right) or []) if right_is_array else [right]
    if left is None and right is None:
        return None
    return json.dumps(head + tail, separators=(",", ":"))


@FUNCTIONS.internal("sqlext_bytea_json", 1)
def _bytea_json(value: Any) -> Any:
    """A bytea value as arrays hold it in JSON (SQLite's JSON has no BLOBs)."""
    return None if value is None else "\\x" + bytes(value).hex()


@FUNCTIONS.internal("sqlext_json_number", 1)
def _json_number(value: Any) -> str:
    """A number as the JSON text arrays keep it in: infinities as 1e999,
    NaN as the string "NaN"."""
    if value is None:
        return "null"
    if is_nan(value):
        return '"NaN"'
    if isinstance(value, float) and math.isinf(value):
        return "1e999" if value > 0 else "-1e999"
    return repr(value) if isinstance(value, float) else json.dumps(value)
