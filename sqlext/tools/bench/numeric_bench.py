"""``sqlext bench numeric``: money-shaped numeric work, sqlext next to
PostgreSQL: ``sum`` and ``avg`` over a million ``numeric(12,2)`` values, and
a client inserting ``numeric(10,2)`` values in batches (``executemany`` in
one transaction). With ``--baseline REV`` the same workloads run on an
earlier sqlext too, so a change of numeric's representation is measured
against the one it replaces."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Final

import psycopg

from sqlext.tools.bench.harness import Measured, Variant, timed_run

AGGREGATE_ROWS: Final = 1_000_000
INSERT_ROWS: Final = 100_000
QUERIES: Final = 5
"""Each aggregate query runs this often in a round (its rate is rows/s)."""


def _aggregates(rows: int) -> Callable[[str], Measured]:
    def fill(conn: psycopg.Connection) -> None:
        conn.execute("CREATE TABLE amounts (id int PRIMARY KEY, amount numeric(12,2))")
        # cents spread over the whole precision, a tenth of them negative
        conn.execute("INSERT INTO amounts SELECT n, ((n::int8 * 7919) %% 100000000000 - "
                     "(n %% 10 = 0)::int * 50000000000) / 100.0 "
                     "FROM generate_series(1, %s) AS n", (rows,))

    def work(conn: psycopg.Connection) -> None:
        for _ in range(QUERIES):
            conn.execute("SELECT sum(amount), avg(amount) FROM amounts").fetchone()

    def state(conn: psycopg.Connection) -> object:
        # compared as numbers: the representations being measured differ in scale
        total, average = conn.execute("SELECT sum(amount), avg(amount) FROM amounts").fetchone()
        return total, round(average, 6)
    return timed_run(fill, work, rows * QUERIES, state)


def _batch_insert(rows: int) -> Callable[[str], Measured]:
    values = [(row, Decimal(row % 10_000_000) / 100) for row in range(rows)]

    def work(conn: psycopg.Connection) -> None:
        with conn.transaction(), conn.cursor() as cursor:
            cursor.executemany("INSERT INTO prices VALUES (%s, %s)", values)

    return timed_run(
        lambda conn: conn.execute("CREATE TABLE prices (id int PRIMARY KEY, price numeric(10,2))"),
        work, rows,
        lambda conn: conn.execute("SELECT count(*), sum(price) FROM prices").fetchone())


def variants(aggregate_rows: int = AGGREGATE_ROWS, insert_rows: int = INSERT_ROWS
             ) -> list[Variant]:
    workloads: list[tuple[str, Callable[[str], Measured]]] = [
        (f"sum and avg of {aggregate_rows:,} numeric(12,2) (rows)",
         _aggregates(aggregate_rows)),
        (f"executemany INSERT of {insert_rows:,} numeric(10,2) (rows)",
         _batch_insert(insert_rows)),
    ]
    return [Variant(workload, target, run)
            for workload, run in workloads for target in ("sqlext", "postgres")]
