"""SQL for rows computed per row of the FROM items before them.

SQLite has no LATERAL, but the arguments of a table-valued function may
name the FROM items to its left, scalar subqueries among them. So a LATERAL
subquery, a function in FROM whose arguments name earlier FROM items, and
the set-returning functions of a select list become json_each() over a
scalar subquery that packs their rows into one JSON array (``sqlext_pack``,
``executor.functions.row_packing``); their columns are read back from each
row with ``sqlext_field``.

Set-returning functions side by side (``ROWS FROM``, ``unnest(a, b)``,
several in one select list) run in lockstep: their queries are joined on
the row number, the shorter ones padded with NULLs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from sqlglot import exp

from catalog import types as t
from catalog.sqltypes import SqlType
from sqlext.sql.sqlite_dialect import NumericKey
from sqlext.translate.scope import ColumnInfo, Scope, Source

BELOW: str = "_p"
"""The alias of what a select list with set-returning functions is computed
from: the rest of its query."""
ROWS: str = "_srf"
"""The alias of the set-returning functions' rows beside it."""
COLUMN_POSITION: str = "column_position"
"""The key of a column reference's ``meta`` that says which column of a
packed FROM item it is (``*`` lists columns that may share a name)."""


def _alias(name: str) -> exp.TableAlias:
    return exp.TableAlias(this=exp.to_identifier(name, quoted=True))


def element_rows(array: exp.Expression) -> exp.Select:
    """The elements of a JSON array (an array's storage form, or the rows a
    set-returning function returns as one) as rows ``v``, ``n``."""
    return exp.select(exp.alias_(exp.column("value"), "v"), exp.alias_(
        exp.Add(this=exp.column("key"), expression=exp.Literal.number(1)), "n")).from_(
        exp.Table(this=exp.Anonymous(this="json_each", expressions=[array]))).order_by(
        exp.column("key"))


def _packed_rows(query: exp.Expression, columns: Sequence[str]) -> exp.Expression:
    """The rows of ``query`` (its ``columns``, in order) as one JSON value."""
    pack = exp.Anonymous(this="sqlext_pack", expressions=[
        exp.column(name, "_q", quoted=True) for name in columns])
    return exp.Subquery(this=exp.select(pack).from_(exp.Subquery(this=query,
                                                                 alias=_alias("_q"))))


def packed_source(query: exp.Expression, columns: Sequence[str], alias: str) -> exp.Table:
    """A FROM item yielding the rows of ``query``, which may name the FROM
    items before it; read its columns with ``packed_value``."""
    return exp.Table(this=exp.Anonymous(this="json_each", expressions=[
        _packed_rows(query, columns)]), alias=_alias(alias))


def packed_value(alias: str, index: int, value_type: SqlType | None = None) -> exp.Expression:
    """Column ``index`` of the packed FROM item ``alias``: a numeric (packed
    as its key, as every numeric a query computes is) compares as one."""
    value = exp.Anonymous(this="sqlext_field", expressions=[
        exp.column("value", alias, quoted=True), exp.Literal.number(index)])
    return NumericKey(this=value) if value_type is not None and value_type.oid == t.NUMERIC \
        else value


def row_number(alias: str) -> exp.Expression:
    """The position (from 0) of the current row of a packed FROM item."""
    return exp.column("key", alias, quoted=True)


def zip_queries(queries: Sequence[exp.Expression]) -> exp.Select:
    """Queries with a value ``v`` and a row number ``n`` side by side: their
    values ``v0``, ``v1``... and the row number ``n``, as many rows as the
    longest has."""
    parts = [f"_z{index}" for index in range(len(queries))]
    numbers = [exp.column("n", part, quoted=True) for part in parts]
    number: exp.Expression = numbers[0] if len(numbers) == 1 else exp.Coalesce(
        this=numbers[0], expressions=numbers[1:])
    zipped = exp.select(*[
        exp.alias_(exp.column("v", part, quoted=True), f"v{index}", quoted=True)
        for index, part in enumerate(parts)], exp.alias_(number, "n", quoted=True)).from_(
        exp.Subquery(this=queries[0], alias=_alias(parts[0])))
    for index, query in enumerate(queries[1:], start=1):
        so_far = numbers[0] if index == 1 else exp.Coalesce(this=numbers[0],
                                                            expressions=numbers[1:index])
        zipped = zipped.join(exp.Subquery(this=query, alias=_alias(parts[index])),
                             on=exp.EQ(this=numbers[index].copy(), expression=so_far.copy()),
                             join_type="FULL")
    return zipped.order_by(exp.column("n", quoted=True))


class RowValue(exp.Expression):
    """The value of the select list's set-returning function number ``this``,
    until the query around it is rebuilt (``SelectListRows``)."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}


class SelectListRows:
    """The set-returning functions of one select list, as it is translated.

    PostgreSQL evaluates them after the rest of the query (joins, WHERE,
    grouping, window functions), each row of that making as many rows as the
    longest function returns. So the query is rebuilt as ``SELECT <select
    list> FROM (<the rest of the query>) AS _p, json_each(<the functions'
    rows, zipped and packed>) AS _srf``: the functions' arguments become
    columns of ``_p`` (``argument``), their rows are queries over those
    (``add``), and each call becomes a ``RowValue``.
    """

    def __init__(self) -> None:
        self.below = Source(BELOW, [])
        self.scope = Scope()
        """Where the functions' arguments are translated again, as columns of ``_p``."""
        self.scope.add(self.below)
        self.inputs: list[exp.Expression] = []
        """What ``_p`` computes for the select list: its aliased columns."""
        self.queries: list[exp.Expression] = []

    def computed_below(self, value: exp.Expression) -> exp.Column:
        """``value`` (translated) computed by ``_p``; returns the reference to it."""
        name = f"_a{len(self.inputs)}"
        self.inputs.append(exp.alias_(value, name, quoted=True))
        return exp.column(name, BELOW, quoted=True)

    def argument(self, value: exp.Expression, value_type: SqlType) -> exp.Column:
        """A function's argument (translated) computed by ``_p``; returns a
        reference to it for the function to translate again."""
        reference = self.computed_below(value)
        self.below.columns.append(ColumnInfo(reference.name, value_type))
        return reference

    def add(self, query: exp.Expression, value_type: SqlType) -> exp.Expression:
        """A function's rows (a query with ``v`` and ``n``) of ``value_type``;
        returns its value (a numeric compares as one)."""
        self.queries.append(query)
        value = RowValue(this=len(self.queries) - 1)
        return NumericKey(this=value) if value_type.oid == t.NUMERIC else value

    def source(self) -> exp.Table:
        """The FROM item with the functions' rows, side by side."""
        if len(self.queries) == 1:
            return packed_source(self.queries[0], ["v"], ROWS)
        return packed_source(zip_queries(self.queries),
                             [f"v{index}" for index in range(len(self.queries))], ROWS)
