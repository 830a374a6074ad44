"""String functions: text and binary strings, quoting (regular expressions are
``regex_functions``)."""

from __future__ import annotations

import base64
import hashlib
import math
import re
from collections.abc import Callable
from typing import Any

from catalog import errors
from catalog import types as t
from catalog.introspection import quote_identifier
from catalog.sqltypes import BOOL, BYTEA, INT4, INT8, TEXT
from executor import codecs
from executor.functions.declare import Declarations, Overload
from executor.functions.math_functions import is_nan
from executor.values.conversions import INT_RANGES

FUNCTIONS = Declarations()

FUNCTIONS.builtin("length", INT4, "length", TEXT, min_args=1, max_args=1, bytea_too=True)
FUNCTIONS.builtin("char_length", INT4, "length", TEXT, min_args=1, max_args=1,
                  names=("character_length",))
FUNCTIONS.builtin("lower", TEXT, "lower", TEXT, min_args=1, max_args=1)
FUNCTIONS.builtin("upper", TEXT, "upper", TEXT, min_args=1, max_args=1)
FUNCTIONS.builtin("replace", TEXT, "replace", TEXT, min_args=3, max_args=3)
FUNCTIONS.builtin("substr", TEXT, "substr", TEXT, INT4, INT4, min_args=2, max_args=3)
FUNCTIONS.builtin("strpos", INT4, "instr", TEXT, TEXT, min_args=2, max_args=2)
FUNCTIONS.builtin("btrim", TEXT, "trim", TEXT, min_args=1, max_args=2)
FUNCTIONS.builtin("ltrim", TEXT, "ltrim", TEXT, min_args=1, max_args=2)
FUNCTIONS.builtin("rtrim", TEXT, "rtrim", TEXT, min_args=1, max_args=2)
FUNCTIONS.builtin("ascii", INT4, "unicode", TEXT, min_args=1, max_args=1)


@FUNCTIONS.scalar("octet_length", INT4, TEXT, min_args=1, max_args=1, bytea_too=True)
def _octet_length(value: Any) -> Any:
    return None if value is None else len(
        value if isinstance(value, bytes) else str(value).encode())


@FUNCTIONS.scalar("concat", TEXT, TEXT, min_args=1, any_args=0)
def _concat(*values: Any) -> str:
    return "".join(str(v) for v in values if v is not None)


@FUNCTIONS.scalar("concat_ws", TEXT, TEXT, min_args=2, any_args=1)
def _concat_ws(separator: Any, *values: Any) -> Any:
    if separator is None:
        return None
    return str(separator).join(str(v) for v in values if v is not None)


@FUNCTIONS.overloaded("bit_length", Overload((TEXT,), INT4), Overload((BYTEA,), INT4))
def _bit_length(value: Any) -> Any:
    return None if value is None else 8 * len(
        value if isinstance(value, bytes) else str(value).encode())


@FUNCTIONS.overloaded("overlay", *(Overload((string, string, INT4, INT4)[:count], string)
                                   for string in (TEXT, BYTEA) for count in (4, 3)))
def _overlay(value: Any, placing: Any, start: Any, *count: Any) -> Any:
    """text_overlay, bytea_overlay: ``placing`` in place of ``count``
    characters (bytes) from ``start``, as many as it has if not given."""
    if value is None or placing is None or start is None or None in count:
        return None
    if start <= 0:
        raise errors.SubstringError("negative substring length not allowed")
    end = start + (count[0] if count else len(placing))
    if end > INT_RANGES[t.INT4][1]:
        raise errors.NumericValueOutOfRange("integer out of range")
    return value[:start - 1] + placing + value[max(end, 1) - 1:]


@FUNCTIONS.scalar("translate", TEXT, TEXT, TEXT, TEXT, min_args=3, max_args=3)
def _translate(value: Any, source: Any, target: Any) -> Any:
    """Each character of ``value`` found in ``source`` becomes the one at the
    same place in ``target``, or goes if ``target`` is shorter."""
    if value is None or source is None or target is None:
        return None
    source, target = str(source), str(target)
    mapping: dict[str, str] = {}
    for index, character in enumerate(source):
        mapping.setdefault(character, target[index:index + 1])
    return "".join(mapping.get(character, character) for character in str(value))


@FUNCTIONS.overloaded("to_hex", Overload((INT4,), TEXT), Overload((INT8,), TEXT), type_args=(0,))
def _to_hex(oid: int, value: Any) -> Any:
    """A negative number as its two's complement of 32 or 64 bits."""
    if value is None:
        return None
    return format(value & (0xFFFFFFFF if oid == t.INT4 else 0xFFFFFFFFFFFFFFFF), "x")


def _sha2(name: str) -> None:
    @FUNCTIONS.overloaded(name, Overload((BYTEA,), BYTEA))
    def digest(value: Any) -> Any:
        return None if value is None else hashlib.new(name, value).digest()


for _bits in (224, 256, 384, 512):
    _sha2(f"sha{_bits}")


@FUNCTIONS.scalar("left", TEXT, TEXT, INT4, min_args=2, max_args=2)
def _left(value: Any, count: Any) -> Any:
    if value is None or count is None:
        return None
    return str(value)[:int(count)]


@FUNCTIONS.scalar("right", TEXT, TEXT, INT4, min_args=2, max_args=2)
def _right(value: Any, count: Any) -> Any:
    if value is None or count is None:
        return None
    count = int(count)
    text = str(value)
    return text[-count:] if count > 0 else text[-count:] if count < 0 else ""


