"""to_timestamp(text, template) and to_date(text, template): reading a date
or time through a template, as formatting.c's DCH_from_char and
do_to_timestamp do.

Outside FX mode, spaces before fields are skipped, a template separator or
space matches one separator or space of the input (or nothing), and any other
template character skips one input character. A number is read for its
keyword's width, or as long as it goes when the template's next element is
no digit field (or under FM). Fields left out default to January 1st of
1 BC, midnight; a field given twice must agree with itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from catalog import errors
from executor.codecs.civil import (
    USECS_PER_DAY,
    USECS_PER_HOUR,
    USECS_PER_MINUTE,
    USECS_PER_SECOND,
    civil_from_days,
    days_from_civil,
    days_in_month,
)
from executor.codecs.zones import MAX_OFFSET_HOURS
from executor.values.datetime_fields import JULIAN_2000, iso_week_start
from executor.values.datetime_template import DAYS, MONTHS, ROMAN_MONTHS, Node, parse_template

_GREGORIAN: Final = frozenset({
    "DDD", "DD", "D", "MM", "MONTH", "MON", "RM", "WW", "W", "Y,YYY", "YYYY", "YYY", "YY", "Y"})
_ISO_WEEK: Final = frozenset({"IDDD", "ID", "IW", "IYYY", "IYY", "IY", "I"})
_DIGIT_FIELDS: Final = frozenset({
    "CC", "DDD", "DD", "D", "HH24", "HH12", "HH", "IDDD", "ID", "IW", "IYYY", "IYY", "IY", "I",
    "J", "MI", "MM", "MS", "Q", "SSSSS", "SSSS", "SS", "TZM", "US", "WW", "W", "Y,YYY", "YYYY",
    "YYY", "YY", "Y"})
_INT_RANGE: Final = (-(2**31), 2**31 - 1)
_Y_YYY: Final = re.compile(r"\s*([+-]?[0-9]+),([0-9]{1,3})", re.ASCII)
_LEADING_INT: Final = re.compile(r"\s*[+-]?[0-9]+", re.ASCII)
_SPACES: Final = " \t\n\r\v\f"
_MERIDIEM: Final = {"A.M.": ("a.m.", "p.m.", "A.M.", "P.M."), "AM": ("am", "pm", "AM", "PM")}
_ERAS: Final = {"A.D.": ("a.d.", "b.c.", "A.D.", "B.C."), "AD": ("ad", "bc", "AD", "BC")}
_YEAR_BEFORE: Final = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365)


def _invalid(message: str, **extra: str) -> errors.SqlError:
    return errors.InvalidDatetimeFormat(message, **extra)


@dataclass(slots=True)
class _Fields:
    """TmFromChar: what the input gave (0: not given)."""

    hh: int = 0
    pm: int = 0
    twelve_hour: bool = False
    mi: int = 0
    ss: int = 0
    ssss: int = 0
    d: int = 0
    dd: int = 0
    ddd: int = 0
    mm: int = 0
    ms: int = 0
    us: int = 0
    ff: int = 0
    year: int = 0
    year_digits: int = 0
    bc: int = 0
    ww: int = 0
    w: int = 0
    cc: int = 0
    j: int = 0
    tz_sign: int = 0
    tzh: int = 0
    tzm: int = 0
    mode: str = ""
    """'gregorian' or 'isoweek' once a field of either convention is read."""

    def set(self, name: str, value: int, keyword: str) -> None:
        """from_char_set_int: a field given twice must agree."""
        old = getattr(self, name)
        if old != 0 and old != value:
            raise _invalid(f'conflicting values for "{keyword}" field in formatting string',
                           detail="This value contradicts a previous setting for the same "
                                  "field type.")
        setattr(self, name, value)


@dataclass(slots=True)
class _Reader:
    text: str
    position: int = 0

    @property
    def rest(self) -> str:
        return self.text[self.position:]

    def skip_spaces(self) -> int:
        start = self.position
        while self.position < len(self.text) and self.text[self.position] in _SPACES:
            self.position += 1
        return self.position - start


def _is_next_separator(nodes: tuple[Node, ...], index: int) -> bool:
    """Whether the template's next element is no digit field (the end included)."""
    node = nodes[index]
    if node.ordinal:
        return True
    if index + 1 == len(nodes):
        return True
    following = nodes[index + 1]
    if following.keyword is not None:
        return following.keyword.upper() not in _DIGIT_FIELDS
    return not following.text.isdigit()


