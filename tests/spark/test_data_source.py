"""The "sqlext" Spark data source in batch jobs: exact schemas, every type
there and back, partitioned reads of one snapshot, filters sqlext applies,
writes that are exactly once, and sqlext's errors as Spark shows them."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest
from pyspark import TaskContext
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DecimalType,
    IntegerType,
    StringType,
    TimestampNTZType,
    TimestampType,
)

from tests.fixtures import all_types
from tests.fixtures.servers import ServerProcess, unique
from tests.fixtures.spark import source_url


@pytest.fixture
def conn(source_server: ServerProcess) -> Iterator[psycopg.Connection]:
    """A connection to the data source's server (not the suite's ``server``)."""
    with source_server.connect(autocommit=True) as connection:
        yield connection


def read(spark: SparkSession, server: ServerProcess, **options: object) -> DataFrame:
    reader = spark.read.format("sqlext").option("url", source_url(server))
    for key, value in options.items():
        reader = reader.option(key, str(value))
    return reader.load()


def write(frame: DataFrame, server: ServerProcess, mode: str = "append",
          **options: object) -> None:
    writer = frame.write.format("sqlext").option("url", source_url(server)).mode(mode)
    for key, value in options.items():
        writer = writer.option(key, str(value))
    writer.save()


def test_schema_is_exact(spark: SparkSession, source_server: ServerProcess,
                         conn: psycopg.Connection) -> None:
    table = unique("typed")
    conn.execute(f"CREATE TABLE {table} (id int, amount numeric(12,3), at timestamptz, "
                 "local timestamp, tags text[])")
    fields = {f.name: f.dataType for f in read(spark, source_server, table=table).schema.fields}
    assert fields == {"id": IntegerType(), "amount": DecimalType(12, 3),
                      "at": TimestampType(), "local": TimestampNTZType(),
                      "tags": ArrayType(StringType(), True)}


def test_every_type_goes_there_and_back(spark: SparkSession, source_server: ServerProcess,
                                        conn: psycopg.Connection) -> None:
    source, copy = unique("all_types"), unique("all_types_copy")
    all_types.fill(conn, source)
    conn.execute(f"CREATE TABLE {copy} ({all_types.COLUMNS})")
    frame = read(spark, source_server, table=source)
    assert frame.count() == len(all_types.VALUES)
    write(frame, source_server, table=copy)
    assert all_types.rows(conn, copy) == all_types.rows(conn, source)


def test_partitioned_read_splits_on_the_primary_key(spark: SparkSession,
                                                    source_server: ServerProcess,
                                                    conn: psycopg.Connection) -> None:
    table = unique("keyed")
    conn.execute(f"CREATE TABLE {table} (k text PRIMARY KEY, v int)")
    conn.execute(f"INSERT INTO {table} SELECT 'key' || g, g FROM generate_series(1, 5000) g")
    frame = read(spark, source_server, table=table, numPartitions=4)
    assert frame.rdd.getNumPartitions() == 4
    sizes = frame.rdd.glom().map(len).collect()
    assert sum(sizes) == 5000 and min(sizes) > 1000
    assert frame.agg(F.sum("v")).first()[0] == 5000 * 5001 // 2


def test_partition_column_and_bounds_split_like_spark_jdbc(spark: SparkSession,
                                                           source_server: ServerProcess,
                                                           conn: psycopg.Connection) -> None:
    table = unique("ranged")
    conn.execute(f"CREATE TABLE {table} (n int, v text)")
    conn.execute(f"INSERT INTO {table} SELECT g, 'v' FROM generate_series(-50, 250) g")
    conn.execute(f"INSERT INTO {table} VALUES (NULL, 'null')")
    frame = read(spark, source_server, query=f"SELECT * FROM {table}", partitionColumn="n",
                 lowerBound=0, upperBound=200, numPartitions=4)
    assert frame.rdd.getNumPartitions() == 4
    # n < 50 or NULL (101 rows), [50, 100), [100, 150), n >= 150 (101 rows)
    assert frame.rdd.glom().map(len).collect() == [101, 50, 50, 101]
    assert frame.count() == 302


def test_all_partitions_read_one_snapshot(spark: SparkSession, source_server: ServerProcess,
                                          conn: psycopg.Connection) -> None:
    """Transfers between accounts keep the total at 1,000,000 in every
    committed state; partitions read while they commit must add up to it."""
    table = unique("accounts")
    conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, balance int)")
    conn.execute(f"INSERT INTO {table} SELECT g, 1000 FROM generate_series(1, 1000) g")
    stop = threading.Event()

    def transfer() -> None:
        with source_server.connect(autocommit=True) as writer:
            step = 0
            while not stop.is_set():
                step += 1
                source, target = step % 1000 + 1, (step * 7919) % 1000 + 1
                with writer.transaction():
                    writer.execute(f"UPDATE {table} SET balance = balance - 5 WHERE id = %s",
                                   (source,))
                    writer.execute(f"UPDATE {table} SET balance = balance + 5 WHERE id = %s",
                                   (target,))

    mover = threading.Thread(target=transfer)
    mover.start()
    try:
        totals = [read(spark, source_server, table=table, numPartitions=4).agg(
            F.sum("balance")).first()[0] for _ in range(4)]
    finally:
        stop.set()
        mover.join()
    assert totals == [1_000_000] * 4


def test_filters_give_exact_answers(spark: SparkSession, source_server: ServerProcess,
                                               conn: psycopg.Connection) -> None:
    table = unique("filtered")
    conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, name text, amount numeric(8,2), "
                 "ratio float8, day date)")
    conn.execute(f"""INSERT INTO {table} VALUES (1, 'a%b', 1.50, 'NaN', '2024-01-01'),
        (2, 'a_b', -2.25, 0.5, '2024-02-01'), (3, 'ab', NULL, NULL, NULL),
        (4, NULL, 10.00, '-Infinity', '2023-12-31'), (5, 'x\\y', 0, 1e300, '2024-01-01')""")
    frame = read(spark, source_server, table=table)
    cases = {
        "name LIKE 'a\\\\%%'": [1],
        "startswith(name, 'a_')": [2],
        "endswith(name, '%b')": [1],
        "contains(name, '\\\\')": [5],
        "amount >= 0": [1, 4, 5],
        "amount IN (1.50, 10.00)": [1, 4],
        "NOT (amount < 0)": [1, 4, 5],
        "ratio > 1": [1, 5],
        "isnan(ratio)": [1],
        "day = DATE'2024-01-01'": [1, 5],
        "name IS NULL OR ratio IS NULL": [3, 4],
        "NOT (name <=> 'ab')": [1, 2, 4, 5],
    }
    found = {condition: sorted(r.id for r in frame.filter(condition).collect())
             for condition in cases}
    assert found == cases
    # a query without filters after filtered ones reads every row (PySpark
    # 4.3 would reuse a reader that had filters pushed into it)
    assert frame.count() == 5


def test_writes_go_in_one_transaction_per_task_and_a_rerun_is_skipped(
        spark: SparkSession, source_server: ServerProcess, conn: psycopg.Connection) -> None:
    table = unique("loaded")
    conn.execute(f"CREATE TABLE {table} (id bigint, part int)")
    frame = spark.range(0, 3000, numPartitions=3).select(
        "id", F.spark_partition_id().alias("part"))
    write(frame, source_server, table=table, writeId="load-1")
    write(frame, source_server, table=table, writeId="load-1")  # the same job again: skipped
    assert conn.execute(f"SELECT count(*), count(DISTINCT id) FROM {table}").fetchone() == (
        3000, 3000)
    keys = conn.execute("SELECT part, row_count FROM sqlext_spark.writes WHERE target = %s "
                        "ORDER BY part", (f"public.{table}",)).fetchall()
    assert keys == [(0, 1000), (1, 1000), (2, 1000)]
    write(frame, source_server, table=table)  # another job: appended
    assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (6000,)


def _fail_first_attempt(partition: int, marker: str) -> bool:
    """Fails partition 1's first attempt (after its rows were read), once."""
    context = TaskContext.get()
    if context is not None and context.partitionId() == 1 and context.attemptNumber() == 0:
        Path(marker).touch()
        raise RuntimeError("injected failure of the first attempt")
    return True


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_a_failed_task_leaves_every_row_once(spark: SparkSession, source_server: ServerProcess,
                                             conn: psycopg.Connection, tmp_path: Path) -> None:
    table = unique("retried")
    conn.execute(f"CREATE TABLE {table} (id bigint)")
    marker = str(tmp_path / "failed")
    flaky = F.udf(lambda partition: _fail_first_attempt(partition, marker), BooleanType())
    frame = spark.range(0, 2000, numPartitions=2).filter(flaky(F.spark_partition_id()))
    write(frame, source_server, table=table)
    assert Path(marker).exists()
    assert conn.execute(f"SELECT count(*), count(DISTINCT id) FROM {table}").fetchone() == (
        2000, 2000)


