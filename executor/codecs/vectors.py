"""int2vector and oidvector (pg_index.indkey, pg_proc.proargtypes...):
stored as PostgreSQL prints them, ``'1 2 3'``; in binary, a one-dimensional
array of int2 or oid with lower bound 0, no NULLs (int2vectorsend and
int2vectorrecv, oidvectorsend and oidvectorrecv).
"""

from __future__ import annotations

import re
import struct
from typing import Final

from catalog import types
from catalog.errors import DatatypeMismatch, InvalidParameterValue
from executor.codecs.base import DEFAULT, Codec, Reader, plain
from executor.codecs.integers import CODECS as INTEGER_CODECS

_ITEM: Final = re.compile(r"[^ \t\n\r\v\f]+")
_HEADER: Final = struct.Struct(">iiIii")
_LENGTH: Final = struct.Struct(">i")


def _vector_codec(element_oid: int, name: str) -> Codec:
    element = INTEGER_CODECS[element_oid]
    decode_text = element.text_in(-1, DEFAULT)
    decode_binary = element.binary_in(-1, DEFAULT)
    encode_binary = element.binary_out(-1)

    def text_in(text: str) -> str:
        return " ".join(str(decode_text(item)) for item in _ITEM.findall(text))

    def text_out(value: object) -> bytes:
        return str(value).encode()

    def binary_out(value: object) -> bytes:
        items = [encode_binary(int(item)) for item in str(value).split()]
        parts = [_HEADER.pack(1, 0, element_oid, len(items), 0)]
        for item in items:
            parts.append(_LENGTH.pack(len(item)))
            parts.append(item)
        return b"".join(parts)

    def binary_in(data: bytes) -> str:
        reader = Reader(data)
        dimensions, flags, received = reader.int32(), reader.int32(), reader.uint32()
        if received != element_oid:
            raise DatatypeMismatch(
                f"binary data has array element type {received} "
                f"({types.format_type(received)}) instead of expected "
                f"{element_oid} ({types.format_type(element_oid)})")
        if dimensions != 1 or flags != 0:
            raise InvalidParameterValue(f"invalid {name} data")
        count, lower_bound = reader.int32(), reader.int32()
        if lower_bound != 0:
            raise InvalidParameterValue(f"invalid {name} data")
        items = []
        for _ in range(count):
            length = reader.int32()
            if length < 0:
                raise InvalidParameterValue(f"invalid {name} data")
            items.append(str(decode_binary(reader.take(length))))
        reader.finish()
        return " ".join(items)

    return plain(text_in, text_out, binary_in, binary_out)


CODECS: Final[dict[int, Codec]] = {
    types.INT2VECTOR: _vector_codec(types.INT2, "int2vector"),
    types.OIDVECTOR: _vector_codec(types.OID, "oidvector"),
}
