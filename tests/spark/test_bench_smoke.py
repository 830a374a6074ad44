"""`sqlext bench spark` on a small DataFrame, so the benchmark keeps working
(its figures come from full runs, see docs/benchmarks.md)."""

from __future__ import annotations

from pyspark.sql import SparkSession

from sqlext.tools.bench.baseline import baseline
from sqlext.tools.bench.harness import Output
from sqlext.tools.bench.spark_bench import DATA_SOURCE, run_spark


def test_spark_benchmark_runs(spark: SparkSession) -> None:
    # the baseline: this very checkout, as `--baseline HEAD` would run it
    with baseline("HEAD") as base:
        timings = run_spark(Output("spark", rounds=1), with_peer=False, sizes=(3000,),
                            spark=spark, baseline=base)
    assert {(t.target, t.rows, t.operation) for t in timings} == {
        (target, 3000, operation) for target in ("sqlext", "sqlext HEAD", DATA_SOURCE)
        for operation in ("write", "read")}
    assert all(t.seconds[0] > 0 and t.server_cpu[0] > 0 for t in timings)
