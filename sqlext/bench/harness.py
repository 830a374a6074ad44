"""Running benchmark variants: servers to start, rounds, medians, reports."""

from __future__ import annotations

import importlib.util
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from tempfile import TemporaryDirectory

from sqlext.peer import PostgresPeer

_LISTENING = re.compile(r"listening on (\S+):(\d+)")


@dataclass
class Variant:
    """One workload on one server: ``run(dsn)`` returns operations per second."""

    workload: str
    target: str
    """Which server it talks to: 'sqlext' or 'postgres'."""
    run: Callable[[str], float]
    server: tuple[str, ...] = ("--in-memory",)
    """sqlext's options (``{data_dir}`` becomes a fresh temporary directory)."""


@dataclass
class Result:
    variant: Variant
    rates: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.rates)


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


def machine_description() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    return (f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}, server event loop: {loop}")


def run_variants(title: str, variants: list[Variant], rounds: int, with_peer: bool,
                 report: Path | None) -> list[Result]:
    results = [Result(v) for v in variants if with_peer or v.target != "postgres"]
    peer = PostgresPeer().start() if with_peer else None
    try:
        with ExitStack() as servers:
            dsns: dict[tuple[str, ...], str] = {}
            for variant in (r.variant for r in results if r.variant.target == "sqlext"):
                if variant.server not in dsns:
                    data_dir = servers.enter_context(TemporaryDirectory(prefix="sqlext-bench-"))
                    args = [a.replace("{data_dir}", data_dir) for a in variant.server]
                    dsns[variant.server] = servers.enter_context(sqlext_server(*args))
            for round_number in range(1, rounds + 1):
                for result in results:
                    variant = result.variant
                    target_dsn = dsns[variant.server] if variant.target == "sqlext" else (
                        peer.dsn)  # type: ignore[union-attr]
                    rate = variant.run(target_dsn)
                    result.rates.append(rate)
                    print(f"  round {round_number}/{rounds} {result.variant.workload} on "
                          f"{result.variant.target}: {rate:,.0f}/s", flush=True)
    finally:
        if peer is not None:
            peer.stop()
    table = format_table(title, results)
    print(table)
    if report is not None:
        append_report(report, title, rounds, table)
    return results


def report_table(title: str, lines: list[str], rounds: int, report: Path | None) -> None:
    """Print a result table and append it to ``report`` (when given)."""
    table = "\n".join(lines)
    print(table)
    if report is not None:
        append_report(report, title, rounds, table)


def append_report(report: Path, title: str, rounds: int, table: str) -> None:
    """A result table, dated and with the machine, at the end of ``report``."""
    with report.open("a", encoding="utf-8") as handle:
        handle.write(f"\n### {title} ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)\n\n")
        handle.write(f"Machine: {machine_description()}. Rounds: {rounds}.\n\n")
        handle.write(table + "\n")


def format_table(title: str, results: list[Result]) -> str:
    """Medians per workload and server, and sqlext's rate relative to the
    peer's for the same workload measured in the same run."""
    lines = [f"| {title} | server | median/s | min/s | max/s | sqlext / postgres |",
             "|---|---|---:|---:|---:|---:|"]
    peers = {r.variant.workload: r.median for r in results if r.variant.target == "postgres"}
    for result in results:
        peer = peers.get(result.variant.workload)
        ratio = (f"{result.median / peer:.2f}x"
                 if peer and result.variant.target == "sqlext" else "")
        lines.append(
            f"| {result.variant.workload} | {result.variant.target} | {result.median:,.0f} | "
            f"{min(result.rates):,.0f} | {max(result.rates):,.0f} | {ratio} |")
    return "\n".join(lines)
