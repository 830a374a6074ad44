"""Exactly once across crashes: the Leaderboard under repeated SIGKILLs."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqlext.bench.leaderboard import generate_votes
from tests.fixtures.crash_loop import CrashLoop
from tests.fixtures.leaderboard_oracle import Oracle, assert_matches

VOTES = 24_000


@pytest.mark.parametrize("recovery", ["strong", "weak"])
def test_every_acknowledged_vote_counts_exactly_once(tmp_path: Path, recovery: str) -> None:
    votes = list(generate_votes(VOTES))
    oracle = Oracle()
    for vote in votes:
        oracle.vote(*vote)
    assert oracle.removals  # a removal happens: the third procedure runs too
    loop = CrashLoop(tmp_path / "data", recovery=recovery, kills=10, seed=len(recovery))
    server = loop.run(votes)
    try:
        with server.connect(autocommit=True) as conn:
            assert conn.execute("SELECT sqlext_drain(300)").fetchone() == (True,)
            assert_matches(conn, oracle)
    finally:
        server.stop()
    replays = [line for line in loop.recovery_lines if "records replayed" in line]
    assert len(replays) == 10
    assert any("loaded snapshot" in line for line in loop.recovery_lines)
