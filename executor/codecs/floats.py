"""float4 and float8: parsing like strtod/strtof and printing like PostgreSQL 12+.

Storage is a Python float (a float4 holds the double equal to its float32 value)
with NaN kept as the text 'NaN', per the storage contract (so a NaN's sign and
payload are not kept). PostgreSQL prints the shortest string that reads back
exactly (its Ryu variant), with other exponent-notation thresholds than Python's
repr and refusing candidates that lie exactly on the rounding boundary; the digits
come from repr where that provably agrees and from an exact port of the rule
otherwise, and the layout is redone here.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any, Final

from catalog import types
from catalog.errors import NumericValueOutOfRange
from executor.codecs.base import (
    BinDecoder,
    Codec,
    ColumnDecoder,
    ColumnEncoder,
    Decoder,
    Encoder,
    Settings,
    check_size,
    each_text,
    fixed_width_column,
    invalid_syntax,
    without_nulls,
)
from executor.codecs.columnar import arrow, each, patched, when_inferred

NAN: Final = "NaN"
"""Storage form of NaN for float and numeric columns."""

_FLOAT: Final = re.compile(
    r"""\s*[+-]?(?:
        (?P<dec>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)
      | (?P<special>inf(?:inity)?|nan(?:\([0-9a-z_]*\))?)
      | (?P<hex>0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?)
    )\s*""",
    re.ASCII | re.IGNORECASE | re.VERBOSE,
)
_F4: Final = struct.Struct(">f")
_F8: Final = struct.Struct(">d")
_INF: Final = math.inf


def as_float(value: object) -> float:
    """Lenient view of a storage value as a float ('NaN', ints, numeric strings)."""
    return value if type(value) is float else float(value)  # type: ignore[arg-type]


def to_float32(value: float) -> float:
    """Round a double to the nearest float32 (OverflowError when out of range)."""
    result: float = _F4.unpack(_F4.pack(value))[0]
    return result


def _parse(text: str, sql_name: str, narrow: bool) -> float | str:
    match = _FLOAT.fullmatch(text)
    if match is None:
        raise invalid_syntax(sql_name, text)
    if match["special"]:
        return NAN if match["special"][0] in "nN" else float(text)
    if match["hex"]:
        mantissa = match["hex"][2:].lower().partition("p")[0]
    else:
        mantissa = match["dec"].lower().partition("e")[0]
    try:
        value = float.fromhex(text) if match["hex"] else float(text)
        if narrow:
            value = _narrow(value, match["dec"] and text)
    except OverflowError:
        value = _INF
    if value in (_INF, -_INF) or (value == 0 and mantissa.strip("0.")):
        raise NumericValueOutOfRange(f'"{text}" is out of range for type {sql_name}')
    return value


def _narrow(value: float, exact_text: str | None) -> float:
    """float32 nearest to the decimal that ``value`` (a double) was read from.

    Rounding the decimal to a double first can land exactly on a float32 midpoint
    and then round the wrong way; only in that case is the decimal consulted.
    """
    result = to_float32(value)
    if result == value or not exact_text:
        return result
    other = 2 * value - result
    try:
        if to_float32(other) != other:
            return result
    except OverflowError:
        return result
    exact = Decimal(exact_text.strip())
    if exact == Decimal(value):
        return result
    return max(result, other) if exact > Decimal(value) else min(result, other)


def _digits(text: str) -> tuple[str, str, int]:
    """Split a repr string into sign, significant digits and decimal exponent."""
    sign = "-" if text[0] == "-" else ""
    mantissa, _, exponent = text.lstrip("-").partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    stripped = digits.lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(digits) - len(stripped))
    return sign, stripped.rstrip("0"), point - 1


def _ryu(value: float, packer: struct.Struct, mantissa_bits: int) -> tuple[str, str, int]:
    """Sign, digits and exponent of PostgreSQL's shortest output (its Ryu variant).

    The result is the shortest decimal strictly inside the value's rounding
    interval (PostgreSQL builds Ryu without STRICTLY_SHORTEST, so a candidate on
    the boundary is refused even when round-half-even would read it back), and
    of those the nearest. Exact integer arithmetic keeps it simple.
    """
    bits = int.from_bytes(packer.pack(abs(value)), "big")
    biased, fraction = bits >> mantissa_bits, bits & ((1 << mantissa_bits) - 1)
    bias = (1 << (packer.size * 8 - mantissa_bits - 2)) - 1
    mantissa = fraction | (1 << mantissa_bits if biased else 0)
    exponent = max(biased, 1) - bias - mantissa_bits - 2  # units of a quarter ulp
    asymmetric = fraction == 0 and biased > 1
    centre = 4 * mantissa
    low, high = centre - (1 if asymmetric else 2), centre + 2
    two_up, two_down = (1 << exponent, 1) if exponent >= 0 else (1, 1 << -exponent)
    power = math.floor(math.log10(abs(value))) + 1
    while True:
        ten_up, ten_down = (10**-power, 1) if power < 0 else (1, 10**power)
        denominator = two_down * ten_down
        smallest = low * two_up * ten_up // denominator + 1
        largest = (high * two_up * ten_up - 1) // denominator
        if smallest <= largest:
            break
        power -= 1
    nearest, remainder = divmod(centre * two_up * ten_up, denominator)
    if 2 * remainder > denominator or (2 * remainder == denominator and nearest % 2):
        nearest += 1
    digits = str(min(max(nearest, smallest), largest))
    return "-" if value < 0 else "", digits.rstrip("0"), power + len(digits) - 1


def _layout(sign: str, digits: str, exponent: int, fixed_below: int) -> str:
    """PostgreSQL's d2s/f2s layout: fixed for 1e-4 <= |x| < 10^fixed_below."""
    if -4 <= exponent < fixed_below:
        if exponent < 0:
            return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
        if len(digits) <= exponent + 1:
            return sign + digits + "0" * (exponent + 1 - len(digits))
        return f"{sign}{digits[: exponent + 1]}.{digits[exponent + 1 :]}"
    fraction = f".{digits[1:]}" if len(digits) > 1 else ""
    return f"{sign}{digits[0]}{fraction}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def _special(value: float) -> str | None:
    if value != value:
        return NAN
    if value == _INF:
        return "Infinity"
    if value == -_INF:
        return "-Infinity"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    return None


