"""What the SQL fuzzer found ("[7] Hardening"), one test per finding: each
statement fails with the SQLSTATE PostgreSQL gives it (or works, where
PostgreSQL accepts it), and nothing of it reaches another session."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta

import psycopg
import pytest

from tests.fixtures.servers import ServerProcess, own_schema, sqlstate_of


@pytest.fixture
def db(server: ServerProcess) -> Iterator[psycopg.Connection]:
    with own_schema(server, "found") as connection:
        yield connection


BROKEN = {
    "chr of zero": ("SELECT chr(0)", "54000"),
    "chr of a surrogate": ("SELECT chr(55296)", "54000"),
    "chr beyond unicode": ("SELECT chr(1114112)", "54000"),
    "chr of a negative number": ("SELECT chr(-1)", "22023"),
    "NUL in an escape string": ("SELECT E'a\\x00b'", "22021"),
    "TRUNCATE of a query": ("TRUNCATE SELECT", "42601"),
    "PREPARE without a statement": ("PREPARE p AS", "42601"),
    "view without a query": ("CREATE VIEW v AS", "42601"),
    "materialized view without a query": ("CREATE MATERIALIZED VIEW v AS", "42601"),
    "two increments": ("CREATE SEQUENCE q INCREMENT -1 -1", "42601"),
    "REFERENCES a query": ("CREATE TABLE f (a int REFERENCES FROM (a))", "42601"),
    "INSERT without values": ("INSERT INTO k (a)", "42601"),
    "too many CTE column names": ("WITH c (a, b) AS (SELECT 1) SELECT * FROM c", "42P10"),
    "text function of bytea": ("SELECT rtrim('\\xff'::bytea)", "42883"),
    "substring of nothing": ("SELECT substring('abc')", "42883"),
    "unclosed parenthesis": ("SELECT substring('c'::text fro", "42601"),
    "uneven recursive CTE": ("WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n, 2 FROM c "
                             "WHERE n < 0) SELECT * FROM c", "42601"),
    "boolean in GROUP BY": ("SELECT a FROM k GROUP BY a, true", "42601"),
    "NULL in GROUP BY": ("SELECT a FROM k GROUP BY a, (NULL)", "42601"),
    "string in ORDER BY": ("SELECT a FROM k ORDER BY 'x'", "42601"),
    "negative fraction in ORDER BY": ("SELECT a FROM k ORDER BY -(1.5)", "42601"),
    "string in DISTINCT ON": ("SELECT DISTINCT ON ('x') a FROM k", "42601"),
    "negative position": ("SELECT a FROM k GROUP BY -(1)", "42P10"),
    "JOIN without FROM": ("SELECT 1 JOIN k x", "42601"),
    "substring with a comma and FOR": ("SELECT substring('abc', 1 for 3)", "42601"),
    "ALTER TABLE of a query": ("ALTER TABLE SELECT DROP COLUMN a", "42601"),
}


@pytest.mark.parametrize(("sql", "sqlstate"), BROKEN.values(), ids=BROKEN.keys())
def test_broken_statements_get_their_sqlstate(db: psycopg.Connection, sql: str,
                                              sqlstate: str) -> None:
    db.execute("CREATE TABLE k (a int)")
    assert sqlstate_of(db, sql) == sqlstate
    assert db.execute("SELECT chr(65), 1").fetchone() == ("A", 1)


def test_what_postgresql_accepts(db: psycopg.Connection) -> None:
    assert db.execute("SELECT string_to_array('abc', '')").fetchone() == (["abc"],)
    assert db.execute("SELECT coalesce(false OR false), coalesce(NULL::int), coalesce('a')"
                      ).fetchone() == (False, None, "a")  # SQLite wants two arguments
    assert db.execute("SELECT $$it's$$, $q$x$q$::bytea, $$7$$::int + 1").fetchone() == (
        "it's", b"x", 8)
    # bytea: substring and || keep bytes (they made text that was not UTF-8)
    assert db.execute("SELECT substring('\\xff'::bytea from 1 for 9) || '[1]', "
                      "'\\xff00'::bytea || '\\x0001'::bytea, '\\x01'::bytea || 'a'::text"
                      ).fetchone() == (b"\xff[1]", b"\xff\x00\x00\x01", "\\x01a")
    db.execute("CREATE STREAM pairs (k int, v text)")
    db.execute("CREATE STREAM other (k int, z text)")
    db.execute("CREATE WINDOW recent ON other ROWS 5")
    db.execute("INSERT INTO other VALUES (1, 'z')")
    # NATURAL JOIN of streams and windows: their hidden batch ids are not common columns
    assert db.execute("SELECT * FROM pairs a RIGHT JOIN recent b USING (k) "
                      "NATURAL LEFT JOIN pairs c").fetchall() == [(1, None, "z")]
    assert db.execute("SELECT length('\\xff'::bytea), md5('\\xff'::bytea)").fetchone() == (
        1, "00594fd4f42ba43fc1ca0427a0576295")
    assert db.execute("WITH c (a) AS (SELECT 1, 2 AS b) SELECT a, b FROM c").fetchone() == (
        1, 2)
    db.execute("CREATE SEQUENCE down INCREMENT -2 START 5")
    assert db.execute("SELECT nextval('down'), nextval('down')").fetchone() == (5, 3)
    db.execute("CREATE TABLE base (k int, s text, f bool)")
    db.execute("CREATE MATERIALIZED VIEW lits AS SELECT k, s || 'y' AS t, 'c' AS c FROM base "
               "WHERE f = true AND s <> 'z'")
    db.execute("CREATE MATERIALIZED VIEW consts AS SELECT false AS f, 1 AS one, "
               "false AND coalesce(f, false) AS g, k FROM base")  # constants as group keys
    db.execute("INSERT INTO base VALUES (1, 'x', true), (2, 'z', true), (3, 'x', false)")
    assert db.execute("SELECT * FROM lits").fetchall() == [(1, "xy", "c")]
    assert db.execute("SELECT * FROM consts ORDER BY k").fetchall() == [
        (False, 1, False, 1), (False, 1, False, 2), (False, 1, False, 3)]
    # GROUP BY positions and output names of constants next to window functions
    # (DISTINCT ON adds one): SQLite's rewrite took them for other positions
    assert db.execute("SELECT DISTINCT ON (current_time) false AS f, bool_and(f) FROM base "
                      "GROUP BY 1").fetchall() == [(False, False)]
    assert db.execute("SELECT 5 AS five, row_number() OVER () FROM base GROUP BY five"
                      ).fetchall() == [(5, 1)]
    assert db.execute("SELECT DISTINCT ON (k + 1) 'c', count(*) FROM base GROUP BY 1, k "
                      "ORDER BY k + 1").fetchall() == [("c", 1)] * 3


def test_is_true_before_an_operator(db: psycopg.Connection) -> None:
    """``$1 IS TRUE + $2`` is ``($1 IS TRUE) + $2``: sqlglot's reading
    lost the second parameter (XX000, wrong number of bindings)."""
    with pytest.raises(psycopg.errors.UndefinedFunction, match="boolean \\+ interval"):
        db.execute("SELECT %t IS TRUE + %s", [True, timedelta(days=1)])
    assert db.execute("SELECT 1 WHERE %s IS FALSE = %s", [False, True]).fetchone() == (1,)


def test_drop_column_takes_its_constraints_and_indexes(db: psycopg.Connection) -> None:
    db.execute("CREATE TABLE t (a int PRIMARY KEY, b text CHECK (b <> 'bad'), c int UNIQUE, "
               "d int CHECK (d > c))")
    db.execute("CREATE INDEX t_cd ON t (c, d)")
    db.execute("INSERT INTO t VALUES (1, 'x', 1, 2)")
    db.execute("ALTER TABLE t DROP COLUMN a")
    db.execute("INSERT INTO t VALUES ('y', 2, 3)")
    assert sqlstate_of(db, "INSERT INTO t VALUES ('bad', 3, 4)") == "23514"  # kept
    assert sqlstate_of(db, "INSERT INTO t VALUES ('z', 2, 5)") == "23505"
    db.execute("ALTER TABLE t DROP COLUMN c")
    db.execute("INSERT INTO t VALUES ('w', 0)")  # d > c went with c
    assert sqlstate_of(db, "INSERT INTO t VALUES ('bad', 0)") == "23514"
    assert db.execute("SELECT b, d FROM t ORDER BY b").fetchall() == [
        ("w", 0), ("x", 2), ("y", 3)]
    assert db.execute("SELECT count(*) FROM pg_indexes WHERE tablename = 't' "
                      "AND schemaname = current_schema()").fetchone() == (0,)
    constraints = db.execute("SELECT conname FROM pg_constraint "
                             "WHERE conrelid = 't'::regclass").fetchall()
    assert constraints == [("t_b_check",)]


def test_drop_column_refusals(db: psycopg.Connection) -> None:
    db.execute("CREATE TABLE one (a int)")
    assert sqlstate_of(db, "ALTER TABLE one DROP COLUMN a") == "0A000"
    db.execute("CREATE TABLE p (a int PRIMARY KEY, b int)")
    db.execute("CREATE TABLE c (a int REFERENCES p)")
    assert sqlstate_of(db, "ALTER TABLE p DROP COLUMN a") == "2BP01"
    db.execute("ALTER TABLE p DROP COLUMN b")
    db.execute("CREATE TABLE named (k int, v int)")
    db.execute("CREATE VIEW joined AS SELECT * FROM named JOIN named n2 USING (k)")
    assert sqlstate_of(db, "ALTER TABLE named RENAME COLUMN k TO k2") == "0A000"
    db.execute("CREATE STREAM s (a int, b int)")
    db.execute("CREATE WINDOW w ON s ROWS 2")
    for sql in ("ALTER TABLE s DROP COLUMN b", "ALTER TABLE w ADD COLUMN c int",
                "ALTER TABLE s RENAME TO s2"):
        assert sqlstate_of(db, sql) == "0A000", sql
    db.execute("INSERT INTO s VALUES (1, 2)")
    assert db.execute("SELECT a, b FROM w").fetchall() == [(1, 2)]


def test_renames_reach_indexes_keys_and_triggers(db: psycopg.Connection) -> None:
    db.execute("CREATE TABLE r (x int PRIMARY KEY, y int, z serial)")
    db.execute("CREATE INDEX r_y ON r (y DESC, x)")
    db.execute("CREATE TABLE rc (x int REFERENCES r (x))")
    db.execute("CREATE TABLE audit (n int)")
    db.execute("CREATE TRIGGER count_r AFTER INSERT ON r AS $$ INSERT INTO audit VALUES (1) $$")
    db.execute("ALTER TABLE r RENAME TO r2")
    db.execute('ALTER TABLE r2 RENAME COLUMN y TO "Yy"')
    db.execute("ALTER TABLE r2 RENAME COLUMN x TO x2")
    db.execute("ALTER TABLE r2 ADD COLUMN w int")
    assert db.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'r_y' "
                      "AND schemaname = current_schema()").fetchone()[0].endswith(
        'r2 USING btree ("Yy" DESC, x2)')
    assert db.execute("SELECT pg_get_constraintdef(oid) FROM pg_constraint "
                      "WHERE conrelid = 'rc'::regclass").fetchone() == (
        "FOREIGN KEY (x) REFERENCES r2(x2)",)
    assert sqlstate_of(db, "DROP INDEX r_pkey") == "2BP01"
    db.execute("DROP INDEX r_y")
    db.execute("INSERT INTO r2 (x2) VALUES (5)")
    assert db.execute("SELECT count(*) FROM audit").fetchone() == (1,)
    db.execute("INSERT INTO rc VALUES (5)")
    assert sqlstate_of(db, "INSERT INTO rc VALUES (6)") == "23503"
    db.execute("DROP TABLE r2 CASCADE")
    assert db.execute("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = "
                      "c.relnamespace WHERE relname = 'r_z_seq' AND nspname = current_schema()"
                      ).fetchone() == (0,)


def test_range_window_values_at_the_ends_of_their_type(db: psycopg.Connection) -> None:
    db.execute("CREATE STREAM readings (k bigint, ts timestamp)")
    db.execute("CREATE WINDOW by_k ON readings RANGE 60 SLIDE 10 ON k")
    assert sqlstate_of(db, "INSERT INTO readings VALUES (-9223372036854775808, now())") == (
        "22003")
    db.execute("INSERT INTO readings VALUES (5, now())")
    assert db.execute("SELECT k FROM by_k").fetchall() == [(5,)]
    db.execute("INSERT INTO readings VALUES (9223372036854775807, now())")  # slides: staged
    assert db.execute("SELECT k FROM by_k").fetchall() == []


def test_a_failed_read_stays_with_its_statement(server: ServerProcess,
                                                db: psycopg.Connection) -> None:
    """A cursor read in pieces fails at row 1,500; the rest of it is read
    when another session starts writing. That writer must not get the
    error, and the cursor's owner must get it as a division by zero."""
    db.execute("CREATE TABLE w (a int)")
    schema = db.execute("SELECT current_schema()").fetchone()[0]
    reader = server.connect()
    reader.execute(f"SET search_path = {schema}")
    with reader.cursor(name="pieces") as cursor:
        cursor.execute("SELECT 1 / (n - 1500) FROM generate_series(1, 3000) n")
        assert len(cursor.fetchmany(10)) == 10
        db.execute("INSERT INTO w VALUES (1)")
        db.execute("INSERT INTO w VALUES (2)")
        with pytest.raises(psycopg.errors.DivisionByZero):
            cursor.fetchall()
    reader.rollback()
    reader.close()
    assert db.execute("SELECT count(*) FROM w").fetchone() == (2,)


