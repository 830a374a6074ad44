"""examples/cluster end to end, as the README walks through it: three nodes,
the dataflow applied with ``sqlext run --cluster``, payments written by
Spark through the data source's cluster option, queried back by Spark;
every node holds exactly its accounts' share, and a second run with the
same write id changes nothing."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from decimal import Decimal

from pyspark.sql import SparkSession

import sqlext.spark
from catalog.partitioning import partition_of
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.example import load_example
from tests.fixtures.servers import ROOT, run_sqlext

PAYMENTS = 30_000
LIMITS = {"card": 2000, "transfer": 10000, "cash": 500}


def oracle(count: int) -> tuple[dict[int, tuple[Decimal, int]], Counter[str]]:
    """Per account (balance, payments), and alerts per kind, as the example's
    formulas and payments.sql make them."""
    kinds = ["card", "transfer", "cash"]
    balances: dict[int, Decimal] = defaultdict(Decimal)
    payments: Counter[int] = Counter()
    alerts: Counter[str] = Counter()
    for n in range(count):
        account = n * 7919 % 20_000 + 1
        amount = 12_500 if n % 97 == 0 else n % 400 - 150
        balances[account] += amount
        payments[account] += 1
        if abs(amount) > LIMITS[kinds[n % 3]]:
            alerts[kinds[n % 3]] += 1
    return {a: (balances[a], payments[a]) for a in balances}, alerts


def test_cluster_example_puts_every_payment_on_its_owner_once(
        spark: SparkSession, cluster_factory: Callable[[int], LocalCluster]) -> None:
    example = load_example("cluster/spark_payments")
    sqlext.spark.register(spark)
    cluster = cluster_factory(3)
    source = str(cluster.cluster_file)
    applied = run_sqlext("run", "--cluster", source,
                         str(ROOT / "examples" / "cluster" / "payments.sql"))
    assert applied.returncode == 0, applied.stderr
    accounts, alerts = oracle(PAYMENTS)
    for attempt in range(2):  # the same write id again writes nothing
        example.write_payments(example.make_payments(spark, PAYMENTS), source, "run-1")
        example.drain(source)
        for index, node in enumerate(cluster.nodes):
            with node.connect(autocommit=True) as connection:
                held = {row[0]: (row[1], row[2]) for row in connection.execute(
                    "SELECT id, balance, payments FROM accounts")}
            assert held == {a: v for a, v in accounts.items() if partition_of(a, 3) == index}, (
                f"node {index}, run {attempt + 1}")
    top = example.largest_balances(spark, source).collect()
    assert [(row["id"], row["balance"]) for row in top] == sorted(
        ((a, v[0]) for a, v in accounts.items()), key=lambda item: (-item[1], item[0]))[:5]
    assert {row["kind"]: row["alerts"] for row in example.alerts_per_kind(
        spark, source).collect()} == dict(alerts)
