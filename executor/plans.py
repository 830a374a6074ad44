"""What the dialect layer hands the executor: statements already translated
to SQLite, with the PostgreSQL types of their parameters and result columns.

Plans are immutable and cached per (statement text, parameter types, catalog
version), so a hot statement is parsed and translated once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple


class OutputColumn(NamedTuple):
    """A result column. A named tuple, like ``ParamType``: every Bind looks
    its statement's shape up in a cache, and tuples hash without Python code."""

    name: str
    type_oid: int
    typmod: int = -1
    table_oid: int = 0
    column_number: int = 0
    encode_as: int = 0
    """The type whose output function prints the values, when it is not the
    column's own (regclass names are already text)."""


class ParamType(NamedTuple):
    oid: int
    typmod: int = -1


class Slot(NamedTuple):
    """A value the executor binds after the client's parameters, once per
    execution instead of SQLite calling a function for every row: the
    transaction's start (``now()``), or the batch a stream's name denotes in
    the running transaction execution."""

    kind: str
    """``now`` or ``batch``."""
    stream_oid: int = 0


NOW_SLOT = Slot("now")


@dataclass(frozen=True, slots=True)
class AfterInsert:
    """What an INSERT sets off in its own transaction: the target stream's
    windows place the new tuples (sliding and running AFTER SLIDE triggers),
    then the target's EE triggers run; a stream consumed only by these has
    its batch deleted afterwards (PE triggers consume it otherwise)."""

    target: tuple[str, str]
    windows: tuple[tuple[str, str], ...] = ()
    triggers: tuple[tuple[str, str], ...] = ()
    consumed: bool = False


@dataclass(frozen=True, slots=True)
class Access:
    """What a statement needs on one relation it names (PostgreSQL's
    requiredPerms with selectedCols, insertedCols and updatedCols)."""

    relation: tuple[str, str]
    privileges: str
    """Letters: r to read, a to insert, w to update, d to delete."""
    columns: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """For r, a and w: the columns read, given values, or set. Privileges on
    just those columns do instead of the relation's; with none named, on
    any one of its columns."""


class ValuesRow(NamedTuple):
    """A single-row INSERT ... VALUES whose values are all parameters, as a
    run of many rows can insert several of them with one statement
    (``executor.grouped_insert``): the statement's text before its row, and
    the parameter each value of the row is."""

    head: str
    params: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SqlPlan:
    """A statement SQLite runs: a query, or DML with or without RETURNING."""

    sql: str
    params: tuple[ParamType, ...]
    columns: tuple[OutputColumn, ...] | None
    """None when the statement returns no rows."""
    tag: str
    """The command tag's verb: SELECT, INSERT, UPDATE, DELETE."""
    writes: bool
    target: str | None = None
    """The table a DML statement changes (for constraint error messages)."""
    refresh: frozenset[str] = frozenset()
    """Live system views the statement reads (filled just before it runs)."""
    observes: bool = False
    """A query that reads live system views (or calls pg_cancel_backend()
    and the like) and nothing outside pg_catalog: it runs even while
    another session's transaction holds the executor, so a session that
    stops everybody else can be seen, and ended."""
    recompute: tuple[tuple[str, str], ...] = ()
    """Materialized views it reads that are recomputed when stale (just
    before it runs)."""
    after_insert: AfterInsert | None = None
    """INSERT: work that follows it in the same transaction."""
    bindings: int = 0
    """How many parameter values SQLite binds: up to the highest one used."""
    access: tuple[Access, ...] = ()
    """What the running role needs (checked each time the plan runs)."""
    slots: tuple[Slot, ...] = ()
    """Values bound after the ``bindings`` parameters (numbered on from them)."""
    values_row: ValuesRow | None = None
    """Set for an INSERT whose rows a many-row run may insert a group at a
    time: one row of parameters into a table, nothing else computed."""
    engine_calls: frozenset[str] = frozenset()
    """The functions it calls that act on the running engine
    (``FunctionDef.changes_engine``)."""
    snapshot_reads: bool = False
    """A query whose rows past the first chunk may be read from a snapshot
    by a forked child (``sqlext.session.snapshot_rows``): it leaves the
    engine as it found it."""
    command: str | None = None
    """What a read-only transaction says it cannot execute, when that is not
    the verb: a query calling a function that changes state
    (``sqlext_hold_stream()``)."""

    def bound(self, args: Sequence[Any]) -> Sequence[Any]:
        """The values to bind of ``args`` (one per declared parameter)."""
        return args if len(args) == self.bindings else args[:self.bindings]


@dataclass(frozen=True, slots=True)
class UtilityPlan:
    """Anything that is not plain SQL for SQLite: DDL, transaction control,
    SET/SHOW, cursors, COPY. ``action`` names the operation and ``args`` holds
    its already-validated arguments."""

    action: str
    args: dict[str, Any] = field(default_factory=dict)
    params: tuple[ParamType, ...] = ()
    columns: tuple[OutputColumn, ...] | None = None
    writes: bool = False
