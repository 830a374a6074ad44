"""Arrays and JSON as SQLite functions.

Arrays are stored as JSON arrays of their elements' storage values and
json/jsonb as JSON text (see catalog/types.py), so both families are
operations on JSON documents: concatenation, containment, path access.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from catalog import errors
from catalog import types as t
from executor import codecs

_JSONB_IN = codecs.text_decoder(t.JSONB)
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean",
               int: "number", float: "number", type(None): "null"}


def _load(document: Any) -> Any:
    if isinstance(document, str):
        try:
            return json.loads(document)
        except ValueError:
            raise errors.InvalidTextRepresentation(
                "invalid input syntax for type json") from None
    return document


def _array(value: Any) -> list[Any] | None:
    if value is None:
        return None
    loaded = _load(value)
    if not isinstance(loaded, list):
        raise errors.DatatypeMismatch("argument is not an array")
    return loaded


def array_cat(left: Any, right: Any, left_is_array: int, right_is_array: int) -> Any:
    """array || array, array || element, element || array (NULL arrays act
    as empty, as in PostgreSQL)."""
    head = (_array(left) or []) if left_is_array else [left]
    tail = (_array(right) or []) if right_is_array else [right]
    if left is None and right is None:
        return None
    return json.dumps(head + tail, separators=(",", ":"))


def array_position(array: Any, element: Any) -> Any:
    items = _array(array)
    if items is None:
        return None
    for index, item in enumerate(items, start=1):
        if item == element and item is not None:
            return index
    return None


def array_remove(array: Any, element: Any) -> Any:
    items = _array(array)
    if items is None:
        return None
    return json.dumps([item for item in items if item != element], separators=(",", ":"))


def string_to_array(text: Any, separator: Any, null_text: Any = None) -> Any:
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


def json_get(document: Any, path: Any, scalar: int, normalize: int) -> Any:
    """->, ->>, #>, #>>: the value at ``path`` (a SQLite JSON path, a key or
    an index), as JSON text or (scalar) as text."""
    if document is None or path is None:
        return None
    value: Any = _load(document)
    steps: list[Any]
    if isinstance(path, int):
        steps = [path]
    elif isinstance(path, str) and path.startswith("$"):
        steps = _path_steps(path)
    else:
        steps = [str(path)]
    for step in steps:
        if isinstance(value, dict) and isinstance(step, str):
            value = value.get(step)
        elif isinstance(value, list) and isinstance(step, int):
            value = value[step] if -len(value) <= step < len(value) else None
        else:
            return None
        if value is None:
            return None
    if scalar:
        if isinstance(value, str):
            return value
        return json.dumps(value, ensure_ascii=False) if not isinstance(value, bool) else (
            "true" if value else "false")
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return _JSONB_IN(text) if normalize else text


def _path_steps(path: str) -> list[Any]:
    steps: list[Any] = []
    position = 1
    while position < len(path):
        if path[position] == ".":
            position += 1
            if path[position] == '"':
                end = path.index('"', position + 1)
                steps.append(path[position + 1:end].replace('\\"', '"'))
                position = end + 1
            else:
                end = position
                while end < len(path) and path[end] not in ".[":
                    end += 1
                steps.append(path[position:end])
                position = end
        elif path[position] == "[":
            end = path.index("]", position)
            steps.append(int(path[position + 1:end]))
            position = end + 1
        else:
            break
    return steps


def _contains(outer: Any, inner: Any, top: bool = True) -> bool:
    """jsonb @> (and array @>): PostgreSQL's containment rules."""
    if isinstance(outer, dict) and isinstance(inner, dict):
        return all(key in outer and _contains(outer[key], value, False)
                   for key, value in inner.items())
    if isinstance(outer, list) and isinstance(inner, list):
        return all(any(_contains(candidate, item, False) for candidate in outer)
                   for item in inner)
    if isinstance(outer, list) and top and not isinstance(inner, dict | list):
        return inner in outer
    return bool(outer == inner)


def json_contains(outer: Any, inner: Any) -> Any:
    if outer is None or inner is None:
        return None
    return int(_contains(_load(outer), _load(inner)))


def json_has_key(document: Any, key: Any) -> Any:
    if document is None or key is None:
        return None
    value = _load(document)
    if isinstance(value, dict):
        return int(str(key) in value)
    if isinstance(value, list):
        return int(str(key) in value)
    return int(value == key)


def json_typeof(document: Any) -> Any:
    if document is None:
        return None
    return _JSON_TYPES.get(type(_load(document)), "unknown")


def encode(data: Any, form: Any) -> Any:
    if data is None or form is None:
        return None
    raw = data if isinstance(data, bytes) else str(data).encode()
    if form == "hex":
        return raw.hex()
    if form == "base64":
        return base64.b64encode(raw).decode()
    if form == "escape":
        return "".join(chr(b) if 32 <= b < 127 and b != 92 else f"\\{b:03o}" for b in raw)
    raise errors.InvalidParameterValue(f'unrecognized encoding: "{form}"')


def decode(text: Any, form: Any) -> Any:
    if text is None or form is None:
        return None
    try:
        if form == "hex":
            return bytes.fromhex(str(text))
        if form == "base64":
            return base64.b64decode(str(text), validate=False)
        if form == "escape":
            return codecs.text_decoder(t.BYTEA)(str(text))
    except ValueError as exc:
        raise errors.InvalidParameterValue(f"invalid {form} data: {exc}") from None
    raise errors.InvalidParameterValue(f'unrecognized encoding: "{form}"')


def json_functions() -> dict[str, tuple[int, Callable[..., Any]]]:
    """name -> (argument count or -1, implementation)."""
    return {
        "sqlext_array_cat": (4, array_cat),
        "sqlext_array_position": (2, array_position),
        "sqlext_array_remove": (2, array_remove),
        "sqlext_string_to_array": (-1, string_to_array),
        "sqlext_json_get": (4, json_get),
        "sqlext_json_contains": (2, json_contains),
        "sqlext_json_has_key": (2, json_has_key),
        "sqlext_json_typeof": (1, json_typeof),
        "sqlext_encode": (2, encode),
        "sqlext_decode": (2, decode),
    }
