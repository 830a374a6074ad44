"""The Leaderboard example end to end: 50,000 votes through psycopg, one per
transaction, and the engine's final state and its board every 100 valid
votes checked against an independent pure-Python model of the benchmark."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from sqlext.bench.leaderboard import generate_votes, load, send_pipelined
from tests.fixtures.servers import ServerProcess

VOTES = 50_000
WINDOW, SLIDE = 100, 10
THRESHOLD = 20_000


def _top3(counts: Counter[int]) -> str | None:
    ranked = sorted(((c, n) for c, n in counts.items() if n > 0), key=lambda p: (-p[1], p[0]))
    return ",".join(f"{c}:{n}" for c, n in ranked[:3]) or None


class Oracle:
    """The benchmark's rules, written directly."""

    def __init__(self, contestants: int = 50) -> None:
        self.contestants = set(range(1, contestants + 1))
        self.phone_votes: dict[int, int] = {}
        self.vote_ids: dict[int, int] = {}
        self.counts: Counter[int] = Counter()
        self.visible: list[int] = []
        self.staged: list[int] = []
        self.trending: Counter[int] = Counter()
        self.since_removal = self.total = 0
        self.history: dict[int, tuple[str | None, str | None]] = {}
        self.removals: list[tuple[int, int]] = []

    def vote(self, vote_id: int, phone: int, contestant: int) -> None:
        if contestant not in self.contestants or phone in self.phone_votes:
            return
        self.phone_votes[phone] = contestant
        self.vote_ids[vote_id] = contestant
        self.counts[contestant] += 1
        self._window(contestant)
        self.since_removal += 1
        self.total += 1
        if self.total % 100 == 0:
            self.history[self.total] = (_top3(self.trending), _top3(self.counts))
        if self.since_removal >= THRESHOLD:
            self.since_removal -= THRESHOLD
            self._remove_lowest()

    def _window(self, contestant: int) -> None:
        if not self.staged and len(self.visible) < WINDOW:
            self.visible.append(contestant)
            if len(self.visible) == WINDOW:
                self._slide()
            return
        self.staged.append(contestant)
        if len(self.staged) == SLIDE:
            self.visible = (self.visible + self.staged)[-WINDOW:]
            self.staged = []
            self._slide()

    def _slide(self) -> None:
        self.trending = Counter(c for c in self.visible if c in self.contestants)

    def _remove_lowest(self) -> None:
        count, negative = min((n, -c) for c, n in self.counts.items() if n > 0)
        lowest = -negative
        self.removals.append((lowest, count))
        self.phone_votes = {p: c for p, c in self.phone_votes.items() if c != lowest}
        self.vote_ids = {v: c for v, c in self.vote_ids.items() if c != lowest}
        del self.counts[lowest]
        self.trending.pop(lowest, None)
        self.contestants.discard(lowest)


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
        history = {total: (trending, overall) for total, trending, overall in conn.execute(
            "SELECT valid_votes, trending, overall FROM board_history")}
        assert history == oracle.history
        removals = conn.execute(
            "SELECT contestant_number, num_votes FROM removals ORDER BY round").fetchall()
        assert removals == oracle.removals
        assert conn.execute("SELECT cnt, total FROM votes_count").fetchone() == (
            oracle.since_removal, oracle.total)
        assert dict(conn.execute("SELECT vote_id, contestant_number FROM votes")) == (
            oracle.vote_ids)
        assert dict(conn.execute("SELECT contestant_number, num_votes FROM leaderboard")) == (
            dict(oracle.trending))
        contestants = {c for (c,) in conn.execute("SELECT contestant_number FROM contestants")}
        assert contestants == oracle.contestants
        # every stream was consumed; the window holds the last 100 valid votes
        for stream in ("votes_in", "valid_votes", "removal_due"):
            assert conn.execute(f"SELECT count(*) FROM {stream}").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM trending").fetchone() == (WINDOW,)
