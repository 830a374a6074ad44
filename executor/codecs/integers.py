"""bool, int2/int4/int8 and the OID types: small fixed-width values stored as ints.

One factory serves every integer type: only the width, the signedness and the
names in messages differ. OIDs are unsigned 32-bit and, like PostgreSQL's oidin,
accept negative input down to -2^31 by wrapping it. The reg* types are plain OIDs
here: resolving names belongs to the catalog, not to a codec.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

from catalog import types
from catalog.errors import FeatureNotSupported, NumericValueOutOfRange
from executor.codecs.base import (
    Codec,
    ColumnDecoder,
    ColumnEncoder,
    Decoder,
    check_size,
    each_binary,
    each_text,
    fixed_width_column,
    invalid_syntax,
    plain,
    without_nulls,
)
from executor.codecs.columnar import arrow, each, inferred, when_inferred

_INTEGER: Final = re.compile(r"\s*[+-]?[0-9]+\s*", re.ASCII)
SPACE: Final = " \t\n\r\v\f"
"""What C's isspace() accepts; str.strip() would also take Unicode spaces."""


def as_int(value: object, sql_name: str = "integer") -> int:
    """Lenient view of a storage value as an int (SQLite may hand back 3.0 or True).

    Fractions round half to even, as PostgreSQL's float-to-integer casts do.
    """
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    try:
        number = value if isinstance(value, float) else float(str(value))
    except ValueError:
        raise invalid_syntax(sql_name, str(value)) from None
    if not math.isfinite(number):
        raise NumericValueOutOfRange(f"{sql_name} out of range")
    return round(number)


def _int_text_out(value: object) -> bytes:
    return b"%d" % (value if type(value) is int else as_int(value))


_int_text_out_column: Final = when_inferred(
    "int64", lambda column, _values: arrow.pc.cast(column, arrow.pa.string()), _int_text_out)


def _integer_codec(
    sql_name: str, size: int, *, signed: bool = True, by_name: bool = False
) -> Codec:
    """An integer type of ``size`` bytes; unsigned ones take negatives and wrap them."""
    bits = size * 8
    low = -(1 << (bits - 1))
    high = (1 << (bits - (1 if signed else 0))) - 1
    range_error = f"{sql_name if signed else 'OID'} out of range"
    syntax_name = "oid" if by_name else sql_name

    def text_in(text: str) -> int:
        if _INTEGER.fullmatch(text) is None:
            if by_name and text.strip(SPACE):
                raise FeatureNotSupported(
                    f"{sql_name} input by name is not supported here; use the numeric OID"
                )
            raise invalid_syntax(syntax_name, text)
        value = int(text)
        if not low <= value <= high:
            raise NumericValueOutOfRange(f'value "{text}" is out of range for type {sql_name}')
        return value if signed else value % (1 << bits)

    def binary_in(data: bytes) -> int:
        check_size(data, size)
        return int.from_bytes(data, "big", signed=signed)

    def binary_out(value: object) -> bytes:
        number = value if type(value) is int else as_int(value, sql_name)
        try:
            return number.to_bytes(size, "big", signed=signed)
        except OverflowError:
            raise NumericValueOutOfRange(range_error) from None

    arrow_type = f"{'' if signed else 'u'}int{bits}"
    binary_each = each(binary_out)

    def binary_column(values: Sequence[Any]) -> Any:
        column = inferred(values, "int64")
        try:  # a safe cast refuses values out of the type's range
            return binary_each(values) if column is None else column.cast(arrow_type)
        except arrow.pa.ArrowInvalid:
            return binary_each(values)

    codec = replace(plain(text_in, _int_text_out, binary_in, binary_out),
                    text_out_column=lambda _typmod, _settings: _int_text_out_column,
                    binary_out_column=lambda _typmod: binary_column)
    if not signed:
        return codec
    return replace(
        codec,
        text_in_column=lambda _typmod, _settings: _int_text_in_column(text_in, low, high),
        binary_in_column=lambda _typmod, _settings: fixed_width_column(
            binary_in, size, {2: "h", 4: "i", 8: "q"}[size]))


_DECIMAL: Final = b"0123456789-"


