"""Spark writing into streams: each task's transaction is one batch that
drives the dataflow; client batch ids make retried tasks and re-run jobs
harmless; partitioned reads never see a batch half way through the dataflow."""

from __future__ import annotations

import threading
from pathlib import Path

import psycopg
import pytest
from pyspark import TaskContext
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType

from tests.fixtures.servers import unique
from tests.fixtures.spark import Jdbc

ROWS_PER_PARTITION = 1000
PARTITIONS = 4


def orders(spark: SparkSession, first_batch: int | None) -> DataFrame:
    """4 partitions of 1000 orders; partition p holds ids 1000p .. 1000p+999,
    and with ``first_batch`` its rows carry batch id first_batch + p."""
    frame = spark.range(0, PARTITIONS * ROWS_PER_PARTITION, numPartitions=PARTITIONS).select(
        F.col("id").cast("int").alias("id"), (F.col("id") % 97).cast("int").alias("amount"))
    if first_batch is None:
        return frame
    return frame.withColumn("bid", F.lit(first_batch) + F.spark_partition_id().cast("long"))


def dataflow(conn: psycopg.Connection, stream: str, batch_column: bool) -> None:
    """stream -> ingest() -> processed + batch_log (no keys: duplicates would show)."""
    columns = "id int NOT NULL, amount int NOT NULL"
    options = ""
    if batch_column:
        columns, options = f"bid bigint NOT NULL, {columns}", " WITH (batch_column = 'bid')"
    conn.execute(f"CREATE STREAM {stream} ({columns}){options}")
    conn.execute(f"CREATE TABLE {stream}_processed (id int, batch bigint, amount int)")
    conn.execute(f"CREATE TABLE {stream}_batches (batch bigint, n int)")
    conn.execute(f"""CREATE PROCEDURE {stream}_ingest() LANGUAGE sql AS $$
        INSERT INTO {stream}_processed SELECT id, batch_id, amount FROM {stream};
        INSERT INTO {stream}_batches SELECT batch_id, count(*) FROM {stream} GROUP BY batch_id;
    $$""")
    conn.execute(f"CREATE TRIGGER {stream}_t AFTER INSERT ON {stream} "
                 f"EXECUTE PROCEDURE {stream}_ingest()")


def processed(conn: psycopg.Connection, stream: str) -> tuple[list[tuple[int, int]], int, int]:
    """(batch, rows) per processed batch, rows processed, distinct ids processed."""
    conn.execute("SELECT sqlext_drain(60)")
    batches = conn.execute(f"SELECT batch, n FROM {stream}_batches ORDER BY batch").fetchall()
    total, distinct = conn.execute(
        f"SELECT count(*), count(DISTINCT id) FROM {stream}_processed").fetchone()
    return batches, total, distinct


def test_each_task_is_one_batch_of_the_dataflow(spark: SparkSession, jdbc: Jdbc) -> None:
    stream = unique("orders")
    with psycopg.connect(jdbc.server.dsn, autocommit=True) as conn:
        dataflow(conn, stream, batch_column=False)
        jdbc.write(orders(spark, None), stream, "append", batchsize=300)
        batches, total, distinct = processed(conn, stream)
    assert [n for _, n in batches] == [ROWS_PER_PARTITION] * PARTITIONS
    assert sorted(b for b, _ in batches) == [1, 2, 3, 4]
    assert total == distinct == PARTITIONS * ROWS_PER_PARTITION