def _read_int(reader: _Reader, nodes: tuple[Node, ...], index: int, width: int) -> tuple[int, int]:
    """from_char_parse_int_len: (value, characters used)."""
    node = nodes[index]
    start = reader.position
    reader.skip_spaces()
    keyword = node.keyword or ""
    if node.fill or _is_next_separator(nodes, index):
        match = _LEADING_INT.match(reader.text, start)
        if match is None:
            raise _invalid(f'invalid value "{_shown(reader.text[reader.position:], width)}" for '
                           f'"{keyword}"', detail="Value must be an integer.")
        value = int(match[0])
        reader.position = match.end()
    else:
        copy = reader.text[reader.position:reader.position + width]
        if len(copy) < width:
            raise _invalid(f'source string too short for "{keyword}" formatting field',
                           detail=f"Field requires {width} characters, but only {len(copy)} "
                                  "remain.",
                           hint='If your source string is not fixed-width, try using the "FM" '
                                "modifier.")
        match = _LEADING_INT.match(copy)
        used = match.end() if match is not None else 0
        if 0 < used < width:
            raise _invalid(f'invalid value "{copy}" for "{keyword}"',
                           detail=f"Field requires {width} characters, but only {used} could be "
                                  "parsed.",
                           hint='If your source string is not fixed-width, try using the "FM" '
                                "modifier.")
        if match is None:
            raise _invalid(f'invalid value "{copy}" for "{keyword}"',
                           detail="Value must be an integer.")
        value = int(match[0])
        reader.position += used
    if not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
        raise errors.DatetimeFieldOverflow(
            f'value for "{keyword}" in source string is out of range',
            detail=f"Value must be in the range {_INT_RANGE[0]} to {_INT_RANGE[1]}.")
    if node.ordinal:
        reader.position += 2
    return value, reader.position - start


def _shown(text: str, width: int) -> str:
    return text[:width]


def _choose(reader: _Reader, names: tuple[str, ...], keyword: str) -> int:
    """from_char_seq_search: the first name the input starts with (any case)."""
    rest = reader.rest.lower()
    for index, name in enumerate(names):
        if rest.startswith(name.lower()):
            reader.position += len(name)
            return index
    shown = reader.rest.split(None, 1)[0] if reader.rest.strip() else reader.rest
    raise _invalid(f'invalid value "{shown}" for "{keyword}"',
                   detail="The given value did not match any of the allowed values for this "
                          "field.")


def _partial_year(year: int) -> int:
    """adjust_partial_year_to_2020: '69' is 2069, '70' is 1970."""
    if year < 70:
        return year + 2000
    if year < 100:
        return year + 1900
    if year < 520:
        return year + 2000
    if year < 1000:
        return year + 1000
    return year


def _read_fields(text: str, nodes: tuple[Node, ...]) -> _Fields:
    """DCH_from_char outside the standard (jsonpath) mode."""
    out = _Fields()
    reader = _Reader(text)
    fixed = False
    extra_skip = 0
    for index, node in enumerate(nodes):
        if reader.position >= len(text):
            break
        keyword = node.keyword
        if not fixed and keyword not in ("FX", "fx") and (keyword is not None or index == 0):
            extra_skip += reader.skip_spaces()
        if keyword is None:
            if node.kind in ("space", "separator"):
                if fixed:
                    reader.position += 1
                else:
                    extra_skip -= 1
                    current = text[reader.position]
                    if current in _SPACES or ("!" <= current <= "~" and not current.isalnum()):
                        reader.position += 1
                        extra_skip += 1
            elif fixed or extra_skip <= 0:
                reader.position += 1
            else:
                extra_skip -= 1
            continue
        upper = keyword.upper()
        mode = "gregorian" if upper in _GREGORIAN else "isoweek" if upper in _ISO_WEEK else ""
        if mode:
            if out.mode and out.mode != mode:
                raise _invalid("invalid combination of date conventions",
                               hint="Do not mix Gregorian and ISO week date conventions in a "
                                    "formatting template.")
            out.mode = mode
        _read_field(out, reader, nodes, index, upper, keyword, text, extra_skip)
        if upper == "FX":
            fixed = True
        if not fixed:
            extra_skip = reader.skip_spaces()
    return out


