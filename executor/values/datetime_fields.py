"""The fields of date/time values: EXTRACT, date_part() and date_trunc().

Values come as integers (days or microseconds since 2000-01-01, an interval's
months, days and microseconds), timestamps already in the local time their
fields are read in. Unit names are read as PostgreSQL's DecodeUnits and
DecodeSpecial read them: lower-cased, compared on their first ten characters.
Years are astronomical here (0 is 1 BC); the year-like fields follow
PostgreSQL's formulas for BC years, C's truncating division included.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from catalog import errors
from catalog import types as t
from executor.codecs.civil import (
    USECS_PER_DAY,
    USECS_PER_HOUR,
    USECS_PER_MINUTE,
    USECS_PER_SECOND,
    civil_from_days,
    days_from_civil,
)

JULIAN_2000: Final = 2_451_545
"""The Julian day number of 2000-01-01."""
UNIX_EPOCH_DAYS: Final = days_from_civil(1970, 1, 1)
_TOKEN_LENGTH: Final = 10

_UNIT_WORDS: Final[dict[str, str]] = {
    word: unit
    for unit, words in {
        "century": "c cent centuries century",
        "day": "d day days",
        "decade": "dec decade decades decs",
        "hour": "h hour hours hr hrs",
        "minute": "m min mins minute minutes",
        "microseconds": "microsecon us usec usecond useconds usecs",
        "millennium": "mil millennia millennium mils",
        "milliseconds": "millisecon ms msec msecond mseconds msecs",
        "month": "mon mons month months",
        "quarter": "qtr quarter",
        "second": "s sec second seconds secs",
        "timezone": "timezone",
        "timezone_hour": "timezone_h",
        "timezone_minute": "timezone_m",
        "week": "w week weeks",
        "year": "y year years yr yrs",
    }.items()
    for word in words.split()
}
"""DecodeUnits' table (deltatktbl): what date_trunc() knows."""
_SPECIAL_WORDS: Final[dict[str, str]] = {
    "dow": "dow", "doy": "doy", "isodow": "isodow", "isoyear": "isoyear",
    "epoch": "epoch", "j": "julian", "jd": "julian", "julian": "julian",
}
"""The units DecodeSpecial adds for EXTRACT and date_part() (datetktbl)."""

_DATE_UNITS: Final = frozenset({
    "day", "month", "year", "decade", "century", "millennium", "isoyear", "quarter",
    "week", "dow", "isodow", "doy", "julian", "epoch"})
_TIME_UNITS: Final = frozenset({"microseconds", "milliseconds", "second", "minute", "hour",
                                "epoch"})
_ZONE_UNITS: Final = frozenset({"timezone", "timezone_hour", "timezone_minute"})
EXTRACT_UNITS: Final[dict[int, frozenset[str]]] = {
    t.DATE: _DATE_UNITS,
    t.TIME: _TIME_UNITS,
    t.TIMESTAMP: _DATE_UNITS | _TIME_UNITS,
    t.TIMESTAMPTZ: _DATE_UNITS | _TIME_UNITS | _ZONE_UNITS,
    t.INTERVAL: frozenset({"microseconds", "milliseconds", "second", "minute", "hour", "day",
                           "month", "quarter", "year", "decade", "century", "millennium",
                           "epoch"}),
}
GROWING_UNITS: Final = frozenset({"year", "decade", "century", "millennium", "julian",
                                  "isoyear", "epoch"})
"""Infinite values have infinite fields of these units (and none of the others)."""
_FINITE_UNITS: Final = frozenset({"microseconds", "milliseconds", "second", "minute", "hour",
                                  "day", "month", "quarter", "week", "dow", "isodow", "doy",
                                  *_ZONE_UNITS})
_TRUNC_UNITS: Final[dict[int, frozenset[str]]] = {
    t.TIMESTAMP: frozenset({"microseconds", "milliseconds", "second", "minute", "hour", "day",
                            "week", "month", "quarter", "year", "decade", "century",
                            "millennium"}),
    t.INTERVAL: frozenset({"microseconds", "milliseconds", "second", "minute", "hour", "day",
                           "month", "quarter", "year", "decade", "century", "millennium"}),
}
_TRUNC_UNITS[t.TIMESTAMPTZ] = _TRUNC_UNITS[t.TIMESTAMP]

Number = int | float


