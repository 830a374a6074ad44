"""sqlext as a Spark data source (format "sqlext"), built on PySpark's
Python data source API::

    import sqlext.spark
    sqlext.spark.register(spark)
    df = spark.read.format("sqlext").option("url", "sqlext://127.0.0.1:5499") \\
        .option("table", "votes").load()

Reads and writes move typed columns as Arrow streams over COPY; writes are
exactly once (``sqlext.spark.ledger``); a partitioned read sees one
snapshot; Structured Streaming reads a stream's batches by id and writes
micro-batches exactly once. ``.option("cluster", ...)`` in place of
``url`` works on every node of a cluster of hash-partitioned nodes: writes
route each row to its owner (``sqlext.spark.routing``), reads union every
node's partitions. This package is a client: the server never imports it.
"""

from __future__ import annotations

from pyspark.sql import SparkSession

from sqlext.spark.problems import OptionError, SqlextError
from sqlext.spark.source import SqlextDataSource

__all__ = ["OptionError", "SqlextDataSource", "SqlextError", "register"]


def register(spark: SparkSession) -> None:
    """Make format "sqlext" known to ``spark`` (once per session)."""
    spark.dataSource.register(SqlextDataSource)
