"""Date/time computations of PostgreSQL's functions on integer values:
age(), the justify_*() family, date_bin(), and building values from their
fields (make_date() and its siblings, to_timestamp(double precision)).

Timestamps are microseconds since 2000-01-01, dates days since then, an
interval is (months, days, microseconds); years are astronomical (0 is 1 BC).
Arithmetic follows PostgreSQL's C code, truncating division included.
"""

from __future__ import annotations

import math
from typing import Final

from catalog import errors
from executor.codecs.civil import (
    DATE_END,
    DATE_MIN,
    TIMESTAMP_END,
    TIMESTAMP_MIN,
    TIMESTAMP_NEG_INFINITY,
    TIMESTAMP_POS_INFINITY,
    USECS_PER_DAY,
    USECS_PER_MINUTE,
    USECS_PER_SECOND,
    civil_from_days,
    days_from_civil,
    days_in_month,
)
from executor.codecs.zones import Zone
from executor.values.datetime_fields import UNIX_EPOCH_DAYS

_DAYS_PER_MONTH: Final = 30
_INT32: Final = (-(2**31), 2**31 - 1)
_INT64: Final = (-(2**63), 2**63 - 1)

Interval = tuple[int, int, int]
"""(months, days, microseconds)."""


def _c_div(numerator: int, denominator: int) -> int:
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator > 0) else -quotient


def checked_interval(months: int, days: int, micros: int) -> Interval:
    """An interval whose fields fit PostgreSQL's, or 22008."""
    if not (_INT32[0] <= months <= _INT32[1] and _INT32[0] <= days <= _INT32[1]
            and _INT64[0] <= micros <= _INT64[1]):
        raise errors.DatetimeFieldOverflow("interval out of range")
    return months, days, micros


def checked_timestamp(micros: int) -> int:
    if not TIMESTAMP_MIN <= micros < TIMESTAMP_END:
        raise errors.DatetimeFieldOverflow("timestamp out of range")
    return micros


# --- timestamp + interval ----------------------------------------------------------------

def _add_months(local: int, months: int) -> int:
    """Months later, on the same day or the month's last (January 31st + 1 month)."""
    days, clock = divmod(local, USECS_PER_DAY)
    year, month, day = civil_from_days(days)
    year, month_index = divmod(year * 12 + month - 1 + months, 12)
    day = min(day, days_in_month(year, month_index + 1))
    return days_from_civil(year, month_index + 1, day) * USECS_PER_DAY + clock


def add_interval(micros: int, interval: Interval, zone: Zone | None = None) -> int:
    """timestamp + interval. A timestamptz (``zone`` given) moves by months,
    then by days, in the zone's wall-clock time, each step taking the
    offset in force where it lands (a day across a DST change is 23 or 25
    hours), then by the microseconds; infinities stay."""
    if micros in (TIMESTAMP_POS_INFINITY, TIMESTAMP_NEG_INFINITY):
        return micros
    months, days, extra = interval
    for step, amount in ((_add_months, months), (_add_days, days)):
        if amount:
            if zone is None:
                micros = step(micros, amount)
            else:
                local = step(micros + zone.utc_offset(micros) * USECS_PER_SECOND, amount)
                micros = local - zone.local_offset(local) * USECS_PER_SECOND
    return checked_timestamp(micros + extra)


def _add_days(local: int, days: int) -> int:
    return local + days * USECS_PER_DAY


def interval_span(months: int, days: int, micros: int) -> int:
    """An interval's length for comparisons: a month is 30 days, a day 24 hours."""
    return (months * _DAYS_PER_MONTH + days) * USECS_PER_DAY + micros


# --- age --------------------------------------------------------------------------------

def _fields(micros: int) -> list[int]:
    """[year, month, day, hour, minute, second, microsecond] of a timestamp."""
    days, clock = divmod(micros, USECS_PER_DAY)
    seconds, fraction = divmod(clock, USECS_PER_SECOND)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    return [*civil_from_days(days), hour, minute, second, fraction]


def age(later: int, earlier: int) -> Interval:
    """age(a, b): field-by-field differences borrowed upwards, months of the
    earlier value's calendar (timestamp_age); both given in local time."""
    first, second = _fields(later), _fields(earlier)
    year, month, day, hour, minute, sec, fraction = (a - b for a, b in zip(first, second,
                                                                           strict=True))
    negative = later < earlier
    if negative:
        year, month, day, hour, minute, sec, fraction = (
            -year, -month, -day, -hour, -minute, -sec, -fraction)
    while fraction < 0:
        fraction += USECS_PER_SECOND
        sec -= 1
    while sec < 0:
        sec += 60
        minute -= 1
    while minute < 0:
        minute += 60
        hour -= 1
    while hour < 0:
        hour += 24
        day -= 1
    borrowed = first if negative else second
    while day < 0:
        day += days_in_month(borrowed[0], borrowed[1])
        month -= 1
    while month < 0:
        month += 12
        year -= 1
    sign = -1 if negative else 1
    micros = ((hour * 60 + minute) * 60 + sec) * USECS_PER_SECOND + fraction
    return checked_interval(sign * (year * 12 + month), sign * day, sign * micros)


# --- justify ----------------------------------------------------------------------------

