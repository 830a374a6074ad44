"""Array functions and operators that read arrays.

Arrays are stored as JSON arrays of their elements' storage values (see
``catalog.types`` and ``executor.codecs.arrays``), so these are operations
on JSON documents. The polymorphic ones (anyarray, anycompatible...) get the
array type the call resolved to first, when they need to know how its
elements compare or print.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.sqltypes import (
    ANYARRAY,
    ANYCOMPATIBLE,
    ANYCOMPATIBLEARRAY,
    INT4,
    TEXT,
    SqlType,
)
from executor import codecs
from executor.codecs.numeric import exact
from executor.codecs.numeric_storage import key
from executor.functions.declare import Declarations, Function, Overload, Runtime
from executor.functions.math_functions import is_nan
from executor.values.conversions import interval_parts

FUNCTIONS = Declarations()

TEXT_ARRAY: Final = SqlType(t.array_of(t.TEXT))
INT4_ARRAY: Final = SqlType(t.array_of(t.INT4))
_DAY_MICROS: Final = 86_400_000_000

Elements = list[Any]


def elements(array: Any, array_oid: int = 0) -> Elements | None:
    """The elements (storage values) of a stored array of type ``array_oid``."""
    return None if array is None else codecs.load_array(array, t.element_of(array_oid))


def stored(items: Elements) -> str:
    """An array of these elements as it is stored."""
    return codecs.dump_array(items)


def _numeric_key(value: Any) -> Any:
    return value.rstrip(" ") if isinstance(value, str) else key(exact(value)).rstrip(" ")


def _interval_span(value: Any) -> Any:
    months, days, micros = interval_parts(value)
    return (months * 30 + days) * _DAY_MICROS + micros


_EQUALITY_KEYS: Final[dict[int, Callable[[Any], Any]]] = {
    t.NUMERIC: _numeric_key,
    t.BPCHAR: lambda value: value.rstrip(" "),
    t.INTERVAL: _interval_span,
}
"""Element types whose equal values may be stored differently: what equal
ones share (numeric keys and character(n) ignore trailing blanks, intervals
compare by their span, 1 month = 30 days)."""


def equality_key(array_oid: int, searched: Any) -> Callable[[Any], Any]:
    """What equal elements of an array of ``array_oid`` have in common, to
    look for ``searched`` (NULL finds NULLs, as IS NOT DISTINCT FROM)."""
    element = t.element_of(array_oid)
    if searched is not None and element == t.JSON:
        raise errors.UndefinedFunction("could not identify an equality operator for type json")
    compare = _EQUALITY_KEYS.get(element)
    if compare is None:
        return lambda value: value
    return lambda value: None if value is None else compare(value)


def matches(array_oid: int, items: Elements, searched: Any) -> list[bool]:
    same = equality_key(array_oid, searched)
    wanted = same(searched)
    return [(item is None) if searched is None else (item is not None and same(item) == wanted)
            for item in items]


@FUNCTIONS.overloaded("array_to_string", Overload((ANYARRAY, TEXT), TEXT),
                      Overload((ANYARRAY, TEXT, TEXT), TEXT), type_args=(0,), runtime=True,
                      sqlite="sqlext_array_to_string_of")
def _array_to_string(runtime: Runtime) -> Function:
    def join(array_oid: int, array: Any, separator: Any, null_text: Any = None) -> Any:
        items = elements(array, array_oid)
        if items is None or separator is None:
            return None
        encode = codecs.text_encoder(t.element_of(array_oid), -1, runtime.codec_settings())
        shown = [null_text if item is None else encode(item).decode() for item in items]
        return str(separator).join(item for item in shown if item is not None)
    return join


@FUNCTIONS.overloaded("array_upper", Overload((ANYARRAY, INT4), INT4), names=("array_length",))
def _array_upper(array: Any, dimension: Any) -> Any:
    items = elements(array)
    if items is None or dimension != 1 or not items:
        return None
    return len(items)


@FUNCTIONS.overloaded("array_lower", Overload((ANYARRAY, INT4), INT4))
def _array_lower(array: Any, dimension: Any) -> Any:
    items = elements(array)
    if items is None or dimension != 1 or not items:
        return None
    return 1


@FUNCTIONS.overloaded("cardinality", Overload((ANYARRAY,), INT4))
def _cardinality(array: Any) -> Any:
    items = elements(array)
    return None if items is None else len(items)


@FUNCTIONS.overloaded("array_ndims", Overload((ANYARRAY,), INT4))
def _array_ndims(array: Any) -> Any:
    items = elements(array)
    return 1 if items else None


@FUNCTIONS.overloaded("array_dims", Overload((ANYARRAY,), TEXT))
def _array_dims(array: Any) -> Any:
    items = elements(array)
    return f"[1:{len(items)}]" if items else None


@FUNCTIONS.overloaded("array_position", Overload((ANYCOMPATIBLEARRAY, ANYCOMPATIBLE), INT4),
                      Overload((ANYCOMPATIBLEARRAY, ANYCOMPATIBLE, INT4), INT4), type_args=(0,),
                      sqlite="sqlext_array_position_of")
def _array_position(array_oid: int, array: Any, element: Any, start: Any = 1) -> Any:
    items = elements(array, array_oid)
    if items is None:
        return None
    if start is None:
        raise errors.NullValueNotAllowed("initial position must not be null")
    first = max(start, 1)
    found = matches(array_oid, items[first - 1:], element)
    return found.index(True) + first if True in found else None


@FUNCTIONS.overloaded("array_positions",
                      Overload((ANYCOMPATIBLEARRAY, ANYCOMPATIBLE), INT4_ARRAY), type_args=(0,))
def _array_positions(array_oid: int, array: Any, element: Any) -> Any:
    items = elements(array, array_oid)
    if items is None:
        return None
    return stored([index for index, match in enumerate(
        matches(array_oid, items, element), start=1) if match])


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
    head = (elements(left) or []) if left_is_array else [left]
    tail = (elements(right) or []) if right_is_array else [right]
    if left is None and right is None:
        return None
    return stored(head + tail)


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


# Calls that views and snapshots stored before these functions got the
# array's type: the elements compare as stored and print as their storage
# values, as they did then.

@FUNCTIONS.internal("sqlext_array_to_string", -1)
def _stored_array_to_string(array: Any, separator: Any, null_text: Any = None) -> Any:
    items = elements(array)
    if items is None or separator is None:
        return None
    shown = [str(v) if v is not None else null_text for v in items]
    return str(separator).join(v for v in shown if v is not None)


@FUNCTIONS.internal("sqlext_array_position", 2)
def _stored_array_position(array: Any, element: Any) -> Any:
    return _array_position(0, array, element)


@FUNCTIONS.internal("sqlext_array_remove", 2)
def _stored_array_remove(array: Any, element: Any) -> Any:
    items = elements(array)
    return None if items is None else stored([item for item in items if item != element])
