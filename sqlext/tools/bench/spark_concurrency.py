"""The Leaderboard dataflow's throughput while Spark reads a large table.

A pipelined client feeds votes through the Leaderboard dataflow without
pause; the votes/s it gets in a window with nothing else running is compared
with the votes/s while Spark reads every row of an 8-column table (the read
of ``spark_bench``) from the same sqlext server. The same read from
PostgreSQL, with the votes still going to sqlext, shows what Spark's own
work (the JVM parsing rows, on the same cores) costs the dataflow: no server
can do better than that.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import cycle, islice
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING, Final

import psycopg

from sqlext.tools.bench import leaderboard_bench
from sqlext.tools.bench.harness import Column, Output, Table
from sqlext.tools.peer import PostgresPeer
from sqlext.tools.processes import start_sqlext

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

WINDOW_SECONDS: Final = 3.0
"""How long the dataflow runs alone before each read."""
VOTE_CHUNK: Final = 500
"""Votes sent between two looks at the clock."""
VOTE_POOL: Final = 200_000
"""Distinct votes generated, sent over and over (repeated phones are
rejected by the dataflow's validation: still a transaction each)."""


@dataclass
class VoteFeed:
    """A thread sending votes pipelined, recording when each chunk is done."""

    conn: psycopg.Connection
    done: list[tuple[float, int]] = field(default_factory=list)
    stopping: bool = False
    thread: threading.Thread | None = None

    def start(self) -> None:
        votes = cycle(leaderboard_bench.generate_votes(VOTE_POOL))
        self.done.append((time.perf_counter(), 0))

        def feed() -> None:
            sent = 0
            while not self.stopping:
                leaderboard_bench.send_pipelined(self.conn, list(islice(votes, VOTE_CHUNK)))
                sent += VOTE_CHUNK
                self.done.append((time.perf_counter(), sent))

        self.thread = threading.Thread(target=feed, name="votes", daemon=True)
        self.thread.start()

    def rate(self, start: float, end: float) -> float:
        """Votes/s between two moments, the votes done by each found
        between the chunks finished just before and just after it."""
        while self.done[-1][0] < end:
            if self.thread is None or not self.thread.is_alive():
                raise RuntimeError("the votes stopped going through the dataflow")
            time.sleep(0.01)
        return (self._sent_by(end) - self._sent_by(start)) / (end - start)

    def _sent_by(self, moment: float) -> float:
        before = (0.0, 0)
        for at, sent in self.done:
            if at >= moment:
                return before[1] + (sent - before[1]) * (moment - before[0]) / (at - before[0])
            before = (at, sent)
        raise AssertionError("rate() waits for a chunk after the moment")

    def stop(self) -> None:
        self.stopping = True
        if self.thread is not None:
            self.thread.join()


@dataclass
class Sample:
    read_from: str
    alone: list[float] = field(default_factory=list)
    during: list[float] = field(default_factory=list)
    read_seconds: list[float] = field(default_factory=list)


def run_concurrency(output: Output, session: SparkSession, data: DataFrame, rows: int,
                    read: Callable[[str], object], with_peer: bool) -> Table:
    """``data`` (``rows`` rows) is written to each server, then each round
    measures the votes/s alone and during a ``read(url)`` from each."""
    samples = {"sqlext": Sample("sqlext")} | ({"postgres": Sample("postgres")}
                                              if with_peer else {})
    peer = PostgresPeer().start() if with_peer else None
    with TemporaryDirectory(prefix="sqlext-bench-") as data_dir:
        server = start_sqlext("--data-dir", data_dir, "--recovery", "strong")
        try:
            urls = {"sqlext": f"jdbc:postgresql://{server.host}:{server.port}/bench"} | (
                {"postgres": f"jdbc:postgresql://127.0.0.1:{peer.port}/postgres"}
                if peer is not None else {})
            for url in urls.values():
                data.write.format("jdbc").options(
                    url=url, user="postgres", driver="org.postgresql.Driver",
                    dbtable=f"bench_{rows}").mode("overwrite").save()
            with psycopg.connect(server.dsn, autocommit=True) as conn:
                leaderboard_bench.load(conn)
                feed = VoteFeed(conn)
                feed.start()
                try:
                    for _ in range(output.rounds):
                        for target, url in urls.items():
                            _sample(feed, read, url, samples[target])
                finally:
                    feed.stop()
        finally:
            server.stop()
            if peer is not None:
                peer.stop()
    table = _table(rows, list(samples.values()))
    output.publish(table)
    return table


def _sample(feed: VoteFeed, read: Callable[[str], object], url: str, sample: Sample) -> None:
    started = time.perf_counter()
    time.sleep(WINDOW_SECONDS)
    reading = time.perf_counter()
    read(url)
    ended = time.perf_counter()
    sample.alone.append(feed.rate(started, reading))
    sample.during.append(feed.rate(reading, ended))
    sample.read_seconds.append(ended - reading)
    print(f"  Leaderboard alone {sample.alone[-1]:,.0f} votes/s, during a read from "
          f"{sample.read_from} ({ended - reading:.2f} s) {sample.during[-1]:,.0f} votes/s",
          flush=True)


def _table(rows: int, samples: list[Sample]) -> Table:
    table = Table(f"Leaderboard on sqlext while Spark reads {rows:,} rows (2 partitions)",
                  [Column("Spark reads from"), Column("read median s", ".2f"),
                   Column("votes/s alone (median)", ",.0f"),
                   Column("votes/s during the read (median)", ",.0f"),
                   Column("during / alone", ".2f")])
    for sample in samples:
        alone = statistics.median(sample.alone)
        during = statistics.median(sample.during)
        table.rows.append([sample.read_from, statistics.median(sample.read_seconds), alone,
                           during, during / alone])
    return table
