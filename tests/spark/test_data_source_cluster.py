"""The "sqlext" Spark data source over a cluster of 3 nodes on loopback
(``option("cluster", ...)``): writes land each row on its owner exactly
once per node, through a rerun, a node SIGKILLed mid-job and a node that is
down; replicated tables go to every node and are read from node 0; reads
union every node's partitions; the streaming sink and source work per node
across a node restart. The oracle is ``catalog.partitioning.partition_of``."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQuery
from pyspark.sql.types import LongType, StructField, StructType

from catalog.partitioning import partition_of
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.servers import ServerProcess
from tests.fixtures.spark import add_json_files
from tests.fixtures.waiting import wait_until

NODES = 3
Row = tuple[object, ...]


def on_every_node(cluster: LocalCluster, statement: str) -> None:
    for node in cluster.nodes:
        with node.connect(autocommit=True) as conn:
            conn.execute(statement)


def rows_of(node: ServerProcess, query: str) -> list[Row]:
    with node.connect(autocommit=True) as conn:
        return sorted(conn.execute(query).fetchall())


def owned(rows: list[Row], key: Callable[[Row], object], node: int) -> list[Row]:
    """The oracle: the rows node ``node`` owns."""
    return sorted(row for row in rows if partition_of(key(row), NODES) == node)


def assert_owned(cluster: LocalCluster, query: str, oracle: list[Row],
                 key: Callable[[Row], object]) -> None:
    """Every node holds exactly the oracle's rows it owns."""
    for index, node in enumerate(cluster.nodes):
        assert rows_of(node, query) == owned(oracle, key, index), f"node {index}"


ORDERS = ("CREATE TABLE orders (id bigint PRIMARY KEY, customer bigint) "
          "PARTITION BY HASH (customer)")


def write(frame: DataFrame, cluster: LocalCluster, mode: str = "append", **options: object
          ) -> None:
    writer = frame.write.format("sqlext").option("cluster", str(cluster.cluster_file)).mode(mode)
    for name, value in options.items():
        writer = writer.option(name, str(value))
    writer.save()


def read(spark: SparkSession, cluster: LocalCluster, **options: object) -> DataFrame:
    reader = spark.read.format("sqlext").option("cluster", ",".join(cluster.urls))
    for name, value in options.items():
        reader = reader.option(name, str(value))
    return reader.load()


EVENTS = 300_000


def events(spark: SparkSession, count: int, partitions: int) -> DataFrame:
    """Keyed events: ``account`` (some negative) repeats across events."""
    return spark.range(0, count, numPartitions=partitions).select(
        F.col("id"), ((F.col("id") * 7919) % 20011 - 10005).alias("account"),
        (F.col("id") % 100).cast("int").alias("amount"))


def events_oracle(count: int) -> list[Row]:
    return [(i, (i * 7919) % 20011 - 10005, i % 100) for i in range(count)]


@pytest.mark.usefixtures("source_server")  # registers format "sqlext"
def test_keyed_events_land_each_on_its_owner_exactly_once(
        spark: SparkSession, cluster_factory: Callable[[int], LocalCluster]) -> None:
    cluster = cluster_factory(NODES)
    on_every_node(cluster, "CREATE TABLE events (id bigint PRIMARY KEY, account bigint, "
                           "amount int) PARTITION BY HASH (account)")
    frame = events(spark, EVENTS, 6)
    # a frame that cannot be routed is refused before a row moves
    with pytest.raises(PySparkException, match=r'\[SQLSTATE 42703\] the DataFrame has no column '
                                               r'"account", the partition key of "public.events"'):
        write(frame.drop("account"), cluster, table="events")
    with pytest.raises(PySparkException, match=r"\[SQLSTATE 42804\] .*\(bigint\): the DataFrame's "
                                               r"column must be an integer .*, not string"):
        write(frame.withColumn("account", F.col("account").cast("string")), cluster,
              table="events")
    write(frame, cluster, table="events", writeId="events-1")
    oracle = events_oracle(EVENTS)
    shares = [rows_of(node, "SELECT id, account, amount FROM events") for node in cluster.nodes]
    for index, share in enumerate(shares):
        assert share == owned(oracle, lambda row: row[1], index)
    assert sorted(row for share in shares for row in share) == oracle
    # each node's ledger has every task's key, with that node's share of its rows
    for index, node in enumerate(cluster.nodes):
        keys = rows_of(node, "SELECT part, row_count FROM sqlext_spark.writes "
                             "WHERE writer = 'events-1'")
        assert [part for part, _ in keys] == list(range(6))
        assert sum(count for _, count in keys) == len(shares[index])
    write(frame, cluster, table="events", writeId="events-1")  # the same job again
    assert [rows_of(node, "SELECT count(*) FROM events")[0][0] for node in cluster.nodes] == [
        len(share) for share in shares]


