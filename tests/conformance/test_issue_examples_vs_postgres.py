"""The everyday SQL a PostgreSQL user tries first, through every client a
user points at sqlext: psycopg reading text and binary, psql and pgjdbc.
Each client runs the same statements on sqlext and on PostgreSQL 15 and
must read back the same values (or the same SQLSTATE): exact numeric with
its scales, integer overflow, the date/time functions, ordered and
grouping-set aggregates, LATERAL, the jsonb builders, regular expressions
and view dependencies."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.fixtures.differential import peers_fixture
from tests.fixtures.java import JDBC_JAR, compile_java
from tests.fixtures.psql import PSQL
from tests.fixtures.servers import ServerProcess

SETUP = [
    "CREATE TABLE money (id int PRIMARY KEY, amount numeric(10,2), big numeric(38,10))",
    "INSERT INTO money VALUES (1, 1.25, 1234567890123456789012345678.0123456789), "
    "(2, 2.50, 0), (3, 1.75, -1.5), (4, 2, NULL)",
    "CREATE TABLE people (id int PRIMARY KEY, name text, n int, born date)",
    "INSERT INTO people VALUES (1, 'bo', 2, '1990-02-03'), (2, 'al', 1, '1985-12-31'), "
    "(3, 'cy', 0, '2001-07-15')",
    "CREATE VIEW named AS SELECT id, name FROM people",
]

EXAMPLES = [
    "SELECT 12345678901234567890.123456789::numeric",
    "SELECT big FROM money ORDER BY id",
    "SELECT 2::numeric ^ 100, 9223372036854775807::numeric + 1, sqrt(2::numeric)",
    "SELECT avg(amount), sum(amount), 1.00::numeric::text, abs(-3.50) FROM money",
    "SELECT 2147483647::int + 1",
    "SELECT date_trunc('month', born), to_char(born, 'DD Mon YYYY'), "
    "age('2024-01-01'::date, born), make_date(2024, 2, 29) FROM people ORDER BY id",
    "SELECT to_timestamp(0)::text",
    "SELECT g FROM generate_series('2024-01-01'::timestamp, '2024-01-02', "
    "interval '12 hours') g",
    "SELECT string_agg(name, ',' ORDER BY name), array_agg(n ORDER BY n DESC) FROM people",
    "SELECT p.name, g FROM people p, generate_series(1, p.n) g ORDER BY 1, 2",
    "SELECT p.name, x.total FROM people p CROSS JOIN LATERAL "
    "(SELECT sum(amount) AS total FROM money WHERE money.id <= p.n) x ORDER BY 1",
    "SELECT n % 2 AS parity, count(*), grouping(n % 2) FROM people "
    "GROUP BY ROLLUP (n % 2) ORDER BY 1",
    "SELECT jsonb_build_object('a', 1, 'b', 2.50), jsonb_agg(name ORDER BY id) FROM people",
    "SELECT substring('abc123def' FROM '[0-9]+'), pg_typeof('x')",
    "SELECT pg_typeof(1), pg_typeof('a'::varchar), pg_typeof(now()), pg_typeof(ARRAY[1]), "
    "pg_typeof(1.5)",
    "DROP TABLE people",
]


def _python(value: Any) -> str:
    """A value read in binary, with its Python type (Decimal keeps its scale)."""
    return f"{type(value).__name__}:{value!s}"


def _binary(connection: psycopg.Connection, sql: str) -> object:
    try:
        with connection.cursor(binary=True) as cursor:
            cursor.execute(sql)
            if cursor.description is None:
                return "ok"
            return [[_python(v) for v in row] for row in cursor.fetchall()]
    except psycopg.Error as exc:
        return exc.sqlstate


def _psql(host: str, port: int, database: str, schema: str) -> list[str]:
    assert PSQL, "psql is missing: run `make install`"
    script = f"\\set VERBOSITY sqlstate\nSET search_path TO {schema};\n" + "".join(
        f"\\echo '> {i}'\n{sql};\n" for i, sql in enumerate(EXAMPLES))
    result = subprocess.run(
        [PSQL, "-X", "-A", "-t", "-h", host, "-p", str(port), "-U", "postgres", "-d", database],
        input=script, capture_output=True, text=True, timeout=120, check=False)
    # rows go to standard output, errors (as SQLSTATEs) to standard error, in order
    return [result.stdout, *(line for line in result.stderr.splitlines() if "ERROR" in line)]


peers = peers_fixture(SETUP, "examples")


@pytest.mark.parametrize("sql", EXAMPLES)
def test_psycopg_reads_the_same_in_binary(
        peers: tuple[psycopg.Connection, psycopg.Connection], sql: str) -> None:
    reference, ours = peers
    assert _binary(ours, sql) == _binary(reference, sql)


def _schema(connection: psycopg.Connection) -> str:
    found = connection.execute("SELECT current_schema()").fetchone()
    assert found is not None
    return str(found[0])


def test_psql_prints_the_same(server: ServerProcess,
                              peers: tuple[psycopg.Connection, psycopg.Connection]) -> None:
    reference, ours = peers
    pg_info = reference.info
    expected = _psql(pg_info.host, pg_info.port, pg_info.dbname, _schema(reference))
    actual = _psql(server.host, server.port, "sqlext", _schema(ours))
    assert actual == expected


def test_pgjdbc_reads_the_same(server: ServerProcess, tmp_path: Path,
                               peers: tuple[psycopg.Connection, psycopg.Connection]) -> None:
    reference, ours = peers
    source = Path(__file__).parents[1] / "java" / "RunQueries.java"
    classes = compile_java(tmp_path, "RunQueries", source.read_text())

    def read(host: str, port: int, database: str, schema: str) -> str:
        queries = tmp_path / f"queries-{port}.sql"
        queries.write_text("\n".join(EXAMPLES) + "\n")
        url = f"jdbc:postgresql://{host}:{port}/{database}?currentSchema={schema}"
        result = subprocess.run(["java", "-cp", f"{JDBC_JAR}:{classes}", "RunQueries", url,
                                 str(queries)], capture_output=True, text=True, timeout=180,
                                check=False)
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout

    pg_info = reference.info
    expected = read(pg_info.host, pg_info.port, pg_info.dbname, _schema(reference))
    assert read(server.host, server.port, "sqlext", _schema(ours)) == expected
