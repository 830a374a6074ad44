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
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, NamedTuple

from catalog import errors, types

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


def binary_size(oid: int) -> int | None:
    """The size of a type's binary form when it has one: its typlen (name,
    sent as text, aside)."""
    size = types.type_size(oid)
    return size if size > 0 and oid != types.NAME else None


class _Run(NamedTuple):
    """Fields of a row that one struct reads: fixed-width ones (a length and
    that many bytes each; before them, in the first run, the row's field
    count) and the length of the variable-width field after them, if any."""

    unpack: Callable[[bytes, int], tuple[Any, ...]]
    size: int
    heads: slice
    """Where the field count and the lengths are in what ``unpack`` reads."""
    expected: tuple[int, ...]
    values: slice
    variable: bool


def _run(sizes: Sequence[int], width: int, first: bool, variable: bool) -> _Run:
    # in the first run, the count and an empty string (0s) stand for a field
    # and its value: lengths and values alternate in every run
    lead = 2 if first else 0
    end = lead + 2 * len(sizes)
    code = "".join(f"i{size}s" for size in sizes) + ("i" if variable else "")
    packer = struct.Struct((">h0s" if first else ">") + code)
    return _Run(packer.unpack_from, packer.size, slice(0, end, 2),
                ((width,) if first else ()) + tuple(sizes), slice(lead + 1, end, 2), variable)


RunReader = Callable[[bytes, int, list[bytes | None]], tuple[int, int]]
"""(buffer, position, found) -> where the whole rows of expected sizes from
``position`` end, and how many they are; their fields are added to ``found``."""


def _run_reader(runs: Sequence[_Run]) -> RunReader:
    """The loop that reads rows a run at a time, written out for these runs:
    a generic loop over them spends more on its own bookkeeping (~0.5 us a
    row of 3 fields) than this one (~0.35 us) spends on a row."""
    lines = ["def read(buffer, position, found):", "    end = len(buffer)", "    count = 0",
             "    while True:", "        row = position"]
    kept: list[str] = []
    scope: dict[str, object] = {}
    for number, run in enumerate(runs):
        width = len(run.unpack(bytes(run.size), 0))
        items = [f"f{number}_{index}" for index in range(width)]
        scope[f"unpack{number}"] = run.unpack
        heads = items[run.heads]
        checks = " or ".join(f"{name} != {value}" for name, value in zip(
            heads, run.expected, strict=True)) or "False"
        lines += [f"        if row + {run.size} > end: break",
                  f"        {', '.join(items)}, = unpack{number}(buffer, row)",
                  f"        row += {run.size}",
                  f"        if {checks}: break"]
        kept += items[run.values]
        if run.variable:
            length = items[-1]
            lines += [f"        if {length} < 0 or row + {length} > end: break",
                      f"        v{number} = buffer[row:row + {length}]",
                      f"        row += {length}"]
            kept.append(f"v{number}")
    lines += [f"        found += ({''.join(name + ', ' for name in kept)})",
              "        position = row", "        count += 1", "    return position, count"]
    exec("\n".join(lines), scope)  # our own text, made of the columns' sizes
    return scope["read"]  # type: ignore[return-value]


def _runs(sizes: Sequence[int | None]) -> list[_Run]:
    """The runs of a row whose fields have ``sizes`` (None: variable)."""
    runs: list[_Run] = []
    fixed: list[int] = []
    for size in sizes:
        if size is None:
            runs.append(_run(fixed, len(sizes), not runs, variable=True))
            fixed = []
        else:
            fixed.append(size)
    if fixed or not runs:
        runs.append(_run(fixed, len(sizes), not runs, variable=False))
    return runs


class BinaryRows:
    """Splits COPY ... FROM data in binary into rows of field values (bytes,
    None for NULL) as it arrives; CopyData messages may split it anywhere.
    The fields of the rows found come in one list, row after row (no list
    per row: a list per row is a container the garbage collector visits).

    A row whose fields have the sizes expected of the columns' types (no
    NULLs) is read a run of fields at a time; any other row, the trailer and
    every error are read field by field, the reference."""

    def __init__(self, width: int, sizes: Sequence[int | None] | None = None) -> None:
        """``sizes``: each field's size where its type's binary form has one."""
        self.width = width
        self.read_runs = _run_reader(_runs(sizes if sizes is not None else [None] * width))
        self.buffer = bytearray()
        self.header_read = False
        self.ended = False

    def rows(self, data: bytes, final: bool) -> tuple[list[bytes | None], int]:
        """The fields of the rows completed by ``data``, and how many rows
        there are; ``final``: no more data follows."""
        fields: list[bytes | None] = []
        if self.ended:
            if data:
                raise errors.BadCopyFileFormat("received copy data after EOF marker")
            return fields, 0
        self.buffer += data
        buffer = bytes(self.buffer)
        position = count = 0
        if not self.header_read:
            if len(buffer) < _HEADER_SIZE and not final:
                return fields, 0
            position = self._header(buffer)
        while not self.ended:
            position, read = self.read_runs(buffer, position, fields)
            count += read
            row_end = self._row(buffer, position, fields)
            if row_end is None:
                break
            position = row_end
            count += not self.ended  # the trailer is no row
        rest = len(buffer) - position
        if self.ended and rest:
            raise errors.BadCopyFileFormat("received copy data after EOF marker")
        if final and rest >= _COUNT.size:
            raise _unexpected_eof()
        del self.buffer[:position]
        return fields, count

    def _header(self, buffer: bytes) -> int:
        if buffer[:len(SIGNATURE)] != SIGNATURE:
            raise errors.BadCopyFileFormat("COPY file signature not recognized")
        if len(buffer) < _HEADER_SIZE:
            raise errors.BadCopyFileFormat("invalid COPY file header (missing flags)")
        flags, extension = _HEADER_FIELDS.unpack_from(buffer, len(SIGNATURE))
        if flags & _WITH_OIDS:
            raise errors.BadCopyFileFormat("invalid COPY file header (WITH OIDS)")
        if flags >> 16:
            raise errors.BadCopyFileFormat("unrecognized critical flags in COPY file header")
        if extension < 0:
            raise errors.BadCopyFileFormat("invalid COPY file header (missing length)")
        if len(buffer) < _HEADER_SIZE + extension:
            raise errors.BadCopyFileFormat("invalid COPY file header (wrong length)")
        self.header_read = True
        return _HEADER_SIZE + extension

    def _row(self, buffer: bytes, start: int,
             found: list[bytes | None]) -> int | None:
        """Reads the row at ``start`` into ``found`` (or the trailer) field
        by field: where it ends, None if it is not complete yet. Fewer than
        two bytes left is the end of the data, as for PostgreSQL."""
        if len(buffer) - start < _COUNT.size:
            return None
        (count,) = _COUNT.unpack_from(buffer, start)
        if count == -1:
            self.ended = True
            return start + _COUNT.size
        if count != self.width:
            raise errors.BadCopyFileFormat(f"row field count is {count}, expected {self.width}")
        position = start + _COUNT.size
        values: list[bytes | None] = []
        for _ in range(count):
            if len(buffer) - position < _LENGTH.size:
                return None
            (length,) = _LENGTH.unpack_from(buffer, position)
            position += _LENGTH.size
            if length == -1:
                values.append(None)
                continue
            if length < 0:
                raise errors.BadCopyFileFormat("invalid field size")
            if len(buffer) - position < length:
                return None
            values.append(buffer[position:position + length])
            position += length
        found += values
        return position
