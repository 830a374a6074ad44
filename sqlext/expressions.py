"""Statement nodes sqlglot does not have (or parses too loosely for us):
session and transaction control, cursors, prepared statements, COPY.

Each node is registered in the dialect generator's TRANSFORMS so that
``node.sql(dialect="sqlext")`` prints canonical PostgreSQL text.
"""

from __future__ import annotations

from sqlglot import exp


class UtilityStatement(exp.Expression):
    """Base of our statement nodes."""


class Show(UtilityStatement):
    arg_types = {"this": True}


class SetVariable(UtilityStatement):
    """SET [LOCAL] name = value[, ...] | DEFAULT (``values`` empty for DEFAULT)."""

    arg_types = {"this": True, "expressions": False, "local": False}


class SetTransaction(UtilityStatement):
    """SET TRANSACTION ... / SET SESSION CHARACTERISTICS AS TRANSACTION ..."""

    arg_types = {"session": False, "isolation": False, "read_only": False}


class Reset(UtilityStatement):
    arg_types = {"this": True}


class Begin(UtilityStatement):
    arg_types = {"isolation": False, "read_only": False}


class CommitTransaction(UtilityStatement):
    arg_types = {"chain": False}


class RollbackTransaction(UtilityStatement):
    arg_types = {"chain": False}


class Savepoint(UtilityStatement):
    arg_types = {"this": True}


class ReleaseSavepoint(UtilityStatement):
    arg_types = {"this": True}


class RollbackToSavepoint(UtilityStatement):
    arg_types = {"this": True}


class DeclareCursor(UtilityStatement):
    arg_types = {"this": True, "expression": True, "binary": False, "hold": False,
                 "scroll": False}


class Fetch(UtilityStatement):
    """FETCH / MOVE. ``count`` None means ALL; negative counts go backwards."""

    arg_types = {"this": True, "count": False, "move": False, "direction": False}


class CloseCursor(UtilityStatement):
    """CLOSE name | CLOSE ALL (``this`` None)."""

    arg_types = {"this": False}


class Discard(UtilityStatement):
    arg_types = {"this": True}


class Prepare(UtilityStatement):
    arg_types = {"this": True, "types": False, "expression": True}


class ExecutePrepared(UtilityStatement):
    arg_types = {"this": True, "expressions": False}


class Deallocate(UtilityStatement):
    """DEALLOCATE name | DEALLOCATE ALL (``this`` None)."""

    arg_types = {"this": False}


class CopyStatement(UtilityStatement):
    """COPY table [(columns)] | (query)  FROM|TO  STDIN|STDOUT|'file' [options]."""

    arg_types = {"this": True, "columns": False, "to": False, "target": False,
                 "options": False}


class Maintenance(UtilityStatement):
    """VACUUM / ANALYZE: accepted and ignored (SQLite needs neither)."""

    arg_types = {"this": True}
