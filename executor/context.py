"""What functions called from SQL need to know about the running statement.

SQLite calls our Python functions (now(), current_setting(), casts that can
fail...) in the middle of a statement. They read the session's settings and
the transaction's timestamp from the current ``StatementContext``, and a
function that fails parks its PostgreSQL error here: SQLite itself only
reports "user-defined function raised exception".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import MappingProxyType

from catalog import errors
from catalog.schema import PUBLIC, Catalog


@dataclass
class StatementContext:
    settings: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    user: str = "postgres"
    database: str = "postgres"
    process_id: int = 0
    transaction_start: datetime = field(default_factory=lambda: datetime.now(UTC))
    statement_start: datetime = field(default_factory=lambda: datetime.now(UTC))
    catalog: Catalog = field(default_factory=Catalog)
    search_path: tuple[str, ...] = (PUBLIC,)
    error: errors.SqlError | None = None
    notices: list[str] = field(default_factory=list)
    """NOTICE messages functions raised while the statement ran."""
    warnings: list[str] = field(default_factory=list)
    """WARNING messages functions raised while the statement ran."""
    session_user: str = "postgres"
    """The session's user; ``user`` is the current one (SET ROLE changes it,
    and a procedure runs as its owner)."""
    change_setting: Callable[[str, str | None, bool], str] | None = None
    """What set_config(name, value, is_local) does: sets the parameter as SET
    (RESET for a NULL value) would and returns its new value; None where no
    session runs the statement."""
    definitions: list[tuple[int, str]] = field(default_factory=list)
    """Rows the statement inserted into ``sqlext.dataflow``: (position,
    statement), each to be run once the statement is done."""

    def setting(self, name: str) -> str | None:
        return self.settings.get(name.lower())

    def fail(self, error: errors.SqlError) -> None:
        """Record the error a function is about to raise into SQLite."""
        self.error = error

    def take_error(self) -> errors.SqlError | None:
        error, self.error = self.error, None
        return error
