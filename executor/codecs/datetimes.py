"""date, time, timestamp and timestamptz in PostgreSQL's ISO forms.

Storage is the text PostgreSQL prints with DateStyle ISO (timestamptz in UTC,
without a zone suffix), which also sorts correctly; the binary forms are day and
microsecond counts from 2000-01-01. Text input accepts the ISO 8601 shapes
clients send -- 'YYYY-MM-DD', an optional 'HH:MM[:SS[.frac]]' after a space or
'T', an optional zone (Z, +HH[:MM[:SS]], +HHMM, an abbreviation such as PST or a
tz database name) and an optional BC/AD -- plus the special words epoch,
infinity and -infinity (allballs for time). Zones are ignored by the types
without time zone, as in PostgreSQL (which validates them all the same). Not
accepted: other DateStyle orders ('01/02/2024'), month names, compact times and
the relative words now/today/tomorrow/yesterday (FeatureNotSupported: they need
the transaction clock, which the executor owns).
"""

from __future__ import annotations

import calendar
import functools
import re
import struct
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from typing import Any, Final, NamedTuple

from catalog import types
from catalog.errors import (
    DatetimeFieldOverflow,
    FeatureNotSupported,
    InvalidDatetimeFormat,
    InvalidParameterValue,
    SqlError,
)
from executor.codecs.base import (
    BinDecoder,
    Codec,
    ColumnDecoder,
    ColumnEncoder,
    Decoder,
    Encoder,
    Settings,
    check_size,
    each_binary,
    each_text,
    invalid_syntax,
    repeated_text,
    unpack_column,
    without_nulls,
)
from executor.codecs.civil import (
    DATE_END,
    DATE_MIN,
    DATE_NEG_INFINITY,
    DATE_POS_INFINITY,
    INFINITIES,
    TIMESTAMP_END,
    TIMESTAMP_MIN,
    TIMESTAMP_NEG_INFINITY,
    TIMESTAMP_POS_INFINITY,
    USECS_PER_DAY,
    USECS_PER_HOUR,
    USECS_PER_MINUTE,
    USECS_PER_SECOND,
    days_from_civil,
    days_in_month,
    format_clock,
    format_date,
    format_offset,
    format_timestamp,
)
from executor.codecs.columnar import arrow, each, inferred, patched, when_inferred
from executor.codecs.integers import SPACE
from executor.codecs.strings import text_column as text_column_of_str
from executor.codecs.strings import text_out
from executor.codecs.zones import UTC_ZONE, Zone, input_zone, offset_zone, session_zone

_CLOCK: Final = (
    r"(?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{1,2})"
    r"(?::(?P<second>[0-9]{1,2})(?P<fraction>\.[0-9]*)?)?"
)
_ZONE_AND_ERA: Final = (
    r"(?:\s*(?P<era_before>bc|ad)(?![a-z0-9_/+-]))?"
    r"\s*(?P<zone>[+-]\s*[0-9]+(?::[0-9]+){0,2}|[a-z][a-z0-9_/+-]*)?"
    r"(?:\s*(?P<era>bc|ad))?\s*"
)
_DATETIME: Final = re.compile(
    r"\s*(?:(?P<year>[0-9]{3,})-(?P<month>[0-9]{1,2})-(?P<day>[0-9]{1,2})"
    r"|(?P<compact>[0-9]{8}))"
    rf"(?:(?:\s*T\s*|\s+){_CLOCK})?{_ZONE_AND_ERA}",
    re.ASCII | re.IGNORECASE,
)
_TIME: Final = re.compile(
    rf"\s*(?:[0-9]{{3,}}-[0-9]{{1,2}}-[0-9]{{1,2}}(?:\s*T\s*|\s+))?{_CLOCK}{_ZONE_AND_ERA}",
    re.ASCII | re.IGNORECASE,
)
_STORED: Final = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2}(?: [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?)?)"
    r"(?:( ?)([+-][0-9]{2}(?::[0-9]{2})?))?", re.ASCII
)
"""The stored form, or what drivers send: the same with a numeric offset
(pgjdbc: '2024-01-02 03:04:05.123456+00', and '2024-01-02 +00' for dates)."""
_EPOCH: Final = datetime(2000, 1, 1)
_MICROSECOND: Final = timedelta(microseconds=1)
_RELATIVE: Final = frozenset({"now", "today", "tomorrow", "yesterday"})
_EPOCH_DAYS: Final = days_from_civil(1970, 1, 1)
_UNIX_TO_2000_MICROS: Final = -_EPOCH_DAYS * USECS_PER_DAY
_UNIX_YEAR_1: Final = (days_from_civil(1, 1, 1) - _EPOCH_DAYS) * USECS_PER_DAY
_UNIX_YEAR_10000: Final = (days_from_civil(10000, 1, 1) - _EPOCH_DAYS) * USECS_PER_DAY
# IS_VALID_JULIAN checks the year and month only: November 4714 BC passes.
_JULIAN_FIRST: Final = days_from_civil(-4713, 11, 1)
_I32: Final = struct.Struct(">i")
_I64: Final = struct.Struct(">q")


