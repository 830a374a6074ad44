"""executor.values.numeric_math against a live PostgreSQL 15: seeded random
operations (tests/fixtures/numeric_cases.py: arithmetic, powers, logarithms,
rounding, typmods, width_bucket on small, long, exponent-form and near-1
values and the specials) and random window aggregates, each compared by its
text (``::text``) or its SQLSTATE, message and detail; and the curated cases
whose answers tests/unit/test_numeric_math.py has frozen, asked again.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import psycopg
import pytest

from sqlext.tools.peer import PostgresPeer
from tests.fixtures.numeric_cases import (
    AggregateCase,
    Case,
    Outcome,
    ask_postgres,
    ask_postgres_aggregate,
    curated,
    random_aggregates,
    random_cases,
)

SEED = 20260115


@pytest.fixture(scope="module")
def connection(postgres_peer: PostgresPeer) -> Iterator[psycopg.Connection]:
    with psycopg.connect(postgres_peer.dsn, autocommit=True) as connection:
        yield connection


def _mismatches(cases: Sequence[Case | AggregateCase],
                outcomes: Sequence[Outcome | list[Outcome]]) -> str:
    found = []
    for case, theirs in zip(cases, outcomes, strict=True):
        ours = case.run()
        if ours != theirs:
            found.append(f"{case.sql}\n  postgres: {theirs}\n  sqlext:   {ours}")
    return f"{len(found)} of {len(cases)} differ:\n" + "\n".join(found[:20]) if found else ""


def test_random_operations(connection: psycopg.Connection) -> None:
    cases = random_cases(SEED, 3000)
    assert not _mismatches(cases, ask_postgres(connection, cases))


def test_random_window_aggregates(connection: psycopg.Connection) -> None:
    cases = random_aggregates(SEED, 150)
    assert not _mismatches(cases, [ask_postgres_aggregate(connection, case) for case in cases])


def test_curated_cases(connection: psycopg.Connection) -> None:
    cases = curated()
    assert not _mismatches(cases, ask_postgres(connection, cases))
