"""Statements the session handles itself: transaction control, settings,
SQL-level cursors and prepared statements, maintenance no-ops.

``run`` dispatches on the statement's class, one small method per kind.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from catalog import errors
from catalog import types as t
from executor.notifications import check_channel, notification
from sqlext.dataflow.explain import explain_dataflow
from sqlext.session.copy_out import copy_to_stdout
from sqlext.session.copy_stdio import copy_from_stdin, copy_kind
from sqlext.session.cursor_motion import CursorMotion
from sqlext.session.locks import lock_privileges, lockable_relation
from sqlext.session.portals import Portal, Prepared, keep_rows, row_encoder
from sqlext.sql import nodes as x
from sqlext.sql import settings as config
from sqlext.translate.type_names import resolve_type
from wire.backend import Command, Outcome, Rows
from wire.messages import data_row

if TYPE_CHECKING:
    from sqlext.session.engine_session import EngineSession

Handler = Callable[["Utilities", "EngineSession", Portal, x.UtilityStatement, int], Outcome]


class Utilities:
    """Executes utility statements for sessions (stateless itself)."""

    def run(self, session: EngineSession, portal: Portal, statement: x.UtilityStatement,
            max_rows: int) -> Outcome:
        handler = _HANDLERS.get(type(statement))
        if handler is None:
            raise errors.FeatureNotSupported(f"{statement.key.upper()} is not supported")
        return handler(self, session, portal, statement, max_rows)

    def _call(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
              max_rows: int) -> Outcome:
        session.call_procedure(portal)
        return Command("CALL")

    def _resume(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                max_rows: int) -> Outcome:
        target = node.this
        catalog = session.executor.working_catalog(session.token)
        procedure = catalog.find_procedure(target.name, target.db or None, session.search_path)
        if procedure is None:
            raise errors.UndefinedFunction(f"procedure {target.name}() does not exist")
        if not session.host.scheduler.resume((procedure.schema, procedure.name)):
            session.notice(f"procedure {procedure.name} is not stopped")
        return Command("ALTER PROCEDURE")

    def _lock(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
              max_rows: int) -> Outcome:
        """LOCK TABLE: the transaction takes the executor until it ends, which
        holds off every other transaction as the strongest lock would."""
        if session.block is None and not session.implicit:
            raise errors.NoActiveSqlTransaction(
                "LOCK TABLE can only be used in transaction blocks")
        catalog = session.executor.working_catalog(session.token)
        for table in node.expressions:
            relation = lockable_relation(catalog, table, session.search_path)
            if not any(catalog.holds(session.user, relation.owner, relation.acl, "relation",
                                     letter) for letter in lock_privileges(node.args["mode"])):
                raise errors.InsufficientPrivilege(
                    f"permission denied for {relation.kind_name} {relation.name}")
            executor = session.executor
            if node.args.get("nowait") and executor.owner is not None and not executor.owns(
                    session.token):
                raise errors.LockNotAvailable(
                    f'could not obtain lock on relation "{relation.name}"')
        session.acquire(False, lock=True)
        return Command("LOCK TABLE")

    def _begin(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
               max_rows: int) -> Outcome:
        session.begin(node.args.get("isolation"), node.args.get("read_only"))
        return Command("BEGIN")

    def _commit(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                max_rows: int) -> Outcome:
        return Command(session.commit())

    def _rollback(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                  max_rows: int) -> Outcome:
        session.rollback()
        return Command("ROLLBACK")

    def _prepare_transaction(self, session: EngineSession, portal: Portal,
                             node: x.UtilityStatement, max_rows: int) -> Outcome:
        """Two-phase commit is off, as with PostgreSQL's default
        max_prepared_transactions = 0: the transaction rolls back."""
        active = session.block is not None and not session.failed
        session.rollback()  # outside a block: PostgreSQL's 25P01 warning
        if active:
            raise errors.ObjectNotInPrerequisiteState(
                "prepared transactions are disabled",
                hint="Set max_prepared_transactions to a nonzero value.")
        return Command("ROLLBACK")

    def _finish_prepared(self, session: EngineSession, portal: Portal,
                         node: x.UtilityStatement, max_rows: int) -> Outcome:
        if session.block is not None:
            verb = "COMMIT" if node.args["commit"] else "ROLLBACK"
            raise errors.ActiveSqlTransaction(
                f"{verb} PREPARED cannot run inside a transaction block")
        raise errors.UndefinedObject(
            f'prepared transaction with identifier "{node.name}" does not exist')

    def _savepoint(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                   max_rows: int) -> Outcome:
        session.savepoint(node.name)
        return Command("SAVEPOINT")

    def _release(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                 max_rows: int) -> Outcome:
        session.release_savepoint(node.name)
        return Command("RELEASE")

    def _rollback_to(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                     max_rows: int) -> Outcome:
        session.rollback_to_savepoint(node.name)
        return Command("ROLLBACK")

    def _set(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
             max_rows: int) -> Outcome:
        values = [value.name for value in node.expressions]
        session.set_parameter(node.name, values, bool(node.args.get("local")))
        return Command("SET")

    def _set_transaction(self, session: EngineSession, portal: Portal,
                         node: x.UtilityStatement, max_rows: int) -> Outcome:
        isolation = node.args.get("isolation")
        read_only = node.args.get("read_only")
        snapshot = node.args.get("snapshot")
        if snapshot is not None:
            session.import_snapshot(snapshot)
        elif node.args.get("session"):
            if isolation:
                session.set_parameter("default_transaction_isolation", [isolation], False)
            if read_only is not None:
                session.set_parameter("default_transaction_read_only",
                                      ["on" if read_only else "off"], False)
        elif session.block is None:
            session.notice("SET TRANSACTION can only be used in transaction blocks", "25P01",
                           "WARNING")
        else:
            if isolation and session.block.snapshot is not None:
                raise errors.ActiveSqlTransaction(
                    "SET TRANSACTION ISOLATION LEVEL must be called before any query")
            if isolation:
                session.block.isolation = isolation
            if read_only is not None:
                session.block.read_only = bool(read_only)
        return Command("SET")

    def _reset(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
               max_rows: int) -> Outcome:
        name = node.name
        if name.lower() == "all":
            for key, parameter in config.PARAMETERS.items():
                if not parameter.read_only and session.settings.get(key) != parameter.default:
                    session.set_parameter(key, [], False)
        else:
            if config.lookup(name) is None and "." not in name:
                raise config.unknown(name)
            session.set_parameter(name, [], False)
        return Command("RESET")

    def _show(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
              max_rows: int) -> Outcome:
        name = node.name
        if name == "all":
            rows = [data_row([key.encode(), session.show(key).encode(),
                              (parameter.description or "").encode()])
                    for key, parameter in sorted(config.PARAMETERS.items())]
            return Rows(rows, f"SHOW {len(rows)}")
        return Rows([data_row([session.show(name).encode()])], "SHOW")

    def _explain_matview(self, session: EngineSession, portal: Portal,
                         node: x.UtilityStatement, max_rows: int) -> Outcome:
        target = node.this
        catalog = session.executor.working_catalog(session.token)
        relation = catalog.relation(target.name, target.db or None, session.search_path)
        if relation.matview is None:
            raise errors.WrongObjectType(f'"{relation.name}" is not a materialized view')
        rows = [data_row([line.encode()]) for line in relation.matview.plan]
        return Rows(rows, "EXPLAIN")

    def _explain_dataflow(self, session: EngineSession, portal: Portal,
                          node: x.UtilityStatement, max_rows: int) -> Outcome:
        assert isinstance(node, x.ExplainDataflow)
        session.acquire(False)  # the counts read committed tables
        lines = explain_dataflow(node, session.executor.working_catalog(session.token),
                                 session.search_path, session.executor,
                                 session.host.scheduler)
        return Rows([data_row([line.encode()]) for line in lines], "EXPLAIN")

    def _discard(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                 max_rows: int) -> Outcome:
        what = node.name.upper()
        if what == "ALL":
            if session.block is not None:
                raise errors.ActiveSqlTransaction(
                    "DISCARD ALL cannot run inside a transaction block")
            for name in list(session.portals):
                session.close_portal(name)
            session.statements = {k: v for k, v in session.statements.items() if k == ""}
            session.set_parameter("session_authorization", [], False)
            self._reset(session, portal, x.Reset(this="all"), max_rows)
        return Command(f"DISCARD {what}")

    def _maintenance(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                     max_rows: int) -> Outcome:
        if node.this == "CHECKPOINT":
            session.checkpoint()
        return Command(str(node.this))

    # --- LISTEN / NOTIFY -----------------------------------------------------------

    def _listen(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                max_rows: int) -> Outcome:
        session.announce_listen(True, check_channel(node.name))
        return Command("LISTEN")

    def _unlisten(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                  max_rows: int) -> Outcome:
        session.announce_listen(False, None if node.this is None else node.name)
        return Command("UNLISTEN")

    def _notify(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                max_rows: int) -> Outcome:
        session.executor.add_notification(session.token, notification(
            node.name, node.args.get("payload")))
        return Command("NOTIFY")

    # --- cursors ----------------------------------------------------------------

    def _declare(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                 max_rows: int) -> Outcome:
        name = node.name
        hold = bool(node.args.get("hold"))
        if session.block is None and not hold and not session.implicit:
            raise errors.NoActiveSqlTransaction(
                "DECLARE CURSOR can only be used in transaction blocks")
        if name in session.portals:
            raise errors.DuplicateCursor(f'cursor "{name}" already exists')
        query = node.expression
        prepared = Prepared(portal.prepared.sql, portal.prepared.index, query,
                            portal.prepared.declared, part="cursor")
        compiled = session.compiled(prepared)
        assert compiled is not None and compiled.plan is not None
        columns = compiled.columns
        formats = [1 if node.args.get("binary") else 0] * (len(columns) if columns else 0)
        cursor_portal = Portal(
            prepared, compiled, portal.params, formats,
            row_encoder(columns, formats, session.codec_settings) if columns else None,
            columns, holdable=hold, motion=CursorMotion(bool(node.args.get("scroll"))))
        session.portals[name] = cursor_portal
        return Command("DECLARE CURSOR")

    def _fetch(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
               max_rows: int) -> Outcome:
        name = node.name
        cursor = session.portals.get(name)
        if cursor is None:
            raise errors.InvalidCursorName(f'cursor "{name}" does not exist')
        if cursor.motion is None:
            # a protocol-level portal (asyncpg's cursors MOVE them) is a NO
            # SCROLL cursor; positions count from the first FETCH or MOVE
            cursor.motion = CursorMotion(False)

        def read(count: int | None) -> list[Any]:
            outcome = session.run_portal(cursor, count or 0, "SELECT", keep_rows)
            if not isinstance(outcome, Rows):
                return []
            rows = list(chain.from_iterable(outcome.rows))
            if outcome.finish is not None:
                outcome.finish()
            return rows

        move = bool(node.args.get("move"))
        rows, count = cursor.motion.fetch(node.args.get("direction") or "forward",
                                          node.args.get("count"), read, move)
        # The FETCH statement's own portal describes the cursor's columns.
        portal.columns = cursor.columns
        portal.formats = cursor.formats
        if move:
            return Command(f"MOVE {count}")
        assert cursor.encode is not None
        return Rows([cursor.encode(rows)], f"FETCH {count}")

    def _close(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
               max_rows: int) -> Outcome:
        if node.this is None:
            for name in [n for n in session.portals if n]:
                session.close_portal(name)
            return Command("CLOSE CURSOR ALL")
        if node.name not in session.portals:
            raise errors.InvalidCursorName(f'cursor "{node.name}" does not exist')
        session.close_portal(node.name)
        return Command("CLOSE CURSOR")

    # --- prepared statements -----------------------------------------------------------

    def _prepare(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                 max_rows: int) -> Outcome:
        name = node.name
        if name in session.statements:
            raise errors.DuplicatePreparedStatement(
                f'prepared statement "{name}" already exists')
        declared = tuple(resolve_type(kind).oid for kind in node.args.get("types") or [])
        inner = node.expression
        if inner is None:
            raise errors.SqlSyntaxError("syntax error at end of input")
        prepared = Prepared(inner.sql(dialect="sqlext"), 0, inner, declared)
        session.compiled(prepared)
        session.statements[name] = prepared
        return Command("PREPARE")

    def _execute(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                 max_rows: int) -> Outcome:
        prepared = session.statements.get(node.name)
        if prepared is None or prepared.statement is None:
            raise errors.InvalidSqlStatementName(
                f'prepared statement "{node.name}" does not exist')
        arguments = list(node.expressions)
        statement = prepared.statement.copy()
        for parameter in list(statement.find_all(exp.Parameter)):
            index = int(parameter.name) - 1
            if index >= len(arguments):
                raise errors.UndefinedParameter(f"there is no parameter ${index + 1}")
            argument = arguments[index].copy()
            if index < len(prepared.declared) and prepared.declared[index]:
                argument = exp.Cast(this=argument, to=exp.DataType.build(
                    t.TYPES[prepared.declared[index]].name, dialect="postgres"))
            parameter.replace(argument)
        inner = Prepared(statement.sql(dialect="sqlext"), 0, statement, ())
        bound = session.bind_prepared(inner, [], [], [], node.name)
        portal.columns = bound.columns
        portal.formats = bound.formats
        return session.execute_portal(bound, max_rows)

    def _deallocate(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
                    max_rows: int) -> Outcome:
        if node.this is None:
            session.statements = {k: v for k, v in session.statements.items() if k == ""}
            return Command("DEALLOCATE ALL")
        if node.name not in session.statements:
            raise errors.InvalidSqlStatementName(
                f'prepared statement "{node.name}" does not exist')
        del session.statements[node.name]
        return Command("DEALLOCATE")

    def _copy(self, session: EngineSession, portal: Portal, node: x.UtilityStatement,
              max_rows: int) -> Outcome:
        assert isinstance(node, x.CopyStatement)
        if node.args.get("target") is not None:
            # server files need Arrow, whose import (~0.1 s) most servers never pay
            from sqlext.session.copy_files import copy_file

            return copy_file(session, node)
        if copy_kind(node.args.get("options") or {}) == "arrow":
            from sqlext.session import copy_arrow

            return (copy_arrow.arrow_to_stdout(session, node) if node.args.get("to")
                    else copy_arrow.arrow_from_stdin(session, node))
        if node.args.get("to"):
            return copy_to_stdout(session, node)
        return copy_from_stdin(session, node)


_HANDLERS: dict[type, Handler] = {
    x.Call: Utilities._call,
    x.LockTable: Utilities._lock,
    x.ResumeProcedure: Utilities._resume,
    x.Begin: Utilities._begin,
    x.CommitTransaction: Utilities._commit,
    x.RollbackTransaction: Utilities._rollback,
    x.PrepareTransaction: Utilities._prepare_transaction,
    x.FinishPrepared: Utilities._finish_prepared,
    x.Savepoint: Utilities._savepoint,
    x.ReleaseSavepoint: Utilities._release,
    x.RollbackToSavepoint: Utilities._rollback_to,
    x.SetVariable: Utilities._set,
    x.SetTransaction: Utilities._set_transaction,
    x.Reset: Utilities._reset,
    x.Show: Utilities._show,
    x.ExplainMatview: Utilities._explain_matview,
    x.ExplainDataflow: Utilities._explain_dataflow,
    x.Discard: Utilities._discard,
    x.Maintenance: Utilities._maintenance,
    x.DeclareCursor: Utilities._declare,
    x.Fetch: Utilities._fetch,
    x.CloseCursor: Utilities._close,
    x.Prepare: Utilities._prepare,
    x.ExecutePrepared: Utilities._execute,
    x.Deallocate: Utilities._deallocate,
    x.CopyStatement: Utilities._copy,
    x.Listen: Utilities._listen,
    x.Unlisten: Utilities._unlisten,
    x.Notify: Utilities._notify,
}
