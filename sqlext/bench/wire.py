"""``sqlext bench wire``: round trips of one connection (SELECT 1, simple
and prepared), sqlext next to PostgreSQL."""

from __future__ import annotations

import time
from collections.abc import Callable

import psycopg

from sqlext.bench.harness import Variant

ROUND_TRIPS = 5000


def _select_one(prepare: bool) -> Callable[[str], float]:
    def run(dsn: str) -> float:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for _ in range(200):
                conn.execute("SELECT 1", prepare=prepare).fetchone()
            started = time.perf_counter()
            for _ in range(ROUND_TRIPS):
                conn.execute("SELECT 1", prepare=prepare).fetchone()
            return ROUND_TRIPS / (time.perf_counter() - started)
    return run


def variants() -> list[Variant]:
    return [
        Variant(workload, target, _select_one(prepare=workload.endswith("prepared")))
        for workload in ("SELECT 1, simple", "SELECT 1, prepared")
        for target in ("sqlext", "postgres")
    ]
