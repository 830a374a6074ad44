"""The engine as the wire layer sees it (``wire.backend.Backend``): who may
connect and the sessions they open; and what a session needs of it
(``sqlext.session.engine_session.SessionHost``).

It owns the serial executor, the scheduler, the dataflow runtime, the
catalog tables, durability and the sessions, and is created once per server
by ``sqlext.server.serve``.
"""

from __future__ import annotations

import asyncio
import logging
import platform
from dataclasses import dataclass, field
from pathlib import Path

from catalog.partitioning import Placement
from catalog.schema import Catalog
from catalog.system import system_relations
from executor.core import Executor
from executor.functions.declare import Runtime
from executor.functions.registry import register_functions
from executor.pg_catalog.live import LiveTables
from executor.pg_catalog.tables import CatalogTables
from executor.streaming.notify_streams import StreamNotifier
from executor.streaming.scheduler import Scheduler
from executor.streaming.windows import Windows
from sqlext.dataflow.graph import dataflow_graph, edge_rows
from sqlext.dataflow.rebuild import DataflowText
from sqlext.dataflow.runtime import DataflowRuntime
from sqlext.durability import storage_views
from sqlext.durability.checkpoint import Checkpointer
from sqlext.durability.journal import Journal
from sqlext.durability.service import Durability, DurabilityConfig
from sqlext.server.hba import HbaError, load_rules
from sqlext.server.notify_hub import NotifyHub
from sqlext.server.sessions import Sessions
from sqlext.session import snapshot_block
from sqlext.session.engine_session import EngineSession
from sqlext.session.exported_snapshots import ReadRequest, SnapshotHolders
from sqlext.session.utilities import Utilities
from sqlext.sql.settings import SERVER_VERSION
from sqlext.version import __version__
from storage.sqlite import Database
from wire.backend import BackendError, Credentials
from wire.messages import Notice

log = logging.getLogger("sqlext")

VERSION = (f"PostgreSQL {SERVER_VERSION.split(' ')[0]} (sqlext {__version__}) on "
           f"{platform.machine()}-pc-linux-gnu, compiled by CPython "
           f"{platform.python_version()}, 64-bit")


@dataclass(frozen=True, slots=True)
class EngineConfig:
    hba_path: Path | None = None
    """The host-based authentication rules (None: trust on loopback only)."""
    max_connections: int = 100
    durability: DurabilityConfig | None = None
    """None: in memory only, no command log and no snapshots."""
    copy_dir: Path | None = None
    """The only directory COPY may read or write server-side files in."""
    max_held_batches: int = 10_000
    """Batches that may wait for a stopped procedure before its streams
    refuse more (``Scheduler.admit``)."""
    placement: Placement = field(default_factory=Placement)
    """The partition of its cluster this node serves (``0/1``: alone)."""


def _fatal(sqlstate: str, message: str) -> BackendError:
    return BackendError(Notice("FATAL", sqlstate, message), fatal=True)


