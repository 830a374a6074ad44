"""json values as PostgreSQL's json (not jsonb) functions see them: the text
as written. An object's members keep their order and duplicate keys, and a
member's or element's value is its text exactly as it stands in the
document (spacing, escapes and number spelling included), as json_each,
json_array_elements and -> return it.

The document has been validated (json's input function); Python's JSON
decoder finds where each value ends.
"""

from __future__ import annotations

import json
import re
from typing import Final, Literal

from catalog import errors

Kind = Literal["object", "array", "string", "number", "boolean", "null"]

_DECODER: Final = json.JSONDecoder()
_SPACE: Final = re.compile(r"[ \t\n\r]*")
_KINDS: Final[dict[str, Kind]] = {"{": "object", "[": "array", '"': "string", "t": "boolean",
                                  "f": "boolean", "n": "null"}


def _skip(text: str, position: int) -> int:
    return _SPACE.match(text, position).end()  # type: ignore[union-attr]


def kind(text: str) -> Kind:
    """What the document is (json_typeof)."""
    return _KINDS.get(text[_skip(text, 0)], "number")


def _value_end(text: str, start: int) -> int:
    return int(_DECODER.raw_decode(text, start)[1])


def members(text: str) -> list[tuple[str, str]]:
    """An object's (key, value text) pairs, in order, duplicates kept."""
    position = _skip(text, _skip(text, 0) + 1)
    found: list[tuple[str, str]] = []
    while text[position] != "}":
        key, position = _DECODER.raw_decode(text, position)
        start = _skip(text, _skip(text, position) + 1)  # past the colon
        end = _value_end(text, start)
        found.append((key, text[start:end]))
        position = _skip(text, end)
        if text[position] == ",":
            position = _skip(text, position + 1)
    return found


def elements(text: str) -> list[str]:
    """An array's element texts, in order."""
    position = _skip(text, _skip(text, 0) + 1)
    found: list[str] = []
    while text[position] != "]":
        end = _value_end(text, position)
        found.append(text[position:end])
        position = _skip(text, end)
        if text[position] == ",":
            position = _skip(text, position + 1)
    return found


def trimmed(text: str) -> str:
    """The document without the space around it."""
    return text.strip(" \t\n\r")


def field(text: str, key: str) -> str | None:
    """The text of an object's member ``key`` (the last one of duplicates),
    None if it has none or is no object."""
    if kind(text) != "object":
        return None
    return next((value for name, value in reversed(members(text)) if name == key), None)


def element(text: str, index: int) -> str | None:
    """The text of an array's element ``index`` (from 0; negative counts
    from the end), None if there is none or it is no array."""
    if kind(text) != "array":
        return None
    items = elements(text)
    return items[index] if -len(items) <= index < len(items) else None


def as_text(value: str) -> str | None:
    """What the _text functions and ->> make of a value's text: a string
    without its quotes and escapes, NULL for null, other values as written."""
    found = kind(value)
    if found == "null":
        return None
    if found != "string":
        return trimmed(value)
    decoded: str = json.loads(value)
    if "\x00" in decoded:
        raise errors.UntranslatableCharacter("unsupported Unicode escape sequence",
                                             detail="\\u0000 cannot be converted to text.")
    return decoded
