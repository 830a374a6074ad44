"""sqlext servers started as processes of their own, by the CLI (``sqlext
run --data-dir``) and the benchmarks."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

_LISTENING = re.compile(r"listening on (\S+):(\d+)")


@dataclass
class SqlextProcess:
    """A sqlext server the benchmark started; ``log`` keeps filling up."""

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


def start_sqlext(*args: str) -> SqlextProcess:
    """A sqlext server process on a free port, once it accepts connections
    (recovery may take a while)."""
    command = [sys.executable, "-m", "sqlext", "serve", "--port", "0", *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    assert process.stdout is not None
    log: list[str] = []
    for line in process.stdout:
        log.append(line)
        match = _LISTENING.search(line)
        if match:
            # keep reading, so that the server never blocks on a full pipe
            reader = threading.Thread(target=log.extend, args=(process.stdout,), daemon=True)
            reader.start()
            return SqlextProcess(process, match.group(1), int(match.group(2)), log, reader)
    process.wait()
    raise RuntimeError("sqlext server did not start:\n" + "".join(log))


@contextmanager
def sqlext_server(*args: str) -> Iterator[str]:
    """A sqlext server process for the length of the block; yields its DSN."""
    server = start_sqlext(*args)
    try:
        yield server.dsn
    finally:
        server.stop()
