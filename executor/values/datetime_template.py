"""Date/time format templates ('YYYY-MM-DD HH24:MI:SS') as PostgreSQL's
formatting.c reads them, and to_char() of timestamps and intervals.

A template is read left to right: an optional FM or TM prefix, then the
first keyword of PostgreSQL's list (in its order) the text starts with, then
an optional TH, th or SP suffix; text that starts no keyword is copied
(double-quoted text verbatim, a backslash escaping the next character).
Keywords come in upper, capitalised and lower case where case matters
(MONTH, Month, month). TM (translation mode) changes nothing: names are
always the English ones of the C locale.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final, NamedTuple

from catalog import errors
from executor.codecs.civil import (
    USECS_PER_DAY,
    USECS_PER_HOUR,
    USECS_PER_MINUTE,
    USECS_PER_SECOND,
    civil_from_days,
    days_from_civil,
)
from executor.values.datetime_fields import JULIAN_2000, day_of_week, iso_week_start, iso_year_week

MONTHS: Final = ("January", "February", "March", "April", "May", "June", "July", "August",
                 "September", "October", "November", "December")
DAYS: Final = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
ROMAN_MONTHS: Final = ("XII", "XI", "X", "IX", "VIII", "VII", "VI", "V", "IV", "III", "II", "I")
"""Reversed, as PostgreSQL keeps them (December first)."""

_KEYWORDS: Final = (
    "A.D.", "A.M.", "AD", "AM", "B.C.", "BC", "CC", "DAY", "DDD", "DD", "DY", "Day", "Dy", "D",
    "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "FX", "HH24", "HH12", "HH", "IDDD", "ID", "IW",
    "IYYY", "IYY", "IY", "I", "J", "MI", "MM", "MONTH", "MON", "MS", "Month", "Mon", "OF", "P.M.",
    "PM", "Q", "RM", "SSSSS", "SSSS", "SS", "TZH", "TZM", "TZ", "US", "WW", "W", "Y,YYY", "YYYY",
    "YYY", "YY", "Y", "a.d.", "a.m.", "ad", "am", "b.c.", "bc", "cc", "day", "ddd", "dd", "dy",
    "d", "ff1", "ff2", "ff3", "ff4", "ff5", "ff6", "fx", "hh24", "hh12", "hh", "iddd", "id", "iw",
    "iyyy", "iyy", "iy", "i", "j", "mi", "mm", "month", "mon", "ms", "of", "p.m.", "pm", "q", "rm",
    "sssss", "ssss", "ss", "tzh", "tzm", "tz", "us", "ww", "w", "y,yyy", "yyyy", "yyy", "yy", "y",
)
"""formatting.c's DCH_keywords, in its search order."""
_BY_FIRST: Final[dict[str, tuple[str, ...]]] = {
    first: tuple(k for k in _KEYWORDS if k[0] == first) for first in {k[0] for k in _KEYWORDS}
}
_NOT_FOR_INTERVALS: Final = frozenset({
    "A.D.", "AD", "B.C.", "BC", "a.d.", "ad", "b.c.", "bc", "MONTH", "Month", "month", "MON",
    "Mon", "mon", "DAY", "Day", "day", "DY", "Dy", "dy", "D", "d", "ID", "id"})


class Node(NamedTuple):
    """One element of a template: a keyword with its modifiers, or literal text."""

    keyword: str | None
    text: str = ""
    kind: str = "char"
    """A literal's: 'separator' (ASCII punctuation), 'space' or 'char' (the
    reading functions treat them differently)."""
    fill: bool = False
    """FM: no padding."""
    translated: bool = False
    """TM: names as the locale has them (the C locale's, unpadded)."""
    ordinal: str = ""
    """'TH' or 'th': an ordinal suffix after the number."""


def _keyword(template: str, position: int) -> str | None:
    for keyword in _BY_FIRST.get(template[position], ()):
        if template.startswith(keyword, position):
            return keyword
    return None


@functools.lru_cache(maxsize=256)
def parse_template(template: str) -> tuple[Node, ...]:
    """A template's nodes (parsed once per distinct template)."""
    nodes: list[Node] = []
    position = 0
    while position < len(template):
        prefix = template[position:position + 2]
        fill, translated = prefix in ("FM", "fm"), prefix in ("TM", "tm")
        if fill or translated:
            position += 2
            if position >= len(template):
                break
        keyword = _keyword(template, position)
        if keyword is not None:
            position += len(keyword)
            suffix = template[position:position + 2]
            ordinal = suffix if suffix in ("TH", "th") else ""
            if suffix in ("TH", "th", "SP"):
                position += 2
            nodes.append(Node(keyword, "", "", fill, translated, ordinal))
            continue
        character = template[position]
        if character == '"':
            position += 1
            while position < len(template) and template[position] != '"':
                if template[position] == "\\" and position + 1 < len(template):
                    position += 1
                nodes.append(Node(None, template[position]))
                position += 1
            position += 1
            continue
        if character == "\\" and template[position + 1:position + 2] == '"':
            position += 1
        nodes.append(Node(None, template[position], _literal_kind(template[position])))
        position += 1
    return tuple(nodes)


