"""Pipelined executions of one prepared DML statement, run as one batch.

pgjdbc's ``executeBatch`` (so every Spark JDBC write) and psycopg's
``executemany`` send, before one Sync, a Bind [Describe] Execute of the same
statement for every row of parameters. Through the general path each costs
a chain of Python calls. A batch decodes the parameters a column at a time
and runs the SQLite statement row after row in one statement context, and
the client gets what the rows would have given one by one: the same
replies, the error of the row that failed after the rows before it ran, the
same transaction state (the connection handles an error as for any Execute).

Only plain DML takes this path: INSERT, UPDATE or DELETE of tables, without
RETURNING and without work after the statement (a stream's windows and EE
triggers run once per INSERT statement). A row that raises a notice (a
re-delivered stream batch is skipped with one) ends the batch after it, so
the notice goes out just before that row's CommandComplete; the rows after
it are handled one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from typing import Any, Protocol

from catalog import errors
from catalog.schema import Catalog
from executor import codecs
from executor.context import StatementContext
from executor.core import Executor, Token
from executor.plans import ParamType, SqlPlan
from sqlext.compile.compiler import Compiled
from sqlext.session.copy_binary import binary_size
from sqlext.session.portals import (
    Portal,
    Prepared,
    command_tag,
    decode_param_rows,
    expand_formats,
)
from storage import sqlite
from wire.backend import BackendError, BatchOutcome
from wire.column_rows import ColumnRows


class BatchSession(Protocol):
    """What a batch uses of the session (``engine_session.EngineSession``)."""

    executor: Executor
    token: Token
    statements: dict[str, Prepared]
    portals: dict[str, Portal]
    failed: bool
    implicit: bool
    codec_settings: codecs.Settings
    statement_timeout_ms: int

    def compiled(self, prepared: Prepared) -> Compiled | None: ...

    def touch(self) -> None: ...

    def working_on(self, sql: str) -> None: ...

    def acquire(self, writes: bool, observes: bool = False, command: str = "this statement",
                lock: bool = False) -> None: ...

    def statement_context(self) -> StatementContext: ...

    def note(self, prepared: Prepared, params: Sequence[Any], many: bool = False) -> None: ...

    def take_statement_notices(self, context: StatementContext) -> None: ...

    def done_portal(self, prepared: Prepared, compiled: Compiled, values: list[Any]
                    ) -> Portal: ...

    def backend_error(self, exc: errors.SqlError) -> BackendError: ...


BATCH_VERBS = frozenset({"INSERT", "UPDATE", "DELETE"})


def batch_plan(session: BatchSession, prepared: Prepared) -> SqlPlan | None:
    """The plan of ``prepared`` if its executions may run as one batch now."""
    if prepared.statement is None or session.failed:
        return None
    try:
        compiled = session.compiled(prepared)
    except errors.SqlError:
        return None  # reported when its Bind runs on the general path
    plan = compiled.plan if compiled is not None else None
    if (plan is None or plan.tag not in BATCH_VERBS or plan.columns is not None
            or plan.after_insert is not None or plan.refresh or plan.recompute
            or not _all_tables(session.executor.catalog, plan)):
        return None
    return plan


def _all_tables(catalog: Catalog, plan: SqlPlan) -> bool:
    """Every relation the plan names is a table: a view's INSTEAD OF rules
    (``sqlext.dataflow``) act once per statement, as the general path runs them."""
    relations = catalog.relations
    return all(access.relation in relations and relations[access.relation].kind == "r"
               for access in plan.access)


def fixed_sizes(params: Sequence[ParamType], param_formats: Sequence[int]
                ) -> list[int | None]:
    """The size of each parameter's value sent in ``param_formats`` where its
    type's binary form always has one (None: text, or any size)."""
    try:
        binary = expand_formats(param_formats, len(params), "parameter")
    except errors.SqlError:
        return [None] * len(params)  # the Binds' error comes with the batch
    return [binary_size(param.oid) if code else None
            for param, code in zip(params, binary, strict=True)]


def execute_batch(session: BatchSession, statement: str, param_formats: Sequence[int],
                  rows: ColumnRows, result_formats: Sequence[int]
                  ) -> BatchOutcome | None:
    """Run ``statement`` once per row of parameters (see the module); None
    when it cannot run as a batch now, having changed nothing."""
    prepared = session.statements.get(statement)
    if prepared is None:
        return None
    plan = batch_plan(session, prepared)
    compiled = prepared.compiled
    if plan is None or compiled is None:
        return None
    try:
        expand_formats(result_formats, 0, "result")
    except errors.SqlError:
        return None
    values, bind_error = decode_param_rows(plan.params, param_formats, rows,
                                           session.codec_settings, statement)
    session.touch()
    session.implicit = True
    session.working_on(prepared.sql)
    if values:
        try:
            session.acquire(plan.writes, plan.observes, plan.command or plan.tag)
        except errors.SqlError as exc:
            return BatchOutcome([], session.backend_error(exc))
    tags, error = _run(session, prepared, plan, values)
    if values:
        session.portals[""] = session.done_portal(prepared, compiled, list(values[-1]))
    if error is not None:
        return BatchOutcome(tags, session.backend_error(error))
    if bind_error is not None and len(tags) == len(values):
        return BatchOutcome(tags, session.backend_error(bind_error), failed_bind=True)
    return BatchOutcome(tags)


def _run(session: BatchSession, prepared: Prepared, plan: SqlPlan,
         values: list[tuple[Any, ...]]) -> tuple[list[str], errors.SqlError | None]:
    """The rows' tags, and the error of the row after them if one failed."""
    if not values:
        return [], None
    executor = session.executor
    context = session.statement_context()
    timeout_ms = session.statement_timeout_ms
    # A batch may take as long as its rows may each: it runs over only if
    # one of them would have.
    executor.begin_statement(session.token, context, timeout_ms * len(values))
    tags: list[str] = []
    error: errors.SqlError | None = None
    verb = plan.tag
    known: dict[int, str] = {}
    try:
        for count, times in executor.run_plan_each(plan, values):
            tag = known.get(count)
            if tag is None:
                tag = known[count] = command_tag(verb, count)
            tags += repeat(tag, times)
            if context.notices or context.warnings:
                break
    except sqlite.Error as exc:
        error = executor.translate_error(exc, session.token, plan.target, verb)
    except errors.SqlError as exc:
        error = exc
    finally:
        if tags:
            session.note(prepared, values[:len(tags)], many=True)
        executor.end_statement()
        session.take_statement_notices(context)
    return tags, error
