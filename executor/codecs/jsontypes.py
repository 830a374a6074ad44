"""json and jsonb: validated like PostgreSQL's parser, jsonb normalised like its output.

json keeps the input text verbatim once it parses. jsonb is stored as the text
PostgreSQL prints for it: object keys ordered by byte length and then bytes, the
last of duplicate keys kept, ", " and ": " separators, numbers as numeric prints
them (exactly, so 1.50 stays 1.50 and 1e2 becomes 100).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Final, NoReturn

from catalog import types
from catalog.errors import (
    InternalError,
    InvalidTextRepresentation,
    ProgramLimitExceeded,
    UntranslatableCharacter,
)
from executor.codecs.base import Codec, decode_utf8, plain, short_data
from executor.codecs.numeric import numeric_text, parse_decimal
from executor.codecs.strings import text_out

_JSONB_VERSION: Final = 1


def _no_constants(name: str) -> NoReturn:
    raise ValueError(f"Token {name!r} is invalid")


def _syntax_error(detail: str) -> InvalidTextRepresentation:
    return InvalidTextRepresentation("invalid input syntax for type json", detail=detail)


def _load(text: str, exact_numbers: bool) -> object:
    try:
        if exact_numbers:
            return json.loads(
                text, parse_constant=_no_constants, parse_float=parse_decimal, parse_int=Decimal
            )
        return json.loads(text, parse_constant=_no_constants)
    except ValueError as exc:
        raise _syntax_error(str(exc)) from None
    except RecursionError:
        raise ProgramLimitExceeded("json value is nested too deeply") from None


def _check_string(text: str) -> None:
    """jsonb rejects \\u escapes that leave a lone surrogate (json keeps the text)."""
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            raise _syntax_error("Unicode low surrogate must follow a high surrogate.") from None


def _json_in(text: str) -> str:
    _load(text, exact_numbers=False)
    return text


def _jsonb_in(text: str) -> str:
    return jsonb_text(parse_jsonb(text))


def parse_jsonb(text: str) -> object:
    """A json or jsonb value as Python values, its numbers exact (``Decimal``)."""
    return _load(text, exact_numbers=True)


def jsonb_text(value: object) -> str:
    """What PostgreSQL prints for the jsonb of a value ``parse_jsonb`` made."""
    if isinstance(value, str):
        _check_string(value)
        if "\x00" in value:
            raise UntranslatableCharacter(
                "unsupported Unicode escape sequence",
                detail="\\u0000 cannot be converted to text.",
            )
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Decimal):
        return numeric_text(value)
    if isinstance(value, dict):
        members = sorted(value.items(), key=lambda item: (len(item[0].encode()), item[0]))
        return "{" + ", ".join(f"{jsonb_text(k)}: {jsonb_text(v)}" for k, v in members) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(map(jsonb_text, value)) + "]"
    if value is None:
        return "null"
    return "true" if value else "false"


def _json_binary_in(data: bytes) -> str:
    return _json_in(decode_utf8(data))


def _jsonb_binary_in(data: bytes) -> str:
    if not data:
        raise short_data()
    if data[0] != _JSONB_VERSION:
        raise InternalError(f"unsupported jsonb version number {data[0]}")
    return _jsonb_in(decode_utf8(data[1:]))


def _jsonb_binary_out(value: object) -> bytes:
    return bytes((_JSONB_VERSION,)) + text_out(value)


CODECS: Final[dict[int, Codec]] = {
    types.JSON: plain(_json_in, text_out, _json_binary_in, text_out),
    types.JSONB: plain(_jsonb_in, text_out, _jsonb_binary_in, _jsonb_binary_out),
}
