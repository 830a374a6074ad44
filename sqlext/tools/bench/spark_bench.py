"""Spark writing and reading DataFrames of 8 columns: sqlext over JDBC,
sqlext through its own data source (format "sqlext": Arrow over COPY), and
PostgreSQL 15 over JDBC, in the same run.

Each round writes the DataFrame (2 partitions, so 2 concurrent task
connections, mode overwrite) and reads it back (a partitioned read on 2
connections, every column hashed on the Spark side so every value crosses
the wire and is parsed). Besides wall time, the table shows how much CPU
time the sqlext server process used: the rest of the wall time is Spark,
the driver (pgjdbc, or the data source's Python workers) and waiting.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING, Final

from sqlext.tools.bench.baseline import Baseline
from sqlext.tools.bench.harness import Column, Output, Table
from sqlext.tools.bench.spark_concurrency import run_concurrency
from sqlext.tools.peer import PostgresPeer
from sqlext.tools.processes import SqlextProcess, start_sqlext

if TYPE_CHECKING:  # pyspark is imported when the benchmark runs, not by every CLI start
    from pyspark.sql import DataFrame, SparkSession

SIZES: Final = (100_000, 1_000_000)
JDBC_JAR: Final = "/usr/share/java/postgresql.jar"
PARTITIONS: Final = 2
DATA_SOURCE: Final = "sqlext (data source)"


@dataclass
class Timing:
    target: str
    rows: int
    operation: str
    seconds: list[float] = field(default_factory=list)
    server_cpu: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


class SparkUnavailable(RuntimeError):
    """PySpark or the PostgreSQL JDBC driver is not installed."""


def spark_session() -> SparkSession:
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:
        raise SparkUnavailable("it needs PySpark: pip install 'sqlext[spark]'") from exc
    if not Path(JDBC_JAR).exists():
        raise SparkUnavailable(f"it needs the PostgreSQL JDBC driver at {JDBC_JAR}: "
                               "apt-get install libpostgresql-jdbc-java")

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers import sqlext.spark
    session = (SparkSession.builder.master(f"local[{PARTITIONS}]").appName("sqlext-bench")
               .config("spark.jars", JDBC_JAR)
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
               .config("spark.driver.memory", "2g")
               .config("spark.ui.enabled", "false").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    return session


def frame(spark: SparkSession, rows: int) -> DataFrame:
    """8 columns of the common types, generated and cached before timing."""
    from pyspark.sql import functions as F

    data = spark.range(0, rows, numPartitions=PARTITIONS).select(
        F.col("id"), (F.col("id") % 1000).cast("int").alias("small"),
        (F.col("id") / 7).alias("ratio"), F.concat(F.lit("name-"), F.col("id")).alias("name"),
        (F.col("id") % 2 == 0).alias("flag"),
        F.timestamp_seconds(F.lit(1_700_000_000) + F.col("id")).alias("ts"),
        F.date_add(F.lit("2020-01-01").cast("date"), (F.col("id") % 3000).cast("int"))
        .alias("day"), (F.col("id") % 100000 / 100).cast("decimal(10,2)").alias("amount"))
    data.cache().count()
    return data


def _cpu_seconds(pid: int | None) -> float:
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _timed(run: Callable[[], object], pid: int | None) -> tuple[float, float]:
    cpu = _cpu_seconds(pid)
    started = time.perf_counter()
    run()
    return time.perf_counter() - started, _cpu_seconds(pid) - cpu


def _options(url: str, rows: int) -> dict[str, str]:
    return {"url": url, "user": "postgres", "driver": "org.postgresql.Driver",
            "dbtable": f"bench_{rows}"}


def _source_options(url: str, rows: int) -> dict[str, str]:
    """The data source's options for the table JDBC made (sqlext:// URL)."""
    return {"url": url, "table": f"bench_{rows}"}


def read_table(spark: SparkSession, url: str, rows: int) -> None:
    """Read the ``rows``-row table back on 2 partitions, every value parsed
    (over JDBC, or through the data source for a sqlext:// URL)."""
    from pyspark.sql import functions as F

    jdbc = url.startswith("jdbc:")
    reader = spark.read.format("jdbc" if jdbc else "sqlext").options(
        **(_options(url, rows) if jdbc else _source_options(url, rows)))
    back = (reader.option("partitionColumn", "id").option("lowerBound", 0)
            .option("upperBound", rows).option("numPartitions", PARTITIONS).load())
    total = back.select(F.count("*"), F.sum(F.hash(*back.columns))).first()
    assert total[0] == rows, total


