"""Running procedure bodies and EE triggers.

Used by sessions (CALL, and the EE triggers after an INSERT) and by the
scheduler (a PE-triggered procedure's transaction execution). Everything
runs inside the transaction that is already open: a procedure that CALLs
another runs it in that same transaction, so the whole call tree commits or
aborts as one. Statements compile once per body, catalog version and
binding (the compile cache), never per call.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final, NamedTuple

from sqlglot import exp

from catalog import errors
from catalog.dataflow import Procedure, Trigger
from catalog.schema import PUBLIC, Catalog
from executor.batches import delete_batch
from executor.codecs import DEFAULT as DEFAULT_SETTINGS
from executor.context import StatementContext
from executor.core import Executor, Token
from executor.notifications import notification
from executor.plans import SqlPlan
from executor.streaming.scheduler import Task
from executor.streaming.windows import Windows
from sqlext.compile import python_procedures
from sqlext.compile.bodies import BODY_STATEMENTS
from sqlext.compile.compiler import (
    CompileContext,
    Compiled,
    compile_statement,
    procedure_context,
)
from sqlext.sql import nodes as x
from sqlext.sql.parse import parse
from storage import sqlite

MAX_DEPTH: Final = 32
"""Nested CALLs and triggers firing triggers stop here (runaway recursion)."""


Step = tuple[exp.Expression, Compiled | None]
"""A body statement and what it compiled to (None: NOTIFY, run as it is)."""


class TaskPlan(NamedTuple):
    """What a transaction execution of one procedure on one stream runs,
    compiled once per catalog version."""

    context: CompileContext
    """How the body compiles: the stream's name denotes the batch."""
    defaults: SqlPlan | None
    """The values of the procedure's parameters (a trigger passes none, so
    each takes its default)."""
    steps: tuple[Step, ...]


