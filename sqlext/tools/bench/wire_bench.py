"""``sqlext bench wire``: what one psycopg connection gets through the
protocol, sqlext next to PostgreSQL: ``SELECT 1`` round trips (simple and
prepared), single-row INSERTs that commit durably, and fetching 100,000 rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import psycopg

from sqlext.tools.bench.harness import BenchmarkFailed, Measured, Variant, timed_run

ROUND_TRIPS: Final = 5000
FETCH_ROWS: Final = 100_000
DURABLE: Final = ("--data-dir", "{data_dir}", "--recovery", "strong")
"""The INSERTs commit as PostgreSQL's do: on disk before the reply."""


def _select_one(prepare: bool, round_trips: int) -> Callable[[str], Measured]:
    def warm_up(conn: psycopg.Connection) -> None:
        for _ in range(200):
            conn.execute("SELECT 1", prepare=prepare).fetchone()

    def work(conn: psycopg.Connection) -> None:
        for _ in range(round_trips):
            conn.execute("SELECT 1", prepare=prepare).fetchone()
    return timed_run(warm_up, work, round_trips)


def _insert(round_trips: int) -> Callable[[str], Measured]:
    def work(conn: psycopg.Connection) -> None:
        for row in range(round_trips):
            conn.execute("INSERT INTO inserted VALUES (%s, 'payload')", (row,), prepare=True)
    return timed_run(
        lambda conn: conn.execute("CREATE TABLE inserted (id int PRIMARY KEY, payload text)"),
        work, round_trips, lambda conn: conn.execute("SELECT count(*) FROM inserted").fetchone())


def _fetch(rows: int) -> Callable[[str], Measured]:
    def fill(conn: psycopg.Connection) -> None:
        conn.execute("CREATE TABLE fetched (id int PRIMARY KEY, name text, amount float8)")
        conn.execute("INSERT INTO fetched SELECT n, 'name-' || n, n * 0.5 "
                     "FROM generate_series(1, %s) AS n", (rows,))

    def work(conn: psycopg.Connection) -> None:
        fetched = conn.execute("SELECT id, name, amount FROM fetched").fetchall()
        if len(fetched) != rows:
            raise BenchmarkFailed(f"fetched {len(fetched)} rows, not {rows}")
    return timed_run(fill, work, rows,
                     lambda conn: conn.execute("SELECT count(*), sum(id) FROM fetched").fetchone())


def variants(round_trips: int = ROUND_TRIPS, fetch_rows: int = FETCH_ROWS) -> list[Variant]:
    workloads: list[tuple[str, Callable[[str], Measured], tuple[str, ...]]] = [
        ("SELECT 1, simple (round trips)", _select_one(False, round_trips), ("--in-memory",)),
        ("SELECT 1, prepared (round trips)", _select_one(True, round_trips), ("--in-memory",)),
        ("single-row INSERT, autocommit, durable (commits)", _insert(round_trips), DURABLE),
        (f"fetch {fetch_rows:,} rows of 3 columns (rows)", _fetch(fetch_rows), ("--in-memory",)),
    ]
    return [Variant(workload, target, run, server)
            for workload, run, server in workloads for target in ("sqlext", "postgres")]