ENDLESS = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r"


def test_an_endless_result_ends_at_statement_timeout(server: ServerProcess) -> None:
    """Its rows are sent as they are made; the timeout still ends it, and
    other sessions are answered meanwhile."""
    answered: list[float] = []
    stop = threading.Event()

    def other_session() -> None:
        with server.connect(autocommit=True) as conn:
            while not stop.is_set():
                conn.execute("SELECT 1")
                answered.append(time.monotonic())
                time.sleep(0.05)  # a bystander's pace, not a wait for readiness

    thread = threading.Thread(target=other_session)
    with server.connect(autocommit=True) as conn:
        conn.execute("SET statement_timeout = 1500")
        thread.start()
        started = time.monotonic()
        with pytest.raises(psycopg.errors.QueryCanceled, match="statement timeout"):
            conn.execute(ENDLESS)
        ended = time.monotonic()
        stop.set()
        thread.join()
        assert conn.execute("SELECT 2").fetchone() == (2,)
    assert sum(started + 0.2 < moment < ended for moment in answered) >= 5


def test_an_endless_result_ends_at_a_cancel_request(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as conn:
        threading.Timer(1.0, conn.cancel).start()
        with pytest.raises(psycopg.errors.QueryCanceled, match="user request"):
            conn.execute(ENDLESS)
        assert conn.execute("SELECT 3").fetchone() == (3,)


def test_an_endless_cursor_does_not_hold_up_writers(server: ServerProcess,
                                                     db: psycopg.Connection) -> None:
    """A writer reads the rest of open cursors first; an endless one is
    cut at a million rows, and its owner gets the error."""
    db.execute("CREATE TABLE w (a int)")
    with server.connect() as reader, reader.cursor(name="endless") as cursor:
        cursor.execute(ENDLESS)
        assert len(cursor.fetchmany(10)) == 10
        db.execute("SET statement_timeout = 60000")
        db.execute("INSERT INTO w VALUES (1)")
        with pytest.raises(psycopg.errors.ProgramLimitExceeded, match="more than 1000000"):
            cursor.fetchmany(10)
    assert db.execute("SELECT count(*) FROM w").fetchone() == (1,)


@pytest.fixture
def dataflow_server(server_factory: Callable[..., ServerProcess]) -> ServerProcess:
    """A server of its own: these tests leave stopped procedures behind."""
    return server_factory("--in-memory")


def test_drain_in_a_block_after_a_stopped_procedure_was_dropped(
        dataflow_server: ServerProcess) -> None:
    with dataflow_server.connect(autocommit=True) as conn:
        conn.execute("SET statement_timeout = 10000")
        conn.execute("CREATE STREAM s (a int)")
        conn.execute("CREATE TABLE t (a int)")
        conn.execute("CREATE PROCEDURE p() LANGUAGE sql AS $$ SELECT 1 / (a - a) FROM s $$")
        conn.execute("CREATE TRIGGER tr AFTER INSERT ON s EXECUTE PROCEDURE p()")
        conn.execute("INSERT INTO s VALUES (1)")
        conn.execute("INSERT INTO s VALUES (2)")
        with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState):
            conn.execute("SELECT sqlext_drain()")
        conn.execute("DROP TRIGGER tr")
        conn.execute("DROP PROCEDURE p")
        with conn.transaction():
            conn.execute("INSERT INTO t VALUES (1)")
            assert conn.execute("SELECT sqlext_drain()").fetchone() == (True,)
        conn.execute("INSERT INTO t VALUES (2)")
        assert conn.execute("SELECT sqlext_drain()").fetchone() == (True,)
        assert conn.execute("SELECT count(*) FROM s").fetchone() == (0,)  # batches collected
        with dataflow_server.connect(autocommit=True) as other:
            assert other.execute("SELECT count(*) FROM t").fetchone() == (2,)