def _literal_kind(character: str) -> str:
    if " " < character < "\x7f" and not character.isalnum():
        return "separator"
    return "space" if character.isspace() else "char"


@dataclass(frozen=True, slots=True)
class Moment:
    """The fields to_char() prints; an interval's are its own (C-truncated)."""

    year: int
    """Astronomical for timestamps (0 is 1 BC); an interval's years."""
    month: int
    day: int
    hour: int
    minute: int
    second: int
    micro: int
    day_of_year: int
    offset: int = 0
    """Seconds east of UTC."""
    zone_name: str | None = None
    interval: bool = False

    @classmethod
    def of_timestamp(cls, local: int, offset: int = 0, zone_name: str | None = None) -> Moment:
        days, clock = divmod(local, USECS_PER_DAY)
        year, month, day = civil_from_days(days)
        return cls(year, month, day, clock // USECS_PER_HOUR, clock // USECS_PER_MINUTE % 60,
                   clock // USECS_PER_SECOND % 60, clock % USECS_PER_SECOND,
                   days - days_from_civil(year, 1, 1) + 1, offset, zone_name)

    @classmethod
    def of_interval(cls, months: int, days: int, micros: int) -> Moment:
        year, month = _c_divmod(months, 12)
        hour, rest = _c_divmod(micros, USECS_PER_HOUR)
        minute, rest = _c_divmod(rest, USECS_PER_MINUTE)
        second, micro = _c_divmod(rest, USECS_PER_SECOND)
        return cls(year, month, days, hour, minute, second, micro, (year * 12 + month) * 30 + days,
                   interval=True)

    @property
    def days(self) -> int:
        """The date as days since 2000-01-01."""
        return days_from_civil(self.year, self.month, self.day)


def _c_divmod(numerator: int, denominator: int) -> tuple[int, int]:
    quotient = abs(numerator) // denominator
    quotient = quotient if numerator >= 0 else -quotient
    return quotient, numerator - quotient * denominator


def ordinal_suffix(number: str, upper: bool) -> str:
    """The English ordinal suffix of the number ``number`` ends with."""
    if not number[-1:].isdigit():
        raise errors.InvalidTextRepresentation(f'"{number}" is not a number')
    last = "0" if len(number) > 1 and number[-2] == "1" else number[-1]
    suffix = {"1": "st", "2": "nd", "3": "rd"}.get(last, "th")
    return suffix.upper() if upper else suffix


def _padded(value: int, width: int, fill: bool) -> str:
    """C's %0*d: zero-padded to ``width`` (the sign counts), none under FM."""
    if fill:
        return str(value)
    return f"{value:0{width}d}"


def _signed_width(value: int, width: int) -> int:
    return width if value >= 0 else width + 1


def _shown_year(moment: Moment, year: int) -> int:
    """ADJUST_YEAR: BC years as positive numbers (1 BC is 1), intervals as they are."""
    if moment.interval:
        return year
    return year if year > 0 else 1 - year


def _cased(name: str, keyword: str) -> str:
    if keyword.isupper():
        return name.upper()
    return name.lower() if keyword.islower() else name


def _iso_year(moment: Moment) -> int:
    return iso_year_week(moment.days)[0]


def to_char(nodes: tuple[Node, ...], moment: Moment) -> str:
    """A timestamp or interval printed through a parsed template."""
    pieces: list[str] = []
    for node in nodes:
        if node.keyword is None:
            pieces.append(node.text)
            continue
        text = _render(node, moment)
        if node.ordinal:
            text += ordinal_suffix(text, node.ordinal == "TH")
        pieces.append(text)
    return "".join(pieces)


