"""Time zones: the session TimeZone setting and zones written inside timestamps.

Offsets are seconds east of UTC. Named zones come from the system tz database
through zoneinfo (PostgreSQL on Debian reads the same files). zoneinfo works on
datetimes, which stop at years 1-9999; instants outside are shifted by whole
400-year Gregorian cycles, which repeat weekdays and therefore DST rules, so the
zone's earliest (LMT) or latest (POSIX rule) behaviour applies as in PostgreSQL.

A local time that falls in a DST gap takes the offset from before the
transition, and an ambiguous one the offset from after it, PostgreSQL's rule;
in both cases that is the smaller of zoneinfo's two fold offsets.
"""

from __future__ import annotations

import contextlib
import functools
import re
import zoneinfo
from datetime import datetime, timedelta
from typing import Final

from catalog.errors import (
    InvalidParameterValue,
    InvalidTimeZoneDisplacementValue,
)
from executor.codecs.civil import USECS_PER_DAY, USECS_PER_SECOND, days_from_civil, format_offset

_HOUR: Final = 3600

# A fixed-offset subset of PostgreSQL's default timezone_abbreviations.
ABBREVIATIONS: Final[dict[str, int]] = {
    name: hours * _HOUR
    for hours, names in {
        0: ("utc", "ut", "gmt", "z", "zulu", "wet"),
        1: ("cet", "met", "bst"),
        2: ("cest", "mest", "eet", "ist"),
        3: ("eest",),
        9: ("jst",),
        10: ("aest",),
        11: ("aedt",),
        12: ("nzst",),
        13: ("nzdt",),
        -3: ("adt",),
        -4: ("edt", "ast"),
        -5: ("est", "cdt"),
        -6: ("cst", "mdt"),
        -7: ("mst", "pdt"),
        -8: ("pst", "akdt"),
        -9: ("akst",),
        -10: ("hst",),
    }.items()
    for name in names
}


class Zone:
    """A fixed offset; NamedZone overrides the lookups for tz database zones."""

    __slots__ = ("name", "offset")

    def __init__(self, offset: int, name: str = "") -> None:
        self.offset = offset
        self.name = name
        """What to_char()'s TZ prints ('' for an unnamed POSIX offset)."""

    @property
    def fixed(self) -> bool:
        return True

    def utc_offset(self, utc_microseconds: int) -> int:
        """Offset in force at an instant given in UTC."""
        return self.offset

    def local_offset(self, local_microseconds: int) -> int:
        """Offset to subtract from a local wall-clock time to get UTC."""
        return self.offset

    def abbreviation(self, utc_microseconds: int) -> str:
        """The zone's abbreviation at an instant given in UTC."""
        return self.name


UTC_ZONE: Final = Zone(0)

_EPOCH: Final = datetime(2000, 1, 1)
_UNIX_EPOCH: Final = 946_684_800  # seconds from 1970-01-01 to 2000-01-01
_CYCLE: Final = 146_097 * USECS_PER_DAY
_FIRST: Final = days_from_civil(1, 1, 3) * USECS_PER_DAY
_LAST: Final = days_from_civil(9999, 12, 29) * USECS_PER_DAY


def _in_datetime_range(microseconds: int) -> int:
    """The same instant of the Gregorian 400-year cycle, within years 1-9999."""
    if microseconds < _FIRST:
        return microseconds - (microseconds - _FIRST) // _CYCLE * _CYCLE
    if microseconds > _LAST:
        return microseconds + (_LAST - microseconds) // _CYCLE * _CYCLE
    return microseconds


def _seconds(delta: timedelta | None) -> int:
    assert delta is not None
    return delta.days * 86_400 + delta.seconds


class NamedZone(Zone):
    __slots__ = ("_fixed", "_info")

    def __init__(self, info: zoneinfo.ZoneInfo) -> None:
        super().__init__(0)
        self._info = info
        samples = {
            _seconds(info.utcoffset(datetime(year, month, 1)))
            for year in (1, *range(1800, 2101, 10))
            for month in (1, 7)
        }
        self._fixed = len(samples) == 1
        self.offset = samples.pop()

    @property
    def fixed(self) -> bool:
        """True for zones without transitions (a time of day alone can use them)."""
        return self._fixed

    def utc_offset(self, utc_microseconds: int) -> int:
        if self._fixed:
            return self.offset
        seconds = _in_datetime_range(utc_microseconds) // USECS_PER_SECOND + _UNIX_EPOCH
        return _seconds(datetime.fromtimestamp(seconds, self._info).utcoffset())

    def abbreviation(self, utc_microseconds: int) -> str:
        seconds = _in_datetime_range(utc_microseconds) // USECS_PER_SECOND + _UNIX_EPOCH
        return datetime.fromtimestamp(seconds, self._info).tzname() or ""

    def local_offset(self, local_microseconds: int) -> int:
        if self._fixed:
            return self.offset
        wall = _EPOCH + timedelta(microseconds=_in_datetime_range(local_microseconds))
        return min(
            _seconds(self._info.utcoffset(wall)),
            _seconds(self._info.utcoffset(wall.replace(fold=1))),
        )


