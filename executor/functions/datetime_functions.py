"""Date/time functions: EXTRACT and date_part(), date_trunc(), date_bin(),
age(), AT TIME ZONE, the make_*() and justify_*() families, isfinite(),
timeofday() and the steps of generate_series() over timestamps
(``formatting_functions`` has to_char(), to_timestamp() and to_date()).

Each is declared with PostgreSQL's signatures (``Overload``); those serving
several types get the chosen parameter types' OIDs first. Storage values are
read into integers here (``executor.values`` computes on those) and printed
back. A timestamptz is read in the session's time zone where PostgreSQL reads
it so: its fields, its truncation, age().
"""

from __future__ import annotations

import time
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.sqltypes import (
    BOOL,
    DATE,
    FLOAT8,
    INT4,
    INTERVAL,
    TEXT,
    TIMESTAMP,
    TIMESTAMPTZ,
    SqlType,
)
from executor.codecs import numeric_storage
from executor.codecs.civil import (
    USECS_PER_DAY,
    USECS_PER_SECOND,
    format_clock,
    format_date,
    format_timestamp,
)
from executor.codecs.datetimes import stored_date, stored_time, stored_timestamp
from executor.codecs.intervals import format_interval, parse_interval
from executor.codecs.zones import Zone, function_zone, offset_or_zone, session_zone
from executor.functions.declare import Declarations, Function, Overload, Runtime
from executor.values import datetime_fields as fields
from executor.values import datetime_math as math
from executor.values.conversions import storage_timestamp

FUNCTIONS = Declarations()

TIME: Final = SqlType(t.TIME)
INFINITE: Final = frozenset({"infinity", "-infinity"})
"""The storage forms of infinite dates and timestamps."""


def session(runtime: Runtime) -> Zone:
    """The running statement's session time zone."""
    return session_zone(runtime.codec_settings().timezone)


def local_micros(micros: int, zone: Zone) -> int:
    """A UTC instant as the wall-clock time of ``zone``."""
    return micros + zone.utc_offset(micros) * USECS_PER_SECOND


def utc_micros(local: int, zone: Zone) -> int:
    """A wall-clock time of ``zone`` as a UTC instant."""
    return local - zone.local_offset(local) * USECS_PER_SECOND


def _interval_text(parts: tuple[int, int, int]) -> str:
    return format_interval(*parts)


# --- EXTRACT and date_part ----------------------------------------------------------------

def field_of(unit_name: str, value: Any, oid: int, zone: Zone) -> fields.Number | None:
    """EXTRACT(unit_name FROM value), a value of type ``oid``."""
    if oid in (t.DATE, t.TIMESTAMP, t.TIMESTAMPTZ) and value in INFINITE:
        return fields.infinite_field(unit_name, oid, value == "-infinity")
    unit = fields.extract_unit(unit_name, oid)
    if oid == t.DATE:
        return fields.date_field(unit, stored_date(value))
    if oid == t.TIME:
        return fields.time_field(unit, stored_time(value))
    if oid == t.INTERVAL:
        return fields.interval_field(unit, *parse_interval(str(value)))
    micros = stored_timestamp(value)
    if oid == t.TIMESTAMP:
        return fields.timestamp_field(unit, micros)
    offset = zone.utc_offset(micros)
    return fields.timestamp_field(unit, micros + offset * USECS_PER_SECOND, micros, offset)


@FUNCTIONS.internal("sqlext_extract", 4, runtime=True)
def _extract(runtime: Runtime) -> Function:
    """EXTRACT(field FROM value): numeric, shown with the scale the
    translator knows for the field (a key, as numeric values are)."""
    def extract(unit_name: str, value: Any, oid: int, scale: int) -> Any:
        if value is None:
            return None
        found = field_of(unit_name, value, oid, session(runtime))
        if found is None:
            return None
        number = Decimal(found) if isinstance(found, int) else Decimal(repr(found))
        if not number.is_finite():
            return numeric_storage.key(number)
        return numeric_storage.key(number.quantize(Decimal(1).scaleb(-scale), ROUND_HALF_UP))
    return extract


@FUNCTIONS.overloaded(
    "date_part",
    *(Overload((TEXT, SqlType(oid)), FLOAT8)
      for oid in (t.DATE, t.TIME, t.TIMESTAMP, t.TIMESTAMPTZ, t.INTERVAL)),
    type_args=(1,), runtime=True)
def _date_part(runtime: Runtime) -> Function:
    def date_part(oid: int, unit_name: Any, value: Any) -> Any:
        if unit_name is None or value is None:
            return None
        if oid == t.DATE:  # PostgreSQL's date_part(text, date) reads a timestamp
            oid = t.TIMESTAMP
            value = format_timestamp(stored_date(value) * USECS_PER_DAY) \
                if value not in INFINITE else value
        found = field_of(str(unit_name), value, oid, session(runtime))
        return None if found is None else float(found)
    return date_part


# --- date_trunc and date_bin ------------------------------------------------------------------