def _read_field(out: _Fields, reader: _Reader, nodes: tuple[Node, ...], index: int,
                upper: str, keyword: str, text: str, extra_skip: int) -> None:
    node = nodes[index]
    match upper:
        case "FX":
            return
        case "A.M." | "P.M." | "AM" | "PM":
            names = _MERIDIEM["A.M." if "." in upper else "AM"]
            out.set("pm", _choose(reader, names, keyword) % 2, keyword)
            out.twelve_hour = True
        case "A.D." | "B.C." | "AD" | "BC":
            names = _ERAS["A.D." if "." in upper else "AD"]
            out.set("bc", _choose(reader, names, keyword) % 2, keyword)
        case "HH" | "HH12":
            out.set("hh", _read_int(reader, nodes, index, 2)[0], keyword)
            out.twelve_hour = True
        case "HH24" | "MI" | "SS" | "DD" | "MM" | "CC" | "J" | "W" | "DDD" | "D" | "WW" | "IW":
            width = 2 if upper == "HH24" else len(upper)
            name = {"HH24": "hh", "IW": "ww"}.get(upper, upper.lower())
            out.set(name, _read_int(reader, nodes, index, width)[0], keyword)
        case "SSSS" | "SSSSS":
            out.set("ssss", _read_int(reader, nodes, index, len(upper))[0], keyword)
        case "MS":
            value, used = _read_int(reader, nodes, index, 3)
            out.set("ms", value * (100 if used == 1 else 10 if used == 2 else 1), keyword)
        case "US" | "FF1" | "FF2" | "FF3" | "FF4" | "FF5" | "FF6":
            if upper != "US":
                out.ff = int(upper[2])
            value, used = _read_int(reader, nodes, index, 6 if upper == "US" else out.ff)
            out.set("us", value * 10 ** max(6 - used, 0), keyword)
        case "TZH":
            current = text[reader.position:reader.position + 1]
            if current in ("+", "-", " "):
                out.tz_sign = -1 if current == "-" else 1
                reader.position += 1
            else:
                before = text[reader.position - 1:reader.position]
                out.tz_sign = -1 if extra_skip > 0 and before == "-" else 1
            out.set("tzh", _read_int(reader, nodes, index, 2)[0], keyword)
        case "TZM":
            out.tz_sign = out.tz_sign or 1
            out.set("tzm", _read_int(reader, nodes, index, 3)[0], keyword)
        case "TZ" | "OF":
            raise errors.FeatureNotSupported(
                f'formatting field "{keyword}" is only supported in to_char')
        case "MONTH":
            out.set("mm", _choose(reader, MONTHS, keyword) + 1, keyword)
        case "MON":
            out.set("mm", _choose(reader, tuple(m[:3] for m in MONTHS), keyword) + 1, keyword)
        case "DAY":
            out.set("d", _choose(reader, DAYS, keyword) + 1, keyword)
        case "DY":
            out.set("d", _choose(reader, tuple(d[:3] for d in DAYS), keyword) + 1, keyword)
        case "IDDD":
            out.set("ddd", _read_int(reader, nodes, index, 3)[0], keyword)
        case "ID":
            weekday = _read_int(reader, nodes, index, 1)[0] + 1
            out.set("d", 1 if weekday > 7 else weekday, keyword)
        case "Q":
            _read_int(reader, nodes, index, 1)
        case "Y,YYY":
            found = _Y_YYY.match(text, reader.position)
            if found is None:
                raise _invalid('invalid input string for "Y,YYY"')
            out.set("year", int(found[1]) * 1000 + int(found[2]), keyword)
            out.year_digits = 4
            reader.position = found.end() + (2 if node.ordinal else 0)
        case "YYYY" | "IYYY":
            out.set("year", _read_int(reader, nodes, index, 4)[0], keyword)
            out.year_digits = 4
        case "YYY" | "IYY" | "YY" | "IY" | "Y" | "I":
            digits = len(upper)
            value, used = _read_int(reader, nodes, index, digits)
            out.set("year", _partial_year(value) if used < 4 else value, keyword)
            out.year_digits = digits
        case "RM":
            numerals = tuple(numeral.lower() for numeral in ROMAN_MONTHS)
            out.set("mm", 12 - _choose(reader, numerals, keyword), keyword)


