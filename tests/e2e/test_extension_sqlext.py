"""The extension sqlext as pg_catalog shows it (what pg_dump reads), its
configuration table sqlext.dataflow, and LOCK TABLE. Each test gets a
server of its own: the extension, once there, is the database's."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import psycopg
import pytest

from tests.fixtures.servers import ServerProcess, sqlstate_of
from tests.fixtures.waiting import wait_until


@pytest.fixture
def fresh(server_factory: Callable[..., ServerProcess]) -> Iterator[psycopg.Connection]:
    with server_factory("--in-memory").connect(autocommit=True) as connection:
        yield connection


def _extension(conn: psycopg.Connection) -> list[tuple[object, ...]]:
    return conn.execute(
        "SELECT extname, n.nspname, extrelocatable, extconfig = ARRAY[(SELECT c.oid FROM "
        "pg_class c WHERE c.relname = 'dataflow' AND c.relnamespace = n.oid)], extcondition "
        "FROM pg_extension JOIN pg_namespace n ON n.oid = extnamespace").fetchall()


def test_the_first_dataflow_object_brings_the_extension(fresh: psycopg.Connection) -> None:
    conn = fresh
    conn.execute("CREATE TABLE t (a int)")
    assert _extension(conn) == []
    conn.execute("CREATE STREAM s (a int)")
    conn.execute("CREATE WINDOW w ON s ROWS 2")
    conn.execute("CREATE PROCEDURE p() LANGUAGE sql AS $$ INSERT INTO t SELECT a FROM s $$")
    conn.execute("CREATE TRIGGER go AFTER INSERT ON s EXECUTE PROCEDURE p()")
    conn.execute("CREATE TRIGGER on_t AFTER INSERT ON t AS $$ SELECT 1 $$")
    assert _extension(conn) == [("sqlext", "sqlext", False, True, [""])]
    members = conn.execute(
        "SELECT classid::regclass::text, CASE classid WHEN 'pg_class'::regclass THEN "
        "(SELECT relname FROM pg_class WHERE oid = objid) WHEN 'pg_proc'::regclass THEN "
        "(SELECT proname FROM pg_proc WHERE oid = objid) WHEN 'pg_trigger'::regclass THEN "
        "(SELECT tgname FROM pg_trigger WHERE oid = objid) ELSE (SELECT nspname FROM "
        "pg_namespace WHERE oid = objid) END FROM pg_depend WHERE deptype = 'e' "
        "AND refobjid = (SELECT oid FROM pg_extension) ORDER BY 1, 2").fetchall()
    # the trigger on table t is not the extension's: pg_dump dumps it with t
    assert members == [("pg_class", "dataflow"), ("pg_class", "s"), ("pg_class", "w"),
                       ("pg_namespace", "sqlext"), ("pg_proc", "p"), ("pg_trigger", "go")]
    rows = conn.execute("SELECT position, definition FROM sqlext.dataflow").fetchall()
    assert rows[0][1].startswith("-- sqlext ")
    assert rows[1:] == [
        (1, "CREATE STREAM public.s (a integer)"),
        (2, "CREATE WINDOW public.w ON public.s ROWS 2 SLIDE 1"),
        (3, "CREATE PROCEDURE public.p() LANGUAGE sql AS $$ INSERT INTO t SELECT a FROM s $$"),
        (4, "CREATE TRIGGER go AFTER INSERT ON public.s EXECUTE PROCEDURE public.p()")]
    assert conn.execute("SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgname = 'on_t'"
                        ).fetchone() == ("CREATE TRIGGER on_t AFTER INSERT ON public.t AS "
                                         "$$ SELECT 1 $$",)


def test_create_extension(fresh: psycopg.Connection) -> None:
    conn = fresh
    notices: list[str] = []
    conn.add_notice_handler(lambda notice: notices.append(notice.message_primary or ""))
    assert sqlstate_of(conn, "CREATE EXTENSION plpgsql") == "0A000"
    assert sqlstate_of(conn, "CREATE EXTENSION sqlext WITH SCHEMA public") == "0A000"
    assert sqlstate_of(conn, "CREATE EXTENSION sqlext VERSION '9.9'") == "22023"
    conn.execute("CREATE ROLE someone LOGIN")
    conn.execute("GRANT CREATE ON SCHEMA public TO someone")
    conn.execute("SET ROLE someone")
    assert sqlstate_of(conn, "CREATE EXTENSION sqlext") == "42501"
    conn.execute("RESET ROLE")
    conn.execute("CREATE EXTENSION sqlext")
    conn.execute("CREATE EXTENSION IF NOT EXISTS sqlext WITH SCHEMA sqlext")
    assert notices == ['extension "sqlext" already exists, skipping']
    assert sqlstate_of(conn, "CREATE EXTENSION sqlext") == "42710"
    assert [row[1] for row in conn.execute("SELECT * FROM sqlext.dataflow")] == [
        conn.execute("SELECT definition FROM sqlext.dataflow").fetchone()[0]]
    # what the extension needs stays
    assert sqlstate_of(conn, "DROP TABLE sqlext.dataflow") == "2BP01"
    assert sqlstate_of(conn, "DROP SCHEMA sqlext CASCADE") == "2BP01"
    assert sqlstate_of(conn, "ALTER TABLE sqlext.dataflow ADD COLUMN x int") == "0A000"
    for change in ("DELETE FROM sqlext.dataflow", "UPDATE sqlext.dataflow SET position = 1",
                   "TRUNCATE sqlext.dataflow"):
        assert sqlstate_of(conn, change) == "0A000", change


def test_a_schema_sqlext_made_before_stays_the_users(fresh: psycopg.Connection) -> None:
    conn = fresh
    conn.execute("CREATE SCHEMA sqlext")
    conn.execute("CREATE TABLE sqlext.mine (a int)")
    conn.execute("CREATE STREAM s (a int)")
    assert _extension(conn) == [("sqlext", "sqlext", False, True, [""])]
    assert conn.execute("SELECT count(*) FROM pg_depend WHERE deptype = 'e' AND classid = "
                        "'pg_namespace'::regclass").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM pg_depend WHERE deptype = 'n' AND classid = "
                        "'pg_extension'::regclass AND refobjid = 'sqlext'::regnamespace"
                        ).fetchone() == (1,)


def test_rows_inserted_into_sqlext_dataflow_run(fresh: psycopg.Connection) -> None:
    conn = fresh
    conn.execute("CREATE EXTENSION sqlext")
    conn.execute("CREATE TABLE t (a int)")
    with conn.transaction(force_rollback=True):
        cursor = conn.execute(
            "INSERT INTO sqlext.dataflow VALUES (2, 'CREATE WINDOW w ON s ROWS 3'), "
            "(1, 'CREATE STREAM s (a int)'), (0, '-- a comment runs nothing')")
        assert cursor.statusmessage == "INSERT 0 3"
        assert conn.execute("SELECT count(*) FROM sqlext.dataflow").fetchone() == (3,)
    assert conn.execute("SELECT count(*) FROM pg_class WHERE relname IN ('s', 'w')"
                        ).fetchone() == (0,)
    # a statement of another kind fails the INSERT and all it ran
    assert sqlstate_of(conn, "INSERT INTO sqlext.dataflow VALUES "
                             "(1, 'CREATE STREAM s (a int)'), (2, 'DROP TABLE t')") == "0A000"
    assert conn.execute("SELECT count(*) FROM pg_class WHERE relname IN ('s', 't')"
                        ).fetchone() == (1,)
    with conn.cursor().copy("COPY sqlext.dataflow FROM STDIN") as copy:
        copy.write("1\tCREATE STREAM public.s (a int)\n"
                   "2\tCREATE TRIGGER keep AFTER INSERT ON public.s AS "
                   "$$ INSERT INTO t SELECT a FROM s $$\n")
    conn.execute("INSERT INTO s VALUES (7)")
    assert conn.execute("SELECT a FROM t").fetchall() == [(7,)]


def test_lock_table_holds_off_other_writers(server_factory: Callable[..., ServerProcess]
                                            ) -> None:
    server = server_factory("--in-memory")
    with server.connect(autocommit=True) as holder, \
            server.connect(autocommit=True) as writer:
        holder.execute("CREATE TABLE t (a int)")
        assert sqlstate_of(holder, "LOCK TABLE t") == "25P01"
        holder.execute("BEGIN READ ONLY")
        holder.execute("LOCK TABLE t IN ACCESS SHARE MODE")
        done = threading.Event()
        thread = threading.Thread(
            target=lambda: (writer.execute("INSERT INTO t VALUES (1)"), done.set()))
        thread.start()
        assert not done.wait(0.5)  # it waits for the lock's transaction
        holder.execute("COMMIT")
        wait_until(done.is_set, "the writer to go on")
        thread.join()
        assert holder.execute("SELECT count(*) FROM t").fetchone() == (1,)