def _c_div(numerator: int, denominator: int) -> int:
    """C's integer division: truncates toward zero."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator > 0) else -quotient


def _c_mod(numerator: int, denominator: int) -> int:
    return numerator - denominator * _c_div(numerator, denominator)


def _not_recognized(name: str, oid: int) -> errors.SqlError:
    return errors.InvalidParameterValue(
        f'unit "{name}" not recognized for type {t.format_type(oid)}')


def _not_supported(name: str, oid: int) -> errors.SqlError:
    return errors.FeatureNotSupported(
        f'unit "{name}" not supported for type {t.format_type(oid)}')


def unit_of(name: str) -> str | None:
    """The unit EXTRACT reads for a field name (None: none)."""
    key = name.lower()[:_TOKEN_LENGTH]
    return _UNIT_WORDS.get(key) or _SPECIAL_WORDS.get(key)


EXTRACT_SCALES: Final = {"second": 6, "epoch": 6, "milliseconds": 3, "julian": 20}
"""The decimal places EXTRACT's numeric shows for fields of timestamps, times
and intervals (a date's are whole numbers); julian's vary with the time of
day in PostgreSQL, 20 for any time past 00:01:40."""


def extract_unit(name: str, oid: int) -> str:
    """The unit EXTRACT(name FROM a value of type ``oid``) reads, or its error."""
    unit = unit_of(name)
    if unit is None:
        raise _not_recognized(name, oid)
    if unit not in EXTRACT_UNITS[oid]:
        raise _not_supported(name, oid)
    return unit


def infinite_field(name: str, oid: int, negative: bool) -> float | None:
    """A field of ±infinity: infinite for the growing units, NULL for the others."""
    unit = unit_of(name)
    if unit is None:
        raise _not_recognized(name, oid)
    if unit in GROWING_UNITS:
        return -float("inf") if negative else float("inf")
    if unit in _FINITE_UNITS and (oid != t.DATE or unit in _DATE_UNITS):
        return None
    raise _not_supported(name, oid)


def trunc_unit(name: str, oid: int) -> str:
    """The unit date_trunc(name, a value of type ``oid``) truncates to, or its error."""
    unit = _UNIT_WORDS.get(name.lower()[:_TOKEN_LENGTH])
    if unit is None:
        raise _not_recognized(name, oid)
    if unit not in _TRUNC_UNITS[oid]:
        raise _not_supported(name, oid)
    return unit


# --- calendar helpers -----------------------------------------------------------------

def day_of_week(days: int) -> int:
    """0 for Sunday .. 6 for Saturday (2000-01-01 was a Saturday)."""
    return (days + 6) % 7


def iso_week_start(iso_year: int) -> int:
    """The Monday that starts ISO year ``iso_year`` (the week of January 4th)."""
    january4 = days_from_civil(iso_year, 1, 4)
    return january4 - (day_of_week(january4) + 6) % 7


def iso_year_week(days: int) -> tuple[int, int]:
    """(ISO year, ISO week) of a day."""
    year = civil_from_days(days)[0]
    start = iso_week_start(year + 1)
    if days >= start:
        year += 1
    else:
        start = iso_week_start(year)
        if days < start:
            year -= 1
            start = iso_week_start(year)
    return year, (days - start) // 7 + 1


def _bc_year(year: int) -> int:
    """PostgreSQL's signed year: 1 BC is -1."""
    return year if year > 0 else year - 1


def _decade(year: int) -> int:
    return year // 10 if year >= 0 else -((8 - (year - 1)) // 10)


def _century(year: int) -> int:
    return (year + 99) // 100 if year > 0 else -((99 - (year - 1)) // 100)


def _millennium(year: int) -> int:
    return (year + 999) // 1000 if year > 0 else -((999 - (year - 1)) // 1000)


# --- EXTRACT ---------------------------------------------------------------------------

def date_field(unit: str, days: int) -> int:
    """A field of a date (days since 2000-01-01)."""
    year, month, day = civil_from_days(days)
    match unit:
        case "day":
            return day
        case "month":
            return month
        case "year":
            return _bc_year(year)
        case "decade":
            return _decade(year)
        case "century":
            return _century(year)
        case "millennium":
            return _millennium(year)
        case "isoyear":
            return _bc_year(iso_year_week(days)[0])
        case "quarter":
            return (month - 1) // 3 + 1
        case "week":
            return iso_year_week(days)[1]
        case "dow":
            return day_of_week(days)
        case "isodow":
            return day_of_week(days) or 7
        case "doy":
            return days - days_from_civil(year, 1, 1) + 1
        case "julian":
            return days + JULIAN_2000
        case _:  # epoch
            return (days - UNIX_EPOCH_DAYS) * 86_400


def time_field(unit: str, micros: int) -> Number:
    """A field of a time of day (microseconds since midnight)."""
    seconds_micros = micros % USECS_PER_MINUTE
    match unit:
        case "microseconds":
            return seconds_micros
        case "milliseconds":
            return seconds_micros / 1000
        case "second":
            return seconds_micros / USECS_PER_SECOND
        case "minute":
            return micros // USECS_PER_MINUTE % 60
        case "hour":
            return micros // USECS_PER_HOUR
        case _:  # epoch
            return micros / USECS_PER_SECOND


def timestamp_field(unit: str, local: int, utc: int | None = None, offset: int = 0) -> Number:
    """A field of a timestamp given in local time; for a timestamptz also its
    UTC instant and zone offset (seconds east)."""
    days, clock = divmod(local, USECS_PER_DAY)
    if unit in _ZONE_UNITS:
        if unit == "timezone":
            return offset
        if unit == "timezone_hour":
            return _c_div(offset, 3600)
        return _c_mod(_c_div(offset, 60), 60)
    if unit == "epoch":
        since = (utc if utc is not None else local) - UNIX_EPOCH_DAYS * USECS_PER_DAY
        return since / USECS_PER_SECOND
    if unit == "julian":
        return days + JULIAN_2000 + clock / USECS_PER_DAY
    if unit in _TIME_UNITS:
        return time_field(unit, clock)
    return date_field(unit, days)


def interval_field(unit: str, months: int, days: int, micros: int) -> Number:
    """A field of an interval, C's truncating arithmetic throughout."""
    years = _c_div(months, 12)
    seconds_micros = _c_mod(micros, USECS_PER_MINUTE)
    match unit:
        case "microseconds":
            return seconds_micros
        case "milliseconds":
            return seconds_micros / 1000
        case "second":
            return seconds_micros / USECS_PER_SECOND
        case "minute":
            return _c_mod(_c_div(micros, USECS_PER_MINUTE), 60)
        case "hour":
            return _c_div(micros, USECS_PER_HOUR)
        case "day":
            return days
        case "month":
            return _c_mod(months, 12)
        case "quarter":
            return _c_div(_c_mod(months, 12), 3) + 1
        case "year":
            return years
        case "decade":
            return _c_div(years, 10)
        case "century":
            return _c_div(years, 100)
        case "millennium":
            return _c_div(years, 1000)
        case _:  # epoch: a year is 365.25 days, a month 30
            whole = years * 31_557_600 + _c_mod(months, 12) * 2_592_000 + days * 86_400
            return whole + micros / USECS_PER_SECOND


# --- date_trunc -------------------------------------------------------------------------

class Truncated(NamedTuple):
    micros: int
    """The truncated local timestamp."""
    whole_days: bool
    """Whether it fell to a day boundary (a timestamptz then takes the
    zone's offset anew)."""


def truncate_timestamp(unit: str, local: int) -> Truncated:
    """date_trunc() of a local timestamp."""
    days, clock = divmod(local, USECS_PER_DAY)
    small = {"microseconds": 1, "milliseconds": 1000, "second": USECS_PER_SECOND,
             "minute": USECS_PER_MINUTE, "hour": USECS_PER_HOUR}
    if unit in small:
        return Truncated(local - clock % small[unit], False)
    year, month, _ = civil_from_days(days)
    match unit:
        case "day":
            start = days
        case "week":
            start = days - (day_of_week(days) + 6) % 7
        case "month":
            start = days_from_civil(year, month, 1)
        case "quarter":
            start = days_from_civil(year, (month - 1) // 3 * 3 + 1, 1)
        case "year":
            start = days_from_civil(year, 1, 1)
        case "decade":
            start = days_from_civil(year // 10 * 10 if year > 0 else
                                    -((8 - (year - 1)) // 10) * 10, 1, 1)
        case "century":
            start = days_from_civil(_century(year) * 100 - 99 if year > 0 else
                                    _century(year) * 100 + 1, 1, 1)
        case _:  # millennium
            start = days_from_civil(_millennium(year) * 1000 - 999 if year > 0 else
                                    _millennium(year) * 1000 + 1, 1, 1)
    return Truncated(start * USECS_PER_DAY, True)


def truncate_interval(unit: str, months: int, days: int, micros: int) -> tuple[int, int, int]:
    """date_trunc() of an interval: (months, days, microseconds)."""
    small = {"microseconds": 1, "milliseconds": 1000, "second": USECS_PER_SECOND,
             "minute": USECS_PER_MINUTE, "hour": USECS_PER_HOUR}
    if unit in small:
        return months, days, micros - _c_mod(micros, small[unit])
    if unit == "day":
        return months, days, 0
    years, month = _c_div(months, 12), _c_mod(months, 12)
    match unit:
        case "month":
            return months, 0, 0
        case "quarter":
            return years * 12 + 3 * _c_div(month, 3), 0, 0
        case "year":
            return years * 12, 0, 0
        case "decade":
            return _c_div(years, 10) * 120, 0, 0
        case "century":
            return _c_div(years, 100) * 1200, 0, 0
        case _:  # millennium
            return _c_div(years, 1000) * 12000, 0, 0
