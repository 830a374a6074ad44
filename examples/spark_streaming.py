"""Structured Streaming through a sqlext dataflow, end to end.

1. Sensor readings arrive as JSON files in a folder (a stand-in for Kafka);
   each run of this script drops ``--files`` more.
2. A streaming query (Spark's file source) writes them into the sqlext
   stream ``readings`` with
   the "sqlext" data source: each micro-batch's tasks write exactly once,
   even when Spark retries a task or restarts the query from its checkpoint.
3. sqlext's dataflow runs each batch as one transaction: ``check_readings``
   keeps a running total per sensor and sends the readings over a limit into
   the stream ``alerts``.
4. A second streaming query reads ``alerts`` with the "sqlext" source, every
   committed batch once and in order, and appends them to a Parquet folder.

Run it against a running server (``make run``) from the project root:

    .venv/bin/python examples/spark_streaming.py --files 10 --out /tmp/alerts

Run it again with the same ``--out``: new files arrive, both queries continue
from their checkpoints (under ``--out``), and the totals still match what
was sent.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
from pyspark.sql import SparkSession
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
READING = "id bigint, sensor int, reading int, sent_at timestamp"
START = datetime(2026, 11, 27, tzinfo=UTC)
"""When reading 0 was sent; reading i, i seconds later."""


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


def arrive(incoming: Path, files: int, rows_per_file: int) -> None:
    """Step 1: ``files`` more files of readings (ids go on from the last run)."""
    incoming.mkdir(parents=True, exist_ok=True)
    first = len(list(incoming.glob("readings-*.json")))
    for number in range(first, first + files):
        rows = range(number * rows_per_file, (number + 1) * rows_per_file)
        lines = [json.dumps({"id": i, "sensor": i % 10, "reading": i * 37 % 100,
                             "sent_at": (START + timedelta(seconds=i)).isoformat()})
                 for i in rows]
        staged = incoming / f".readings-{number:05d}.tmp"  # a file appears whole
        staged.write_text("\n".join(lines) + "\n")
        staged.rename(incoming / f"readings-{number:05d}.json")


def feed(spark: SparkSession, url: str, incoming: Path, checkpoint: Path) -> StreamingQuery:
    """Step 2: readings into the stream, exactly once."""
    readings = (spark.readStream.schema(READING).option("maxFilesPerTrigger", 2)
                .json(str(incoming)).select("sensor", "reading", "sent_at"))
    return (readings.writeStream.format("sqlext").option("url", url)
            .option("table", "readings").option("checkpointLocation", str(checkpoint))
            .start())


def collect_alerts(spark: SparkSession, url: str, out: Path, checkpoint: Path
                   ) -> StreamingQuery:
    """Step 4: the alerts stream's batches, once each, into Parquet."""
    alerts = (spark.readStream.format("sqlext").option("url", url).option("stream", "alerts")
              .option("readerName", "alerts-to-parquet").load())
    return (alerts.writeStream.format("parquet").option("path", str(out))
            .option("checkpointLocation", str(checkpoint))
            .trigger(processingTime="1 second").start())


def run(spark: SparkSession, url: str, dsn: str, files: int, rows_per_file: int,
        out: Path) -> tuple[int, int, int]:
    """One run: new files, both queries until all is through. Returns
    (readings sqlext processed, alerts it raised, alerts Spark collected),
    over every run with this ``out``."""
    prepare(dsn)
    arrive(out / "incoming", files, rows_per_file)
    feeder = feed(spark, url, out / "incoming", out / "checkpoints" / "readings")
    reader = collect_alerts(spark, url, out / "alerts", out / "checkpoints" / "alerts")
    feeder.processAllAvailable()
    feeder.stop()
    with psycopg.connect(dsn, autocommit=True) as conn:
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
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--rows-per-file", type=int, default=500)
    parser.add_argument("--out", type=Path, default=Path("spark-streaming-out"))
    args = parser.parse_args()
    spark = spark_session()
    sent, raised, collected = run(
        spark, f"sqlext://{args.host}:{args.port}?user=postgres",
        f"host={args.host} port={args.port} user=postgres dbname=sqlext",
        args.files, args.rows_per_file, args.out)
    print(f"readings processed by sqlext: {sent:,}")
    print(f"alerts sqlext raised: {raised:,}; alerts Spark collected: {collected:,}")
    spark.read.parquet(str(args.out / "alerts")).groupBy("sensor").count().orderBy(
        "sensor").show()
    spark.stop()


if __name__ == "__main__":
    main()
