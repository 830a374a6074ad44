"""The composition root: builds the engine and the wire server and runs them.

This module may import every package; nothing imports it except the CLI
and tests that run a server in-process.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from dataclasses import dataclass, field
from pathlib import Path

from sqlext.durability import DurabilityConfig
from sqlext.engine import AuthConfig, Engine, EngineConfig
from wire.framing import DEFAULT_MAX_MESSAGE_SIZE
from wire.server import WireServer

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
    auth: AuthConfig = field(default_factory=AuthConfig)
    copy_dir: str | None = None
    """Where COPY reads and writes server-side files; None: ``<data-dir>/files``,
    and no server-side files in memory-only mode."""


class Server:
    """A running sqlext server inside an asyncio event loop."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        self.engine: Engine | None = None
        self.wire: WireServer | None = None
        self._stopped = asyncio.Event()

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        options = self.options
        durability = None if options.in_memory else DurabilityConfig(
            Path(options.data_dir), options.recovery, options.commandlog_timeout_ms,
            options.checkpoint_interval_s, options.checkpoint_log_mb, options.snapshots_kept)
        copy_dir = options.copy_dir or (None if options.in_memory
                                         else str(Path(options.data_dir) / "files"))
        config = EngineConfig(options.auth, options.max_connections, durability,
                              Path(copy_dir).resolve() if copy_dir else None)
        self.engine = Engine(config, loop)
        self.engine.start()
        self.wire = WireServer(self.engine, self.options.host, self.options.port,
                               self.options.max_message_size)
        self.wire.start()
        log.info("sqlext listening on %s:%d", self.options.host, self.wire.port)

    @property
    def port(self) -> int:
        assert self.wire is not None
        return self.wire.port

    def stop(self) -> None:
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