def test_cycles_of_triggers_stop_with_an_error(dataflow_server: ServerProcess) -> None:
    with dataflow_server.connect(autocommit=True) as conn:
        conn.execute("SET statement_timeout = 30000")
        conn.execute("CREATE STREAM s (a int)")
        conn.execute("CREATE TABLE seen (a int)")
        conn.execute("CREATE PROCEDURE again() LANGUAGE sql AS $$ INSERT INTO seen SELECT a "
                     "FROM s; INSERT INTO s SELECT a + 1 FROM s $$")
        conn.execute("CREATE TRIGGER loop AFTER INSERT ON s EXECUTE PROCEDURE again()")
        conn.execute("INSERT INTO s VALUES (1)")
        with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState, match="cycle"):
            conn.execute("SELECT sqlext_drain()")
        assert conn.execute("SELECT count(*), max(a) FROM seen").fetchone() == (1000, 1000)
        assert conn.execute("SELECT state, error_code FROM sqlext_procedures "
                            "WHERE name = 'again'").fetchone() == ("stopped", "54000")
        conn.execute("CREATE TABLE e (a int)")
        conn.execute("CREATE TRIGGER self AFTER INSERT ON e AS $$ INSERT INTO e VALUES (2) $$")
        for _ in range(3):  # the nesting bound is the same each time
            with pytest.raises(psycopg.errors.ProgramLimitExceeded, match="32 levels"):
                conn.execute("INSERT INTO e VALUES (1)")
        assert conn.execute("SELECT count(*) FROM e").fetchone() == (0,)
