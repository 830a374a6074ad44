"""The Leaderboard workload (S-Store paper §4, variant P): the vote
generator, loading the dataflow of ``examples/leaderboard``, and clients that
feed it one vote per transaction, waiting for each or pipelined.

The example's rules (50 contestants, a removal every 20,000 valid votes, a
trending window ROWS 100 SLIDE 10, one vote per phone) are the defaults;
``Rules`` changes them in every way of running the benchmark at once (the
dataflow, the client-driven procedures, PostgreSQL's triggers), so the runs
still check each other's final state."""

from __future__ import annotations

import functools
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
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
INSERT_VOTE: Final = "INSERT INTO votes_in VALUES ($1, $2, $3)"
BENCH_VOTES: Final = 10_000
DURABLE: Final = ("--data-dir", "{data_dir}", "--recovery", "strong")

Vote = tuple[int, int, int]


@dataclass(frozen=True)
class Rules:
    """The Leaderboard's parameters; the defaults are the example's."""

    contestants: int = 50
    removal_every: int = 20_000
    """Valid votes between two removals of the lowest contestant."""
    window: int = 100
    slide: int = 10
    votes_per_phone: int = 1

    def __str__(self) -> str:
        return (f"{self.contestants} contestants, removal every {self.removal_every:,}, "
                f"ROWS {self.window} SLIDE {self.slide}, {self.votes_per_phone} vote(s) "
                "per phone")

    def dataflow_script(self) -> str:
        """examples/leaderboard/leaderboard.sql under these rules."""
        script = SCHEMA_FILE.read_text()
        changes = [("generate_series(1, 50)", f"generate_series(1, {self.contestants})", 1),
                   ("cnt >= 20000", f"cnt >= {self.removal_every}", 2),
                   ("cnt - 20000", f"cnt - {self.removal_every}", 1),
                   ("ON valid_votes ROWS 100 SLIDE 10;",
                    f"ON valid_votes ROWS {self.window} SLIDE {self.slide};", 1)]
        if self.votes_per_phone != 1:
            changes.append((
                "WHERE NOT EXISTS (SELECT 1 FROM v_votes_by_phone_number p\n"
                "                          WHERE p.phone_number = v.phone_number);",
                "WHERE coalesce((SELECT p.num_votes FROM v_votes_by_phone_number p\n"
                "                          WHERE p.phone_number = v.phone_number), 0) < "
                f"{self.votes_per_phone};", 1))
        return _changed(script, changes)

    def client_driven_script(self) -> str:
        """examples/leaderboard/client_driven.sql under these rules."""
        script = (WORKLOADS / "client_driven.sql").read_text()
        window, slide = self.window, self.slide
        changes = [(">= 20000", f">= {self.removal_every}", 5),
                   ("cnt - 20000", f"cnt - {self.removal_every}", 1),
                   ("total = 100 OR (total > 100 AND total % 10 = 0)",
                    f"total = {window} OR (total > {window} AND (total - {window}) % {slide} "
                    "= 0)", 2),
                   ("total - 100 FROM", f"total - {window} FROM", 2)]
        if self.votes_per_phone != 1:
            changes.append(("AND NOT EXISTS (SELECT 1 FROM votes WHERE phone_number = p_phone);",
                            "AND (SELECT count(*) FROM votes WHERE phone_number = p_phone) < "
                            f"{self.votes_per_phone};", 1))
        return _changed(script, changes)

    def tables_script(self) -> str:
        """The tables of the Leaderboard (leaderboard.sql up to its streams)."""
        script = self.dataflow_script()
        return script[:script.index("CREATE STREAM")]


def _changed(script: str, changes: Sequence[tuple[str, str, int]]) -> str:
    """``script`` with each text replaced, each found exactly as often as
    expected (an edited example fails here, not with a wrong result)."""
    for old, new, count in changes:
        if script.count(old) != count:
            raise ValueError(f"the Leaderboard script has {script.count(old)} of {old!r}, "
                             f"not {count}")
        script = script.replace(old, new)
    return script


EXAMPLE: Final = Rules()


