"""The Leaderboard workload (S-Store paper §4, variant P): the vote
generator, loading the dataflow of ``examples/leaderboard``, and clients that
feed it one vote per transaction, waiting for each or pipelined."""

from __future__ import annotations

import functools
import os
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Final

import psycopg

from sqlext.tools.bench import pipeline
from sqlext.tools.bench.harness import Measured, Variant, timed_run, use_schema

WORKLOADS: Final = Path(__file__).resolve().parent / "workloads"
"""The SQL of examples/leaderboard, installed with the package (links to it
in a checkout)."""
SCHEMA_FILE: Final = WORKLOADS / "leaderboard.sql"
CONTESTANTS: Final = 50
INSERT_VOTE: Final = "INSERT INTO votes_in VALUES ($1, $2, $3)"
BENCH_VOTES: Final = 10_000
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
         client_batch_ids: bool = False, maintained_views: bool = True) -> None:
    """Create the Leaderboard dataflow (in ``schema`` when given). With
    ``client_batch_ids`` each vote's id is its batch id, so a vote sent
    again after a crash is recognised and skipped (exactly once). Without
    ``maintained_views`` its vote counts are plain views, computed by every
    query that reads them (the same SQL otherwise)."""
    if schema is not None:
        use_schema(conn, schema)
    script = SCHEMA_FILE.read_text()
    if not maintained_views:
        script = script.replace("CREATE MATERIALIZED VIEW", "CREATE VIEW")
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


def send_client_driven(conn: psycopg.Connection, votes: list[Vote]) -> None:
    """Three CALLs per vote, each a transaction of its own, each waited for:
    the next step may only run on a committed result."""
    for vote in votes:
        conn.execute("CALL lb_validate(%s, %s, %s)", vote, prepare=True)
        conn.execute("CALL lb_count(%s)", (vote[0],), prepare=True)
        conn.execute("CALL lb_remove()", prepare=True)


def tables_script() -> str:
    """The tables of the Leaderboard (leaderboard.sql up to its streams)."""
    script = SCHEMA_FILE.read_text()
    return script[:script.index("CREATE STREAM")]


def load_procedures(conn: psycopg.Connection) -> None:
    """The Leaderboard as procedures a client calls (client_driven.sql)."""
    conn.execute(tables_script())
    conn.execute((WORKLOADS / "client_driven.sql").read_text())


def load_postgres_triggers(conn: psycopg.Connection) -> None:
    """The procedures, run by a PL/pgSQL trigger on each inserted vote."""
    load_procedures(conn)
    conn.execute((WORKLOADS / "postgres_triggers.sql").read_text())


def final_state(conn: psycopg.Connection) -> tuple[object, ...]:
    """What every way of running the benchmark must agree on."""
    return tuple(conn.execute(query).fetchall() for query in (
        "SELECT valid_votes, trending, overall FROM board_history ORDER BY valid_votes",
        "SELECT contestant_number, num_votes FROM leaderboard ORDER BY contestant_number",
        "SELECT cnt, total FROM votes_count",
        "SELECT contestant_number, num_votes FROM removals ORDER BY round",
        "SELECT contestant_number, count(*) FROM votes GROUP BY contestant_number "
        "ORDER BY contestant_number"))


def _run(setup: Callable[[psycopg.Connection], object],
         send: Callable[[psycopg.Connection, list[Vote]], None],
         votes: list[Vote], drain: bool = False) -> Callable[[str], Measured]:
    def work(conn: psycopg.Connection) -> None:
        send(conn, votes)
        if drain:
            conn.execute("SELECT sqlext_drain(600)")
    return timed_run(setup, work, len(votes), final_state)


def _fsync_rate(seconds: float) -> Callable[[str], Measured]:
    """Appends of 256 bytes, each followed by fdatasync (as the command log
    does), on the file system that holds the benchmark's data directories."""
    def run(_dsn: str) -> Measured:
        with TemporaryDirectory(prefix="sqlext-bench-") as directory:
            descriptor = os.open(Path(directory) / "fsync", os.O_WRONLY | os.O_CREAT
                                 | os.O_APPEND, 0o644)
            try:
                count = 0
                started = time.perf_counter()
                while (elapsed := time.perf_counter() - started) < seconds:
                    os.write(descriptor, b"x" * 256)
                    os.fdatasync(descriptor)
                    count += 1
            finally:
                os.close(descriptor)
            return Measured(count / elapsed)
    return run


def variants(count: int = BENCH_VOTES, fsync_seconds: float = 3.0) -> list[Variant]:
    votes = list(generate_votes(count))  # the same votes for every variant
    pg_pipelined = "triggers (PL/pgSQL), pipelined client"
    pg_client = "client-driven (3 CALLs per vote), waiting client"
    fsync = Variant("fdatasync of 256 appended bytes", "local", _fsync_rate(fsync_seconds))
    agreeing = [
        Variant("dataflow, pipelined client, strong recovery, group commit", "sqlext",
                _run(load, send_pipelined, votes, drain=True), DURABLE,
                versus=f"postgres: {pg_pipelined}"),
        Variant("dataflow with plain views, pipelined client, strong recovery, group commit",
                "sqlext", _run(functools.partial(load, maintained_views=False), send_pipelined,
                               votes, drain=True), DURABLE,
                versus="sqlext: dataflow, pipelined client, strong recovery, group commit"),
        Variant("dataflow, waiting client, strong recovery, group commit", "sqlext",
                _run(load, send_waiting, votes, drain=True), DURABLE,
                versus=fsync.label),
        Variant(f"{pg_client}, strong recovery, group commit", "sqlext",
                _run(load_procedures, send_client_driven, votes), DURABLE,
                versus=f"postgres: {pg_client}"),
        Variant(pg_pipelined, "postgres", _run(load_postgres_triggers, send_pipelined, votes)),
        Variant("triggers (PL/pgSQL), waiting client", "postgres",
                _run(load_postgres_triggers, send_waiting, votes)),
        Variant(pg_client, "postgres", _run(load_procedures, send_client_driven, votes)),
    ]
    for variant in agreeing:
        variant.agrees_with = "leaderboard"
    return [*agreeing, fsync]
