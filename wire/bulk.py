"""Many rows' messages at once, assembled by Arrow's kernels.

The bulk counterpart of ``messages.data_row_encoder``: the values come as
one Arrow array per column (the codecs' column encoders), and the length
words, the message headers and the concatenation are computed column by
column in C++, so no Python code runs per row (DataRow, and COPY's rows). Arrays of strings or bytes
are the values' bytes; fixed-width numeric arrays (int16/32/64, uint32,
double) are sent in network byte order, as the binary formats want them.
Nulls are NULL fields (length -1).

Importing this module imports pyarrow (~0.15 s); the first kernel call
loads Arrow's compute registry (~0.15 s more; ~100 MB of memory, half of it
the shared library). A server does both when it starts (``prepare``), other
processes with the first chunk large enough to need it (``messages``).
"""

from __future__ import annotations

import array
import functools
import struct
from collections.abc import Sequence
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

_TYPECODES: Final = {
    pa.int16(): "h", pa.int32(): "i", pa.int64(): "q", pa.uint32(): "I", pa.float64(): "d",
}
"""The stdlib ``array`` code of each fixed-width type: it does the byte swap."""
_NO_SEPARATOR: Final = pa.scalar(b"", pa.binary())
_NULL_LENGTH: Final = pa.scalar(-1, pa.int32())


@functools.lru_cache(maxsize=64)
def _fixed_offsets(count: int, width: int) -> pa.Buffer:
    """The offsets of ``count`` binary values of ``width`` bytes each."""
    return pa.py_buffer(array.array("i", range(0, width * (count + 1), width)))


def _network_order(numbers: pa.Array) -> pa.Array:
    """Fixed-width numbers (offset 0) as a binary array of their
    big-endian bytes, made from the swapped buffer without a copy more."""
    words = array.array(_TYPECODES[numbers.type])
    validity, data = numbers.buffers()
    count = len(numbers)
    words.frombytes(data[: count * words.itemsize])
    words.byteswap()
    return pa.Array.from_buffers(pa.binary(), count, [
        validity, _fixed_offsets(count, words.itemsize), pa.py_buffer(words)])


def prepare() -> None:
    """Load the compute kernels now: the first large result then neither
    waits for them nor grows the process by their size."""
    pc.binary_length(pa.array([b""]))


def as_bytes(values: pa.Array) -> pa.Array:
    """A column encoder's output as a binary array of the bytes that go out."""
    if values.type in _TYPECODES:
        return _network_order(values)
    return values.view(pa.binary()) if values.type == pa.string() else values


def _field(values: pa.Array) -> tuple[pa.Array, pa.Array]:
    """A column's length words and its bytes."""
    data = as_bytes(values)
    lengths = pc.binary_length(data)
    if data.null_count:
        lengths = lengths.fill_null(_NULL_LENGTH)
    return _network_order(lengths), data


def field_rows(columns: Sequence[pa.Array], rows: int) -> pa.Array:
    """Each row as the field count, then each field as a length word (-1:
    NULL) and its bytes: the body of a DataRow, and a binary COPY row."""
    parts: list[pa.Array] = []
    for column in columns:
        words, data = _field(column)
        parts += (words, data)
    if not parts:
        return pa.array([struct.pack("!h", 0)] * rows, pa.binary())
    return pc.binary_join_element_wise(
        pa.scalar(struct.pack("!h", len(columns)), pa.binary()), *parts, _NO_SEPARATOR,
        null_handling="replace", null_replacement=b"")


def framed(kind: bytes, bodies: pa.Array, end: bytes = b"") -> bytes:
    """Each of the binary ``bodies``, followed by ``end``, as a message of
    type ``kind``, one after the other."""
    lengths = pc.add(pc.binary_length(bodies), pa.scalar(4 + len(end), pa.int32()))
    return concatenated(pc.binary_join_element_wise(
        pa.scalar(kind, pa.binary()), _network_order(lengths), bodies,
        pa.scalar(end, pa.binary()), _NO_SEPARATOR))


def concatenated(values: pa.Array) -> bytes:
    """The bytes of a binary array's values, one after the other."""
    _validity, offsets, data = values.buffers()
    (start,) = struct.unpack_from("=i", offsets, 4 * values.offset)
    (end,) = struct.unpack_from("=i", offsets, 4 * (values.offset + len(values)))
    return data[start:end].to_pybytes() if data is not None else b""
