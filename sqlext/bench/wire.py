"""``sqlext bench wire``: what one psycopg connection gets through the
protocol, sqlext next to PostgreSQL: ``SELECT 1`` round trips (simple and
prepared), single-row INSERTs that commit durably, and fetching 100,000 rows."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

import psycopg

from sqlext.bench.harness import Measured, Variant

ROUND_TRIPS: Final = 5000
FETCH_ROWS: Final = 100_000
DURABLE: Final = ("--data-dir", "{data_dir}", "--recovery", "strong")
"""The INSERTs commit as PostgreSQL's do: on disk before the reply."""


def _select_one(prepare: bool, round_trips: int) -> Callable[[str], Measured]:
    def run(dsn: str) -> Measured:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for _ in range(200):
                conn.execute("SELECT 1", prepare=prepare).fetchone()
            started = time.perf_counter()
            for _ in range(round_trips):
                conn.execute("SELECT 1", prepare=prepare).fetchone()
            return Measured(round_trips / (time.perf_counter() - started))
    return run


def _insert(round_trips: int) -> Callable[[str], Measured]:
    def run(dsn: str) -> Measured:
        with psycopg.connect(dsn, autocommit=True) as conn:
            table = f"wire_insert_{time.monotonic_ns()}"
            conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, payload text)")
            statement = f"INSERT INTO {table} VALUES (%s, 'payload')"
            started = time.perf_counter()
            for row in range(round_trips):
                conn.execute(statement, (row,), prepare=True)
            rate = round_trips / (time.perf_counter() - started)
            count = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
            conn.execute(f"DROP TABLE {table}")
            return Measured(rate, count)
    return run


def _fetch(rows: int) -> Callable[[str], Measured]:
    def run(dsn: str) -> Measured:
        with psycopg.connect(dsn, autocommit=True) as conn:
            table = f"wire_fetch_{rows}"
            conn.execute(f"CREATE TABLE IF NOT EXISTS {table} "
                         "(id int PRIMARY KEY, name text, amount float8)")
            if conn.execute(f"SELECT count(*) FROM {table}").fetchone() != (rows,):
                conn.execute(f"DELETE FROM {table}")
                conn.execute(f"INSERT INTO {table} SELECT n, 'name-' || n, n * 0.5 "
                             "FROM generate_series(1, %s) AS n", (rows,))
            started = time.perf_counter()
            fetched = conn.execute(f"SELECT id, name, amount FROM {table}").fetchall()
            rate = len(fetched) / (time.perf_counter() - started)
            return Measured(rate, (len(fetched), sum(row[0] for row in fetched)))
    return run


def variants(round_trips: int = ROUND_TRIPS, fetch_rows: int = FETCH_ROWS) -> list[Variant]:
    workloads: list[tuple[str, Callable[[str], Measured], tuple[str, ...]]] = [
        ("SELECT 1, simple (round trips)", _select_one(False, round_trips), ("--in-memory",)),
        ("SELECT 1, prepared (round trips)", _select_one(True, round_trips), ("--in-memory",)),
        ("single-row INSERT, autocommit, durable (commits)", _insert(round_trips), DURABLE),
        (f"fetch {fetch_rows:,} rows of 3 columns (rows)", _fetch(fetch_rows), ("--in-memory",)),
    ]
    return [Variant(workload, target, run, server)
            for workload, run, server in workloads for target in ("sqlext", "postgres")]