class Engine:
    def __init__(self, config: EngineConfig, loop: asyncio.AbstractEventLoop) -> None:
        self.config = config
        self.loop = loop
        self.database = Database()
        catalog = Catalog().with_relations(system_relations())
        self.executor = Executor(self.database, catalog, loop.create_future)
        self.executor.placement = config.placement
        windows = Windows(self.database, self.executor.undo)
        self.dataflow = DataflowRuntime(self.executor, windows)
        self.scheduler = Scheduler(self.executor, self.dataflow.run_task,
                                   lambda: loop.call_soon(self.scheduler.run), windows,
                                   max_held=config.max_held_batches)
        self.notify_hub = NotifyHub(self._durability_barrier)
        self.executor.on_announce = self.notify_hub.committed
        self.stream_notifier = StreamNotifier(self.executor, self.scheduler,
                                              self.notify_hub.listened)
        self.catalog_tables = CatalogTables()
        self.catalog_tables.create(self.database)
        self.catalog_tables.refresh(self.database, catalog)
        self.sessions = Sessions(self.executor, loop)
        self.snapshots = SnapshotHolders(loop, self._serve_snapshot_read)
        register_functions(self.database, Runtime(self.executor, self.scheduler, VERSION,
                                                  self.reload_config, self.sessions,
                                                  self.notify_hub.channels, DataflowText(),
                                                  self.snapshots))
        self.utilities = Utilities()
        self.snapshot_statements = snapshot_block.SnapshotStatements()
        self.durability: Durability | None = None
        self.hba = load_rules(config.hba_path)
        self.live_tables = LiveTables(self.executor, self.scheduler, self.dataflow.fired)
        for name, rows in (("pg_stat_activity", self.sessions.activity_rows),
                           ("sqlext_log", lambda: storage_views.log_rows(self.durability)),
                           ("sqlext_snapshots",
                            lambda: storage_views.snapshot_rows(self.durability)),
                           ("sqlext_checkpoints",
                            lambda: storage_views.checkpoint_rows(self.durability))):
            self.live_tables.provide(name, rows)
        self.live_tables.provide("sqlext_dataflow",
                                 lambda: edge_rows(dataflow_graph(self.executor.catalog)))

    def start(self) -> None:
        """Recover the data directory (if any) before anyone connects."""
        if self.config.durability is not None:
            self.durability = Durability(self, self.config.durability)
            self.durability.start()

    def close(self) -> None:
        self.snapshots.close()
        if self.durability is not None:
            self.durability.close()

    # --- what sessions need (sqlext.session.engine_session.SessionHost) ------------------

    @property
    def copy_dir(self) -> Path | None:
        return self.config.copy_dir

    @property
    def statement_log(self) -> Journal | None:
        return self.durability.journal if self.durability is not None else None

    @property
    def checkpoints(self) -> Checkpointer | None:
        return self.durability.checkpointer if self.durability is not None else None

    def session_closed(self, session: EngineSession) -> None:
        self.notify_hub.detach(session.process_id)
        self.sessions.remove(session)

    def _serve_snapshot_read(self, request: ReadRequest, fd: int) -> None:
        """In a reader forked from a snapshot's holder: run the request as
        its session would (``snapshot_block.serve``)."""
        session = EngineSession(self, request.process_id, request.user, request.database,
                                request.settings)
        snapshot_block.serve(session, request, fd)

    def _durability_barrier(self) -> asyncio.Future[None] | None:
        """Done once everything committed so far is durable (None: it is)."""
        statement_log = self.statement_log
        return statement_log.barrier() if statement_log is not None else None

    @staticmethod
    def check_rules(config: EngineConfig) -> str | None:
        """Why the configured rules are unsafe for clients on other machines
        (None: they are not); raises HbaError when they are malformed."""
        return load_rules(config.hba_path).remote_problem()

    def reload_config(self) -> bool:
        """Read the authentication rules again (pg_reload_conf, SIGHUP); a
        malformed file is reported and the rules in force stay."""
        try:
            self.hba = load_rules(self.config.hba_path)
        except HbaError as exc:
            log.error("%s; the previous rules stay in force", exc)
            return False
        log.info("authentication rules reloaded from %s", self.hba.source)
        return True

    # --- wire.backend.Backend ------------------------------------------------------

    def credentials(self, user: str, database: str, peer: str, tls: bool) -> Credentials:
        rule = self.hba.find(database, user, peer, tls)
        if rule is None:
            return Credentials("reject", matched=False)
        role = self.executor.catalog.roles.get(user)
        return Credentials(rule.method, role.password if role is not None else None)

    def open_session(self, user: str, database: str, parameters: dict[str, str],
                     client: tuple[str, int | None] = ("", None)) -> EngineSession:
        if len(self.sessions) >= self.config.max_connections:
            raise _fatal("53300", "sorry, too many clients already")
        role = self.executor.catalog.roles.get(user)
        if role is None:
            raise _fatal("28000", f'role "{user}" does not exist')
        if not role.login:
            raise _fatal("28000", f'role "{user}" is not permitted to log in')
        if role.connection_limit >= 0 and not role.superuser and (
                self.sessions.of_role(role.oid) >= role.connection_limit):
            raise _fatal("53300", f'too many connections for role "{user}"')
        session = EngineSession(self, self.sessions.next_process_id(), user, database,
                                parameters, client)
        self.sessions.add(session)
        self.notify_hub.attach(session.process_id, session.notify_client)
        return session

    def cancel(self, process_id: int, secret_key: int) -> None:
        """Called from the listener thread."""
        self.sessions.cancel_request(process_id, secret_key)