def shortest8(value: float) -> str:
    """float8 text as PostgreSQL prints it with extra_float_digits >= 1.

    Below 2^53 a boundary of the rounding interval never has a 17-digit decimal
    form, so Python's repr finds the same digits and is much faster.
    """
    if 1e-4 <= abs(value) < 1e15:  # repr also lays these out the same way
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    special = _special(value)
    if special is not None:
        return special
    if abs(value) < 2.0**53:
        return _layout(*_digits(repr(value)), 15)
    return _layout(*_ryu(value, _F8, 52), 15)


def shortest4(value: float) -> str:
    """float4 text as PostgreSQL prints it with extra_float_digits >= 1. A
    double beyond float4's range (stored by a path that did not narrow it)
    prints as what float4 makes of it, 0 or an infinity, not as a crash."""
    try:
        value = _F4.unpack(_F4.pack(value))[0]
    except OverflowError:
        value = math.copysign(_INF, value)
    return _special(value) or _layout(*_ryu(value, _F4, 23), 6)


def _fixed_digits(value: float, digits: int) -> str:
    """Output with extra_float_digits <= 0: C's %.{digits}g."""
    return _special(value) or f"{value:.{digits}g}"


def _text_out(
    shortest: Callable[[float], str], significant: int
) -> Callable[[int, Settings], Encoder]:
    def factory(_typmod: int, settings: Settings) -> Encoder:
        if settings.extra_float_digits > 0:
            return lambda value: shortest(as_float(value)).encode()
        digits = max(significant + settings.extra_float_digits, 1)
        return lambda value: _fixed_digits(as_float(value), digits).encode()

    return factory


