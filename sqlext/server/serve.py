"""The composition root: builds the engine and the wire server and runs them.

This module may import every package; nothing imports it except the CLI
and tests that run a server in-process.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import ssl
from dataclasses import dataclass
from pathlib import Path

from catalog.partitioning import Placement
from sqlext.durability.service import DurabilityConfig
from sqlext.server.dashboard import Dashboard
from sqlext.server.engine import Engine, EngineConfig
from sqlext.server.hba import DEFAULT_RULES, is_loopback_host
from storage.datadir import PartitionFileDamaged, read_partition, write_partition
from wire.asyncio_adapter import WireServer
from wire.framing import DEFAULT_MAX_MESSAGE_SIZE
from wire.tls import server_context

HBA_FILE = "pg_hba.conf"
"""The authentication rules in the data directory (created with the defaults)."""


class StartupRefused(Exception):
    """The configuration is unsafe or unusable; the message says why."""

log = logging.getLogger("sqlext")


@dataclass(frozen=True, slots=True)
class ServerOptions:
    host: str = "127.0.0.1"
    port: int = 5499
    data_dir: str = "./sqlext-data"
    in_memory: bool = False
    recovery: str = "strong"
    commandlog_timeout_ms: int = 10
    checkpoint_interval_s: float = 300.0
    checkpoint_log_mb: float = 64.0
    snapshots_kept: int = 2
    max_connections: int = 100
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    max_held_batches: int = 10_000
    copy_dir: str | None = None
    """Where COPY reads and writes server-side files; None: ``<data-dir>/files``,
    and no server-side files in memory-only mode."""
    hba_file: str | None = None
    """The authentication rules; None: ``<data-dir>/pg_hba.conf`` (written with
    the defaults when missing), and the defaults in memory-only mode."""
    allow_remote_trust: bool = False
    """Start on a non-loopback address even if the rules let clients on other
    machines in without a password."""
    tls_cert: str | None = None
    tls_key: str | None = None
    http_port: int | None = None
    """The dashboard's port (0: a free one); None: no dashboard."""
    http_host: str = "127.0.0.1"
    partition: str | None = None
    """This node's place in a cluster, ``"I/N"``; None: the one the data
    directory recorded, else ``0/1`` (a server on its own)."""


class Server:
    """A running sqlext server inside an asyncio event loop."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        self.engine: Engine | None = None
        self.wire: WireServer | None = None
        self.dashboard: Dashboard | None = None
        self._stopped = asyncio.Event()

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        options = self.options
        durability = None if options.in_memory else DurabilityConfig(
            Path(options.data_dir), options.recovery, options.commandlog_timeout_ms,
            options.checkpoint_interval_s, options.checkpoint_log_mb, options.snapshots_kept)
        copy_dir = options.copy_dir or (None if options.in_memory
                                         else str(Path(options.data_dir) / "files"))
        config = EngineConfig(self._hba_path(), options.max_connections, durability,
                              Path(copy_dir).resolve() if copy_dir else None,
                              options.max_held_batches, self._placement())
        if not is_loopback_host(options.host) and not options.allow_remote_trust:
            problem = Engine.check_rules(config)
            if problem is not None:
                raise StartupRefused(
                    f"listening on {options.host} would let clients in without a password: "
                    f"{problem}. Add password rules (e.g. 'hostssl all all 0.0.0.0/0 "
                    "scram-sha-256'), or pass --allow-remote-trust")
        tls = None
        if options.tls_cert and options.tls_key:
            try:
                tls = server_context(Path(options.tls_cert), Path(options.tls_key))
            except (OSError, ssl.SSLError) as exc:
                raise StartupRefused(f"cannot load the TLS certificate and key: {exc}") from exc
        # Arrow's kernels encode large results: loaded by a server, not with the CLI
        from wire import bulk

        bulk.prepare()
        engine = self.engine = Engine(config, loop)
        engine.start()
        loop.add_signal_handler(signal.SIGHUP, engine.reload_config)
        self.wire = WireServer(engine, options.host, options.port,
                               options.max_message_size, tls)
        self.wire.start()
        if options.http_port is not None:
            self.dashboard = Dashboard(engine.executor, engine.scheduler, engine.live_tables)
            http_port = await self.dashboard.start(options.http_host, options.http_port)
            log.info("dashboard on http://%s:%d/", options.http_host, http_port)
        log.info("sqlext listening on %s:%d", self.options.host, self.wire.port)

    def _placement(self) -> Placement:
        """The partition this node serves: as told, and as its data directory
        recorded (a directory never changes partition: its rows were placed
        by it)."""
        options = self.options
        try:
            placement = Placement.parse(options.partition or "0/1")
            if options.in_memory:
                return placement
            directory = Path(options.data_dir)
            text = read_partition(directory)
            recorded = None if text is None else Placement.parse(text)
        except (ValueError, PartitionFileDamaged) as exc:
            raise StartupRefused(str(exc)) from None
        if recorded is None:
            write_partition(directory, str(placement))
            return placement
        if options.partition is not None and recorded != placement:
            raise StartupRefused(
                f"the data directory {directory} belongs to partition {recorded}, "
                f"not {placement}: a node keeps the partition its rows were placed by")
        return recorded

    def _hba_path(self) -> Path | None:
        options = self.options
        if options.hba_file is not None:
            return Path(options.hba_file)
        if options.in_memory:
            return None
        path = Path(options.data_dir) / HBA_FILE
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(DEFAULT_RULES, encoding="utf-8")
        return path

    @property
    def port(self) -> int:
        assert self.wire is not None
        return self.wire.port

    def stop(self) -> None:
        if self.dashboard is not None:
            self.dashboard.close()
        if self.wire is not None:
            self.wire.close()
        if self.engine is not None:
            self.engine.close()
        self._stopped.set()

    async def wait(self) -> None:
        await self._stopped.wait()


async def serve(options: ServerOptions, ready: asyncio.Future[int] | None = None) -> None:
    server = Server(options)
    await server.start()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, server.stop)
    if ready is not None:
        ready.set_result(server.port)
    await server.wait()
    log.info("sqlext stopped")