def test_overwrite_replaces_a_table_and_can_be_rerun(spark: SparkSession,
                                                     source_server: ServerProcess,
                                                     conn: psycopg.Connection) -> None:
    table = unique("replaced")
    conn.execute(f"CREATE TABLE {table} (id bigint)")
    conn.execute(f"INSERT INTO {table} VALUES (-1), (-2)")
    frame = spark.range(0, 100, numPartitions=2)
    write(frame, source_server, "overwrite", table=table, writeId="nightly")
    write(frame, source_server, "overwrite", table=table, writeId="nightly")
    assert conn.execute(f"SELECT count(*), min(id) FROM {table}").fetchone() == (100, 0)


def test_each_task_writes_one_batch_of_a_stream(spark: SparkSession, source_server: ServerProcess,
                                                conn: psycopg.Connection) -> None:
    stream = unique("orders")
    conn.execute(f"CREATE STREAM {stream} (id bigint, amount int)")
    conn.execute(f"CREATE TABLE {stream}_seen (batch bigint, n bigint)")
    conn.execute(f"CREATE PROCEDURE {stream}_count() LANGUAGE sql AS $$ INSERT INTO "
                 f"{stream}_seen SELECT batch_id, count(*) FROM {stream} GROUP BY batch_id $$")
    conn.execute(f"CREATE TRIGGER {stream}_t AFTER INSERT ON {stream} "
                 f"EXECUTE PROCEDURE {stream}_count()")
    frame = spark.range(0, 400, numPartitions=4).select(
        "id", (F.col("id") % 10).cast("int").alias("amount"))
    write(frame, source_server, table=stream, writeId="orders-1")
    write(frame, source_server, table=stream, writeId="orders-1")
    conn.execute("SELECT sqlext_drain(60)")
    assert conn.execute(f"SELECT batch, n FROM {stream}_seen ORDER BY batch").fetchall() == [
        (1, 100), (2, 100), (3, 100), (4, 100)]