class _Parsed(NamedTuple):
    days: int
    clock: int
    zone: Zone | None


def _clock(match: re.Match[str], text: str) -> int:
    """Microseconds since midnight of a matched clock (0 when absent)."""
    if match["hour"] is None:
        return 0
    minute = int(match["minute"])
    second = int(match["second"] or 0)
    fraction = match["fraction"]
    # PostgreSQL reads the fraction as a double and rounds with rint().
    micro = round(float(fraction) * USECS_PER_SECOND) if fraction and fraction != "." else 0
    clock = (
        int(match["hour"]) * USECS_PER_HOUR
        + minute * USECS_PER_MINUTE
        + second * USECS_PER_SECOND
        + micro
    )
    if minute > 59 or second > 60 or clock > USECS_PER_DAY:
        raise _field_overflow(text)
    return clock


def _zone(match: re.Match[str], text: str, type_name: str) -> tuple[Zone | None, bool]:
    """(zone, is_bc) of a match; the era may come before or after the zone."""
    name = match["zone"]
    bc = "bc" in ((match["era_before"] or "").lower(), (match["era"] or "").lower())
    if name is None:
        return None, bc
    if name[0] in "+-":
        return offset_zone(name, text), bc
    zone = input_zone(name)
    if zone is not None:
        return zone, bc
    if name.isalpha():  # PostgreSQL reads a bare word as a keyword, not a zone name
        raise invalid_syntax(type_name, text, InvalidDatetimeFormat)
    raise InvalidParameterValue(f'time zone "{name.lower()}" not recognized')


def _field_overflow(text: str) -> DatetimeFieldOverflow:
    return DatetimeFieldOverflow(f'date/time field value out of range: "{text}"')


def _special(text: str, type_name: str) -> int | None:
    """+1/-1 for ±infinity, 0 for epoch; None when the text is no special word."""
    word = text.strip(SPACE).lower()
    if word in INFINITIES:
        return INFINITIES[word]
    if word == "epoch":
        return 0
    if word in _RELATIVE:
        raise FeatureNotSupported(f'"{word}" is not supported as {type_name} input')
    return None


def _parse(text: str, type_name: str) -> _Parsed:
    fast = _STORED.fullmatch(text)
    if fast is not None:
        parsed = _parse_iso(*fast.groups())
        if parsed is not None:
            return parsed
    match = _DATETIME.fullmatch(text)
    if match is None:
        raise invalid_syntax(type_name, text, InvalidDatetimeFormat)
    if match["compact"]:
        compact = match["compact"]
        year, month, day = int(compact[:4]), int(compact[4:6]), int(compact[6:])
    else:
        year, month, day = int(match["year"]), int(match["month"]), int(match["day"])
    zone, bc = _zone(match, text, type_name)
    if year == 0 or not 1 <= month <= 12:
        raise _field_overflow(text)
    if bc:
        year = 1 - year
    if not 1 <= day <= days_in_month(year, month):
        raise _field_overflow(text)
    return _Parsed(days_from_civil(year, month, day), _clock(match, text), zone)


