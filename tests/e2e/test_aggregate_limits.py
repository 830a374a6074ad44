"""What sqlext refuses of aggregates, grouping sets, the json functions,
jsonpath and arrays where PostgreSQL would answer (docs/sql.md, "Differences from PostgreSQL"):
each is error 0A000 with a message saying what is not supported, never a
different answer."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from tests.fixtures.servers import ServerProcess, own_schema


@pytest.fixture(scope="module")
def db(server: ServerProcess) -> Iterator[psycopg.Connection]:
    with own_schema(server, "aggregate_limits") as connection:
        connection.execute("CREATE TABLE t (a int, b text, d interval)")
        connection.execute("INSERT INTO t VALUES (1, 'x', '1 day'), (2, 'y', '2 days')")
        yield connection


REFUSED = {
    "window function with grouping sets": (
        "SELECT a, row_number() OVER (ORDER BY a) FROM t GROUP BY ROLLUP (a)", "window"),
    "unqualified grouping column in a subquery": (
        "SELECT a, (SELECT count(*) FROM t AS u WHERE u.a < a) FROM t GROUP BY ROLLUP (a)",
        "ambiguous"),
    "percentile_cont of intervals": (
        "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY d) FROM t", "interval"),
    "row_to_json with a computed pretty flag": (
        "SELECT row_to_json(t, a > 1) FROM t", "constant"),
    "jsonpath item methods": (
        "SELECT jsonb_path_query('[1, 2]', '$.size()')", "item method .size()"),
    "jsonpath arithmetic": (
        "SELECT jsonb_path_query('[1, 2]', '$[0] + 1')", "arithmetic"),
    "jsonpath like_regex": (
        "SELECT jsonb_path_exists('[\"a\"]', '$[*] ? (@ like_regex \"a\")')", "like_regex"),
    "jsonpath recursive wildcard": ("SELECT '$.**'::jsonpath", "accessor"),
    "jsonb_populate_record": (
        "SELECT * FROM jsonb_populate_record(NULL::t, '{\"a\": 1}')", "composite types"),
    "a multidimensional array_fill": (
        "SELECT array_fill(1, ARRAY[2, 2])", "multidimensional"),
    "array_fill with a lower bound": (
        "SELECT array_fill(1, ARRAY[2], ARRAY[0])", "lower bounds"),
}


@pytest.mark.parametrize("sql, message", REFUSED.values(), ids=list(REFUSED))
def test_refused_as_not_supported(db: psycopg.Connection, sql: str, message: str) -> None:
    with pytest.raises(psycopg.errors.FeatureNotSupported, match=message):
        db.execute(sql)
