"""interval: PostgreSQL 15's input syntaxes and its 'postgres' IntervalStyle output.

A value is (months, days, microseconds), the three fields PostgreSQL keeps apart
(a month is not 30 days, a day not 24 hours). Storage is the IntervalStyle
postgres text ('1 year 2 mons 3 days 04:05:06.789'), which the input side reads
back; binary is int64 microseconds, int32 days, int32 months.

Input is a port of DecodeInterval and DecodeISO8601Interval, quirks included:
fields are read right to left, so a bare number is seconds, or days when an
hh:mm:ss field follows it; 'ago' negates everything; fractions spill into
smaller units (1.5 months = 1 mon 15 days) with the same double arithmetic; an
hh:mm:ss field replaces the sub-day part read before it. Interval typmods (field
restrictions such as YEAR TO MONTH, and precision) are not applied.
"""

from __future__ import annotations

import re
import string
import struct
from typing import Final

from catalog import types
from catalog.errors import DatetimeFieldOverflow, IntervalFieldOverflow, InvalidDatetimeFormat
from executor.codecs.base import Codec, check_size, invalid_syntax, plain
from executor.codecs.civil import (
    USECS_PER_DAY,
    USECS_PER_HOUR,
    USECS_PER_MINUTE,
    USECS_PER_SECOND,
    fraction_text,
)
from executor.codecs.strings import text_out

_INT32: Final = (-(1 << 31), (1 << 31) - 1)
_INT64: Final = (-(1 << 63), (1 << 63) - 1)


class _BadFormat(Exception):
    """DTERR_BAD_FORMAT: PostgreSQL then tries the ISO 8601 syntax."""


class _FieldOverflow(Exception):
    """DTERR_FIELD_OVERFLOW."""


def _checked(value: int, bounds: tuple[int, int]) -> int:
    if not bounds[0] <= value <= bounds[1]:
        raise _FieldOverflow
    return value


def _strtol(text: str, bounds: tuple[int, int]) -> tuple[int, str]:
    """C strtol: leading spaces, a sign, digits; (0, text) when there are none."""
    match = _LEADING_INTEGER.match(text)
    if match is None:
        return 0, text
    return _checked(int(match[0]), bounds), text[match.end() :]


_LEADING_INTEGER: Final = re.compile(r"[ \t\n\r\v\f]*[+-]?[0-9]+", re.ASCII)


def _fraction(text: str) -> float:
    """ParseFraction: '.' followed by digits only (a lone '.' is zero)."""
    if text == ".":
        return 0.0
    if not text[1:].isdigit() or not text[1:].isascii():
        raise _BadFormat
    return float(text)


# --- tokenising (the interval-relevant part of ParseDateTime) ---------------------

_NUMBER, _DATE, _TIME, _STRING, _SPECIAL, _TZ = range(6)
_DIGITS: Final = frozenset(string.digits)
_ALPHA: Final = frozenset(string.ascii_letters)
_SPACES: Final = frozenset(" \t\n\r\v\f")
_PUNCTUATION: Final = frozenset(string.punctuation)
_MAX_FIELDS: Final = 25
_WORKBUF: Final = 256
# datetktbl: words after which digits do not make a field a date/zone name.
_DATE_KEYWORDS: Final = frozenset(
    word
    for line in (
        "ad allballs am apr april at aug august bc d dec december dow doy dst epoch feb",
        "february fri friday h infinity isodow isoyear j jan january jd jul julian july jun",
        "june m mar march may mm mon monday nov november now oct october on pm s sat saturday",
        "sep sept september sun sunday t thu thur thurs thursday today tomorrow tue tues",
        "tuesday wed wednesday weds y yesterday",
    )
    for word in line.split()
)


def _span(text: str, start: int, allowed: frozenset[str]) -> int:
    end = start
    while end < len(text) and text[end] in allowed:
        end += 1
    return end