def _parse_iso(moment: str, space: str | None, offset: str | None) -> _Parsed | None:
    """The common forms on a fast path, with datetime checking the fields;
    None sends the text down the general path (which reports any error)."""
    if offset is not None and len(moment) == 10 and not space:
        return None  # '2024-01-02-05': leave unusual forms to the general parser
    zone = None if offset is None else _numeric_offset(offset)
    if offset is not None and zone is None:
        return None
    try:  # February 30th, year 0...: reported by the general path
        micros = (datetime.fromisoformat(moment) - _EPOCH) // _MICROSECOND
    except ValueError:
        return None
    return _Parsed(*divmod(micros, USECS_PER_DAY), zone)


@functools.lru_cache(maxsize=64)
def _numeric_offset(text: str) -> Zone | None:
    try:
        return offset_zone(text, text)
    except SqlError:
        return None


def _date_in(text: str) -> str:
    special = _special(text, "date")
    if special is not None:
        return format_date(_EPOCH_DAYS if special == 0 else _infinite_date(special))
    days = _parse(text, "date").days
    if not DATE_MIN <= days < DATE_END:
        raise DatetimeFieldOverflow(f'date out of range: "{text}"')
    return format_date(days)


def _infinite_date(sign: int) -> int:
    return DATE_POS_INFINITY if sign > 0 else DATE_NEG_INFINITY


def _infinite_timestamp(sign: int) -> int:
    return TIMESTAMP_POS_INFINITY if sign > 0 else TIMESTAMP_NEG_INFINITY


