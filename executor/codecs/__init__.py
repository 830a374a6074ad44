"""PostgreSQL value codecs: wire text/binary forms <-> sqlext storage values.

The storage representation of every type is the table in ``catalog.types``. Each
factory below is called once per column and returns a closure specialised for
the type, typmod and session settings; the closure is then called once per value
(encoders are never called with None). PostgreSQL 15 is the reference for what
is accepted and how values print.

Unknown type OIDs: text input is kept as the str, text output is ``str(value)``
(bytes as bytea hex), and binary formats raise FeatureNotSupported.

May import: ``catalog``.
"""

from __future__ import annotations

from typing import Final

from catalog import types
from catalog.errors import FeatureNotSupported
from executor.codecs import (
    datetimes,
    floats,
    integers,
    intervals,
    jsonpath,
    jsontypes,
    network,
    numeric,
    strings,
    vectors,
)
from executor.codecs.arrays import array_codec, dump_array, load_array
from executor.codecs.base import (
    DEFAULT,
    BinDecoder,
    Codec,
    ColumnDecoder,
    ColumnEncoder,
    Decoder,
    Encoder,
    Settings,
    each_binary,
    each_text,
    fallback_text,
)
from executor.codecs.columnar import each

_SCALARS: Final[dict[int, Codec]] = {
    **integers.CODECS,
    **floats.CODECS,
    **numeric.CODECS,
    **strings.CODECS,
    **jsontypes.CODECS,
    **jsonpath.CODECS,
    **network.CODECS,
    **datetimes.CODECS,
    **intervals.CODECS,
    **vectors.CODECS,
}
_CODECS: Final[dict[int, Codec]] = _SCALARS | {
    array.oid: array_codec(array.element_oid, numeric.ELEMENT_CODEC
                           if array.element_oid == types.NUMERIC else _SCALARS[array.element_oid])
    for array in types.TYPES.values()
    if array.element_oid in _SCALARS and array.name == "_" + types.TYPES[array.element_oid].name
}


def _keep(text: str) -> str:
    return text


def _unsupported(oid: int, direction: str) -> FeatureNotSupported:
    return FeatureNotSupported(f"binary {direction} of values of type OID {oid} is not supported")


def text_decoder(oid: int, typmod: int = -1, settings: Settings = DEFAULT) -> Decoder:
    """PostgreSQL text input -> storage value."""
    codec = _CODECS.get(oid)
    return _keep if codec is None else codec.text_in(typmod, settings)


def binary_decoder(oid: int, typmod: int = -1, settings: Settings = DEFAULT) -> BinDecoder:
    """PostgreSQL binary input (typrecv) -> storage value."""
    codec = _CODECS.get(oid)
    if codec is None:
        raise _unsupported(oid, "input")
    return codec.binary_in(typmod, settings)


def column_decoder(oid: int, typmod: int, binary: bool,
                   settings: Settings = DEFAULT) -> ColumnDecoder:
    """Wire values of one parameter in many rows -> storage values: the
    type's own column decoder, or its value decoder applied to each."""
    codec = _CODECS.get(oid)
    if binary:
        if codec is not None and codec.binary_in_column is not None:
            return codec.binary_in_column(typmod, settings)
        return each_binary(binary_decoder(oid, typmod, settings))
    if codec is not None and codec.text_in_column is not None:
        return codec.text_in_column(typmod, settings)
    return each_text(text_decoder(oid, typmod, settings))


def text_encoder(oid: int, typmod: int = -1, settings: Settings = DEFAULT) -> Encoder:
    """Storage value -> PostgreSQL text output bytes."""
    codec = _CODECS.get(oid)
    return fallback_text if codec is None else codec.text_out(typmod, settings)


def binary_encoder(oid: int, typmod: int = -1) -> Encoder:
    """Storage value -> PostgreSQL binary output bytes (typsend)."""
    codec = _CODECS.get(oid)
    if codec is None:
        raise _unsupported(oid, "output")
    return codec.binary_out(typmod)


def text_column_encoder(oid: int, typmod: int = -1, settings: Settings = DEFAULT
                        ) -> ColumnEncoder:
    """A column of storage values -> their text output, a chunk at a time."""
    codec = _CODECS.get(oid)
    if codec is not None and codec.text_out_column is not None:
        return codec.text_out_column(typmod, settings)
    return each(text_encoder(oid, typmod, settings))


def binary_column_encoder(oid: int, typmod: int = -1) -> ColumnEncoder:
    """A column of storage values -> their binary output, a chunk at a time."""
    codec = _CODECS.get(oid)
    if codec is not None and codec.binary_out_column is not None:
        return codec.binary_out_column(typmod)
    return each(binary_encoder(oid, typmod))


__all__ = [
    "DEFAULT",
    "BinDecoder",
    "ColumnDecoder",
    "ColumnEncoder",
    "Decoder",
    "Encoder",
    "Settings",
    "binary_column_encoder",
    "binary_decoder",
    "binary_encoder",
    "column_decoder",
    "dump_array",
    "each",
    "load_array",
    "text_column_encoder",
    "text_decoder",
    "text_encoder",
]