def _render(node: Node, m: Moment) -> str:
    keyword, fill = node.keyword or "", node.fill
    if m.interval and keyword in _NOT_FOR_INTERVALS:
        raise errors.InvalidDatetimeFormat(
            "invalid format specification for an interval value",
            hint="Intervals are not tied to specific calendar dates.")
    upper = keyword.upper()
    if upper in ("A.M.", "P.M.", "AM", "PM"):
        afternoon = m.hour % 24 >= 12
        text = ("P" if afternoon else "A") + upper[1:] if "." in upper else (
            "PM" if afternoon else "AM")
        return text if keyword[0].isupper() else text.lower()
    if upper in ("A.D.", "B.C.", "AD", "BC"):
        text = ("B.C." if m.year <= 0 else "A.D.") if "." in upper else (
            "BC" if m.year <= 0 else "AD")
        return text if keyword[0].isupper() else text.lower()
    match upper:
        case "HH" | "HH12":
            hour = m.hour % 12 if m.hour >= 0 else -(-m.hour % 12)
            return _padded(hour or 12, _signed_width(m.hour, 2), fill)
        case "HH24":
            return _padded(m.hour, _signed_width(m.hour, 2), fill)
        case "MI":
            return _padded(m.minute, _signed_width(m.minute, 2), fill)
        case "SS":
            return _padded(m.second, _signed_width(m.second, 2), fill)
        case "FF1" | "FF2" | "FF3" | "FF4" | "FF5" | "FF6":
            digits = int(upper[2])
            return f"{m.micro // 10 ** (6 - digits):0{digits}d}"
        case "MS":
            return f"{m.micro // 1000:03d}"
        case "US":
            return f"{m.micro:06d}"
        case "SSSS" | "SSSSS":
            return str(m.hour * 3600 + m.minute * 60 + m.second)
        case "TZ":
            name = m.zone_name or ""
            return name.lower() if keyword == "tz" else name
        case "TZH":
            return f"{'+' if m.offset >= 0 else '-'}{abs(m.offset) // 3600:02d}"
        case "TZM":
            return f"{abs(m.offset) % 3600 // 60:02d}"
        case "OF":
            text = f"{'+' if m.offset >= 0 else '-'}{_padded(abs(m.offset) // 3600, 2, fill)}"
            minutes = abs(m.offset) % 3600 // 60
            return text + (f":{minutes:02d}" if abs(m.offset) % 3600 else "")
        case "MONTH" | "MON":
            name = _cased(MONTHS[m.month - 1], keyword)
            return name[:3] if upper == "MON" else _name(name, node)
        case "MM":
            return _padded(m.month, _signed_width(m.month, 2), fill)
        case "DAY" | "DY":
            name = _cased(DAYS[day_of_week(m.days)], keyword)
            return name[:3] if upper == "DY" else _name(name, node)
        case "DDD":
            return _padded(m.day_of_year, 3, fill)
        case "IDDD":
            return _padded(m.days - iso_week_start(_iso_year(m)) + 1, 3, fill)
        case "DD":
            return _padded(m.day, 2, fill)
        case "D":
            return str(day_of_week(m.days) + 1)
        case "ID":
            return str(day_of_week(m.days) or 7)
        case "WW":
            return _padded((m.day_of_year - 1) // 7 + 1, 2, fill)
        case "IW":
            return _padded(iso_year_week(m.days)[1], 2, fill)
        case "Q":
            return "" if m.interval and not m.month else str((m.month - 1) // 3 + 1)
        case "CC":
            century = m.year // 100 if m.interval else (
                (m.year - 1) // 100 + 1 if m.year > 0 else -((-m.year) // 100) - 1)
            if -99 <= century <= 99:
                return _padded(century, _signed_width(century, 2), fill)
            return str(century)
        case "Y,YYY":
            year = _shown_year(m, m.year)
            thousands, rest = _c_divmod(year, 1000)
            return f"{thousands},{rest:03d}" if rest >= 0 else f"{thousands},-{-rest:03d}"
        case "YYYY" | "IYYY":
            year = _shown_year(m, m.year if upper == "YYYY" else _iso_year(m))
            return _padded(year, _signed_width(year, 4), fill)
        case "YYY" | "IYY" | "YY" | "IY" | "Y" | "I":
            year = _shown_year(m, m.year if upper[0] == "Y" else _iso_year(m))
            digits = len(upper)
            remainder = _c_divmod(year, 10 ** digits)[1]
            return _padded(remainder, _signed_width(year, digits) if digits > 1 else 1, fill)
        case "RM":
            return _roman_month(m, keyword, fill)
        case "W":
            return str((m.day - 1) // 7 + 1)
        case "J":
            return str(m.days + JULIAN_2000)
        case _:  # FX: reading only
            return ""


def _name(name: str, node: Node) -> str:
    """A month's or day's full name, padded to nine letters unless FM or TM."""
    return name if node.fill or node.translated else name.ljust(9)


def _roman_month(m: Moment, keyword: str, fill: bool) -> str:
    if not m.month and not m.year:
        return ""
    if m.month == 0:
        index = 0 if m.year >= 0 else 11
    elif m.month < 0:
        index = -(m.month + 1)
    else:
        index = 12 - m.month
    numeral = ROMAN_MONTHS[index] if keyword == "RM" else ROMAN_MONTHS[index].lower()
    return numeral if fill else numeral.ljust(4)
