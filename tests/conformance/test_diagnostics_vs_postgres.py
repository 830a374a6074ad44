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
    "cursors move as declared": [
        "CREATE TABLE nums (n int)",
        "INSERT INTO nums SELECT g FROM generate_series(1, 10) AS g",
        "BEGIN",
        "DECLARE s SCROLL CURSOR FOR SELECT n FROM nums ORDER BY n",
        "FETCH 3 FROM s", "FETCH PRIOR FROM s", "FETCH 0 FROM s", "FETCH RELATIVE 0 FROM s",
        "FETCH BACKWARD 5 FROM s", "FETCH NEXT FROM s", "FETCH LAST FROM s",
        "FETCH NEXT FROM s", "FETCH PRIOR FROM s", "FETCH ABSOLUTE -3 FROM s",
        "FETCH ABSOLUTE 20 FROM s", "FETCH BACKWARD 2 FROM s", "FETCH RELATIVE -2 FROM s",
        "FETCH RELATIVE 2 FROM s", "FETCH FORWARD -3 FROM s", "FETCH -1 FROM s",
        "FETCH FIRST FROM s", "FETCH ABSOLUTE 0 FROM s", "FETCH ALL FROM s",
        "FETCH BACKWARD ALL FROM s", "MOVE FORWARD 4 FROM s", "MOVE 0 FROM s",
        "FETCH 0 FROM s", "MOVE ABSOLUTE 15 FROM s", "MOVE BACKWARD ALL FROM s",
        "MOVE 0 FROM s", "MOVE LAST FROM s", "FETCH 0 FROM s", "MOVE RELATIVE -20 FROM s",
        "FETCH RELATIVE 1 FROM s",
        "COMMIT",
        # NO SCROLL: forward as far as wanted, never back
        "BEGIN",
        "DECLARE f NO SCROLL CURSOR FOR SELECT n FROM nums ORDER BY n",
        "FETCH ABSOLUTE 0 FROM f", "FETCH FIRST FROM f", "FETCH 2 FROM f", "MOVE 0 FROM f",
        "FETCH ABSOLUTE 5 FROM f", "FETCH RELATIVE 2 FROM f", "MOVE FORWARD 1 FROM f",
        "FETCH FORWARD ALL FROM f", "FETCH NEXT FROM f", "FETCH ABSOLUTE 0 FROM f",
        "ROLLBACK",
        "BEGIN",
        "DECLARE f NO SCROLL CURSOR FOR SELECT n FROM nums ORDER BY n",
        "FETCH 1 FROM f", "FETCH PRIOR FROM f",
        "ROLLBACK",
        "BEGIN",
        "DECLARE f NO SCROLL CURSOR FOR SELECT n FROM nums ORDER BY n",
        "FETCH 1 FROM f", "FETCH 0 FROM f",
        "ROLLBACK",
        "BEGIN",
        "DECLARE f NO SCROLL CURSOR FOR SELECT n FROM nums ORDER BY n",
        "FETCH LAST FROM f",
        "ROLLBACK",
        "BEGIN",
        "DECLARE d CURSOR FOR SELECT n FROM nums ORDER BY n",
        "FETCH FORWARD 3 FROM d", "MOVE RELATIVE 3 FROM d", "FETCH ABSOLUTE 9 FROM d",
        "FETCH 5 FROM d", "CLOSE d",
        "DECLARE h SCROLL CURSOR WITH HOLD FOR SELECT n FROM nums WHERE n > 7 ORDER BY n",
        "FETCH NEXT FROM h",
        "COMMIT",
        "FETCH ALL FROM h", "FETCH FIRST FROM h", "FETCH BACKWARD 2 FROM h", "CLOSE h",
    ],
    "two-phase commit is off, as by default": [
        "SHOW max_prepared_transactions",
        "PREPARE TRANSACTION 'outside'",
        "BEGIN",
        "CREATE TABLE gone (a int)",
        "PREPARE TRANSACTION 'g1'",
        "SELECT count(*) FROM pg_class WHERE relname = 'gone'",
        "BEGIN",
        "SELECT 1/0",
        "PREPARE TRANSACTION 'g2'",
        "SELECT 1",
        "COMMIT PREPARED 'g1'",
        "ROLLBACK PREPARED 'g1'",
        "BEGIN",
        "COMMIT PREPARED 'g1'",
        "ROLLBACK",
        "PREPARE transaction AS SELECT 1",
        "EXECUTE transaction",
        "DEALLOCATE transaction",
    ],
    "constants out of their column's range": [
        "CREATE TABLE narrow (i int, s smallint, b bigint, n numeric(4, 1))",
        "INSERT INTO narrow (i) VALUES (99999999999)",
        "INSERT INTO narrow (s) VALUES (-40000)",
        "INSERT INTO narrow (b) VALUES (99999999999999999999)",
        "INSERT INTO narrow (n) VALUES (12345)",
        "UPDATE narrow SET i = 2147483648",
        "INSERT INTO narrow VALUES (-2147483648, -32768, -9223372036854775808, -999.9)",
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
        "SELECT pg_typeof(max(x)), pg_typeof(count(*)) FROM (VALUES (1), (2)) AS v(x)",
        "SELECT '{1}'::int[], '{a}'::text[], '{1}'::int[]::bigint[]",
    ],
    "views depend on what they read": [
        "CREATE TABLE t (a int, b text, c int)",
        "CREATE VIEW vb AS SELECT b FROM t",
        "CREATE VIEW va AS SELECT a FROM t",
        "CREATE VIEW vcount AS SELECT count(*) FROM t",
        "CREATE VIEW vva AS SELECT a FROM va",
        "CREATE VIEW vall AS SELECT * FROM t",
        "DROP TABLE t",
        "DROP VIEW va",
        "ALTER TABLE t DROP COLUMN a",
        "ALTER TABLE t DROP COLUMN c",
        "ALTER TABLE t ALTER COLUMN b TYPE varchar(10)",
        "ALTER TABLE t ALTER b SET DATA TYPE varchar(10)",
        "SELECT d.classid::regclass, d.objsubid, d.refclassid::regclass, "
        "d.refobjid::regclass, d.refobjsubid, d.deptype "
        "FROM pg_depend d JOIN pg_rewrite r ON d.objid = r.oid "
        "WHERE r.ev_class IN ('vb'::regclass, 'vcount'::regclass, 'vva'::regclass) "
        "ORDER BY r.ev_class::regclass::text, d.refobjid::regclass::text, 5, 6",
        "SELECT rulename, ev_class::regclass, ev_type, ev_enabled, is_instead "
        "FROM pg_rewrite WHERE ev_class = 'vall'::regclass",
        "DROP VIEW va, vva",
        "ALTER TABLE t DROP COLUMN a CASCADE",
        "SELECT * FROM vb",
        "DROP TABLE t CASCADE",
        "SELECT relname FROM pg_class WHERE relname IN ('vb', 'vcount', 'vall')",
    ],
    "foreign keys and materialized views are dependents too": [
        "CREATE TABLE t (a int PRIMARY KEY, b text, c int)",
        "CREATE VIEW va AS SELECT a FROM t",
        "CREATE TABLE u (x int REFERENCES t (a))",
        "CREATE VIEW vb AS SELECT b FROM t",
        "CREATE MATERIALIZED VIEW m AS SELECT c, count(*) FROM t GROUP BY c",
        "CREATE VIEW vm AS SELECT * FROM m",
        "CREATE TABLE w (z int)",
        "DROP TABLE t",
        "DROP TABLE w, t",
        "ALTER TABLE t DROP COLUMN a",
        "ALTER TABLE t DROP COLUMN c",
        "DROP MATERIALIZED VIEW m",
        "INSERT INTO t VALUES (1, 'x', 2)",
        "ALTER TABLE t DROP COLUMN c CASCADE",
        "SELECT * FROM t",
        "DROP VIEW va, vb",
        "DROP TABLE u, t",
        "CREATE TABLE t (a int PRIMARY KEY)",
        "CREATE TABLE u (x int REFERENCES t (a))",
        "DROP TABLE t CASCADE",
        "INSERT INTO u VALUES (5)",
    ],
    "views are bound to what they read": [
        "CREATE TABLE t (a int, b text, c int CHECK (c > 0))",
        "INSERT INTO t VALUES (1, 'x', 5)",
        "CREATE VIEW v AS SELECT a, b AS bee FROM t",
        "CREATE VIEW v2 AS SELECT a FROM v WHERE bee = 'x'",
        "CREATE VIEW vu AS SELECT a FROM t UNION SELECT b::int FROM t WHERE false",
        "ALTER TABLE t RENAME TO t2",
        "SELECT * FROM v2",
        "ALTER TABLE t2 RENAME COLUMN a TO aa",
        "ALTER TABLE t2 RENAME COLUMN b TO bb",
        "SELECT * FROM v",
        "SELECT * FROM vu",
        "ALTER TABLE t2 DROP COLUMN aa",
        "ALTER TABLE t2 DROP COLUMN c",  # the table is rebuilt without its CHECK
        "SELECT * FROM v",
        "ALTER TABLE t2 DROP COLUMN bb",
        "SELECT d.refobjid::regclass, d.refobjsubid, d.deptype "
        "FROM pg_depend d JOIN pg_rewrite r ON d.objid = r.oid "
        "WHERE r.ev_class = 'v'::regclass ORDER BY d.refobjid::regclass::text, 2, 3",
        "CREATE OR REPLACE VIEW v AS SELECT aa AS a, bb AS bee, 1 AS one FROM t2",
        "CREATE OR REPLACE VIEW v AS SELECT aa AS a FROM t2",
        "CREATE OR REPLACE VIEW v AS SELECT bb AS bee, aa AS a, 1 AS one FROM t2",
        "CREATE OR REPLACE VIEW v AS SELECT aa::bigint AS a, bb AS bee, 1 AS one FROM t2",
        "SELECT * FROM v2",
        "DROP TABLE t2 CASCADE",
    ],
    "views depend on the columns they join on": [
        "CREATE TABLE a (id int, x int, k int)",
        "CREATE TABLE b (id int, y int, k int)",
        "CREATE VIEW vu AS SELECT x, y FROM a JOIN b USING (id)",
        "CREATE VIEW vn AS SELECT 1 AS one FROM a NATURAL JOIN b",
        "ALTER TABLE b DROP COLUMN id",
        "ALTER TABLE a DROP COLUMN k",
        "SELECT r.ev_class::regclass, d.refobjid::regclass, d.refobjsubid "
        "FROM pg_depend d JOIN pg_rewrite r ON d.objid = r.oid WHERE d.deptype = 'n' "
        "AND r.ev_class IN ('vu'::regclass, 'vn'::regclass) AND d.refobjid <> r.ev_class "
        "ORDER BY r.ev_class::regclass::text, 2, 3",
        "DROP VIEW vn",
        "ALTER TABLE a DROP COLUMN k",
        "ALTER TABLE b DROP COLUMN id CASCADE",
        "SELECT relname FROM pg_class WHERE relname IN ('vu', 'vn')",
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
