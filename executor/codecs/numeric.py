"""numeric: PostgreSQL's decimal type, exactly.

Values are held as ``numeric_storage`` describes: a column ``numeric(p,s)``
narrow enough holds scaled integers, everything else order-preserving text
keys. Input is parsed and rounded exactly (``decimal.Decimal``), as
numeric_in and apply_typmod do; output prints each value with its own
display scale, as numeric_out and numeric_send do.
"""

from __future__ import annotations

import functools
import re
import struct
from collections.abc import Callable, Sequence
from decimal import ROUND_DOWN, ROUND_HALF_UP, Context, Decimal
from typing import Any, Final, NamedTuple

from catalog import types
from catalog.errors import InvalidBinaryRepresentation, NumericValueOutOfRange
from executor.codecs import numeric_storage as storage
from executor.codecs.base import (
    BinDecoder,
    Codec,
    ColumnDecoder,
    ColumnEncoder,
    Decoder,
    Encoder,
    Reader,
    Settings,
    each_text,
    invalid_syntax,
    without_nulls,
)
from executor.codecs.columnar import arrow, each, when_inferred
from executor.codecs.integers import SPACE

_NUMBER: Final = re.compile(
    r"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*", re.ASCII
)
_SPECIALS: Final[dict[str, Decimal]] = {
    "nan": storage.NAN,
    **{sign + word: storage.NEGATIVE_INFINITY if sign == "-" else storage.INFINITY
       for sign in ("", "+", "-") for word in ("inf", "infinity")},
}
# numeric's own range: weight up to 32767 base-10000 digits, display scale up to 16383.
_MAX_INTEGER_DIGITS: Final = 4 * 32768
_MAX_DSCALE: Final = 16383
_EXACT: Final = Context(prec=5000, Emax=10**6, Emin=-(10**6), rounding=ROUND_HALF_UP)
_PLAIN: Final = re.compile(r"([+-]?)([0-9]+)(?:\.([0-9]*))?", re.ASCII)
_HEADER: Final = struct.Struct(">HhHH")
_ONE: Final = Decimal(1)
_SIGNS: Final = {0x0000: 1, 0x4000: -1}
_SPECIAL_SIGNS: Final[dict[int, Decimal]] = {
    0xC000: storage.NAN,
    0xD000: storage.INFINITY,
    0xF000: storage.NEGATIVE_INFINITY,
}
_NAN_SEND: Final = _HEADER.pack(0, 0, 0xC000, 0)
# PostgreSQL sends the infinities with dscale 32, an artefact of its header bits.
_INFINITY_SEND: Final = _HEADER.pack(0, 0, 0xD000, 32)
_NEGATIVE_INFINITY_SEND: Final = _HEADER.pack(0, 0, 0xF000, 32)


def parse_decimal(text: str) -> Decimal:
    """numeric_in's syntax: a Decimal (NaN and ±Infinity for the special words)."""
    if _NUMBER.fullmatch(text) is None:
        special = _SPECIALS.get(text.strip(SPACE).lower())
        if special is None:
            raise invalid_syntax("numeric", text)
        return special
    value = Decimal(text.strip(SPACE))
    exponent = value.as_tuple().exponent
    assert isinstance(exponent, int)
    if value.adjusted() >= _MAX_INTEGER_DIGITS or -exponent > _MAX_DSCALE:
        raise _out_of_range()
    return storage.canonical(value)


def _out_of_range() -> NumericValueOutOfRange:
    return NumericValueOutOfRange("value overflows numeric format")


class _Limits(NamedTuple):
    precision: int
    scale: int
    quantum: Decimal


def _limits(typmod: int) -> _Limits | None:
    shape = types.numeric_precision_scale(typmod)
    if shape is None:
        return None
    return _Limits(shape[0], shape[1], Decimal(1).scaleb(-shape[1]))