@functools.cache
def _tz_database_keys() -> dict[str, str]:
    return {key.lower(): key for key in zoneinfo.available_timezones()}


def _load_zone(key: str) -> NamedZone | None:
    with contextlib.suppress(ValueError, OSError, zoneinfo.ZoneInfoNotFoundError):
        return NamedZone(zoneinfo.ZoneInfo(key))
    return None


@functools.lru_cache(maxsize=256)
def named_zone(name: str) -> NamedZone | None:
    """A tz database zone by name, case-insensitively as PostgreSQL matches them."""
    zone = _load_zone(name)
    if zone is None and (key := _tz_database_keys().get(name.lower())) is not None:
        zone = _load_zone(key)
    return zone


_OFFSET: Final = re.compile(r"([+-])\s*([0-9]+)(?::([0-9]+)(?::([0-9]+))?)?", re.ASCII)
MAX_OFFSET_HOURS: Final = 15


def offset_zone(text: str, whole_input: str) -> Zone:
    """A numeric offset written in a timestamp: +HH, +HHMM, +HH:MM[:SS] (ISO sign)."""
    match = _OFFSET.fullmatch(text)
    if match is None:
        raise InvalidParameterValue(f'time zone "{text.lower()}" not recognized')
    sign, hours, minutes, seconds = match.groups()
    hour = int(hours)
    minute = int(minutes or 0)
    if minutes is None and len(hours) > 2:
        hour, minute = divmod(hour, 100)
    second = int(seconds or 0)
    if hour > MAX_OFFSET_HOURS or minute >= 60 or second >= 60:
        # PostgreSQL's SQLSTATE here is 22009, which catalog.errors lacks.
        raise InvalidTimeZoneDisplacementValue(
            f'time zone displacement out of range: "{whole_input}"')
    offset = hour * _HOUR + minute * 60 + second
    return Zone(-offset if sign == "-" else offset)


def input_zone(name: str) -> Zone | None:
    """A zone named in a timestamp: an abbreviation or a tz database name."""
    lowered = name.lower()
    if lowered in ABBREVIATIONS:
        return Zone(ABBREVIATIONS[lowered])
    return named_zone(name)


_SETTING_HOURS: Final = re.compile(r"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)", re.ASCII)
_ISO_OFFSET: Final = re.compile(r"\s*[+-][0-9]+(?::[0-9]+){0,2}\s*", re.ASCII)
_POSIX: Final = re.compile(
    r"([a-z]{3,}|<[^>]+>)?([+-]?)([0-9]{1,2})(?::([0-9]{2})(?::([0-9]{2}))?)?", re.ASCII | re.I
)


@functools.lru_cache(maxsize=64)
def session_zone(setting: str) -> Zone:
    """The zone of a TimeZone setting, read as PostgreSQL's check_timezone does.

    A bare number is hours east of UTC; otherwise a tz database name; otherwise a
    POSIX offset such as 'UTC+3' or '-05:30', whose sign means *west* of UTC.
    """
    if _SETTING_HOURS.fullmatch(setting):
        seconds = int(float(setting) * _HOUR)
        if abs(seconds) <= MAX_OFFSET_HOURS * _HOUR:
            return Zone(seconds, format_offset(seconds))
    elif (zone := named_zone(setting) or _posix_zone(setting)) is not None:
        return zone
    raise InvalidParameterValue(f'invalid value for parameter "TimeZone": "{setting}"')


def _posix_zone(text: str) -> Zone | None:
    """A POSIX offset such as 'UTC+3' or '-05:30' (west of UTC), or None."""
    match = _POSIX.fullmatch(text)
    if match is None:
        return None
    name, sign, hours, minutes, seconds = match.groups()
    west = int(hours) * _HOUR + int(minutes or 0) * 60 + int(seconds or 0)
    return Zone(west if sign == "-" else -west, (name or "").strip("<>"))


@functools.lru_cache(maxsize=64)
def function_zone(name: str) -> Zone:
    """A zone named to AT TIME ZONE or date_trunc(): an abbreviation, a tz
    database name, or a POSIX offset (west of UTC: '+05' is UTC-5)."""
    lowered = name.lower()
    if lowered in ABBREVIATIONS:
        return Zone(ABBREVIATIONS[lowered], name.upper())
    zone = named_zone(name) or _posix_zone(name)
    if zone is None:
        raise InvalidParameterValue(f'time zone "{name}" not recognized')
    return zone


def offset_or_zone(name: str) -> Zone:
    """A zone named to make_timestamptz(): an ISO offset ('+2' is UTC+2)
    first, otherwise as ``function_zone``."""
    if _ISO_OFFSET.fullmatch(name):
        return offset_zone(name.strip(), name)
    return function_zone(name)
