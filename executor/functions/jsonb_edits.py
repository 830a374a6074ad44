"""json and jsonb functions that rewrite a document: jsonb_set, jsonb_insert,
json_strip_nulls, jsonb_strip_nulls, and jsonb_pretty (PostgreSQL's
indented output).

Each parses the stored jsonb text (numbers exact), works on Python values
and prints the result as jsonb again; the rules are those of PostgreSQL's
``setPath`` (jsonfuncs.c) and ``JsonbToCStringWorker`` (jsonb.c).
"""

from __future__ import annotations

import enum
import json
import re
from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.sqltypes import BOOL, TEXT, SqlType
from executor.codecs.jsontypes import jsonb_text, parse_jsonb
from executor.functions.declare import Declarations, Overload
from executor.values import json_spans
from executor.values.json_text import json_string

FUNCTIONS = Declarations()

_JSON: Final = SqlType(t.JSON)
_JSONB: Final = SqlType(t.JSONB)
_TEXT_ARRAY: Final = SqlType(t.array_of(t.TEXT))
_INTEGER: Final = re.compile(r"\s*[+-]?[0-9]+")


class _Edit(enum.Enum):
    CREATE = "create"
    """jsonb_set: replace, or add what is missing at the end of the path."""
    REPLACE = "replace"
    """jsonb_set(..., create_missing => false): replace only."""
    BEFORE = "before"
    """jsonb_insert: insert before an array element, or add a missing key."""
    AFTER = "after"
    """jsonb_insert(..., insert_after => true)."""

    @property
    def adds(self) -> bool:
        return self is not _Edit.REPLACE

    @property
    def inserts(self) -> bool:
        return self in (_Edit.BEFORE, _Edit.AFTER)


def _set_path(value: Any, path: list[Any], level: int, new: Any, edit: _Edit) -> Any:
    if path[level] is None:
        raise errors.NullValueNotAllowed(f"path element at position {level + 1} is null")
    if isinstance(value, dict):
        return _set_in_object(value, path, level, new, edit)
    if isinstance(value, list):
        return _set_in_array(value, path, level, new, edit)
    return value  # a scalar inside the path: left as it is


def _set_in_object(value: dict[str, Any], path: list[Any], level: int, new: Any,
                   edit: _Edit) -> dict[str, Any]:
    key, last = path[level], level == len(path) - 1
    if key in value:
        if not last:
            value[key] = _set_path(value[key], path, level + 1, new, edit)
        elif edit.inserts:
            raise errors.InvalidParameterValue(
                "cannot replace existing key",
                hint="Try using the function jsonb_set to replace key value.")
        else:
            value[key] = new
    elif last and edit.adds:
        value[key] = new
    return value


def _index(path: list[Any], level: int) -> int:
    text = path[level]
    if not _INTEGER.fullmatch(text) or not -2**31 <= int(text) < 2**31:
        raise errors.InvalidTextRepresentation(
            f'path element at position {level + 1} is not an integer: "{text}"')
    return int(text)


def _set_in_array(value: list[Any], path: list[Any], level: int, new: Any,
                  edit: _Edit) -> list[Any]:
    index, last, count = _index(path, level), level == len(path) - 1, len(value)
    before_first = index < -count
    if index < 0 and not before_first:
        index += count
    if (before_first or not value) and last and edit.adds:
        return [new, *value]
    if before_first or index >= count:
        return [*value, new] if last and edit.adds else value
    if not last:
        value[index] = _set_path(value[index], path, level + 1, new, edit)
        return value
    old = value[index]
    replacement = [new, old] if edit is _Edit.BEFORE else [old, new] if (
        edit is _Edit.AFTER) else [new]
    return value[:index] + replacement + value[index + 1:]


def _edit(target: str, path: str, new: str, edit: _Edit) -> str:
    document = parse_jsonb(target)
    if not isinstance(document, dict | list):
        raise errors.InvalidParameterValue("cannot set path in scalar")
    if not document and edit is _Edit.REPLACE:
        return target
    steps = json.loads(path)
    if not steps:
        return target
    return jsonb_text(_set_path(document, steps, 0, parse_jsonb(new), edit))


@FUNCTIONS.scalar("jsonb_set", _JSONB, _JSONB, _TEXT_ARRAY, _JSONB, BOOL, min_args=3,
                  max_args=4)
def _jsonb_set(target: Any, path: Any, new: Any, create_missing: Any = 1) -> Any:
    if target is None or path is None or new is None or create_missing is None:
        return None
    return _edit(target, path, new, _Edit.CREATE if create_missing else _Edit.REPLACE)


@FUNCTIONS.scalar("jsonb_insert", _JSONB, _JSONB, _TEXT_ARRAY, _JSONB, BOOL, min_args=3,
                  max_args=4)
def _jsonb_insert(target: Any, path: Any, new: Any, insert_after: Any = 0) -> Any:
    if target is None or path is None or new is None or insert_after is None:
        return None
    return _edit(target, path, new, _Edit.AFTER if insert_after else _Edit.BEFORE)


def _strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _strip_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_strip_nulls(item) for item in value]
    return value


@FUNCTIONS.overloaded("jsonb_strip_nulls", Overload((_JSONB,), _JSONB))
def _jsonb_strip_nulls(document: Any) -> Any:
    return None if document is None else jsonb_text(_strip_nulls(parse_jsonb(document)))


def _strip_json_nulls(text: str) -> str:
    """json_strip_nulls: the document written again without spaces,
    strings escaped anew, numbers as written, duplicate keys kept."""
    kind = json_spans.kind(text)
    if kind == "object":
        return "{" + ",".join(f"{json_string(key)}:{_strip_json_nulls(value)}"
                              for key, value in json_spans.members(text)
                              if json_spans.kind(value) != "null") + "}"
    if kind == "array":
        return "[" + ",".join(map(_strip_json_nulls, json_spans.elements(text))) + "]"
    if kind == "string":
        return json_string(json.loads(text))
    return json_spans.trimmed(text)


@FUNCTIONS.overloaded("json_strip_nulls", Overload((_JSON,), _JSON))
def _json_strip_nulls(document: Any) -> Any:
    return None if document is None else _strip_json_nulls(document)


def _pretty(value: Any, level: int, out: list[str]) -> None:
    """A container at nesting ``level``: its opening bracket is already out."""
    pad = "\n" + "    " * (level + 1)
    items = list(value.items()) if isinstance(value, dict) else [(None, item)
                                                                 for item in value]
    for position, (key, item) in enumerate(items):
        out.append(("," if position else "") + pad)
        if key is not None:
            out.append(jsonb_text(key) + ": ")
        if isinstance(item, dict | list):
            out.append("{" if isinstance(item, dict) else "[")
            _pretty(item, level + 1, out)
        else:
            out.append(jsonb_text(item))
    out.append("\n" + "    " * level + ("}" if isinstance(value, dict) else "]"))


@FUNCTIONS.scalar("jsonb_pretty", TEXT, _JSONB, min_args=1, max_args=1)
def _jsonb_pretty(document: Any) -> Any:
    if document is None:
        return None
    value = parse_jsonb(document)
    if not isinstance(value, dict | list):
        return jsonb_text(value)
    out = ["{" if isinstance(value, dict) else "["]
    _pretty(value, 0, out)
    return "".join(out)