def fit(value: Decimal, typmod: int) -> Decimal:
    """apply_typmod: ``value`` rounded to the typmod's scale, or 22003."""
    limits = _limits(typmod)
    if limits is None:
        return value
    if not value.is_finite():
        if value.is_nan():
            return value
        raise _overflow(limits, "cannot hold an infinite value.")
    digits = limits.precision - limits.scale
    if value.adjusted() <= digits:  # else too large even to round
        value = value.quantize(limits.quantum, context=_EXACT)
        if limits.scale < 0:  # rounded to tens, hundreds...: shown as an integer
            value = value.quantize(_ONE, context=_EXACT)
    if not value.is_zero() and value.adjusted() >= digits:
        bound = f"10^{digits}" if digits else "1"
        raise _overflow(limits, f"must round to an absolute value less than {bound}.")
    return storage.canonical(value)


def stored(value: Decimal, typmod: int) -> int | str:
    """The storage form of a value already fitted to ``typmod``."""
    scale = storage.scaled_scale(typmod)
    if scale is None:
        return storage.key(value)
    return storage.scaled(value, scale)


def _overflow(limits: _Limits, problem: str) -> NumericValueOutOfRange:
    return NumericValueOutOfRange(
        "numeric field overflow",
        detail=f"A field with precision {limits.precision}, scale {limits.scale} {problem}",
    )


def exact(value: object, typmod: int = -1) -> Decimal:
    """The value a storage value of a column (or expression) of ``typmod``
    stands for: a key, a scaled integer, or an integer (SQLite's integer
    arithmetic and aggregates)."""
    if type(value) is str:
        if value == storage.NAN_STORED:
            return storage.NAN
        return storage.value(value)
    if type(value) is int:
        scale = storage.scaled_scale(typmod)
        return Decimal(value) if scale is None else storage.from_scaled(value, scale)
    if type(value) is float:  # SQLite's floating-point arithmetic (no exact form)
        if value != value:
            return storage.NAN
        return storage.canonical(Decimal(repr(value)) if abs(value) != _INF else Decimal(value))
    raise TypeError(f"not a numeric storage value: {value!r}")


_INF: Final = float("inf")


def _text_in(typmod: int, _settings: Settings) -> Decoder:
    scale = storage.scaled_scale(typmod)
    limits = _limits(typmod)
    if scale is None or limits is None:
        return lambda text: stored(fit(parse_decimal(text), typmod), typmod)
    unit, whole_digits = 10**scale, limits.precision - scale

    def decode_scaled(text: str) -> int | str:
        """The common case without Decimal: digits, a point, at most the
        column's scale of decimals, within its precision (anything else, such
        as a value to round, takes the general path)."""
        match = _PLAIN.fullmatch(text)
        if match is not None:
            sign, whole, fraction = match.groups()
            whole = whole.lstrip("0")
            if len(whole) <= whole_digits and len(fraction or "") <= scale:
                number = int(whole or "0") * unit + int((fraction or "").ljust(scale, "0") or "0")
                return -number if sign == "-" else number
        return stored(fit(parse_decimal(text), typmod), typmod)
    return decode_scaled


def _text_in_column(typmod: int, settings: Settings) -> ColumnDecoder:
    decode = _text_in(typmod, settings)
    scale = storage.scaled_scale(typmod)
    limits = _limits(typmod)
    if scale is None or limits is None:
        return each_text(decode)
    return without_nulls(_scaled_column(decode, scale, 10**limits.precision))


def _scaled_column(decode: Decoder, scale: int, bound: int
                   ) -> Callable[[Sequence[bytes]], list[object]]:
    """Values written with exactly the column's scale of decimals, as
    PostgreSQL prints them, are recognised by one match over the column
    and become scaled integers all at once (their digits without the
    point); other columns are read value by value."""
    each = each_text(decode)
    fraction = rb"\.[0-9]{%d}" % scale if scale else b""
    shape = re.compile(rb"(?:-?[0-9]++%s\n)*+" % fraction)

    def present(values: Sequence[bytes]) -> list[object]:
        lines = b"\n".join(values) + b"\n"
        if shape.fullmatch(lines) is not None:
            numbers: list[Any] = list(map(int, lines.replace(b".", b"").split()))
            if len(numbers) == len(values) and -bound < min(numbers) and max(numbers) < bound:
                return numbers
        return each(values)

    return present


