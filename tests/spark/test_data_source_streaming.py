"""The "sqlext" Spark data source in Structured Streaming: a sink whose
micro-batches reach a stream exactly once through task failures, restarts
from the checkpoint and a SIGKILLed server; a source that delivers every
committed batch of a stream once, in order, across restarts."""

from __future__ import annotations

import signal
import socket
from pathlib import Path

import psycopg
import pytest
from pyspark import TaskContext
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQuery
from pyspark.sql.types import BooleanType, LongType, StructField, StructType

from tests.fixtures.servers import ServerProcess, start_server, unique
from tests.fixtures.spark import add_json_files, source_url

EVENTS = StructType([StructField("id", LongType()), StructField("account", LongType()),
                     StructField("amount", LongType())])
ROWS_PER_FILE = 50


def add_files(folder: Path, first: int, last: int) -> None:
    """Files first..last of events; file f holds ids 50f .. 50f+49."""
    add_json_files(folder, first, last, ROWS_PER_FILE,
                   lambda i: {"id": i, "account": i % 7, "amount": i % 13}, "events")


def oracle(files: range) -> dict[int, tuple[int, int]]:
    """account -> (events, total amount) over the files."""
    totals: dict[int, tuple[int, int]] = {}
    for number in files:
        for i in range(number * ROWS_PER_FILE, (number + 1) * ROWS_PER_FILE):
            count, total = totals.get(i % 7, (0, 0))
            totals[i % 7] = (count + 1, total + i % 13)
    return totals


def ledger_dataflow(conn: psycopg.Connection, stream: str) -> None:
    """stream -> book() -> balances (no keys: a duplicate would show)."""
    conn.execute(f"CREATE STREAM {stream} (id bigint, account bigint, amount bigint)")
    conn.execute(f"CREATE TABLE {stream}_balances (account bigint PRIMARY KEY, "
                 "events bigint, total bigint)")
    conn.execute(f"""CREATE PROCEDURE {stream}_book() LANGUAGE sql AS $$
        INSERT INTO {stream}_balances SELECT account, count(*), sum(amount) FROM {stream}
        GROUP BY account ON CONFLICT (account) DO UPDATE
        SET events = {stream}_balances.events + excluded.events,
            total = {stream}_balances.total + excluded.total;
    $$""")
    conn.execute(f"CREATE TRIGGER {stream}_t AFTER INSERT ON {stream} "
                 f"EXECUTE PROCEDURE {stream}_book()")


def balances(server: ServerProcess, stream: str) -> dict[int, tuple[int, int]]:
    with server.connect(autocommit=True) as conn:
        conn.execute("SELECT sqlext_drain(60)")
        return {account: (events, total) for account, events, total in conn.execute(
            f"SELECT account, events, total FROM {stream}_balances")}


def _fail_once(marker: str) -> bool:
    """Fails one task attempt of the query (the first to get here)."""
    context = TaskContext.get()
    if context is not None and context.partitionId() == 1 and not Path(marker).exists():
        Path(marker).touch()
        raise RuntimeError("injected task failure")
    return True


def sink(spark: SparkSession, server: ServerProcess, stream: str, source: Path,
         checkpoint: Path, fail_marker: Path | None = None) -> StreamingQuery:
    events: DataFrame = spark.readStream.schema(EVENTS).option(
        "maxFilesPerTrigger", 2).json(str(source)).repartition(2)
    if fail_marker is not None:
        marker = str(fail_marker)
        flaky = F.udf(lambda account: _fail_once(marker), BooleanType())
        events = events.filter(flaky("account"))
    return (events.writeStream.format("sqlext").option("url", source_url(server))
            .option("table", stream).option("checkpointLocation", str(checkpoint)).start())


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_sink_is_exactly_once_through_failures_and_restarts(
        spark: SparkSession, source_server: ServerProcess, tmp_path: Path) -> None:
    stream = unique("ledger")
    with source_server.connect(autocommit=True) as conn:
        ledger_dataflow(conn, stream)
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    add_files(source, 0, 5)
    query = sink(spark, source_server, stream, source, checkpoint, fail_marker=tmp_path / "failed")
    query.processAllAvailable()
    query.stop()
    assert (tmp_path / "failed").exists()
    assert balances(source_server, stream) == oracle(range(6))
    # Spark lost its record of the last micro-batch: it runs it again on restart
    commits = sorted((checkpoint / "commits").iterdir(), key=lambda p: p.name)
    last = [p for p in commits if p.name.isdigit()][-1]
    last.unlink()
    (checkpoint / "commits" / f".{last.name}.crc").unlink(missing_ok=True)
    add_files(source, 6, 9)
    query = sink(spark, source_server, stream, source, checkpoint)
    query.processAllAvailable()
    query.stop()
    assert query.recentProgress[0]["batchId"] == int(last.name)  # it did run again
    assert balances(source_server, stream) == oracle(range(10))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_sink_survives_a_sigkilled_server(spark: SparkSession, source_server: ServerProcess,
                                          tmp_path: Path) -> None:
    port = str(_free_port())
    data = tmp_path / "data"
    server = start_server("--data-dir", str(data), "--port", port)
    stream = unique("ledger")
    try:
        with server.connect(autocommit=True) as conn:
            ledger_dataflow(conn, stream)
        source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
        add_files(source, 0, 29)
        query = sink(spark, server, stream, source, checkpoint)
        while not (checkpoint / "commits").exists() or len(
                [p for p in (checkpoint / "commits").iterdir() if p.name.isdigit()]) < 2:
            query.awaitTermination(0.2)
        server.stop(signal.SIGKILL)
        with pytest.raises(PySparkException):
            query.awaitTermination(120)
        server = start_server("--data-dir", str(data), "--port", port)
        query = sink(spark, server, stream, source, checkpoint)
        query.processAllAvailable()
        query.stop()
        assert balances(server, stream) == oracle(range(30))
    finally:
        server.stop()


