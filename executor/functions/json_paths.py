"""Reaching into json and jsonb: the operators ->, ->>, #>, #>> and
json_extract_path, jsonb_extract_path and their _text forms.

A step names an object's member, or an array's element by its position
(from 0, negative from the end); a text step on an array must read as an
integer. jsonb is walked as parsed values and printed normalised; json as
its text (``executor.values.json_spans``), so what comes out is written as
it was in the document. A JSON null found is json ``null``, and NULL from
the text forms.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from catalog import types as t
from catalog.sqltypes import TEXT, SqlType
from executor.codecs.arrays import load_array
from executor.codecs.jsontypes import jsonb_text, parse_jsonb
from executor.functions.declare import Declarations, Overload
from executor.values import json_spans

FUNCTIONS = Declarations()

_JSON: Final = SqlType(t.JSON)
_JSONB: Final = SqlType(t.JSONB)
_INTEGER: Final = re.compile(r"[ \t\n\r\v\f]*[+-]?[0-9]+")
_INT4_RANGE: Final = range(-2**31, 2**31)

Step = str | int | None
"""An object key or an array position as a path step gives it (a text step
reads as a position on an array), or NULL, which finds nothing."""


class _Missing:
    """What a path that leads nowhere finds (unlike a JSON null)."""


_MISSING: Final = _Missing()


def _position(step: Step) -> int | None:
    if isinstance(step, int):
        return step
    if step is None or not _INTEGER.fullmatch(step) or int(step) not in _INT4_RANGE:
        return None
    return int(step)


def _jsonb_at(value: Any, steps: Sequence[Step]) -> Any:
    for step in steps:
        if isinstance(value, dict) and isinstance(step, str):
            value = value.get(step, _MISSING)
        elif isinstance(value, list) and (index := _position(step)) is not None and (
                -len(value) <= index < len(value)):
            value = value[index]
        else:
            return _MISSING
    return value


def _json_at(text: str, steps: Sequence[Step]) -> str | None:
    found: str | None = json_spans.trimmed(text)
    for step in steps:
        assert found is not None
        if isinstance(step, str) and json_spans.kind(found) == "object":
            found = json_spans.field(found, step)
        elif (index := _position(step)) is not None:
            found = json_spans.element(found, index)
        else:
            return None
        if found is None:
            return None
    return found


def _jsonb_result(value: Any, scalar: bool) -> Any:
    if value is _MISSING or (scalar and value is None):
        return None
    if scalar and isinstance(value, str):
        return value
    return jsonb_text(value)


def extract(document: Any, steps: Sequence[Step], scalar: bool, binary: bool) -> Any:
    """The value ``steps`` lead to in ``document``: json(b), or with
    ``scalar`` its text (strings unquoted, NULL for null)."""
    if document is None:
        return None
    if binary:
        return _jsonb_result(_jsonb_at(parse_jsonb(document), steps), scalar)
    found = _json_at(document, steps)
    if found is None or not scalar:
        return found
    return json_spans.as_text(found)


@FUNCTIONS.internal("sqlext_json_get", 4)
def _json_get(document: Any, path: Any, scalar: int, binary: int) -> Any:
    """->, ->>: the member (a key, or a SQLite JSON path of keys and
    subscripts) or the element (an integer) of a document."""
    if path is None:
        return None
    steps: list[Step]
    if isinstance(path, int):
        steps = [path]
    elif isinstance(path, str) and path.startswith("$"):
        steps = _path_steps(path)
    else:
        steps = [str(path)]
    return extract(document, steps, bool(scalar), bool(binary))


def _path_steps(path: str) -> list[Step]:
    steps: list[Step] = []
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


@FUNCTIONS.internal("sqlext_json_extract", 4)
def _json_extract(document: Any, path: Any, scalar: int, binary: int) -> Any:
    """#>, #>>: the value a text[] path leads to."""
    if path is None:
        return None
    return extract(document, load_array(path, t.TEXT), bool(scalar), bool(binary))


@FUNCTIONS.overloaded("json_extract_path", Overload((_JSON, TEXT), _JSON, variadic=True))
def _json_extract_path(document: Any, *steps: Any) -> Any:
    return extract(document, steps, scalar=False, binary=False)


@FUNCTIONS.overloaded("json_extract_path_text", Overload((_JSON, TEXT), TEXT, variadic=True))
def _json_extract_path_text(document: Any, *steps: Any) -> Any:
    return extract(document, steps, scalar=True, binary=False)


@FUNCTIONS.overloaded("jsonb_extract_path", Overload((_JSONB, TEXT), _JSONB, variadic=True))
def _jsonb_extract_path(document: Any, *steps: Any) -> Any:
    return extract(document, steps, scalar=False, binary=True)


@FUNCTIONS.overloaded("jsonb_extract_path_text", Overload((_JSONB, TEXT), TEXT, variadic=True))
def _jsonb_extract_path_text(document: Any, *steps: Any) -> Any:
    return extract(document, steps, scalar=True, binary=True)