def test_retried_task_and_rerun_job_process_no_batch_twice(
        spark: SparkSession, jdbc: Jdbc, tmp_path: Path) -> None:
    stream = unique("orders")
    marker = tmp_path / "failed-once"

    def fail_first_attempt(order_id: int) -> int:
        # partition 2 fails at its 900th row, after 800 rows went to the server
        # inside the task's transaction; the second attempt runs through
        context = TaskContext.get()
        if order_id == 2899 and context is not None and context.attemptNumber() == 0:
            marker.write_text(str(context.partitionId()))
            raise RuntimeError("injected task failure")
        return order_id

    flaky = F.udf(fail_first_attempt, IntegerType(), useArrow=False)
    with psycopg.connect(jdbc.server.dsn, autocommit=True) as conn:
        dataflow(conn, stream, batch_column=True)
        frame = orders(spark, first_batch=100).withColumn("id", flaky("id"))
        jdbc.write(frame, stream, "append", batchsize=100)
        assert marker.read_text() == "2", "the first attempt of partition 2 did not fail"
        batches, total, distinct = processed(conn, stream)
        assert batches == [(100 + p, ROWS_PER_PARTITION) for p in range(PARTITIONS)]
        assert total == distinct == PARTITIONS * ROWS_PER_PARTITION
        # the whole job again (a driver restarted): every batch is a re-delivery
        jdbc.write(orders(spark, first_batch=100), stream, "append")
        assert processed(conn, stream) == (batches, total, distinct)
        assert conn.execute("SELECT last_batch, skipped_batches FROM sqlext_streams "
                            "WHERE name = %s", [stream]).fetchone() == (103, PARTITIONS)


SPAN = 1_000_000
"""The id range of a read partition, and the most transfer batches a test
writes (while Spark starts its JVM, the writer may make 20,000)."""


def test_partitioned_reads_see_no_batch_half_way(spark: SparkSession, jdbc: Jdbc) -> None:
    """Each transfer batch runs through two procedures (debit, then credit),
    each its own transaction; a read of the ledger must see both or neither."""
    name = unique("xfer")
    with psycopg.connect(jdbc.server.dsn, autocommit=True) as conn:
        conn.execute(f"CREATE STREAM {name} (id int NOT NULL, amount int NOT NULL)")
        conn.execute(f"CREATE STREAM {name}_credits (id int NOT NULL, amount int NOT NULL)")
        conn.execute(f"CREATE TABLE {name}_ledger (id int, side text, amount int)")
        conn.execute(f"""CREATE PROCEDURE {name}_debit() LANGUAGE sql AS $$
            INSERT INTO {name}_ledger SELECT id, 'debit', -amount FROM {name};
            INSERT INTO {name}_credits SELECT id, amount FROM {name};
        $$""")
        conn.execute(f"""CREATE PROCEDURE {name}_credit() LANGUAGE sql AS $$
            INSERT INTO {name}_ledger SELECT id, 'credit', amount FROM {name}_credits;
        $$""")
        conn.execute(f"CREATE TRIGGER {name}_t1 AFTER INSERT ON {name} "
                     f"EXECUTE PROCEDURE {name}_debit()")
        conn.execute(f"CREATE TRIGGER {name}_t2 AFTER INSERT ON {name}_credits "
                     f"EXECUTE PROCEDURE {name}_credit()")

    stop = threading.Event()
    written: list[int] = []

    def write_batches() -> None:
        with psycopg.connect(jdbc.server.dsn, autocommit=True) as writer:
            next_id = 0
            while not stop.is_set() and next_id < SPAN:  # an id is never written twice
                # one batch spans every read partition's id range
                ids = [next_id + k * SPAN for k in range(4)]
                with writer.transaction():
                    writer.cursor().executemany(
                        f"INSERT INTO {name} VALUES (%s, %s)", [(i, 1 + i % 7) for i in ids])
                written.extend(ids)
                next_id += 1

    thread = threading.Thread(target=write_batches)
    thread.start()
    try:
        reads = []
        for _ in range(4):
            ledger = jdbc.read(spark, dbtable=f"{name}_ledger", partitionColumn="id",
                               lowerBound=0, upperBound=4 * SPAN, numPartitions=4,
                               fetchsize=50).load()
            per_id = ledger.groupBy("id").agg(F.count("*").alias("n"),
                                              F.sum("amount").alias("balance"))
            reads.append(per_id.where("n != 2 OR balance != 0").count())
            assert per_id.count() > 0
    finally:
        stop.set()
        thread.join()
    assert reads == [0, 0, 0, 0]
    assert len(written) > 0


@pytest.mark.parametrize("mode", ["overwrite"])
def test_streams_refuse_what_would_rewrite_them(spark: SparkSession, jdbc: Jdbc,
                                                mode: str) -> None:
    stream = unique("orders")
    with psycopg.connect(jdbc.server.dsn, autocommit=True) as conn:
        dataflow(conn, stream, batch_column=False)
    with pytest.raises(Exception, match=stream):
        jdbc.write(orders(spark, None), stream, mode)
