"""examples/spark_streaming.py end to end, twice on one output folder (the
second run continues both queries from their checkpoints)."""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession

import sqlext.spark
from tests.fixtures.example import load_example
from tests.fixtures.servers import start_server
from tests.fixtures.spark import source_url


def alerts_among(rows: int) -> int:
    """How many of the first ``rows`` readings are at or over the limit."""
    return sum(1 for i in range(rows) if i * 37 % 100 >= 95)


def test_streaming_example_keeps_every_alert_once(spark: SparkSession, tmp_path: Path) -> None:
    example = load_example("spark_streaming")
    sqlext.spark.register(spark)
    server = start_server("--in-memory")
    try:
        url = source_url(server)
        assert example.run(spark, url, server.dsn, 4, 100, tmp_path) == (
            400, alerts_among(400), alerts_among(400))
        # new files: both queries go on from their checkpoints
        assert example.run(spark, url, server.dsn, 3, 100, tmp_path) == (
            700, alerts_among(700), alerts_among(700))
    finally:
        server.stop()
