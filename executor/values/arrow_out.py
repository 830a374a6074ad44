"""A column's storage values -> an Arrow array a whole column at a time
(COPY TO (FORMAT arrow), Parquet export): the common column types.

``kernel`` picks the function for a column type (None: no shortcut, every
value goes through ``arrow``'s per-value reference). A kernel hands the
storage values to Arrow's own conversion (``pa.array``) and casts them in
Arrow's compute functions; where Arrow refuses a value (the text 'NaN' in a
numeric(p,s), 'infinity' or a BC date, a year past 9999, 24:00:00...) it
returns None, and the caller converts the column value by value, which
gives the reference's value or raises its error. Storage forms are those of
``catalog.types``: ints, floats with NaN as 'NaN', bools as 0/1, str for
text types, numeric(p,s) with p <= 18 as the integer value * 10**s, dates,
times and timestamps as their ISO text, timestamptz in UTC.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc

from catalog import types
from executor.codecs import floats, numeric_storage

Kernel = Callable[[Sequence[Any]], pa.Array | None]

_REFUSED: Final = (pa.ArrowException, TypeError, ValueError, OverflowError)
"""What ``pa.array`` and a cast raise for a value they cannot take."""
_DIRECT: Final = frozenset({types.INT2, types.INT4, types.INT8, types.OID, types.TEXT,
                            types.VARCHAR, types.BPCHAR, types.NAME, types.CHAR,
                            types.BYTEA})
"""Types whose storage values are the Python values Arrow takes."""
_WIDE_DECIMAL: Final = pa.decimal128(19, 0)
"""Holds every int64 exactly."""
_TIMESTAMP: Final = pa.timestamp("us")
_DAY_ZERO: Final = "1970-01-01"


def _array(values: Sequence[Any], target: pa.DataType) -> pa.Array | None:
    try:
        return pa.array(values, target)
    except _REFUSED:
        return None


def _cast(column: pa.Array | None, target: pa.DataType) -> pa.Array | None:
    if column is None:
        return None
    try:
        return column.cast(target)
    except _REFUSED:
        return None


def _direct(target: pa.DataType) -> Kernel:
    return lambda values: _array(values, target)


def _floats(target: pa.DataType) -> Kernel:
    """Floats, with the text 'NaN' as a NaN (a second pass, only for a
    column that has one)."""
    def convert(values: Sequence[Any]) -> pa.Array | None:
        column = _array(values, target)
        if column is None and floats.NAN in values:
            column = _array([math.nan if value == floats.NAN else value for value in values],
                            target)
        return column
    return convert


def _bools(values: Sequence[Any]) -> pa.Array | None:
    return _cast(_array(values, pa.int8()), pa.bool_())


def _scaled_numerics(precision: int, scale: int) -> Kernel:
    """numeric(p,s) held as value * 10**s: those integers are the
    decimal128(p,s) array's own (unscaled) values."""
    target = pa.decimal128(precision, scale)
    bound = 10**precision - 1

    def convert(values: Sequence[Any]) -> pa.Array | None:
        column = _array(values, pa.int64())
        if column is None:
            return None
        smallest, largest = (value.as_py() for value in pc.min_max(column).values())
        if smallest is not None and not (-bound <= smallest and largest <= bound):
            return None
        wide = column.cast(_WIDE_DECIMAL)
        return pa.Array.from_buffers(target, len(wide), wide.buffers(), wide.null_count)
    return convert


def _dates(values: Sequence[Any]) -> pa.Array | None:
    return _cast(_array(values, pa.string()), pa.date32())


def _timestamps(target: pa.DataType) -> Kernel:
    """Timestamps (timestamptz: the same text, in UTC) parsed by Arrow."""
    def convert(values: Sequence[Any]) -> pa.Array | None:
        column = _cast(_array(values, pa.string()), _TIMESTAMP)
        return None if column is None else column.view(target)
    return convert


def _times(values: Sequence[Any]) -> pa.Array | None:
    """Times of day parsed as timestamps of day zero (Arrow parses no
    times): their microseconds since the epoch are those since midnight."""
    text = _array(values, pa.string())
    if text is None:
        return None
    column = _cast(pc.binary_join_element_wise(_DAY_ZERO, text, " "), _TIMESTAMP)
    return None if column is None else column.view(pa.time64("us"))


def kernel(oid: int, typmod: int, target: pa.DataType) -> Kernel | None:
    """The kernel making arrays of ``target`` (``arrow.arrow_type``) from
    storage values of a column of type ``oid``, if there is one."""
    if oid in _DIRECT:
        return _direct(target)
    if oid in (types.FLOAT4, types.FLOAT8):
        return _floats(target)
    if oid == types.NUMERIC:
        scale = numeric_storage.scaled_scale(typmod)
        shape = types.numeric_precision_scale(typmod)
        return None if scale is None or shape is None else _scaled_numerics(shape[0], scale)
    if oid in (types.TIMESTAMP, types.TIMESTAMPTZ):
        return _timestamps(target)
    return {types.BOOL: _bools, types.DATE: _dates, types.TIME: _times}.get(oid)