def _after_digits(text: str, start: int) -> tuple[int, int]:
    position = _span(text, start, _DIGITS)
    following = text[position : position + 1]
    if following == ":":
        return _TIME, _span(text, position + 1, _DIGITS | {":", "."})
    if following and following in "-/.":
        position += 1
        if text[position : position + 1] in _DIGITS:
            kind = _NUMBER if following == "." else _DATE
            position = _span(text, position, _DIGITS)
            if text[position : position + 1] == following:
                return _DATE, _span(text, position + 1, _DIGITS | {following})
            return kind, position
        return _DATE, _span(text, position, _DIGITS | _ALPHA | {following})
    return _NUMBER, position


def _fields(text: str) -> list[tuple[int, str]]:
    fields: list[tuple[int, str]] = []
    position = 0
    while position < len(text):
        char = text[position]
        start = position
        if char in _SPACES or (char in _PUNCTUATION and char not in "+-."):
            position += 1
            continue
        if char in _DIGITS:
            kind, position = _after_digits(text, position)
            field = text[start:position]
        elif char == ".":
            kind, position = _NUMBER, _span(text, position + 1, _DIGITS)
            field = text[start:position]
        elif char in _ALPHA:
            kind, position = _STRING, _span(text, position, _ALPHA)
            following = text[position : position + 1]
            keyword = text[start:position].lower() in _DATE_KEYWORDS
            if following and (following in "-/." or (following in "+0123456789" and not keyword)):
                kind = _DATE
                position = _span(text, position + 1, _DIGITS | _ALPHA | set("+-/_.:"))
            field = text[start:position]
        elif char in "+-":
            body = _span(text, position + 1, _SPACES)
            if text[body : body + 1] in _DIGITS:
                kind, position = _TZ, _span(text, body, _DIGITS | {":", ".", "-"})
            elif text[body : body + 1] in _ALPHA:
                kind, position = _SPECIAL, _span(text, body, _ALPHA)
            else:
                raise _BadFormat
            field = char + text[body:position]
        else:
            raise _BadFormat
        fields.append((kind, field.lower()))
    if len(fields) > _MAX_FIELDS or sum(len(field) + 1 for _, field in fields) > _WORKBUF:
        raise _BadFormat
    return fields


# --- decoding -------------------------------------------------------------------

_YEAR, _MONTH, _WEEK, _DAY, _HOUR, _MINUTE, _SECOND, _MILLI, _MICRO = (1 << n for n in range(9))
_DECADE, _CENTURY, _MILLENNIUM = (1 << n for n in range(9, 12))
_ALL_SECONDS: Final = _SECOND | _MILLI | _MICRO
_TIME_FIELDS: Final = _HOUR | _MINUTE | _ALL_SECONDS
_AGO: Final = -1

_UNITS: Final[dict[str, int]] = {
    word: unit
    for unit, words in {
        _MICRO: "microsecon us usec usecs usecond useconds",
        _MILLI: "millisecon ms msec msecs msecond mseconds",
        _SECOND: "s sec secs second seconds",
        _MINUTE: "m min mins minute minutes",
        _HOUR: "h hr hrs hour hours",
        _DAY: "d day days",
        _WEEK: "w week weeks",
        _MONTH: "mon mons month months",
        _YEAR: "y yr yrs year years",
        _DECADE: "dec decs decade decades",
        _CENTURY: "c cent century centuries",
        _MILLENNIUM: "mil mils millennium millennia",
        _AGO: "ago",
    }.items()
    for word in words.split()
}
_MICROSECOND_SCALES: Final = {
    _MICRO: 1,
    _MILLI: 1000,
    _SECOND: USECS_PER_SECOND,
    _MINUTE: USECS_PER_MINUTE,
    _HOUR: USECS_PER_HOUR,
}
_YEAR_SCALES: Final = {_YEAR: 1, _DECADE: 10, _CENTURY: 100, _MILLENNIUM: 1000}


