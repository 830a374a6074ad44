"""Formatting functions: to_char() of date/time values and numbers, and
reading them back with to_number(), to_timestamp() and to_date()
(to_timestamp(double precision) too, which shares its name).

The templates are PostgreSQL's (``executor.values.datetime_template``,
``number_template``, ``number_scan``, ``datetime_scan``); a timestamptz is
printed and read in the session's time zone.
"""

from __future__ import annotations

from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.sqltypes import DATE, FLOAT8, NUMERIC, TEXT, TIMESTAMPTZ, SqlType
from executor.codecs import numeric_storage
from executor.codecs.civil import (
    DATE_END,
    DATE_MIN,
    USECS_PER_DAY,
    USECS_PER_SECOND,
    format_date,
    format_timestamp,
)
from executor.codecs.datetimes import round_to_typmod, stored_timestamp
from executor.codecs.intervals import parse_interval
from executor.codecs.numeric import exact
from executor.codecs.zones import Zone
from executor.functions.datetime_functions import INFINITE, session, utc_micros
from executor.functions.declare import Declarations, Function, Overload, Runtime
from executor.values import datetime_math as math
from executor.values import datetime_scan, datetime_template, number_scan, number_template

FUNCTIONS = Declarations()

# --- to_char -------------------------------------------------------------------------------

_NUMBER_KINDS: Final = {t.INT4: "int", t.INT8: "int", t.FLOAT4: "real", t.FLOAT8: "double",
                        t.NUMERIC: "numeric"}


@FUNCTIONS.overloaded(
    "to_char",
    *(Overload((SqlType(oid), TEXT), TEXT)
      for oid in (t.TIMESTAMP, t.TIMESTAMPTZ, t.INTERVAL, t.INT4, t.INT8, t.FLOAT4, t.FLOAT8,
                  t.NUMERIC)),
    type_args=(0,), runtime=True)
def _to_char(runtime: Runtime) -> Function:
    def to_char(oid: int, value: Any, template: Any) -> Any:
        if value is None or template is None:
            return None
        if oid == t.NUMERIC:
            return number_template.to_char(exact(value), str(template), "numeric")
        if oid in _NUMBER_KINDS:
            return number_template.to_char(value, str(template), _NUMBER_KINDS[oid])
        nodes = datetime_template.parse_template(str(template))
        if not nodes or value in INFINITE:
            return None
        if oid == t.INTERVAL:
            moment = datetime_template.Moment.of_interval(*parse_interval(str(value)))
        elif oid == t.TIMESTAMP:
            moment = datetime_template.Moment.of_timestamp(stored_timestamp(value))
        else:
            micros = stored_timestamp(value)
            zone = session(runtime)
            offset = zone.utc_offset(micros)
            moment = datetime_template.Moment.of_timestamp(
                micros + offset * USECS_PER_SECOND, offset, zone.abbreviation(micros))
        return datetime_template.to_char(nodes, moment)
    return to_char


@FUNCTIONS.overloaded("to_number", Overload((TEXT, TEXT), NUMERIC))
def _to_number(value: Any, template: Any) -> Any:
    if value is None or template is None:
        return None
    found = number_scan.to_number(str(value), str(template))
    return None if found is None else numeric_storage.key(found)


# --- reading dates and times ----------------------------------------------------------------

@FUNCTIONS.overloaded("to_timestamp", Overload((FLOAT8,), TIMESTAMPTZ),
                      Overload((TEXT, TEXT), TIMESTAMPTZ), runtime=True)
def _to_timestamp(runtime: Runtime) -> Function:
    """to_timestamp(seconds since 1970) and to_timestamp(text, template)."""
    def to_timestamp(value: Any, *template: Any) -> Any:
        if value is None or None in template:
            return None
        if not template:
            seconds = float(value)  # NaN is stored as the text 'NaN'
            if seconds in (float("inf"), -float("inf")):
                return "infinity" if seconds > 0 else "-infinity"
            return format_timestamp(math.from_unix_seconds(seconds))
        read = datetime_scan.read_timestamp(str(value), str(template[0]))
        zone = session(runtime) if read.offset is None else Zone(read.offset)
        micros = utc_micros(read.micros, zone)
        if read.fraction_digits:  # FF1 to FF6: that many digits, as timestamptz(n)
            micros = round_to_typmod(micros, read.fraction_digits)
        return format_timestamp(math.checked_timestamp(micros))
    return to_timestamp


@FUNCTIONS.overloaded("to_date", Overload((TEXT, TEXT), DATE))
def _to_date(value: Any, template: Any) -> Any:
    if value is None or template is None:
        return None
    days = datetime_scan.read_timestamp(str(value), str(template)).micros // USECS_PER_DAY
    if not DATE_MIN <= days < DATE_END:
        raise errors.DatetimeFieldOverflow(f'date out of range: "{value}"')
    return format_date(days)
