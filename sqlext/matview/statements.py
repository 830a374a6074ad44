"""Building blocks of the statements that maintain materialized views:
adding a row's values to its group (in a trigger, from NEW or OLD), merging
a delta query's groups into a table, and small printing helpers."""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from executor.codecs import numeric_storage
from executor.codecs.numeric import numeric_text
from sqlext.sql.sqlite_dialect import (
    NumericKey,
    ScaledNumeric,
    StorageLiteral,
    sqlite_literal,
    to_sqlite,
)
from storage.sqlite import quoted


@dataclass(frozen=True, slots=True)
class Additive:
    """A state column that sums each row's ``value`` (``numeric``: exactly)."""

    column: str
    value: str
    numeric: bool = False

    def changed(self, sign: int) -> str:
        column = quoted(self.column)
        if self.numeric:
            return f"{column} = sqlext_numeric_add({column}, {self.value}, {sign})"
        return f"{column} = {column} {'+' if sign > 0 else '-'} {self.value}"

    @property
    def first(self) -> str:
        return f"sqlext_numeric_add(0, {self.value}, 1)" if self.numeric else self.value


def sql(node: exp.Expression) -> str:
    return to_sqlite(node)


def call(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def on_row(node: exp.Expression, alias: str, row: str) -> exp.Expression:
    """``node`` with the columns of ``alias`` read from a trigger's NEW or OLD."""
    copy = node.copy()
    for column in copy.find_all(exp.Column):
        if column.table == alias:
            column.set("table", exp.to_identifier(row))
    return copy


def all_of(parts: list[str]) -> str:
    return " AND ".join(parts)


def where(parts: list[str]) -> str:
    return f" WHERE {all_of(parts)}" if parts else ""


def shown(node: exp.Expression) -> str:
    """An expression as EXPLAIN shows it (PostgreSQL-like, unquoted)."""
    if isinstance(node, StorageLiteral):
        return sqlite_literal(node.value)
    copy = node.copy()
    for identifier in copy.find_all(exp.Identifier):
        identifier.set("quoted", False)
    for scaled in list(copy.find_all(ScaledNumeric)):
        scaled.replace(scaled.this)
    for number in list(copy.find_all(NumericKey)):
        inner = number.this
        number.replace(exp.Var(this=numeric_text(numeric_storage.value(inner.value)))
                       if isinstance(inner, StorageLiteral) else inner)
    for constant in list(copy.find_all(StorageLiteral)):
        constant.replace(exp.Var(this=sqlite_literal(constant.value)))
    text = copy.sql(dialect="postgres")
    return text.replace("SQLEXT_NUMERIC_SUM(", "SUM(").replace("SQLEXT_NUMERIC_AVG(", "AVG(")


def row_upsert(table: str, keys: list[tuple[str, str]], additives: list[Additive], sign: int,
                count: str, grouped: bool = True, extras: list[tuple[str, str]] | None = None,
                guard: str | None = None) -> tuple[list[str], list[str]]:
    """Add (sign 1) or subtract (-1) one row's values to its group of
    ``table``; the second list deletes the group when it became empty."""
    name = quoted(table)
    match = [f"{quoted(column)} IS {value}" for column, value in keys]
    changes = [f"UPDATE {name} SET {', '.join(a.changed(sign) for a in additives)}"
               f"{where(match)}"]
    cleanup: list[str] = []
    if sign > 0 and grouped:
        extras = extras or []
        columns = [c for c, _ in keys] + [a.column for a in additives] + [c for c, _ in extras]
        values = [v for _, v in keys] + [a.first for a in additives] + [v for _, v in extras]
        condition = all_of(["changes() = 0", *([guard] if guard else [])])
        changes.append(f"INSERT INTO {name} ({', '.join(map(quoted, columns))}) "
                       f"SELECT {', '.join(values)} WHERE {condition}")
    if sign < 0 and grouped:
        cleanup.append(f"DELETE FROM {name}{where([*match, f'{quoted(count)} = 0'])}")
    return changes, cleanup


def merge(table: str, keys: list[str], additive: list[tuple[str, bool]], delta: str,
           sign: int, count: str, grouped: bool = True,
           extras: list[tuple[str, str]] | None = None) -> tuple[list[str], list[str]]:
    """Add the rows of the query ``delta`` (signed already) to their groups."""
    name = quoted(table)
    match = [f"{name}.{quoted(k)} IS d.{quoted(k)}" for k in keys]

    def added(column: str, numeric: bool) -> str:
        mine, theirs = f"{name}.{quoted(column)}", f"d.{quoted(column)}"
        if numeric:
            return f"{quoted(column)} = sqlext_numeric_add({mine}, {theirs}, 1)"
        return f"{quoted(column)} = {mine} + {theirs}"

    changes = [f"UPDATE {name} SET {', '.join(added(c, n) for c, n in additive)} "
               f"FROM ({delta}) AS d{where(match)}"]
    cleanup: list[str] = []
    if sign > 0 and grouped:
        extras = extras or []
        columns = keys + [c for c, _ in additive] + [c for c, _ in extras]
        values = [f"d.{quoted(k)}" for k in keys] + [
            f"coalesce(d.{quoted(c)}, 0)" for c, _ in additive] + [v for _, v in extras]
        changes.append(f"INSERT INTO {name} ({', '.join(map(quoted, columns))}) "
                       f"SELECT {', '.join(values)} FROM ({delta}) AS d WHERE NOT EXISTS "
                       f"(SELECT 1 FROM {name}{where(match)})")
    if sign < 0 and grouped:
        cleanup.append(f"DELETE FROM {name} WHERE {quoted(count)} = 0")
    return changes, cleanup
