"""The embedded engine: SQLite, owned by the serial executor.

This is the only module that imports sqlite3. The database lives in memory
(as H-Store and S-Store keep data in main memory); durability comes from the
command log and snapshots, not from SQLite's journal. The system catalog
tables (``pg_catalog``, ``information_schema``) live in attached in-memory
databases of those names, so ``pg_catalog.pg_class`` is a plain SQLite name.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

Error = sqlite3.Error
IntegrityError = sqlite3.IntegrityError
OperationalError = sqlite3.OperationalError
Cursor = sqlite3.Cursor

SYSTEM_DATABASES = ("pg_catalog", "information_schema")
BACKUP_STEP_PAGES = 4096
"""Pages a snapshot copies between two checks that the server still lives."""


def quoted(name: str) -> str:
    """A SQLite identifier, quoted."""
    return '"' + name.replace('"', '""') + '"'


def error_name(exc: BaseException) -> str:
    """SQLite's symbolic result code, e.g. ``SQLITE_CONSTRAINT_UNIQUE``."""
    return str(getattr(exc, "sqlite_errorname", ""))


class Database:
    """One SQLite connection with PostgreSQL-friendly settings."""

    def __init__(self, path: str = ":memory:") -> None:
        self.connection = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, cached_statements=512
        )
        for name in SYSTEM_DATABASES:
            self.connection.execute(f"ATTACH DATABASE ':memory:' AS {name}")
        # PostgreSQL's LIKE is case-sensitive; SQLite's is not by default.
        self.connection.execute("PRAGMA case_sensitive_like = ON")
        self.connection.execute("PRAGMA foreign_keys = ON")
        self.connection.execute("PRAGMA recursive_triggers = ON")
        # The connection's own methods, not wrappers: every statement of the
        # hot path goes through them, and a Python frame each is measurable.
        self.variable_limit = self.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        """How many parameters one statement may bind."""
        self.execute: Callable[..., sqlite3.Cursor] = self.connection.execute
        """``execute(sql, params=())``: run one statement."""
        self.executemany: Callable[[str, Iterable[Sequence[Any]]], sqlite3.Cursor] = (
            self.connection.executemany)

    def row_counts(self, sql: str, rows: Iterable[Sequence[Any]]) -> Iterator[int]:
        """Run the DML statement ``sql`` once per row of parameters, yielding
        how many rows each run changed (``executemany`` gives only the sum,
        and on an error not which row failed: here it is the one after the
        last count)."""
        cursor = self.connection.cursor()
        execute = cursor.execute
        for row in rows:
            execute(sql, row)
            yield cursor.rowcount

    def add_table_constraint(self, table: str, clause: str) -> None:
        """Add a CHECK or FOREIGN KEY clause to a table's definition, inside
        the running transaction. SQLite has no ALTER TABLE ADD CONSTRAINT;
        its documented way to change a constraint that does not change how
        rows are stored is to edit the table's SQL in the schema table and
        bump the schema version (https://sqlite.org/lang_altertable.html,
        "Making Other Kinds Of Table Schema Changes"). SQLite does not check
        the existing rows against the new clause: the caller has."""
        definition = self._table_sql(table)
        if not definition.endswith(")"):
            raise ValueError(f"unexpected definition of table {table}: {definition}")
        self._rewrite_table_sql(table, f"{definition[:-1]}, {clause})")

    def table_constraint(self, table: str, name: str) -> str | None:
        """The clause ``CONSTRAINT "name" ...`` of a table's definition, if
        the table was made (or altered) with it."""
        definition = self._table_sql(table)
        span = _clause_span(definition, name)
        return None if span is None else definition[span[0]:span[1]].lstrip(", ")

    def remove_table_constraint(self, table: str, name: str) -> None:
        """Take the CHECK or FOREIGN KEY clause ``name`` out of a table's
        definition, as ``add_table_constraint`` puts one in (the rows need
        no change: they satisfy less than before)."""
        definition = self._table_sql(table)
        span = _clause_span(definition, name)
        if span is None:
            raise ValueError(f"table {table} has no constraint {name}")
        self._rewrite_table_sql(table, definition[:span[0]] + definition[span[1]:])

    def set_column_not_null(self, table: str, column: str, not_null: bool) -> None:
        """Add or take away a column's NOT NULL in the table's definition (the
        caller has checked the rows for SET NOT NULL)."""
        definition = self._table_sql(table)
        body_start = definition.index("(") + 1
        for start, end in _top_level_parts(definition, body_start):
            part = definition[start:end]
            head = quoted(column)
            if part.lstrip().startswith(head) and part.lstrip()[len(head):len(head) + 1] in (
                    " ", ""):
                kept = part.replace(" NOT NULL", "")
                changed = kept + " NOT NULL" if not_null else kept
                self._rewrite_table_sql(table, definition[:start] + changed + definition[end:])
                return
        raise ValueError(f"table {table} has no column {column}")

    def index_statements(self, table: str) -> dict[str, str]:
        """The CREATE INDEX statement of each index made on a table, by index
        name (not those SQLite makes for the table's own keys)."""
        return dict(self.connection.execute(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? "
            "AND sql IS NOT NULL", (table,)).fetchall())

    def _table_sql(self, table: str) -> str:
        row = self.connection.execute(
            "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,)).fetchone()
        return str(row[0]).rstrip()

    def _rewrite_table_sql(self, table: str, definition: str) -> None:
        """Replace a table's SQL in the schema table and bump the schema
        version (https://sqlite.org/lang_altertable.html, "Making Other Kinds
        Of Table Schema Changes"), inside the running transaction."""
        version = self.connection.execute("PRAGMA schema_version").fetchone()[0]
        self.connection.execute("PRAGMA writable_schema = ON")
        try:
            self.connection.execute(
                "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?",
                (definition, table))
            self.connection.execute(f"PRAGMA schema_version = {int(version) + 1}")
        finally:
            self.connection.execute("PRAGMA writable_schema = OFF")

    def executescript(self, script: str) -> None:
        self.connection.executescript(script)

    @property
    def in_transaction(self) -> bool:
        return self.connection.in_transaction

    def create_function(self, name: str, arg_count: int, function: Callable[..., Any],
                        deterministic: bool = False) -> None:
        self.connection.create_function(name, arg_count, function, deterministic=deterministic)

    def create_aggregate(self, name: str, arg_count: int, aggregate: type) -> None:
        self.connection.create_aggregate(name, arg_count, aggregate)

    def create_window_function(self, name: str, arg_count: int, aggregate: type) -> None:
        """An aggregate that may also run as a window function (its class has
        ``value`` and ``inverse`` besides ``step`` and ``finalize``)."""
        self.connection.create_window_function(name, arg_count, aggregate)

    def create_collation(self, name: str, compare: Callable[[str, str], int]) -> None:
        self.connection.create_collation(name, compare)

    def set_progress_handler(self, handler: Callable[[], int] | None, every: int) -> None:
        self.connection.set_progress_handler(handler, every)

    def interrupt(self) -> None:
        """Abort the running statement; safe to call from another thread."""
        self.connection.interrupt()

    def backup_to(self, path: str, keep_going: Callable[[], bool]) -> None:
        """Copy the main database into the file ``path``, in steps; stops
        with an error when ``keep_going`` returns False."""

        def progress(status: int, remaining: int, total: int) -> None:
            if not keep_going():
                raise InterruptedError("snapshot abandoned")

        if self.connection.in_transaction:
            self.connection.execute("ROLLBACK")
        target = sqlite3.connect(path)
        try:
            self.connection.backup(target, pages=BACKUP_STEP_PAGES, progress=progress)
        finally:
            target.close()

    def restore_from(self, path: str) -> None:
        """Replace the main database with the file ``path``'s content."""
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            source.backup(self.connection, name="main")
        finally:
            source.close()

    def close(self) -> None:
        self.connection.close()


def _clause_span(definition: str, name: str) -> tuple[int, int] | None:
    """Where ``, CONSTRAINT "name" ...`` stands in a table's SQL: from its
    comma to the comma or parenthesis that ends it."""
    marker = f" CONSTRAINT {quoted(name)} "
    for start, end in _top_level_parts(definition, definition.index("(") + 1):
        if definition.startswith(marker, start):
            return start - 1, end
    return None


def _top_level_parts(definition: str, start: int) -> list[tuple[int, int]]:
    """The comma-separated parts of a table's SQL from ``start`` (just after
    its opening parenthesis) to its closing one, outside quotes and nested
    parentheses."""
    parts: list[tuple[int, int]] = []
    depth, quote, begin = 0, "", start
    for position in range(start, len(definition)):
        char = definition[position]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif char in ",)" and depth == 0:
            parts.append((begin, position))
            begin = position + 1
            if char == ")":
                break
    return parts
