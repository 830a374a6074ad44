"""Many rows' messages at once, assembled by Arrow's kernels.

The bulk counterpart of ``messages.data_row_encoder``: the values come as
one Arrow array per column (the codecs' column encoders), and the length
words, the message headers and the concatenation are computed column by
column in C++, so no Python code runs per row. Arrays of strings or bytes
are the values' bytes; fixed-width numeric arrays (int16/32/64, uint32,
double) are sent in network byte order, as the binary formats want them.
Nulls are NULL fields (length -1).

Importing this module imports pyarrow (~0.15 s): ``messages`` does so with
the first chunk large enough to need it.
"""

from __future__ import annotations

import array
import struct
from collections.abc import Sequence
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

_EMPTY: Final = pa.scalar(b"", pa.large_binary())
_TYPECODES: Final = {
    pa.int16(): "h", pa.int32(): "i", pa.int64(): "q", pa.uint32(): "I", pa.float64(): "d",
}
"""The stdlib ``array`` code of each fixed-width type: it does the byte swap."""


def _network_order(numbers: pa.Array) -> pa.Array:
    """Fixed-width numbers (offset 0) as their big-endian bytes."""
    words = array.array(_TYPECODES[numbers.type])
    validity, data = numbers.buffers()
    words.frombytes(data[: len(numbers) * words.itemsize])
    words.byteswap()
    return pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(words.itemsize), len(numbers), [validity, pa.py_buffer(words)]
    ).cast(pa.large_binary())


def _field(values: pa.Array) -> tuple[pa.Array, pa.Array, pa.Array]:
    """A column's length words, its bytes and its lengths (0 for NULL)."""
    if values.type in _TYPECODES:
        size = pa.scalar(values.type.bit_width // 8, pa.int32())
        lengths = pc.if_else(pc.is_valid(values), size, pa.scalar(0, pa.int32()))
        data = _network_order(values)
    else:
        data = values.cast(pa.large_binary())
        lengths = pc.binary_length(data).cast(pa.int32()).fill_null(0)
    words = _network_order(pc.if_else(pc.is_valid(data), lengths, pa.scalar(-1, pa.int32())))
    return words, data, lengths


def field_messages(kind: bytes, columns: Sequence[pa.Array], rows: int) -> bytes:
    """One message of type ``kind`` per row whose body is the field count,
    then each field as a length word (-1: NULL) and its bytes: DataRow
    ('D'), or the CopyData of a binary COPY row ('d')."""
    parts: list[pa.Array] = []
    sizes = pa.array([4 + 2 + 4 * len(columns)] * rows, pa.int32())
    for column in columns:
        words, data, lengths = _field(column)
        parts += (words, data)
        sizes = pc.add(sizes, lengths)
    joined = pc.binary_join_element_wise(
        pa.scalar(kind, pa.large_binary()), _network_order(sizes),
        pa.scalar(struct.pack("!h", len(columns)), pa.large_binary()), *parts, _EMPTY,
        null_handling="replace", null_replacement=b"")
    return concatenated(joined)


def concatenated(values: pa.Array) -> bytes:
    """The bytes of a large_binary array's values, one after the other."""
    _validity, offsets, data = values.buffers()
    (start,) = struct.unpack_from("=q", offsets, 8 * values.offset)
    (end,) = struct.unpack_from("=q", offsets, 8 * (values.offset + len(values)))
    return data[start:end].to_pybytes() if data is not None else b""
