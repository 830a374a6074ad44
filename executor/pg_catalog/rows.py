"""System-table rows written by column name.

``catalog.system`` declares every pg_catalog and information_schema table as
a list of columns (names, order, types). Code that fills one names the
values it sets, ``row("pg_class", oid=..., relname=...)``, and the table's
column list puts them in order: a reader sees which value is which column,
and a new column changes ``catalog.system`` and the code that sets it, not
every tuple. A name the table does not have is a ``TypeError`` at once.

A column left out holds its "nothing" value. In PostgreSQL's catalog tables
(not its views) columns of numbers, OIDs, booleans, "char" and regproc are
NOT NULL; there it is what PostgreSQL shows for "not set": 0 for numbers and
OIDs, false, '' for "char", '-' for a regproc. Every other column, and every
column of a view (pg_roles, pg_stat_activity, the sqlext_* views,
information_schema), is NULL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from catalog.schema import Relation
from catalog.system import INFORMATION_SCHEMA_TABLES, SYSTEM_TABLES, SYSTEM_VIEWS, columns_of

Row = tuple[Any, ...]

NO_FUNCTION: Final = "-"
"""How a regproc column shows "no function" (stored as function names)."""

_NOT_SET: Final[dict[str, object]] = {
    "oid": 0, "int2": 0, "int4": 0, "int8": 0, "float4": 0.0, "bool": False, "char": "",
    "regproc": NO_FUNCTION,
}
"""Type name -> what a catalog table's column of that type holds when not set."""


def _columns(spec: str, view: bool) -> dict[str, object]:
    return {name: None if view else _NOT_SET.get(type_name)
            for name, type_name in columns_of(spec)}


_COLUMNS: Final = {
    **{name: _columns(spec, view=name in SYSTEM_VIEWS) for name, spec in SYSTEM_TABLES.items()},
    # every relation of information_schema is a view
    **{name: _columns(spec, view=True) for name, spec in INFORMATION_SCHEMA_TABLES.items()},
}
"""Table name -> its columns in order, each with its nothing value (made
once: the catalog refresh after every DDL statement builds rows by the
thousand)."""


def row(table: str, /, **values: Any) -> Row:
    """A row of ``table`` (a pg_catalog or information_schema table), its
    columns given by name; the columns not given hold their nothing value."""
    columns = _COLUMNS[table]
    built = columns | values  # keys keep their first order: the columns', then unknown ones
    if len(built) != len(columns):
        raise _unknown_columns(table, values)
    return tuple(built.values())


class RowsOfRelation:
    """Rows that depend on one relation alone, built once per relation value.
    Relations are immutable (a schema change makes a new one), so the
    catalog refresh after a DDL statement rebuilds only the rows of the
    relations it changed; ``begin`` starts a refresh and forgets the
    relations the previous one did not ask for."""

    def __init__(self, build: Callable[[Relation], Iterable[Row]]) -> None:
        self._build = build
        self._previous: dict[int, tuple[Relation, list[Row]]] = {}
        self._current: dict[int, tuple[Relation, list[Row]]] = {}

    def begin(self) -> None:
        self._previous, self._current = self._current, {}

    def of(self, relation: Relation) -> list[Row]:
        found = self._previous.get(relation.oid)
        if found is None or found[0] is not relation:
            found = (relation, list(self._build(relation)))
        self._current[relation.oid] = found
        return found[1]


def select_list(table: str, /, **expressions: str) -> str:
    """A row of ``table`` as the SELECT list of a view: SQL expressions by
    column name, the columns not given as their nothing value."""
    columns = _COLUMNS[table]
    if expressions.keys() - columns.keys():
        raise _unknown_columns(table, expressions)
    return ", ".join(expressions[column] if column in expressions else _literal(value)
                     for column, value in columns.items())


def _unknown_columns(table: str, given: dict[str, Any]) -> TypeError:
    names = ", ".join(repr(column) for column in given if column not in _COLUMNS[table])
    return TypeError(f"system table {table} has no column {names}")


def _literal(value: object) -> str:
    """A nothing value as SQL (booleans as SQLite stores them)."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(int(value) if isinstance(value, bool) else value)
