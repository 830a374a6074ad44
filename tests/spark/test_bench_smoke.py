"""`sqlext bench spark` on a small DataFrame, so the benchmark keeps working
(its figures come from full runs, see docs/benchmarks.md)."""

from __future__ import annotations

from pyspark.sql import SparkSession

from sqlext.tools.bench.harness import Output
from sqlext.tools.bench.spark_bench import run_spark


def test_spark_benchmark_runs(spark: SparkSession) -> None:
    timings = run_spark(Output("spark", rounds=1), with_peer=False, sizes=(3000,),
                        spark=spark)
    assert {(t.target, t.rows, t.operation) for t in timings} == {
        ("sqlext", 3000, "write"), ("sqlext", 3000, "read")}
    assert all(t.seconds[0] > 0 and t.server_cpu[0] > 0 for t in timings)
