"""What goes wrong, as Spark shows it: sqlext's errors keep their SQLSTATE."""

from __future__ import annotations


class SqlextError(Exception):
    """An error sqlext sent (or a connection that failed: 08006)."""

    def __init__(self, sqlstate: str, message: str, detail: str | None = None,
                 hint: str | None = None) -> None:
        text = f"[SQLSTATE {sqlstate}] {message}"
        if detail:
            text += f"\nDETAIL: {detail}"
        if hint:
            text += f"\nHINT: {hint}"
        super().__init__(text)
        self.sqlstate = sqlstate
        self.message = message


class OptionError(ValueError):
    """A data source option is missing, unknown or has a bad value."""
