"""The Leaderboard example end to end: 50,000 votes through psycopg, one per
transaction, and the engine's final state and its board every 100 valid
votes checked against an independent pure-Python model of the benchmark."""

from __future__ import annotations

from collections.abc import Callable

from sqlext.tools.bench.leaderboard_bench import generate_votes, load, send_pipelined
from tests.fixtures.leaderboard_oracle import THRESHOLD, Oracle, assert_matches
from tests.fixtures.servers import ServerProcess

VOTES = 50_000


def test_leaderboard_matches_the_oracle(server_factory: Callable[..., ServerProcess]) -> None:
    votes = list(generate_votes(VOTES))
    oracle = Oracle()
    for vote in votes:
        oracle.vote(*vote)
    assert len(oracle.removals) == 2 and oracle.total > 2 * THRESHOLD  # the workload bites

    server = server_factory("--in-memory")
    with server.connect(autocommit=True) as conn:
        load(conn)
        send_pipelined(conn, votes)
        assert conn.execute("SELECT sqlext_drain(300)").fetchone() == (True,)
        assert_matches(conn, oracle)
