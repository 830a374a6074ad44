"""Owners and privileges, checked with psycopg sessions of different roles
(every denial is 42501 with PostgreSQL's message)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import errors

from tests.fixtures.servers import ServerProcess, own_schema, start_server

Denied = errors.InsufficientPrivilege


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    """A server of this module's own: its tests leave roles and grants behind."""
    process = start_server("--in-memory")
    yield process
    process.stop()


@pytest.fixture
def admin(server: ServerProcess) -> Iterator[psycopg.Connection]:
    """A superuser's connection in a schema of its own."""
    with own_schema(server, "privileges") as connection:
        yield connection


def _login(server: ServerProcess, admin: psycopg.Connection, prefix: str
           ) -> Iterator[psycopg.Connection]:
    """A new plain role's connection, looking for names in the admin's
    schema (which it may use, not create in)."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    admin.execute(f"CREATE ROLE {name} LOGIN")
    schema = _one(admin, "SELECT current_schema()")
    admin.execute(f"GRANT USAGE ON SCHEMA {schema} TO {name}")
    with psycopg.connect(f"host={server.host} port={server.port} dbname=sqlext user={name}",
                         autocommit=True) as connection:
        connection.execute(f"SET search_path = {schema}")
        yield connection


@pytest.fixture
def alice(server: ServerProcess, admin: psycopg.Connection) -> Iterator[psycopg.Connection]:
    yield from _login(server, admin, "alice")


@pytest.fixture
def bob(server: ServerProcess, admin: psycopg.Connection) -> Iterator[psycopg.Connection]:
    yield from _login(server, admin, "bob")


def _one(connection: psycopg.Connection, sql: str) -> object:
    row = connection.execute(sql).fetchone()
    assert row is not None
    return row[0]


def _role(connection: psycopg.Connection) -> str:
    return str(_one(connection, "SELECT current_user"))


def test_table_privileges(admin: psycopg.Connection, alice: psycopg.Connection) -> None:
    me = _role(alice)
    admin.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance int)")
    admin.execute("INSERT INTO accounts VALUES (1, 10), (2, 20)")
    statements = {
        "SELECT": "SELECT sum(balance) FROM accounts",
        "INSERT": "INSERT INTO accounts VALUES (3, 30)",
        "UPDATE": "UPDATE accounts SET balance = 0 WHERE id = 3",
        "DELETE": "DELETE FROM accounts WHERE id = 3",
        "TRUNCATE": "TRUNCATE accounts",
    }
    for sql in statements.values():
        with pytest.raises(Denied, match="permission denied for table accounts"):
            alice.execute(sql)
    admin.execute(f"GRANT SELECT ON accounts TO {me}")
    assert alice.execute(statements["SELECT"]).fetchone() == (30,)
    with pytest.raises(Denied):
        alice.execute(statements["INSERT"])
    admin.execute(f"GRANT INSERT, UPDATE, DELETE ON TABLE accounts TO {me}")
    alice.execute(statements["INSERT"])
    alice.execute(statements["UPDATE"])
    alice.execute(statements["DELETE"])
    # UPDATE and DELETE that read the table need SELECT too, as in PostgreSQL
    admin.execute(f"REVOKE SELECT ON accounts FROM {me}")
    alice.execute("UPDATE accounts SET balance = 5")
    alice.execute("INSERT INTO accounts VALUES (4, 40)")
    for sql in ("UPDATE accounts SET balance = balance + 1", "DELETE FROM accounts WHERE id = 4",
                "INSERT INTO accounts VALUES (5, 5) RETURNING id"):
        with pytest.raises(Denied):
            alice.execute(sql)
    admin.execute(f"GRANT ALL ON accounts TO {me}")
    alice.execute(statements["TRUNCATE"])
    admin.execute(f"REVOKE ALL PRIVILEGES ON accounts FROM {me}")
    with pytest.raises(Denied):
        alice.execute(statements["SELECT"])
    acl = admin.execute("SELECT relacl FROM pg_class c JOIN pg_namespace n "
                        "ON n.oid = relnamespace WHERE relname = 'accounts' "
                        "AND nspname = current_schema()").fetchone()
    assert acl == (["postgres=arwdDxt/postgres"],)


def test_owner_rights(admin: psycopg.Connection, alice: psycopg.Connection) -> None:
    me = _role(alice)
    with pytest.raises(Denied, match="permission denied for schema privileges_"):
        alice.execute("CREATE TABLE mine (a int)")
    admin.execute(f"GRANT CREATE ON SCHEMA {_one(admin, 'SELECT current_schema()')} TO {me}")
    alice.execute("CREATE TABLE mine (a int)")
    alice.execute("INSERT INTO mine VALUES (1)")
    owner = admin.execute("SELECT tableowner FROM pg_tables WHERE tablename = 'mine'"
                          ).fetchone()
    assert owner == (me,)
    admin.execute("CREATE TABLE theirs (a int)")
    for sql, message in (("DROP TABLE theirs", "must be owner of table theirs"),
                         ("ALTER TABLE theirs ADD COLUMN b int", "must be owner of table theirs"),
                         ("CREATE INDEX ON theirs (a)", "must be owner of table theirs"),
                         ("GRANT SELECT ON theirs TO PUBLIC", "permission denied for table "
                          "theirs"),
                         ("CREATE SCHEMA elsewhere", "permission denied for database"),
                         ("SELECT * FROM pg_authid", "permission denied for table pg_authid"),
                         ("CHECKPOINT", "must be superuser"),
                         ("SELECT pg_reload_conf()", "permission denied for function "
                          "pg_reload_conf")):
        with pytest.raises(Denied, match=message):
            alice.execute(sql)
    # system catalogs stay readable, and the owner may do everything
    assert alice.execute("SELECT count(*) FROM pg_class WHERE relname = 'mine'"
                         ).fetchone() == (1,)
    alice.execute("ALTER TABLE mine ADD COLUMN b int")
    alice.execute(f"GRANT SELECT ON mine TO {me}")
    alice.execute("DROP TABLE mine")
    # views need SELECT on what they read, at creation
    with pytest.raises(Denied, match="permission denied for table theirs"):
        alice.execute("CREATE VIEW peek AS SELECT * FROM theirs")
    with pytest.raises(errors.DependentObjectsStillExist, match="owner of table"):
        alice.execute("CREATE TABLE kept (a int)")
        admin.execute(f"DROP ROLE {me}")
    alice.execute("DROP TABLE kept")


def test_streams_and_procedures(admin: psycopg.Connection,
                                alice: psycopg.Connection) -> None:
    """Procedures run with their owner's privileges: EXECUTE on one lets a
    role run a transaction over tables it may not touch itself."""
    me = _role(alice)
    admin.execute("CREATE STREAM readings (sensor int, value int)")
    admin.execute("CREATE TABLE totals (sensor int PRIMARY KEY, total int)")
    admin.execute("CREATE PROCEDURE add_reading(s int, v int) LANGUAGE sql AS $$"
                  "INSERT INTO totals VALUES (s, v) ON CONFLICT (sensor) DO UPDATE "
                  "SET total = totals.total + excluded.total$$")
    admin.execute("CREATE PROCEDURE fold() LANGUAGE sql AS $$"
                  "INSERT INTO totals SELECT sensor, sum(value) FROM readings GROUP BY sensor "
                  "ON CONFLICT (sensor) DO UPDATE SET total = totals.total + excluded.total$$")
    admin.execute("CREATE TRIGGER fold_readings AFTER INSERT ON readings "
                  "EXECUTE PROCEDURE fold()")
    with pytest.raises(Denied, match="permission denied for stream readings"):
        alice.execute("INSERT INTO readings VALUES (1, 5)")
    admin.execute(f"GRANT INSERT ON readings TO {me}")
    alice.execute("INSERT INTO readings VALUES (1, 5)")  # the PE trigger runs as its owner
    alice.execute("CALL add_reading(2, 7)")  # PUBLIC may EXECUTE by default
    with pytest.raises(Denied, match="permission denied for table totals"):
        alice.execute("SELECT * FROM totals")
    admin.execute("REVOKE EXECUTE ON PROCEDURE add_reading FROM PUBLIC")
    with pytest.raises(Denied, match="permission denied for procedure add_reading"):
        alice.execute("CALL add_reading(2, 1)")
    admin.execute(f"GRANT EXECUTE ON PROCEDURE add_reading(int, int) TO {me}")
    alice.execute("CALL add_reading(2, 1)")
    admin.execute("SELECT sqlext_drain()")
    assert admin.execute("SELECT sensor, total FROM totals ORDER BY sensor").fetchall() == [
        (1, 5), (2, 8)]
    proacl = admin.execute("SELECT proacl::text FROM pg_proc WHERE proname = 'add_reading'"
                           ).fetchone()
    assert proacl == (f"{{postgres=X/postgres,{me}=X/postgres}}",)
    for sql, message in (
            ("DROP PROCEDURE add_reading", "must be owner of procedure add_reading"),
            ("DROP STREAM readings", "must be owner of stream readings"),
            ("CREATE WINDOW last2 ON readings ROWS 2", "must be owner of stream readings"),
            ("CREATE PROCEDURE py() LANGUAGE python AS 'pass'",
             "permission denied for language python"),
            ("COPY (SELECT 1) TO 'out.csv'", "must be superuser")):
        with pytest.raises(Denied, match=message):
            alice.execute(sql)