def test_a_batch_column_stream_gets_its_ids_from_sqlext(spark: SparkSession,
                                                        source_server: ServerProcess,
                                                        conn: psycopg.Connection) -> None:
    stream = unique("voted")
    conn.execute(f"CREATE STREAM {stream} (vote_id bigint, phone bigint) "
                 "WITH (batch_column = 'vote_id')")
    conn.execute(f"INSERT INTO {stream} VALUES (7, 1)")
    write(spark.range(0, 300, numPartitions=3).withColumnRenamed("id", "phone"), source_server,
          table=stream)
    batches = conn.execute(f"SELECT batch_id, count(*) FROM {stream} GROUP BY batch_id "
                           "ORDER BY batch_id").fetchall()
    assert batches == [(7, 1), (8, 100), (9, 100), (10, 100)]
    read_back = read(spark, source_server, stream=stream, numPartitions=2)
    assert read_back.rdd.getNumPartitions() == 2
    assert sorted(read_back.groupBy("batch_id").count().collect()) == [
        (7, 1), (8, 100), (9, 100), (10, 100)]


def test_sqlext_errors_reach_spark_with_their_sqlstate(spark: SparkSession,
                                                       source_server: ServerProcess,
                                                       conn: psycopg.Connection) -> None:
    table = unique("checked")
    conn.execute(f"CREATE TABLE {table} (id bigint PRIMARY KEY, amount numeric(4,1) "
                 "CHECK (amount > 0))")
    with pytest.raises(PySparkException, match=r"\[SQLSTATE 23514\].*check constraint"):
        write(spark.createDataFrame([(1, Decimal("-1.0"))], "id long, amount decimal(4,1)"),
              source_server, table=table)
    with pytest.raises(PySparkException, match=r"\[SQLSTATE 42P01\].*no_such_table"):
        read(spark, source_server, table="no_such_table").count()
    assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)


@pytest.mark.parametrize(("options", "message"), [
    ({}, 'one of the options "table", "query" or "stream" is required'),
    ({"table": "t", "query": "SELECT 1"}, "give one of the options"),
    ({"table": "t", "numPartitions": "two"}, 'option "numPartitions" must be an integer'),
    ({"table": "t", "colour": "red"}, 'unknown option "colour"'),
    ({"table": "t", "lowerBound": "1"}, 'option "lowerBound" needs option "partitionColumn"'),
])
def test_bad_options_are_named(spark: SparkSession, source_server: ServerProcess,
                               options: dict[str, str], message: str) -> None:
    with pytest.raises(PySparkException, match=message):
        read(spark, source_server, **options).schema  # noqa: B018 - the schema is what fails


def test_a_bad_url_is_named(spark: SparkSession, source_server: ServerProcess) -> None:
    with pytest.raises(PySparkException,
                       match='option "url": "http://x" is not a node URL like sqlext://'):
        spark.read.format("sqlext").option("url", "http://x").option("table", "t").load()