@FUNCTIONS.scalar("repeat", TEXT, TEXT, INT4, min_args=2, max_args=2)
def _repeat(value: Any, count: Any) -> Any:
    return None if value is None or count is None else str(value) * max(int(count), 0)


def _pad(left: bool) -> Callable[..., Any]:
    def pad(value: Any, length: Any, fill: Any = " ") -> Any:
        if value is None or length is None or fill is None:
            return None
        if is_nan(length) or length in (math.inf, -math.inf):
            raise errors.NumericValueOutOfRange("integer out of range")
        text, length = str(value), int(length)
        if length <= len(text):
            return text[:max(length, 0)]
        if not fill:
            return text
        padding = (str(fill) * length)[: length - len(text)]
        return padding + text if left else text + padding
    return pad


FUNCTIONS.scalar("lpad", TEXT, TEXT, INT4, TEXT, min_args=2, max_args=3)(_pad(left=True))
FUNCTIONS.scalar("rpad", TEXT, TEXT, INT4, TEXT, min_args=2, max_args=3)(_pad(left=False))


@FUNCTIONS.scalar("split_part", TEXT, TEXT, TEXT, INT4, min_args=3, max_args=3)
def _split_part(value: Any, delimiter: Any, field: Any) -> Any:
    if value is None or delimiter is None or field is None:
        return None
    if field == 0:
        raise errors.InvalidParameterValue("field position must not be zero")
    parts = str(value).split(str(delimiter)) if delimiter else [str(value)]
    index = field - 1 if field > 0 else len(parts) + field
    return parts[index] if 0 <= index < len(parts) else ""


@FUNCTIONS.scalar("reverse", TEXT, TEXT, min_args=1, max_args=1)
def _reverse(value: Any) -> Any:
    return None if value is None else str(value)[::-1]


@FUNCTIONS.scalar("initcap", TEXT, TEXT, min_args=1, max_args=1)
def _initcap(value: Any) -> Any:
    if value is None:
        return None
    return re.sub(r"[A-Za-z0-9]+", lambda m: m.group(0)[0].upper() + m.group(0)[1:].lower(),
                  str(value))


@FUNCTIONS.scalar("md5", TEXT, TEXT, min_args=1, max_args=1, bytea_too=True)
def _md5(value: Any) -> Any:
    return None if value is None else hashlib.md5(
        value if isinstance(value, bytes) else str(value).encode()).hexdigest()


@FUNCTIONS.scalar("starts_with", BOOL, TEXT, TEXT, min_args=2, max_args=2)
def _starts_with(value: Any, prefix: Any) -> Any:
    return None if value is None or prefix is None else int(str(value).startswith(str(prefix)))


@FUNCTIONS.scalar("chr", TEXT, INT4, min_args=1, max_args=1)
def _chr(code: Any) -> Any:
    """chr(): a character of UTF-8, PostgreSQL's errors for the rest (SQLite's
    char() makes surrogates, which no client can decode, and NULs)."""
    if code is None:
        return None
    if code < 0:
        raise errors.InvalidParameterValue("character number must be positive")
    if code == 0:
        raise errors.ProgramLimitExceeded("null character not permitted")
    if code > 0x10FFFF:
        raise errors.ProgramLimitExceeded(f"requested character too large for encoding: {code}")
    if 0xD800 <= code <= 0xDFFF:
        raise errors.ProgramLimitExceeded(f"requested character not valid for encoding: {code}")
    return chr(code)


@FUNCTIONS.scalar("quote_ident", TEXT, TEXT, min_args=1, max_args=1)
def _quote_ident(value: Any) -> Any:
    return None if value is None else quote_identifier(str(value))


def quote_literal(text: str) -> str:
    """``text`` as a string literal: quotes doubled, and in E'' with its
    backslashes doubled if it has any (quote_literal_cstr)."""
    quoted = text.replace("'", "''")
    if "\\" in quoted:
        return "E'" + quoted.replace("\\", "\\\\") + "'"
    return "'" + quoted + "'"


@FUNCTIONS.scalar("quote_literal", TEXT, TEXT, min_args=1, max_args=1, casts_to_text=True,
                  bytea_too=True)
def _quote_literal(value: Any) -> Any:
    return None if value is None else quote_literal(str(value))


@FUNCTIONS.scalar("quote_nullable", TEXT, TEXT, min_args=1, max_args=1, casts_to_text=True,
                  bytea_too=True)
def _quote_nullable(value: Any) -> str:
    return "NULL" if value is None else quote_literal(str(value))


@FUNCTIONS.scalar("encode", TEXT, BYTEA, TEXT, min_args=2, max_args=2)
def _encode(data: Any, form: Any) -> Any:
    if data is None or form is None:
        return None
    raw = data if isinstance(data, bytes) else str(data).encode()
    if form == "hex":
        return raw.hex()
    if form == "base64":
        return base64.b64encode(raw).decode()
    if form == "escape":
        return "".join(chr(b) if 32 <= b < 127 and b != 92 else f"\\{b:03o}" for b in raw)
    raise errors.InvalidParameterValue(f'unrecognized encoding: "{form}"')


@FUNCTIONS.scalar("decode", BYTEA, TEXT, min_args=2, max_args=2)
def _decode(text: Any, form: Any) -> Any:
    if text is None or form is None:
        return None
    try:
        if form == "hex":
            return bytes.fromhex(str(text))
        if form == "base64":
            return base64.b64decode(str(text), validate=False)
        if form == "escape":
            return codecs.text_decoder(t.BYTEA)(str(text))
    except ValueError as exc:
        raise errors.InvalidParameterValue(f"invalid {form} data: {exc}") from None
    raise errors.InvalidParameterValue(f'unrecognized encoding: "{form}"')
