"""examples/spark_pipeline.py end to end, on the suite's Spark session."""

from __future__ import annotations

import csv
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path
from types import ModuleType

import psycopg
from pyspark.sql import SparkSession

from tests.fixtures.example import load_example
from tests.fixtures.spark import Jdbc

ORDERS = 6000


def example() -> ModuleType:
    return load_example("spark_pipeline")


def expected_sales(raw: Path) -> dict[str, tuple[int, int, Decimal]]:
    """(orders, units, revenue) per product, from the raw CSV files."""
    orders: Counter[str] = Counter()
    units: Counter[str] = Counter()
    revenue: defaultdict[str, Decimal] = defaultdict(Decimal)
    for part in raw.glob("part-*.csv"):
        with part.open(newline="") as handle:
            for row in csv.DictReader(handle):
                product, quantity = row["product"], int(row["quantity"])
                orders[product] += 1
                units[product] += quantity
                revenue[product] += quantity * Decimal(row["unit_price"])
    return {product: (orders[product], units[product], revenue[product]) for product in orders}


def test_spark_pipeline_example(spark: SparkSession, jdbc: Jdbc, tmp_path: Path) -> None:
    pipeline = example()
    target = pipeline.Target(jdbc.server.host, jdbc.server.port, jdbc.copy_dir)
    report = pipeline.run_pipeline(spark, target, ORDERS, tmp_path, run=1)
    expected = expected_sales(tmp_path / "raw")
    assert sum(n for n, _, _ in expected.values()) == ORDERS
    rows = report.collect()
    assert {r.product: (r.orders, r.units, r.revenue) for r in rows} == expected
    assert [r.revenue for r in rows] == sorted((r.revenue for r in rows), reverse=True)
    (written,) = (tmp_path / "report").glob("part-*.csv")
    assert len(written.read_text().splitlines()) == len(expected) + 1

    # the same run again: every batch is a re-delivery, nothing is counted twice
    again = pipeline.run_pipeline(spark, target, ORDERS, tmp_path, run=1)
    assert {r.product: (r.orders, r.units, r.revenue) for r in again.collect()} == expected
    with psycopg.connect(jdbc.server.dsn) as conn:
        assert conn.execute("SELECT count(*), count(DISTINCT batch) FROM orders").fetchone() == (
            ORDERS, 4)
        assert conn.execute("SELECT skipped_batches FROM sqlext_streams "
                            "WHERE name = 'orders_in'").fetchone() == (4,)
        large = conn.execute("SELECT count(*) FROM orders WHERE amount >= 500").fetchone()[0]
        assert conn.execute("SELECT sum(large_orders) FROM customer_alerts").fetchone() == (
            large,)

    history = pipeline.export_history(spark, target)
    assert history.count() == ORDERS
    assert history.agg({"amount": "sum"}).first()[0] == sum(r for _, _, r in expected.values())
