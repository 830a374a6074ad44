"""Name resolution: which columns a query can see, and their types.

A ``Scope`` holds the FROM items of one SELECT (``Source``s) and points to
the enclosing scope, so correlated subqueries find outer columns. Common
table expressions are visible to the query that defines them and below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.sqltypes import SqlType


@dataclass(frozen=True, slots=True)
class ColumnInfo:
    name: str
    type: SqlType
    table_oid: int = 0
    column_number: int = 0
    nullable: bool = True
    scaled: int | None = None
    """A stored numeric(p,s) column holding scaled integers: its s
    (``executor.codecs.numeric_storage``)."""


class _TableColumn(Protocol):
    """A column of a table, in the catalog or being created."""

    @property
    def name(self) -> str: ...
    @property
    def type_oid(self) -> int: ...
    @property
    def typmod(self) -> int: ...
    @property
    def not_null(self) -> bool: ...


def stored_column(column: _TableColumn, table_oid: int = 0, number: int = 0) -> ColumnInfo:
    """A column of a table as a query reads it: its stored form included."""
    scaled = t.numeric_scaled_scale(column.typmod) if column.type_oid == t.NUMERIC else None
    return ColumnInfo(column.name, SqlType(column.type_oid, column.typmod), table_oid, number,
                      not column.not_null, scaled)


@dataclass(slots=True)
class Source:
    """A FROM item: a table, view, subquery, CTE or table function."""

    alias: str
    columns: list[ColumnInfo]
    merged: set[str] = field(default_factory=set)
    """Columns a USING join already shows from an earlier source (``*``
    lists them once)."""
    relation_oid: int = 0
    """Tables and views: their OID, the value of the ``tableoid`` system column."""
    system_columns: list[ColumnInfo] = field(default_factory=list)
    """Columns found by name but not listed by ``*`` (a stream's batch_id)."""
    computed: dict[str, exp.Expression] = field(default_factory=dict)
    """Columns that are expressions over the FROM item (a table function's
    rows read from JSON): a reference to one becomes a copy."""
    depends_on: str | None = None
    """A LATERAL item that names an earlier FROM item (this one)."""
    packed: bool = False
    """Read from packed rows (``translate.lateral``: LATERAL items that name
    earlier ones, functions with several columns): its columns are
    ``sqlext_field()`` values, found by position."""

    def find(self, name: str) -> ColumnInfo | None:
        for column in self.columns:
            if column.name == name:
                return column
        for column in self.system_columns:
            if column.name == name:
                return column
        return None


class Scope:
    def __init__(self, parent: Scope | None = None,
                 ctes: dict[str, list[ColumnInfo]] | None = None) -> None:
        self.parent = parent
        self.sources: list[Source] = []
        self.ctes: dict[str, list[ColumnInfo]] = dict(parent.ctes) if parent else {}
        if ctes:
            self.ctes.update(ctes)
        self.outputs: dict[str, SqlType] = {}
        """Output column aliases, visible to ORDER BY and GROUP BY."""
        self.hidden: list[Source] = []
        """The FROM items before a subquery in FROM that is not LATERAL: they
        exist, but it cannot name them (PostgreSQL's error says so)."""
        self.referenced: str | None = None
        """The first of this scope's own FROM items a column was found in:
        in the scope of a LATERAL item, the earlier item it depends on."""

    def child(self) -> Scope:
        return Scope(self)

    def from_item_scope(self, lateral: bool) -> Scope:
        """What a subquery or function in this scope's FROM clause sees: the
        enclosing queries, and the FROM items before it when it is LATERAL
        (functions always are)."""
        frame = Scope(self.parent, self.ctes)
        if lateral:
            frame.sources = list(self.sources)
        else:
            frame.hidden = list(self.sources)
        return frame

    def invisible(self, name: str, table: str | None) -> errors.SqlError | None:
        """PostgreSQL's error for naming a FROM item this scope cannot see
        (one before the non-LATERAL subquery it is in), or None."""
        scope: Scope | None = self
        unreachable = "but it cannot be referenced from this part of the query."
        while scope is not None:
            for source in scope.hidden:
                if table is not None and source.alias == table:
                    return errors.UndefinedTable(
                        f'invalid reference to FROM-clause entry for table "{table}"',
                        hint=f'There is an entry for table "{table}", {unreachable}')
                if table is None and source.find(name) is not None:
                    return errors.UndefinedColumn(
                        f'column "{name}" does not exist',
                        hint=f'There is a column named "{name}" in table "{source.alias}", '
                             f"{unreachable}")
            scope = scope.parent
        return None

    def add(self, source: Source) -> None:
        for existing in self.sources:
            if existing.alias == source.alias:
                raise errors.DuplicateObject(
                    f'table name "{source.alias}" specified more than once'
                )
        self.sources.append(source)

    def source(self, alias: str) -> Source | None:
        scope: Scope | None = self
        while scope is not None:
            for candidate in scope.sources:
                if candidate.alias == alias:
                    scope.referenced = scope.referenced or alias
                    return candidate
            scope = scope.parent
        return None

    def resolve(self, name: str, table: str | None = None) -> ColumnInfo | None:
        """The column ``[table.]name`` from this scope or an enclosing one."""
        found = self.locate(name, table)
        return found[1] if found is not None else None

    def locate(self, name: str, table: str | None = None) -> tuple[Source, ColumnInfo] | None:
        """Like ``resolve``, with the FROM item the column comes from."""
        scope: Scope | None = self
        while scope is not None:
            found = scope._locate_here(name, table)
            if found is not None:
                scope.referenced = scope.referenced or found[0].alias
                return found
            scope = scope.parent
        return None

    def joined_later(self, source: Source, name: str) -> bool:
        """Whether a later USING/NATURAL join merges column ``name`` of ``source``."""
        position = self.sources.index(source) if source in self.sources else len(self.sources)
        return any(name in later.merged for later in self.sources[position + 1:])

    def _locate_here(self, name: str, table: str | None) -> tuple[Source, ColumnInfo] | None:
        if table is not None:
            for source in self.sources:
                if source.alias == table:
                    column = source.find(name)
                    if column is None:
                        raise errors.UndefinedColumn(f'column {table}.{name} does not exist')
                    return source, column
            return None
        matches = [(s, c) for s in self.sources if name not in s.merged
                   if (c := s.find(name)) is not None]
        if len(matches) > 1:
            raise errors.AmbiguousColumn(f'column reference "{name}" is ambiguous')
        return matches[0] if matches else None