def _round(spark: SparkSession, data: DataFrame, rows: int, url: str, pid: int | None,
           timings: dict[tuple[str, int, str], Timing], target: str) -> None:
    def write() -> None:
        if url.startswith("jdbc:"):
            data.write.format("jdbc").options(**_options(url, rows)).mode("overwrite").save()
        else:  # the table JDBC made in this round, emptied and loaded again
            data.write.format("sqlext").options(**_source_options(url, rows)).mode(
                "overwrite").save()

    def read() -> None:
        read_table(spark, url, rows)

    for operation, run in (("write", write), ("read", read)):
        seconds, cpu = _timed(run, pid)
        timing = timings.setdefault((target, rows, operation),
                                    Timing(target, rows, operation))
        timing.seconds.append(seconds)
        timing.server_cpu.append(cpu)
        print(f"  {operation} {rows:,} rows on {target}: {seconds:.2f} s"
              + (f" (server CPU {cpu:.2f} s)" if pid else ""), flush=True)


def _warm_up(spark: SparkSession, urls: dict[str, str], rows: int) -> None:
    """One small unmeasured round per server: the JVM compiles pgjdbc's and
    Spark's hot code in the first round, which would count against whichever
    server came first."""
    data = frame(spark, rows)
    for target, url in urls.items():
        _round(spark, data, rows, url, None, {}, f"{target} (warm-up)")
    data.unpersist()


def run_spark(output: Output, with_peer: bool, sizes: tuple[int, ...] = SIZES,
              spark: SparkSession | None = None,
              baseline: Baseline | None = None) -> list[Timing]:
    """Medians of ``rounds`` writes and reads per size; ``spark``: an existing
    session (the test suite's), else one is started and stopped here; a
    ``baseline``: its sqlext runs the same rounds too."""
    import sqlext.spark

    own_session = spark is None
    session = spark_session() if spark is None else spark
    sqlext.spark.register(session)
    timings: dict[tuple[str, int, str], Timing] = {}
    peer = PostgresPeer().start() if with_peer else None
    try:
        with ExitStack() as servers:
            sqlexts = {"sqlext": _server(servers, None)}
            if baseline is not None:
                sqlexts[baseline.target] = _server(servers, baseline.source)
            urls = {target: f"jdbc:postgresql://{server.host}:{server.port}/bench"
                    for target, server in sqlexts.items()}
            served = sqlexts["sqlext"]
            urls[DATA_SOURCE] = f"sqlext://{served.host}:{served.port}/bench?user=postgres"
            sqlexts[DATA_SOURCE] = served
            if peer is not None:
                urls["postgres"] = f"jdbc:postgresql://127.0.0.1:{peer.port}/postgres"
            _warm_up(session, urls, min(20_000, *sizes))
            for rows in sizes:
                data = frame(session, rows)
                for _ in range(output.rounds):
                    for target, url in urls.items():
                        server = sqlexts.get(target)
                        pid = server.process.pid if server is not None else None
                        _round(session, data, rows, url, pid, timings, target)
                if rows == max(sizes):
                    run_concurrency(output, session, data, rows,
                                    lambda url, rows=rows: read_table(session, url, rows),
                                    with_peer)
                data.unpersist()
    finally:
        if peer is not None:
            peer.stop()
        if own_session:
            session.stop()
    results = list(timings.values())
    output.publish(_table(results))
    return results


def _server(stack: ExitStack, source: Path | None) -> SqlextProcess:
    """A sqlext on a data directory of its own (``source``: a baseline's code),
    stopped when ``stack`` closes."""
    data_dir = stack.enter_context(TemporaryDirectory(prefix="sqlext-bench-"))
    server = start_sqlext("--data-dir", data_dir, source=source)
    stack.callback(server.stop)
    return server


def _table(results: list[Timing]) -> Table:
    peers = {(t.rows, t.operation): t.median for t in results if t.target == "postgres"}
    table = Table("Spark write and read (8 columns, 2 partitions): JDBC and the data source",
                  [Column("rows", ","), Column("operation"), Column("server"),
                   Column("median s", ".2f"), Column("min s", ".2f"), Column("max s", ".2f"),
                   Column("rows/s", ",.0f"), Column("server CPU s", ".2f"),
                   Column("sqlext / postgres time", ".2f")])
    for t in results:
        peer = peers.get((t.rows, t.operation))
        sqlext = t.target.startswith("sqlext")
        table.rows.append([t.rows, t.operation, t.target, t.median, min(t.seconds),
                           max(t.seconds), t.rows / t.median,
                           statistics.median(t.server_cpu) if sqlext else None,
                           t.median / peer if peer and sqlext else None])
    return table
