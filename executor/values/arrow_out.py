"""A column's storage values -> an Arrow array a whole column at a time
(COPY TO (FORMAT arrow), Parquet export): the common column types.

``kernel`` picks the conversion for a column type (None: no shortcut,
every value goes through ``arrow``'s per-value reference). A kernel names
the Arrow type ``pa.array`` makes of the storage values as they are, and
finishes that array in Arrow's compute functions (a cast, a parse); where
Arrow refuses a value (the text 'NaN' in a numeric(p,s), 'infinity' or a BC
date, a year past 9999, 24:00:00...) it declines (None), and the caller
converts the column value by value, which gives the reference's value or
raises its error. ``rows_kernel`` takes a chunk of rows into Arrow at once,
as a struct of the kernels' storage types, when every column has a kernel:
no Python list per column. Storage forms are those of ``catalog.types``:
ints, floats with NaN as 'NaN', bools as 0/1, str for text types,
numeric(p,s) with p <= 18 as the integer value * 10**s, dates, times and
timestamps as their ISO text, timestamptz in UTC.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc

from catalog import types
from executor.codecs import floats, numeric_storage

Finish = Callable[[pa.Array], pa.Array | None]
RowsKernel = Callable[[Sequence[tuple[Any, ...]]], list[pa.Array | None] | None]

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


def _cast(column: pa.Array, target: pa.DataType) -> pa.Array | None:
    try:
        return column.cast(target)
    except _REFUSED:
        return None


@dataclass(frozen=True, slots=True)
class Kernel:
    storage: pa.DataType
    """The Arrow type of the storage values as they are."""
    finish: Finish
    """That array -> the column's (None: declined)."""
    nan_text: bool = False
    """Whether the storage holds NaN as the text 'NaN' (floats)."""

    def column(self, values: Sequence[Any]) -> pa.Array | None:
        """A column's storage values as its Arrow array, or None."""
        array = _array(values, self.storage)
        if array is None and self.nan_text and floats.NAN in values:
            array = _array([math.nan if value == floats.NAN else value for value in values],
                           self.storage)
        return None if array is None else self.finish(array)


def _as_is(column: pa.Array) -> pa.Array:
    return column


def _bools(column: pa.Array) -> pa.Array | None:
    return _cast(column, pa.bool_())


def _scaled_numerics(precision: int, scale: int) -> Finish:
    """numeric(p,s) held as value * 10**s: those integers are the
    decimal128(p,s) array's own (unscaled) values."""
    target = pa.decimal128(precision, scale)
    bound = 10**precision - 1

    def finish(column: pa.Array) -> pa.Array | None:
        smallest, largest = (value.as_py() for value in pc.min_max(column).values())
        if smallest is not None and not (-bound <= smallest and largest <= bound):
            return None
        wide = column.cast(_WIDE_DECIMAL)
        return pa.Array.from_buffers(target, len(wide), wide.buffers(), wide.null_count)
    return finish


def _dates(column: pa.Array) -> pa.Array | None:
    return _cast(column, pa.date32())


def _timestamps(target: pa.DataType) -> Finish:
    """Timestamps (timestamptz: the same text, in UTC) parsed by Arrow."""
    def finish(column: pa.Array) -> pa.Array | None:
        parsed = _cast(column, _TIMESTAMP)
        return None if parsed is None else parsed.view(target)
    return finish


def _times(column: pa.Array) -> pa.Array | None:
    """Times of day parsed as timestamps of day zero (Arrow parses no
    times): their microseconds since the epoch are those since midnight."""
    parsed = _cast(pc.binary_join_element_wise(_DAY_ZERO, column, " "), _TIMESTAMP)
    return None if parsed is None else parsed.view(pa.time64("us"))


def kernel(oid: int, typmod: int, target: pa.DataType) -> Kernel | None:
    """The kernel making arrays of ``target`` (``arrow.arrow_type``) from
    storage values of a column of type ``oid``, if there is one."""
    if oid in _DIRECT:
        return Kernel(target, _as_is)
    if oid in (types.FLOAT4, types.FLOAT8):
        return Kernel(target, _as_is, nan_text=True)
    if oid == types.NUMERIC:
        scale = numeric_storage.scaled_scale(typmod)
        shape = types.numeric_precision_scale(typmod)
        if scale is None or shape is None:
            return None
        return Kernel(pa.int64(), _scaled_numerics(shape[0], scale))
    if oid in (types.TIMESTAMP, types.TIMESTAMPTZ):
        return Kernel(pa.string(), _timestamps(target))
    if oid == types.BOOL:
        return Kernel(pa.int8(), _bools)
    if oid in (types.DATE, types.TIME):
        return Kernel(pa.string(), _dates if oid == types.DATE else _times)
    return None


def rows_kernel(kernels: Sequence[Kernel | None]) -> RowsKernel | None:
    """The conversion of rows (tuples of storage values) into one array per
    column, each None where its kernel declines; all None where Arrow
    refuses a row. Only where every column has a kernel."""
    present = [found for found in kernels if found is not None]
    if not present or len(present) < len(kernels):
        return None
    row_type = pa.struct([pa.field(str(index), found.storage)
                          for index, found in enumerate(present)])

    def convert(rows: Sequence[tuple[Any, ...]]) -> list[pa.Array | None] | None:
        struct = _array(rows, row_type)
        if struct is None:
            return None
        return [found.finish(struct.field(index)) for index, found in enumerate(present)]
    return convert
