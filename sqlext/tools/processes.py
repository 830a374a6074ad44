"""sqlext servers started as processes of their own, by the CLI (``sqlext
run --data-dir``), the benchmarks and the tests."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

_LISTENING = re.compile(r"listening on (\S+):(\d+)")


@dataclass
class SqlextProcess:
    """A sqlext server started as a process of its own; ``log`` keeps
    filling up with its output."""

    process: subprocess.Popen[str]
    host: str
    port: int
    log: list[str]
    reader: threading.Thread

    @property
    def dsn(self) -> str:
        return f"host={self.host} port={self.port} user=postgres dbname=bench"

    def kill(self) -> None:
        """SIGKILL, as a crash."""
        self.process.kill()
        self._reap()

    def stop(self) -> None:
        self.process.terminate()
        self._reap()

    def _reap(self) -> None:
        self.process.wait(timeout=10)
        self.reader.join(timeout=10)  # it reads the output to its end
        if self.process.stdout is not None:
            self.process.stdout.close()


def start_sqlext(*args: str, source: Path | None = None,
                 timeout: float | None = None) -> SqlextProcess:
    """A sqlext server process on a free port, once it accepts connections
    (recovery may take a while; ``timeout``: at most this many seconds).
    ``source``: the checkout whose code it runs (default: the installed one)."""
    command = [sys.executable, "-m", "sqlext", "serve", "--port", "0", *args]
    environment = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if source is not None:
        environment["PYTHONPATH"] = str(source)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, cwd=source, env=environment)
    output = process.stdout
    assert output is not None
    log: list[str] = []
    listening: queue.Queue[re.Match[str] | None] = queue.Queue()

    def read() -> None:
        """The output into ``log`` to its end (so that the server never
        blocks on a full pipe); the listening line, or None at the end,
        into ``listening`` (a server may print nothing: the wait for it
        has a timeout, a read from the pipe has none)."""
        found = False
        for line in output:
            log.append(line)
            if not found and (match := _LISTENING.search(line)):
                found = True
                listening.put(match)
        listening.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        match = listening.get(timeout=timeout)
    except queue.Empty:
        match = None
    if match is not None:
        return SqlextProcess(process, match.group(1), int(match.group(2)), log, reader)
    process.kill()
    process.wait()
    reader.join(timeout=10)
    output.close()
    raise RuntimeError("sqlext server did not start:\n" + "".join(log))


@contextmanager
def sqlext_server(*args: str, source: Path | None = None) -> Iterator[str]:
    """A sqlext server process for the length of the block; yields its DSN."""
    server = start_sqlext(*args, source=source)
    try:
        yield server.dsn
    finally:
        server.stop()
