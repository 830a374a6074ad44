"""Arrow arrays -> storage values a whole column at a time, in Arrow's
compute functions: the common pairs of an Arrow type and a column type.

``kernel`` picks the function for a column type and an Arrow type (None:
no shortcut, every value goes through its text, ``arrow_in``). A kernel
returns the column's storage values, or None where a value would not come
out exactly as through its text (an int too large for the column, a year
Python's datetime cannot hold...): the caller then converts the column
value by value, which raises the reference's error. Storage forms are
those of ``catalog.types``: ints, floats with NaN as 'NaN', bools as 0/1,
numeric(p,s) with p <= 18 as the integer value * 10**s, dates and times
as their ISO text, timestamptz in UTC.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc

from catalog import errors, types
from executor import codecs
from executor.codecs import floats, numeric, numeric_storage, zones

Kernel = Callable[[pa.Array], list[Any] | None]
Factory = Callable[[int, codecs.Settings, pa.DataType], Kernel | None]

_INTEGER_RANGES: Final = {types.INT2: (-(1 << 15), (1 << 15) - 1),
                          types.INT4: (-(1 << 31), (1 << 31) - 1),
                          types.INT8: (-(1 << 63), (1 << 63) - 1)}
_EXACT_IN_DOUBLE: Final = 1 << 53
_EPOCH: Final = date(1970, 1, 1)
_FIRST_DAY: Final = (date.min - _EPOCH).days
_LAST_DAY: Final = (date.max - _EPOCH).days
"""Days from 1970 that Python's dates span (years 1 to 9999): beyond them,
values go through the reference (which says what it makes of them)."""
_MICROS_PER_DAY: Final = 86_400_000_000
_UTC_NAMES: Final = frozenset({"UTC", "Etc/UTC", "Z", "+00:00", "GMT", "Etc/GMT"})


def _integer_range(source: pa.DataType) -> tuple[int, int]:
    bits = source.bit_width
    if pa.types.is_signed_integer(source):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def _within(column: pa.Array, low: Any, high: Any) -> bool:
    """Whether every value of ``column`` lies in [low, high] (NULLs aside)."""
    smallest, largest = pc.min_max(column).values()
    return smallest.as_py() is None or (low <= smallest.as_py() and largest.as_py() <= high)


def _pylist(column: pa.Array) -> list[Any]:
    return column.to_pylist()


def _checked(low: int, high: int) -> Kernel:
    def convert(column: pa.Array) -> list[Any] | None:
        return column.to_pylist() if _within(column, low, high) else None
    return convert


# --- per column type ------------------------------------------------------------------

def _integers(oid: int) -> Factory:
    def factory(_typmod: int, _settings: codecs.Settings, source: pa.DataType
                ) -> Kernel | None:
        if not pa.types.is_integer(source):
            return None
        low, high = _INTEGER_RANGES[oid]
        own_low, own_high = _integer_range(source)
        return _pylist if low <= own_low and own_high <= high else _checked(low, high)
    return factory


def _nan_marked(column: pa.Array) -> list[Any]:
    """Doubles as storage values: NaN as its text."""
    values = column.to_pylist()
    nan = pc.is_nan(column)
    if pc.any(nan).as_py():
        for index in pc.indices_nonzero(nan).to_pylist():
            values[index] = floats.NAN
    return values


def _doubles(column: pa.Array) -> list[Any]:
    return _nan_marked(column.cast(pa.float64()))


def _exact_doubles(column: pa.Array) -> list[Any] | None:
    """Integers as doubles, where each is one exactly."""
    if not _within(column, -_EXACT_IN_DOUBLE, _EXACT_IN_DOUBLE):
        return None
    return _pylist_of_doubles(column)


def _floats(oid: int) -> Factory:
    """float8 takes every float, and the integers a double holds exactly;
    float4 the floats and integers a float32 holds exactly (others are
    rounded from their text, which a kernel's rounding of a double does not
    reproduce)."""
    def factory(_typmod: int, _settings: codecs.Settings, source: pa.DataType
                ) -> Kernel | None:
        if pa.types.is_floating(source) and (oid == types.FLOAT8 or source.bit_width <= 32):
            return _doubles
        if pa.types.is_integer(source):
            if source.bit_width <= (32 if oid == types.FLOAT8 else 16):
                return _pylist_of_doubles
            return _exact_doubles if oid == types.FLOAT8 else None
        return None
    return factory


def _pylist_of_doubles(column: pa.Array) -> list[Any]:
    return column.cast(pa.float64()).to_pylist()


def _bool(_typmod: int, _settings: codecs.Settings, source: pa.DataType) -> Kernel | None:
    return _zero_one if pa.types.is_boolean(source) else None


def _zero_one(column: pa.Array) -> list[Any]:
    return column.cast(pa.int8()).to_pylist()


def _numeric(typmod: int, _settings: codecs.Settings, source: pa.DataType) -> Kernel | None:
    scale = numeric_storage.scaled_scale(typmod)
    shape = types.numeric_precision_scale(typmod)
    if pa.types.is_decimal(source):
        if scale is not None and shape is not None and 0 <= source.scale <= scale:
            return _scaled_decimals(shape[0], scale, source)
        return _decimals(typmod)
    if pa.types.is_integer(source) and scale is not None and shape is not None:
        return _scaled_integers(shape[0], scale)
    return None


def _decimals(typmod: int) -> Kernel:
    """Decimals one by one, as numeric input takes them, without their text."""
    def convert(column: pa.Array) -> list[Any]:
        return [None if value is None
                else numeric.stored(numeric.fit(numeric_storage.canonical(value), typmod), typmod)
                for value in column.to_pylist()]
    return convert


def _scaled_decimals(precision: int, scale: int, source: pa.DataType) -> Kernel | None:
    """Decimals of at most the column's scale, as the column's scaled
    integers (multiplied in Arrow's decimals, which must hold the product)."""
    if source.precision + scale + 2 > 38:
        return None
    factor = pa.scalar(Decimal(10**scale), pa.decimal128(scale + 1, 0))
    largest = Decimal(10 ** (precision - scale)) - Decimal(1).scaleb(-scale)

    def convert(column: pa.Array) -> list[Any] | None:
        if not _within(column, -largest, largest):
            return None
        return pc.multiply(column, factor).cast(pa.int64()).to_pylist()
    return convert


def _scaled_integers(precision: int, scale: int) -> Kernel:
    bound = 10 ** (precision - scale) - 1

    def convert(column: pa.Array) -> list[Any] | None:
        if not _within(column, -bound, bound):
            return None
        column = column.cast(pa.int64())
        return (pc.multiply(column, 10**scale) if scale else column).to_pylist()
    return convert


def _text(oid: int) -> Factory:
    """Strings into a column of ``oid``: kept as they are where its input
    takes any string as it is, else through its column decoder (with the
    value-by-value reference where that declines); NUL is refused."""
    def factory(typmod: int, settings: codecs.Settings, source: pa.DataType) -> Kernel | None:
        if not (pa.types.is_string(source) or pa.types.is_large_string(source)):
            return None
        if oid in (types.TEXT, types.VARCHAR, types.BPCHAR) and types.char_length(typmod) is None:
            return _strings(_pylist)
        return _strings(_column_decoded(codecs.column_decoder(oid, typmod, False, settings)))
    return factory


def _strings(convert: Kernel) -> Kernel:
    def checked(column: pa.Array) -> list[Any] | None:
        if pc.any(pc.match_substring(column, "\x00")).as_py():
            return None
        return convert(column)
    return checked


def _column_decoded(decode: codecs.ColumnDecoder) -> Kernel:
    def convert(column: pa.Array) -> list[Any] | None:
        try:
            return decode(column.cast(pa.large_binary()).to_pylist())
        except errors.SqlError:
            return None
    return convert


def _bytea(_typmod: int, _settings: codecs.Settings, source: pa.DataType) -> Kernel | None:
    binary = (pa.types.is_binary(source) or pa.types.is_large_binary(source)
              or pa.types.is_fixed_size_binary(source))
    return _pylist if binary else None


# --- dates and times ------------------------------------------------------------------

def _iso_text(column: pa.Array) -> list[Any]:
    """Microsecond times or timestamps in PostgreSQL's form: Arrow prints
    six decimals, PostgreSQL none of the trailing zeros."""
    printed = column.cast(pa.string())
    return pc.utf8_rtrim(pc.utf8_rtrim(printed, characters="0"), characters=".").to_pylist()


def _timestamps(with_zone: bool) -> Factory:
    """Timestamps in Python's years; a timestamp without zone into
    timestamptz is read in the session's zone, when that is a fixed offset."""
    def factory(typmod: int, settings: codecs.Settings, source: pa.DataType) -> Kernel | None:
        if not pa.types.is_timestamp(source) or 0 <= typmod < 6:
            return None
        shift = 0
        if source.tz is None and with_zone:
            zone = zones.session_zone(settings.timezone)
            if not zone.fixed:
                return None
            shift = zone.local_offset(0) * 1_000_000
        elif source.tz is not None and not with_zone and source.tz not in _UTC_NAMES:
            return None  # the wall clock of another zone
        return _utc_timestamps(shift)
    return factory


def _utc_timestamps(shift: int) -> Kernel:
    def convert(column: pa.Array) -> list[Any] | None:
        try:  # seconds or milliseconds beyond int64's microseconds
            micros = column.cast(pa.timestamp("us")).cast(pa.int64())
            if shift:
                micros = pc.subtract_checked(micros, shift)
        except pa.ArrowInvalid:
            return None
        if not _within(micros, _FIRST_DAY * _MICROS_PER_DAY, (_LAST_DAY + 1) * _MICROS_PER_DAY - 1):
            return None
        return _iso_text(micros.cast(pa.timestamp("us")))
    return convert


def _date(_typmod: int, _settings: codecs.Settings, source: pa.DataType) -> Kernel | None:
    return _dates if pa.types.is_date32(source) else None


def _dates(column: pa.Array) -> list[Any] | None:
    if not _within(column.cast(pa.int32()), _FIRST_DAY, _LAST_DAY):
        return None
    return column.cast(pa.string()).to_pylist()


def _time(typmod: int, _settings: codecs.Settings, source: pa.DataType) -> Kernel | None:
    usable = pa.types.is_time32(source) or (pa.types.is_time64(source) and source.unit == "us")
    return _times if usable and not 0 <= typmod < 6 else None


def _times(column: pa.Array) -> list[Any] | None:
    column = column.cast(pa.time64("us"))
    if not _within(column.cast(pa.int64()), 0, _MICROS_PER_DAY - 1):
        return None
    return _iso_text(column)


_FACTORIES: Final[dict[int, Factory]] = {
    **{oid: _integers(oid) for oid in _INTEGER_RANGES},
    types.FLOAT4: _floats(types.FLOAT4), types.FLOAT8: _floats(types.FLOAT8),
    types.BOOL: _bool, types.NUMERIC: _numeric, types.BYTEA: _bytea,
    types.DATE: _date, types.TIME: _time,
    types.TIMESTAMP: _timestamps(False), types.TIMESTAMPTZ: _timestamps(True),
}


def kernel(oid: int, typmod: int, settings: codecs.Settings, source: pa.DataType
           ) -> Kernel | None:
    """The kernel converting Arrow arrays of type ``source`` into storage
    values of a column of type ``oid``, if there is one."""
    factory = _FACTORIES.get(oid)
    found = None if factory is None else factory(typmod, settings, source)
    if found is None and (pa.types.is_string(source) or pa.types.is_large_string(source)):
        return _text(oid)(typmod, settings, source)
    return found
