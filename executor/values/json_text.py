"""Storage values as JSON text, as PostgreSQL's to_json() writes them:
numbers and booleans as JSON numbers and booleans (NaN and the infinities as
strings), json and jsonb embedded, date/time values in ISO 8601
("2024-01-02T03:04:05+00:00", in the given TimeZone, UTC unless said),
arrays as JSON arrays, everything else as the string of its text output.
Object keys (json_build_object, json_object_agg) are always strings."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from catalog import errors
from catalog import types as t
from executor import codecs

ToJson = Callable[[Any], str]
"""A non-NULL storage value -> JSON text."""

_NUMBERS: Final = frozenset({t.INT2, t.INT4, t.INT8, t.FLOAT4, t.FLOAT8, t.NUMERIC})
_NOT_JSON_NUMBERS: Final = frozenset({"NaN", "Infinity", "-Infinity"})
_NOT_KEYS: Final = frozenset({t.JSON, t.JSONB, t.RECORD})
_UTC: Final = codecs.Settings(timezone="UTC")


def json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def json_encoder(oid: int, typmod: int = -1, settings: codecs.Settings = _UTC) -> ToJson:
    """How values of a column of type ``oid`` appear in JSON."""
    element = t.array_element(oid)
    if element:
        return _array(json_encoder(element, -1, settings))
    if oid == t.BOOL:
        return lambda value: "true" if value else "false"
    if oid in (t.JSON, t.JSONB):
        return str
    text_out = codecs.text_encoder(oid, typmod, settings)
    if oid in _NUMBERS:
        def number(value: Any) -> str:
            text = text_out(value).decode()
            return json_string(text) if text in _NOT_JSON_NUMBERS else text
        return number
    if oid in (t.TIMESTAMP, t.TIMESTAMPTZ):
        def moment(value: Any) -> str:
            text = text_out(value).decode()
            if text[:1].isdigit():  # not 'infinity'
                text = text.replace(" ", "T", 1)
                if oid == t.TIMESTAMPTZ and text[-3] in "+-":
                    text += ":00"  # ISO 8601 offsets have minutes: +00:00
            return json_string(text)
        return moment
    if oid == t.BYTEA:
        # arrays keep bytea elements as their text form already
        return lambda value: json_string(value if isinstance(value, str)
                                     else text_out(value).decode())
    return lambda value: json_string(text_out(value).decode())


def key_encoder(oid: int, typmod: int = -1, settings: codecs.Settings = _UTC) -> ToJson:
    """How values of type ``oid`` appear as JSON object keys: as strings
    (numbers and booleans too); arrays, records and JSON cannot be keys."""
    if t.array_element(oid) or oid in _NOT_KEYS:
        def refuse(value: Any) -> str:
            raise errors.InvalidParameterValue(
                "key value must be scalar, not array, composite, or json")
        return refuse
    if oid == t.BOOL:
        return lambda value: '"true"' if value else '"false"'
    if oid in _NUMBERS:
        text_out = codecs.text_encoder(oid, typmod, settings)
        return lambda value: json_string(text_out(value).decode())
    return json_encoder(oid, typmod, settings)


def _array(element: ToJson) -> ToJson:
    def array(value: Any) -> str:
        items = json.loads(value) if isinstance(value, str) else value
        return "[" + ",".join("null" if item is None else element(item)
                              for item in items) + "]"
    return array


def row_encoder(columns: list[tuple[str, int, int]]) -> Callable[[tuple[Any, ...]], str]:
    """A row as a JSON object, given its columns' (name, type OID, typmod)."""
    parts = [(json_string(name) + ":", json_encoder(oid, typmod)) for name, oid, typmod in columns]

    def encode(row: tuple[Any, ...]) -> str:
        return "{" + ",".join(key + ("null" if value is None else convert(value))
                              for (key, convert), value in zip(parts, row, strict=True)) + "}"
    return encode
