"""Differential tests of everything a client is told: each script runs step
by step on sqlext and on PostgreSQL 15, and every step must give the same
outcome (command tag, rows as text with their types), or the same error
with the same message, DETAIL, HINT and position, and send the same
notices (``tests.fixtures.differential.told``).

The scripts run in a schema of their own on sqlext and in a fresh database
on PostgreSQL, with the schema first in the search path, so objects are
named the same way on both.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest

from sqlext.tools.peer import PostgresPeer
from tests.fixtures.differential import told
from tests.fixtures.servers import ServerProcess, own_schema

SCRIPTS: dict[str, list[str]] = {
    "a parameter is no name": [
        "CREATE TABLE t (a int)",
        "SELECT * FROM $1",
        "SELECT * FROM public.$1",
        "SELECT t.$1 FROM t",
        "SELECT 1 AS $1",
        "SELECT * FROM (SELECT 1) AS $1",
        "SELECT * FROM generate_series(1, 2) $1",
        "WITH $1 AS (SELECT 1) SELECT 1",
        "CREATE TABLE $1 (a int)",
        "CREATE TABLE u ($1 int)",
        "CREATE TABLE u (a int CONSTRAINT $1 CHECK (a > 0))",
        "CREATE VIEW $1 AS SELECT 1",
        "CREATE INDEX $1 ON t (a)",
        "CREATE SEQUENCE $1",
        "INSERT INTO $1 VALUES (1)",
        "INSERT INTO t ($1) VALUES (1)",
        "INSERT INTO t VALUES (1) ON CONFLICT ($1) DO NOTHING",
        "UPDATE $1 SET a = 1",
        "UPDATE t SET $1 = 1",
        "DELETE FROM $1",
        "ALTER TABLE $1 ADD COLUMN b int",
        "ALTER TABLE t RENAME TO $1",
        "ALTER TABLE t RENAME COLUMN a TO $1",
        "DROP TABLE $1",
        "TRUNCATE $1",
        "LISTEN $1",
        "NOTIFY $12",
        "UNLISTEN $1",
        "CALL $1()",
        "SELECT * FROM t JOIN t AS u USING ($1)",
        # where an expression goes, a parameter is one
        "PREPARE p (int) AS SELECT a FROM t WHERE a = $1 ORDER BY $1",
        "EXECUTE p(1)",
    ],
    "untyped literals": [
        "SELECT pg_typeof('x') AS t, pg_typeof(NULL) AS n, pg_typeof(('y')), 'x' AS u",
        "SELECT pg_typeof('x'::text), pg_typeof(-1), pg_typeof(coalesce('a', 'b'))",
        "SELECT pg_typeof(CASE WHEN true THEN 'a' END), pg_typeof(ARRAY['a'])",
        "SELECT -'1'",
        "SELECT - 'x'",
        "SELECT -('1')",
        "SELECT -NULL",
        "PREPARE neg AS SELECT -$1",
        "SELECT -1, -(2), -'1'::int, -'2.5'::float8",
    ],
}


@pytest.fixture(scope="module")
def reference() -> Iterator[PostgresPeer]:
    with PostgresPeer() as pg:
        yield pg


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_script_tells_what_postgres_tells(name: str, reference: PostgresPeer,
                                          server: ServerProcess) -> None:
    database = f"told_{uuid.uuid4().hex}"
    with psycopg.connect(reference.dsn, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {database}")
    with psycopg.connect(reference.dsn.replace("dbname=postgres", f"dbname={database}"),
                         autocommit=True) as theirs, own_schema(server, "told") as ours:
        for step, sql in enumerate(SCRIPTS[name]):
            assert told(ours, sql) == told(theirs, sql), f"step {step}: {sql}"