def generate_votes(count: int, seed: int = 2015, contestants: int = EXAMPLE.contestants
                   ) -> Iterator[Vote]:
    """(vote_id, phone_number, contestant_number), deterministic for a seed.

    About one vote in ten repeats an earlier phone number (rejected: one vote
    per phone) and one in twenty names a contestant who does not run; the
    others favour some contestants over others, so removals are decided by
    real differences, not ties alone."""
    rng = random.Random(seed)
    phones: list[int] = []
    numbers = list(range(1, contestants + 6))
    weights = [1 + (number * 37) % contestants for number in numbers[:contestants]]
    weights += [sum(weights) // 95] * 5
    for vote_id in range(1, count + 1):
        if phones and rng.random() < 0.1:
            phone = rng.choice(phones)
        else:
            phone = (200 + rng.randrange(305)) * 10_000_000 + rng.randrange(10_000_000)
            phones.append(phone)
        yield vote_id, phone, rng.choices(numbers, weights)[0]


def load(conn: psycopg.Connection, schema: str | None = None,
         client_batch_ids: bool = False, maintained_views: bool = True,
         rules: Rules = EXAMPLE) -> None:
    """Create the Leaderboard dataflow (in ``schema`` when given). With
    ``client_batch_ids`` each vote's id is its batch id, so a vote sent
    again after a crash is recognised and skipped (exactly once). Without
    ``maintained_views`` its vote counts are plain views, computed by every
    query that reads them (the same SQL otherwise)."""
    if schema is not None:
        use_schema(conn, schema)
    changes = []
    if not maintained_views:
        changes.append(("CREATE MATERIALIZED VIEW", "CREATE VIEW", 2))
    if client_batch_ids:
        changes.append(("contestant_number integer NOT NULL);",
                        "contestant_number integer NOT NULL) WITH (batch_column = 'vote_id');",
                        1))
    conn.execute(_changed(rules.dataflow_script(), changes))


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


def load_procedures(conn: psycopg.Connection, rules: Rules = EXAMPLE) -> None:
    """The Leaderboard as procedures a client calls (client_driven.sql)."""
    conn.execute(rules.tables_script())
    conn.execute(rules.client_driven_script())


def load_postgres_triggers(conn: psycopg.Connection, rules: Rules = EXAMPLE) -> None:
    """The procedures, run by a PL/pgSQL trigger on each inserted vote."""
    load_procedures(conn, rules)
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


def variants(count: int = BENCH_VOTES, fsync_seconds: float = 3.0,
             rules: Rules = EXAMPLE) -> list[Variant]:
    # the same votes for every variant
    votes = list(generate_votes(count, contestants=rules.contestants))
    load_rules = functools.partial(load, rules=rules)
    procedures = functools.partial(load_procedures, rules=rules)
    triggers = functools.partial(load_postgres_triggers, rules=rules)
    pg_pipelined = "triggers (PL/pgSQL), pipelined client"
    pg_client = "client-driven (3 CALLs per vote), waiting client"
    fsync = Variant("fdatasync of 256 appended bytes", "local", _fsync_rate(fsync_seconds))
    agreeing = [
        Variant("dataflow, pipelined client, strong recovery, group commit", "sqlext",
                _run(load_rules, send_pipelined, votes, drain=True), DURABLE,
                versus=f"postgres: {pg_pipelined}"),
        Variant("dataflow with plain views, pipelined client, strong recovery, group commit",
                "sqlext", _run(functools.partial(load_rules, maintained_views=False),
                               send_pipelined, votes, drain=True), DURABLE,
                versus="sqlext: dataflow, pipelined client, strong recovery, group commit"),
        Variant("dataflow, waiting client, strong recovery, group commit", "sqlext",
                _run(load_rules, send_waiting, votes, drain=True), DURABLE,
                versus=fsync.label),
        Variant(f"{pg_client}, strong recovery, group commit", "sqlext",
                _run(procedures, send_client_driven, votes), DURABLE,
                versus=f"postgres: {pg_client}"),
        Variant(pg_pipelined, "postgres", _run(triggers, send_pipelined, votes)),
        Variant("triggers (PL/pgSQL), waiting client", "postgres",
                _run(triggers, send_waiting, votes)),
        Variant(pg_client, "postgres", _run(procedures, send_client_driven, votes)),
    ]
    for variant in agreeing:
        variant.agrees_with = "leaderboard"
    return [*agreeing, fsync]
