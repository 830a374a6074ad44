"""json and jsonb functions and operators.

json and jsonb are stored as JSON text (see ``catalog.types``): containment,
key tests and path access work on the parsed document.
"""

from __future__ import annotations

import json
from typing import Any

from catalog import errors
from catalog import types as t
from catalog.sqltypes import INT4, TEXT, SqlType
from executor import codecs
from executor.functions.declare import Declarations

FUNCTIONS = Declarations()

_JSONB_IN = codecs.text_decoder(t.JSONB)
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean",
               int: "number", float: "number", type(None): "null"}


def load(document: Any) -> Any:
    if isinstance(document, str):
        try:
            return json.loads(document)
        except ValueError:
            raise errors.InvalidTextRepresentation(
                "invalid input syntax for type json") from None
    return document


@FUNCTIONS.internal("sqlext_json_get", 4)
def _json_get(document: Any, path: Any, scalar: int, normalize: int) -> Any:
    """->, ->>, #>, #>>: the value at ``path`` (a SQLite JSON path, a key or
    an index), as JSON text or (scalar) as text."""
    if document is None or path is None:
        return None
    value: Any = load(document)
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


@FUNCTIONS.internal("sqlext_json_contains", 2)
def _json_contains(outer: Any, inner: Any) -> Any:
    if outer is None or inner is None:
        return None
    return int(_contains(load(outer), load(inner)))


@FUNCTIONS.internal("sqlext_json_has_key", 2)
def _json_has_key(document: Any, key: Any) -> Any:
    if document is None or key is None:
        return None
    value = load(document)
    if isinstance(value, dict):
        return int(str(key) in value)
    if isinstance(value, list):
        return int(str(key) in value)
    return int(value == key)


@FUNCTIONS.scalar("json_typeof", TEXT, SqlType(t.JSON), min_args=1, max_args=1,
                  sqlite="sqlext_json_typeof")
@FUNCTIONS.scalar("jsonb_typeof", TEXT, SqlType(t.JSONB), min_args=1, max_args=1,
                  sqlite="sqlext_json_typeof")
def _json_typeof(document: Any) -> Any:
    if document is None:
        return None
    return _JSON_TYPES.get(type(load(document)), "unknown")


@FUNCTIONS.scalar("json_array_length", INT4, SqlType(t.JSON), min_args=1, max_args=1,
                  sqlite="sqlext_json_array_length")
@FUNCTIONS.scalar("jsonb_array_length", INT4, SqlType(t.JSONB), min_args=1, max_args=1,
                  sqlite="sqlext_json_array_length")
def _json_array_length(document: Any) -> Any:
    if document is None:
        return None
    value = load(document)
    if isinstance(value, list):
        return len(value)
    kind = "non-array" if isinstance(value, dict) else "scalar"
    raise errors.InvalidParameterValue(f"cannot get array length of a {kind}")
