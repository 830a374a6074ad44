"""What the translator's rewrites call where SQLite alone would answer
differently from PostgreSQL: casts through the types' text forms, date/time
arithmetic, reg* names, LIMIT and OFFSET counts and
generate_series() steps. Users never call these by name."""

from __future__ import annotations

import math
import struct
from typing import Any

from catalog import errors
from catalog import types as t
from executor import codecs
from executor.codecs.zones import session_zone
from executor.functions.catalog_info import relation_name
from executor.functions.declare import Declarations, Function, Runtime
from executor.functions.math_functions import is_nan
from executor.values import conversions

FUNCTIONS = Declarations()

@FUNCTIONS.internal("sqlext_convert", 5, runtime=True)
def _convert(runtime: Runtime) -> Function:
    """A cast: ``value`` of type ``source`` as ``target``."""
    def convert(value: Any, source: int, source_typmod: int, target: int, typmod: int) -> Any:
        if value is None:
            return None
        return conversions.convert(value, source, source_typmod, target, typmod,
                                   runtime.codec_settings())
    return convert


@FUNCTIONS.internal("sqlext_assign_char", 3)
def _assign_char(value: Any, oid: int, typmod: int) -> Any:
    """A value assigned to a char(n) or varchar(n) column: padded or checked."""
    if value is None:
        return None
    return codecs.text_decoder(oid, typmod)(str(value))


def _out_of_range(left_oid: int, right_oid: int) -> errors.SqlError:
    """The error of date/time arithmetic whose result has no representation."""
    if t.INTERVAL == left_oid == right_oid:
        return errors.DatetimeFieldOverflow("interval out of range")
    kind = "date" if t.DATE in (left_oid, right_oid) and t.INTERVAL not in (
        left_oid, right_oid) else "timestamp"
    return errors.DatetimeFieldOverflow(f"{kind} out of range")


@FUNCTIONS.internal("sqlext_datetime_arith", 5, runtime=True)
def _datetime_arith(runtime: Runtime) -> Function:
    def datetime_arith(operator: str, left: Any, left_oid: int, right: Any,
                       right_oid: int) -> Any:
        if left is None or right is None:
            return None
        zone = session_zone(runtime.codec_settings().timezone)
        try:
            return conversions.datetime_arithmetic(operator, left, left_oid, right, right_oid,
                                                   zone)
        except (ValueError, OverflowError, struct.error):
            # Python's datetime stops at years 1 and 9999, packing at 32 bits.
            raise _out_of_range(left_oid, right_oid) from None
    return datetime_arith


@FUNCTIONS.internal("sqlext_more_than_one_row", 0)
def _more_than_one_row() -> Any:
    """What a scalar subquery that found a second row calls."""
    raise errors.CardinalityViolation("more than one row returned by a subquery used as an "
                                      "expression")


@FUNCTIONS.internal("sqlext_reg_name", 2, runtime=True)
def _reg_name(runtime: Runtime) -> Function:
    """A regclass, regtype, regnamespace or regproc value as its name."""
    def reg_name(value: Any, oid: int) -> Any:
        if value is None:
            return None
        if oid == t.REGPROC or isinstance(value, str):
            return str(value)
        if int(value) == 0:
            return "-"  # as PostgreSQL prints InvalidOid
        catalog = runtime.context().catalog
        if oid == t.REGTYPE:
            return t.format_type(int(value)) if int(value) in t.TYPES else str(value)
        if oid == t.REGNAMESPACE:
            return next((n for n, s in catalog.schemas.items() if s.oid == value), str(value))
        return relation_name(runtime.context(), int(value)) or str(value)
    return reg_name


@FUNCTIONS.internal("sqlext_row_count", 2)
def _row_count(value: Any, clause: str) -> Any:
    """A LIMIT or OFFSET count: NULL is none, a negative one is an error
    (SQLite would take it as none)."""
    if value is None:
        return -1 if clause == "LIMIT" else 0
    if is_nan(value) or value < 0:
        if clause == "LIMIT":
            raise errors.InvalidRowCountInLimitClause("LIMIT must not be negative")
        raise errors.InvalidRowCountInResultOffsetClause("OFFSET must not be negative")
    if value == math.inf:
        raise errors.NumericValueOutOfRange("bigint out of range")
    return math.floor(value + 0.5)  # 1.5 rows: 2, as PostgreSQL rounds


@FUNCTIONS.internal("sqlext_series_step", 1)
def _series_step(step: Any) -> Any:
    if step == 0:
        raise errors.InvalidParameterValue("step size cannot equal zero")
    return step
