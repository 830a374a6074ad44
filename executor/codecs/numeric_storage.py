"""How numeric values are held inside SQLite, exactly.

Two forms, chosen by the column (or expression) they belong to:

* **scaled**: a column ``numeric(p,s)`` with ``p <= 18`` and ``s >= 0`` holds
  the integer ``value * 10**s`` (so SQLite sums, compares and sorts it
  natively and exactly); NaN, the only special such a column admits, is the
  text ``'NaN'``, which sorts above every integer, as PostgreSQL sorts NaN.
* **key**: every other numeric value (unconstrained columns, wide ones, and
  every numeric expression) is a text *key* whose byte order is numeric
  order, so SQLite compares, sorts, groups and indexes keys natively::

      class  exponent  digits             dscale
      '3'    '020002'  '1234'             '  '      ->  123.4000 (two spaces)

  The class orders the kinds: ``0`` -Infinity, ``1`` negative, ``2`` zero,
  ``3`` positive, ``4`` Infinity, ``5`` NaN. A finite value has its decimal
  exponent (that of its first significant digit, plus ``EXPONENT_BIAS``) in
  six digits and its significant digits without trailing zeros; a negative
  one has both complemented (``999999 - e``, ``9 - d``) and ends in ``~``,
  so that a longer key sorts lower. The display scale PostgreSQL keeps with
  each value (``1.50`` prints two decimals) is the number of trailing spaces
  beyond the digits' own scale: under SQLite's built-in RTRIM collation,
  which the key columns and expressions carry, ``1.5`` and ``1.50`` are
  equal, as in PostgreSQL, yet each keeps its scale.

A value in Python is a ``decimal.Decimal`` whose exponent is minus its
display scale (``Decimal('1.50')``), or one of ``NAN``, ``INFINITY``,
``NEGATIVE_INFINITY``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from catalog import types

COLLATION: Final = types.NUMERIC_KEY_COLLATION
scaled_scale: Final = types.numeric_scaled_scale
"""The scale of a typmod whose values are held scaled, or None (keys)."""

EXPONENT_BIAS: Final = 20000
"""Exponents run from -16383 (numeric's largest display scale) to 131071."""
_EXPONENT_TOP: Final = 999999
NAN_STORED: Final = "NaN"
"""NaN in a scaled column."""

NAN: Final = Decimal("NaN")
INFINITY: Final = Decimal("Infinity")
NEGATIVE_INFINITY: Final = Decimal("-Infinity")

_NAN_KEY: Final = "5"
_SPECIAL_KEYS: Final = {"0": NEGATIVE_INFINITY, "4": INFINITY, _NAN_KEY: NAN}
_COMPLEMENT: Final = str.maketrans("0123456789", "9876543210")


def key(value: Decimal) -> str:
    """The key of a numeric value (see the module docstring)."""
    if not value.is_finite():
        if value.is_nan():
            return _NAN_KEY
        return "4" if value > 0 else "0"
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    scale = -exponent if exponent < 0 else 0
    text = "".join(map(str, digits)).lstrip("0")
    if not text:
        return "2" + " " * scale
    significant = text.rstrip("0")
    # the exponent of the first significant digit
    position = len(text) - 1 + exponent
    own_scale = len(significant) - 1 - position
    padding = " " * (scale - max(own_scale, 0))
    if sign:
        exponent_key = _EXPONENT_TOP - position - EXPONENT_BIAS
        return f"1{exponent_key:06d}{significant.translate(_COMPLEMENT)}~{padding}"
    return f"3{position + EXPONENT_BIAS:06d}{significant}{padding}"


def value(stored: str) -> Decimal:
    """The numeric value of a key."""
    kind = stored[0]
    if kind == "2":
        return Decimal(0).scaleb(-(len(stored) - 1))
    special = _SPECIAL_KEYS.get(kind)
    if special is not None:
        return special
    body = stored.rstrip(" ")
    padding = len(stored) - len(body)
    if kind == "1":
        position = _EXPONENT_TOP - EXPONENT_BIAS - int(body[1:7])
        significant = body[7:-1].translate(_COMPLEMENT)
        sign = "-"
    else:
        position = int(body[1:7]) - EXPONENT_BIAS
        significant = body[7:]
        sign = ""
    own_scale = len(significant) - 1 - position  # negative for 1500
    scale = max(own_scale, 0) + padding
    return Decimal(f"{sign}{significant}{'0' * (scale - own_scale)}E-{scale}")


def scaled(number: Decimal, scale: int) -> int | str:
    """The scaled form of a value already rounded to ``scale`` decimals."""
    if number.is_nan():
        return NAN_STORED
    return int(number.scaleb(scale))


def from_scaled(stored: int | str, scale: int) -> Decimal:
    """The value a scaled column holds."""
    if type(stored) is int:
        return Decimal(stored).scaleb(-scale)
    return NAN


def canonical(number: Decimal) -> Decimal:
    """``number`` with a display scale: no positive exponent (``1E+3`` is
    1000) and no negative zero; the specials as this module's objects."""
    if not number.is_finite():
        if number.is_nan():
            return NAN
        return NEGATIVE_INFINITY if number.is_signed() else INFINITY
    sign, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)
    if exponent > 0:
        number = Decimal((sign, digits + (0,) * exponent, 0))
    return number.copy_abs() if number.is_zero() else number