class _Parts:
    """pg_itm_in: the fields accumulated while decoding, with PostgreSQL's limits."""

    __slots__ = ("days", "micros", "months", "years")

    def __init__(self) -> None:
        self.years = self.months = self.days = self.micros = 0

    def add_micros(self, value: int, fraction: float, scale: int) -> None:
        self.micros = _checked(self.micros + _checked(value * scale, _INT64), _INT64)
        self.add_fraction_micros(fraction, scale)

    def add_fraction_micros(self, fraction: float, scale: int) -> None:
        if fraction == 0:
            return
        fraction *= scale
        micros = int(fraction)
        fraction -= micros
        if fraction > 0.5:
            micros += 1
        elif fraction < -0.5:
            micros -= 1
        self.micros = _checked(self.micros + micros, _INT64)

    def add_days(self, value: int, scale: int) -> None:
        self.days = _checked(self.days + _checked(_checked(value, _INT32) * scale, _INT32), _INT32)

    def add_fraction_days(self, fraction: float, scale: int) -> None:
        if fraction == 0:
            return
        fraction *= scale
        days = int(fraction)
        self.days = _checked(self.days + days, _INT32)
        self.add_fraction_micros(fraction - days, USECS_PER_DAY)

    def add_months(self, value: int, fraction: float) -> None:
        self.months = _checked(self.months + _checked(value, _INT32), _INT32)
        self.add_fraction_days(fraction, 30)

    def add_years(self, value: int, fraction: float, scale: int) -> None:
        years = _checked(_checked(value, _INT32) * scale, _INT32)
        self.years = _checked(self.years + years, _INT32)
        self.months = _checked(self.months + round(fraction * scale * 12), _INT32)

    def add(self, unit: int, value: int, fraction: float) -> None:
        if unit in _MICROSECOND_SCALES:
            self.add_micros(value, fraction, _MICROSECOND_SCALES[unit])
        elif unit == _DAY:
            self.add_days(value, 1)
            self.add_fraction_micros(fraction, USECS_PER_DAY)
        elif unit == _WEEK:
            self.add_days(value, 7)
            self.add_fraction_days(fraction, 7)
        elif unit == _MONTH:
            self.add_months(value, fraction)
        elif unit in _YEAR_SCALES:
            self.add_years(value, fraction, _YEAR_SCALES[unit])
        else:
            raise _BadFormat

    def negate(self) -> None:
        self.years, self.months, self.days = -self.years, -self.months, -self.days
        self.micros = -self.micros

    def total(self) -> tuple[int, int, int]:
        months = self.years * 12 + self.months
        if not _INT32[0] <= months <= _INT32[1]:
            raise DatetimeFieldOverflow("interval out of range")
        return months, self.days, self.micros


def _clock_micros(text: str) -> int:
    """DecodeTimeForInterval: 'h:mm[:ss[.f]]' or 'mm:ss.f' as microseconds."""
    hour, rest = _strtol(text, _INT64)
    if not rest.startswith(":"):
        raise _BadFormat
    minute, rest = _strtol(rest[1:], _INT32)
    second, micros = 0, 0
    if rest.startswith("."):
        micros = round(_fraction(rest) * USECS_PER_SECOND)
        hour, minute, second = 0, hour, minute
    elif rest.startswith(":"):
        second, rest = _strtol(rest[1:], _INT32)
        if rest.startswith("."):
            micros = round(_fraction(rest) * USECS_PER_SECOND)
        elif rest:
            raise _BadFormat
    elif rest:
        raise _BadFormat
    if hour < 0 or not 0 <= minute <= 59 or not 0 <= second <= 60 or micros > USECS_PER_SECOND:
        raise _FieldOverflow
    total = micros + _checked(hour * USECS_PER_HOUR, _INT64)
    return _checked(total + minute * USECS_PER_MINUTE + second * USECS_PER_SECOND, _INT64)


