"""Differential tests of data-changing statements: each script runs step by
step on sqlext and on PostgreSQL 15; every step's outcome (command tag, rows
or SQLSTATE) must be the same on both."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from sqlext.tools.peer import PostgresPeer
from tests.fixtures.differential import outcome
from tests.fixtures.servers import ServerProcess, own_schema

SCRIPTS: dict[str, list[str]] = {
    "insert forms": [
        "CREATE TABLE t (id serial PRIMARY KEY, name text NOT NULL DEFAULT 'anon', "
        "score numeric(6,2), seen timestamptz, flags boolean[] )",
        "INSERT INTO t (name, score) VALUES ('a', 1.005), ('b', 99.999)",
        "INSERT INTO t DEFAULT VALUES",
        "INSERT INTO t (id, name) VALUES (DEFAULT, 'c') RETURNING id, name, score",
        "INSERT INTO t (name, score) SELECT name || '2', score * 2 FROM t WHERE score IS NOT NULL "
        "RETURNING *",
        "INSERT INTO t (name) VALUES (NULL)",
        "INSERT INTO t (name, score) VALUES ('big', 123456.78)",
        "INSERT INTO t (name, seen) VALUES ('when', '2024-01-02 03:04:05.5+02')",
        "INSERT INTO t (name, flags) VALUES ('arr', '{t,f,NULL}')",
        "INSERT INTO t (id, name) VALUES (1, 'dup')",
        "SELECT id, name, score, seen, flags FROM t ORDER BY id",
    ],
    "update and delete": [
        "CREATE TABLE acct (id int PRIMARY KEY, owner text, balance numeric(12,2) "
        "CHECK (balance >= 0))",
        "INSERT INTO acct VALUES (1, 'x', 100), (2, 'y', 50), (3, 'z', 0)",
        "UPDATE acct SET balance = balance + 10 WHERE id <> 3",
        "UPDATE acct SET balance = balance - 1000 WHERE id = 1",
        "UPDATE acct SET owner = upper(owner), balance = DEFAULT WHERE id = 3 RETURNING *",
        "UPDATE acct AS a SET owner = a.owner || '!' WHERE a.balance > 55",
        "DELETE FROM acct WHERE balance IS NULL RETURNING id",
        "DELETE FROM acct WHERE id = 99",
        "CREATE TABLE bonus (id int, amount numeric(12,2))",
        "INSERT INTO bonus VALUES (1, 5), (2, 7.5)",
        "UPDATE acct SET balance = acct.balance + b.amount FROM bonus b WHERE b.id = acct.id "
        "RETURNING acct.*",
        "DELETE FROM acct USING bonus WHERE bonus.id = acct.id AND bonus.amount > 6 "
        "RETURNING acct.id",
        "SELECT * FROM acct ORDER BY id",
    ],
    "narrowing assignments": [
        "CREATE TABLE wide (id int, big bigint, small int, word text)",
        "INSERT INTO wide VALUES (1, 2147483647, 32767, 'ab'), (2, -2147483648, -32768, 'ab  '), "
        "(3, NULL, NULL, NULL), (4, 2147483648, 32768, 'abc')",
        "CREATE TABLE narrow (i int, s smallint, v varchar(2))",
        "INSERT INTO narrow SELECT big, small, word FROM wide WHERE id <= 3",
        "INSERT INTO narrow (i) SELECT big FROM wide WHERE id = 4",
        "INSERT INTO narrow (s) SELECT small FROM wide WHERE id = 4",
        "INSERT INTO narrow (v) SELECT word FROM wide WHERE id = 4",
        "INSERT INTO narrow (i, s) VALUES (2147483647::bigint, -32768::bigint)",
        "UPDATE narrow SET i = big FROM wide WHERE wide.id = 4 AND narrow.i IS NULL",
        "UPDATE narrow SET v = 'xy ' WHERE i = 2147483647 RETURNING v",
        "SELECT i, s, v, length(v) FROM narrow ORDER BY i, s",
        "UPDATE narrow SET s = s + (SELECT count(*) FROM wide) WHERE s = 32767",
        "UPDATE narrow SET s = s - (SELECT count(*) FROM wide) WHERE s = -32768",
        "UPDATE narrow SET s = s + (SELECT count(*) FROM wide) - 4 WHERE s = 32767 RETURNING s",
        "UPDATE narrow SET i = coalesce(i, 0) + (SELECT max(big) FROM wide WHERE id < 4) "
        "WHERE i IS NULL RETURNING i",
        "SELECT (id + 1)::int2 AS x, count(*) FROM wide GROUP BY id ORDER BY x",
        "SELECT (big + 1)::int4 FROM wide WHERE id = 3",
        "SELECT (big + 1)::int4 FROM wide WHERE id = 1",
        "SELECT (sum(big) - sum(big) + 7)::int2 FROM wide",
        "CREATE TABLE defaults (id int, fits int2 DEFAULT 30000 + 2767, "
        "overflows int2 DEFAULT 30000 + 2768)",
        "INSERT INTO defaults (id, overflows) VALUES (1, 5)",
        "INSERT INTO defaults (id) VALUES (2)",
        "SELECT * FROM defaults",
    ],
    "integer overflow": [
        "CREATE TABLE counters (id int PRIMARY KEY, small int2, mid int, big bigint)",
        "INSERT INTO counters VALUES (1, 32766, 2147483646, 9223372036854775806), "
        "(2, -32767, -2147483647, -9223372036854775807), (3, NULL, NULL, NULL)",
        "UPDATE counters SET small = small + 1, mid = mid + 1, big = big + 1 RETURNING *",
        "UPDATE counters SET small = small + 1 WHERE id = 1",
        "UPDATE counters SET mid = mid * 2 WHERE id = 2",
        "UPDATE counters SET big = big - 2 WHERE id = 2",
        "UPDATE counters SET mid = -mid WHERE id = 2 RETURNING mid",
        "UPDATE counters SET mid = mid - 1 WHERE id = 2",
        "UPDATE counters SET mid = -mid WHERE id = 2",
        "SELECT id FROM counters WHERE mid + 1 > 0 ORDER BY id",
        "SELECT id FROM counters WHERE big + 1 > 0 ORDER BY id",
        "SELECT id, small * small, mid / -1, big % -1, abs(mid) FROM counters ORDER BY id",
        "INSERT INTO counters SELECT id + 10, small + small, mid, big FROM counters WHERE id = 1",
        "INSERT INTO counters SELECT id + 10, small, mid + 0, big * 1 FROM counters",
        "SELECT sum(mid), sum(small), count(*) FROM counters",
        "SELECT * FROM counters ORDER BY id",
    ],
    "upsert": [
        "CREATE TABLE kv (k text PRIMARY KEY, v int, n int DEFAULT 0)",
        "INSERT INTO kv VALUES ('a', 1) ON CONFLICT (k) DO NOTHING",
        "INSERT INTO kv VALUES ('a', 2) ON CONFLICT (k) DO NOTHING",
        "INSERT INTO kv VALUES ('a', 3) ON CONFLICT (k) DO UPDATE SET v = excluded.v, "
        "n = kv.n + 1",
        "INSERT INTO kv VALUES ('b', 4), ('a', 5) ON CONFLICT (k) DO UPDATE SET v = "
        "excluded.v + kv.v RETURNING k, v, n",
        "SELECT * FROM kv ORDER BY k",
    ],
    "foreign keys": [
        "CREATE TABLE parent (id int PRIMARY KEY)",
        "CREATE TABLE child (id int PRIMARY KEY, parent_id int REFERENCES parent (id) "
        "ON DELETE CASCADE)",
        "INSERT INTO parent VALUES (1), (2)",
        "INSERT INTO child VALUES (10, 1), (20, 2)",
        "INSERT INTO child VALUES (30, 3)",
        "DELETE FROM parent WHERE id = 1",
        "SELECT * FROM child ORDER BY id",
        "DROP TABLE parent",
        "TRUNCATE parent",
    ],
    "schema changes": [
        "CREATE TABLE s (a int)",
        "CREATE TABLE s (a int)",
        "CREATE TABLE IF NOT EXISTS s (a int)",
        "INSERT INTO s VALUES (1), (2)",
        "ALTER TABLE s ADD COLUMN b text DEFAULT 'new'",
        "ALTER TABLE s ADD COLUMN c int NOT NULL",
        "INSERT INTO s (a) VALUES (3)",
        "SELECT * FROM s ORDER BY a",
        "ALTER TABLE s RENAME COLUMN b TO bee",
        "ALTER TABLE s RENAME TO s2",
        "SELECT a, bee FROM s2 ORDER BY a",
        "CREATE INDEX s2_a ON s2 (a)",
        "CREATE UNIQUE INDEX s2_bee ON s2 (bee)",
        "CREATE VIEW v2 AS SELECT a * 10 AS ten FROM s2",
        "SELECT * FROM v2 ORDER BY 1",
        "DROP VIEW v2",
        "DROP TABLE s2",
        "DROP TABLE s2",
        "DROP TABLE IF EXISTS s2",
        "CREATE SCHEMA other",
        "CREATE TABLE other.t (x int)",
        "INSERT INTO other.t VALUES (7)",
        "SELECT x FROM other.t",
        "DROP SCHEMA other",
        "CREATE SEQUENCE other.q",
        "CREATE TABLE other.numbered (id serial PRIMARY KEY, x int REFERENCES other.t2)",
        "CREATE TABLE other.t2 (x int PRIMARY KEY)",
        "CREATE TABLE other.numbered (id serial PRIMARY KEY, x int REFERENCES other.t2)",
        "CREATE TABLE outside (x int REFERENCES other.t2)",
        "CREATE VIEW other.v AS SELECT x FROM other.t",
        "CREATE VIEW other.vv AS SELECT x FROM other.v",
        "CREATE PROCEDURE other.p() LANGUAGE sql AS $$ INSERT INTO other.t VALUES (1) $$",
        "DROP SCHEMA other",
        "DROP SCHEMA other CASCADE",
        "SELECT nspname FROM pg_namespace WHERE nspname = 'other'",
        "INSERT INTO outside VALUES (42)",
        "SELECT * FROM outside",
        "DROP SCHEMA other",
        "DROP SCHEMA IF EXISTS other",
        "CREATE SCHEMA other",
        "DROP SCHEMA other",
        "DROP SCHEMA public",
        "DROP SCHEMA pg_catalog CASCADE",
    ],
    "transactions": [
        "CREATE TABLE tx (n int)",
        "BEGIN",
        "INSERT INTO tx VALUES (1)",
        "SAVEPOINT a",
        "INSERT INTO tx VALUES (2)",
        "ROLLBACK TO SAVEPOINT a",
        "INSERT INTO tx VALUES (3)",
        "RELEASE SAVEPOINT a",
        "COMMIT",
        "BEGIN",
        "INSERT INTO tx VALUES (4)",
        "SELECT 1/0",
        "SELECT 1",
        "ROLLBACK",
        "SELECT * FROM tx ORDER BY n",
        "COMMIT",
        "SAVEPOINT nope",
        "BEGIN",
        "BEGIN",
        "ROLLBACK TO SAVEPOINT missing",
        "ROLLBACK",
    ],
    "information_schema": [
        "CREATE TABLE info (id serial PRIMARY KEY, name varchar(30) NOT NULL UNIQUE, "
        "price numeric(8,2), seen timestamptz, tags text[])",
        "CREATE VIEW info_v AS SELECT id, name FROM info",
        "SELECT table_name, table_type FROM information_schema.tables "
        "WHERE table_schema = current_schema() ORDER BY 1",
        "SELECT column_name, ordinal_position, is_nullable, data_type, "
        "character_maximum_length, numeric_precision, numeric_scale, udt_name "
        "FROM information_schema.columns WHERE table_name = 'info' ORDER BY 2",
        "SELECT constraint_type FROM information_schema.table_constraints "
        "WHERE table_name = 'info' ORDER BY 1",
        "SELECT column_name, ordinal_position FROM information_schema.key_column_usage "
        "WHERE table_name = 'info' ORDER BY 1",
        "SELECT count(*) FROM information_schema.schemata WHERE schema_name = current_schema()",
    ],
    "settings": [
        "SHOW extra_float_digits",
        "SET extra_float_digits = 0",
        "SELECT 0.1::float8 + 0.2::float8, 1e100::float8",
        "RESET extra_float_digits",
        "SELECT 0.1::float8 + 0.2::float8",
        "SET TimeZone = 'America/New_York'",
        "SELECT '2024-07-01 12:00:00+00'::timestamptz, '2024-01-01 12:00:00'::timestamptz",
        "SET TIME ZONE 'UTC'",
        "SHOW TimeZone",
        "SET nonexistent_parameter = 1",
        "SHOW nonexistent_parameter",
        "SET application_name = 'conformance'",
        "SELECT current_setting('application_name')",
        "SET search_path TO public",
        "SHOW search_path",
    ],
}


@pytest.fixture(scope="module")
def reference() -> Iterator[PostgresPeer]:
    with PostgresPeer() as pg:
        yield pg


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_script_matches_postgres(name: str, reference: PostgresPeer,
                                 server: ServerProcess) -> None:
    database = f"script_{abs(hash(name))}"
    with psycopg.connect(reference.dsn, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {database}")
    with psycopg.connect(reference.dsn.replace("dbname=postgres", f"dbname={database}"),
                         autocommit=True) as theirs, own_schema(server, "dml") as ours:
        for step, sql in enumerate(SCRIPTS[name]):
            expected = outcome(theirs, sql)
            actual = outcome(ours, sql)
            if sql.startswith("SET search_path") or sql.startswith("SHOW search_path"):
                continue
            assert actual == expected, f"step {step}: {sql}"
