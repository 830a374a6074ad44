#!/usr/bin/env python3
"""Ask a throwaway PostgreSQL 15 (sqlext.tools.peer) for the outcome of every
curated numeric case (tests/fixtures/numeric_cases.py) and write them to
tests/unit/numeric_math_expected.json, which tests/unit/test_numeric_math.py
checks executor/values/numeric_math.py against without a server.

    .venv/bin/python scripts/freeze_numeric_cases.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlext.tools.peer import PostgresPeer
from tests.fixtures.numeric_cases import (
    ask_postgres,
    ask_postgres_aggregate,
    curated,
    curated_aggregates,
    frozen,
)

TARGET = Path(__file__).resolve().parents[1] / "tests" / "unit" / "numeric_math_expected.json"


def main() -> int:
    cases = curated()
    aggregate_cases = curated_aggregates()
    with PostgresPeer() as peer, psycopg.connect(peer.dsn, autocommit=True) as connection:
        version = connection.execute("SHOW server_version").fetchone()
        assert version is not None and version[0].startswith("15."), version
        outcomes = ask_postgres(connection, cases)
        aggregate_outcomes = [ask_postgres_aggregate(connection, case) for case in aggregate_cases]
    lines = [json.dumps([case.op, case.numbers, case.ints, frozen(outcome)])
             for case, outcome in zip(cases, outcomes, strict=True)]
    aggregate_lines = [
        json.dumps([case.function, case.values, case.preceding, [frozen(o) for o in outcome]])
        for case, outcome in zip(aggregate_cases, aggregate_outcomes, strict=True)]
    separator = ",\n"
    TARGET.write_text(
        f'{{"postgres": {json.dumps(version[0])},\n'
        f'"cases": [\n{separator.join(lines)}\n],\n'
        f'"aggregates": [\n{separator.join(aggregate_lines)}\n]}}\n')
    print(f"{len(cases)} cases, {len(aggregate_cases)} aggregate cases -> {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
