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
from tempfile import TemporaryDirectory
from typing import Final

import psycopg

from sqlext.tools.bench.chains_bench import chain_script, feed_chain
from sqlext.tools.bench.harness import (
    BenchmarkFailed,
    Column,
    Measured,
    Output,
    Table,
    Variant,
    run_variants,
    timed_run,
)
from sqlext.tools.processes import start_sqlext

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


def _logging_run(length: int, batches: int) -> Callable[[str], Measured]:
    return timed_run(lambda conn: conn.execute(chain_script(length)),
                     lambda conn: feed_chain(conn, batches), batches)


def logging_variants(lengths: tuple[int, ...] = CHAIN_LENGTHS,
                     batches: int = LOGGING_BATCHES) -> list[Variant]:
    """Each log mode compared with no log at all."""
    variants = []
    for length in lengths:
        modes = [Variant(f"chain of {length}: {mode}", "sqlext", _logging_run(length, batches),
                         args)
                 for mode, args in LOG_MODES.items()]
        for variant in modes[1:]:
            variant.versus = modes[0].label
        variants += modes
    return variants


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


def measure_recovery(length: int, mode: str, rounds: int, batches: int) -> RecoveryResult:
    with TemporaryDirectory(prefix="sqlext-bench-") as data_dir:
        args = ("--data-dir", data_dir, "--recovery", mode, "--checkpoint-interval-s", "1e9",
                "--checkpoint-log-mb", "1e6")
        server = start_sqlext(*args)
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            conn.execute(chain_script(length))
            feed_chain(conn, batches)
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
            recovered = conn.execute("SELECT count(*) FROM chain_done").fetchone()
            if recovered != (batches,):
                raise BenchmarkFailed(f"recovered {recovered} batches, not {batches}")
        server.kill()
    return RecoveryResult(length, mode, seconds, records)


def run_recovery(output: Output, lengths: tuple[int, ...] = CHAIN_LENGTHS,
                 logging_batches: int = LOGGING_BATCHES,
                 batches: int = RECOVERY_BATCHES) -> list[RecoveryResult]:
    """S-Store's Figure 8: logging throughput by log mode (8a), then the
    recovery time of each chain in each mode (8b)."""
    run_variants("Figure 8a: PE chain batches/s, pipelined client, by command log mode",
                 logging_variants(lengths, logging_batches), output)
    results = []
    for length in lengths:
        for mode in ("strong", "weak"):
            result = measure_recovery(length, mode, output.rounds, batches)
            print(f"  chain of {length}, {mode}: {result.records} records, recovery "
                  + ", ".join(f"{s:.2f} s" for s in result.seconds), flush=True)
            results.append(result)
    first = {r.mode: r.median for r in results if r.length == lengths[0]}
    table = Table(f"Figure 8b: recovery of {batches:,} batches after SIGKILL (log replay, "
                  "no snapshot)",
                  [Column("chain"), Column("recovery"), Column("records replayed", ","),
                   Column("median s", ".2f"), Column("min s", ".2f"), Column("max s", ".2f"),
                   Column("records/s", ",.0f"), Column(f"x chain of {lengths[0]}", ".2f")])
    for r in results:
        table.rows.append([f"chain of {r.length}", r.mode, r.records, r.median, min(r.seconds),
                           max(r.seconds), r.records / r.median, r.median / first[r.mode]])
    output.publish(table)
    return results


# --- checkpoint stall ----------------------------------------------------------------

def run_checkpoint(megabytes: int, output: Output) -> list[float]:
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
            for _ in range(output.rounds):
                started = time.perf_counter()
                _checkpoint_while_feeding(conn, control)
                print(f"  checkpoint in {time.perf_counter() - started:.1f} s", flush=True)
            stalls = [float(s) for (s,) in control.execute(
                "SELECT stall_ms FROM sqlext_checkpoints WHERE error IS NULL")]
            size = control.execute("SELECT max(size_bytes) FROM sqlext_checkpoints"
                                   ).fetchone()[0]
        server.kill()
    output.publish(Table("Checkpoint stall while a stream runs (fork, copy-on-write)",
                         [Column("database GB", ".2f"), Column("checkpoints", ","),
                          Column("median stall ms", ".1f"), Column("max stall ms", ".1f")],
                         [[size / 1e9, len(stalls), statistics.median(stalls), max(stalls)]]))
    return stalls


def _checkpoint_while_feeding(conn: psycopg.Connection, control: psycopg.Connection) -> None:
    thread = threading.Thread(target=lambda: control.execute("CHECKPOINT"))
    thread.start()
    while thread.is_alive():
        feed_chain(conn, 200)
    thread.join()
