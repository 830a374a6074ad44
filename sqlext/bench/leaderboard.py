"""The Leaderboard workload (S-Store paper §4, variant P): the vote
generator, loading the dataflow of ``examples/leaderboard``, and clients that
feed it one vote per transaction, waiting for each or pipelined."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

import psycopg

from sqlext.bench import pipeline
from sqlext.bench.harness import Variant

SCHEMA_FILE: Final = Path(__file__).resolve().parents[2] / "examples" / "leaderboard" / (
    "leaderboard.sql")
CONTESTANTS: Final = 50
INSERT_VOTE: Final = "INSERT INTO votes_in VALUES ($1, $2, $3)"
BENCH_VOTES: Final = 20_000
DURABLE: Final = ("--data-dir", "{data_dir}", "--recovery", "strong")

Vote = tuple[int, int, int]


def generate_votes(count: int, seed: int = 2015) -> Iterator[Vote]:
    """(vote_id, phone_number, contestant_number), deterministic for a seed.

    About one vote in ten repeats an earlier phone number (rejected: one vote
    per phone) and one in twenty names a contestant who does not run; the
    others favour some contestants over others, so removals are decided by
    real differences, not ties alone."""
    rng = random.Random(seed)
    phones: list[int] = []
    numbers = list(range(1, CONTESTANTS + 6))
    weights = [1 + (number * 37) % CONTESTANTS for number in numbers[:CONTESTANTS]]
    weights += [sum(weights) // 95] * 5
    for vote_id in range(1, count + 1):
        if phones and rng.random() < 0.1:
            phone = rng.choice(phones)
        else:
            phone = (200 + rng.randrange(305)) * 10_000_000 + rng.randrange(10_000_000)
            phones.append(phone)
        yield vote_id, phone, rng.choices(numbers, weights)[0]


def load(conn: psycopg.Connection, schema: str | None = None,
         client_batch_ids: bool = False) -> None:
    """Create the Leaderboard dataflow (in ``schema`` when given). With
    ``client_batch_ids`` each vote's id is its batch id, so a vote sent
    again after a crash is recognised and skipped (exactly once)."""
    if schema is not None:
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"SET search_path = {schema}")
    script = SCHEMA_FILE.read_text()
    if client_batch_ids:
        declaration = "contestant_number integer NOT NULL);"
        assert script.count(declaration) == 1
        script = script.replace(
            declaration, "contestant_number integer NOT NULL) WITH (batch_column = 'vote_id');")
    conn.execute(script)


def send_waiting(conn: psycopg.Connection, votes: list[Vote]) -> None:
    """One vote per transaction, waiting for each to commit."""
    with conn.cursor() as cursor:
        for vote in votes:
            cursor.execute("INSERT INTO votes_in VALUES (%s, %s, %s)", vote)


def send_pipelined(conn: psycopg.Connection, votes: list[Vote]) -> None:
    """One vote per transaction (a Sync after each), many in flight."""
    pipeline.send_pipelined(conn, INSERT_VOTE.encode(), votes)


def _dataflow(send: Callable[[psycopg.Connection, list[Vote]], None]) -> Callable[[str], float]:
    def run(dsn: str) -> float:
        votes = list(generate_votes(BENCH_VOTES))
        with psycopg.connect(dsn, autocommit=True) as conn:
            load(conn, f"lb_{time.monotonic_ns()}")
            started = time.perf_counter()
            send(conn, votes)
            conn.execute("SELECT sqlext_drain(600)")
            return len(votes) / (time.perf_counter() - started)
    return run


def variants() -> list[Variant]:
    return [
        Variant("dataflow, pipelined client, --in-memory", "sqlext",
                _dataflow(send_pipelined)),
        Variant("dataflow, waiting client, --in-memory", "sqlext", _dataflow(send_waiting)),
        Variant("dataflow, pipelined client, strong recovery, group commit", "sqlext",
                _dataflow(send_pipelined), DURABLE),
        Variant("dataflow, waiting client, strong recovery, group commit", "sqlext",
                _dataflow(send_waiting), DURABLE),
    ]
