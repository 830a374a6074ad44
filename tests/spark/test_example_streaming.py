"""examples/spark_streaming.py end to end, twice on one output folder (the
second run continues both queries from their checkpoints)."""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession

import sqlext.spark
from tests.fixtures.example import load_example
from tests.fixtures.servers import start_server
from tests.fixtures.spark import source_url


def test_streaming_example_keeps_every_alert_once(spark: SparkSession, tmp_path: Path) -> None:
    example = load_example("spark_streaming")
    sqlext.spark.register(spark)
    server = start_server("--in-memory")
    try:
        url = source_url(server)
        first = example.run(spark, url, server.dsn, 4, 100, tmp_path)
        assert first[0] >= 300 and first[1] > 0
        assert first[1] == first[2]
        second = example.run(spark, url, server.dsn, 3, 100, tmp_path)
        assert second[0] > first[0]
        assert second[1] == second[2] > first[1]
    finally:
        server.stop()