def shares_written(node: ServerProcess, writer: str) -> int:
    """How many tasks have committed their share to ``node`` so far."""
    with node.connect(autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('sqlext_spark.writes')").fetchone() == (None,):
            return 0  # the driver has yet to make the ledger
        found = conn.execute("SELECT count(*) FROM sqlext_spark.writes WHERE writer = %s",
                             (writer,)).fetchone()
    return 0 if found is None else int(found[0])


@pytest.mark.usefixtures("source_server")
def test_a_node_sigkilled_mid_job_loses_and_doubles_nothing(
        spark: SparkSession, cluster_factory: Callable[[int], LocalCluster]) -> None:
    cluster = cluster_factory(NODES)
    on_every_node(cluster, "CREATE TABLE visits (id bigint, visitor text, page int) "
                           "PARTITION BY HASH (visitor)")
    count, tasks = 60_000, 12
    frame = spark.range(0, count, numPartitions=tasks).select(
        "id", F.concat(F.lit("visitor-é-"), (F.col("id") % 997).cast("string")).alias("visitor"),
        (F.col("id") % 10).cast("int").alias("page"))
    written_before_kill: list[int] = []

    def kill_node_1() -> None:
        """SIGKILL node 1 (and start it again) once a task has written to it."""
        written_before_kill.append(wait_until(
            lambda: shares_written(cluster.nodes[1], "visits-1"), "a share on node 1",
            timeout=120, interval=0.1))
        cluster.restart(1)

    killer = threading.Thread(target=kill_node_1)
    killer.start()
    try:
        write(frame, cluster, table="visits", writeId="visits-1")
        failed = None
    except PySparkException as exc:  # Spark's task retry met the node still down
        failed = str(exc)
    killer.join()
    assert written_before_kill and written_before_kill[0] < tasks  # killed mid-job
    if failed is not None:
        assert "[SQLSTATE 08006] node 1 (127.0.0.1:" in failed
        write(frame, cluster, table="visits", writeId="visits-1")  # the job's retry
    oracle = [(i, f"visitor-é-{i % 997}", i % 10) for i in range(count)]
    assert_owned(cluster, "SELECT id, visitor, page FROM visits", oracle, lambda row: row[1])


@pytest.mark.usefixtures("source_server")
def test_a_node_that_is_down_fails_the_write_which_reruns_once_it_is_back(
        spark: SparkSession, cluster_factory: Callable[[int], LocalCluster]) -> None:
    cluster = cluster_factory(NODES)
    on_every_node(cluster, ORDERS)
    frame = spark.range(0, 3000, numPartitions=3).select("id", (F.col("id") % 101).alias(
        "customer"))
    port = cluster.nodes[2].port
    cluster.nodes[2].stop()
    with pytest.raises(PySparkException,
                       match=rf"\[SQLSTATE 08006\] node 2 \(127\.0\.0\.1:{port}\) is down or "
                             "unreachable"):
        write(frame, cluster, table="orders", writeId="orders-1")
    cluster.restart(2)
    write(frame, cluster, table="orders", writeId="orders-1")
    oracle = [(i, i % 101) for i in range(3000)]
    assert_owned(cluster, "SELECT id, customer FROM orders", oracle, lambda row: row[1])


@pytest.mark.usefixtures("source_server")
def test_a_task_that_fails_on_one_node_leaves_no_node_with_part_of_it(
        spark: SparkSession, cluster_factory: Callable[[int], LocalCluster]) -> None:
    cluster = cluster_factory(NODES)
    on_every_node(cluster, ORDERS)
    frame = spark.range(0, 300, numPartitions=1).select("id", (F.col("id") % 101).alias(
        "customer"))
    oracle = [(i, i % 101) for i in range(300)]
    clash = next(row for row in oracle if partition_of(row[1], NODES) == NODES - 1)
    with cluster.nodes[-1].connect(autocommit=True) as conn:  # the last node prepares last
        conn.execute("INSERT INTO orders VALUES (%s, %s)", clash)
    with pytest.raises(PySparkException, match=r"\[SQLSTATE 23505\]"):
        write(frame, cluster, table="orders", writeId="orders-1")
    for node in cluster.nodes[:-1]:
        assert rows_of(node, "SELECT id, customer FROM orders") == []
    with cluster.nodes[-1].connect(autocommit=True) as conn:
        conn.execute("DELETE FROM orders")
    write(frame, cluster, table="orders", writeId="orders-1")
    assert_owned(cluster, "SELECT id, customer FROM orders", oracle, lambda row: row[1])


@pytest.mark.usefixtures("source_server")
def test_a_replicated_table_goes_to_every_node_and_is_read_from_node_0(
        spark: SparkSession, cluster_factory: Callable[[int], LocalCluster]) -> None:
    cluster = cluster_factory(NODES)
    on_every_node(cluster, "CREATE TABLE rates (currency text PRIMARY KEY, rate numeric(10,4))")
    rates = [(f"C{n:03d}", f"{n}.{n % 10000:04d}") for n in range(500)]
    frame = spark.createDataFrame(rates, "currency string, rate string").select(
        "currency", F.col("rate").cast("decimal(10,4)").alias("rate"))
    write(frame.repartition(4), cluster, table="rates", writeId="rates-1")
    write(frame.repartition(4), cluster, table="rates", writeId="rates-1")
    expected = sorted((currency, rate) for currency, rate in rates)
    for node in cluster.nodes:
        assert [(c, str(r)) for c, r in rows_of(node, "SELECT currency, rate FROM rates")] == (
            expected)
    loaded = read(spark, cluster, table="rates", numPartitions=2)
    assert loaded.rdd.getNumPartitions() == 2  # node 0's partitions alone
    assert sorted((r.currency, str(r.rate)) for r in loaded.collect()) == expected


@pytest.mark.usefixtures("source_server")
def test_a_partitioned_read_is_the_union_of_every_nodes_partitions(
        spark: SparkSession, cluster_factory: Callable[[int], LocalCluster]) -> None:
    """uuid keys written in upper case reach the node that owns their
    canonical text; each Spark partition reads one node's rows."""
    cluster = cluster_factory(NODES)
    on_every_node(cluster, 'CREATE TABLE devices ("Device Id" uuid PRIMARY KEY, name text) '
                           'PARTITION BY HASH ("Device Id")')
    devices = [(str(uuid.UUID(int=n * 0x9E3779B97F4A7C15 % 2**128)), f"device {n}")
               for n in range(3000)]
    frame = spark.createDataFrame([(key.upper(), name) for key, name in devices],
                                  "`Device Id` string, name string")
    write(frame.repartition(3), cluster, table="devices")
    assert_owned(cluster, 'SELECT "Device Id"::text, name FROM devices', devices,
                 lambda row: row[0])
    loaded = read(spark, cluster, table="devices", numPartitions=2)
    assert loaded.rdd.getNumPartitions() == 2 * NODES
    tagged = [(row.p, row["Device Id"], row.name) for row in loaded.select(
        F.spark_partition_id().alias("p"), "`Device Id`", "name").collect()]
    assert sorted((key, name) for _, key, name in tagged) == sorted(devices)
    assert all(partition_of(key, NODES) == p // 2 for p, key, _ in tagged)
    # a query runs on every node: Spark gets the union of their answers
    queried = read(spark, cluster, query="SELECT name FROM devices WHERE name LIKE '%7'")
    assert sorted(row.name for row in queried.collect()) == sorted(
        name for _, name in devices if name.endswith("7"))
    # a cluster listed out of order (or missing a node) is refused, naming the node
    reversed_urls = ",".join(reversed(cluster.urls))
    with pytest.raises(PySparkException, match=r'option "cluster": node 0 \(127\.0\.0\.1:\d+\) '
                                               r"serves partition 2/3, not 0/3"):
        spark.read.format("sqlext").option("cluster", reversed_urls).option(
            "table", "devices").load()


READINGS = StructType([StructField("id", LongType()), StructField("sensor", LongType()),
                       StructField("value", LongType())])
PER_FILE = 40


def add_files(folder: Path, first: int, last: int) -> None:
    """Files first..last of readings; file f holds ids 40f .. 40f+39."""
    add_json_files(folder, first, last, PER_FILE,
                   lambda i: {"id": i, "sensor": i % 23, "value": i % 7}, "readings")


def readings_oracle(files: int) -> list[Row]:
    return [(i, i % 23, i % 7) for i in range(files * PER_FILE)]


def sink(spark: SparkSession, cluster: LocalCluster, source: Path, checkpoint: Path
         ) -> StreamingQuery:
    frame = spark.readStream.schema(READINGS).option("maxFilesPerTrigger", 2).json(
        str(source)).repartition(2)
    return (frame.writeStream.format("sqlext").option("cluster", str(cluster.cluster_file))
            .option("table", "readings").option("checkpointLocation", str(checkpoint)).start())


def source(spark: SparkSession, cluster: LocalCluster, checkpoint: Path, seen: list[Row]
           ) -> StreamingQuery:
    def collect(frame: DataFrame, _epoch: int) -> None:
        seen.extend((row.id, row.sensor, row.value) for row in frame.collect())

    frame = (spark.readStream.format("sqlext").option("cluster", str(cluster.cluster_file))
             .option("stream", "readings").option("readerName", "r1").load())
    return frame.writeStream.foreachBatch(collect).option(
        "checkpointLocation", str(checkpoint)).start()


@pytest.mark.usefixtures("source_server")
def test_streaming_sink_and_source_per_node_across_a_node_restart(
        spark: SparkSession, cluster_factory: Callable[[int], LocalCluster],
        tmp_path: Path) -> None:
    cluster = cluster_factory(NODES)
    on_every_node(cluster, "CREATE STREAM readings (id bigint, sensor bigint, value bigint) "
                           "PARTITION BY HASH (sensor)")
    files, sink_checkpoint = tmp_path / "in", tmp_path / "sink"
    seen: list[Row] = []
    reader = source(spark, cluster, tmp_path / "source", seen)
    add_files(files, 0, 5)
    writer = sink(spark, cluster, files, sink_checkpoint)
    writer.processAllAvailable()
    reader.processAllAvailable()
    # node 1 restarts between triggers: the sink's next micro-batch finds it
    # back; the source, asking every node for new batches, fails clearly
    cluster.restart(1)
    with pytest.raises(PySparkException, match=r"\[SQLSTATE 08006\] node 1 \(127\.0\.0\.1:"):
        reader.awaitTermination(120)
    add_files(files, 6, 9)
    writer.processAllAvailable()
    writer.stop()
    # Spark lost its record of the sink's last micro-batch: it runs it again
    commits = [p for p in (sink_checkpoint / "commits").iterdir() if p.name.isdigit()]
    last = max(commits, key=lambda p: int(p.name))
    last.unlink()
    (sink_checkpoint / "commits" / f".{last.name}.crc").unlink(missing_ok=True)
    add_files(files, 10, 11)
    writer = sink(spark, cluster, files, sink_checkpoint)
    writer.processAllAvailable()
    writer.stop()
    assert writer.recentProgress[0]["batchId"] == int(last.name)
    assert read(spark, cluster, stream="readings").count() == 12 * PER_FILE
    oracle = readings_oracle(12)
    assert_owned(cluster, "SELECT id, sensor, value FROM readings", oracle, lambda row: row[1])
    # the source, restarted from its checkpoint, reads every node's batches once
    reader = source(spark, cluster, tmp_path / "source", seen)
    reader.processAllAvailable()
    reader.stop()
    assert sorted(seen) == oracle
