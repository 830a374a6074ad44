"""Which node owns each row of an Arrow record batch, a column at a time.

The arithmetic is ``catalog.partitioning``'s, written in Arrow's compute
functions: an integer key's word is its 64-bit two's complement (the int64
column viewed as uint64), a text, uuid or bytea key's word is the BLAKE2b-8
word of its bytes (``bytes_word``, value by value: Arrow has no BLAKE2b),
then SplitMix64 on the whole column (unchecked uint64 arithmetic wraps, as
the definition's "modulo 2**64" asks) and the owner is the hash mod N; a
NULL key belongs to partition 0. A uuid arrives as text in any form its
input accepts (upper case, braces, no hyphens) and is hashed as its
canonical text, which is what the owning node stores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

from catalog import types
from catalog.partitioning import BYTES_KEYS, GAMMA, INTEGER_KEYS, MIX_1, MIX_2, bytes_word
from sqlext.spark.catalog_lookup import PartitionKey

_WORD: Final = pa.uint64()
_HEX_GROUPS: Final = ((0, 8), (8, 12), (12, 16), (16, 20), (20, 32))


def _word(value: int) -> pa.Scalar:
    return pa.scalar(value, _WORD)


def routable(key_type: int, column_type: pa.DataType) -> bool:
    """Whether a column of ``column_type`` can be routed as a key of the
    sqlext type ``key_type`` (integers as integers, the others as text or
    bytes)."""
    if key_type in INTEGER_KEYS:
        return pa.types.is_integer(column_type)
    if key_type == types.BYTEA:
        return pa.types.is_binary(column_type) or pa.types.is_large_binary(column_type)
    return key_type in BYTES_KEYS and (
        pa.types.is_string(column_type) or pa.types.is_large_string(column_type))


def wanted(key_type: int) -> str:
    """The kind of column ``routable`` takes for a key of ``key_type``."""
    if key_type in INTEGER_KEYS:
        return "an integer (byte, short, int or long)"
    return "binary" if key_type == types.BYTEA else "a string"


def owners(column: pa.Array, key_type: int, count: int) -> pa.Array:
    """The partition (0 .. count - 1, as int64) that owns each value."""
    if key_type in INTEGER_KEYS:
        words = column.cast(pa.int64()).view(_WORD)
    else:
        words = _bytes_words(_canonical_uuids(column) if key_type == types.UUID else column)
    hashes = _mix(words)
    nodes = _word(count)
    remainder = pc.subtract(hashes, pc.multiply(pc.divide(hashes, nodes), nodes))
    return pc.fill_null(remainder, _word(0)).cast(pa.int64())


def _bytes_words(column: pa.Array) -> pa.Array:
    data = column.cast(pa.large_binary()).to_pylist()
    return pa.array([None if value is None else bytes_word(value) for value in data], _WORD)


def _canonical_uuids(column: pa.Array) -> pa.Array:
    """uuid text as PostgreSQL prints it: lower-case hex in groups of 8, 4,
    4, 4 and 12 (text that is no uuid is left for its node to refuse)."""
    digits = pc.replace_substring_regex(pc.utf8_lower(column), r"[{}-]", "")
    grouped = pc.binary_join_element_wise(
        *(pc.utf8_slice_codeunits(digits, start, stop) for start, stop in _HEX_GROUPS), "-")
    return pc.if_else(pc.equal(pc.utf8_length(digits), 32), grouped, column)


def _mix(words: pa.Array) -> pa.Array:
    """SplitMix64's output for each word."""
    z = pc.add(words, _word(GAMMA))
    z = pc.multiply(pc.bit_wise_xor(z, pc.shift_right(z, _word(30))), _word(MIX_1))
    z = pc.multiply(pc.bit_wise_xor(z, pc.shift_right(z, _word(27))), _word(MIX_2))
    return pc.bit_wise_xor(z, pc.shift_right(z, _word(31)))


@dataclass(frozen=True, slots=True)
class Router:
    """How a write's rows are shared out among ``count`` nodes: by the
    owner of their ``key``, or (no key: a replicated relation) every row to
    every node."""

    count: int
    key: PartitionKey | None = None

    def shares(self, batch: pa.RecordBatch) -> list[pa.RecordBatch]:
        """The rows of ``batch`` for each node, in node order (each in the
        order the batch has them)."""
        if self.key is None:
            return [batch] * self.count
        owner = owners(batch.column(self.key.column), self.key.type_oid, self.count)
        grouped = batch.take(pc.sort_indices(owner))  # a stable sort
        counted = pc.value_counts(owner)
        sizes = dict(zip(counted.field("values").to_pylist(),
                         counted.field("counts").to_pylist(), strict=True))
        shares, start = [], 0
        for node in range(self.count):
            size = sizes.get(node, 0)
            shares.append(grouped.slice(start, size))
            start += size
        return shares
