"""``sqlext bench wire``: what one psycopg connection gets through the
protocol, sqlext next to PostgreSQL: ``SELECT 1`` round trips (simple and
prepared), single-row INSERTs that commit durably, fetching 100,000 rows,
and bulk data: ``executemany`` of 100,000 INSERTs, and COPY FROM STDIN and
TO STDOUT of 1,000,000 rows in text and binary."""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable
from typing import Final

import psycopg

from sqlext.session import copy_binary
from sqlext.tools.bench.harness import BenchmarkFailed, Measured, Variant, timed_run

ROUND_TRIPS: Final = 5000
FETCH_ROWS: Final = 100_000
BATCH_ROWS: Final = 100_000
COPY_ROWS: Final = 1_000_000
COPY_CHUNK: Final = 1 << 16
"""Bytes per CopyData message the client sends (psql sends lines or 8 kB)."""
COPIED: Final = "CREATE TABLE copied (id int PRIMARY KEY, name text, amount float8)"
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


def _copied_rows(rows: int) -> list[tuple[int, str, float]]:
    return [(n, f"name-{n}", n / 2) for n in range(1, rows + 1)]


def _copied_state(conn: psycopg.Connection) -> object:
    return conn.execute("SELECT count(*), sum(id), sum(length(name)), sum(amount) "
                        "FROM copied").fetchone()


def _executemany(rows: int) -> Callable[[str], Measured]:
    values = _copied_rows(rows)

    def work(conn: psycopg.Connection) -> None:
        with conn.cursor() as cursor:
            cursor.executemany("INSERT INTO copied VALUES (%s, %s, %s)", values)
    return timed_run(lambda conn: conn.execute(COPIED), work, rows, _copied_state)


@functools.cache
def _copy_data(rows: int, binary: bool) -> bytes:
    """``rows`` rows of ``copied`` in COPY's text or binary format."""
    if not binary:
        return "".join(f"{n}\t{name}\t{amount!r}\n"
                       for n, name, amount in _copied_rows(rows)).encode()
    number, double = struct.Struct(">i"), struct.Struct(">d")
    return b"".join([copy_binary.HEADER, *(
        copy_binary.encode_row([number.pack(n), name.encode(), double.pack(amount)])
        for n, name, amount in _copied_rows(rows)), copy_binary.TRAILER])


def _copy_from(rows: int, binary: bool) -> Callable[[str], Measured]:
    statement = f"COPY copied FROM STDIN{' (FORMAT binary)' if binary else ''}"

    def setup(conn: psycopg.Connection) -> None:
        conn.execute(COPIED)
        _copy_data(rows, binary)  # made before the clock starts

    def work(conn: psycopg.Connection) -> None:
        data = _copy_data(rows, binary)
        with conn.cursor().copy(statement) as copy:
            for start in range(0, len(data), COPY_CHUNK):
                copy.write(data[start:start + COPY_CHUNK])
    return timed_run(setup, work, rows, _copied_state)


def _copy_to(rows: int, binary: bool) -> Callable[[str], Measured]:
    def fill(conn: psycopg.Connection) -> None:
        conn.execute(COPIED)
        with conn.cursor().copy("COPY copied FROM STDIN") as copy:
            copy.write(_copy_data(rows, False))

    def work(conn: psycopg.Connection) -> None:
        with conn.cursor().copy(
                f"COPY copied TO STDOUT{' (FORMAT binary)' if binary else ''}") as copy:
            size = sum(len(data) for data in copy)
        if size < rows * 10:
            raise BenchmarkFailed(f"COPY TO sent {size} bytes for {rows} rows")
    return timed_run(fill, work, rows, _copied_state)


def variants(round_trips: int = ROUND_TRIPS, fetch_rows: int = FETCH_ROWS,
             batch_rows: int = BATCH_ROWS, copy_rows: int = COPY_ROWS) -> list[Variant]:
    workloads: list[tuple[str, Callable[[str], Measured], tuple[str, ...]]] = [
        ("SELECT 1, simple (round trips)", _select_one(False, round_trips), ("--in-memory",)),
        ("SELECT 1, prepared (round trips)", _select_one(True, round_trips), ("--in-memory",)),
        ("single-row INSERT, autocommit, durable (commits)", _insert(round_trips), DURABLE),
        (f"fetch {fetch_rows:,} rows of 3 columns (rows)", _fetch(fetch_rows), ("--in-memory",)),
        (f"executemany INSERT of {batch_rows:,} rows of 3 columns, durable (rows)",
         _executemany(batch_rows), DURABLE),
        *[(f"COPY FROM STDIN, {copy_rows:,} rows of 3 columns, {kind}, durable (rows)",
           _copy_from(copy_rows, kind == "binary"), DURABLE) for kind in ("text", "binary")],
        *[(f"COPY TO STDOUT, {copy_rows:,} rows of 3 columns, {kind} (rows)",
           _copy_to(copy_rows, kind == "binary"), ("--in-memory",))
          for kind in ("text", "binary")],
    ]
    return [Variant(workload, target, run, server)
            for workload, run, server in workloads for target in ("sqlext", "postgres")]
