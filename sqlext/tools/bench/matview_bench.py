"""Materialized views: what one change to a base relation costs when the
view is maintained incrementally, against recomputing it (REFRESH
MATERIALIZED VIEW after the change), as the base relation grows from 10^3
to 10^6 rows. PostgreSQL, which can only recompute, runs the same REFRESH
as the peer.

Each change is its own transaction, followed by a read of the view row it
touched. The join view alternates a new order with a customer moving to
another region: the move joins with the per-customer map of orders (one
row), not with the orders themselves, so it stays flat too.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Final

import psycopg

from sqlext.tools.bench.harness import BenchmarkFailed, Column, Output, Table, use_schema
from sqlext.tools.peer import PostgresPeer
from sqlext.tools.processes import sqlext_server

SIZES: Final = (1_000, 10_000, 100_000, 1_000_000)
CUSTOMERS: Final = 1_000
CHANGES: Final = 200
"""Changes per round with the view maintained (each a transaction)."""
REFRESHES: Final = 3
"""Changes per round followed by a REFRESH (each recomputes the whole view)."""

TABLES: Final = f"""
CREATE TABLE customers (id int PRIMARY KEY, region int NOT NULL);
INSERT INTO customers SELECT n, n % 10 FROM generate_series(0, {CUSTOMERS - 1}) AS n;
CREATE TABLE orders (id int PRIMARY KEY, customer int NOT NULL, amount int NOT NULL);
"""
FILL: Final = ("INSERT INTO orders SELECT n, n % {customers}, n % 97 "
               "FROM generate_series(1, {rows}) AS n")


@dataclass(frozen=True)
class Shape:
    name: str
    view: str
    read: str
    """The view row a change touched (%s: the customer, or its region)."""
    moves: bool = False
    """Every other change moves a customer to another region."""


SHAPES: Final = (
    Shape("GROUP BY aggregate",
          "SELECT customer, count(*) AS orders, sum(amount) AS total, max(amount) AS largest "
          "FROM orders GROUP BY customer",
          "SELECT total FROM v WHERE customer = %s"),
    Shape("2-way join aggregate",
          "SELECT c.region, count(*) AS orders, sum(o.amount) AS total "
          "FROM orders o JOIN customers c ON c.id = o.customer GROUP BY c.region",
          "SELECT total FROM v WHERE region = (SELECT region FROM customers WHERE id = %s)",
          moves=True),
)


@dataclass
class Point:
    shape: str
    rows: int
    maintained: list[float]
    recomputed: list[float]
    postgres: list[float]
    """Microseconds per change."""


class _Changes:
    """The next changes to the base: new orders (ids after the loaded
    ones) and, for the join, customers moving region."""

    def __init__(self, rows: int, moves: bool) -> None:
        self.next_id = rows + 1
        self.moves = moves
        self.count = 0

    def apply(self, conn: psycopg.Connection) -> int:
        """Make one change in its own transaction; the customer it touched."""
        self.count += 1
        customer = self.count * 7 % CUSTOMERS
        if self.moves and self.count % 2 == 0:
            conn.execute("UPDATE customers SET region = (region + 1) %% 10 WHERE id = %s",
                         (customer,), prepare=True)
        else:
            conn.execute("INSERT INTO orders VALUES (%s, %s, %s)",
                         (self.next_id, customer, self.count % 97), prepare=True)
            self.next_id += 1
        return customer


def _load(conn: psycopg.Connection, shape: Shape, rows: int) -> None:
    use_schema(conn, f"bench_{time.monotonic_ns()}")
    conn.execute(TABLES)
    conn.execute(FILL.format(customers=CUSTOMERS, rows=rows))
    conn.execute(f"CREATE MATERIALIZED VIEW v AS {shape.view}")


def _per_change(conn: psycopg.Connection, shape: Shape, changes: _Changes, count: int,
                refresh: bool) -> float:
    """Microseconds per change (with a REFRESH after each when ``refresh``)."""
    started = time.perf_counter()
    for _ in range(count):
        customer = changes.apply(conn)
        if refresh:
            conn.execute("REFRESH MATERIALIZED VIEW v")
        conn.execute(shape.read, (customer,), prepare=True).fetchone()
    return (time.perf_counter() - started) / count * 1e6


def _check(conn: psycopg.Connection, shape: Shape) -> None:
    shown = sorted(conn.execute("SELECT * FROM v").fetchall())
    if shown != sorted(conn.execute(shape.view).fetchall()):
        raise BenchmarkFailed(f"the {shape.name} view differs from its query")


def measure(shape: Shape, rows: int, rounds: int, sqlext_dsn: str, postgres_dsn: str | None,
            changes: int = CHANGES, refreshes: int = REFRESHES) -> Point:
    point = Point(shape.name, rows, [], [], [])
    with psycopg.connect(sqlext_dsn, autocommit=True) as conn:
        _load(conn, shape, rows)
        steps = _Changes(rows, shape.moves)
        for _ in range(rounds):
            point.maintained.append(_per_change(conn, shape, steps, changes, refresh=False))
            point.recomputed.append(_per_change(conn, shape, steps, refreshes, refresh=True))
        _check(conn, shape)
    if postgres_dsn is not None:
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            _load(conn, shape, rows)
            steps = _Changes(rows, shape.moves)
            for _ in range(rounds):
                point.postgres.append(_per_change(conn, shape, steps, refreshes, refresh=True))
            _check(conn, shape)
    return point


@contextmanager
def _servers(with_peer: bool) -> Iterator[tuple[str, str | None]]:
    with ExitStack() as stack:
        sqlext_dsn = stack.enter_context(sqlext_server("--in-memory"))
        peer = stack.enter_context(PostgresPeer()) if with_peer else None
        yield sqlext_dsn, peer.dsn if peer is not None else None


def run_matviews(output: Output, with_peer: bool = True, sizes: tuple[int, ...] = SIZES,
                 changes: int = CHANGES, refreshes: int = REFRESHES) -> list[Point]:
    points = []
    with _servers(with_peer) as (sqlext_dsn, postgres_dsn):
        for shape in SHAPES:
            for rows in sizes:
                point = measure(shape, rows, output.rounds, sqlext_dsn, postgres_dsn, changes,
                                refreshes)
                print(f"  {shape.name}, {rows:,} rows: maintained "
                      f"{statistics.median(point.maintained):,.0f} us, recomputed "
                      f"{statistics.median(point.recomputed):,.0f} us per change", flush=True)
                points.append(point)
    table = Table("Materialized views: microseconds per change (a one-row transaction, then a "
                  "read of the view row it changed)",
                  [Column("view"), Column("base rows", ","), Column("maintained µs", ",.0f"),
                   Column("recomputed µs", ",.0f"), Column("recomputed / maintained", ",.1f"),
                   Column("postgres REFRESH µs", ",.0f"),
                   Column("postgres / maintained", ",.1f")])
    for point in points:
        maintained = statistics.median(point.maintained)
        recomputed = statistics.median(point.recomputed)
        postgres = statistics.median(point.postgres) if point.postgres else None
        table.rows.append([point.shape, point.rows, maintained, recomputed,
                           recomputed / maintained, postgres,
                           postgres / maintained if postgres else None])
    output.publish(table)
    return points
