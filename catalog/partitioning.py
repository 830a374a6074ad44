"""Which partition owns a row: the one hash of a sqlext cluster.

A cluster is N servers, each started as one partition (``serve --partition
I/N``). A table or stream declared ``PARTITION BY HASH (key)`` keeps on
each node only the rows whose key that node owns; everything that routes
rows (the server's own check, the Spark data source, the tools) decides
the owner here, or with the same arithmetic written column-wise
(``sqlext.spark.routing``), so every party agrees on every value.

The definition, exactly (docs/scale.md repeats it for other languages):

1. The key's 64-bit word ``w``:

   * ``smallint``, ``integer``, ``bigint``: the value as a 64-bit two's
     complement integer (``-1`` is ``0xFFFFFFFFFFFFFFFF``);
   * ``text``, ``varchar``: the UTF-8 bytes of the value; ``uuid``: the
     UTF-8 bytes of its canonical text (lower-case hex with hyphens, as
     PostgreSQL prints it); ``bytea``: its bytes. ``w`` is the BLAKE2b
     digest of those bytes with an 8-byte output (RFC 7693, no key, no
     salt), read as a little-endian unsigned integer.

2. The hash ``h`` is SplitMix64's output for the state ``w``: with all
   arithmetic modulo 2**64,
   ``z = w + 0x9E3779B97F4A7C15; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EB; h = z ^ (z >> 31)``.

3. The owner is ``h mod N``. A NULL key belongs to partition 0.

Integers are mixed directly (rather than hashed as bytes) so that a client
can route a column of them with vectorised integer arithmetic.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Final

from catalog import errors, types

_MASK: Final = (1 << 64) - 1
GAMMA: Final = 0x9E3779B97F4A7C15
MIX_1: Final = 0xBF58476D1CE4E5B9
MIX_2: Final = 0x94D049BB133111EB

INTEGER_KEYS: Final = frozenset({types.INT2, types.INT4, types.INT8})
BYTES_KEYS: Final = frozenset({types.TEXT, types.VARCHAR, types.UUID, types.BYTEA})
KEY_TYPES: Final = INTEGER_KEYS | BYTES_KEYS
"""The types a partition key may have."""
KEY_TYPE_NAMES: Final = "smallint, integer, bigint, text, varchar, uuid or bytea"


@dataclass(frozen=True, slots=True)
class Placement:
    """This node's place in its cluster: partition ``index`` of ``count``."""

    index: int = 0
    count: int = 1

    def __post_init__(self) -> None:
        if self.count < 1 or not 0 <= self.index < self.count:
            raise ValueError(f"partition {self.index}/{self.count} is not one of "
                             f"0/{self.count} .. {self.count - 1}/{self.count}")

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @classmethod
    def parse(cls, text: str) -> Placement:
        """``"I/N"``, as ``serve --partition`` takes it."""
        index, slash, count = text.strip().partition("/")
        if not slash or not index.isdigit() or not count.isdigit():
            raise ValueError(f'partition "{text}" is not of the form I/N (such as 0/3)')
        return cls(int(index), int(count))

    def owns(self, key: object) -> bool:
        return self.count == 1 or partition_of(key, self.count) == self.index


def mix(word: int) -> int:
    """SplitMix64's output for the state ``word`` (step 2 above)."""
    z = (word + GAMMA) & _MASK
    z = ((z ^ (z >> 30)) * MIX_1) & _MASK
    z = ((z ^ (z >> 27)) * MIX_2) & _MASK
    return z ^ (z >> 31)


def bytes_word(data: bytes) -> int:
    """The word of a text, uuid or bytea key (step 1 above)."""
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def key_hash(key: object) -> int:
    """The 64-bit hash of a key in its storage form: an int for the integer
    types, a str for text and uuid, bytes for bytea."""
    if isinstance(key, int):
        return mix(key & _MASK)
    if isinstance(key, str):
        return mix(bytes_word(key.encode()))
    if isinstance(key, bytes | bytearray | memoryview):
        return mix(bytes_word(bytes(key)))
    raise TypeError(f"a partition key cannot be a {type(key).__name__}")


def partition_of(key: object, count: int) -> int:
    """The partition (0 .. count - 1) that owns rows with this key."""
    return 0 if key is None else key_hash(key) % count


def check_key_type(type_oid: int, column: str) -> None:
    """Refuses a partition key of a type the hash is not defined for."""
    if type_oid not in KEY_TYPES:
        raise errors.FeatureNotSupported(
            f'cannot partition by column "{column}" of type {types.format_type(type_oid)}',
            hint=f"A partition key is a column of type {KEY_TYPE_NAMES}.")
