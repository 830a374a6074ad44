"""json and jsonb functions and operators.

json and jsonb are stored as JSON text (see ``catalog.types``): containment,
key tests, json_typeof and json_array_length work on the parsed document
(path access is ``json_paths``).
"""

from __future__ import annotations

import json
from typing import Any

from catalog import errors
from catalog import types as t
from catalog.sqltypes import INT4, TEXT, SqlType
from executor.functions.declare import Declarations, Overload

FUNCTIONS = Declarations()

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
    return int(_contains(_load(outer), _load(inner)))


@FUNCTIONS.internal("sqlext_json_has_key", 2)
def _json_has_key(document: Any, key: Any) -> Any:
    if document is None or key is None:
        return None
    value = _load(document)
    if isinstance(value, dict):
        return int(str(key) in value)
    if isinstance(value, list):
        return int(str(key) in value)
    return int(value == key)


@FUNCTIONS.overloaded("json_typeof", Overload((SqlType(t.JSON),), TEXT),
                      sqlite="sqlext_json_typeof")
@FUNCTIONS.overloaded("jsonb_typeof", Overload((SqlType(t.JSONB),), TEXT),
                      sqlite="sqlext_json_typeof")
def _json_typeof(document: Any) -> Any:
    if document is None:
        return None
    return _JSON_TYPES.get(type(_load(document)), "unknown")


@FUNCTIONS.overloaded("json_array_length", Overload((SqlType(t.JSON),), INT4),
                      sqlite="sqlext_json_array_length")
@FUNCTIONS.overloaded("jsonb_array_length", Overload((SqlType(t.JSONB),), INT4),
                      sqlite="sqlext_json_array_length")
def _json_array_length(document: Any) -> Any:
    if document is None:
        return None
    value = _load(document)
    if isinstance(value, list):
        return len(value)
    kind = "non-array" if isinstance(value, dict) else "scalar"
    raise errors.InvalidParameterValue(f"cannot get array length of a {kind}")
