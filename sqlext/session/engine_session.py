"""One client session: the wire layer's ``Session``, driving the executor.

Transactions, as PostgreSQL clients expect them:

* Outside BEGIN each statement commits on its own, except that the
  statements of one multi-statement Query message, and everything between
  two Syncs of the extended protocol, form one implicit transaction.
* Inside BEGIN ... COMMIT reads run against committed data without holding
  anything (READ COMMITTED); from the first write on, the session owns the
  serial executor until COMMIT or ROLLBACK (see ``executor.core``).
  REPEATABLE READ and SERIALIZABLE transactions own it from their first
  statement, which makes them truly serial.
* After an error inside a block every statement but ROLLBACK fails with
  25P02. An owner that stays idle in its transaction longer than
  ``idle_in_transaction_session_timeout`` is disconnected, because it
  stops everybody else.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

from sqlglot import exp

from catalog import errors
from catalog.dependencies import cascade_notice
from catalog.schema import Catalog
from executor import codecs
from executor.context import StatementContext
from executor.core import Executor, LiveCursor, SequenceKey, Token, WouldBlock
from executor.ddl.access_control import ROLE_SPECS, with_roles_resolved
from executor.ddl.create_extension import ensure_extension
from executor.ddl.dataflow_objects import makes_dataflow
from executor.ddl.dispatch import DdlSpec, apply_as
from executor.functions.snapshot_exports import EXPORT
from executor.notifications import PendingMark
from executor.pg_catalog.tables import CatalogTables
from executor.streaming.scheduler import Scheduler
from sqlext.compile.compiler import CompileContext, Compiled, compile_statement
from sqlext.compile.role_ddl import password_stored
from sqlext.dataflow.runtime import DataflowRuntime
from sqlext.session import snapshot_rows
from sqlext.session.activity import Activity
from sqlext.session.batch import batch_plan, execute_batch, fixed_sizes
from sqlext.session.dataflow_rows import run_definitions
from sqlext.session.executor_wait import ExecutorWait
from sqlext.session.exported_snapshots import Holder, SnapshotHolders
from sqlext.session.identity import NONE, Identity
from sqlext.session.portals import (
    Portal,
    Prepared,
    RowEncoder,
    check_result_shape,
    command_tag,
    decode_params,
    expand_formats,
    fields,
    result_shape,
    row_encoder,
)
from sqlext.sql import nodes as x
from sqlext.sql import settings as config
from sqlext.sql.parse import parse
from sqlext.version import __version__
from storage import sqlite
from wire.backend import (
    BackendError,
    BatchOutcome,
    Busy,
    Command,
    CopyIn,
    CopySink,
    EmptyQuery,
    Outcome,
    PortalDescription,
    Rows,
    StatementDescription,
)
from wire.column_rows import ColumnRows
from wire.messages import Notice

log = logging.getLogger("sqlext")


class StatementLog(Protocol):
    """The command log as a session sees it (``sqlext.durability.journal``)."""

    def statement(self, session: EngineSession, sql: str, index: int,
                  param_oids: Sequence[int], params: Sequence[Any], many: bool,
                  context: StatementContext,
                  origins: tuple[tuple[SequenceKey, int | None], ...]) -> object:
        """What the log keeps of one statement (the executor collects these
        for the transaction's record)."""
        ...

    def barrier(self) -> asyncio.Future[None] | None:
        """Done once everything committed so far is durable (None if it is)."""
        ...


class Checkpoints(Protocol):
    def request(self) -> asyncio.Future[str | None]:
        """A snapshot taken after now; the future gives None once it is on
        disk, or what went wrong."""
        ...


class UtilityRunner(Protocol):
    def run(self, session: EngineSession, portal: Portal, statement: x.UtilityStatement,
            max_rows: int) -> Outcome:
        """Execute a statement the session handles itself (``utilities``)."""
        ...


class SnapshotStatements(Protocol):
    def run(self, session: EngineSession, portal: Portal, holder: Holder, max_rows: int
            ) -> Outcome | None:
        """Execute a statement of a block that imported a snapshot
        (``snapshot_block``); None: it runs in the session as usual."""
        ...


class Listeners(Protocol):
    """Who listens to what (``sqlext.server.notify_hub``)."""

    def expect(self, process_id: int, channel: str) -> None:
        """LISTEN in the session's open block."""
        ...

    def block_ended(self, process_id: int) -> None:
        """Its LISTEN and UNLISTEN took effect or were rolled back."""
        ...

    def listens(self, process_id: int, channel: str) -> bool: ...


class SessionHost(Protocol):
    """What a session needs of the engine that runs it (``sqlext.server.engine``)."""

    @property
    def loop(self) -> asyncio.AbstractEventLoop: ...

    @property
    def executor(self) -> Executor: ...

    @property
    def scheduler(self) -> Scheduler: ...

    @property
    def dataflow(self) -> DataflowRuntime: ...

    @property
    def catalog_tables(self) -> CatalogTables: ...

    @property
    def utilities(self) -> UtilityRunner: ...

    @property
    def snapshot_statements(self) -> SnapshotStatements: ...

    @property
    def notify_hub(self) -> Listeners: ...

    @property
    def copy_dir(self) -> Path | None:
        """The only directory COPY may read or write server files in."""
        ...

    @property
    def statement_log(self) -> StatementLog | None:
        """None: nothing is logged (in-memory mode, or during recovery). It
        does not change while a session lives: sessions open once recovery
        is over, and the log closes after they have."""
        ...

    @property
    def checkpoints(self) -> Checkpoints | None:
        """None: in-memory mode."""
        ...

    @property
    def snapshots(self) -> SnapshotHolders: ...

    def session_closed(self, session: EngineSession) -> None: ...


def _notice(error: errors.SqlError) -> Notice:
    return Notice(error.severity, error.sqlstate, error.message, error.detail, error.hint,
                  error.position, error.schema, error.table, error.column, error.constraint,
                  error.routine)


def _boundary(method: Callable[..., Any]) -> Callable[..., Any]:
    """Turn engine exceptions into what the wire layer understands."""

    def wrapper(self: EngineSession, *args: Any) -> Any:
        try:
            return method(self, *args)
        except errors.SqlError as exc:
            raise self.backend_error(exc) from exc
        except WouldBlock as exc:
            raise Busy(exc.wakeup) from exc

    wrapper.__name__ = method.__name__
    wrapper.__doc__ = method.__doc__
    return wrapper


STREAM_CHUNK = 2000
"""Rows read from a cursor at a time while a result is sent: large enough
that the fixed cost of encoding a chunk column by column (``wire.bulk``)
is small, small enough to stay in the CPU caches."""


class _RowStream:
    """The DataRows of a result, read a chunk at a time as the connection
    sends them (it stops asking while the client does not read); each
    chunk's messages come as one bytes. The rows come from a ``LiveCursor``
    (should another session start writing meanwhile, it reads the rest
    first, so the rows stay those of the statement's snapshot), or from a
    forked reader of a snapshot (``snapshot_rows``), which may not have the
    next chunk yet: then ``more`` raises Busy and the connection asks again
    later, the stream's place kept."""

    def __init__(self, first: bytes, count: int,
                 more: Callable[[], tuple[bytes, int, bool]],
                 done: Callable[[int], str]) -> None:
        self._next: tuple[bytes, int, bool] | None = (first, count, False)
        self._last = False
        self._more = more
        self._done = done
        self._sent = 0

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        if self._next is None:
            if self._last:
                raise StopIteration
            self._next = self._more()
        chunk, count, self._last = self._next
        self._next = None
        self._sent += count
        return chunk

    def finish(self) -> str:
        return self._done(self._sent)


class _ReportingSink:
    """COPY FROM STDIN as the connection sees it: bad data is an error of the
    statement (an ErrorResponse), not of the connection."""

    def __init__(self, session: EngineSession, sink: CopySink) -> None:
        self._session = session
        self._sink = sink

    def write(self, data: bytes) -> None:
        self._session.copy_write(self._sink, data)

    def finish(self) -> str:
        return str(self._session.copy_finish(self._sink))

    def abort(self, message: str) -> None:
        self._sink.abort(message)


@dataclass(frozen=True, slots=True)
class _SettingsState:
    """The settings and identity of a session at one moment, with what SET
    LOCAL is to restore: what a ROLLBACK (TO SAVEPOINT) brings back, as
    settings are transactional in PostgreSQL."""

    settings: dict[str, str]
    identity: Identity
    local_settings: dict[str, str | None]
    local_identity: Identity | None


class _Block:
    """An explicit transaction block (BEGIN ... COMMIT)."""

    __slots__ = ("isolation", "local_identity", "local_settings", "queried", "read_only",
                 "savepoints", "settings_at", "snapshot", "started")

    def __init__(self, isolation: str, read_only: bool) -> None:
        self.isolation = isolation
        self.read_only = read_only
        self.savepoints: list[tuple[str, PendingMark]] = []
        """Savepoints made before the block owned the executor, with where
        the transaction's announcements (NOTIFY, LISTEN) stood."""
        self.settings_at: list[tuple[str, _SettingsState]] = []
        """Every savepoint (newest last) with the settings when it was made."""
        self.local_settings: dict[str, str | None] = {}
        """Values to restore at the end of the block (SET LOCAL)."""
        self.local_identity: Identity | None = None
        """The identity to restore at the end of the block (SET LOCAL ROLE)."""
        self.started = datetime.now(UTC)
        self.queried = False
        """A statement other than SET or SHOW ran (SET TRANSACTION SNAPSHOT
        comes too late then)."""
        self.snapshot: Holder | None = None
        """The exported snapshot it imported: it reads nothing else."""


_NOT_QUERIES = (x.Begin, x.SetTransaction, x.SetVariable, x.Reset, x.Show)
"""What may come before SET TRANSACTION SNAPSHOT in a block."""


class EngineSession:
    def __init__(self, host: SessionHost, process_id: int, user: str, database: str,
                 startup: dict[str, str], client: tuple[str, int | None] = ("", None)
                 ) -> None:
        self.host = host
        self.executor = host.executor
        self.statement_log = host.statement_log
        self.process_id = process_id
        self.secret_key = secrets.randbits(31)
        self.token = Token(process_id)
        catalog = host.executor.catalog
        self.identity = Identity.of_login(catalog, user)
        self.user = self.session_user = self.login_user = user
        """The current role, the session user and the login role, by name
        (``_catalog`` follows renames)."""
        self.database = database
        self.settings: dict[str, str] = {
            name: parameter.default for name, parameter in config.PARAMETERS.items()
        }
        self.settings["session_authorization"] = user
        self.settings["sqlext.partition"] = str(host.executor.placement)
        self.settings["is_superuser"] = "on" if catalog.is_superuser(user) else "off"
        self._undo: _SettingsState | None = None
        """The settings when the transaction began, once one changed in it."""
        self._catalog_seen = -1
        """The catalog version names and the search path were found in."""
        self._search_path: tuple[str, ...] = ()
        self._apply_startup(startup)
        self.statements: dict[str, Prepared] = {}
        self.portals: dict[str, Portal] = {}
        self.executor_wait = ExecutorWait(host.loop)
        self.streaming: Portal | None = None
        """The portal whose rows are being sent (a CancelRequest stops it)."""
        self.notices: list[Notice] = []
        self.parameter_changes: list[tuple[str, str]] = []
        self.block: _Block | None = None
        self.failed = False
        self.implicit = False
        self._implicit_started: datetime | None = None
        """When the implicit transaction (statements up to a Sync, or of one
        Query message) began: now() of each of its statements."""
        self._simple: list[Prepared] = []
        self._idle_timer: asyncio.TimerHandle | None = None
        self.on_terminate: Callable[[Notice], None] | None = None
        self.on_notification: Callable[[int, str, str], None] | None = None
        self.current_sql = ""
        """The statement being worked on, or the last one (for the server
        log and pg_stat_activity)."""
        self.logged_environment: object = None
        """What the command log last recorded of this session's user, database
        and settings (the journal's; ``StatementLog.statement``)."""
        self.activity = Activity(client)
        """What pg_stat_activity shows (one attribute: a class whose
        instances have more than 30 lose CPython's fast attribute access)."""
        self._checkpoint: asyncio.Future[str | None] | None = None
        """The snapshot a CHECKPOINT of this session waits for."""
        self.copying: snapshot_rows.ForkedRows | None = None
        """The forked reader whose COPY ... TO STDOUT the client is sent."""
        self._refresh_derived()

    # --- settings -------------------------------------------------------------

    def _apply_startup(self, startup: dict[str, str]) -> None:
        settings = dict(startup)
        settings.update(_command_line_options(settings.pop("options", "")))
        for name, value in settings.items():
            key = config.canonical_name(name)
            if key in ("user", "database", "replication"):
                continue
            parameter = config.lookup(key)
            if parameter is None or parameter.read_only:
                continue
            try:
                self.settings[key] = parameter.check(value)
            except errors.SqlError:
                log.info("ignoring startup parameter %s=%r", name, value)

    def _refresh_derived(self) -> None:
        """Values computed from settings, used on every statement."""
        self.codec_settings = codecs.Settings(
            timezone=self.settings["timezone"],
            extra_float_digits=int(self.settings["extra_float_digits"]),
        )
        path = []
        for part in self.settings["search_path"].split(","):
            name = part.strip().strip('"')
            if name == "$user":
                name = self.user
            if name:
                path.append(name)
        self._path_setting = tuple(path)
        self._catalog_seen = -1  # the search path is to be found anew
        self.statement_timeout_ms = int(self.settings["statement_timeout"])
        self.idle_timeout_ms = int(self.settings["idle_in_transaction_session_timeout"])
        self.settings_view = MappingProxyType(dict(self.settings))

    def _catalog(self) -> Catalog:
        """The catalog the session's statements see. Whenever it changes,
        the names of the session's roles (one may have been renamed) and its
        search path are found anew: the schemas of search_path the current
        role may not use are left out, as PostgreSQL does."""
        catalog = self.executor.working_catalog(self.token)
        if catalog.version == self._catalog_seen:
            return catalog
        self.login_user = catalog.role_name(self.identity.login) or self.login_user
        names = self.identity.names(catalog)
        if names != (self.session_user, self.user):
            self.session_user, self.user = names
            self._refresh_derived()  # $user, and what the command log records
        self._catalog_seen = catalog.version
        self._search_path = tuple(schema for schema in self._path_setting
                                  if schema not in catalog.schemas
                                  or catalog.may_use_schema(self.user, schema))
        return catalog

    @property
    def search_path(self) -> tuple[str, ...]:
        self._catalog()
        return self._search_path

    @property
    def logged_identity(self) -> tuple[str, str]:
        """(session user, current role or 'none'), named as they are now:
        what the command log records of who ran a statement."""
        self._catalog()
        return self.session_user, NONE if self.identity.role is None else self.user

    def _settings_state(self) -> _SettingsState:
        block = self.block
        return _SettingsState(dict(self.settings), self.identity,
                              dict(block.local_settings) if block is not None else {},
                              block.local_identity if block is not None else None)

    def _restore_settings(self, state: _SettingsState) -> None:
        if state == self._settings_state():
            return
        for key, parameter in config.PARAMETERS.items():
            if parameter.reported and self.settings.get(key) != state.settings.get(key):
                self.parameter_changes.append((config.display_name(key), state.settings[key]))
        self.settings = dict(state.settings)
        self.identity = state.identity
        if self.block is not None:
            self.block.local_settings = dict(state.local_settings)
            self.block.local_identity = state.local_identity
        self._catalog_seen = -1
        self._refresh_derived()
        self._catalog()

    def _changing_settings(self) -> None:
        """A setting is about to change: inside a transaction, how they all
        stood when it began is kept for a rollback."""
        if self._undo is None and (self.block is not None or self.implicit):
            self._undo = self._settings_state()

    def _assume(self, identity: Identity, settings: dict[str, str], local: bool) -> None:
        """SET ROLE or SET SESSION AUTHORIZATION: the session is now
        ``identity``; ``settings`` are the parameters that show it."""
        self._changing_settings()
        block = self.block
        if block is not None:
            if local:
                block.local_identity = block.local_identity or self.identity
            else:
                block.local_identity = None
        self.identity = identity
        catalog = self.executor.working_catalog(self.token)
        current = catalog.role_by_oid(identity.current)
        settings["is_superuser"] = "on" if current is not None and current.superuser else "off"
        for key, value in settings.items():
            self._set(key, value, local)
        self._catalog_seen = -1
        self._catalog()

    def _set(self, name: str, value: str | None, local: bool = False) -> None:
        key = config.canonical_name(name)
        self._changing_settings()
        if local and self.block is not None:
            self.block.local_settings.setdefault(key, self.settings.get(key))
        elif not local and self.block is not None and key in self.block.local_settings:
            del self.block.local_settings[key]
        if value is None:
            parameter = config.lookup(key)
            self.settings.pop(key, None) if parameter is None else None
            if parameter is not None:
                value = parameter.default
        if value is not None:
            self.settings[key] = value
        parameter = config.lookup(key)
        if parameter is not None and parameter.reported:
            self.parameter_changes.append((config.display_name(key), self.settings[key]))
        self._refresh_derived()

    # --- wire.backend.Session: status ---------------------------------------------

    def initial_parameters(self) -> list[tuple[str, str]]:
        return [(config.display_name(name), self.settings[name])
                for name in config.STARTUP_REPORT_ORDER]

    def transaction_status(self) -> str:
        if self.failed:
            return "E"
        if self.block is not None:
            return "T"
        return "I"

    def take_notices(self) -> list[Notice]:
        notices, self.notices = self.notices, []
        return notices

    def take_parameter_changes(self) -> list[tuple[str, str]]:
        changes, self.parameter_changes = self.parameter_changes, []
        return changes

    def notice(self, message: str, code: str = "00000", severity: str = "NOTICE",
               detail: str | None = None) -> None:
        self.notices.append(Notice(severity, code, message, detail))

    # --- compiling ------------------------------------------------------------

    def compile_context(self) -> CompileContext:
        catalog = self._catalog()
        return CompileContext(catalog, self._search_path, self.codec_settings, role=self.user)

    def compiled(self, prepared: Prepared) -> Compiled | None:
        """The statement's plan for the current catalog and settings (reused
        while they stay the same, otherwise from the shared plan cache)."""
        if prepared.statement is None:
            return None
        catalog = self._catalog()
        key = (catalog.version, self._search_path, self.codec_settings, self.user)
        if prepared.compiled is not None and prepared.compiled_for == key:
            return prepared.compiled
        context = CompileContext(catalog, self._search_path, self.codec_settings,
                                 role=self.user)
        compiled = compile_statement(prepared.statement, context, prepared.declared,
                                     prepared.source)
        check_result_shape(prepared, compiled)
        prepared.compiled = compiled
        prepared.compiled_for = key
        return compiled

    # --- simple query -----------------------------------------------------------

    @_boundary
    def simple_statements(self, sql: str) -> int:
        self.touch()
        self.working_on(sql)
        parsed = parse(sql)
        self._simple = [Prepared(sql, index, statement, ())
                        for index, statement in enumerate(parsed.statements)]
        self.implicit = len(self._simple) > 1
        return len(self._simple)

    @_boundary
    def run_simple(self, index: int) -> tuple[PortalDescription | None, Outcome]:
        prepared = self._simple[index]
        portal = self.bind_prepared(prepared, [], [], [], "")
        outcome = self.execute_portal(portal, 0)
        return PortalDescription(fields(portal.columns), portal.formats), outcome

    @_boundary
    def end_simple(self) -> None:
        self._simple = []
        self._idle()
        self._end_implicit()

    def abort_simple(self) -> None:
        self._simple = []
        self._idle()
        self._after_error()

    # --- extended query -------------------------------------------------------

    @_boundary
    def parse(self, name: str, sql: str, param_oids: Sequence[int]) -> None:
        self.touch()
        self.implicit = True
        self.working_on(sql)
        if name and name in self.statements:
            raise errors.DuplicatePreparedStatement(
                f'prepared statement "{name}" already exists')
        unnamed = self.statements.get("") if not name else None
        if unnamed is not None and unnamed.sql == sql and unnamed.declared == tuple(param_oids):
            # a pipelined client sends the same Parse for every row: what it
            # decided (and the plan it found) still stands
            if unnamed.statement is not None and not self.failed:
                unnamed.result_shape = None  # a new Parse: the plan may return anything
                unnamed.result_shape = result_shape(self.compiled(unnamed))
            return
        parsed = parse(sql)
        if len(parsed.statements) > 1:
            raise errors.SqlSyntaxError("cannot insert multiple commands into a prepared "
                                        "statement")
        statement = parsed.statements[0] if parsed.statements else None
        prepared = Prepared(sql, 0, statement, tuple(param_oids))
        if statement is not None and not self.failed:
            prepared.result_shape = result_shape(self.compiled(prepared))
        self.statements[name] = prepared

    def _statement(self, name: str) -> Prepared:
        prepared = self.statements.get(name)
        if prepared is None:
            raise errors.InvalidSqlStatementName(f'prepared statement "{name}" does not exist')
        return prepared

    @_boundary
    def bind(self, portal: str, statement: str, param_formats: Sequence[int],
             params: Sequence[bytes | None], result_formats: Sequence[int]) -> None:
        self.touch()
        self.implicit = True
        if portal and portal in self.portals:
            raise errors.DuplicateCursor(f'cursor "{portal}" already exists')
        prepared = self._statement(statement)
        self.portals[portal] = self.bind_prepared(prepared, param_formats, params, result_formats,
                                          statement)

    def bind_prepared(self, prepared: Prepared, param_formats: Sequence[int],
              params: Sequence[bytes | None], result_formats: Sequence[int],
              statement_name: str) -> Portal:
        if self.failed and not _allowed_when_failed(prepared.statement):
            raise _in_failed()
        compiled = self.compiled(prepared)
        if compiled is None:
            return Portal(prepared, None, [], [], None, None)
        values = decode_params(compiled.params, param_formats, params, self.codec_settings,
                               statement_name)
        return self._portal_for(prepared, compiled, values, result_formats)

    def bind_values(self, prepared: Prepared, values: list[Any],
                    result_formats: Sequence[int] = ()) -> Portal:
        """A portal for parameter values already in storage form (recovery
        redoes logged statements, a reader of an exported snapshot runs
        another session's; never empty ones)."""
        compiled = self.compiled(prepared)
        assert compiled is not None
        return self._portal_for(prepared, compiled, values, result_formats)

    def _portal_for(self, prepared: Prepared, compiled: Compiled, values: list[Any],
                    result_formats: Sequence[int]) -> Portal:
        columns = compiled.columns
        formats = expand_formats(result_formats, len(columns) if columns else 0, "result")
        encode = row_encoder(columns, formats, self.codec_settings) if columns else None
        return Portal(prepared, compiled, values, formats, encode, columns)

    def batch_sizes(self, statement: str, param_formats: Sequence[int]
                    ) -> Sequence[int | None] | None:
        prepared = self.statements.get(statement)
        plan = batch_plan(self, prepared) if prepared is not None else None
        return None if plan is None else fixed_sizes(plan.params, param_formats)

    @_boundary
    def execute_batch(self, statement: str, param_formats: Sequence[int],
                      rows: ColumnRows, result_formats: Sequence[int]
                      ) -> BatchOutcome | None:
        return execute_batch(self, statement, param_formats, rows, result_formats)

    def done_portal(self, prepared: Prepared, compiled: Compiled, values: list[Any]) -> Portal:
        """The unnamed portal after a batch: its last row's, executed."""
        portal = self._portal_for(prepared, compiled, values, ())
        portal.started = portal.done = True
        return portal

    def backend_error(self, exc: errors.SqlError) -> BackendError:
        """An engine error as the wire layer reports it, logged as
        PostgreSQL logs failed statements (log_min_error_statement)."""
        log.info("pid %d: %s %s: %s; statement: %s", self.process_id, exc.severity,
                 exc.sqlstate, exc.message, self.current_sql)
        return BackendError(_notice(exc), fatal=exc.severity == "FATAL")

    @_boundary
    def describe_statement(self, name: str) -> StatementDescription:
        prepared = self._statement(name)
        compiled = self.compiled(prepared)
        if compiled is None:
            return StatementDescription([], None)
        return StatementDescription([p.oid for p in compiled.params], fields(compiled.columns))

    @_boundary
    def describe_portal(self, name: str) -> PortalDescription:
        portal = self._portal(name)
        return PortalDescription(fields(portal.columns), portal.formats)

    def _portal(self, name: str) -> Portal:
        portal = self.portals.get(name)
        if portal is None:
            raise errors.InvalidCursorName(f'portal "{name}" does not exist')
        return portal

    @_boundary
    def execute(self, portal: str, max_rows: int) -> Outcome:
        self.touch()
        self.implicit = True
        target = self._portal(portal)
        self.working_on(target.prepared.sql)
        return self.execute_portal(target, max_rows)

    def close_statement(self, name: str) -> None:
        self.statements.pop(name, None)

    def close_portal(self, name: str) -> None:
        portal = self.portals.pop(name, None)
        if portal is not None:
            portal.close()

    @_boundary
    def sync(self) -> None:
        self._idle()
        self._end_implicit()

    def fail_extended(self) -> None:
        self._after_error()

    # --- what pg_stat_activity shows ---------------------------------------------------

    def working_on(self, sql: str) -> None:
        """A command arrived (a repeated call, after waiting, keeps its start)."""
        activity = self.activity
        if not activity.active or sql != self.current_sql:
            self.current_sql = sql
            activity.query_start = activity.state_change = time.time()
            activity.active = True

    def _idle(self) -> None:
        """ReadyForQuery is about to go out."""
        activity = self.activity
        activity.active = False
        activity.state_change = time.time()

    @property
    def checkpointing(self) -> bool:
        """The running command is a CHECKPOINT, waiting for its snapshot."""
        return self._checkpoint is not None

    # --- transaction bookkeeping ---------------------------------------------------

    def touch(self) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None

    def _end_implicit(self) -> None:
        self.implicit = False
        self._implicit_started = None
        if self.block is None:
            self._commit_transaction()
            self._transaction_over(committed=True)
        self._arm_idle_timer()

    def _after_error(self) -> None:
        self.implicit = False
        self._implicit_started = None
        self.streaming = None
        self._stop_copying()
        if self.block is not None:
            self.failed = True
        else:
            self._rollback_transaction()
            self._transaction_over(committed=False)
        self.executor.withdraw(self.token)
        self.token.cancel_requested = False
        self._arm_idle_timer()

    def _statement_done(self) -> None:
        if self.block is None and not self.implicit:
            self._commit_transaction()
            self._transaction_over(committed=True)

    def _transaction_over(self, committed: bool) -> None:
        """The transaction ended: portals die (except WITH HOLD cursors),
        SET LOCAL values are undone, and after a rollback every setting
        changed in it."""
        undo, self._undo = self._undo, None
        if not self.portals and self.block is None and not self.failed and undo is None:
            return
        for name in [n for n, p in self.portals.items() if not p.holdable]:
            self.close_portal(name)
        block, self.block = self.block, None
        self.failed = False
        if block is not None:
            self.host.notify_hub.block_ended(self.process_id)
            if block.snapshot is not None:
                self.host.snapshots.detach(block.snapshot)
        if not committed and undo is not None:
            self._restore_settings(undo)
            return
        if block is not None and block.local_identity is not None:
            self.identity = block.local_identity
            self._catalog_seen = -1
        if block is not None and block.local_settings:
            for key, value in block.local_settings.items():
                if value is None:
                    self.settings.pop(key, None)
                else:
                    self.settings[key] = value
                parameter = config.lookup(key)
                if parameter is not None and parameter.reported:
                    self.parameter_changes.append((config.display_name(key),
                                                   self.settings[key]))
            self._refresh_derived()

    def _arm_idle_timer(self) -> None:
        self.touch()  # an error then Sync arms it twice: one timer only
        if not self.executor.owns(self.token) or self.idle_timeout_ms <= 0:
            return
        loop = self.host.loop
        self._idle_timer = loop.call_later(self.idle_timeout_ms / 1000, self._idle_timeout)

    def _idle_timeout(self) -> None:
        self._idle_timer = None
        if self.executor.owns(self.token):
            self.terminate(errors.IdleInTransactionSessionTimeout(
                "terminating connection due to idle-in-transaction timeout", severity="FATAL"))

    def terminate(self, error: errors.SqlError) -> None:
        """End the session from outside: the client gets ``error`` (FATAL)
        and the connection closes; its transaction rolls back."""
        if self.on_terminate is not None:
            self.on_terminate(_notice(error))

    def acquire(self, writes: bool, observes: bool = False,
                command: str = "this statement", lock: bool = False) -> None:
        """Wait for the executor as this statement needs (raises WouldBlock);
        a statement that ``observes`` (``SqlPlan.observes``) never waits, one
        that takes a ``lock`` (LOCK TABLE) takes the executor without writing.
        ``command``: what a read-only transaction says it cannot execute."""
        token = self.token
        if token.cancel_requested:
            self.executor.withdraw(token)
            self.executor_wait.ended()
            token.cancel_requested = False
            raise errors.QueryCanceled("canceling statement due to user request")
        expired = self.executor_wait.expired()
        if expired is not None:
            self.executor.withdraw(token)
            raise expired
        try:
            self._take_executor(writes, observes, command, lock)
        except WouldBlock as blocked:
            self.executor_wait.waiting(blocked.wakeup, self.statement_timeout_ms,
                                       int(self.settings["lock_timeout"]))
            raise
        self.executor_wait.ended()

    def _take_executor(self, writes: bool, observes: bool, command: str, lock: bool) -> None:
        token = self.token
        if observes and not self.executor.owns(token):
            return
        block = self.block
        exclusive = writes or lock or self.executor.owns(token) or (
            block is not None and block.isolation in ("serializable", "repeatable read"))
        if not exclusive:
            self.executor.check_readable(token)
            return
        if block is not None and block.read_only and writes:
            raise errors.ReadOnlySqlTransaction(
                f"cannot execute {command} in a read-only transaction")
        if self.executor.acquire(token) and block is not None:
            for name, announced in block.savepoints:
                self.executor.savepoint(token, name, announced)
            block.savepoints.clear()

    def statement_context(self) -> StatementContext:
        now = self.executor.clock()
        if self.block is not None:
            started = self.block.started
        elif self.implicit:
            if self._implicit_started is None:
                self._implicit_started = now
            started = self._implicit_started
        else:
            started = now
        catalog = self._catalog()
        return StatementContext(self.settings_view, self.user, self.database,
                                self.process_id, started, now, catalog=catalog,
                                search_path=self._search_path,
                                session_user=self.session_user,
                                change_setting=self._set_config)

    # --- executing ----------------------------------------------------------------

    def execute_portal(self, portal: Portal, max_rows: int) -> Outcome:
        compiled = portal.compiled
        if compiled is None:
            return EmptyQuery()
        if self.failed and not _allowed_when_failed(compiled.statement):
            raise _in_failed()
        block = self.block
        if block is not None:
            if block.snapshot is not None:
                outcome = self.host.snapshot_statements.run(self, portal, block.snapshot,
                                                             max_rows)
                if outcome is not None:
                    return outcome
            if not isinstance(compiled.statement, _NOT_QUERIES):
                block.queried = True
        if compiled.plan is not None:
            return self._run_plan(portal, max_rows)
        if compiled.ddl is not None:
            return self._run_ddl(portal, compiled.ddl)
        assert compiled.utility is not None
        outcome = self.host.utilities.run(self, portal, compiled.utility, max_rows)
        if isinstance(outcome, CopyIn):
            outcome.sink = _ReportingSink(self, outcome.sink)
        return outcome

    @_boundary
    def copy_write(self, sink: CopySink, data: bytes) -> None:
        sink.write(data)

    @_boundary
    def copy_finish(self, sink: CopySink) -> str:
        return sink.finish()

    def _run_plan(self, portal: Portal, max_rows: int) -> Outcome:
        plan = portal.compiled.plan if portal.compiled else None
        assert plan is not None
        return self.run_portal(portal, max_rows, plan.tag)

    def run_portal(self, portal: Portal, max_rows: int, verb: str,
                   encode: RowEncoder | None = None) -> Outcome:
        """Start a query portal if needed and return up to ``max_rows`` of its
        rows (0 means all) through ``encode`` (by default the portal's);
        ``verb`` starts the command tag."""
        plan = portal.compiled.plan if portal.compiled else None
        assert plan is not None
        if portal.done:
            return Rows([], command_tag(verb, 0)) if plan.columns is not None else Command(
                command_tag(verb, 0))
        if portal.snapshot is not None:
            return self._snapshot_rows(portal, max_rows, verb)
        own_rows = encode is None  # DataRows for the client, not rows for COPY or FETCH
        encode = encode or portal.encode
        exporting = False
        if not portal.started:
            # a SELECT writes only FOR UPDATE (translator)
            self.acquire(plan.writes, plan.observes, plan.command or (
                "SELECT FOR UPDATE" if plan.tag == "SELECT" else plan.tag))
            exporting = EXPORT in plan.engine_calls
            if exporting:
                self._fork_snapshot()
        executor = self.executor
        context = self.statement_context()
        started = time.monotonic()
        executor.begin_statement(self.token, context, self.statement_timeout_ms)
        count = 0
        rows: list[Any] | None = None
        try:
            if portal.started:
                assert portal.cursor is not None
                rows, exhausted = portal.cursor.fetch(max_rows or STREAM_CHUNK)
            else:
                cursor = executor.run_plan(plan, portal.params)
                portal.started = True  # not when it failed: a FETCH runs it again
                if plan.columns is None:
                    count = stored = cursor.rowcount
                elif max_rows == 0 and plan.writes:
                    rows, exhausted = cursor.fetchall(), True
                    stored = len(rows)
                else:
                    # RETURNING of an INSERT with work after it is read whole now
                    buffered = cursor.fetchall() if plan.after_insert else []
                    stored = len(buffered)
                    portal.cursor = LiveCursor(executor, cursor, buffered)
                    rows, exhausted = portal.cursor.fetch(max_rows or STREAM_CHUNK)
                    if (not exhausted and own_rows and plan.snapshot_reads
                            and portal.motion is None and encode is not None):
                        self._read_rest_from_snapshot(portal, max_rows or STREAM_CHUNK, encode)
                if plan.after_insert:
                    self.host.dataflow.after_insert(plan, stored, self.compile_context(),
                                                      self.token)
                if plan.writes or executor.sequence_origins() or executor.reseeded:
                    self.note(portal.prepared, portal.params)
        except sqlite.Error as exc:
            raise executor.translate_error(exc, self.token, plan.target, plan.tag) from exc
        finally:
            executor.end_statement()
            self.take_statement_notices(context)
            if exporting:  # the image goes unless the query published it
                self.host.snapshots.settle()
        if context.definitions:  # SQLite counts no row a view's trigger takes
            count = len(context.definitions)
            self.run_definitions(context.definitions)
        if rows is None:
            portal.done = True
            self._statement_done()
            return Command(command_tag(verb, count))
        assert encode is not None
        encoded = encode(rows)
        if not exhausted and max_rows == 0:
            # The rows still to come belong to this statement: its timeout
            # and a CancelRequest apply while they are sent.
            timeout_ms = self.statement_timeout_ms
            portal.deadline = started + timeout_ms / 1000 if timeout_ms > 0 else 0.0
            self.streaming = portal
            stream = _RowStream(encoded, len(rows), lambda: self._more_rows(portal, encode),
                                lambda sent: self._portal_done(portal, verb, sent))
            return Rows(stream, None, stream.finish)
        if not exhausted or (max_rows and len(rows) == max_rows):
            # PostgreSQL stops at the limit without looking further: the
            # portal is suspended even when no row is left, and the next
            # Execute completes it with none.
            return Rows([encoded], None)
        return Rows([encoded], self._portal_done(portal, verb, len(rows)))

    def _read_rest_from_snapshot(self, portal: Portal, chunk_rows: int,
                                 encode: RowEncoder) -> None:
        """Fork a reader of the rest of the portal's rows, now, while the
        database is as the statement found it (``snapshot_rows``), if many
        are left; when no more readers may run, or the fork fails, they are
        read here."""
        cursor = portal.cursor
        if cursor is None or not snapshot_rows.may_fork() or not cursor.has_left(
                snapshot_rows.LARGE):
            return
        executor, token = self.executor, self.token
        try:
            portal.snapshot = cursor.hand_over(lambda rows, rest: snapshot_rows.ForkedRows.start(
                self.host.loop, rows, rest, encode, chunk_rows,
                lambda exc: executor.translate_error(exc, token)))
        except OSError as exc:
            log.warning("reading a query's rows on the executor: could not fork a reader "
                        "(%s)", exc)
            return
        portal.cursor = None

    def _fork_snapshot(self) -> None:
        """The query exports a snapshot: fork its holder now, between
        transactions, with the dataflow idle (``acquire`` waited for that)."""
        if self.executor.owner is not None:
            raise errors.ActiveSqlTransaction(
                "sqlext_export_snapshot() cannot run in a transaction that holds the executor",
                hint="Export from a READ COMMITTED transaction that has not written, or "
                     "outside a transaction block.")
        self.host.snapshots.fork()

    def import_snapshot(self, snapshot_id: str) -> None:
        """SET TRANSACTION SNAPSHOT: the block reads the exported snapshot."""
        block = self.block
        if block is None:
            self.notice("SET TRANSACTION can only be used in transaction blocks", "25P01",
                        "WARNING")
        if block is None or block.isolation not in ("repeatable read", "serializable"):
            raise errors.FeatureNotSupported(
                "a snapshot-importing transaction must have isolation level SERIALIZABLE or "
                "REPEATABLE READ")
        if block.queried or block.snapshot is not None or self.executor.owns(self.token):
            raise errors.ActiveSqlTransaction(
                "SET TRANSACTION SNAPSHOT must be called before any query")
        block.snapshot = self.host.snapshots.attach(snapshot_id)

    def _snapshot_rows(self, portal: Portal, max_rows: int, verb: str) -> Outcome:
        """The next Execute of a portal read from a snapshot: up to
        ``max_rows`` rows (0: all of them, streamed) as the forked reader
        sends them."""
        assert portal.snapshot is not None
        if max_rows == 0:
            # Every chunk, the first too, as the reader sends it: a retried
            # Query binds a new portal, so this must not wait.
            stream = _RowStream(b"", 0, lambda: self._more_rows(portal, portal.encode),
                                lambda sent: self._portal_done(portal, verb, sent))
            self.streaming = portal
            return Rows(stream, None, stream.finish)
        data, count, last = portal.snapshot.fetch(max_rows)
        if not last or (max_rows and count == max_rows):
            return Rows([data], None)
        return Rows([data], self._portal_done(portal, verb, count))

    @_boundary
    def snapshot_chunk(self, forked: snapshot_rows.ForkedRows) -> tuple[bytes, int, bool]:
        """The next chunk a forked reader sent (COPY ... TO STDOUT), how
        many rows it holds, and whether it is the last."""
        token = self.token
        self.copying = forked
        if token.cancel_requested:
            self._stop_copying()
            token.cancel_requested = False
            raise errors.QueryCanceled("canceling statement due to user request")
        try:
            chunk = forked.fetch(0)
        except errors.SqlError:
            self.copying = None
            raise
        if chunk[2]:
            self.copying = None
        return chunk

    def _stop_copying(self) -> None:
        """The client is no longer sent a forked reader's COPY: it goes."""
        copying, self.copying = self.copying, None
        if copying is not None:
            copying.close()

    def hand_over(self, portal: Portal, messages: Iterator[bytes], tag: Callable[[], str]
                  ) -> snapshot_rows.HandedOver:
        """The messages of a COPY ... TO STDOUT of ``portal``'s rows, made
        by a forked child once the query turns out large."""
        plan = portal.compiled.plan if portal.compiled else None
        snapshot_reads = plan is not None and plan.snapshot_reads

        def done() -> None:
            portal.done = True
            self.streaming = None
            self._statement_done()

        return snapshot_rows.HandedOver(
            self.host.loop, messages, tag,
            lambda: snapshot_rows.worth_forking(snapshot_reads, portal.cursor),
            self.snapshot_chunk, portal.close, done)

    def _portal_done(self, portal: Portal, verb: str, sent: int) -> str:
        """The portal's last rows went out: its CommandComplete tag."""
        portal.cursor = None
        portal.done = True
        self.streaming = None
        self._statement_done()
        return command_tag(verb, sent)

    @_boundary
    def _more_rows(self, portal: Portal, encode: RowEncoder) -> tuple[bytes, int, bool]:
        """The next rows of a portal whose rows are being sent (encoded), how
        many they are, and whether they are the last."""
        executor = self.executor
        token = self.token
        remaining_ms = math.ceil((portal.deadline - time.monotonic()) * 1000) if (
            portal.deadline) else 0
        timed_out = bool(portal.deadline) and remaining_ms <= 0
        if token.cancel_requested or timed_out:
            portal.close()  # or a writer would read the rest, which may not end
            token.cancel_requested = False
            reason = "statement timeout" if timed_out else "user request"
            raise errors.QueryCanceled(f"canceling statement due to {reason}")
        if portal.snapshot is not None:
            return portal.snapshot.fetch(0)
        cursor = portal.cursor
        assert cursor is not None
        context = self.statement_context()
        executor.begin_statement(token, context, remaining_ms)
        try:
            rows, exhausted = cursor.fetch(STREAM_CHUNK)
        except sqlite.Error as exc:
            raise executor.translate_error(exc, self.token) from exc
        finally:
            executor.end_statement()
            self.take_statement_notices(context)
        return encode(rows), len(rows), exhausted

    def note(self, prepared: Prepared, params: Sequence[Any], many: bool = False) -> None:
        """The running statement succeeded in this session's transaction:
        the command log records how to redo it (``many``: one row of
        parameters per execution, as COPY runs)."""
        executor = self.executor
        log = self.statement_log
        if log is None or not executor.owns(self.token):
            return
        executor.note(log.statement(self, prepared.sql, prepared.index, prepared.declared,
                                    params, many, executor.context,
                                    executor.sequence_origins()))

    @property
    def is_superuser(self) -> bool:
        return self._catalog().is_superuser(self.user)

    def durability_barrier(self) -> asyncio.Future[None] | None:
        log = self.statement_log
        return log.barrier() if log is not None else None

    def take_statement_notices(self, context: StatementContext) -> None:
        for message in context.notices:
            self.notice(message)
        for message in context.warnings:
            self.notice(message, "01000", "WARNING")
        context.notices.clear()
        context.warnings.clear()

    def call_procedure(self, portal: Portal) -> None:
        """CALL: the procedure runs in this session's transaction."""
        call = portal.compiled.call if portal.compiled else None
        assert call is not None
        self.acquire(True)
        executor = self.executor
        context = self.statement_context()
        executor.begin_statement(self.token, context, self.statement_timeout_ms)
        try:
            runtime = self.host.dataflow
            args = runtime.arguments(call.arguments, portal.params, self.token)
            runtime.call(call.procedure, args, self.compile_context(), self.token)
            self.note(portal.prepared, portal.params)
        finally:
            executor.end_statement()
            self.take_statement_notices(context)
        self._statement_done()

    def _run_ddl(self, portal: Portal, spec: DdlSpec) -> Outcome:
        logged = portal.prepared, portal.params
        if isinstance(spec, ROLE_SPECS):
            self._catalog()  # the names the roles go by now
            spec = with_roles_resolved(spec, self.user, self.session_user)
            spec, statement = password_stored(spec, self.settings["password_encryption"])
            if statement is not None:
                logged = Prepared(statement, 0, None, ()), []
        self.acquire(True)
        tag = self._apply_ddl(spec, lambda: self.note(*logged))
        self._statement_done()
        return Command(tag)

    def _apply_ddl(self, spec: DdlSpec, done: Callable[[], None] = lambda: None) -> str:
        """Apply a schema change in the running transaction (the executor is
        this session's); ``done`` runs once it is applied. Returns its tag."""
        executor = self.executor
        executor.begin_statement(self.token, self.statement_context(), self.statement_timeout_ms)
        try:
            catalog = executor.working_catalog(self.token)
            # the first stream, window, procedure or trigger brings the extension sqlext
            changed = ensure_extension(catalog, executor.database, __version__) if (
                makes_dataflow(spec)) else catalog
            result = apply_as(self.user, spec, changed, executor.database, self.session_user)
            executor.set_working_catalog(self.token, result.catalog)
            if result.catalog is not catalog:  # not for TRUNCATE or REFRESH
                self.host.catalog_tables.refresh(executor.database, result.catalog)
            done()
        except sqlite.Error as exc:
            raise executor.translate_error(exc, self.token) from exc
        finally:
            executor.end_statement()
        for message in result.notices:
            self.notice(message)
        if result.cascaded:
            message, detail = cascade_notice(result.cascaded)
            self.notice(message, detail=detail)
        for code, message in result.warnings:
            self.notice(message, code, "WARNING")
        return result.tag

    def run_definitions(self, rows: list[tuple[int, str]]) -> None:
        """Rows the statement inserted into ``sqlext.dataflow``: their
        statements, run now in this transaction (the command log has the
        INSERT or COPY, whose replay runs them again)."""
        run_definitions(rows, self.compile_context, self._apply_ddl)

    # --- transaction control (used by utilities) ------------------------------------

    def begin(self, isolation: str | None, read_only: bool | None) -> None:
        if self.block is not None:
            self.notice("there is already a transaction in progress", "25001", "WARNING")
            return
        self.block = _Block(isolation or self.settings["default_transaction_isolation"],
                            bool(read_only) if read_only is not None else
                            self.settings["default_transaction_read_only"] == "on")

    def commit(self) -> str:
        if self.block is None:
            self.notice("there is no transaction in progress", "25P01", "WARNING")
            return "COMMIT"
        if self.failed:
            self.rollback()
            return "ROLLBACK"
        committed = False
        try:
            self._commit_transaction()
            committed = True
        finally:
            self._transaction_over(committed)
        return "COMMIT"

    def rollback(self) -> None:
        if self.block is None and not self.failed:
            self.notice("there is no transaction in progress", "25P01", "WARNING")
        self._rollback_transaction()
        self._transaction_over(committed=False)

    def _commit_transaction(self) -> None:
        """Commit what the transaction wrote (it then owns the executor) and
        what it announced (NOTIFY, LISTEN)."""
        if self.executor.owns(self.token):
            self.executor.commit(self.token)
        else:
            self.executor.announce(self.token)

    def _rollback_transaction(self) -> None:
        if self.executor.owns(self.token):
            self.executor.rollback(self.token)
        else:
            self.token.pending = None

    def announce_listen(self, listen: bool, channel: str | None) -> None:
        """LISTEN / UNLISTEN: takes effect when the transaction commits."""
        self.token.announcing().listens.append((listen, channel))
        if listen and channel is not None and self.block is not None:
            self.host.notify_hub.expect(self.process_id, channel)

    def reads(self, channel: str) -> bool:
        """Whether a notification on ``channel`` the client has not been sent
        yet still reaches it, now that the session reads it: it must listen
        to the channel by then (PostgreSQL reads its queue between
        transactions)."""
        return self.host.notify_hub.listens(self.process_id, channel)

    def notify_client(self, sender: int, channel: str, payload: str) -> None:
        """A notification for this session's client (from the hub)."""
        if self.on_notification is not None:
            self.on_notification(sender, channel, payload)

    def savepoint(self, name: str) -> None:
        block = self._require_block("SAVEPOINT")
        if self.executor.owns(self.token):
            self.executor.savepoint(self.token, name)
        else:
            block.savepoints.append((name, self.token.announcement_mark()))
        block.settings_at.append((name, self._settings_state()))

    def release_savepoint(self, name: str) -> None:
        block = self._require_block("RELEASE SAVEPOINT")
        if self.executor.owns(self.token):
            self.executor.release_savepoint(self.token, name)
        else:
            del block.savepoints[_savepoint_position(block.savepoints, name):]
        del block.settings_at[_savepoint_position(block.settings_at, name):]

    def rollback_to_savepoint(self, name: str) -> None:
        """Back to the savepoint: its data, announcements and settings."""
        block = self._require_block("ROLLBACK TO SAVEPOINT")
        if self.executor.owns(self.token):
            self.executor.rollback_to_savepoint(self.token, name)
        else:
            position = _savepoint_position(block.savepoints, name)
            self.token.restore_announcements(block.savepoints[position][1])
            del block.savepoints[position + 1:]
        position = _savepoint_position(block.settings_at, name)
        del block.settings_at[position + 1:]
        self._restore_settings(block.settings_at[position][1])
        self.failed = False

    def checkpoint(self) -> None:
        """CHECKPOINT: returns once a snapshot taken after the call is on
        disk (the call is repeated until then, see ``WouldBlock``)."""
        if not self.is_superuser:
            raise errors.InsufficientPrivilege(
                "must be superuser or have privileges of pg_checkpoint to do CHECKPOINT")
        checkpoints = self.host.checkpoints
        if checkpoints is None:
            self.notice("in-memory mode: there is nothing to checkpoint")
            return
        if self.executor.owns(self.token):
            raise errors.ActiveSqlTransaction(
                "CHECKPOINT cannot run while this transaction has uncommitted changes")
        if self._checkpoint is None:
            self._checkpoint = checkpoints.request()
        if not self._checkpoint.done():
            raise WouldBlock(self._checkpoint)
        failure, self._checkpoint = self._checkpoint.result(), None
        if failure is not None:
            raise errors.IoError(f"could not write the snapshot: {failure}")

    def _require_block(self, what: str) -> _Block:
        if self.block is None:
            raise errors.NoActiveSqlTransaction(f"{what} can only be used in transaction blocks")
        return self.block

    def set_parameter(self, name: str, values: list[str], local: bool) -> None:
        """SET, SET LOCAL (only inside a block: elsewhere a WARNING, and the
        value is checked but not kept), RESET."""
        key = config.canonical_name(name)
        value = values[0] if values else None
        outside = local and self.block is None
        if outside:
            self.notice("SET LOCAL can only be used in transaction blocks", "25P01", "WARNING")
        if key in ("role", "session_authorization"):
            self._set_identity(key, value, local, outside)
            return
        if key == "transaction_isolation" and values:
            if self.block is None:
                self.notice("SET TRANSACTION can only be used in transaction blocks", "25P01",
                            "WARNING")
                return
            self.block.isolation = config.validate(key, value)
            return
        checked = config.validate(key, ", ".join(values) if key == "search_path" else values[0]
                                  ) if values else None
        if not outside:
            self._set(key, checked, local)

    def _set_config(self, name: str, value: str | None, local: bool) -> str:
        """set_config(): SET from inside a statement; the rest of the statement
        sees the change. A local value set outside a block lasts only as long
        as the statement."""
        running = self.executor.context
        if local and self.block is None:
            if value is None:
                return self.show(name)
            checked = config.validate(name, value)
            running.settings = MappingProxyType(
                {**running.settings, config.canonical_name(name): checked})
            return checked
        self.set_parameter(name, [] if value is None else [value], local)
        running.settings, running.search_path = self.settings_view, self._search_path
        return self.show(name)

    def _set_identity(self, key: str, value: str | None, local: bool, dry: bool) -> None:
        """SET ROLE and SET SESSION AUTHORIZATION (``dry``: only checked)."""
        catalog = self._catalog()
        if key == "role":
            identity = self.identity.with_role(catalog, value)
            shown = {"role": value or NONE}
        else:
            identity = self.identity.with_session_user(catalog, value)
            name = value or catalog.role_name(identity.login) or self.login_user
            shown = {"session_authorization": name, "role": NONE}
        if not dry:
            self._assume(identity, shown, local)

    def show(self, name: str) -> str:
        key = config.canonical_name(name)
        if key == "transaction_isolation" and self.block is not None:
            return self.block.isolation
        if key == "transaction_read_only" and self.block is not None:
            return "on" if self.block.read_only else "off"
        if key not in self.settings:
            raise config.unknown(name)
        value = self.settings[key]
        if key in ("statement_timeout", "lock_timeout",
                   "idle_in_transaction_session_timeout"):
            return _show_duration(int(value))
        return value

    # --- teardown ---------------------------------------------------------------------

    def close(self) -> None:
        self.touch()
        for portal in list(self.portals.values()):
            portal.close()
        self.portals.clear()
        self._stop_copying()
        if self.block is not None and self.block.snapshot is not None:
            self.host.snapshots.detach(self.block.snapshot)
            self.block.snapshot = None
        self.executor.forget(self.token)
        self.token.pending = None
        self.on_notification = None
        self.host.session_closed(self)


def _savepoint_position(savepoints: Sequence[tuple[str, object]], name: str) -> int:
    """The newest savepoint called ``name`` among ``savepoints`` (of a
    block: those made before it owned the executor, or all with the
    settings then)."""
    for position in range(len(savepoints) - 1, -1, -1):
        if savepoints[position][0] == name:
            return position
    raise errors.InvalidSavepointSpecification(f'savepoint "{name}" does not exist')


def _command_line_options(options: str) -> dict[str, str]:
    """The ``options`` startup parameter: ``-c name=value`` / ``--name=value``
    pairs, as libpq's PGOPTIONS passes them."""
    found: dict[str, str] = {}
    words = options.replace("\\ ", "\0").split()
    position = 0
    while position < len(words):
        word = words[position].replace("\0", " ")
        if word == "-c" and position + 1 < len(words):
            position += 1
            word = words[position].replace("\0", " ")
        elif word.startswith("--") or word.startswith("-c"):
            word = word[2:]
        name, sep, value = word.partition("=")
        if sep:
            found[name.replace("-", "_")] = value
        position += 1
    return found


def _show_duration(milliseconds: int) -> str:
    if milliseconds == 0:
        return "0"
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("min", 60_000), ("s", 1000)):
        if milliseconds % size == 0:
            return f"{milliseconds // size}{unit}"
    return f"{milliseconds}ms"


def _allowed_when_failed(statement: exp.Expression | None) -> bool:
    return isinstance(statement, x.RollbackTransaction | x.CommitTransaction
                      | x.RollbackToSavepoint | x.PrepareTransaction)


def _in_failed() -> errors.SqlError:
    return errors.InFailedSqlTransaction(
        "current transaction is aborted, commands ignored until end of transaction block")