@FUNCTIONS.overloaded(
    "date_trunc",
    Overload((TEXT, TIMESTAMP), TIMESTAMP),
    Overload((TEXT, TIMESTAMPTZ), TIMESTAMPTZ),
    Overload((TEXT, INTERVAL), INTERVAL),
    Overload((TEXT, TIMESTAMPTZ, TEXT), TIMESTAMPTZ),
    type_args=(1,), runtime=True)
def _date_trunc(runtime: Runtime) -> Function:
    def date_trunc(oid: int, unit_name: Any, value: Any, *zone_name: Any) -> Any:
        if unit_name is None or value is None or None in zone_name:
            return None
        if oid == t.INTERVAL:
            unit = fields.trunc_unit(str(unit_name), oid)
            return _interval_text(fields.truncate_interval(unit, *parse_interval(str(value))))
        if value in INFINITE:
            return value
        unit = fields.trunc_unit(str(unit_name), oid)
        micros = stored_timestamp(value)
        if oid == t.TIMESTAMP:
            return format_timestamp(fields.truncate_timestamp(unit, micros).micros)
        zone = function_zone(str(zone_name[0])) if zone_name else session(runtime)
        offset = zone.utc_offset(micros) * USECS_PER_SECOND
        truncated = fields.truncate_timestamp(unit, micros + offset)
        if truncated.whole_days:
            return format_timestamp(utc_micros(truncated.micros, zone))
        return format_timestamp(truncated.micros - offset)
    return date_trunc


@FUNCTIONS.overloaded(
    "date_bin",
    Overload((INTERVAL, TIMESTAMP, TIMESTAMP), TIMESTAMP),
    Overload((INTERVAL, TIMESTAMPTZ, TIMESTAMPTZ), TIMESTAMPTZ))
def _date_bin(stride: Any, source: Any, origin: Any) -> Any:
    if stride is None or source is None or origin is None:
        return None
    if source in INFINITE:
        return source
    if origin in INFINITE:
        raise errors.DatetimeFieldOverflow("origin out of range")
    return format_timestamp(math.date_bin(parse_interval(str(stride)), stored_timestamp(source),
                                          stored_timestamp(origin)))


# --- age and time zones --------------------------------------------------------------------

@FUNCTIONS.overloaded(
    "age",
    Overload((TIMESTAMP, TIMESTAMP), INTERVAL),
    Overload((TIMESTAMPTZ, TIMESTAMPTZ), INTERVAL),
    Overload((TIMESTAMP,), INTERVAL),
    Overload((TIMESTAMPTZ,), INTERVAL),
    type_args=(0,), runtime=True)
