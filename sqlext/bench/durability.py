"""Durability benchmarks, after S-Store's Figure 8.

* Logging: batches per second through a PE-trigger chain of 1, 5 and 10
  procedures fed by a pipelined client, with no log (``--in-memory``), strong
  and weak recovery, each with group commit and with one fsync per commit.
* Recovery: a chain is fed 5,000 batches, the server is killed (SIGKILL) and
  restarted on the log alone; the server's own "recovery: done" line gives the
  time and the records replayed. Each round restarts the same data directory.
* Checkpoint: the stall a snapshot causes while a stream runs, on a database
  of a given size, from ``sqlext_checkpoints``.
"""

from __future__ import annotations

import re
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Final

import psycopg

from sqlext.bench.harness import Variant, report_table, start_sqlext
from sqlext.bench.pipeline import send_pipelined

CHAIN_LENGTHS: Final = (1, 5, 10)
LOGGING_BATCHES: Final = 1_000
RECOVERY_BATCHES: Final = 5_000
_RECOVERED = re.compile(r"recovery: done in ([\d.]+) s: .* (\d+) records replayed")

LOG_MODES: Final = {
    "no log (--in-memory)": ("--in-memory",),
    "strong, group commit": ("--data-dir", "{data_dir}", "--recovery", "strong"),
    "strong, fsync per commit": ("--data-dir", "{data_dir}", "--recovery", "strong",
                                 "--commandlog-timeout-ms", "-1"),
    "weak, group commit": ("--data-dir", "{data_dir}", "--recovery", "weak"),
    "weak, fsync per commit": ("--data-dir", "{data_dir}", "--recovery", "weak",
                               "--commandlog-timeout-ms", "-1"),
}


def chain_script(length: int) -> str:
    """``length`` procedures, each PE-triggered by the stream the one before
    writes; the last writes a table."""
    lines = ["CREATE TABLE chain_done (id int, payload text);"]
    lines += [f"CREATE STREAM chain_{i} (id int NOT NULL, payload text);"
              for i in range(length)]
    for step in range(1, length + 1):
        target = "chain_done" if step == length else f"chain_{step}"
        lines.append(f"CREATE PROCEDURE step_{step}() LANGUAGE sql AS $$ INSERT INTO {target} "
                     f"SELECT id, payload FROM chain_{step - 1}; $$;")
        lines.append(f"CREATE TRIGGER start_{step} AFTER INSERT ON chain_{step - 1} "
                     f"EXECUTE PROCEDURE step_{step}();")
    return "\n".join(lines)


def feed(conn: psycopg.Connection, batches: int) -> None:
    """One batch per transaction into chain_0, pipelined, then wait until
    every batch went through the chain."""
    send_pipelined(conn, b"INSERT INTO chain_0 VALUES ($1, 'payload')",
                   ((batch,) for batch in range(batches)))
    conn.execute("SELECT sqlext_drain(600)")


def _logging_run(length: int) -> Callable[[str], float]:
    def run(dsn: str) -> float:
        with psycopg.connect(dsn, autocommit=True) as conn:
            schema = f"chain_{time.monotonic_ns()}"
            conn.execute(f"CREATE SCHEMA {schema}")
            conn.execute(f"SET search_path = {schema}")
            conn.execute(chain_script(length))
            started = time.perf_counter()
            feed(conn, LOGGING_BATCHES)
            return LOGGING_BATCHES / (time.perf_counter() - started)
    return run


def logging_variants() -> list[Variant]:
    return [Variant(f"chain of {length}: {mode}", "sqlext", _logging_run(length), args)
            for length in CHAIN_LENGTHS for mode, args in LOG_MODES.items()]


# --- recovery ---------------------------------------------------------------------------