def _element_text_in(typmod: int, _settings: Settings) -> Decoder:
    """Elements of numeric arrays are keys whatever the typmod (a subscript
    yields a numeric like any expression)."""
    return lambda text: storage.key(fit(parse_decimal(text), typmod))


def numeric_text(value: Decimal) -> str:
    """numeric_out: plain notation with the value's display scale, no
    negative zero."""
    if not value.is_finite():
        return "NaN" if value.is_nan() else ("Infinity" if value > 0 else "-Infinity")
    return format(value.copy_abs() if value.is_zero() else value, "f")


def _text_out(typmod: int, _settings: Settings) -> Encoder:
    scale = storage.scaled_scale(typmod)
    if scale:
        unit = 10**scale
        template = b"%%s%%d.%%0%dd" % scale

        def encode_scaled(value: object) -> bytes:
            if type(value) is int:  # the common case, without Decimal
                whole, fraction = divmod(-value if value < 0 else value, unit)
                return template % (b"-" if value < 0 else b"", whole, fraction)
            return numeric_text(exact(value, typmod)).encode()
        return encode_scaled

    def encode(value: object) -> bytes:
        if type(value) is int:
            return b"%d" % value
        return numeric_text(exact(value, typmod)).encode()

    return encode


def _text_column(typmod: int, settings: Settings) -> ColumnEncoder:
    """``_text_out`` of a whole column: the scaled integers of a
    ``numeric(p,s)`` column printed by Arrow kernels (sign, whole part,
    point, zero-padded fraction), everything else value by value."""
    per_value = _text_out(typmod, settings)
    scale = storage.scaled_scale(typmod)
    if scale is None:
        return each(per_value)
    unit = 10**scale

    def kernel(column: Any, _values: Sequence[Any]) -> Any:
        pa, pc = arrow.pa, arrow.pc
        if not scale:
            return pc.cast(column, "string")
        magnitude = pc.abs(column)
        whole = pc.divide(magnitude, unit)  # integer division
        fraction = pc.subtract(magnitude, pc.multiply(whole, unit))
        sign = pc.if_else(pc.less(column, 0), pa.scalar("-"), pa.scalar(""))
        return pc.binary_join_element_wise(
            sign, pc.cast(whole, "string"), ".",
            pc.utf8_lpad(pc.cast(fraction, "string"), scale, "0"), "")

    return when_inferred("int64", kernel, per_value)


def _binary_out(typmod: int) -> Encoder:
    scale = storage.scaled_scale(typmod)
    if scale is None:
        return lambda value: _send(exact(value, typmod))
    pad = -scale % 4  # zeros that complete the last base-10000 digit
    fraction_groups = (scale + pad) // 4
    shift = 10**pad

    def send_scaled(value: object) -> bytes:
        """``_send`` of a scaled integer without Decimal: the same
        base-10000 digits, from the integer itself."""
        if type(value) is not int:
            return _send(exact(value, typmod))
        whole = abs(value) * shift
        groups: list[int] = []
        while whole:
            whole, group = divmod(whole, 10000)
            groups.append(group)
        if not groups:
            return _HEADER.pack(0, 0, 0, scale)
        weight = len(groups) - fraction_groups - 1
        groups.reverse()
        while groups[-1] == 0:
            groups.pop()
        return _HEADER.pack(len(groups), weight, 0x4000 if value < 0 else 0, scale) + (
            struct.pack(f">{len(groups)}H", *groups))

    return send_scaled


