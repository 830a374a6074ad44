"""Per-account balances on a cluster of sqlext nodes, fed and queried by Spark.

1. Spark makes the payments (deterministic, so a run can be repeated).
2. The sqlext data source writes them with ``.option("cluster", ...)``: every
   row goes to the node that owns its account, each Spark task writing one
   batch per node, exactly once under the run's ``writeId`` (a retried task,
   or this script run again with the same ``--write-id``, writes nothing
   twice).
3. Each node runs the dataflow of ``payments.sql`` over its own batches.
4. Spark reads the accounts and alerts of every node (one union) and asks
   what no single node can answer: the largest balances and the alerts per
   kind across the whole cluster.

Start three nodes and apply the dataflow first (README, "A cluster"), then
from the project root:

    .venv/bin/python examples/cluster/spark_payments.py --payments 300000
"""

from __future__ import annotations

import argparse
from pathlib import Path

import psycopg
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sqlext.spark
from sqlext.cluster.cluster_file import load

HERE = Path(__file__).resolve().parent
ACCOUNTS = 20_000
KINDS = ["card", "transfer", "cash"]


def spark_session() -> SparkSession:
    return (SparkSession.builder.master("local[2,2]").appName("sqlext-cluster-payments")
            .config("spark.sql.session.timeZone", "UTC").getOrCreate())


def make_payments(spark: SparkSession, count: int, partitions: int = 4) -> DataFrame:
    """``count`` payments over ACCOUNTS accounts; every 97th is large."""
    return spark.range(count, numPartitions=partitions).select(
        ((F.col("id") * 7919) % ACCOUNTS + 1).alias("account"),
        F.when(F.col("id") % 97 == 0, F.lit(12_500))
        .otherwise((F.col("id") % 400) - 150).cast("decimal(12,2)").alias("amount"),
        F.element_at(F.array(*[F.lit(kind) for kind in KINDS]),
                     (F.col("id") % len(KINDS) + 1).cast("int")).alias("kind"))


def write_payments(payments: DataFrame, cluster: str, write_id: str) -> None:
    (payments.write.format("sqlext").option("cluster", cluster).option("stream", "payments")
     .option("writeId", write_id).mode("append").save())


def drain(cluster: str) -> None:
    """Wait until every node's dataflow has applied every batch it took."""
    for node in load(cluster).nodes:
        with psycopg.connect(**node.address.connect_arguments(), autocommit=True) as conn:
            conn.execute("SELECT sqlext_drain(600)")


def read(spark: SparkSession, cluster: str, table: str) -> DataFrame:
    return spark.read.format("sqlext").option("cluster", cluster).option("table", table).load()


def largest_balances(spark: SparkSession, cluster: str, top: int = 5) -> DataFrame:
    return read(spark, cluster, "accounts").orderBy(F.desc("balance"), "id").limit(top)


def alerts_per_kind(spark: SparkSession, cluster: str) -> DataFrame:
    return (read(spark, cluster, "alerts").groupBy("kind")
            .agg(F.count("*").alias("alerts"), F.sum("amount").alias("amount"))
            .orderBy("kind"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cluster", default=str(HERE / "cluster.toml"))
    parser.add_argument("--payments", type=int, default=300_000)
    parser.add_argument("--write-id", default="payments-run-1",
                        help="the same id again writes nothing twice")
    args = parser.parse_args()
    spark = spark_session()
    spark.sparkContext.setLogLevel("ERROR")
    sqlext.spark.register(spark)
    write_payments(make_payments(spark, args.payments), args.cluster, args.write_id)
    drain(args.cluster)
    totals = read(spark, args.cluster, "accounts").agg(
        F.count("*").alias("accounts"), F.sum("payments").alias("payments"),
        F.sum("balance").alias("balance")).first()
    print(f"{totals['accounts']:,} accounts, {totals['payments']:,} payments applied, "
          f"{totals['balance']} in total")
    largest_balances(spark, args.cluster).show()
    alerts_per_kind(spark, args.cluster).show()
    spark.stop()


if __name__ == "__main__":
    main()