def _age(runtime: Runtime) -> Function:
    def age(oid: int, *values: Any) -> Any:
        if any(value is None for value in values):
            return None
        zone = session(runtime)
        stamps = [stored_timestamp(value) for value in values]
        if oid == t.TIMESTAMPTZ:
            stamps = [local_micros(stamp, zone) for stamp in stamps]
        if len(stamps) == 1:  # age(x) is age(CURRENT_DATE, x)
            start = stored_timestamp(storage_timestamp(runtime.context().transaction_start))
            stamps.insert(0, local_micros(start, zone) // USECS_PER_DAY * USECS_PER_DAY)
        return _interval_text(math.age(*stamps))
    return age


@FUNCTIONS.overloaded(
    "timezone",
    Overload((TEXT, TIMESTAMP), TIMESTAMPTZ),
    Overload((TEXT, TIMESTAMPTZ), TIMESTAMP),
    Overload((INTERVAL, TIMESTAMP), TIMESTAMPTZ),
    Overload((INTERVAL, TIMESTAMPTZ), TIMESTAMP),
    type_args=(0, 1))
def _timezone(zone_oid: int, oid: int, zone_value: Any, value: Any) -> Any:
    """value AT TIME ZONE zone: a timestamp read in the zone, or a
    timestamptz shown in it."""
    if zone_value is None or value is None:
        return None
    if value in INFINITE:
        return value
    zone = function_zone(str(zone_value)) if zone_oid == t.TEXT else _interval_zone(zone_value)
    micros = stored_timestamp(value)
    if oid == t.TIMESTAMP:
        return format_timestamp(math.checked_timestamp(utc_micros(micros, zone)))
    return format_timestamp(math.checked_timestamp(local_micros(micros, zone)))


def _interval_zone(value: Any) -> Zone:
    months, days, micros = parse_interval(str(value))
    if months or days:
        raise errors.InvalidParameterValue(
            f'interval time zone "{value}" must not include months or days')
    return Zone(micros // USECS_PER_SECOND)


# --- building values ---------------------------------------------------------------------

@FUNCTIONS.overloaded("make_date", Overload((INT4, INT4, INT4), DATE,
                                            names=("year", "month", "day")))
def _make_date(year: Any, month: Any, day: Any) -> Any:
    if year is None or month is None or day is None:
        return None
    return format_date(math.make_date(year, month, day))


@FUNCTIONS.overloaded("make_time", Overload((INT4, INT4, FLOAT8), TIME,
                                            names=("hour", "min", "sec")))
def _make_time(hour: Any, minute: Any, second: Any) -> Any:
    if hour is None or minute is None or second is None:
        return None
    return format_clock(math.make_time(hour, minute, float(second)))


_TIMESTAMP_PARAMS: Final = (INT4, INT4, INT4, INT4, INT4, FLOAT8)
_TIMESTAMP_NAMES: Final = ("year", "month", "mday", "hour", "min", "sec")


@FUNCTIONS.overloaded("make_timestamp", Overload(_TIMESTAMP_PARAMS, TIMESTAMP,
                                                 names=_TIMESTAMP_NAMES))
def _make_timestamp(*parts: Any) -> Any:
    if any(part is None for part in parts):
        return None
    *whole, second = parts
    return format_timestamp(math.make_timestamp(*whole, float(second)))


@FUNCTIONS.overloaded(
    "make_timestamptz",
    Overload(_TIMESTAMP_PARAMS, TIMESTAMPTZ, names=_TIMESTAMP_NAMES),
    Overload((*_TIMESTAMP_PARAMS, TEXT), TIMESTAMPTZ, names=(*_TIMESTAMP_NAMES, "timezone")),
    runtime=True)
def _make_timestamptz(runtime: Runtime) -> Function:
    def make_timestamptz(*parts: Any) -> Any:
        if any(part is None for part in parts):
            return None
        year, month, day, hour, minute, second, *zone_name = parts
        local = math.make_timestamp(year, month, day, hour, minute, float(second))
        zone = offset_or_zone(str(zone_name[0])) if zone_name else session(runtime)
        return format_timestamp(math.checked_timestamp(utc_micros(local, zone)))
    return make_timestamptz


@FUNCTIONS.overloaded("make_interval", Overload(
    (INT4, INT4, INT4, INT4, INT4, INT4, FLOAT8), INTERVAL,
    names=("years", "months", "weeks", "days", "hours", "mins", "secs"),
    defaults=(0, 0, 0, 0, 0, 0, 0.0)))
def _make_interval(*parts: Any) -> Any:
    if any(part is None for part in parts):
        return None
    *whole, seconds = parts
    return _interval_text(math.make_interval(*whole, float(seconds)))


# --- intervals ----------------------------------------------------------------------------

def _justify(name: str, justify: Any) -> None:
    @FUNCTIONS.overloaded(name, Overload((INTERVAL,), INTERVAL), sqlite=f"sqlext_{name}")
    def function(value: Any) -> Any:
        if value is None:
            return None
        return _interval_text(justify(*parse_interval(str(value))))


for _name, _justification in (("justify_days", math.justify_days),
                              ("justify_hours", math.justify_hours),
                              ("justify_interval", math.justify_interval)):
    _justify(_name, _justification)


@FUNCTIONS.overloaded(
    "isfinite",
    *(Overload((SqlType(oid),), BOOL) for oid in (t.DATE, t.TIMESTAMP, t.TIMESTAMPTZ,
                                                  t.INTERVAL)))
def _isfinite(value: Any) -> Any:
    return None if value is None else int(value not in INFINITE)


@FUNCTIONS.overloaded("timeofday", Overload((), TEXT), runtime=True)
def _timeofday(runtime: Runtime) -> Function:
    """The wall clock as text, as PostgreSQL prints it: 'Thu Nov 26 15:24:10.123456 2026 UTC'."""
    def timeofday() -> str:
        now = stored_timestamp(storage_timestamp(runtime.executor.clock()))
        zone = session(runtime)
        local = local_micros(now, zone)
        days, clock = divmod(local, USECS_PER_DAY)
        stamp = time.gmtime((days - fields.UNIX_EPOCH_DAYS) * 86_400 + clock // USECS_PER_SECOND)
        return (time.strftime("%a %b %d %H:%M:%S", stamp)
                + f".{clock % USECS_PER_SECOND:06d} {stamp.tm_year} {zone.abbreviation(now)}")
    return timeofday


# --- generate_series over timestamps -------------------------------------------------------

def _direction(step: Any) -> int:
    """+1 or -1: which way a series with this (interval) step runs."""
    span = math.interval_span(*parse_interval(str(step)))
    if span == 0:
        raise errors.InvalidParameterValue("step size cannot equal zero")
    return 1 if span > 0 else -1


def _within(micros: int, direction: int, stop: Any) -> bool:
    end = stored_timestamp(stop)
    return micros <= end if direction > 0 else micros >= end


@FUNCTIONS.internal("sqlext_series_first", 4)
def _series_first(start: Any, step: Any, stop: Any, oid: int) -> Any:
    """The first value of generate_series(start, stop, step), or NULL for none."""
    if start is None or step is None or stop is None:
        return None
    return start if _within(stored_timestamp(start), _direction(step), stop) else None


@FUNCTIONS.internal("sqlext_series_following", 4, runtime=True)
def _series_following(runtime: Runtime) -> Function:
    """The value after ``value`` in the series, or NULL past its stop."""
    def following(value: Any, step: Any, stop: Any, oid: int) -> Any:
        zone = session(runtime) if oid == t.TIMESTAMPTZ else None
        moved = math.add_interval(stored_timestamp(value), parse_interval(str(step)), zone)
        return format_timestamp(moved) if _within(moved, _direction(step), stop) else None
    return following
