"""Exactly once across crashes: the Leaderboard under repeated SIGKILLs."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import pytest

from sqlext.tools.bench.leaderboard_bench import generate_votes, load, send_pipelined
from tests.fixtures.crash_loop import CrashLoop
from tests.fixtures.leaderboard_oracle import Oracle, assert_matches
from tests.fixtures.servers import start_server

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


def test_checkpoints_under_load_lose_and_repeat_nothing(tmp_path: Path) -> None:
    """CHECKPOINT after CHECKPOINT while a pipelined client streams votes;
    then a kill, so the state comes back from a snapshot taken under load."""
    votes = list(generate_votes(6_000))
    oracle = Oracle()
    for vote in votes:
        oracle.vote(*vote)
    args = ("--data-dir", str(tmp_path), "--checkpoint-interval-s", "1e9")
    server = start_server(*args)
    try:
        with server.connect(autocommit=True) as conn, server.connect(autocommit=True) as control:
            load(conn, client_batch_ids=True)
            sender = threading.Thread(target=send_pipelined, args=(conn, votes))
            sender.start()
            taken = 0
            while sender.is_alive() or taken < 3:
                assert control.execute("CHECKPOINT").statusmessage == "CHECKPOINT"
                taken += 1
            sender.join()
            checkpoints = control.execute(
                "SELECT lsn, stall_ms, size_bytes, error FROM sqlext_checkpoints").fetchall()
            assert len(checkpoints) >= 3 and all(error is None for *_, error in checkpoints)
            assert all(stall > 0 and size > 0 for _, stall, size, _ in checkpoints)
            assert control.execute("SELECT sqlext_drain(60)").fetchone() == (True,)
            assert_matches(control, oracle)
        server.stop(signal.SIGKILL)
        server = start_server(*args)
        assert any("loaded snapshot" in line for line in server.log)
        with server.connect(autocommit=True) as conn:
            assert_matches(conn, oracle)
    finally:
        server.stop()
