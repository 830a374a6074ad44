"""Printing a translated tree as SQLite SQL.

The translator leaves trees that are PostgreSQL-shaped but only use what
SQLite understands (plus our registered functions); this generator prints
them, with a few additions: ``$n`` parameters become ``?n`` and values that
were converted at translation time (``StorageLiteral``) print as SQLite
literals of their storage form.
"""

from __future__ import annotations

import math
from typing import Any

from sqlglot import exp
from sqlglot.dialects.sqlite import SQLite
from sqlglot.generators.sqlite import SQLiteGenerator

from catalog import types as t


class StorageLiteral(exp.Expression):
    """A constant already in its storage form (int, float, str, bytes, None)."""

    arg_types = {"this": False}

    @property
    def value(self) -> Any:
        return self.args.get("this")


class StatementOnly(exp.Expression):
    """An expression with a faster form that only a statement may use (a
    subquery): printed as ``this``, which a column default or CHECK takes
    too; a statement's plan puts ``statement`` in its place
    (``sqlext.compile``)."""

    arg_types = {"this": True, "statement": True}


class NumericKey(exp.Expression):
    """A numeric value in its key form (``executor.codecs.numeric_storage``),
    compared under the collation that makes keys compare as numbers."""

    arg_types = {"this": True}


class ScaledNumeric(exp.Expression):
    """A column of numeric(p,s) held as scaled integers: ``this`` the column,
    ``scale`` its s. Printed as the values' keys; rules that work on the
    integers themselves (sums, comparisons, ordering) take ``this``."""

    arg_types = {"this": True, "scale": True}


def sqlite_literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "9e999" if value > 0 else "-9e999"
        if value == 0 and math.copysign(1.0, value) < 0:
            return "(-0.0)"
        return repr(value)
    if isinstance(value, bytes):
        return "X'" + value.hex() + "'"
    return "'" + str(value).replace("'", "''") + "'"


class SqliteTargetGenerator(SQLiteGenerator):
    TRANSFORMS = {
        **SQLiteGenerator.TRANSFORMS,
        StorageLiteral: lambda _, e: sqlite_literal(e.value),
        StatementOnly: lambda generator, e: generator.sql(e, "this"),
        NumericKey: lambda generator, e: f"{generator.sql(e, 'this')} COLLATE "
                                         f"{t.NUMERIC_KEY_COLLATION}",
        ScaledNumeric: lambda generator, e: (
            f"SQLEXT_NUMERIC_KEY({generator.sql(e, 'this')}, {e.args['scale']}) COLLATE "
            f"{t.NUMERIC_KEY_COLLATION}"),
        exp.Parameter: lambda _, e: f"?{e.name}",
    }


class SqliteTarget(SQLite):
    Generator = SqliteTargetGenerator


_TARGET = SqliteTarget()


def to_sqlite(tree: exp.Expression) -> str:
    """SQLite SQL for a translated tree; every identifier is quoted, so names
    that are keywords in SQLite (``nothing``, ``key``...) stay names."""
    return _TARGET.generate(tree, copy=False, identify=True)


def not_a_position(item: exp.Expression) -> exp.Expression:
    """A sort or grouping item SQLite will not take for a position in the
    select list: it takes integer constants so, and folds more than literals
    into one (true, '1'::int, anything AND false). CASE keeps the value."""
    if item.find(exp.Column) is None or item.find(exp.And):
        return exp.Case(ifs=[exp.If(this=exp.Literal.number(1), true=item)])
    return item
