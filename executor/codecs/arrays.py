"""One-dimensional arrays of any codec'd element type.

Storage is a JSON array of the elements' storage values ('[1,2,null]',
'["a","b c",null]') that SQLite's JSON functions can read: bytes are no JSON
value, so a bytea element is kept as the string of its hex text form (backslash,
'x', hex digits); NaN already is the string 'NaN'; float infinities are written
1e999 / -1e999, which both SQLite and Python read back as infinities. Text and
binary forms follow array_in / array_out / array_send / array_recv. Arrays with
more than one dimension, or with lower bounds other than 1, cannot be stored
that way and are rejected as not supported.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Callable
from typing import Final

from catalog import types
from catalog.errors import (
    DatatypeMismatch,
    FeatureNotSupported,
    InvalidBinaryRepresentation,
    InvalidTextRepresentation,
    ProgramLimitExceeded,
)
from executor.codecs.base import BinDecoder, Codec, Decoder, Encoder, Reader, Settings

_SPACE: Final = " \t\n\r\v\f"
_QUOTED: Final = re.compile(r'"((?:[^"\\]|\\.)*)"', re.DOTALL)
_UNQUOTED: Final = re.compile(r'(?:[^,{}"\\]|\\.)*', re.DOTALL)
_ESCAPED: Final = re.compile(r"\\(.)", re.DOTALL)
_NEEDS_QUOTES: Final = re.compile(rb'[{},"\\ \t\n\r\v\f]')
_QUOTED_CHAR: Final = re.compile(rb'(["\\])')
_INF: Final = float("inf")
_MAX_DIMENSIONS: Final = 6
_HEADER: Final = struct.Struct(">iiI")
_DIMENSION: Final = struct.Struct(">ii")
_LENGTH: Final = struct.Struct(">i")


def _malformed(text: str, detail: str) -> InvalidTextRepresentation:
    return InvalidTextRepresentation(f'malformed array literal: "{text}"', detail=detail)


def _multidimensional() -> FeatureNotSupported:
    return FeatureNotSupported("multidimensional arrays are not supported")


def split_array(text: str) -> list[str | None]:
    """array_in's parse of a one-dimensional literal into element texts (None = NULL)."""
    body = text.strip(_SPACE)
    if body.startswith("["):
        raise FeatureNotSupported("array lower bounds other than 1 are not supported")
    if not body.startswith("{"):
        raise _malformed(text, 'Array value must start with "{" or dimension information.')
    elements: list[str | None] = []
    position = 1
    expect_element = True
    closed = False
    while position < len(body):
        char = body[position]
        if char in _SPACE:
            position += 1
            continue
        if closed:
            raise _malformed(text, "Junk after closing right brace.")
        if char == "}":
            if expect_element and elements:
                raise _malformed(text, 'Unexpected "}" character.')
            closed = True
            position += 1
            continue
        if char == "{":
            raise _multidimensional()
        if not expect_element:
            if char != ",":
                raise _malformed(text, "Unexpected array element.")
            expect_element = True
            position += 1
            continue
        if char == ",":
            raise _malformed(text, 'Unexpected "," character.')
        position = _element(text, body, position, elements)
        expect_element = False
    if not closed:
        raise _malformed(text, "Unexpected end of input.")
    return elements


def _element(text: str, body: str, position: int, elements: list[str | None]) -> int:
    """Read one element starting at ``position``; returns the position after it."""
    if body[position] == '"':
        match = _QUOTED.match(body, position)
        if match is None:
            raise _malformed(text, "Unexpected end of input.")
        elements.append(_ESCAPED.sub(r"\1", match[1]))
        return match.end()
    end = _UNQUOTED.match(body, position).end()  # type: ignore[union-attr]
    following = body[end : end + 1]
    if following in ('"', "{"):
        raise _malformed(text, f'Unexpected "{following}" character.')
    if following == "\\":
        raise _malformed(text, "Unexpected end of input.")
    raw = body[position:end]
    # Trailing whitespace is dropped unless escaped (only its first char can be).
    cut = len(raw.rstrip(_SPACE))
    trailing_backslashes = cut - len(raw[:cut].rstrip("\\"))
    if cut < len(raw) and trailing_backslashes % 2:
        cut += 1
    kept = raw[:cut]
    value = _ESCAPED.sub(r"\1", kept)
    elements.append(None if value.upper() == "NULL" and "\\" not in kept else value)
    return end


def _quote(element: bytes) -> bytes:
    if element and not _NEEDS_QUOTES.search(element) and element.upper() != b"NULL":
        return element
    return b'"' + _QUOTED_CHAR.sub(rb"\\\1", element) + b'"'


