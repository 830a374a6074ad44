"""A throwaway PostgreSQL 15 cluster: the reference peer for conformance
tests and benchmarks.

PostgreSQL refuses to run as root, so when we are root the cluster belongs to
the ``postgres`` system user (created by the Debian package) and its commands
run through ``runuser``. The cluster lives in a temporary directory, listens
on loopback only with trust authentication and is removed on ``stop()``.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

PG_BIN_CANDIDATES = ("/usr/lib/postgresql/15/bin",)


class PeerUnavailable(RuntimeError):
    """PostgreSQL 15 server binaries are not installed."""


def find_pg_bin() -> Path:
    for candidate in PG_BIN_CANDIDATES:
        if (Path(candidate) / "postgres").exists():
            return Path(candidate)
    raise PeerUnavailable(
        "PostgreSQL 15 server binaries not found; run `apt-get install -y postgresql`"
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresPeer:
    """Start with ``with PostgresPeer() as pg: psycopg.connect(pg.dsn)``."""

    def __init__(self, settings: dict[str, str] | None = None) -> None:
        self.bin = find_pg_bin()
        self.port = free_port()
        self.settings = settings or {}
        self.run_as = "postgres" if os.geteuid() == 0 else None
        self.directory = Path(tempfile.mkdtemp(prefix="sqlext-pgpeer-"))
        self.data = self.directory / "data"
        self._started = False

    @property
    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"

    def _command(self, *args: str) -> list[str]:
        if self.run_as is None:
            return list(args)
        return ["runuser", "-u", self.run_as, "--", *args]

    def start(self) -> PostgresPeer:
        if self.run_as is not None:
            entry = pwd.getpwnam(self.run_as)
            os.chown(self.directory, entry.pw_uid, entry.pw_gid)
        subprocess.run(
            self._command(
                str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
                "-E", "UTF8", "--locale=C.UTF-8", "--auth=trust",
            ),
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        options = {
            "listen_addresses": "127.0.0.1",
            "port": str(self.port),
            "unix_socket_directories": str(self.directory),
            "max_connections": "200",
            "TimeZone": "Etc/UTC",
            **self.settings,
        }
        with (self.data / "postgresql.auto.conf").open("a") as conf:
            for key, value in options.items():
                conf.write(f"{key} = '{value}'\n")
        subprocess.run(
            self._command(
                str(self.bin / "pg_ctl"), "-D", str(self.data), "-l",
                str(self.directory / "server.log"), "-w", "start",
            ),
            check=True, stdout=subprocess.DEVNULL,
        )
        self._started = True
        self._wait_ready()
        return self

    def _wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"PostgreSQL peer did not start; see {self.directory}/server.log")

    def stop(self) -> None:
        if self._started:
            subprocess.run(
                self._command(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                              "stop"),
                check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            self._started = False
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> PostgresPeer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
