"""Functions that build json and jsonb values: to_json, json_build_object,
json_build_array, row_to_json (and their jsonb forms), json_object.

Storage values do not say their type, so the translator calls
``sqlext_json_build(layout, values...)`` with a constant ``JsonLayout`` that
gives each value's type and what to build; the function for a layout is
made once (per session time zone: timestamps with time zone print in it).
json keeps PostgreSQL's spacing for each function (``{"a" : 1}`` from
json_build_object, ``{"a":1}`` from row_to_json), jsonb is normalised.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.sqltypes import SqlType
from executor import codecs
from executor.functions.declare import Declarations, Function, Runtime
from executor.values.json_text import json_encoder, json_string, key_encoder

FUNCTIONS = Declarations()

_JSONB_IN: Final = codecs.text_decoder(t.JSONB)
_TEXT_ARRAY: Final = SqlType(t.array_of(t.TEXT))

Build = Callable[[Sequence[Any]], Any]


@dataclass(frozen=True, slots=True)
class JsonLayout:
    """What ``sqlext_json_build`` makes of its values."""

    shape: str
    """"value" (to_json), "key" (an object key, a JSON string), "array"
    (json_build_array), "object" (json_build_object: keys and values
    alternate), "row" (row_to_json: the values of the fields ``names``),
    "record" (one record value, a JSON object of the fields ``names``)."""
    types: tuple[tuple[int, int], ...]
    """Each value's (a record's: each field's) type OID and typmod."""
    binary: bool = False
    """Make jsonb (normalised) rather than json."""
    names: tuple[str, ...] = ()
    pretty: bool = False
    """row_to_json(row, true): a line break between fields."""

    def text(self) -> str:
        return json.dumps([self.shape, self.types, self.binary, self.names, self.pretty],
                          separators=(",", ":"), ensure_ascii=False)

    @property
    def function(self) -> str:
        """The PostgreSQL function an error names."""
        prefix = "jsonb" if self.binary else "json"
        return f"{prefix}_build_{self.shape}"


@functools.lru_cache(maxsize=256)
def _builder(text: str, settings: codecs.Settings) -> Build:
    shape, types, binary, names, pretty = json.loads(text)
    layout = JsonLayout(shape, tuple(map(tuple, types)), binary, tuple(names), pretty)
    if shape == "key":
        key = key_encoder(*layout.types[0], settings)
        return lambda values: None if values[0] is None else key(values[0])
    encoders = [json_encoder(oid, typmod, settings) for oid, typmod in layout.types]
    make = _SHAPES[shape](layout, encoders, settings)
    if not binary:
        return make
    return lambda values: _jsonb(make(values))


def _jsonb(text: str | None) -> str | None:
    return None if text is None else _JSONB_IN(text)


def _value(layout: JsonLayout, encoders: list[Callable[[Any], str]],
           settings: codecs.Settings) -> Build:
    encode = encoders[0]
    return lambda values: None if values[0] is None else encode(values[0])


def _encoded(encoders: list[Callable[[Any], str]], values: Sequence[Any]) -> list[str]:
    return ["null" if value is None else encode(value)
            for encode, value in zip(encoders, values, strict=True)]


def _array(layout: JsonLayout, encoders: list[Callable[[Any], str]],
           settings: codecs.Settings) -> Build:
    return lambda values: "[" + ", ".join(_encoded(encoders, values)) + "]"


def _object(layout: JsonLayout, encoders: list[Callable[[Any], str]],
            settings: codecs.Settings) -> Build:
    if len(encoders) % 2:
        def uneven(values: Sequence[Any]) -> str:
            raise errors.InvalidParameterValue(
                "argument list must have even number of elements",
                hint=f"The arguments of {layout.function}() must consist of alternating keys "
                     "and values.")
        return uneven
    keys = [key_encoder(oid, typmod, settings) for oid, typmod in layout.types[::2]]
    separator = ": " if layout.binary else " : "

    def build(values: Sequence[Any]) -> str:
        members = []
        for index, (key, encode) in enumerate(zip(keys, encoders[1::2], strict=True)):
            name, value = values[2 * index], values[2 * index + 1]
            if name is None:
                raise _null_key(layout, 2 * index + 1)
            members.append(key(name) + separator + ("null" if value is None
                                                    else encode(value)))
        return "{" + ", ".join(members) + "}"

    return build


def _null_key(layout: JsonLayout, position: int) -> errors.SqlError:
    if layout.binary:
        return errors.InvalidParameterValue(f"argument {position}: key must not be null")
    return errors.InvalidParameterValue(f"argument {position} cannot be null",
                                        hint="Object keys should be text.")


def _row(layout: JsonLayout, encoders: list[Callable[[Any], str]],
         settings: codecs.Settings) -> Build:
    names = [json_string(name) + ":" for name in layout.names]
    separator = ",\n " if layout.pretty else ","
    return lambda values: "{" + separator.join(
        name + value for name, value in zip(names, _encoded(encoders, values),
                                            strict=True)) + "}"


def _record(layout: JsonLayout, encoders: list[Callable[[Any], str]],
            settings: codecs.Settings) -> Build:
    row = _row(layout, encoders, settings)

    def build(values: Sequence[Any]) -> Any:
        if values[0] is None:
            return None
        fields = json.loads(values[0])
        return row([fields.get(name) for name in layout.names])

    return build


_SHAPES: Final[dict[str, Callable[[JsonLayout, list[Callable[[Any], str]], codecs.Settings],
                                  Build]]] = {
    "value": _value, "array": _array, "object": _object, "row": _row, "record": _record}


@FUNCTIONS.internal("sqlext_json_build", -1, runtime=True)
def _json_build(runtime: Runtime) -> Function:
    def build(layout: str, *values: Any) -> Any:
        return _builder(layout, runtime.codec_settings())(values)
    return build


def _pairs(keys: Any, values: Any) -> list[tuple[Any, Any]]:
    """json_object's (key, value) pairs: from one array of alternating keys
    and values, or from an array of keys and one of values."""
    if values is None:
        items = json.loads(keys)
        if len(items) % 2:
            raise errors.ArraySubscriptError("array must have even number of elements")
        pairs = list(zip(items[::2], items[1::2], strict=True))
    else:
        names, items = json.loads(keys), json.loads(values)
        if len(names) != len(items):
            raise errors.ArraySubscriptError("mismatched array dimensions")
        pairs = list(zip(names, items, strict=True))
    if any(name is None for name, _ in pairs):
        raise errors.NullValueNotAllowed("null value not allowed for object key")
    return pairs


def _object_text(arrays: tuple[Any, ...], separator: str) -> str | None:
    if any(array is None for array in arrays):
        return None
    pairs = _pairs(arrays[0], arrays[1] if len(arrays) > 1 else None)
    return "{" + ", ".join(json_string(name) + separator + (
        "null" if value is None else json_string(value)) for name, value in pairs) + "}"


@FUNCTIONS.scalar("json_object", SqlType(t.JSON), _TEXT_ARRAY, min_args=1, max_args=2)
def _json_object(*arrays: Any) -> Any:
    return _object_text(arrays, " : ")


@FUNCTIONS.scalar("jsonb_object", SqlType(t.JSONB), _TEXT_ARRAY, min_args=1, max_args=2)
def _jsonb_object(*arrays: Any) -> Any:
    return _jsonb(_object_text(arrays, ": "))
