"""Run-time conversions and date/time arithmetic on storage values.

Casts go through PostgreSQL's text forms (what PostgreSQL itself does for
most casts: the output function of one type feeds the input function of the
other), with the few numeric cases that round differently handled directly.
Date/time arithmetic works on the binary wire forms of the values, which are
plain integers (days, microseconds, months) and easy to compute with.
"""

from __future__ import annotations

import math
import struct
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from catalog import errors
from catalog import types as t
from executor import codecs
from executor.codecs import civil, network
from executor.codecs.numeric import exact
from executor.codecs.zones import Zone
from executor.values import datetime_math

INT_RANGES = {t.INT2: (-(2**15), 2**15 - 1), t.INT4: (-(2**31), 2**31 - 1),
               t.INT8: (-(2**63), 2**63 - 1)}
_INT_NAMES = {t.INT2: "smallint", t.INT4: "integer", t.INT8: "bigint"}
_STRING_TYPES = frozenset({t.TEXT, t.VARCHAR, t.BPCHAR, t.NAME, t.UNKNOWN})
_NETWORK_TYPES = frozenset({t.INET, t.CIDR})
_EPOCH_2000 = datetime(2000, 1, 1)
_MICROS_PER_DAY = 86_400_000_000
_INTERVAL = struct.Struct("!qii")
_INT64 = struct.Struct("!q")
_INT32 = struct.Struct("!i")