class DataflowRuntime:
    def __init__(self, executor: Executor, windows: Windows) -> None:
        self.executor = executor
        self.windows = windows
        self.fired: Counter[int] = Counter()
        """EE and AFTER SLIDE trigger OID -> times its statements ran
        (rolled-back runs included), for sqlext_triggers."""
        self._depth = 0
        self._version = -1
        """The catalog version the compiled bodies and task plans are for."""
        self._bodies: dict[tuple[object, ...], tuple[Step, ...]] = {}
        self._tasks: dict[tuple[int, int], TaskPlan] = {}
        """(procedure OID, stream OID) -> its TE's plan."""

    # --- entry points -----------------------------------------------------------------

    def call(self, procedure: Procedure, args: Sequence[Any], context: CompileContext,
             token: Token) -> None:
        """Run ``procedure`` with argument values (storage form) in the open
        transaction."""
        inner = procedure_context(context, procedure.params)
        self._invoke(procedure, args, inner, self._procedure_steps(procedure, inner), token)

    def _invoke(self, procedure: Procedure, args: Sequence[Any], inner: CompileContext,
                steps: tuple[Step, ...], token: Token) -> None:
        """The running role needs EXECUTE on the procedure; its statements
        (``steps``, compiled in ``inner``) then run with its owner's
        privileges (like SECURITY DEFINER)."""
        statement = self.executor.context
        statement.catalog.require_execute(statement.user, procedure)
        self._enter(f"procedure {procedure.name}")
        caller, statement.user = statement.user, procedure.owner
        try:
            if procedure.language == "python":
                self._run_python(procedure, args, inner, token)
            else:
                self._run_steps(steps, args, inner, token)
        finally:
            statement.user = caller
            self._depth -= 1

    def after_insert(self, plan: SqlPlan, count: int, context: CompileContext,
                     token: Token) -> None:
        """What an INSERT that stored ``count`` rows sets off (see
        ``AfterInsert``): windows slide, EE triggers run, consumed batches go."""
        after = plan.after_insert
        if after is None or count == 0:
            return
        catalog = context.catalog
        body_context = CompileContext(catalog, context.search_path, context.settings)
        for key in after.windows:
            self.windows.place(catalog.relations[key], count, lambda window: self._run_triggers(
                [t for t in catalog.triggers_on(window) if t.event == "slide"], body_context,
                token))
        self._run_triggers([catalog.triggers[key] for key in after.triggers], body_context,
                           token)
        if after.consumed:
            # Only windows and EE triggers consume this stream: its batch is
            # gone once they have run (as in S-Store), unless a reader holds it.
            target = catalog.relations[after.target]
            batch = self.executor.batches.batch_for(target.oid)
            if not self.executor.readers.holds(target.oid, batch):
                delete_batch(self.executor.database, target, batch)

    def _run_triggers(self, triggers: Sequence[Trigger], context: CompileContext,
                      token: Token) -> None:
        """EE triggers (they have a body), in order, with the privileges of
        the owner of the relation they fire on; their names are looked up on
        the search path, then in the trigger's schema and public (as when it
        was made)."""
        statement = self.executor.context
        for trigger in triggers:
            assert trigger.body is not None
            self._enter(f"trigger {trigger.name}")
            self.fired[trigger.oid] += 1
            caller, statement.user = statement.user, context.catalog.relations[
                trigger.target].owner
            path = tuple(dict.fromkeys((*context.search_path, trigger.schema, PUBLIC)))
            body_context = replace(context, search_path=path)
            try:
                self._run_steps(self._steps(trigger.body, (), body_context), (), body_context,
                                token)
            finally:
                statement.user = caller
                self._depth -= 1

    def run_task(self, task: Task, token: Token) -> None:
        """The scheduler's TE: the procedure for one batch, its stream's name
        bound to that batch. Its statements were compiled when the first TE
        of the procedure on this stream ran (``TaskPlan``)."""
        executor = self.executor
        catalog = executor.catalog
        procedure = catalog.procedures.get(task.procedure)
        if procedure is None:
            return  # dropped while the batch waited
        now = executor.clock()
        executor.begin_statement(token, StatementContext(
            transaction_start=now, statement_start=now, catalog=catalog))
        try:
            plan = self._task_plan(procedure, task.stream_oid, catalog)
            args = self.arguments(plan.defaults, (), token) if plan.defaults else []
            self._invoke(procedure, args, plan.context, plan.steps, token)
        finally:
            executor.end_statement()

    def _task_plan(self, procedure: Procedure, stream_oid: int, catalog: Catalog) -> TaskPlan:
        self._current(catalog)
        key = (procedure.oid, stream_oid)
        plan = self._tasks.get(key)
        if plan is None:
            # A triggered procedure finds names in its own schema first.
            search_path = tuple(dict.fromkeys((procedure.schema, PUBLIC)))
            context = CompileContext(catalog, search_path, DEFAULT_SETTINGS,
                                     batch_streams=frozenset({stream_oid}))
            defaults = None
            if procedure.params:
                call = compile_statement(
                    x.Call(this=exp.to_table(procedure.name, db=procedure.schema)), context,
                    (), (procedure.body, -1, f"defaults of {procedure.schema}.{procedure.name}"))
                assert call.call is not None
                defaults = call.call.arguments
            inner = procedure_context(context, procedure.params)
            plan = self._tasks[key] = TaskPlan(inner, defaults,
                                               self._procedure_steps(procedure, inner))
        return plan

    def _current(self, catalog: Catalog) -> None:
        """Compiled bodies are for one catalog version: a new one drops them."""
        if catalog.version != self._version:
            self._version = catalog.version
            self._bodies.clear()
            self._tasks.clear()

    # --- running statements -------------------------------------------------------------

    def _enter(self, what: str) -> None:
        """One level deeper (the caller leaves it in a ``finally``); past
        MAX_DEPTH, an error, and the levels already entered unwind as usual."""
        if self._depth >= MAX_DEPTH:
            raise errors.ProgramLimitExceeded(
                f"{what} is nested more than {MAX_DEPTH} levels deep",
                hint="A procedure or trigger probably calls or fires itself.")
        self._depth += 1

    def _procedure_steps(self, procedure: Procedure, inner: CompileContext
                         ) -> tuple[Step, ...]:
        """A SQL procedure's compiled body (a Python one runs its own code)."""
        if procedure.language == "python":
            return ()
        return self._steps(procedure.body, tuple(p.type_oid for p in procedure.params), inner)

    def _steps(self, body: str, param_oids: tuple[int, ...],
               context: CompileContext) -> tuple[Step, ...]:
        """A body's statements, compiled once per catalog version and context."""
        self._current(context.catalog)
        key = (body, param_oids, context.search_path, context.settings, context.param_names,
               context.batch_streams, context.params_decoded)
        steps = self._bodies.get(key)
        if steps is None:
            steps = self._bodies[key] = tuple(
                (statement, None if isinstance(statement, x.Notify) else
                 compile_statement(statement, context, param_oids, (body, index, "")))
                for index, statement in enumerate(parse(body).statements))
        return steps

    def _run_steps(self, steps: tuple[Step, ...], args: Sequence[Any],
                   context: CompileContext, token: Token) -> None:
        for statement, compiled in steps:
            self._run_compiled(statement, compiled, args, context, token)

    def _run_compiled(self, statement: exp.Expression, compiled: Compiled | None,
                      args: Sequence[Any], context: CompileContext,
                      token: Token) -> list[tuple[Any, ...]]:
        if compiled is None:
            assert isinstance(statement, x.Notify)
            self.executor.add_notification(token, notification(
                statement.name, statement.args.get("payload")))
            return []
        if compiled.call is not None:
            values = self.arguments(compiled.call.arguments, args, token)
            self.call(compiled.call.procedure, values, context, token)
            return []
        if compiled.plan is None:
            raise errors.FeatureNotSupported(
                f"{statement.key.upper()} is not allowed in a procedure")
        plan = compiled.plan
        executor = self.executor
        try:
            cursor = executor.run_plan(plan, args)
            rows = cursor.fetchall() if plan.columns is not None else []
        except sqlite.Error as exc:
            raise executor.translate_error(exc, token, plan.target, plan.tag) from exc
        self.after_insert(plan, len(rows) if plan.columns is not None else cursor.rowcount,
                          context, token)
        return rows

    def _run_python(self, procedure: Procedure, args: Sequence[Any], context: CompileContext,
                    token: Token) -> None:
        def sql(text: str, *params: Any) -> list[tuple[Any, ...]]:
            statements = parse(text).statements
            if len(statements) != 1 or not isinstance(statements[0], BODY_STATEMENTS):
                raise errors.SqlSyntaxError(
                    "sql() runs exactly one SELECT, INSERT, UPDATE, DELETE, CALL or NOTIFY")
            statement = statements[0]
            if isinstance(statement, x.Notify):
                return self._run_compiled(statement, None, params, context, token)
            compiled = compile_statement(statement, context, (), (text, 0, "python"))
            stored = [python_procedures.to_storage(value, param.oid, param.typmod)
                      for value, param in zip(params, compiled.params, strict=False)]
            rows = self._run_compiled(statement, compiled, stored, context, token)
            columns = compiled.columns or ()
            return [tuple(python_procedures.from_storage(value, column.type_oid, column.typmod)
                          for value, column in zip(row, columns, strict=False)) for row in rows]

        def notice(message: object) -> None:
            self.executor.context.notices.append(str(message))

        python_procedures.run(procedure, args, sql, notice)

    def arguments(self, plan: SqlPlan | None, args: Sequence[Any], token: Token) -> list[Any]:
        """The values of a CALL's arguments (``args``: the values of the
        parameters the argument expressions use)."""
        if plan is None:
            return []
        executor = self.executor
        try:
            row = executor.run_plan(plan, args).fetchone()
        except sqlite.Error as exc:
            raise executor.translate_error(exc, token) from exc
        return list(row)
