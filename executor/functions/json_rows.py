"""The rows of json's and jsonb's set-returning functions (json_array_elements,
json_each, json_object_keys, their jsonb forms and their _text forms), and of
pg_options_to_table (an options array is stored as a JSON array too).

SQLite's table-valued ``json_each`` makes the rows: the translator reads
``json_each(sqlext_jsonb_rows(function, document))``, and this function
turns the document into a JSON array with one element per row: a string
(an element's or key's text), NULL, or a [key, value] pair. jsonb values
are written normalised; json values as they stand in the document
(``executor.values.json_spans``), duplicate keys included.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from catalog import errors
from executor.codecs.jsontypes import jsonb_text, parse_jsonb
from executor.functions.declare import Declarations
from executor.values import json_spans

FUNCTIONS = Declarations()

Rows = Callable[[str, str], list[Any]]
"""(function name, document) -> the rows."""


def _kind(value: Any) -> str:
    return "an object" if isinstance(value, dict) else "an array" if isinstance(
        value, list) else "a scalar"


def _as_text(value: Any) -> str | None:
    """What the _text forms make of a value: strings without quotes."""
    return value if isinstance(value, str) or value is None else jsonb_text(value)


def _jsonb(rows: Callable[[str, Any, Callable[[Any], Any]], list[Any]],
           text: Callable[[Any], Any]) -> Rows:
    return lambda function, document: rows(function, parse_jsonb(document), text)


def _elements(function: str, document: Any, text: Callable[[Any], Any]) -> list[Any]:
    if not isinstance(document, list):
        raise errors.InvalidParameterValue(
            f"cannot extract elements from {_kind(document)}")
    return [text(item) for item in document]


def _members(function: str, document: Any, text: Callable[[Any], Any]) -> list[Any]:
    if not isinstance(document, dict):
        raise errors.InvalidParameterValue(f"cannot call {function} on a non-object")
    return [[key, text(value)] for key, value in document.items()]


def _keys(function: str, document: Any, text: Callable[[Any], Any]) -> list[Any]:
    if not isinstance(document, dict):
        raise errors.InvalidParameterValue(f"cannot call {function} on {_kind(document)}")
    return list(document)


def _json_kind(document: str) -> str:
    kind = json_spans.kind(document)
    return kind if kind in ("object", "array") else "scalar"


def _json_elements(text: Callable[[str], str | None]) -> Rows:
    def rows(function: str, document: str) -> list[Any]:
        kind = _json_kind(document)
        if kind != "array":
            shown = "a non-array" if kind == "object" else "a scalar"
            raise errors.InvalidParameterValue(f"cannot call {function} on {shown}")
        return [text(item) for item in json_spans.elements(document)]
    return rows


def _json_members(text: Callable[[str], str | None]) -> Rows:
    def rows(function: str, document: str) -> list[Any]:
        kind = _json_kind(document)
        if kind != "object":
            raise errors.InvalidParameterValue(
                "cannot deconstruct an array as an object" if kind == "array"
                else "cannot deconstruct a scalar")
        return [[key, text(value)] for key, value in json_spans.members(document)]
    return rows


def _json_keys(function: str, document: str) -> list[Any]:
    kind = _json_kind(document)
    if kind != "object":
        raise errors.InvalidParameterValue(
            f"cannot call {function} on {'an array' if kind == 'array' else 'a scalar'}")
    return [key for key, _ in json_spans.members(document)]


def _as_written(value: str) -> str:
    return value


def _options(function: str, document: str) -> list[Any]:
    """pg_options_to_table: each ``name=value`` of an options array as a pair."""
    return [list(option.partition("=")[::2]) if "=" in option else [option, None]
            for option in json.loads(document)]


ROWS: Final[dict[str, Rows]] = {
    "jsonb_array_elements": _jsonb(_elements, jsonb_text),
    "jsonb_array_elements_text": _jsonb(_elements, _as_text),
    "jsonb_each": _jsonb(_members, jsonb_text),
    "jsonb_each_text": _jsonb(_members, _as_text),
    "jsonb_object_keys": _jsonb(_keys, jsonb_text),
    "json_array_elements": _json_elements(_as_written),
    "json_array_elements_text": _json_elements(json_spans.as_text),
    "json_each": _json_members(_as_written),
    "json_each_text": _json_members(json_spans.as_text),
    "json_object_keys": _json_keys,
    "pg_options_to_table": _options,
}
"""Function -> the rows of a document."""


@FUNCTIONS.internal("sqlext_jsonb_rows", 2)
def _jsonb_rows(function: str, document: Any) -> Any:
    if document is None:
        return None
    return json.dumps(ROWS[function](function, document), ensure_ascii=False)