def _int_text_in_column(decode: Decoder, low: int, high: int) -> ColumnDecoder:
    """Plain decimal integers (digits after an optional minus sign) within
    range are read by int() all at once; a column with anything else
    (spaces, a plus sign, a bad value) is read value by value."""
    each = each_text(decode)

    def present(values: Sequence[bytes]) -> list[object]:
        if not b"".join(values).translate(None, _DECIMAL):
            try:
                numbers: list[Any] = list(map(int, values))
            except ValueError:  # an empty value, a misplaced minus sign
                return each(values)
            if not numbers or (low <= min(numbers) and max(numbers) <= high):
                return numbers
        return each(values)

    return without_nulls(present)


def _oid_codec(sql_name: str) -> Codec:
    return _integer_codec(sql_name, 4, signed=False, by_name=sql_name != "oid")


_BOOL_WORDS: Final[dict[str, int]] = {
    word[:length]: value
    for word, value, shortest in (
        ("true", 1, 1),
        ("yes", 1, 1),
        ("false", 0, 1),
        ("no", 0, 1),
        ("on", 1, 2),
        ("off", 0, 2),
    )
    for length in range(shortest, len(word) + 1)
} | {"1": 1, "0": 0}


def _bool_in(text: str) -> int:
    value = _BOOL_WORDS.get(text.strip(SPACE).lower())
    if value is None:
        raise invalid_syntax("boolean", text)
    return value


_BOOL_SPELLINGS: Final[dict[bytes, int]] = {
    spelling: value for word, value in (("true", 1), ("false", 0), ("t", 1), ("f", 0))
    for spelling in (word.encode(), word.upper().encode())}
"""How clients send booleans (pgjdbc: TRUE/FALSE; psql: t/f)."""


def _bool_text_column(_typmod: int, _settings: object) -> ColumnDecoder:
    """Raises KeyError on another spelling (the batch then decodes row by row)."""
    spellings = _BOOL_SPELLINGS

    def column(values: Sequence[bytes | None]) -> list[object]:
        return [None if value is None else spellings[value] for value in values]

    return column


def _bool_text_out(value: object) -> bytes:
    return b"t" if value else b"f"


def _bool_binary_in(data: bytes) -> int:
    check_size(data, 1)
    return 1 if data[0] else 0


_TRUTH: Final = bytes([0]) + bytes([1]) * 255
"""A translation table: byte 0 is false (0), any other true (1)."""


def _bool_binary_column(_typmod: int, _settings: object) -> ColumnDecoder:
    each = each_binary(_bool_binary_in)

    def present(values: Sequence[bytes]) -> list[object]:
        if set(map(len, values)) != {1}:
            return each(values)
        return list(b"".join(values).translate(_TRUTH))

    return without_nulls(present)


def _bool_binary_out(value: object) -> bytes:
    return b"\x01" if value else b"\x00"


def _bool_column(false: bytes, true: bytes) -> ColumnEncoder:
    """What ``true if value else false`` gives, for a whole column."""

    def kernel(column: Any, _values: Sequence[Any]) -> Any:
        pa, pc = arrow.pa, arrow.pc
        return pc.if_else(pc.not_equal(column, 0), pa.scalar(true, pa.binary()),
                          pa.scalar(false, pa.binary()))

    return when_inferred("int64", kernel, lambda value: true if value else false)


CODECS: Final[dict[int, Codec]] = {
    types.BOOL: replace(plain(_bool_in, _bool_text_out, _bool_binary_in, _bool_binary_out),
                        text_in_column=_bool_text_column,
                        binary_in_column=_bool_binary_column,
                        text_out_column=lambda _typmod, _settings: _bool_column(b"f", b"t"),
                        binary_out_column=lambda _typmod: _bool_column(b"\x00", b"\x01")),
    types.INT2: _integer_codec("smallint", 2),
    types.INT4: _integer_codec("integer", 4),
    types.INT8: _integer_codec("bigint", 8),
    types.OID: _oid_codec("oid"),
    types.XID: _integer_codec("xid", 4, signed=False),
    types.REGPROC: _oid_codec("regproc"),
    types.REGCLASS: _oid_codec("regclass"),
    types.REGTYPE: _oid_codec("regtype"),
    types.lookup_name("regnamespace").oid: _oid_codec("regnamespace"),
}
