"""The embedded engine: SQLite, owned by the serial executor.

This is the only module that imports sqlite3. The database lives in memory
(as H-Store and S-Store keep data in main memory); durability comes from the
command log and snapshots, not from SQLite's journal. The system catalog
tables (``pg_catalog``, ``information_schema``) live in attached in-memory
databases of those names, so ``pg_catalog.pg_class`` is a plain SQLite name.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any

Error = sqlite3.Error
IntegrityError = sqlite3.IntegrityError
OperationalError = sqlite3.OperationalError
Cursor = sqlite3.Cursor

SYSTEM_DATABASES = ("pg_catalog", "information_schema")


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

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self.connection.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> sqlite3.Cursor:
        return self.connection.executemany(sql, rows)

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

    def create_collation(self, name: str, compare: Callable[[str, str], int]) -> None:
        self.connection.create_collation(name, compare)

    def set_progress_handler(self, handler: Callable[[], int] | None, every: int) -> None:
        self.connection.set_progress_handler(handler, every)

    def interrupt(self) -> None:
        """Abort the running statement; safe to call from another thread."""
        self.connection.interrupt()

    def close(self) -> None:
        self.connection.close()