def _json_item(value: object) -> str:
    if value is None:
        return "null"
    if type(value) is int:
        return str(value)
    if type(value) is float:
        if value != value:
            return '"NaN"'
        return repr(value) if abs(value) != _INF else ("1e999" if value > 0 else "-1e999")
    if isinstance(value, bytes):
        value = "\\x" + value.hex()
    return json.dumps(value, ensure_ascii=False)


def dump_array(values: list[object]) -> str:
    """The storage form of an array holding these storage values."""
    return "[" + ",".join(map(_json_item, values)) + "]"


_SQLITE_INFINITY = re.compile(r"(?<=[\[,])(-?)Inf(?=[\],])")
"""SQLite's json_array() writes infinite floats as Inf and -Inf (not JSON)."""


def load_array(stored: object, element_oid: int) -> list[object]:
    """The elements (storage values) of a stored array."""
    try:
        values = json.loads(stored)  # type: ignore[arg-type]
    except json.JSONDecodeError:
        # An array SQL built (ARRAY['Infinity'::float8]): our own form is 1e999.
        values = json.loads(_SQLITE_INFINITY.sub(r"\g<1>1e999", str(stored)))
    if not isinstance(values, list):
        raise InvalidTextRepresentation(f"stored array is not a JSON array: {stored!r}")
    if any(isinstance(value, list) for value in values):
        raise _multidimensional()
    if element_oid == types.BYTEA:
        return [bytes.fromhex(value[2:]) if isinstance(value, str) else value for value in values]
    return values


def array_codec(element_oid: int, element: Codec) -> Codec:
    """The codec of element_oid[] built on the element type's codec."""

    def text_in(typmod: int, settings: Settings) -> Decoder:
        decode = element.text_in(typmod, settings)

        def decode_array(text: str) -> str:
            return dump_array([None if item is None else decode(item)
                               for item in split_array(text)])

        return decode_array

    def text_out_factory(typmod: int, settings: Settings) -> Encoder:
        encode = element.text_out(typmod, settings)

        def encode_array(value: object) -> bytes:
            items = load_array(value, element_oid)
            body = b",".join(b"NULL" if item is None else _quote(encode(item)) for item in items)
            return b"{" + body + b"}"

        return encode_array

    def binary_in(typmod: int, settings: Settings) -> BinDecoder:
        decode = element.binary_in(typmod, settings)
        return lambda data: dump_array(_receive(data, element_oid, decode))

    def binary_out(typmod: int) -> Encoder:
        encode = element.binary_out(typmod)
        return lambda value: _send(load_array(value, element_oid), element_oid, encode)

    return Codec(text_in, text_out_factory, binary_in, binary_out)


def _send(items: list[object], element_oid: int, encode: Encoder) -> bytes:
    has_null = any(item is None for item in items)
    if not items:
        return _HEADER.pack(0, 0, element_oid)
    parts = [_HEADER.pack(1, int(has_null), element_oid), _DIMENSION.pack(len(items), 1)]
    for item in items:
        if item is None:
            parts.append(_LENGTH.pack(-1))
        else:
            payload = encode(item)
            parts.append(_LENGTH.pack(len(payload)))
            parts.append(payload)
    return b"".join(parts)


def _receive(data: bytes, element_oid: int, decode: Callable[[bytes], object]) -> list[object]:
    reader = Reader(data)
    dimensions = reader.int32()
    flags = reader.int32()
    received_oid = reader.uint32()
    if dimensions < 0:
        raise InvalidBinaryRepresentation(f"invalid number of dimensions: {dimensions}")
    if dimensions > _MAX_DIMENSIONS:
        raise ProgramLimitExceeded(
            f"number of array dimensions ({dimensions}) exceeds the maximum allowed "
            f"({_MAX_DIMENSIONS})"
        )
    if flags not in (0, 1):
        raise InvalidBinaryRepresentation("invalid array flags")
    if received_oid != element_oid:
        raise DatatypeMismatch(
            f"binary data has array element type {received_oid} "
            f"({types.format_type(received_oid)}) instead of expected "
            f"{element_oid} ({types.format_type(element_oid)})"
        )
    if dimensions > 1:
        raise _multidimensional()
    if dimensions == 0:
        reader.finish()
        return []
    count, lower_bound = reader.int32(), reader.int32()
    if lower_bound != 1:
        raise FeatureNotSupported("array lower bounds other than 1 are not supported")
    if count < 0:
        raise InvalidBinaryRepresentation("array size exceeds the maximum allowed")
    items: list[object] = []
    for _ in range(count):
        length = reader.int32()
        if length < -1 or length > len(data) - reader.pos:
            raise InvalidBinaryRepresentation("insufficient data left in message")
        items.append(None if length == -1 else decode(reader.take(length)))
    reader.finish()
    return items