@dataclass(frozen=True, slots=True)
class Read:
    """What do_to_timestamp makes of the input."""

    micros: int
    """The local timestamp, microseconds since 2000."""
    offset: int | None
    """Seconds east of UTC when TZH/TZM gave one."""
    fraction_digits: int
    """FFn: the precision to round to (0: none given)."""


def _field_overflow(text: str) -> errors.SqlError:
    return errors.DatetimeFieldOverflow(f'date/time field value out of range: "{text}"')


def read_timestamp(text: str, template: str) -> Read:
    """do_to_timestamp: the input's fields as a local timestamp."""
    out = _read_fields(text, parse_template(template))
    hour = minute = second = 0
    if out.ssss:
        hour, rest = divmod(out.ssss, 3600)
        minute, second = divmod(rest, 60)
    second = out.ss or second
    minute = out.mi or minute
    hour = out.hh or hour
    if out.twelve_hour:
        if not 1 <= hour <= 12:
            raise _invalid(f'hour "{hour}" is invalid for the 12-hour clock',
                           hint="Use the 24-hour clock, or give an hour between 1 and 12.")
        if out.pm and hour < 12:
            hour += 12
        elif not out.pm and hour == 12:
            hour = 0
    year, month, day = 0, 1, 1
    have_year = have_month = have_day = False
    if out.year:
        if out.cc and out.year_digits <= 2:
            cc = -out.cc if out.bc else out.cc
            year = out.year % 100
            if year:
                year = year + (cc - 1) * 100 if cc >= 0 else (cc + 1) * 100 - year + 1
            else:
                year = cc * 100 + (0 if cc >= 0 else 1)
        else:
            year = -out.year if out.bc else out.year
            if year < 0:
                year += 1
        have_year = True
    elif out.cc:
        cc = -out.cc if out.bc else out.cc
        year = (cc - 1) * 100 + 1 if cc >= 0 else cc * 100 + 1
        have_year = True
    if out.j:
        year, month, day = civil_from_days(out.j - JULIAN_2000)
        have_year = have_month = have_day = True
    ddd = out.ddd
    if out.ww:
        if out.mode == "isoweek":
            start = iso_week_start(year) + (out.ww - 1) * 7
            offset = (out.d - 2 if out.d > 1 else 6) if out.d else 0
            year, month, day = civil_from_days(start + offset)
            have_year = have_month = have_day = True
        else:
            ddd = (out.ww - 1) * 7 + 1
    dd = (out.w - 1) * 7 + 1 if out.w else out.dd
    if dd:
        day, have_day = dd, True
    if out.mm:
        month, have_month = out.mm, True
    if ddd and (month <= 1 or day <= 1):
        if not year and not out.bc:
            raise _invalid("cannot calculate day of year without year information")
        if out.mode == "isoweek":
            year, month, day = civil_from_days(iso_week_start(year) - 1 + ddd)
        else:
            leap = days_in_month(year, 2) == 29
            before = [total + (1 if leap and index >= 2 else 0)
                      for index, total in enumerate(_YEAR_BEFORE)]
            found = next((i for i in range(1, 13) if ddd <= before[i]), 13)
            if month <= 1:
                month = found
            if day <= 1:
                day = ddd - before[found - 1]
        have_month = have_day = True
    micro = out.ms * 1000 + out.us
    if have_month and not 1 <= month <= 12:
        raise _field_overflow(text)
    if have_day and not 1 <= day <= 31:
        raise _field_overflow(text)
    if have_year and have_month and have_day and day > days_in_month(year, month):
        raise _field_overflow(text)
    if not (0 <= hour < 24 and 0 <= minute < 60 and 0 <= second < 60
            and 0 <= micro < USECS_PER_SECOND):
        raise _field_overflow(text)
    offset = None
    if out.tz_sign:
        if not 0 <= out.tzh <= MAX_OFFSET_HOURS or not 0 <= out.tzm < 60:
            raise errors.InvalidTimeZoneDisplacementValue(
                f'time zone displacement out of range: "{text}"')
        offset = out.tz_sign * (out.tzh * 3600 + out.tzm * 60)
    if not 1 <= month <= 12:
        raise _field_overflow(text)
    days = days_from_civil(year, month, 1) + day - 1
    clock = hour * USECS_PER_HOUR + minute * USECS_PER_MINUTE + second * USECS_PER_SECOND
    return Read(days * USECS_PER_DAY + clock + micro, offset, out.ff)