def storage_timestamp(moment: datetime) -> str:
    """The storage form of an aware datetime as a timestamptz (UTC)."""
    naive = moment.astimezone(UTC).replace(tzinfo=None)
    return civil.format_timestamp((naive - _EPOCH_2000) // timedelta(microseconds=1))


def epoch_timestamp(seconds: float | None) -> str | None:
    """The storage form of a ``time.time()`` value as a timestamptz."""
    return None if seconds is None else storage_timestamp(datetime.fromtimestamp(seconds, UTC))


def _to_int(value: Any, target: int) -> int:
    if isinstance(value, str):
        raise errors.NumericValueOutOfRange(f"cannot convert NaN to {_INT_NAMES[target]}")
    if isinstance(value, float):
        if math.isinf(value) or math.isnan(value):
            raise errors.NumericValueOutOfRange(
                f"cannot convert infinity to {_INT_NAMES[target]}")
        value = math.floor(abs(value) + 0.5) * (1 if value >= 0 else -1)
    low, high = INT_RANGES[target]
    if not low <= value <= high:
        raise errors.NumericValueOutOfRange(f"{_INT_NAMES[target]} out of range")
    return int(value)


def _numeric_to_int(value: Decimal, target: int) -> int:
    """numeric to an integer type: rounded half away from zero, in range."""
    if not value.is_finite():
        what = "NaN" if value.is_nan() else "infinity"
        raise errors.FeatureNotSupported(f"cannot convert {what} to {_INT_NAMES[target]}")
    return _to_int(int(value.to_integral_value(ROUND_HALF_UP)), target)


def integer_result(value: Any, target: int) -> Any:
    """An integer operator's result: itself if it fits ``target``, else
    PostgreSQL's 22003. A float is SQLite's overflow of 64 bits."""
    low, high = INT_RANGES[target]
    if value is None or (type(value) is int and low <= value <= high):
        return value
    raise errors.NumericValueOutOfRange(f"{_INT_NAMES[target]} out of range")


def convert(value: Any, source: int, source_typmod: int, target: int, typmod: int,
            settings: codecs.Settings) -> Any:
    """CAST(value AS target) for a storage value of type ``source``."""
    if target in INT_RANGES and source == t.NUMERIC:
        return _numeric_to_int(exact(value, source_typmod), target)
    if target in INT_RANGES and source in (*INT_RANGES, t.FLOAT4, t.FLOAT8, t.OID, t.BOOL):
        finite = isinstance(value, float) and not (math.isinf(value) or math.isnan(value))
        if source in (t.FLOAT8, t.FLOAT4) and finite:
            value = round(value)  # float to integer rounds half to even (rint)
        return _to_int(value, target)
    if target == t.TEXT and source == t.BOOL:
        return "true" if value else "false"
    if source in _NETWORK_TYPES:
        if target == t.CIDR:
            return network.network_of(value)  # an inet's host bits are cleared
        if target in _STRING_TYPES:
            return _to_string(network.show(value), target, typmod)
    text = codecs.text_encoder(source, source_typmod, settings)(value).decode()
    if target in _STRING_TYPES:
        return _to_string(text, target, typmod)
    return codecs.text_decoder(target, typmod, settings)(text)


def _to_string(text: str, target: int, typmod: int) -> str:
    """An explicit cast's text: cut to the length, character(n) padded."""
    length = t.char_length(typmod)
    if length is not None and len(text) > length:
        text = text[:length]
    if target == t.BPCHAR and length is not None:
        text = text.ljust(length)
    return text


# --- date/time arithmetic ------------------------------------------------------------

def interval_parts(value: Any) -> tuple[int, int, int]:
    micros, days, months = _INTERVAL.unpack(codecs.binary_encoder(t.INTERVAL)(value))
    return months, days, micros


def _interval(months: int, days: int, micros: int) -> Any:
    return codecs.binary_decoder(t.INTERVAL)(_INTERVAL.pack(micros, days, months))


def timestamp_micros(value: Any, oid: int) -> int:
    (micros,) = _INT64.unpack(codecs.binary_encoder(oid)(value))
    return int(micros)


def timestamp_from_micros(micros: int, oid: int) -> Any:
    return codecs.binary_decoder(oid)(_INT64.pack(micros))


def _date_days(value: Any) -> int:
    (days,) = _INT32.unpack(codecs.binary_encoder(t.DATE)(value))
    return int(days)


def _date(days: int) -> Any:
    return codecs.binary_decoder(t.DATE)(_INT32.pack(days))


def datetime_arithmetic(operator: str, left: Any, left_oid: int, right: Any,
                        right_oid: int, zone: Zone) -> Any:
    """``left operator right`` where at least one side is a date/time value
    (``zone``: the session's, in which a timestamptz moves by days and months)."""
    if left_oid == t.DATE and right_oid in INT_RANGES and operator in "+-":
        return _date(_date_days(left) + (right if operator == "+" else -right))
    if left_oid in INT_RANGES and right_oid == t.DATE and operator == "+":
        return _date(_date_days(right) + left)
    if left_oid == right_oid == t.DATE and operator == "-":
        return _date_days(left) - _date_days(right)
    if left_oid == t.DATE and right_oid == t.INTERVAL and operator in "+-":
        start = _date_days(left) * _MICROS_PER_DAY
        shift = _signed(interval_parts(right), operator)
        return timestamp_from_micros(datetime_math.add_interval(start, shift), t.TIMESTAMP)
    if left_oid in (t.TIMESTAMP, t.TIMESTAMPTZ) and right_oid == t.INTERVAL and (
        operator in "+-"
    ):
        shift = _signed(interval_parts(right), operator)
        moved = datetime_math.add_interval(timestamp_micros(left, left_oid), shift,
                                           zone if left_oid == t.TIMESTAMPTZ else None)
        return timestamp_from_micros(moved, left_oid)
    if left_oid == t.INTERVAL and right_oid in (t.TIMESTAMP, t.TIMESTAMPTZ) and operator == "+":
        return datetime_arithmetic("+", right, right_oid, left, left_oid, zone)
    if left_oid == right_oid and left_oid in (t.TIMESTAMP, t.TIMESTAMPTZ) and operator == "-":
        difference = timestamp_micros(left, left_oid) - timestamp_micros(right, right_oid)
        days, micros = divmod(abs(difference), _MICROS_PER_DAY)
        sign = 1 if difference >= 0 else -1
        return _interval(0, sign * days, sign * micros)
    if left_oid == right_oid == t.INTERVAL and operator in "+-":
        a, b = interval_parts(left), interval_parts(right)
        sign = 1 if operator == "+" else -1
        return _interval(a[0] + sign * b[0], a[1] + sign * b[1], a[2] + sign * b[2])
    if left_oid == t.INTERVAL and operator in "*/" and right_oid not in _DATETIME_OIDS:
        return _scale_interval(interval_parts(left), float(right), operator)
    if right_oid == t.INTERVAL and operator == "*" and left_oid not in _DATETIME_OIDS:
        return _scale_interval(interval_parts(right), float(left), operator)
    raise errors.no_operator(
        f"{t.format_type(left_oid)} {operator} {t.format_type(right_oid)}")


def _signed(interval: tuple[int, int, int], operator: str) -> tuple[int, int, int]:
    months, days, micros = interval
    return (months, days, micros) if operator == "+" else (-months, -days, -micros)


_DATETIME_OIDS = frozenset({t.DATE, t.TIME, t.TIMESTAMP, t.TIMESTAMPTZ, t.INTERVAL})


def _scale_interval(parts: tuple[int, int, int], factor: float, operator: str) -> Any:
    if operator == "/":
        if factor == 0:
            raise errors.DivisionByZero("division by zero")
        factor = 1 / factor
    months, days, micros = parts
    total_months = months * factor
    whole_months = int(total_months)
    total_days = days * factor + (total_months - whole_months) * 30
    whole_days = int(total_days)
    total_micros = micros * factor + (total_days - whole_days) * _MICROS_PER_DAY
    return _interval(whole_months, whole_days, round(total_micros))