@dataclass
class RecoveryResult:
    length: int
    mode: str
    seconds: list[float]
    records: int

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def measure_recovery(length: int, mode: str, rounds: int) -> RecoveryResult:
    with TemporaryDirectory(prefix="sqlext-bench-") as data_dir:
        args = ("--data-dir", data_dir, "--recovery", mode, "--checkpoint-interval-s", "1e9",
                "--checkpoint-log-mb", "1e6")
        server = start_sqlext(*args)
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            conn.execute(chain_script(length))
            feed(conn, RECOVERY_BATCHES)
        seconds: list[float] = []
        records = 0
        for _ in range(rounds):
            server.kill()
            server = start_sqlext(*args)
            done = next(_RECOVERED.search(line) for line in server.log
                        if _RECOVERED.search(line))
            assert done is not None
            seconds.append(float(done.group(1)))
            records = int(done.group(2))
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            assert conn.execute("SELECT count(*) FROM chain_done").fetchone() == (
                RECOVERY_BATCHES,)
        server.kill()
    return RecoveryResult(length, mode, seconds, records)


def run_recovery(rounds: int, report: Path | None) -> list[RecoveryResult]:
    results = []
    for length in CHAIN_LENGTHS:
        for mode in ("strong", "weak"):
            result = measure_recovery(length, mode, rounds)
            print(f"  chain of {length}, {mode}: {result.records} records, recovery "
                  + ", ".join(f"{s:.2f} s" for s in result.seconds), flush=True)
            results.append(result)
    weak = {r.length: r.median for r in results if r.mode == "weak"}
    lines = [f"| recovery of {RECOVERY_BATCHES:,} batches | recovery | records replayed | "
             "median s | min s | max s | records/s | vs chain of 1 |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        base = weak[CHAIN_LENGTHS[0]] if r.mode == "weak" else next(
            x.median for x in results if x.mode == "strong" and x.length == CHAIN_LENGTHS[0])
        lines.append(f"| chain of {r.length} | {r.mode} | {r.records:,} | {r.median:.2f} | "
                     f"{min(r.seconds):.2f} | {max(r.seconds):.2f} | "
                     f"{r.records / r.median:,.0f} | {r.median / base:.2f}x |")
    report_table("Recovery time after SIGKILL (log replay, no snapshot)", lines, rounds, report)
    return results


# --- checkpoint stall ----------------------------------------------------------------

def run_checkpoint(megabytes: int, rounds: int, report: Path | None) -> list[float]:
    """Stalls (ms) of ``rounds`` checkpoints taken while a chain is fed."""
    with TemporaryDirectory(prefix="sqlext-bench-") as data_dir:
        server = start_sqlext("--data-dir", data_dir, "--checkpoint-interval-s", "1e9",
                        "--checkpoint-log-mb", "1e6")
        with psycopg.connect(server.dsn, autocommit=True) as conn, psycopg.connect(
                server.dsn, autocommit=True) as control:
            rows = megabytes * 1000
            conn.execute("CREATE TABLE ballast (id int PRIMARY KEY, pad text)")
            conn.execute("INSERT INTO ballast SELECT n, repeat('x', 1000) FROM "
                         "generate_series(1, %s) AS n", (rows,))
            conn.execute(chain_script(3))
            for _ in range(rounds):
                started = time.perf_counter()
                _checkpoint_while_feeding(conn, control)
                print(f"  checkpoint in {time.perf_counter() - started:.1f} s", flush=True)
            stalls = [float(s) for (s,) in control.execute(
                "SELECT stall_ms FROM sqlext_checkpoints WHERE error IS NULL")]
            size = control.execute("SELECT max(size_bytes) FROM sqlext_checkpoints"
                                   ).fetchone()[0]
        server.kill()
    lines = ["| database | checkpoints | median stall ms | max stall ms |",
             "|---:|---:|---:|---:|",
             f"| {size / 1e9:.2f} GB | {len(stalls)} | {statistics.median(stalls):.1f} | "
             f"{max(stalls):.1f} |"]
    report_table("Checkpoint stall while a stream runs (fork, copy-on-write)", lines, rounds,
            report)
    return stalls


def _checkpoint_while_feeding(conn: psycopg.Connection, control: psycopg.Connection) -> None:
    thread = threading.Thread(target=lambda: control.execute("CHECKPOINT"))
    thread.start()
    while thread.is_alive():
        feed(conn, 200)
    thread.join()
