"""SQL fuzzing ("[7] Hardening"), the short run: random schemas and random
statement mixes (tests/fixtures/sql_fuzz.py), each in a schema of its own on
a server of its own, for about half a minute. Every statement either
succeeds or fails with a clean PostgreSQL error: a SQLSTATE PostgreSQL
defines, never XX000, on a connection that still works. The server stays
up, and a fresh connection works at the end.

The seeds are fixed, so a failure reproduces (the message names the round's
seed; scripts/fuzz_sql.py runs the same generator for as long as wanted).
Set SQLEXT_FUZZ_SEED to explore other seeds.
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable

import pytest

from tests.fixtures.servers import ServerProcess
from tests.fixtures.sql_fuzz import Fuzzer
from tests.fixtures.sql_fuzz_runner import Report, Session

BUDGET_S = 30.0
STATEMENTS_PER_SCHEMA = 120


@pytest.mark.timeout(300)  # BUDGET_S of statements, and a round may end past it
def test_random_statements_fail_cleanly_and_the_server_stays_up(
        server_factory: Callable[..., ServerProcess]) -> None:
    server = server_factory("--in-memory")
    report = Report()
    session = Session(connect=server.connect, alive=lambda: server.alive, report=report,
                      stop_server=lambda: server.stop(signal.SIGKILL))
    seeds = random.Random(int(os.environ.get("SQLEXT_FUZZ_SEED", "20261123")))
    deadline = time.monotonic() + BUDGET_S
    rounds: list[int] = []
    while time.monotonic() < deadline and not report.failed:
        rounds.append(seeds.getrandbits(32))
        session.run(Fuzzer(rounds[-1]), STATEMENTS_PER_SCHEMA, deadline)
    assert not report.failed, (
        f"seeds of the rounds, the failing one last: {rounds}\n{report.summary()}")
    assert server.alive
    assert report.statements > 500, report.summary()  # the run was not cut short
    assert sum(report.succeeded.values()) > report.statements // 4, report.summary()
    with server.connect(autocommit=True) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
