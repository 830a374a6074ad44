"""COPY FROM's text and CSV data cut into fields, as bytes, the way
PostgreSQL's copyfromparse.c cuts them.

A chunk of whole lines is read one of two ways. ``FieldReader.columns``
takes the common chunk a column at a time with splits, slices and
comparisons that run in C; it refuses (returns None for) a chunk with a
line of another width, and its caller refuses chunks with carriage
returns, escaped line ends, the end marker or (CSV) quotes. ``FieldReader.lines`` and ``fields``
read line by line: they are the reference, take every chunk, and let the
caller name the line of an error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import repeat
from typing import Final

from executor.codecs.base import decode_utf8

Field = bytes | None
"""A field's bytes, escapes resolved; None for NULL."""

_BACKSLASH: Final = b"\\"
_ESCAPE: Final = re.compile(rb"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.|\Z)", re.DOTALL)
_CONTROLS: Final = {b"b": b"\b", b"f": b"\f", b"n": b"\n", b"r": b"\r", b"t": b"\t",
                    b"v": b"\v"}
_OCTAL_DIGITS: Final = b"01234567"


def _escaped(match: re.Match[bytes]) -> bytes:
    token = match.group(1)
    if token[:1] == b"x" and len(token) > 1:
        return bytes((int(token[1:], 16),))
    if token[:1] and token[0] in _OCTAL_DIGITS:
        return bytes((int(token, 8) & 0xFF,))
    return _CONTROLS.get(token, token)


def unescape(field: bytes) -> bytes:
    """A text-format field's backslash escapes resolved to the bytes they
    stand for (a backslash ending the data stands for nothing); the result
    must still be UTF-8 without NUL, as pg_verifymbstr checks it."""
    value = _ESCAPE.sub(_escaped, field)
    if not value.isascii() or 0 in value:
        decode_utf8(value)
    return value


def _rejoined(parts: list[bytes], separator: bytes) -> list[bytes]:
    """``parts`` of a split on ``separator``, those whose separator a
    backslash escaped joined again (an odd run of backslashes before it)."""
    joined: list[bytes] = []
    escaped = False
    for part in parts:
        if escaped:
            part = joined.pop() + separator + part
        joined.append(part)
        escaped = (len(part) - len(part.rstrip(_BACKSLASH))) % 2 == 1
    return joined


class FieldReader:
    """Fields of one COPY's text or CSV data (its delimiter and NULL string)."""

    def __init__(self, delimiter: str, null: str, width: int,
                 keep_null: Sequence[bool] = ()) -> None:
        self.delimiter = delimiter.encode()
        self.null = null.encode()
        self.width = width
        self.keep_null = list(keep_null) or [False] * width
        """CSV's FORCE_NOT_NULL: the columns whose NULL string is a value."""
        self._escaped_delimiter = _BACKSLASH + self.delimiter

    # --- line by line: the reference ---------------------------------------

    @staticmethod
    def lines(chunk: bytes) -> list[bytes]:
        """The text format's lines in ``chunk`` (a newline after a backslash
        belongs to its line, escaped); after a final newline, an empty one."""
        lines = chunk.split(b"\n")
        return _rejoined(lines, b"\n") if b"\\\n" in chunk else lines

    def fields(self, line: bytes) -> list[Field]:
        """The text format's fields of one line (NULL before escapes are
        resolved, as PostgreSQL compares it)."""
        parts = line.split(self.delimiter)
        if self._escaped_delimiter in line:
            parts = _rejoined(parts, self.delimiter)
        null = self.null
        return [None if part == null else unescape(part) if _BACKSLASH in part else part
                for part in parts]

    # --- a chunk at a time -------------------------------------------------------

    def columns(self, chunk: bytes, csv: bool) -> tuple[list[Sequence[Field]], int] | None:
        """The fields of ``chunk``'s lines column by column, and how many
        lines there are; None when a line has another number of fields, or
        a delimiter may be escaped. ``chunk`` ends with a newline and has no
        carriage return, escaped newline or end marker (for CSV, no quote)."""
        delimiter = self.delimiter
        if not csv and self._escaped_delimiter in chunk:
            return None
        lines = chunk.split(b"\n")
        lines.pop()
        if set(map(bytes.count, lines, repeat(delimiter))) != {self.width - 1}:
            return None
        fields = chunk.replace(b"\n", delimiter).split(delimiter)
        fields.pop()
        width = self.width
        columns: list[Sequence[Field]] = [fields[index::width] for index in range(width)]
        null = self.null
        escapes = not csv and _BACKSLASH in chunk
        for index, column in enumerate(columns):
            if escapes and _BACKSLASH in b"".join(column):  # type: ignore[arg-type]
                columns[index] = [None if field == null else
                                  unescape(field) if _BACKSLASH in field else field
                                  for field in column]  # type: ignore[operator]
            elif null in column and not self.keep_null[index]:
                columns[index] = [None if field == null else field for field in column]
        return columns, len(lines)
