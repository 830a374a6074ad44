"""Proleptic Gregorian calendar arithmetic and PostgreSQL's ISO date/time layout.

PostgreSQL counts dates in days and timestamps in microseconds from 2000-01-01
and accepts years from 4713 BC to 294276 AD (dates up to 5874897 AD), far beyond
Python's datetime (years 1-9999), so the codecs do their own integer arithmetic
(Howard Hinnant's days-from-civil algorithms). Years here are astronomical:
year 0 is 1 BC, which PostgreSQL prints as '0001 BC'.
"""

from __future__ import annotations

from typing import Final

USECS_PER_SECOND: Final = 1_000_000
USECS_PER_MINUTE: Final = 60 * USECS_PER_SECOND
USECS_PER_HOUR: Final = 60 * USECS_PER_MINUTE
USECS_PER_DAY: Final = 24 * USECS_PER_HOUR
_UNIX_TO_PG: Final = 10_957  # days from 1970-01-01 to 2000-01-01
_DAYS_BEFORE_MARCH_YEAR0: Final = 719_468  # 0000-03-01 to 1970-01-01

DATE_NEG_INFINITY: Final = -(1 << 31)
DATE_POS_INFINITY: Final = (1 << 31) - 1
TIMESTAMP_NEG_INFINITY: Final = -(1 << 63)
TIMESTAMP_POS_INFINITY: Final = (1 << 63) - 1
INFINITIES: Final = {"infinity": 1, "-infinity": -1}


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 2000-01-01 to the given date."""
    shifted = year - (month <= 2)
    era, year_of_era = divmod(shifted, 400)
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - _DAYS_BEFORE_MARCH_YEAR0 - _UNIX_TO_PG


def civil_from_days(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a day number counted from 2000-01-01."""
    era, day_of_era = divmod(days + _UNIX_TO_PG + _DAYS_BEFORE_MARCH_YEAR0, 146_097)
    year_of_era = (
        day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + (3 if shifted_month < 10 else -9)
    return year_of_era + era * 400 + (month <= 2), month, day


def days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


DATE_MIN: Final = days_from_civil(-4713, 11, 24)
"""First valid date (Julian day 0); DATE_END is one past the last."""
DATE_END: Final = days_from_civil(5874898, 1, 1)
TIMESTAMP_MIN: Final = DATE_MIN * USECS_PER_DAY
TIMESTAMP_END: Final = days_from_civil(294277, 1, 1) * USECS_PER_DAY


def _date_parts(days: int) -> tuple[str, bool]:
    year, month, day = civil_from_days(days)
    return f"{year if year > 0 else 1 - year:04d}-{month:02d}-{day:02d}", year <= 0


def fraction_text(microseconds: int) -> str:
    """'.ffffff' without trailing zeros, or '' for whole seconds."""
    return f".{microseconds:06d}".rstrip("0") if microseconds else ""


def format_clock(microseconds: int) -> str:
    """'HH:MM:SS[.ffffff]' of a time of day (24:00:00 included)."""
    seconds, fraction = divmod(microseconds, USECS_PER_SECOND)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    return f"{hour:02d}:{minute:02d}:{second:02d}{fraction_text(fraction)}"


def format_date(days: int) -> str:
    if days == DATE_POS_INFINITY:
        return "infinity"
    if days == DATE_NEG_INFINITY:
        return "-infinity"
    text, bc = _date_parts(days)
    return text + " BC" if bc else text


def format_timestamp(microseconds: int, zone_suffix: str = "") -> str:
    """'YYYY-MM-DD HH:MM:SS[.ffffff]' + zone_suffix, with ' BC' last."""
    if microseconds == TIMESTAMP_POS_INFINITY:
        return "infinity"
    if microseconds == TIMESTAMP_NEG_INFINITY:
        return "-infinity"
    days, clock = divmod(microseconds, USECS_PER_DAY)
    text, bc = _date_parts(days)
    return f"{text} {format_clock(clock)}{zone_suffix}{' BC' if bc else ''}"


def format_offset(seconds_east: int) -> str:
    """PostgreSQL's numeric zone suffix: '+00', '+05:30', '-03:00:15'."""
    sign = "-" if seconds_east < 0 else "+"
    minutes, second = divmod(abs(seconds_east), 60)
    hour, minute = divmod(minutes, 60)
    if second:
        return f"{sign}{hour:02d}:{minute:02d}:{second:02d}"
    return f"{sign}{hour:02d}:{minute:02d}" if minute else f"{sign}{hour:02d}"
