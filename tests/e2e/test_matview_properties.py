"""Differential property test of materialized views (hypothesis): random
views over a small family of schemas, random INSERT/UPDATE/DELETE in random
transaction groupings (some rolled back, some with a savepoint rolled back,
some ending with a REFRESH); after every transaction every view equals its
query run from scratch.

It runs against a server of its own, and each example drops what it made,
so the generated objects do not pile up in the catalog of other tests.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixtures.servers import ServerProcess, start_server

_SCHEMAS = itertools.count()

TABLES = {
    "r": [("k", "int"), ("g", "int"), ("x", "int"), ("y", "text"), ("w", "numeric(6, 2)")],
    "s": [("k", "int"), ("h", "int"), ("z", "int")],
}
_VALUES = {
    "k": st.integers(0, 3), "g": st.integers(0, 2), "h": st.integers(0, 2),
    "x": st.one_of(st.none(), st.integers(-2, 4)), "z": st.integers(-2, 3),
    "y": st.one_of(st.none(), st.sampled_from(["a", "b", "c"])),
    "w": st.one_of(st.none(), st.sampled_from(["-1.25", "0.50", "2.00", "3.75"])),
}
"""Small domains, so that updates and deletes by value hit rows (and MIN or
MAX values leave their groups)."""
START = (
    "INSERT INTO r SELECT n % 4, n % 3, nullif((n * 5) % 8, 7) - 2, "
    "(ARRAY['a', 'b', 'c', NULL])[n % 4 + 1], ((n * 3) % 7 - 2) * 1.25 "
    "FROM generate_series(0, 23) AS n;"
    "INSERT INTO s SELECT n % 5, n % 3, (n * 2) % 6 - 2 FROM generate_series(0, 9) AS n")
"""Groups of several rows with different values, so that removing a MIN or
MAX leaves a different one."""
_COLUMNS = {table: [name for name, _ in columns] for table, columns in TABLES.items()}

SINGLE_AGGREGATES = ["count(*)", "count(x)", "sum(x)", "avg(x)", "min(x)", "max(y)",
                     "count(DISTINCT y)", "sum(w)", "avg(w)", "max(w)"]
JOIN_AGGREGATES = ["count(*)", "sum(r.x)", "sum(s.z)", "max(s.z)", "min(r.x)", "avg(s.z)",
                   "count(DISTINCT r.y)", "sum(r.x * s.z)"]
FILTERS = ["x > 2", "y IS NOT NULL", "g <> 1", "x IS NULL OR x < 4", "w > 0"]


@st.composite
def views(draw: st.DrawFn) -> str:
    shape = draw(st.sampled_from(["single", "join", "plain", "distinct", "recomputed"]))
    if shape == "single":
        keys = draw(st.lists(st.sampled_from(["g", "k", "y"]), unique=True, max_size=2))
        aggregates = draw(st.lists(st.sampled_from(SINGLE_AGGREGATES), unique=True,
                                   min_size=1, max_size=4))
        where = draw(st.sampled_from(["", *(f" WHERE {f}" for f in FILTERS)]))
        having = draw(st.sampled_from(["", " HAVING count(*) > 1"])) if keys else ""
        return _grouped(keys, aggregates, f"r{where}", having)
    if shape == "join":
        keys = draw(st.lists(st.sampled_from(["r.g", "s.h"]), unique=True, max_size=2))
        aggregates = draw(st.lists(st.sampled_from(JOIN_AGGREGATES), unique=True,
                                   min_size=1, max_size=4))
        where = draw(st.sampled_from(["", " WHERE s.z > 0", " WHERE r.x IS NOT NULL"]))
        return _grouped(keys, aggregates, f"r JOIN s ON r.k = s.k{where}", "")
    if shape == "plain":
        return "SELECT r.g, r.y, s.z FROM r JOIN s ON r.k = s.k WHERE s.z > -2"
    if shape == "distinct":
        return "SELECT DISTINCT g, y FROM r"
    return "SELECT g, x FROM r WHERE x IS NOT NULL ORDER BY x DESC, g LIMIT 3"


def _grouped(keys: list[str], aggregates: list[str], source: str, having: str) -> str:
    outputs = [f"{key} AS key{n}" for n, key in enumerate(keys)] + [
        f"{aggregate} AS agg{n}" for n, aggregate in enumerate(aggregates)]
    group = f" GROUP BY {', '.join(keys)}" if keys else ""
    return f"SELECT {', '.join(outputs)} FROM {source}{group}{having}"


@st.composite
def changes(draw: st.DrawFn) -> str:
    table = draw(st.sampled_from(["r", "s"]))
    columns = _COLUMNS[table]
    kind = draw(st.sampled_from(["insert", "update", "delete"]))
    if kind == "insert":
        rows = draw(st.lists(st.tuples(*(_VALUES[c] for c in columns)), min_size=1,
                             max_size=3))
        values = ", ".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in rows)
        return f"INSERT INTO {table} VALUES {values}"
    column = draw(st.sampled_from(columns))
    condition = f"{column} = {_literal(draw(_VALUES[column]))}"
    if kind == "delete":
        return f"DELETE FROM {table} WHERE {condition}"
    target = draw(st.sampled_from(columns))
    return (f"UPDATE {table} SET {target} = {_literal(draw(_VALUES[target]))} "
            f"WHERE {condition}")


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str) and not value[-1].isdigit():
        return f"'{value}'"
    return str(value)


transactions = st.lists(st.tuples(st.lists(changes(), min_size=1, max_size=4),
                                  st.sampled_from(["commit", "commit", "rollback",
                                                   "savepoint", "refresh"])),
                        min_size=1, max_size=8)


@pytest.fixture(scope="module")
def private_server() -> Iterator[ServerProcess]:
    server = start_server("--in-memory")
    yield server
    server.stop()


def _contents(conn: psycopg.Connection, query: str) -> list[tuple[Any, ...]]:
    return sorted(conn.execute(query).fetchall(), key=repr)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(definitions=st.lists(views(), min_size=1, max_size=4, unique=True),
       work=transactions)
def test_views_equal_their_queries_after_every_transaction(
        private_server: ServerProcess, definitions: list[str],
        work: list[tuple[list[str], str]]) -> None:
    schema = f"p{next(_SCHEMAS)}"
    with private_server.connect(autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"SET search_path = {schema}")
        for table, columns in TABLES.items():
            conn.execute(f"CREATE TABLE {table} "
                         f"({', '.join(f'{name} {kind}' for name, kind in columns)})")
        conn.execute(START)
        names = [f"v{n}" for n in range(len(definitions))]
        for name, query in zip(names, definitions, strict=True):
            conn.execute(f"CREATE MATERIALIZED VIEW {name} AS {query}")
        try:
            for statements, ending in work:
                with conn.transaction(force_rollback=ending == "rollback"):
                    for number, statement in enumerate(statements):
                        if ending == "savepoint" and number == len(statements) - 1:
                            conn.execute("SAVEPOINT last")
                            conn.execute(statement)
                            conn.execute("ROLLBACK TO SAVEPOINT last")
                        else:
                            conn.execute(statement)
                    if ending == "refresh":
                        for name in names:
                            conn.execute(f"REFRESH MATERIALIZED VIEW {name}")
                for name, query in zip(names, definitions, strict=True):
                    assert _contents(conn, f"SELECT * FROM {name}") == _contents(conn, query), (
                        query)
        finally:
            conn.execute("DROP TABLE r, s CASCADE")