def source_query(spark: SparkSession, server: ServerProcess, stream: str, reader: str,
                 checkpoint: Path, seen: list[tuple[int, int, str]]) -> StreamingQuery:
    def collect(frame: DataFrame, _epoch: int) -> None:
        seen.extend((row.batch_id, row.n, row.word) for row in frame.collect())

    frame = (spark.readStream.format("sqlext").option("url", source_url(server))
             .option("stream", stream).option("readerName", reader).load())
    return (frame.writeStream.foreachBatch(collect)
            .option("checkpointLocation", str(checkpoint)).start())


def test_source_delivers_each_batch_once_across_restarts(
        spark: SparkSession, source_server: ServerProcess, tmp_path: Path) -> None:
    stream = unique("words")
    with source_server.connect(autocommit=True) as conn:
        conn.execute(f"CREATE STREAM {stream} (n int, word text)")
        # a procedure consumes each batch: without the reader's hold it would go
        conn.execute(f"CREATE TABLE {stream}_count (n int)")
        conn.execute(f"CREATE PROCEDURE {stream}_c() LANGUAGE sql AS $$ INSERT INTO "
                     f"{stream}_count SELECT count(*) FROM {stream} $$")
        conn.execute(f"CREATE TRIGGER {stream}_t AFTER INSERT ON {stream} "
                     f"EXECUTE PROCEDURE {stream}_c()")

        def batches(first: int, last: int) -> list[tuple[int, int, str]]:
            for batch in range(first, last + 1):
                with conn.transaction():
                    conn.execute(f"INSERT INTO {stream} VALUES (%s, 'a'), (%s, 'b')",
                                 (batch, batch))
            return [(b, b, w) for b in range(first, last + 1) for w in "ab"]

        seen: list[tuple[int, int, str]] = []
        checkpoint = tmp_path / "checkpoint"
        # the query starts first: its reader holds the stream from then on
        query = source_query(spark, source_server, stream, "r1", checkpoint, seen)
        query.processAllAvailable()
        expected = batches(1, 3)
        query.processAllAvailable()
        expected += batches(4, 6)
        query.processAllAvailable()
        query.stop()
        expected += batches(7, 9)
        conn.execute("SELECT sqlext_drain(60)")
        query = source_query(spark, source_server, stream, "r1", checkpoint, seen)
        query.processAllAvailable()
        query.stop()
        assert sorted(seen) == sorted(expected)
        assert [row[0] for row in seen] == sorted(row[0] for row in seen)  # in batch order
        # every batch ran through the dataflow; the reader committed them all
        assert conn.execute(f"SELECT count(*) FROM {stream}_count").fetchone() == (9,)
        # a new reader that asks for batches the stream no longer holds
        with pytest.raises(PySparkException, match=r"\[SQLSTATE 55000\]"):
            late = (spark.readStream.format("sqlext").option("url", source_url(source_server))
                    .option("stream", stream).option("readerName", "late")
                    .option("startingBatch", "1").load())
            late_query = late.writeStream.format("console").option(
                "checkpointLocation", str(tmp_path / "late")).start()
            try:
                late_query.processAllAvailable()
            finally:
                late_query.stop()