def _send(value: Decimal) -> bytes:
    """numeric_send: base-10000 digits around the decimal point."""
    if not value.is_finite():
        if value.is_nan():
            return _NAN_SEND
        return _INFINITY_SEND if value > 0 else _NEGATIVE_INFINITY_SEND
    sign, digit_tuple, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    dscale = max(-exponent, 0)
    pad = -dscale % 4  # zeros that complete the last base-10000 digit
    whole = int("".join(map(str, digit_tuple)) or "0") * 10 ** (pad + max(exponent, 0))
    groups: list[int] = []
    while whole:
        whole, group = divmod(whole, 10000)
        groups.append(group)
    groups.reverse()
    weight = len(groups) - (dscale + pad) // 4 - 1
    while groups and groups[-1] == 0:
        groups.pop()
    if not groups:
        return _HEADER.pack(0, 0, 0, dscale)
    return _HEADER.pack(len(groups), weight, 0x4000 if sign else 0, dscale) + struct.pack(
        f">{len(groups)}H", *groups
    )


def _binary_in(typmod: int, _settings: Settings) -> BinDecoder:
    scale = storage.scaled_scale(typmod)
    limits = _limits(typmod)
    if scale is None or limits is None:
        return lambda data: stored(_received(data, typmod), typmod)
    bound = 10**limits.precision

    def decode_scaled(data: bytes) -> int | str:
        """The common case without Decimal: a finite value sent with no more
        decimals than the column keeps, within its precision, becomes its
        scaled integer straight from the base-10000 digits."""
        size = len(data)
        if _HEADER.size <= size <= _LAYOUT_BYTES and not size & 1:
            ndigits, weight, sign, dscale, *groups = _layout(size)(data)
            if sign in _SIGNS and dscale <= scale and len(groups) == ndigits:
                number = 0
                for group in groups:
                    if group >= 10000:
                        break
                    number = number * 10000 + group
                else:
                    shift = 4 * (weight - ndigits + 1) + scale
                    scaled, rest = (number * 10**shift, 0) if shift >= 0 else divmod(
                        number, 10**-shift)
                    if not rest and scaled < bound:
                        return -scaled if sign else scaled
        return stored(_received(data, typmod), typmod)
    return decode_scaled


_LAYOUT_BYTES: Final = _HEADER.size + 2 * 64
"""The longest binary numeric read with one struct call (64 base-10000
digits: 256 decimal digits)."""


@functools.cache
def _layout(size: int) -> Callable[[bytes], tuple[int, ...]]:
    """The unpacking of a binary numeric of ``size`` bytes: its header and
    base-10000 digits in one call."""
    return struct.Struct(f">HhHH{(size - _HEADER.size) // 2}H").unpack


def _element_binary_in(typmod: int, _settings: Settings) -> BinDecoder:
    return lambda data: storage.key(_received(data, typmod))


def _received(data: bytes, typmod: int) -> Decimal:
    """numeric_recv, then the typmod applied."""
    reader = Reader(data)
    ndigits, weight, sign, dscale = _HEADER.unpack(reader.take(_HEADER.size))
    if sign not in _SIGNS and sign not in _SPECIAL_SIGNS:
        raise InvalidBinaryRepresentation('invalid sign in external "numeric" value')
    if dscale & 0x3FFF != dscale:
        raise InvalidBinaryRepresentation('invalid scale in external "numeric" value')
    groups = struct.unpack(f">{ndigits}h", reader.take(2 * ndigits))
    if any(not 0 <= group < 10000 for group in groups):
        raise InvalidBinaryRepresentation('invalid digit in external "numeric" value')
    reader.finish()
    if sign in _SPECIAL_SIGNS:
        return fit(_SPECIAL_SIGNS[sign], typmod)
    whole = int("".join(f"{group:04d}" for group in groups) or "0")
    value = Decimal(_SIGNS[sign] * whole).scaleb(4 * (weight - ndigits + 1), _EXACT)
    # numeric_recv keeps the sent display scale (dropping digits beyond it)
    value = value.quantize(Decimal(1).scaleb(-dscale), ROUND_DOWN, _EXACT)
    return fit(value, typmod)


CODECS: Final[dict[int, Codec]] = {
    types.NUMERIC: Codec(_text_in, _text_out, _binary_in, _binary_out,
                         text_in_column=_text_in_column, text_out_column=_text_column),
}
ELEMENT_CODEC: Final = Codec(_element_text_in, _text_out, _element_binary_in, _binary_out)
"""numeric as the element of an array (keys, see ``_element_text_in``)."""
