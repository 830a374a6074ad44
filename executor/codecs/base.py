"""Vocabulary shared by the codec modules: settings, the codec record, error helpers.

Every type family module describes its types with ``Codec`` records whose members
build a specialised closure once per column; the per-value functions they return
do no lookups. Errors raised here carry PostgreSQL's SQLSTATEs and messages so
the wire layer can report them unchanged.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from catalog.errors import (
    CharacterNotInRepertoire,
    InvalidBinaryRepresentation,
    InvalidTextRepresentation,
    ProtocolViolation,
    SqlError,
)


@dataclass(frozen=True, slots=True)
class Settings:
    """The session settings that change how values are read or printed."""

    timezone: str = "UTC"
    """Session TimeZone: an IANA name, 'UTC', or an offset such as '+02' / '-05:30'
    (interpreted as PostgreSQL does: a bare number is hours east of UTC, anything
    else follows POSIX, so '-05:30' means five and a half hours *east*)."""
    extra_float_digits: int = 1
    """>= 1 prints floats in their shortest exact form; <= 0 uses %.{15+n}g."""


DEFAULT: Final = Settings()

Decoder = Callable[[str], object]
"""PostgreSQL text input -> storage value."""
BinDecoder = Callable[[bytes], object]
"""PostgreSQL binary input -> storage value."""
Encoder = Callable[[object], bytes]
"""Storage value -> wire bytes (never called with None)."""
ColumnEncoder = Callable[[Sequence[Any]], Any]
"""The values of one column in a chunk of rows (None for NULL) -> an Arrow
array of their wire forms, null where the value is NULL: their bytes as
string or binary, or fixed-width numbers sent in network byte order
(``executor.codecs.columnar``)."""
ColumnDecoder = Callable[[Sequence[bytes | None]], list[object]]
"""The wire values of one parameter in many rows (text ones as UTF-8 bytes,
NULL as None) -> their storage values. It may raise on a value the
per-value decoder would take: the caller then decodes row by row, and that
is the reference (a column decoder is a shortcut for the common forms)."""


@dataclass(frozen=True, slots=True)
class Codec:
    """The factories of one type; each is called once per column. The
    column-wise factories are optional: input ones decode many rows' values
    at once (batches, COPY FROM), output ones encode a chunk of rows' values
    at once; without them a column goes value by value."""

    text_in: Callable[[int, Settings], Decoder]
    text_out: Callable[[int, Settings], Encoder]
    binary_in: Callable[[int, Settings], BinDecoder]
    binary_out: Callable[[int], Encoder]
    text_in_column: Callable[[int, Settings], ColumnDecoder] | None = None
    binary_in_column: Callable[[int, Settings], ColumnDecoder] | None = None
    text_out_column: Callable[[int, Settings], ColumnEncoder] | None = None
    binary_out_column: Callable[[int], ColumnEncoder] | None = None


def each_text(decode: Decoder) -> ColumnDecoder:
    """A column decoder calling a text decoder once per value."""

    def column(values: Sequence[bytes | None]) -> list[object]:
        return [None if value is None else decode(value.decode()) for value in values]

    return column


def repeated_text(decode: Decoder, distinct: int = 4096) -> ColumnDecoder:
    """A column decoder for texts that repeat (dates): each distinct text
    is decoded once, and the first ``distinct`` of them are remembered (the
    decoder is made per type and settings, so a text always means the same)."""
    known: dict[bytes, object] = {}

    def first_time(value: bytes) -> object:
        decoded = decode(value.decode())
        if len(known) < distinct:
            known[value] = decoded
        return decoded

    def column(values: Sequence[bytes | None]) -> list[object]:
        return [None if value is None else known[value] if value in known
                else first_time(value) for value in values]

    return column


def without_nulls(decode: Callable[[Sequence[bytes]], list[object]]) -> ColumnDecoder:
    """A column decoder from ``decode``, which is given the non-NULL values only."""

    def column(values: Sequence[bytes | None]) -> list[object]:
        if None not in values:
            return decode(values)  # type: ignore[arg-type]
        decoded = iter(decode([value for value in values if value is not None]))
        return [None if value is None else next(decoded) for value in values]

    return column


def fixed_width_column(decode: BinDecoder, size: int, code: str) -> ColumnDecoder:
    """Binary values of ``size`` bytes that the struct format ``code``
    reads: a column without NULLs is unpacked in one call."""
    each = each_binary(decode)

    def column(values: Sequence[bytes | None]) -> list[object]:
        unpacked = None if None in values else unpack_column(values, size, code)  # type: ignore[arg-type]
        return each(values) if unpacked is None else list(unpacked)

    return column


def unpack_column(values: Sequence[bytes], size: int, code: str) -> tuple[Any, ...] | None:
    """Binary values all of ``size`` bytes unpacked by the struct format
    ``code`` in one call (None when one has another size)."""
    if set(map(len, values)) != {size}:
        return None
    return struct.unpack(f">{len(values)}{code}", b"".join(values))


def each_binary(decode: BinDecoder) -> ColumnDecoder:
    """A column decoder calling a binary decoder once per value."""

    def column(values: Sequence[bytes | None]) -> list[object]:
        return [None if value is None else decode(value) for value in values]

    return column


def plain(text_in: Decoder, text_out: Encoder, binary_in: BinDecoder, binary_out: Encoder) -> Codec:
    """A codec whose functions depend on neither the typmod nor the settings."""
    return Codec(
        lambda _typmod, _settings: text_in,
        lambda _typmod, _settings: text_out,
        lambda _typmod, _settings: binary_in,
        lambda _typmod: binary_out,
    )


def invalid_syntax(
    type_name: str, text: str, error: type[SqlError] = InvalidTextRepresentation
) -> SqlError:
    return error(f'invalid input syntax for type {type_name}: "{text}"')


def short_data() -> ProtocolViolation:
    # PostgreSQL reports reading past the end of a binary value as a protocol error.
    return ProtocolViolation("insufficient data left in message")


def trailing_data() -> InvalidBinaryRepresentation:
    return InvalidBinaryRepresentation("incorrect binary data format")


def check_size(data: bytes, size: int) -> None:
    if len(data) != size:
        raise short_data() if len(data) < size else trailing_data()


def fallback_text(value: object) -> bytes:
    """Text of a value whose type gives no better rule (bytes print as bytea hex)."""
    if isinstance(value, bytes | bytearray | memoryview):
        return b"\\x" + bytes(value).hex().encode()
    return str(value).encode()


_UTF8_LEAD_LENGTHS: Final = ((0xC0, 1), (0xE0, 2), (0xF0, 3), (0xF8, 4))


def decode_utf8(data: bytes) -> str:
    """Wire bytes -> str, rejecting what PostgreSQL's UTF8 verifier rejects (incl. NUL)."""
    try:
        text = data.decode()
    except UnicodeDecodeError as exc:
        raise _bad_sequence(data, exc.start) from None
    if "\x00" in text:
        raise _bad_sequence(data, data.index(0))
    return text


def _bad_sequence(data: bytes, start: int) -> CharacterNotInRepertoire:
    lead = data[start]
    length = next((n for limit, n in _UTF8_LEAD_LENGTHS if lead < limit), 1)
    shown = " ".join(f"0x{byte:02x}" for byte in data[start : start + length])
    return CharacterNotInRepertoire(f'invalid byte sequence for encoding "UTF8": {shown}')


class Reader:
    """A cursor over one binary value; errors match PostgreSQL's pq_getmsg* checks."""

    __slots__ = ("data", "pos")

    _I32: Final = struct.Struct(">i")
    _U32: Final = struct.Struct(">I")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, size: int) -> bytes:
        end = self.pos + size
        if size < 0 or end > len(self.data):
            raise short_data()
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def _unpack(self, packer: struct.Struct) -> int:
        value: int = packer.unpack(self.take(packer.size))[0]
        return value

    def int32(self) -> int:
        return self._unpack(self._I32)

    def uint32(self) -> int:
        return self._unpack(self._U32)

    def finish(self) -> None:
        if self.pos != len(self.data):
            raise trailing_data()