def round_to_typmod(microseconds: int, typmod: int) -> int:
    """AdjustTimestampForTypmod: round half away from zero to typmod digits."""
    if not 0 <= typmod < 6:
        return microseconds
    unit: int = 10 ** (6 - typmod)
    magnitude = (abs(microseconds) + unit // 2) // unit * unit
    return magnitude if microseconds >= 0 else -magnitude


def _timestamp_micros(text: str, typmod: int, session: Zone | None) -> int:
    """Text -> microseconds since 2000 (UTC when ``session`` is given)."""
    type_name = "timestamp" if session is None else "timestamp with time zone"
    special = _special(text, type_name)
    if special is not None:
        return _EPOCH_DAYS * USECS_PER_DAY if special == 0 else _infinite_timestamp(special)
    parsed = _parse(text, type_name)
    if parsed.days < _JULIAN_FIRST:
        raise DatetimeFieldOverflow(f'timestamp out of range: "{text}"')
    micros = parsed.days * USECS_PER_DAY + parsed.clock
    if session is not None:
        micros -= (parsed.zone or session).local_offset(micros) * USECS_PER_SECOND
    micros = round_to_typmod(micros, typmod)
    if not TIMESTAMP_MIN <= micros < TIMESTAMP_END:
        raise DatetimeFieldOverflow(f'timestamp out of range: "{text}"')
    return micros


def stored_timestamp(value: object) -> int:
    """Storage text (or what SQLite computed) -> microseconds since 2000, as UTC."""
    return _timestamp_micros(str(value), -1, UTC_ZONE)


def stored_date(value: object) -> int:
    """Storage text -> days since 2000-01-01."""
    text = str(value)
    special = _special(text, "date")
    if special is not None:
        return _EPOCH_DAYS if special == 0 else _infinite_date(special)
    return _parse(text, "date").days


def stored_time(value: object) -> int:
    """Storage text of a time -> microseconds since midnight."""
    return _time_micros(str(value), -1)


def _time_micros(text: str, typmod: int) -> int:
    if text.strip(SPACE).lower() == "allballs":
        return 0
    match = _TIME.fullmatch(text)
    if match is None:
        raise invalid_syntax("time", text, InvalidDatetimeFormat)
    zone, _bc = _zone(match, text, "time")
    if zone is not None and not zone.fixed:
        # Without a date a zone with DST rules has no offset to ignore.
        raise invalid_syntax("time", text, InvalidDatetimeFormat)
    micros = round_to_typmod(_clock(match, text), typmod)
    if micros > USECS_PER_DAY:
        raise _field_overflow(text)
    return micros


def _timestamp_text(micros: int, zone: Zone) -> str:
    """timestamptz output: the local time in ``zone`` followed by its offset."""
    if micros in (TIMESTAMP_POS_INFINITY, TIMESTAMP_NEG_INFINITY):
        return format_timestamp(micros)
    offset = zone.utc_offset(micros)
    return format_timestamp(micros + offset * USECS_PER_SECOND, format_offset(offset))


def _timestamptz_out(zone: Zone) -> Encoder:
    if not (zone.fixed and zone.offset == 0):
        return lambda value: _timestamp_text(stored_timestamp(value), zone).encode()

    def utc_out(value: object) -> bytes:
        text = value if type(value) is str else str(value)
        if text[-1:].isdigit() and text[:1].isdigit():  # plain stored form: add the zone
            return (text + "+00").encode()
        return _timestamp_text(stored_timestamp(text), zone).encode()

    return utc_out


def _timestamptz_column(zone: Zone) -> ColumnEncoder:
    """``_timestamptz_out`` of a whole column: in UTC the stored forms (a
    digit first and last) only gain '+00'; other zones, ``_zoned_column``."""
    per_value = _timestamptz_out(zone)
    if not (zone.fixed and zone.offset == 0):
        return _zoned_column(zone, per_value, each(per_value))

    def kernel(column: Any, values: Sequence[Any]) -> Any:
        pc = arrow.pc
        stored_form = pc.match_substring_regex(column, "^[0-9](?:.*[0-9])?$")
        return patched(pc.binary_join_element_wise(column, "+00", ""), stored_form, values,
                       per_value)

    return when_inferred("string", kernel, per_value)


def _zoned_column(zone: Zone, per_value: Encoder, whole_column: ColumnEncoder
                  ) -> ColumnEncoder:
    """Local times in a zone other than UTC: Arrow reads the stored forms,
    adds the offsets and prints the local times. The offsets are looked up
    once per day of the chunk, at both ends of it (the tz database's
    transitions are days apart, four at the least today, so an offset that
    agrees there holds all day); the values of a day with a transition,
    BC, or past 9999 go through ``per_value``."""

    def encode(values: Sequence[Any]) -> Any:
        utc = _unix_micros(values)
        if utc is None:
            return whole_column(values)
        pa, pc = arrow.pa, arrow.pc
        first = pc.min(utc).as_py()
        start = first - first % USECS_PER_DAY
        days = pc.divide(pc.subtract(utc, start), USECS_PER_DAY)  # not negative: floor
        seen = pc.unique(days).drop_null()
        offsets = [_steady_offset(zone, start - _UNIX_TO_2000_MICROS + day * USECS_PER_DAY)
                   for day in seen.to_pylist()]
        which = pc.index_in(days, value_set=seen)
        offset = pc.take(pa.array(offsets, pa.int64()), which)
        local = pc.add(utc, pc.multiply(offset, USECS_PER_SECOND))
        clock = pc.replace_substring_regex(local.cast("timestamp[us]").cast("string"),
                                           r"\.?0+$", "")  # '.ffffff' without trailing zeros
        suffixes = pa.array([None if seconds is None else format_offset(seconds)
                             for seconds in offsets], pa.string())
        printed = pc.binary_join_element_wise(clock, pc.take(suffixes, which), "")
        ordinary = pc.and_kleene(pc.is_valid(offset), pc.and_(
            pc.greater_equal(local, _UNIX_YEAR_1), pc.less(local, _UNIX_YEAR_10000)))
        return patched(printed, ordinary, values, per_value)

    return encode


def _steady_offset(zone: Zone, day_start: int) -> int | None:
    """The zone's offset all day long from ``day_start`` (UTC), or None
    when it changes that day."""
    offset = zone.utc_offset(day_start)
    return offset if zone.utc_offset(day_start + USECS_PER_DAY - 1) == offset else None


def _unix_micros(values: Sequence[Any]) -> Any | None:
    """Stored timestamps as Arrow int64 microseconds from 1970, or None when
    Arrow cannot read them all (BC, infinities, years past 9999...)."""
    column = inferred(values, "string")
    try:
        return None if column is None else column.cast("timestamp[us]").cast("int64")
    except arrow.pa.ArrowInvalid:
        return None


def _days_column(per_value: Encoder) -> ColumnEncoder:
    """Dates as their day numbers from 2000-01-01 (binary send): Arrow reads
    the ISO forms; BC dates and infinities go through ``per_value``."""
    whole_column = each(per_value)

    def encode(values: Sequence[Any]) -> Any:
        column = inferred(values, "string")
        try:
            days = None if column is None else column.cast("date32").cast("int32")
        except arrow.pa.ArrowInvalid:
            days = None
        if days is None:
            return whole_column(values)
        return arrow.pc.subtract(days, arrow.pa.scalar(-_EPOCH_DAYS, "int32"))

    return encode


def _micros_column(per_value: Encoder) -> ColumnEncoder:
    """Timestamps as their microseconds from 2000-01-01 (binary send): Arrow
    reads the ISO forms; BC, infinities and years past 9999 go through
    ``per_value``."""
    whole_column = each(per_value)

    def encode(values: Sequence[Any]) -> Any:
        micros = _unix_micros(values)
        if micros is None:
            return whole_column(values)
        return arrow.pc.subtract(micros, arrow.pa.scalar(_UNIX_TO_2000_MICROS, "int64"))

    return encode


def _int_binary_in(packer: struct.Struct, read: Callable[[int], str]) -> BinDecoder:
    size, unpack = packer.size, packer.unpack

    def decode(data: bytes) -> str:
        check_size(data, size)
        return read(unpack(data)[0])

    return decode


def _date_read(days: int) -> str:
    if days not in (DATE_POS_INFINITY, DATE_NEG_INFINITY) and not DATE_MIN <= days < DATE_END:
        raise DatetimeFieldOverflow("date out of range")
    return format_date(days)


def _timestamp_reader(typmod: int) -> Callable[[int], str]:
    def read(micros: int) -> str:
        if micros not in (TIMESTAMP_POS_INFINITY, TIMESTAMP_NEG_INFINITY):
            if not TIMESTAMP_MIN <= micros < TIMESTAMP_END:
                raise DatetimeFieldOverflow("timestamp out of range")
            micros = round_to_typmod(micros, typmod)
        return format_timestamp(micros)

    return read


def _time_reader(typmod: int) -> Callable[[int], str]:
    def read(micros: int) -> str:
        if not 0 <= micros <= USECS_PER_DAY:
            raise DatetimeFieldOverflow("time out of range")
        return format_clock(round_to_typmod(micros, typmod))

    return read


_COMMON_TIMESTAMP: Final = re.compile(
    r"(\d{4}-\d\d-\d\d) ((?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d)(?:\.(\d{1,6}))?(\+00(?::00)?)?",
    re.ASCII)
"""The form clients send timestamps in (pgjdbc adds '+00' in a UTC JVM):
already the storage form, once the fraction drops its trailing zeros."""
_COMMON_DATE: Final = re.compile(r"(\d{4}-\d\d-\d\d)(?: \+00(?::00)?)?", re.ASCII)
_REAL_DATES: dict[str, bool] = {}
"""'YYYY-MM-DD' texts seen, and whether each names a day of the calendar."""


def _real_date(text: str) -> bool:
    known = _REAL_DATES.get(text)
    if known is None:
        try:
            known = date.fromisoformat(text) is not None
        except ValueError:
            known = False
        if len(_REAL_DATES) >= 100_000:
            _REAL_DATES.clear()
        _REAL_DATES[text] = known
    return known


def _timestamp_column(decode: Decoder, typmod: int, zone: Zone | None) -> ColumnDecoder:
    """Timestamps in the common form are their own storage form (the zone
    must be UTC: given, or the session's); others go through ``decode``."""
    if 0 <= typmod < 6:
        return each_text(decode)
    match = _COMMON_TIMESTAMP.fullmatch
    zoneless = zone is None or (zone.fixed and zone.utc_offset(0) == 0)

    def read(text: str) -> object:
        common = match(text)
        if common is not None:
            day, clock, fraction, offset = common.groups()
            if (offset is not None or zoneless) and _real_date(day):
                fraction = fraction.rstrip("0") if fraction else ""
                return f"{day} {clock}.{fraction}" if fraction else f"{day} {clock}"
        return decode(text)

    return each_text(read)


def _date_column(_typmod: int, _settings: Settings) -> ColumnDecoder:
    match = _COMMON_DATE.fullmatch

    def read(text: str) -> object:
        common = match(text)
        return common[1] if common is not None and _real_date(common[1]) else _date_in(text)

    return repeated_text(read)


_EPOCH: Final = datetime(2000, 1, 1)
_EPOCH_DAY: Final = _EPOCH.toordinal()
_DATETIME_DAYS: Final = (date.min.toordinal() - _EPOCH_DAY, date.max.toordinal() - _EPOCH_DAY)
"""The days from 2000-01-01 that Python's dates span (years 1 to 9999)."""
_DATETIME_MICROS: Final = (_DATETIME_DAYS[0] * USECS_PER_DAY,
                           (_DATETIME_DAYS[1] + 1) * USECS_PER_DAY - 1)


def _date_binary_column(_typmod: int, _settings: Settings) -> ColumnDecoder:
    """Dates sent in binary, years 1 to 9999, formatted by Python's dates
    (which lay them out as format_date does); others value by value."""
    each = each_binary(_int_binary_in(_I32, _date_read))
    low, high = _DATETIME_DAYS
    ordinal = date.fromordinal

    def present(values: Sequence[bytes]) -> list[object]:
        days = unpack_column(values, 4, "i")
        if not days or not (low <= min(days) and max(days) <= high):
            return each(values)
        return [ordinal(day + _EPOCH_DAY).isoformat() for day in days]

    return without_nulls(present)


def _timestamp_binary_column(typmod: int, _settings: Settings) -> ColumnDecoder:
    """Timestamps sent in binary, years 1 to 9999, formatted by Python's
    datetimes (their fractions without trailing zeros, as format_timestamp
    writes them); others, and columns whose typmod rounds, value by value."""
    each = each_binary(_int_binary_in(_I64, _timestamp_reader(typmod)))
    if 0 <= typmod < 6:
        return each
    low, high = _DATETIME_MICROS

    def present(values: Sequence[bytes]) -> list[object]:
        micros = unpack_column(values, 8, "q")
        if not micros or not (low <= min(micros) and max(micros) <= high):
            return each(values)
        texts = [(_EPOCH + timedelta(microseconds=value)).isoformat(" ") for value in micros]
        return [text.rstrip("0") if len(text) > 19 else text for text in texts]

    return without_nulls(present)


_CALENDAR_DAY: Final = (rb"(?!0000)[0-9]{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9])"
                        rb"|(?:0[13-9]|1[0-2])-30|(?:0[13578]|1[02])-31)")
"""'YYYY-MM-DD' of a day of the calendar, years 1 to 9999, if 29 February
is in a leap year (which ``_FEBRUARY_29`` finds to check)."""
_FEBRUARY_29: Final = re.compile(rb"([0-9]{4})-02-29")
_PRINTED_CLOCK: Final = rb" (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{0,5}[1-9])?"
"""A time of day as PostgreSQL prints it: no trailing zeros in the fraction."""


def _printed(shape: bytes, each: ColumnDecoder, utc: bytes = b"") -> ColumnDecoder:
    """Values of the form ``shape``, as PostgreSQL prints them (their stored
    form), recognised by one match over the column and cut apart at once;
    ``utc`` matches the '+00' that may follow each, which is dropped. Other
    columns go to ``each``."""
    lines = re.compile(rb"(?:%s%s\n)*+" % (shape, utc))

    def present(values: Sequence[bytes]) -> list[object]:
        text = b"\n".join(values) + b"\n"
        if lines.fullmatch(text) is None or (b"-02-29" in text and not all(
                calendar.isleap(int(year)) for year in set(_FEBRUARY_29.findall(text)))):
            return each(values)
        if utc:
            text = text.replace(b"+00\n", b"\n")
        stored: list[Any] = text.decode().split("\n")
        stored.pop()
        return stored if len(stored) == len(values) else each(values)

    return without_nulls(present)


def _timestamp_codec(with_zone: bool) -> Codec:
    def text_in(typmod: int, settings: Settings) -> Decoder:
        session = session_zone(settings.timezone) if with_zone else None
        return lambda text: format_timestamp(_timestamp_micros(text, typmod, session))

    def text_in_column(typmod: int, settings: Settings) -> ColumnDecoder:
        zone = session_zone(settings.timezone) if with_zone else None
        each = _timestamp_column(text_in(typmod, settings), typmod, zone)
        if 0 <= typmod < 6:
            return each
        zoneless = zone is None or (zone.fixed and zone.utc_offset(0) == 0)
        return _printed(_CALENDAR_DAY + _PRINTED_CLOCK, each,
                        rb"(?:\+00)?" if zoneless else rb"\+00")

    def encoder(_typmod: int, settings: Settings) -> Encoder:
        return _timestamptz_out(session_zone(settings.timezone)) if with_zone else text_out

    def binary_in(typmod: int, _settings: Settings) -> BinDecoder:
        return _int_binary_in(_I64, _timestamp_reader(typmod))

    def binary_out(_typmod: int) -> Encoder:
        return _timestamp_send

    def text_column(_typmod: int, settings: Settings) -> ColumnEncoder:
        if with_zone:
            return _timestamptz_column(session_zone(settings.timezone))
        return text_column_of_str

    return Codec(text_in, encoder, binary_in, binary_out, text_in_column=text_in_column,
                 binary_in_column=_timestamp_binary_column, text_out_column=text_column,
                 binary_out_column=lambda _typmod: _MICROS_COLUMN)


def _timestamp_send(value: object) -> bytes:
    return _I64.pack(stored_timestamp(value))


_MICROS_COLUMN: Final = _micros_column(_timestamp_send)


def _time_text_in(typmod: int, _settings: Settings) -> Decoder:
    return lambda text: format_clock(_time_micros(text, typmod))


def _time_binary_out(value: object) -> bytes:
    return _I64.pack(_time_micros(str(value), -1))


def _date_send(value: object) -> bytes:
    return _I32.pack(stored_date(value))


_DAYS_COLUMN: Final = _days_column(_date_send)


CODECS: Final[dict[int, Codec]] = {
    types.DATE: Codec(
        lambda _typmod, _settings: _date_in,
        lambda _typmod, _settings: text_out,
        lambda _typmod, _settings: _int_binary_in(_I32, _date_read),
        lambda _typmod: _date_send,
        text_in_column=lambda typmod, settings: _printed(_CALENDAR_DAY,
                                                         _date_column(typmod, settings)),
        binary_in_column=_date_binary_column,
        text_out_column=lambda _typmod, _settings: text_column_of_str,
        binary_out_column=lambda _typmod: _DAYS_COLUMN,
    ),
    types.TIME: Codec(
        _time_text_in,
        lambda _typmod, _settings: text_out,
        lambda typmod, _settings: _int_binary_in(_I64, _time_reader(typmod)),
        lambda _typmod: _time_binary_out,
        text_out_column=lambda _typmod, _settings: text_column_of_str,
    ),
    types.TIMESTAMP: _timestamp_codec(with_zone=False),
    types.TIMESTAMPTZ: _timestamp_codec(with_zone=True),
}
