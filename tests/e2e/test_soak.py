"""The soak, 30 seconds: 100 connections mixing transactions, CALLs, stream
batches and dataflow reads on a durable server (scripts/soak.py runs it
longer); see tests/fixtures/soak.py for what is checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.soak import WEIGHTS, SoakConfig, run_soak


@pytest.mark.timeout(300)  # 30 s of load by design, then a restart and recovery
def test_100_connections_for_30_seconds(tmp_path: Path) -> None:
    config = SoakConfig(connections=100, duration_s=30.0, data_dir=tmp_path / "data",
                        checkpoint_interval_s=10.0, warmup_s=10.0, rss_bound_mb=10.0)
    result = run_soak(config)
    summary = result.summary()
    assert result.problems() == [], summary
    # the run did what it claims: every kind of operation, all the intervals,
    # snapshots under load, a restart
    assert all(result.operations[kind] > 0 for kind in WEIGHTS), summary
    assert result.intervals == 5, summary
    assert result.batches > 100 and len(result.checkpoints) >= 2, summary
    assert result.recovery_s is not None, summary
    assert len([t for t, _ in result.rss_kb if t >= config.warmup_s]) >= 10, summary
