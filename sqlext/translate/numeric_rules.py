"""numeric in translated SQL: every numeric value a query computes is a
key (``executor.codecs.numeric_storage``), made and combined by our
functions (``executor.functions.numeric_functions``) and compared by SQLite
itself; a stored column of scaled integers is read as keys unless a rule
works on its integers. Integers may stand for numerics in the functions'
arguments; floats never mix with numerics without a conversion.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from sqlglot import exp

from catalog import types as t
from catalog.sqltypes import SqlType
from executor.codecs import numeric, numeric_storage
from sqlext.sql.sqlite_dialect import NumericKey, ScaledNumeric, StorageLiteral

_FLOATS: Final = frozenset({t.FLOAT4, t.FLOAT8})
_INTEGERS: Final = frozenset({t.INT2, t.INT4, t.INT8, t.OID})


def key_literal(value: Decimal) -> NumericKey:
    return NumericKey(this=StorageLiteral(this=numeric_storage.key(value)))


def _call(name: str, *args: exp.Expression) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def constant(node: exp.Expression) -> Decimal | None:
    """The value of a numeric or integer constant, else None."""
    if isinstance(node, NumericKey) and isinstance(node.this, StorageLiteral):
        return numeric_storage.value(node.this.value)
    if isinstance(node, exp.Literal) and not node.is_string:
        return Decimal(node.this)
    return None


def to_numeric(node: exp.Expression, source: SqlType, typmod: int = -1) -> exp.Expression:
    """``node`` (of type ``source``) as a numeric key, fitted to ``typmod``."""
    if source.oid == t.NUMERIC and typmod < 0:
        return node
    value = constant(node)
    if value is not None:  # folded now, as PostgreSQL folds constants
        return key_literal(numeric.fit(value, typmod))
    return NumericKey(this=_call("sqlext_numeric_of", node, exp.Literal.number(source.oid),
                                 exp.Literal.number(typmod)))


def stored(node: exp.Expression, source: SqlType, target: SqlType) -> exp.Expression:
    """``node`` as a column of type ``target`` (a numeric) stores it."""
    if isinstance(node, ScaledNumeric) and source.typmod == target.typmod:
        return node.this  # the same integers
    if isinstance(node, NumericKey) and isinstance(node.this, StorageLiteral):
        # a constant is fitted now, as PostgreSQL folds it while planning
        value = numeric.fit(numeric_storage.value(node.this.value), target.typmod)
        return StorageLiteral(this=numeric.stored(value, target.typmod))
    if target.typmod < 0 and source.oid == t.NUMERIC:
        return node  # a key already
    if source.oid not in (t.NUMERIC, *_INTEGERS):
        node = to_numeric(node, source)
    return _call("sqlext_numeric_store", node, exp.Literal.number(target.typmod))


def to_float(node: exp.Expression) -> exp.Expression:
    """A numeric as double precision (how PostgreSQL compares the two)."""
    return _call("sqlext_numeric_float", node)


def operator(symbol: str, left: exp.Expression, right: exp.Expression) -> NumericKey:
    """``left symbol right`` for numerics (or integers standing for them)."""
    return NumericKey(this=_call("sqlext_numeric_op", exp.Literal.string(symbol), left, right))


def negated(node: exp.Expression) -> NumericKey:
    value = constant(node)
    if value is not None:
        return key_literal(value.copy_negate())
    return NumericKey(this=_call("sqlext_numeric_negate", node))


def changes_representation(source: SqlType, target: SqlType) -> bool:
    """Whether a value of ``source`` must be converted to be compared or
    combined as ``target``: numbers meeting numerics, numerics meeting floats."""
    if target.oid == t.NUMERIC:
        return source.oid in _INTEGERS or source.oid in _FLOATS
    return target.oid in _FLOATS and source.oid == t.NUMERIC


def comparison_type(left: SqlType, right: SqlType) -> SqlType | None:
    """The type two numbers are compared as, when one is numeric and they
    differ in representation: double precision if either is a float
    (PostgreSQL's numeric = float8 casts to float8), numeric otherwise."""
    oids = {left.oid, right.oid}
    if t.NUMERIC not in oids or len(oids) == 1:
        return None
    if oids & _FLOATS:
        return SqlType(t.FLOAT8)
    if oids - _INTEGERS - {t.NUMERIC}:
        return None
    return SqlType(t.NUMERIC)


_HALF: Final = 32
"""Sums of a column of scaled integers add the high and the low 32 bits of
each apart: neither sum can overflow 64 bits, and the two make the exact
total (``sqlext_scaled_sum``)."""


def scaled_aggregate(name: str, call: exp.Anonymous) -> exp.Expression | None:
    """sum, avg, min and max of a column of scaled integers, computed by
    SQLite on the integers (one Python call per group, not per row); None
    for any other call (or one in a window or with FILTER, which each
    aggregate of the rewrite would need)."""
    arguments = call.expressions
    if name not in ("sum", "avg", "min", "max") or len(arguments) != 1 or not isinstance(
            arguments[0], ScaledNumeric) or isinstance(call.parent, exp.Window | exp.Filter):
        return None
    column, scale = arguments[0].this, exp.Literal.number(arguments[0].args["scale"])
    if name in ("min", "max"):
        return NumericKey(this=_call("sqlext_numeric_key", _call(name, column.copy()), scale))
    parts = [_call("sum", exp.BitwiseRightShift(this=column.copy(),
                                               expression=exp.Literal.number(_HALF))),
             _call("sum", exp.BitwiseAnd(this=column.copy(),
                                         expression=exp.Literal.number(2**_HALF - 1))),
             _call("max", column.copy())]
    if name == "avg":
        parts.append(_call("count", column.copy()))
    return NumericKey(this=_call(f"sqlext_scaled_{name}", *parts, scale))


def compare_raw(left: exp.Expression, right: exp.Expression) -> None:
    """A comparison of a column of scaled integers with a constant, or with
    a column of the same scale, made on the integers (no key per row): the
    constant is scaled now. NaN, stored as text, compares above every
    integer, as PostgreSQL orders it."""
    if isinstance(right, ScaledNumeric) and not isinstance(left, ScaledNumeric):
        left, right = right, left
    if not isinstance(left, ScaledNumeric):
        return
    scale = left.args["scale"]
    if isinstance(right, ScaledNumeric):
        if right.args["scale"] == scale:
            right.replace(right.this.copy())
            left.replace(left.this.copy())
        return
    value = constant(right)
    if value is None or not value.is_finite():
        return
    scaled = value.scaleb(scale)
    if scaled != scaled.to_integral_value():
        return
    right.replace(exp.Literal.number(int(scaled)))
    left.replace(left.this.copy())
