"""``sqlext bench cluster``: events/s through 1, 2 and 3 hash-partitioned
nodes running the same per-key dataflow (examples/cluster/payments.sql).

Each round starts N durable nodes (``--partition I/N``, group commit) on
loopback, applies the dataflow to each, and sends the same events: every
event goes to the node that owns its account, one COPY (one batch, one
transaction of the dataflow) per 1,000 events, one client connection per
node sending at once. The time runs from the first event sent to the
moment every node has drained its dataflow; the state is then checked (every
node holds exactly its accounts, and together they hold every event).

Routing is done before the clock starts and reported on its own (it is the
client's work, and grows with the clients, not the nodes). Also measured
per cluster size, because they do not scale out: the dataflow's DDL applied
with ``sqlext run --cluster`` (every node checked, then the script in one
transaction per node, all committed at the end), and one row of replicated
reference data written through every node in turn. The machine's cores
bound what more nodes on it can show.
"""

from __future__ import annotations

import io
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Final

import psycopg

from catalog.partitioning import partition_of
from sqlext.tools import cluster_run
from sqlext.tools.bench.harness import BenchmarkFailed, Column, Output, Table
from sqlext.tools.cluster_run import Script
from sqlext.tools.processes import SqlextProcess, start_sqlext
from sqlext.tools.script import script_steps

WORKLOAD: Final = Path(__file__).resolve().parent / "workloads" / "payments.sql"
"""examples/cluster/payments.sql, installed with the package."""
NODES: Final = (1, 2, 3)
EVENTS: Final = 200_000
BATCH: Final = 1_000
ACCOUNTS: Final = 50_000
KINDS: Final = ("card", "transfer", "cash")


@dataclass(frozen=True, slots=True)
class Events:
    """The workload's events as COPY text, routed: per node, its batches."""

    count: int
    batches: dict[int, list[bytes]]
    routing_s: float
    total_cents: int


def make_events(count: int, nodes: int) -> Events:
    rows = [(1 + (n * 7919) % ACCOUNTS, (n % 1999) - 500, KINDS[n % 3]) for n in range(count)]
    started = time.perf_counter()
    shares: dict[int, list[str]] = {node: [] for node in range(nodes)}
    for account, amount, kind in rows:
        shares[partition_of(account, nodes)].append(f"{account}\t{amount}\t{kind}\n")
    routing = time.perf_counter() - started
    batches = {node: ["".join(lines[i:i + BATCH]).encode()
                      for i in range(0, len(lines), BATCH)]
               for node, lines in shares.items()}
    return Events(count, batches, routing, sum(amount for _, amount, _ in rows) * 100)


@dataclass
class Round:
    seconds: float
    ddl_ms: float
    reference_write_ms: float


@dataclass
class ClusterResult:
    nodes: int
    events: Events
    rounds: list[Round] = field(default_factory=list)

    def median(self, measure: Callable[[Round], float]) -> float:
        return statistics.median(measure(r) for r in self.rounds)


def _timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _each(nodes: list[SqlextProcess], sql: str) -> None:
    for node in nodes:
        with psycopg.connect(node.dsn, autocommit=True) as conn:
            conn.execute(sql)


def _apply(urls: str, script: Script) -> None:
    """The dataflow through ``sqlext run --cluster``, as users apply it."""
    if cluster_run.run(urls, script, out=io.StringIO()) != 0:
        raise BenchmarkFailed(f"sqlext run --cluster could not apply {script.name}")


def _feed(node: SqlextProcess, batches: list[bytes], failures: list[BaseException]) -> None:
    try:
        with psycopg.connect(node.dsn, autocommit=True) as conn:
            for batch in batches:
                with conn.cursor().copy("COPY payments FROM STDIN") as copy:
                    copy.write(batch)
            conn.execute("SELECT sqlext_drain(600)")
    except BaseException as exc:  # reported by the round, not lost in a thread
        failures.append(exc)


def _check(nodes: list[SqlextProcess], events: Events) -> None:
    payments = cents = 0
    for index, node in enumerate(nodes):
        with psycopg.connect(node.dsn, autocommit=True) as conn:
            accounts = conn.execute("SELECT id FROM accounts").fetchall()
            if any(partition_of(account, len(nodes)) != index for (account,) in accounts):
                raise BenchmarkFailed(f"node {index} holds accounts it does not own")
            count, total = conn.execute(
                "SELECT coalesce(sum(payments), 0), coalesce(sum(balance), 0) FROM accounts"
            ).fetchone()
            payments += count
            cents += int(total * 100)
    if (payments, cents) != (events.count, events.total_cents):
        raise BenchmarkFailed(f"the cluster holds {payments} payments summing to {cents} "
                              f"cents, not {events.count} summing to {events.total_cents}")


def measure_round(count: int, events: Events) -> Round:
    with TemporaryDirectory(prefix="sqlext-cluster-") as directory:
        nodes = [start_sqlext("--data-dir", f"{directory}/node{i}", "--partition",
                              f"{i}/{count}") for i in range(count)]
        try:
            workload = WORKLOAD.read_text()
            script = Script(WORKLOAD.name, workload, script_steps(workload))
            urls = ",".join(f"sqlext://{node.host}:{node.port}/bench" for node in nodes)
            ddl = _timed(lambda: _apply(urls, script))
            reference = _timed(lambda: _each(
                nodes, "INSERT INTO limits VALUES ('cheque', 5000)"))
            failures: list[BaseException] = []
            feeders = [threading.Thread(target=_feed, args=(node, events.batches[i], failures))
                       for i, node in enumerate(nodes)]
            started = time.perf_counter()
            for feeder in feeders:
                feeder.start()
            for feeder in feeders:
                feeder.join()
            seconds = time.perf_counter() - started
            if failures:
                raise BenchmarkFailed(f"a node refused the events: {failures[0]}")
            _check(nodes, events)
        finally:
            for node in nodes:
                node.stop()
    return Round(seconds, ddl * 1000, reference * 1000)


def run_cluster(output: Output, event_count: int = EVENTS,
                sizes: tuple[int, ...] = NODES) -> list[ClusterResult]:
    results = []
    for rounds in range(output.rounds):
        for count in sizes:
            if rounds == 0:
                results.append(ClusterResult(count, make_events(event_count, count)))
            result = next(r for r in results if r.nodes == count)
            round_ = measure_round(count, result.events)
            result.rounds.append(round_)
            print(f"  {count} node(s): {event_count / round_.seconds:,.0f} events/s "
                  f"({round_.seconds:.2f} s)", flush=True)
    one = results[0].median(lambda r: r.seconds)
    table = Table(
        f"Cluster: events/s through hash-partitioned nodes, per-key dataflow "
        f"(examples/cluster), {event_count:,} events in batches of {BATCH:,}",
        [Column("nodes"), Column("median s", ".2f"), Column("events/s", ",.0f"),
         Column("events/s per node", ",.0f"), Column(f"x {sizes[0]} node", ".2f"),
         Column("routing s (client)", ".2f"), Column("DDL via run --cluster ms", ".0f"),
         Column("reference write on all nodes ms", ".1f")])
    for result in results:
        seconds = result.median(lambda r: r.seconds)
        rate = event_count / seconds
        table.rows.append([
            result.nodes, seconds, rate, rate / result.nodes, one / seconds,
            result.events.routing_s, result.median(lambda r: r.ddl_ms),
            result.median(lambda r: r.reference_write_ms)])
    output.publish(table)
    return results
