"""Every ``sqlext bench`` at tiny sizes, one round, so the benchmarks never
rot: they start their servers (and the PostgreSQL peer), finish, agree on
the final state where they must, and publish their tables. Their figures
come from full runs (docs/benchmarks.md), never from here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sqlext.tools.bench import (
    chains_bench,
    durability_bench,
    leaderboard_bench,
    matview_bench,
    numeric_bench,
    wire_bench,
)
from sqlext.tools.bench.baseline import baseline
from sqlext.tools.bench.harness import BenchmarkFailed, Measured, Output, Variant, run_variants
from sqlext.tools.cli import main

SMALL_WIRE = {"round_trips": 50, "fetch_rows": 500, "batch_rows": 300, "copy_rows": 2000}
"""``sqlext bench wire``'s workloads at tiny sizes."""


def _rows(output: Output) -> dict[tuple[str, str], dict[str, object]]:
    return {(str(row["workload"]), str(row["server"])): row
            for table in output.tables for row in table.as_json()["rows"]}  # type: ignore[union-attr]


def test_leaderboard_variants_agree_with_each_other_and_postgres() -> None:
    output = Output("leaderboard", rounds=1)
    results = run_variants("smoke", leaderboard_bench.variants(count=300, fsync_seconds=0.2),
                           output)
    assert {r.variant.target for r in results} == {"sqlext", "postgres", "local"}
    rows = _rows(output)
    dataflow = rows[("dataflow, pipelined client, strong recovery, group commit", "sqlext")]
    assert dataflow["compared with"] == "postgres: triggers (PL/pgSQL), pipelined client"
    assert isinstance(dataflow["ratio (x)"], float) and dataflow["ratio (x)"] > 0


def test_other_leaderboard_rules_agree_too() -> None:
    """Rules other than the example's (a window whose size is no multiple of
    its slide, removals and two votes per phone) change every way of running
    it alike: the dataflow, the client-driven procedures and PostgreSQL's
    triggers still end in the same state."""
    rules = leaderboard_bench.Rules(contestants=7, removal_every=60, window=20, slide=3,
                                    votes_per_phone=2)
    assert "ON valid_votes ROWS 20 SLIDE 3;" in rules.dataflow_script()
    # run_variants raises BenchmarkFailed when the final states differ
    results = run_variants("smoke", leaderboard_bench.variants(
        count=400, fsync_seconds=0.2, rules=rules), Output("leaderboard", rounds=1))
    assert len({r.variant.target for r in results}) == 3


def test_leaderboard_states_are_really_compared() -> None:
    """A variant that ends elsewhere fails the benchmark."""
    honest = leaderboard_bench.variants(count=120)[3]  # client-driven, on sqlext
    cheat = Variant("cheat", "sqlext", lambda dsn: Measured(1.0, ("other",)),
                    agrees_with="leaderboard")
    honest.server = cheat.server
    with pytest.raises(BenchmarkFailed, match="cheat"):
        run_variants("smoke", [honest, cheat], Output("leaderboard", rounds=1),
                     with_peer=False)


def test_matviews_maintained_against_recomputed_and_postgres() -> None:
    output = Output("matview", rounds=1)
    points = matview_bench.run_matviews(output, sizes=(300,), changes=6, refreshes=2)
    assert [p.shape for p in points] == ["GROUP BY aggregate", "2-way join aggregate"]
    rows = output.tables[0].as_json()["rows"]
    assert all(isinstance(row["postgres / maintained"], float)  # type: ignore[index]
               for row in rows)  # type: ignore[union-attr]


def test_chains_compare_triggers_with_client_driven() -> None:
    output = Output("pe-chain", rounds=1)
    run_variants("smoke", chains_bench.pe_variants((1, 3), batches=20)
                 + chains_bench.ee_variants((2,), batches=20), output)
    rows = _rows(output)
    assert rows[("chain of 3, PE triggers", "sqlext")]["compared with"] == (
        "sqlext: chain of 3, client-driven")
    assert rows[("chain of 2, EE triggers", "sqlext")]["compared with"] == (
        "sqlext: chain of 2, client-driven")


def test_wire_against_postgres() -> None:
    output = Output("wire", rounds=1)
    run_variants("smoke", wire_bench.variants(**SMALL_WIRE), output)
    rows = _rows(output)
    assert len(rows) == 18
    assert all(row["ratio (x)"] for (_, server), row in rows.items() if server == "sqlext")


def test_numeric_against_postgres() -> None:
    """Sums, averages and inserted numeric values agree with PostgreSQL's
    (run_variants raises BenchmarkFailed otherwise)."""
    output = Output("numeric", rounds=1)
    run_variants("smoke", numeric_bench.variants(aggregate_rows=2000, insert_rows=300), output)
    rows = _rows(output)
    assert len(rows) == 4
    assert all(row["ratio (x)"] for (_, server), row in rows.items() if server == "sqlext")


def test_recovery_and_checkpoint(tmp_path: Path) -> None:
    output = Output("recovery", rounds=1)
    results = durability_bench.run_recovery(output, lengths=(1, 2), logging_batches=20, batches=50)
    assert {(r.length, r.mode) for r in results} == {(1, "strong"), (1, "weak"), (2, "strong"),
                                                     (2, "weak")}
    assert all(r.records > 0 for r in results)
    stalls = durability_bench.run_checkpoint(1, Output("checkpoint", rounds=1))
    assert len(stalls) == 1 and stalls[0] >= 0


def test_cli_writes_the_report_and_json(tmp_path: Path) -> None:
    """``sqlext bench ee-chain`` at its default sizes, as a user runs it."""
    report, results = tmp_path / "benchmarks.md", tmp_path / "results.json"
    assert main(["bench", "ee-chain", "--rounds", "1", "--report", str(report),
                 "--json", str(results)]) == 0
    document = json.loads(results.read_text())
    assert document["benchmark"] == "ee-chain" and document["rounds"] == 1
    [table] = document["tables"]
    assert len(table["rows"]) == 2 * len(chains_bench.EE_LENGTHS)
    assert all(row["median/s"] > 0 for row in table["rows"])
    text = report.read_text()
    assert "EE chain (Figure 6)" in text and "sqlext bench ee-chain --rounds 1" in text



def test_wire_against_a_baseline_revision() -> None:
    """``--baseline REV``: the sqlext rows run on that revision's code too
    (a worktree of this repository, removed afterwards) and are compared
    with it; the baseline's rows with PostgreSQL."""
    output = Output("wire", rounds=1)
    with baseline("HEAD") as base:
        results = run_variants("smoke", wire_bench.variants(**SMALL_WIRE), output,
                               baseline=base)
        assert (base.source / "sqlext" / "__main__.py").is_file()
        assert {r.variant.source for r in results} == {None, base.source}
    assert not base.source.exists()
    rows = _rows(output)
    assert len(rows) == 27
    select = "SELECT 1, simple (round trips)"
    assert rows[(select, "sqlext")]["compared with"] == f"sqlext HEAD: {select}"
    assert rows[(select, "sqlext HEAD")]["compared with"] == f"postgres: {select}"
    assert all(row["ratio (x)"] for (_, server), row in rows.items() if server != "postgres")


def test_baseline_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "recovery", "--baseline", "HEAD", "--report", ""]) == 2
    assert "--baseline works with wire" in capsys.readouterr().err
    assert main(["bench", "wire", "--baseline", "no-such-revision", "--report", ""]) == 1
    assert "no-such-revision" in capsys.readouterr().err