def _decode(text: str) -> _Parts:
    """DecodeInterval with IntervalStyle postgres and no typmod."""
    parts = _Parts()
    seen = 0
    unit = 0  # IGNORE_DTF: a bare number means seconds
    before = False
    for kind, field in reversed(_fields(text)):
        mask = 0
        if kind == _TIME or (kind == _TZ and ":" in field and _is_clock(field[1:])):
            sign = -1 if field[0] == "-" else 1
            parts.micros = sign * _clock_micros(field if kind == _TIME else field[1:])
            mask, unit = _TIME_FIELDS, _DAY
        elif kind in (_TZ, _DATE, _NUMBER):
            unit = unit or _SECOND
            value, rest = _strtol(field, _INT64)
            fraction = 0.0
            if rest.startswith("-"):  # SQL years-months
                month, rest = _strtol(rest[1:], _INT32)
                if not 0 <= month < 12:
                    raise _FieldOverflow
                if rest:
                    raise _BadFormat
                unit = _MONTH
                value = _checked(value * 12 + (-month if field[0] == "-" else month), _INT64)
            elif rest.startswith("."):
                fraction = -_fraction(rest) if field[0] == "-" else _fraction(rest)
            elif rest:
                raise _BadFormat
            parts.add(unit, value, fraction)
            mask = _ALL_SECONDS if unit == _SECOND and fraction else unit
            if unit == _HOUR:
                unit = _DAY
        else:
            found = _UNITS.get(field[:10])
            if found is None:
                raise _BadFormat
            before = before or found == _AGO
            unit = found
        if mask & seen:
            raise _BadFormat
        seen |= mask
    if not seen:
        raise _BadFormat
    if before:
        parts.negate()
    return parts


def _is_clock(text: str) -> bool:
    try:
        _clock_micros(text)
    except (_BadFormat, _FieldOverflow):
        return False
    return True


_ISO_NUMBER: Final = re.compile(r"[-.0-9][0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]+)?", re.ASCII)


def _iso_number(text: str, position: int) -> tuple[int, float, int]:
    """ParseISO8601Number: (integer part, fraction, end position)."""
    match = _ISO_NUMBER.match(text, position)
    if match is None:
        raise _BadFormat
    try:
        value = float(match[0])
    except ValueError:
        raise _BadFormat from None
    if not -1e15 <= value <= 1e15:
        raise _FieldOverflow
    whole = int(value)
    return whole, value - whole, match.end()


def _iso_width(text: str, position: int) -> int:
    if text[position : position + 1] == "-":
        position += 1
    return _span(text, position, _DIGITS) - position


def _decode_iso(text: str) -> _Parts:
    """DecodeISO8601Interval: 'P1Y2M3DT4H5M6S' and 'P0001-02-03T04:05:06'."""
    if len(text) < 2 or text[0] != "P":
        raise _BadFormat
    parts = _Parts()
    date_part, have_field = True, False
    position = 1
    while position < len(text):
        if text[position] == "T":
            date_part, have_field = False, False
            position += 1
            continue
        start = position
        value, fraction, position = _iso_number(text, position)
        unit = text[position : position + 1]
        position += 1
        designators = _ISO_DATE_UNITS if date_part else _ISO_TIME_UNITS
        if unit in designators:
            parts.add(designators[unit], value, fraction)
            have_field = True
        elif (
            unit in _ISO_BASIC_ENDS[date_part]
            and not have_field
            and _iso_width(text, start) == (8 if date_part else 6)
        ):
            if not date_part:  # basic format hhmmss
                _add_basic(parts, (_HOUR, _MINUTE, _SECOND), value, 0.0)
                parts.add_fraction_micros(fraction, 1)
                return parts
            _add_basic(parts, (_YEAR, _MONTH, _DAY), value, fraction)  # basic YYYYMMDD
            date_part = False
        elif unit in _ISO_EXTENDED_ENDS[date_part] and not have_field:
            position -= len(unit)
            position = _iso_alternative(text, position, date_part, value, fraction, parts)
            if position < 0:
                return parts
        else:
            raise _BadFormat
    return parts


_ISO_DATE_UNITS: Final = {"Y": _YEAR, "M": _MONTH, "W": _WEEK, "D": _DAY}
_ISO_TIME_UNITS: Final = {"H": _HOUR, "M": _MINUTE, "S": _SECOND}
# What may follow the first number of the alternative format, by date_part.
_ISO_BASIC_ENDS: Final = {True: ("T", ""), False: ("",)}
_ISO_EXTENDED_ENDS: Final = {True: ("T", "", "-"), False: ("", ":")}


