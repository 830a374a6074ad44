"""numeric: PostgreSQL's decimal type, stored as a float.

Storage is a Python float (so numeric values keep ~15-17 significant digits and
lose trailing zeros: '1.50'::numeric reads back as 1.5), NaN is the text 'NaN',
±Infinity are float infinities, and negative zero is folded into zero. Inputs are
parsed and rounded exactly (decimal.Decimal) before the single conversion to
float, so numeric(10,2) input 1.005 is stored as 1.01 exactly as PostgreSQL
rounds it. An int storage value (SQLite's integer arithmetic) is printed and
sent exactly. With a typmod, output always shows the column's scale; without
one, the stored float is printed with at most 15 significant digits (what it
holds exactly), never in exponent notation.
"""

from __future__ import annotations

import re
import struct
from decimal import ROUND_DOWN, ROUND_HALF_UP, Context, Decimal
from typing import Final, NamedTuple

from catalog import types
from catalog.errors import InvalidBinaryRepresentation, NumericValueOutOfRange
from executor.codecs.base import (
    BinDecoder,
    Codec,
    Decoder,
    Encoder,
    Reader,
    Settings,
    invalid_syntax,
)
from executor.codecs.floats import NAN
from executor.codecs.integers import SPACE

_NUMBER: Final = re.compile(
    r"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*", re.ASCII
)
_INF: Final = float("inf")
_SPECIALS: Final[dict[str, float | str]] = {
    "nan": NAN,
    **{sign + word: float(sign + "inf") for sign in ("", "+", "-") for word in ("inf", "infinity")},
}
# numeric's own range: weight up to 32767 base-10000 digits, display scale up to 16383.
_MAX_INTEGER_DIGITS: Final = 4 * 32768
_MAX_DSCALE: Final = 16383
_EXACT: Final = Context(prec=5000, Emax=10**6, Emin=-(10**6), rounding=ROUND_HALF_UP)
_HEADER: Final = struct.Struct(">HhHH")
_SIGNS: Final = {0x0000: 1, 0x4000: -1}
_SPECIAL_SIGNS: Final[dict[int, float | str]] = {
    0xC000: NAN,
    0xD000: _INF,
    0xF000: -_INF,
}
_SPECIAL_SEND: Final = {
    NAN: _HEADER.pack(0, 0, 0xC000, 0),
    # PostgreSQL sends the infinities with dscale 32, an artefact of its header bits.
    "Infinity": _HEADER.pack(0, 0, 0xD000, 32),
    "-Infinity": _HEADER.pack(0, 0, 0xF000, 32),
}


def parse_decimal(text: str) -> Decimal | float | str:
    """numeric_in's syntax: a Decimal, or NAN / ±inf for the special words."""
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
    return value


def _out_of_range() -> NumericValueOutOfRange:
    return NumericValueOutOfRange("value overflows numeric format")


def numeric_text(value: Decimal) -> str:
    """numeric_out of an exact decimal: plain notation, no negative zero."""
    return format(value.copy_abs() if value.is_zero() else value, "f")


class _Limits(NamedTuple):
    precision: int
    scale: int
    quantum: Decimal


def _limits(typmod: int) -> _Limits | None:
    shape = types.numeric_precision_scale(typmod)
    if shape is None:
        return None
    return _Limits(shape[0], shape[1], Decimal(1).scaleb(-shape[1]))


def _fit(value: Decimal | float | str, limits: _Limits | None) -> float | str:
    """Apply a typmod the way apply_typmod does, then convert to storage."""
    if not isinstance(value, Decimal):
        if limits is not None and value != NAN:
            raise _overflow(limits, "cannot hold an infinite value.")
        return value
    if limits is not None:
        digits = limits.precision - limits.scale
        if value.adjusted() <= digits:  # else too large even to round
            value = value.quantize(limits.quantum, context=_EXACT)
        if not value.is_zero() and value.adjusted() >= digits:
            bound = f"10^{digits}" if digits else "1"
            raise _overflow(limits, f"must round to an absolute value less than {bound}.")
    number = float(value)
    if number in (_INF, -_INF):
        raise _out_of_range()
    return number + 0.0  # folds -0.0 into 0.0


def _overflow(limits: _Limits, problem: str) -> NumericValueOutOfRange:
    return NumericValueOutOfRange(
        "numeric field overflow",
        detail=f"A field with precision {limits.precision}, scale {limits.scale} {problem}",
    )


def _exact(value: object) -> Decimal | str:
    """Storage value -> Decimal, or the special's output text."""
    if type(value) is int:
        return Decimal(value)
    number = value if type(value) is float else float(value)  # type: ignore[arg-type]
    if number != number:
        return NAN
    if number in (_INF, -_INF):
        return "Infinity" if number > 0 else "-Infinity"
    # Storage keeps ~15 significant digits; printing more would show binary
    # rounding noise (0.1 + 0.2 is 0.3 in numeric, not 0.30000000000000004).
    return Decimal(f"{number + 0.0:.15g}")


def _text_in(typmod: int, _settings: Settings) -> Decoder:
    limits = _limits(typmod)
    return lambda text: _fit(parse_decimal(text), limits)


def _text_out(typmod: int, _settings: Settings) -> Encoder:
    limits = _limits(typmod)
    quantum = None if limits is None else limits.quantum

    def encode(value: object) -> bytes:
        if type(value) is int and quantum is None:
            return b"%d" % value
        exact = _exact(value)
        if isinstance(exact, str):
            return exact.encode()
        if quantum is not None:
            exact = exact.quantize(quantum, context=_EXACT)
        return numeric_text(exact).encode()

    return encode


def _binary_out(typmod: int) -> Encoder:
    limits = _limits(typmod)

    def encode(value: object) -> bytes:
        exact = _exact(value)
        if isinstance(exact, str):
            return _SPECIAL_SEND[exact]
        if limits is not None:
            exact = exact.quantize(limits.quantum, context=_EXACT)
        return _send(exact)

    return encode


def _send(value: Decimal) -> bytes:
    """numeric_send: base-10000 digits around the decimal point."""
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
    limits = _limits(typmod)

    def decode(data: bytes) -> float | str:
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
            return _fit(_SPECIAL_SIGNS[sign], limits)
        whole = int("".join(f"{group:04d}" for group in groups) or "0")
        value = Decimal(_SIGNS[sign] * whole).scaleb(4 * (weight - ndigits + 1), _EXACT)
        if value.as_tuple().exponent < -dscale:
            value = value.quantize(Decimal(1).scaleb(-dscale), ROUND_DOWN, _EXACT)
        return _fit(value, limits)

    return decode


CODECS: Final[dict[int, Codec]] = {
    types.NUMERIC: Codec(_text_in, _text_out, _binary_in, _binary_out),
}
