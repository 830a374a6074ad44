"""Apache Arrow arrays -> a column's storage values (COPY FROM an Arrow
stream, Parquet import), a column at a time.

The reference is value by value: each value written as PostgreSQL text
(``pg_text``) and read by the target column's text input function, so an
Arrow value is checked exactly as COPY FROM checks text. The common pairs
of an Arrow type and a column type have a kernel (``arrow_kernels``) that
converts the whole column in Arrow's compute functions; a kernel that meets
a value it cannot convert as the reference would (out of range, NaN where
the storage form differs...) declines the column, which then goes value by
value and so fails, if it fails, with the reference's error.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Any

import pyarrow as pa

from executor import codecs
from executor.codecs.base import decode_utf8
from executor.values import arrow_kernels

ColumnConverter = Callable[[pa.Array], list[Any]]


def _array_item(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, list):
        return _array_literal(value)
    text = pg_text(value)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _array_literal(values: list[Any]) -> str:
    return "{" + ",".join(_array_item(value) for value in values) + "}"


def _interval(value: timedelta) -> str:
    return f"{value.days} days {value.seconds} seconds {value.microseconds} microseconds"


def pg_text(value: Any) -> str:
    """A Python value (from Arrow) as PostgreSQL text input; a string with
    NUL is refused as PostgreSQL refuses the byte (22021)."""
    if isinstance(value, str):
        if "\x00" in value:
            decode_utf8(value.encode())  # raises
        return value
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return repr(value) if not math.isinf(value) else (
            "Infinity" if value > 0 else "-Infinity")
    if isinstance(value, bytes):
        return "\\x" + value.hex()
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return _interval(value)
    if isinstance(value, list):
        return _array_literal(value)
    if isinstance(value, dict):
        return json.dumps(value, default=str)
    return str(value)  # int, Decimal


def each_value(decode: codecs.Decoder) -> ColumnConverter:
    """The reference: every value through its PostgreSQL text."""

    def convert(column: pa.Array) -> list[Any]:
        return [None if value is None else decode(pg_text(value))
                for value in column.to_pylist()]
    return convert


def storage_column(oid: int, typmod: int, settings: codecs.Settings) -> ColumnConverter:
    """A function turning Arrow arrays into storage values of a column of
    type ``oid`` (built once per column, called once per record batch); it
    raises the type's input errors."""
    reference = each_value(codecs.text_decoder(oid, typmod, settings))
    kernels: dict[pa.DataType, arrow_kernels.Kernel | None] = {}

    def convert(column: pa.Array) -> list[Any]:
        if pa.types.is_timestamp(column.type) and column.type.unit == "ns":
            column = column.cast(pa.timestamp("us", tz=column.type.tz), safe=False)
        source = column.type
        if source not in kernels:
            kernels[source] = arrow_kernels.kernel(oid, typmod, settings, source)
        kernel = kernels[source]
        values = None if kernel is None else kernel(column)
        return reference(column) if values is None else values
    return convert
