"""A Spark pipeline around sqlext, end to end.

1. Spark generates a raw input: orders as CSV files.
2. Spark reads them and writes them into the sqlext stream ``orders_in``
   over JDBC. Each partition is one Spark task, one transaction, one batch,
   named by a deterministic batch id (run number * 1000 + partition), so a
   retried task or a re-run of this script processes no batch twice.
3. sqlext's dataflow (examples/orders/orders.sql) processes every batch.
4. Spark reads the result tables back over JDBC (a partitioned read) and
   writes a report (CSV); the full order history leaves sqlext as Parquet
   (COPY ... TO ... FORMAT parquet), which Spark reads directly.

Run it against a running server (``make run``) from the project root:

    .venv/bin/python examples/spark_pipeline.py --orders 20000 --out /tmp/report

The server's COPY directory (``--copy-dir``, by default ./sqlext-data/files)
must be readable here, as it is when both run on one machine.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import psycopg
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

DATAFLOW = Path(__file__).resolve().parent / "orders" / "orders.sql"
JDBC_JAR = "/usr/share/java/postgresql.jar"
PRODUCTS = ["tea", "coffee", "cup", "kettle", "grinder", "filter", "beans", "mug"]


@dataclass(frozen=True)
class Target:
    """Where sqlext is: its JDBC URL (Spark), DSN (psycopg) and COPY directory."""

    host: str = "127.0.0.1"
    port: int = 5499
    copy_dir: Path = Path("sqlext-data/files")

    @property
    def url(self) -> str:
        return f"jdbc:postgresql://{self.host}:{self.port}/sqlext"

    @property
    def dsn(self) -> str:
        return f"host={self.host} port={self.port} user=postgres dbname=sqlext"

    def jdbc_options(self) -> dict[str, str]:
        return {"url": self.url, "user": "postgres", "driver": "org.postgresql.Driver"}


def spark_session() -> SparkSession:
    return (SparkSession.builder.master("local[2,2]").appName("sqlext-orders")
            .config("spark.jars", JDBC_JAR)
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
            .getOrCreate())


def generate_raw_orders(spark: SparkSession, count: int, directory: Path) -> None:
    """Step 1: deterministic orders as CSV files (the pipeline's raw input)."""
    orders = spark.range(1, count + 1).select(
        F.col("id").alias("order_id"),
        (F.abs(F.hash("id", F.lit("customer"))) % 500 + 1).cast("int").alias("customer"),
        F.element_at(F.array(*[F.lit(p) for p in PRODUCTS]),
                     (F.abs(F.hash("id", F.lit("product"))) % len(PRODUCTS) + 1).cast("int")
                     ).alias("product"),
        (F.abs(F.hash("id", F.lit("quantity"))) % 40 + 1).cast("int").alias("quantity"),
        (F.abs(F.hash("id", F.lit("price"))) % 5000 / 100 + 1).cast("decimal(10,2)")
        .alias("unit_price"),
        F.timestamp_seconds(F.lit(1_735_689_600) + F.col("id") * 7).alias("ordered_at"))
    orders.write.mode("overwrite").option("header", True).csv(str(directory))


def read_raw_orders(spark: SparkSession, directory: Path) -> DataFrame:
    schema = ("order_id bigint, customer int, product string, quantity int, "
              "unit_price decimal(10,2), ordered_at timestamp")
    return spark.read.option("header", True).schema(schema).csv(str(directory))


def ingest(orders: DataFrame, target: Target, run: int, partitions: int) -> None:
    """Step 2: each partition becomes one batch with a deterministic id.

    The partitioning must give the same rows to a partition on every attempt
    (hash partitioning on a key does), and the ids of one run must differ from
    every other run's: here run * 1000 + partition."""
    batches = orders.repartition(partitions, "order_id").withColumn(
        "batch", F.lit(run * 1000) + F.spark_partition_id().cast("bigint"))
    (batches.write.format("jdbc").options(**target.jdbc_options())
     .option("dbtable", "orders_in").option("batchsize", 1000)
     .mode("append").save())


def report(spark: SparkSession, target: Target, out: Path) -> DataFrame:
    """Step 4: the results, read over JDBC, joined into a product report."""
    jdbc = spark.read.format("jdbc").options(**target.jdbc_options())
    sales = jdbc.option("dbtable", "product_sales").load()
    orders = (jdbc.option("dbtable", "orders").option("partitionColumn", "order_id")
              .option("lowerBound", 1).option("upperBound", 1_000_000)
              .option("numPartitions", 4).load())
    customers = orders.groupBy("product").agg(F.countDistinct("customer").alias("customers"))
    total = sales.agg(F.sum("revenue")).first()[0]
    result = (sales.join(customers, "product")
              .withColumn("revenue_share", F.round(F.col("revenue") / F.lit(total) * 100, 2))
              .orderBy(F.desc("revenue"), "product"))
    result.coalesce(1).write.mode("overwrite").option("header", True).csv(str(out))
    return result


def export_history(spark: SparkSession, target: Target) -> DataFrame:
    """The order history as Parquet, written by sqlext, read by Spark."""
    with psycopg.connect(target.dsn, autocommit=True) as conn:
        conn.execute("COPY orders TO 'orders_history.parquet' (FORMAT parquet)")
    return spark.read.parquet(str(target.copy_dir.resolve() / "orders_history.parquet"))


def run_pipeline(spark: SparkSession, target: Target, orders: int, work: Path,
                 run: int = 1, partitions: int = 4) -> DataFrame:
    with psycopg.connect(target.dsn, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_class WHERE relname = 'orders_in'").fetchone() is None:
            conn.execute(DATAFLOW.read_text())
    generate_raw_orders(spark, orders, work / "raw")
    ingest(read_raw_orders(spark, work / "raw"), target, run, partitions)
    with psycopg.connect(target.dsn, autocommit=True) as conn:
        conn.execute("SELECT sqlext_drain(600)")  # every batch through the dataflow
    return report(spark, target, work / "report")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=20_000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5499)
    parser.add_argument("--copy-dir", type=Path, default=Path("sqlext-data/files"))
    parser.add_argument("--out", type=Path, default=Path("spark-pipeline-out"))
    parser.add_argument("--run", type=int, default=1,
                        help="run number: the same number again re-delivers the same batches")
    args = parser.parse_args()
    spark = spark_session()
    spark.sparkContext.setLogLevel("ERROR")
    target = Target(args.host, args.port, args.copy_dir)
    result = run_pipeline(spark, target, args.orders, args.out, args.run)
    result.show(truncate=False)
    history = export_history(spark, target)
    print(f"order history: {history.count():,} orders in Parquet, "
          f"{history.agg(F.sum('amount')).first()[0]} in total")
    print(f"report written to {args.out / 'report'}")
    spark.stop()


if __name__ == "__main__":
    main()