def _one_sign(larger: int, smaller: int, unit: int, tied: int = 0) -> tuple[int, int]:
    """``larger`` and ``smaller`` (worth ``unit`` of it) made the same sign by
    moving one ``unit`` between them; ``tied``: the sign ``smaller`` has when
    it is zero (justify_interval looks at the next field then)."""
    sign = (smaller > 0) - (smaller < 0) or tied
    if larger > 0 and sign < 0:
        return larger - 1, smaller + unit
    if larger < 0 and sign > 0:
        return larger + 1, smaller - unit
    return larger, smaller


def _carried(larger: int, smaller: int, unit: int) -> tuple[int, int]:
    """The whole ``unit``s of ``smaller`` moved into ``larger`` (truncating,
    as C divides)."""
    whole = _c_div(smaller, unit)
    return larger + whole, smaller - whole * unit


def justify_hours(months: int, days: int, micros: int) -> Interval:
    days, micros = _one_sign(*_carried(days, micros, USECS_PER_DAY), USECS_PER_DAY)
    return checked_interval(months, days, micros)


def justify_days(months: int, days: int, micros: int) -> Interval:
    months, days = _one_sign(*_carried(months, days, _DAYS_PER_MONTH), _DAYS_PER_MONTH)
    return checked_interval(months, days, micros)


def justify_interval(months: int, days: int, micros: int) -> Interval:
    days, micros = _carried(days, micros, USECS_PER_DAY)
    months, days = _carried(months, days, _DAYS_PER_MONTH)
    months, days = _one_sign(months, days, _DAYS_PER_MONTH,
                             tied=(micros > 0) - (micros < 0))
    days, micros = _one_sign(days, micros, USECS_PER_DAY)
    return checked_interval(months, days, micros)


# --- date_bin ---------------------------------------------------------------------------

def date_bin(stride: Interval, source: int, origin: int) -> int:
    """The start of the bin of width ``stride`` (no months) that holds
    ``source``, bins counted from ``origin``."""
    months, days, micros = stride
    if months:
        raise errors.FeatureNotSupported(
            "timestamps cannot be binned into intervals containing months or years")
    width = days * USECS_PER_DAY + micros
    if width <= 0:
        raise errors.DatetimeFieldOverflow("stride must be greater than zero")
    delta = width * _c_div(source - origin, width)
    if origin > source and width > 1:
        delta -= width  # the bin's start, even when the origin lies ahead
    return checked_timestamp(origin + delta)


# --- building values from fields -----------------------------------------------------

def make_date(year: int, month: int, day: int) -> int:
    """Days since 2000 of a date whose negative years are BC."""
    astronomical = year + 1 if year < 0 else year
    if year == 0 or not 1 <= month <= 12 or not 1 <= day <= days_in_month(astronomical, month):
        raise errors.DatetimeFieldOverflow(
            f"date field value out of range: {year}-{month:02d}-{day:02d}")
    days = days_from_civil(astronomical, month, day)
    if not DATE_MIN <= days < DATE_END:
        raise errors.DatetimeFieldOverflow(f"date out of range: {year}-{month:02d}-{day:02d}")
    return days


def make_time(hour: int, minute: int, second: float) -> int:
    """Microseconds since midnight, or 22008 beyond 24:00:00."""
    micros = None if math.isnan(second) else round(second * USECS_PER_SECOND)
    if (micros is None or not 0 <= hour <= 24 or not 0 <= minute < 60
            or not 0 <= micros <= 60 * USECS_PER_SECOND
            or (hour * 60 + minute) * USECS_PER_MINUTE + micros > USECS_PER_DAY):
        raise errors.DatetimeFieldOverflow(
            f"time field value out of range: {hour}:{minute:02d}:{_seconds_text(second)}")
    return (hour * 60 + minute) * USECS_PER_MINUTE + micros


def _seconds_text(second: float) -> str:
    """C's %02g."""
    text = f"{second:g}"
    return text if len(text) >= 2 else text.rjust(2, "0")


def make_timestamp(year: int, month: int, day: int, hour: int, minute: int,
                   second: float) -> int:
    """A local timestamp from its fields (negative years are BC)."""
    days = make_date(year, month, day)
    return checked_timestamp(days * USECS_PER_DAY + make_time(hour, minute, second))


def make_interval(years: int, months: int, weeks: int, days: int, hours: int, minutes: int,
                  seconds: float) -> Interval:
    if math.isinf(seconds) or math.isnan(seconds):
        raise errors.DatetimeFieldOverflow("interval out of range")
    micros = (hours * 60 + minutes) * USECS_PER_MINUTE + round(seconds * USECS_PER_SECOND)
    return checked_interval(years * 12 + months, weeks * 7 + days, micros)


def from_unix_seconds(seconds: float) -> int:
    """to_timestamp(double precision): a finite number of seconds since 1970."""
    if math.isnan(seconds):
        raise errors.DatetimeFieldOverflow("timestamp cannot be NaN")
    unix_start = UNIX_EPOCH_DAYS * USECS_PER_DAY
    if not TIMESTAMP_MIN - unix_start <= seconds * USECS_PER_SECOND < TIMESTAMP_END - unix_start:
        raise errors.DatetimeFieldOverflow(f'timestamp out of range: "{seconds:g}"')
    return checked_timestamp(round(seconds * USECS_PER_SECOND) + unix_start)

