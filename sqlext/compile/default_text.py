"""A column default as PostgreSQL prints it back (pg_get_expr, psql's \\d,
SQLAlchemy and Alembic reflection): PostgreSQL keeps the analysed
expression and prints it from the tree, so ``DEFAULT true`` shows as
``true``, ``DEFAULT 'x'`` on a varchar column as ``'x'::character varying``,
``DEFAULT -1`` as ``'-1'::integer`` and ``DEFAULT (1 + 1)`` as ``(1 + 1)``
(ruleutils.c ``get_const_expr`` and ``get_rule_expr``).

Constants, arithmetic on number constants, functions without arguments, the
SQL value functions (``CURRENT_TIMESTAMP``...) and ``nextval('seq')`` are
printed so; any other expression keeps the text it was written with. A
regclass constant is kept as its OID, bound to the relation as in
PostgreSQL, and printed by name when shown (``catalog.introspection``).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation

from sqlglot import exp

from catalog import types as t
from catalog.sqltypes import SqlType
from executor import codecs
from sqlext.translate.type_names import resolve_type

_INT4_RANGE = range(-(2**31), 2**31)
_INT8_RANGE = range(-(2**63), 2**63)
_OPERATORS: dict[type[exp.Expression], str] = {
    exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%"}
_VALUE_FUNCTIONS: dict[type[exp.Expression], str] = {
    exp.CurrentDate: "CURRENT_DATE", exp.CurrentTimestamp: "CURRENT_TIMESTAMP",
    exp.CurrentTime: "CURRENT_TIME", exp.Localtimestamp: "LOCALTIMESTAMP",
    exp.Localtime: "LOCALTIME", exp.CurrentUser: "CURRENT_USER"}
_REGCLASS_ARGUMENT = frozenset({"nextval"})
"""Functions whose one argument is a regclass (pg_proc: nextval(regclass))."""

RegclassOid = Callable[[str], int]
"""The OID of the relation a regclass constant names (an error if none)."""


def default_text(expression: exp.Expression, target: SqlType, written: str,
                 regclass_oid: RegclassOid) -> str | None:
    """The default ``expression`` of a column of type ``target`` as
    PostgreSQL prints it, ``written`` where it is not one of the forms above;
    None for ``DEFAULT NULL``, which PostgreSQL does not keep."""
    while isinstance(expression, exp.Paren):
        expression = expression.this
    if isinstance(expression, exp.Null):
        return None
    if isinstance(expression, exp.Literal) and expression.is_string:
        constant = _typed_constant(expression.this, target.oid)
        return written if constant is None else constant
    shown = _shown(expression, regclass_oid)
    return written if shown is None else shown


def _shown(node: exp.Expression, regclass_oid: RegclassOid) -> str | None:
    """``node`` printed from its tree, or None where it is not a form we print."""
    while isinstance(node, exp.Paren):
        node = node.this
    number = _number(node)
    if number is not None:
        return number
    if isinstance(node, exp.Boolean):
        return "true" if node.this else "false"
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and (
        node.this.is_string
    ) and not node.to.expressions:
        oid = resolve_type(node.to).oid
        if oid == t.REGCLASS:
            return _constant(t.REGCLASS, str(regclass_oid(node.this.this)))
        return _typed_constant(node.this.this, oid)
    if type(node) in _OPERATORS:
        left, right = (_shown(side, regclass_oid) for side in (node.this, node.expression))
        if left is None or right is None or _number(node.this) is None or _number(
                node.expression) is None:
            return None
        return f"({left} {_OPERATORS[type(node)]} {right})"
    if type(node) in _VALUE_FUNCTIONS and not node.args.get("this"):
        return _VALUE_FUNCTIONS[type(node)]
    if isinstance(node, exp.Anonymous):
        name = node.name
        if not node.expressions:
            return f"{name}()"
        if name.lower() in _REGCLASS_ARGUMENT and len(node.expressions) == 1:
            argument = node.expressions[0]
            if isinstance(argument, exp.Literal) and argument.is_string:
                return f"{name}({_constant(t.REGCLASS, str(regclass_oid(argument.this)))})"
            inner = _shown(argument, regclass_oid)
            if inner is not None and inner.endswith("::regclass"):
                return f"{name}({inner})"
    return None


def _number(node: exp.Expression) -> str | None:
    """A number constant (maybe negated) as PostgreSQL prints it: integers
    as int4 (int8, numeric when larger), others as numeric."""
    negative = isinstance(node, exp.Neg)
    literal = node.this if negative else node
    if not isinstance(literal, exp.Literal) or literal.is_string:
        return None
    text = ("-" if negative else "") + str(literal.this)
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    if literal.is_int:
        whole = int(value)
        oid = t.INT4 if whole in _INT4_RANGE else t.INT8 if whole in _INT8_RANGE else t.NUMERIC
        return _constant(oid, str(whole))
    return _constant(t.NUMERIC, _canonical(text, t.NUMERIC))


def _typed_constant(text: str, oid: int) -> str | None:
    """A string constant read as type ``oid``; None for types whose output
    depends on the reader's settings (timestamptz prints in the session's
    time zone), which keep their text as written."""
    if (t.element_of(oid) or oid) == t.TIMESTAMPTZ:
        return None
    return _constant(oid, _canonical(text, oid))


def _canonical(text: str, oid: int) -> str:
    """A value of type ``oid`` given as text, as that type prints it."""
    value = codecs.text_decoder(oid)(text)
    return codecs.text_encoder(oid)(value).decode()


def _constant(oid: int, text: str) -> str:
    """A constant of type ``oid`` whose output is ``text`` (get_const_expr):
    int4 bare unless negative, numeric bare if it has a point or exponent and
    no sign, booleans bare, everything else quoted with its type."""
    if oid == t.BOOL:
        return "true" if text in ("t", "true") else "false"
    if oid == t.INT4 and not text.startswith("-"):
        return text
    if oid == t.NUMERIC and text[:1].isdigit() and any(c in text for c in ".eE"):
        return text
    quoted = "'" + text.replace("'", "''") + "'"
    return f"{quoted}::{t.format_type(oid, -1, typmod_given=True)}"