def _shortest8_column(typmod: int, settings: Settings) -> ColumnEncoder:
    """``shortest8`` of a whole column: Arrow prints the same shortest
    digits, laid out as PostgreSQL does for zeros and 1e-4 <= |x| < 1e10;
    other values (and 'NaN' as stored) go through ``shortest8``."""
    per_value = _text_out(shortest8, 15)(typmod, settings)
    if settings.extra_float_digits <= 0:
        return each(per_value)

    def kernel(column: Any, values: Sequence[Any]) -> Any:
        pc = arrow.pc
        printed = pc.cast(column, "string")
        magnitude = pc.abs(column)
        low, high = (bound.as_py() for bound in pc.min_max(magnitude).values())  # not NaN
        if low is not None and low >= 1e-4 and high < 1e10 and not (
                pc.any(pc.is_nan(column)).as_py()):
            return printed
        laid_out_alike = pc.or_(pc.equal(magnitude, 0.0), pc.and_(
            pc.greater_equal(magnitude, 1e-4), pc.less(magnitude, 1e10)))
        return patched(printed, laid_out_alike, values, per_value)

    return when_inferred("double", kernel, per_value)


def _text_in(sql_name: str, narrow: bool) -> Callable[[int, Settings], Decoder]:
    def decode(text: str) -> float | str:
        return _parse(text, sql_name, narrow)

    return lambda _typmod, _settings: decode


def _binary(packer: struct.Struct) -> tuple[BinDecoder, Encoder]:
    size = packer.size
    unpack = packer.unpack
    pack = packer.pack

    def binary_in(data: bytes) -> float | str:
        check_size(data, size)
        value: float = unpack(data)[0]
        return NAN if value != value else value

    def binary_out(value: object) -> bytes:
        try:
            return pack(as_float(value))
        except OverflowError:
            raise NumericValueOutOfRange("value out of range: overflow") from None

    return binary_in, binary_out


def _float_column(binary_in: BinDecoder, packer: struct.Struct) -> ColumnDecoder:
    unpacked = fixed_width_column(binary_in, packer.size, packer.format[-1])

    def column(values: Sequence[bytes | None]) -> list[object]:
        return [NAN if value != value else value for value in unpacked(values)]

    return column


_DECIMAL: Final = b"0123456789.-+eE"


def _double_text_column(decode: Decoder) -> ColumnDecoder:
    """float8 values in decimal notation are read by float() all at once, as
    the value decoder reads them; zeros and infinities (which may be
    underflows and overflows, errors) and columns with anything else
    (spaces, the special words, hexadecimal) are read value by value."""
    each = each_text(decode)

    def present(values: Sequence[bytes]) -> list[object]:
        if b"".join(values).translate(None, _DECIMAL):
            return each(values)
        try:
            numbers: list[Any] = list(map(float, values))
        except ValueError:
            return each(values)
        if 0.0 in numbers or _INF in numbers or -_INF in numbers:
            return [decode(value.decode()) if number in (0.0, _INF, -_INF) else number
                    for value, number in zip(values, numbers, strict=True)]
        return numbers

    return without_nulls(present)


def _float_codec(
    sql_name: str, packer: struct.Struct, shortest: Callable[[float], str], significant: int,
    text_out_column: Callable[[int, Settings], ColumnEncoder] | None = None,
    binary_out_column: Callable[[Encoder], ColumnEncoder] | None = None,
) -> Codec:
    binary_in, binary_out = _binary(packer)
    text_in = _text_in(sql_name, packer is _F4)
    binary_column = None if binary_out_column is None else binary_out_column(binary_out)
    return Codec(
        text_in,
        _text_out(shortest, significant),
        lambda _typmod, _settings: binary_in,
        lambda _typmod: binary_out,
        text_in_column=None if packer is _F4 else lambda typmod, settings: _double_text_column(
            text_in(typmod, settings)),
        binary_in_column=lambda _typmod, _settings: _float_column(binary_in, packer),
        text_out_column=text_out_column,
        binary_out_column=None if binary_column is None else lambda _typmod: binary_column,
    )


def _float8_binary_column(binary_out: Encoder) -> ColumnEncoder:
    return when_inferred("double", lambda column, _values: column, binary_out)


CODECS: Final[dict[int, Codec]] = {
    types.FLOAT4: _float_codec("real", _F4, shortest4, 6),
    types.FLOAT8: _float_codec("double precision", _F8, shortest8, 15, _shortest8_column,
                               _float8_binary_column),
}