def _add_basic(parts: _Parts, units: tuple[int, int, int], value: int, fraction: float) -> None:
    """YYYYMMDD / hhmmss read as one number (C division, truncating)."""
    parts.add(units[0], _truncated(value, 10000), 0.0)
    parts.add(units[1], _c_remainder(_truncated(value, 100), 100), 0.0)
    parts.add(units[2], _c_remainder(value, 100), fraction)


def _iso_alternative(
    text: str, position: int, date_part: bool, value: int, fraction: float, parts: _Parts
) -> int:
    """The extended alternative format 'Y-M-D' or 'h:m:s' starting with a read number.

    ``position`` is at the character after that number. Returns where the main
    loop resumes (at a 'T'), or -1 when the input ends here.
    """
    units = (_YEAR, _MONTH, _DAY) if date_part else (_HOUR, _MINUTE, _SECOND)
    separator = "-" if date_part else ":"
    for index, unit in enumerate(units):
        if index:  # past the separator
            value, fraction, position = _iso_number(text, position + 1)
        parts.add(unit, value, fraction)
        following = text[position : position + 1]
        if not following:
            return -1
        if date_part and following == "T":
            return position
        if following != separator:
            break
    raise _BadFormat


def parse_interval(text: str) -> tuple[int, int, int]:
    """Text -> (months, days, microseconds), raising PostgreSQL's errors."""
    try:
        try:
            parts = _decode(text)
        except _BadFormat:
            parts = _decode_iso(text)
    except _BadFormat:
        raise invalid_syntax("interval", text, InvalidDatetimeFormat) from None
    except _FieldOverflow:
        raise IntervalFieldOverflow(f'interval field value out of range: "{text}"') from None
    return parts.total()


def _truncated(numerator: int, denominator: int) -> int:
    """C division: rounds toward zero."""
    quotient = abs(numerator) // denominator
    return quotient if numerator >= 0 else -quotient


def _c_remainder(numerator: int, denominator: int) -> int:
    return numerator - denominator * _truncated(numerator, denominator)


def format_interval(months: int, days: int, micros: int) -> str:
    """EncodeInterval with IntervalStyle postgres."""
    year = _truncated(months, 12)
    hour = _truncated(micros, USECS_PER_HOUR)
    rest = micros - hour * USECS_PER_HOUR
    minute = _truncated(rest, USECS_PER_MINUTE)
    rest -= minute * USECS_PER_MINUTE
    second = _truncated(rest, USECS_PER_SECOND)
    fraction = rest - second * USECS_PER_SECOND
    pieces: list[str] = []
    before = False
    for value, unit in ((year, "year"), (months - year * 12, "mon"), (days, "day")):
        if value:
            plus = "+" if before and value > 0 else ""
            pieces.append(f"{plus}{value} {unit}{'' if value == 1 else 's'}")
            before = value < 0
    if not pieces or hour or minute or second or fraction:
        sign = "-" if min(hour, minute, second, fraction) < 0 else "+" if before else ""
        pieces.append(
            f"{sign}{abs(hour):02d}:{abs(minute):02d}:{abs(second):02d}"
            + fraction_text(abs(fraction))
        )
    return " ".join(pieces)


_BINARY: Final = struct.Struct(">qii")


def _interval_in(text: str) -> str:
    return format_interval(*parse_interval(text))


def _binary_in(data: bytes) -> str:
    check_size(data, _BINARY.size)
    micros, days, months = _BINARY.unpack(data)
    return format_interval(months, days, micros)


def _binary_out(value: object) -> bytes:
    months, days, micros = parse_interval(str(value))
    return _BINARY.pack(micros, days, months)


CODECS: Final[dict[int, Codec]] = {
    types.INTERVAL: plain(_interval_in, text_out, _binary_in, _binary_out)
}
