"""Character types, "char", bytea and uuid: values stored as str (bytea as bytes).

varchar(n) and character(n) check their length like PostgreSQL's input functions
(excess trailing spaces are dropped, anything else is an error); character(n)
pads to n. name truncates to 63 bytes. "char" is one byte: storage keeps it as
the one-character string chr(byte) ('' for the zero byte) and text output prints
bytes >= 0x80 as \\ooo, as PostgreSQL 15 does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Final

from catalog import types
from catalog.errors import InvalidParameterValue, StringDataRightTruncation
from executor.codecs.base import (
    BinDecoder,
    Codec,
    ColumnDecoder,
    ColumnEncoder,
    Decoder,
    Settings,
    check_size,
    decode_utf8,
    each_binary,
    each_text,
    fallback_text,
    invalid_syntax,
    plain,
)
from executor.codecs.columnar import each, inferred

NAMEDATALEN: Final = 64


def text_out(value: object) -> bytes:
    """Text output (and binary send) of every str-stored type."""
    return value.encode() if type(value) is str else fallback_text(value)


def text_column(values: Sequence[Any]) -> Any:
    """``text_out`` of a whole column: str values are already what goes out."""
    column = inferred(values, "string")
    return _TEXT_EACH(values) if column is None else column


_TEXT_EACH: Final = each(text_out)


def _text_column_factory(_typmod: int, _settings: Settings) -> ColumnEncoder:
    return text_column


def _identity(text: str) -> str:
    return text


def _sized(sql_name: str, pad: bool) -> Callable[[int, Settings], Decoder]:
    """varchar(n) / character(n) input: trailing spaces may be cut, nothing else."""

    def factory(typmod: int, _settings: Settings) -> Decoder:
        length = types.char_length(typmod)
        if length is None:
            return _identity

        def decode(text: str) -> str:
            if len(text) > length:
                if text[length:].strip(" "):
                    raise StringDataRightTruncation(f"value too long for type {sql_name}({length})")
                return text[:length]
            return text.ljust(length) if pad else text

        return decode

    return factory


def _name_in(text: str) -> str:
    encoded = text.encode()
    if len(encoded) < NAMEDATALEN:
        return text
    return encoded[: NAMEDATALEN - 1].decode(errors="ignore")


def _text_codec(text_in: Callable[[int, Settings], Decoder]) -> Codec:
    def binary_in(typmod: int, settings: Settings) -> BinDecoder:
        decode = text_in(typmod, settings)
        return lambda data: decode(decode_utf8(data))

    def text_in_column(typmod: int, settings: Settings) -> ColumnDecoder:
        decode = text_in(typmod, settings)
        return _utf8_column if decode is _identity else each_text(decode)

    def binary_in_column(typmod: int, settings: Settings) -> ColumnDecoder:
        each = each_binary(binary_in(typmod, settings))
        return _checked_utf8_column(each) if text_in(typmod, settings) is _identity else each

    return Codec(
        text_in,
        lambda _typmod, _settings: text_out,
        binary_in,
        lambda _typmod: text_out,
        text_in_column=text_in_column,
        binary_in_column=binary_in_column,
        text_out_column=_text_column_factory,
        binary_out_column=lambda _typmod: text_column,
    )


def _utf8_column(values: Sequence[bytes | None]) -> list[object]:
    return [None if value is None else value.decode() for value in values]


def _checked_utf8_column(each: ColumnDecoder) -> ColumnDecoder:
    """Strings sent in binary, checked as ``decode_utf8`` checks them (UTF-8
    without NUL) a column at a time; a column with a bad one is decoded
    value by value, which says what is wrong."""

    def column(values: Sequence[bytes | None]) -> list[object]:
        if b"\x00" in b"".join(filter(None, values)):
            return each(values)
        try:
            return _utf8_column(values)
        except UnicodeDecodeError:
            return each(values)

    return column


def _fixed(decode: Decoder) -> Callable[[int, Settings], Decoder]:
    return lambda _typmod, _settings: decode


_OCTAL: Final = re.compile(r"\\[0-7]{3}")


def _char_in(text: str) -> str:
    if len(text) == 4 and _OCTAL.fullmatch(text):
        byte = int(text[1:], 8) & 0xFF  # a C char keeps the low byte of \400..\777
    else:
        byte = text.encode()[0] if text else 0
    return chr(byte) if byte else ""


def _char_byte(value: object) -> int:
    text = value if type(value) is str else str(value)
    if not text:
        return 0
    code = ord(text[0])
    return code if code < 256 else text.encode()[0]


def _char_out(value: object) -> bytes:
    byte = _char_byte(value)
    if byte >= 0x80:
        return b"\\%03o" % byte
    return bytes((byte,)) if byte else b""


def _char_binary_in(data: bytes) -> str:
    check_size(data, 1)
    return chr(data[0]) if data[0] else ""


def _char_binary_out(value: object) -> bytes:
    return bytes((_char_byte(value),))


_HEX_SPACE: Final = " \n\t\r"
_ESCAPE: Final = re.compile(rb"\\(?:([0-3][0-7][0-7])|(\\))")


def _bytea_in(text: str) -> bytes:
    if text.startswith("\\x"):
        return _hex_decode(text, text[2:])
    raw = text.encode()
    if b"\\" not in raw:
        return raw
    pieces = _ESCAPE.split(raw)
    # split() yields literal, octal group, backslash group, literal, ...
    literals, octals, backslashes = pieces[0::3], pieces[1::3], pieces[2::3]
    if any(b"\\" in literal for literal in literals):
        raise invalid_syntax("bytea", text)
    out = bytearray(literals[0])
    for octal, backslash, literal in zip(octals, backslashes, literals[1:], strict=True):
        out += b"\\" if backslash else bytes((int(octal, 8),))
        out += literal
    return bytes(out)


def _hex_decode(text: str, digits: str) -> bytes:
    """hex_decode: pairs of hex digits, whitespace allowed between pairs."""
    if not any(char in digits for char in "\v\f"):
        try:
            return bytes.fromhex(digits)
        except ValueError:
            pass
    out = bytearray()
    position = 0
    while position < len(digits):
        char = digits[position]
        if char in _HEX_SPACE:
            position += 1
            continue
        pair = digits[position : position + 2]
        for digit in pair:
            if digit not in "0123456789abcdefABCDEF":
                raise InvalidParameterValue(f'invalid hexadecimal digit: "{digit}"')
        if len(pair) < 2:
            raise InvalidParameterValue("invalid hexadecimal data: odd number of digits")
        out.append(int(pair, 16))
        position += 2
    return bytes(out)


def _bytea_out(value: object) -> bytes:
    return fallback_text(value if type(value) is bytes else _as_bytes(value))


def _as_bytes(value: object) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    return str(value).encode()


_UUID: Final = re.compile(r"(\{)?((?:[0-9a-f]{4}-?){7}[0-9a-f]{4})(?(1)\})", re.ASCII | re.I)


def _uuid_format(hex_digits: str) -> str:
    h = hex_digits
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _uuid_in(text: str) -> str:
    match = _UUID.fullmatch(text)
    if match is None:
        raise invalid_syntax("uuid", text)
    return _uuid_format(match[2].replace("-", "").lower())


def _uuid_binary_in(data: bytes) -> str:
    check_size(data, 16)
    return _uuid_format(data.hex())


def _uuid_binary_out(value: object) -> bytes:
    return bytes.fromhex(str(value).replace("-", ""))


CODECS: Final[dict[int, Codec]] = {
    types.TEXT: _text_codec(_fixed(_identity)),
    types.UNKNOWN: _text_codec(_fixed(_identity)),
    types.VARCHAR: _text_codec(_sized("character varying", pad=False)),
    types.BPCHAR: _text_codec(_sized("character", pad=True)),
    types.NAME: _text_codec(_fixed(_name_in)),
    types.ACLITEM: _text_codec(_fixed(_identity)),
    types.CHAR: plain(_char_in, _char_out, _char_binary_in, _char_binary_out),
    types.BYTEA: plain(_bytea_in, _bytea_out, _as_bytes, _as_bytes),
    types.UUID: plain(_uuid_in, text_out, _uuid_binary_in, _uuid_binary_out),
}
