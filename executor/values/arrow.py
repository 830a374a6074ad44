"""sqlext storage values -> Apache Arrow arrays, for Parquet files and Arrow streams.

A type Parquet holds natively keeps its type: integers, floats, bool, bytea,
numeric (decimal; numeric without a typmod as decimal(38,18), the type Spark
gives such a column), text types, date, time, timestamp, timestamptz (UTC)
and arrays of these (lists). Every other type (interval, uuid, json, ...) is
written as its PostgreSQL text. The value-by-value conversion here is the
reference; the common column types go a column at a time
(``executor.values.arrow_out``), and back to it where that declines.
Reading goes the other way (``executor.values.arrow_in``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any, Final

import pyarrow as pa

from catalog import errors, types
from executor import codecs
from executor.values import arrow_out

Convert = Callable[[Any], Any]

_INTEGERS: Final = {types.INT2: pa.int16(), types.INT4: pa.int32(), types.INT8: pa.int64(),
                    types.OID: pa.int64()}
_FLOATS: Final = {types.FLOAT4: pa.float32(), types.FLOAT8: pa.float64()}
_TEXTS: Final = frozenset({types.TEXT, types.VARCHAR, types.BPCHAR, types.NAME, types.CHAR})
_UNCONSTRAINED_NUMERIC: Final = pa.decimal128(38, 18)


# --- export: storage value -> Arrow ---------------------------------------------------

def arrow_type(oid: int, typmod: int) -> pa.DataType:
    element = types.array_element(oid)
    if element:
        return pa.list_(arrow_type(element, typmod))
    if oid in _INTEGERS:
        return _INTEGERS[oid]
    if oid in _FLOATS:
        return _FLOATS[oid]
    if oid == types.NUMERIC:
        shape = types.numeric_precision_scale(typmod)
        return pa.decimal128(*shape) if shape else _UNCONSTRAINED_NUMERIC
    return _SIMPLE_TYPES.get(oid, pa.string())


_SIMPLE_TYPES: Final[dict[int, pa.DataType]] = {
    types.BOOL: pa.bool_(), types.BYTEA: pa.binary(), types.DATE: pa.date32(),
    types.TIME: pa.time64("us"), types.TIMESTAMP: pa.timestamp("us"),
    types.TIMESTAMPTZ: pa.timestamp("us", tz="UTC"),
}


def _float(value: Any) -> float:
    return float(value)  # the text 'NaN' included


def _iso(parse: Callable[[str], Any], kind: str) -> Convert:
    """A storage text -> Python date/time converter; PostgreSQL values
    Python cannot hold (infinity, BC, 24:00:00) are errors."""
    def convert(value: str) -> Any:
        try:
            return parse(value)
        except ValueError:
            raise errors.DatetimeFieldOverflow(
                f'{kind} out of range for Parquet: "{value}"') from None
    return convert


_date = _iso(date.fromisoformat, "date")
_time = _iso(time.fromisoformat, "time")
_timestamp = _iso(datetime.fromisoformat, "timestamp")


def _timestamptz(value: str) -> datetime:
    return _timestamp(value).replace(tzinfo=UTC)


def _numeric(typmod: int) -> Convert:
    text = codecs.text_encoder(types.NUMERIC, typmod)

    def convert(value: Any) -> Decimal:
        number = Decimal(text(value).decode())
        if not number.is_finite():
            raise errors.NumericValueOutOfRange(
                f"numeric value {number} cannot be written to Parquet")
        return number
    return convert


def _python(oid: int, typmod: int) -> Convert:
    """Storage value -> the Python value Arrow takes for ``arrow_type``."""
    if oid == types.BOOL:
        return bool
    if oid in _INTEGERS:
        return int
    if oid in _FLOATS:
        return _float
    if oid == types.NUMERIC:
        return _numeric(typmod)
    if oid in _TEXTS:
        return str
    if oid == types.BYTEA:
        return bytes
    simple = {types.DATE: _date, types.TIME: _time, types.TIMESTAMP: _timestamp,
              types.TIMESTAMPTZ: _timestamptz}.get(oid)
    if simple is not None:
        return simple
    text = codecs.text_encoder(oid, typmod)
    return lambda value: text(value).decode()


def _list_of(convert: Convert) -> Convert:
    def convert_list(value: Any) -> list[Any]:
        return [None if item is None else convert(item) for item in json.loads(value)]
    return convert_list


def arrow_column(oid: int, typmod: int) -> Callable[[Sequence[Any]], pa.Array]:
    """A function making Arrow arrays of ``arrow_type`` from a column's
    storage values (built once per column, called once per chunk)."""
    reference = each_value(oid, typmod)
    kernel = arrow_out.kernel(oid, typmod, arrow_type(oid, typmod))
    if kernel is None:
        return reference

    def build(values: Sequence[Any]) -> pa.Array:
        column = kernel.column(values)
        return reference(values) if column is None else column
    return build


def arrow_columns(columns: Sequence[tuple[int, int]]
                  ) -> Callable[[Sequence[tuple[Any, ...]]], list[pa.Array]]:
    """A function making rows of storage values (as SQLite gives them, of
    columns of these (type OID, typmod)) into one Arrow array per column:
    all at once where every column has a kernel (``arrow_out.rows_kernel``),
    else (and for a column whose kernel declines) column by column."""
    builders = [arrow_column(oid, typmod) for oid, typmod in columns]
    whole = arrow_out.rows_kernel([arrow_out.kernel(oid, typmod, arrow_type(oid, typmod))
                                   for oid, typmod in columns])

    def build(rows: Sequence[tuple[Any, ...]]) -> list[pa.Array]:
        arrays = (whole(rows) if whole else None) or [None] * len(builders)
        return [column([row[index] for row in rows]) if array is None else array
                for index, (array, column) in enumerate(zip(arrays, builders, strict=True))]
    return build


def each_value(oid: int, typmod: int) -> Callable[[Sequence[Any]], pa.Array]:
    """The reference: every storage value as a Python value, then Arrow's."""
    target = arrow_type(oid, typmod)
    element = types.array_element(oid)
    convert = _list_of(_python(element, typmod)) if element else _python(oid, typmod)

    def build(values: Sequence[Any]) -> pa.Array:
        converted = [None if value is None else convert(value) for value in values]
        try:
            return pa.array(converted, type=target)
        except (pa.ArrowInvalid, OverflowError) as exc:
            raise errors.NumericValueOutOfRange(
                f"a value does not fit Parquet type {target}: {exc}",
                hint="Cast the column in a query, e.g. COPY (SELECT n::numeric(38,6) ...) "
                     "TO ...",
            ) from None
    return build
