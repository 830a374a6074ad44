"""Structured Streaming through a sqlext dataflow, end to end.

1. Spark's rate source makes sensor readings (a stand-in for Kafka or files).
2. A streaming query writes them into the sqlext stream ``readings`` with
   the "sqlext" data source: each micro-batch's tasks write exactly once,
   even when Spark retries a task or restarts the query from its checkpoint.
3. sqlext's dataflow runs each batch as one transaction: ``check_readings``
   keeps a running total per sensor and sends the readings over a limit into
   the stream ``alerts``.
4. A second streaming query reads ``alerts`` with the "sqlext" source, every
   committed batch once and in order, and appends them to a Parquet folder.

Run it against a running server (``make run``) from the project root:

    .venv/bin/python examples/spark_streaming.py --seconds 20 --out /tmp/alerts

Run it again with the same ``--out``: both queries continue from their
checkpoints (under ``--out``), and the totals still match what was sent.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import psycopg
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQuery

import sqlext.spark

DATAFLOW = """
CREATE STREAM readings (sensor int, reading int, sent_at timestamptz);
CREATE STREAM alerts (sensor int, reading int, sent_at timestamptz);
CREATE TABLE sensor_totals (sensor int PRIMARY KEY, readings bigint, total bigint,
                            alerts bigint);
CREATE PROCEDURE check_readings() LANGUAGE sql AS $$
    INSERT INTO sensor_totals SELECT sensor, count(*), sum(reading),
            sum(CASE WHEN reading >= 95 THEN 1 ELSE 0 END)
        FROM readings GROUP BY sensor ON CONFLICT (sensor) DO UPDATE
        SET readings = sensor_totals.readings + excluded.readings,
            total = sensor_totals.total + excluded.total,
            alerts = sensor_totals.alerts + excluded.alerts;
    INSERT INTO alerts SELECT sensor, reading, sent_at FROM readings WHERE reading >= 95;
$$;
CREATE TRIGGER check_each_batch AFTER INSERT ON readings EXECUTE PROCEDURE check_readings();
"""
WRITE_TASKS = "sqlext.spark write task"
"""How the data source's write tasks show in pg_stat_activity."""
STARTUP_S = 120.0
"""How long past ``--seconds`` the first readings may take to arrive."""


def spark_session() -> SparkSession:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers import sqlext.spark
    spark = (SparkSession.builder.master("local[2,2]").appName("sqlext-streaming")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    sqlext.spark.register(spark)
    return spark


def prepare(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('readings')").fetchone()[0] is None:
            conn.execute(DATAFLOW)


def feed(spark: SparkSession, url: str, checkpoint: Path, rows_per_second: int
         ) -> StreamingQuery:
    """Steps 1-2: readings into the stream, exactly once."""
    readings = (spark.readStream.format("rate").option("rowsPerSecond", rows_per_second)
                .load()
                .select((F.col("value") % 10).cast("int").alias("sensor"),
                        ((F.col("value") * 37) % 100).cast("int").alias("reading"),
                        F.col("timestamp").alias("sent_at")))
    return (readings.writeStream.format("sqlext").option("url", url)
            .option("table", "readings").option("checkpointLocation", str(checkpoint))
            .trigger(processingTime="1 second").start())


def collect_alerts(spark: SparkSession, url: str, out: Path, checkpoint: Path
                   ) -> StreamingQuery:
    """Step 4: the alerts stream's batches, once each, into Parquet."""
    alerts = (spark.readStream.format("sqlext").option("url", url).option("stream", "alerts")
              .option("readerName", "alerts-to-parquet").load())
    return (alerts.writeStream.format("parquet").option("path", str(out))
            .option("checkpointLocation", str(checkpoint))
            .trigger(processingTime="1 second").start())


def _until_writes_end(conn: psycopg.Connection) -> None:
    """A task of the stopped query may still be committing its rows: wait
    until no write task of the data source is connected."""
    while conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                       (WRITE_TASKS,)).fetchone()[0]:
        time.sleep(0.2)


def _has_fed(query: StreamingQuery) -> bool:
    """Whether a micro-batch with rows has been written."""
    return any(progress["numInputRows"] > 0 for progress in query.recentProgress)


def run(spark: SparkSession, url: str, dsn: str, seconds: float, rows_per_second: int,
        out: Path) -> tuple[int, int, int]:
    """Both queries for ``seconds``, then until all is through: (readings
    sqlext processed, alerts it raised, alerts Spark collected), over every
    run with this ``out``."""
    prepare(dsn)
    feeder = feed(spark, url, out / "checkpoints" / "readings", rows_per_second)
    reader = collect_alerts(spark, url, out / "alerts", out / "checkpoints" / "alerts")
    started = time.monotonic()
    while time.monotonic() - started < seconds or not _has_fed(feeder):
        if time.monotonic() - started > seconds + STARTUP_S:
            raise RuntimeError(f"no readings reached sqlext in {seconds + STARTUP_S:.0f} s")
        time.sleep(0.5)
    feeder.stop()  # the rate source never runs dry; a micro-batch cut short runs again next time
    with psycopg.connect(dsn, autocommit=True) as conn:
        _until_writes_end(conn)
        conn.execute("SELECT sqlext_drain(60)")  # every batch through the dataflow
        sent, raised = conn.execute(
            "SELECT sum(readings), sum(alerts) FROM sensor_totals").fetchone()
    reader.processAllAvailable()
    reader.stop()
    return int(sent), int(raised), spark.read.parquet(str(out / "alerts")).count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5499)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rows-per-second", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("spark-streaming-out"))
    args = parser.parse_args()
    spark = spark_session()
    sent, raised, collected = run(
        spark, f"sqlext://{args.host}:{args.port}?user=postgres",
        f"host={args.host} port={args.port} user=postgres dbname=sqlext",
        args.seconds, args.rows_per_second, args.out)
    print(f"readings processed by sqlext: {sent:,}")
    print(f"alerts sqlext raised: {raised:,}; alerts Spark collected: {collected:,}")
    spark.read.parquet(str(args.out / "alerts")).groupBy("sensor").count().orderBy(
        "sensor").show()
    spark.stop()


if __name__ == "__main__":
    main()
