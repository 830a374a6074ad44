"""The rows of jsonb's set-returning functions (jsonb_array_elements,
jsonb_each, jsonb_object_keys and their _text forms), and of
pg_options_to_table (an options array is stored as a JSON array too).

SQLite's table-valued ``json_each`` makes the rows: the translator reads
``json_each(sqlext_jsonb_rows(function, document))``, and this function
turns the document into a JSON array with one element per row: a string
(an element's or key's text), NULL, or a [key, value] pair.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from catalog import errors
from executor.codecs.jsontypes import jsonb_text, parse_jsonb
from executor.functions.declare import Declarations

FUNCTIONS = Declarations()


def _kind(value: Any) -> str:
    return "an object" if isinstance(value, dict) else "an array" if isinstance(
        value, list) else "a scalar"


def _as_text(value: Any) -> str | None:
    """What the _text forms make of a value: strings without quotes."""
    return value if isinstance(value, str) or value is None else jsonb_text(value)


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


def _options(function: str, options: Any, text: Callable[[Any], Any]) -> list[Any]:
    """pg_options_to_table: each ``name=value`` of an options array as a pair."""
    return [list(option.partition("=")[::2]) if "=" in option else [option, None]
            for option in options]


ROWS: Final[dict[str, tuple[Callable[[str, Any, Callable[[Any], Any]], list[Any]],
                            Callable[[Any], Any]]]] = {
    "jsonb_array_elements": (_elements, jsonb_text),
    "jsonb_array_elements_text": (_elements, _as_text),
    "jsonb_each": (_members, jsonb_text),
    "jsonb_each_text": (_members, _as_text),
    "jsonb_object_keys": (_keys, jsonb_text),
    "pg_options_to_table": (_options, _as_text),
}
"""Function -> (the rows of a document, how each value is written)."""


@FUNCTIONS.internal("sqlext_jsonb_rows", 2)
def _jsonb_rows(function: str, document: Any) -> Any:
    if document is None:
        return None
    rows, text = ROWS[function]
    return json.dumps(rows(function, parse_jsonb(document), text), ensure_ascii=False)
