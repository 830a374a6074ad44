"""PostgreSQL's binary COPY format (``FORMAT binary``; asyncpg's
``copy_records_to_table`` writes it): a 19-byte header, then per row a 16-bit
field count and each field as a 32-bit length (-1: NULL) followed by the
value in its type's binary form (what typsend writes and typrecv reads), and
a field count of -1 as the trailer. Only the framing lives here; the values
go through the codecs. Checks and messages are those of PostgreSQL's
copyfromparse.c.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from typing import Final

from catalog import errors

SIGNATURE: Final = b"PGCOPY\n\xff\r\n\x00"
_COUNT: Final = struct.Struct(">h")
_LENGTH: Final = struct.Struct(">i")
_HEADER_FIELDS: Final = struct.Struct(">ii")
_HEADER_SIZE: Final = len(SIGNATURE) + _HEADER_FIELDS.size
HEADER: Final = SIGNATURE + _HEADER_FIELDS.pack(0, 0)
"""No flags (no OIDs), no header extension."""
TRAILER: Final = _COUNT.pack(-1)
_NULL: Final = _LENGTH.pack(-1)
_WITH_OIDS: Final = 1 << 16


def encode_row(values: Sequence[bytes | None]) -> bytes:
    """One row: its field count, then each field's length and bytes."""
    parts = [_COUNT.pack(len(values))]
    for value in values:
        if value is None:
            parts.append(_NULL)
        else:
            parts.append(_LENGTH.pack(len(value)))
            parts.append(value)
    return b"".join(parts)


def copy_out_chunks(rows: Iterable[Sequence[bytes | None]]) -> list[bytes]:
    """The CopyData payloads of COPY ... TO in binary: one per row, the
    header sent with the first one and the trailer on its own, as
    PostgreSQL sends them."""
    chunks = [encode_row(row) for row in rows]
    if chunks:
        chunks[0] = HEADER + chunks[0]
        chunks.append(TRAILER)
    else:
        chunks.append(HEADER + TRAILER)
    return chunks


def _unexpected_eof() -> errors.SqlError:
    return errors.BadCopyFileFormat("unexpected EOF in COPY data")


class BinaryRows:
    """Splits COPY ... FROM data in binary into rows of field values (bytes,
    None for NULL) as it arrives; CopyData messages may split it anywhere."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.buffer = bytearray()
        self.header_read = False
        self.ended = False

    def rows(self, data: bytes, final: bool) -> list[list[bytes | None]]:
        """The rows completed by ``data``; ``final``: no more data follows."""
        if self.ended:
            if data:
                raise errors.BadCopyFileFormat("received copy data after EOF marker")
            return []
        self.buffer += data
        view = memoryview(self.buffer)
        position = 0
        found: list[list[bytes | None]] = []
        try:
            if not self.header_read:
                if len(view) < _HEADER_SIZE and not final:
                    return found
                position = self._header(view)
            while not self.ended:
                row_end = self._row(view, position, found)
                if row_end is None:
                    break
                position = row_end
            rest = len(view) - position
        finally:
            view.release()
        if self.ended and rest:
            raise errors.BadCopyFileFormat("received copy data after EOF marker")
        if final and rest >= _COUNT.size:
            raise _unexpected_eof()
        del self.buffer[:position]
        return found

    def _header(self, view: memoryview) -> int:
        if view[:len(SIGNATURE)] != SIGNATURE:
            raise errors.BadCopyFileFormat("COPY file signature not recognized")
        if len(view) < _HEADER_SIZE:
            raise errors.BadCopyFileFormat("invalid COPY file header (missing flags)")
        flags, extension = _HEADER_FIELDS.unpack_from(view, len(SIGNATURE))
        if flags & _WITH_OIDS:
            raise errors.BadCopyFileFormat("invalid COPY file header (WITH OIDS)")
        if flags >> 16:
            raise errors.BadCopyFileFormat("unrecognized critical flags in COPY file header")
        if extension < 0:
            raise errors.BadCopyFileFormat("invalid COPY file header (missing length)")
        if len(view) < _HEADER_SIZE + extension:
            raise errors.BadCopyFileFormat("invalid COPY file header (wrong length)")
        self.header_read = True
        return _HEADER_SIZE + extension

    def _row(self, view: memoryview, start: int,
             found: list[list[bytes | None]]) -> int | None:
        """Reads the row at ``start`` into ``found`` (or the trailer): where
        it ends, None if it is not complete yet. Fewer than two bytes left
        is the end of the data, as for PostgreSQL."""
        if len(view) - start < _COUNT.size:
            return None
        (count,) = _COUNT.unpack_from(view, start)
        if count == -1:
            self.ended = True
            return start + _COUNT.size
        if count != self.width:
            raise errors.BadCopyFileFormat(f"row field count is {count}, expected {self.width}")
        position = start + _COUNT.size
        values: list[bytes | None] = []
        for _ in range(count):
            if len(view) - position < _LENGTH.size:
                return None
            (length,) = _LENGTH.unpack_from(view, position)
            position += _LENGTH.size
            if length == -1:
                values.append(None)
                continue
            if length < 0:
                raise errors.BadCopyFileFormat("invalid field size")
            if len(view) - position < length:
                return None
            values.append(bytes(view[position:position + length]))
            position += length
        found.append(values)
        return position
