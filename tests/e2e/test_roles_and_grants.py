"""Roles, memberships and grants with real sessions of several roles: what
outlives a crash and a snapshot, and how open sessions see their roles
renamed or dropped (PostgreSQL keeps them by OID)."""

from __future__ import annotations

import signal
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import errors

from tests.fixtures.servers import ServerProcess, start_server

GRANTS = """
SELECT 'schema', nspname::text, nspacl::text FROM pg_namespace WHERE nspname = 'shop'
UNION ALL SELECT 'table', relname::text || ' ' || tableowner, relacl::text
    FROM pg_class JOIN pg_tables ON tablename = relname WHERE schemaname = 'shop'
UNION ALL SELECT 'column', attname::text, attacl::text FROM pg_attribute
    WHERE attrelid = (SELECT oid FROM pg_class WHERE relname = 'orders') AND attnum > 0
UNION ALL SELECT 'member', r.rolname || ' ' || m.rolname || ' ' || g.rolname,
    admin_option::text FROM pg_auth_members JOIN pg_roles r ON r.oid = roleid
    JOIN pg_roles m ON m.oid = member JOIN pg_roles g ON g.oid = grantor
ORDER BY 1, 2
"""


def _connect(server: ServerProcess, user: str) -> psycopg.Connection:
    return psycopg.connect(f"host={server.host} port={server.port} dbname=sqlext user={user}",
                           autocommit=True)


def _one(connection: psycopg.Connection, sql: str) -> object:
    row = connection.execute(sql).fetchone()
    assert row is not None
    return row[0]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


def test_grants_memberships_and_owners_survive_replay_and_snapshots(data_dir: Path) -> None:
    """Made by a role through SET ROLE, by a grantor holding the grant
    option, and under a role renamed since: the command log redoes each as
    the role that ran it; a snapshot keeps them as they are."""
    server = start_server("--data-dir", str(data_dir))
    try:
        with _connect(server, "postgres") as admin:
            for statement in (
                    "CREATE ROLE alice LOGIN", "CREATE ROLE bob LOGIN", "CREATE ROLE carol LOGIN",
                    "CREATE ROLE staff", "CREATE SCHEMA shop",
                    "GRANT USAGE, CREATE ON SCHEMA shop TO staff",
                    "GRANT USAGE ON SCHEMA shop TO bob, carol WITH GRANT OPTION",
                    "GRANT staff TO alice WITH ADMIN OPTION"):
                admin.execute(statement)
            with _connect(server, "alice") as alice:
                alice.execute("SET search_path = shop")
                alice.execute("SET ROLE staff")  # what it creates is staff's
                alice.execute("CREATE TABLE orders (id int PRIMARY KEY, item text, price int)")
                alice.execute("GRANT SELECT (id, item), UPDATE (price) ON orders TO bob "
                              "WITH GRANT OPTION")
                alice.execute("RESET ROLE")
                alice.execute("GRANT staff TO carol")
            with _connect(server, "bob") as bob:
                bob.execute("GRANT SELECT (item) ON shop.orders TO carol")
            admin.execute("ALTER ROLE bob RENAME TO robert")
            with _connect(server, "robert") as robert:
                robert.execute("GRANT UPDATE (price) ON shop.orders TO carol")
            before = admin.execute(GRANTS).fetchall()
        assert ("table", "orders staff", None) in before
        assert ("column", "item", "{robert=r*/staff,carol=r/robert}") in before
        assert ("member", "staff carol alice", "false") in before
    finally:
        server.stop(signal.SIGKILL)
    server = start_server("--data-dir", str(data_dir))  # the command log is replayed
    try:
        with _connect(server, "postgres") as admin:
            assert admin.execute(GRANTS).fetchall() == before
            admin.execute("CHECKPOINT")
            admin.execute("REVOKE GRANT OPTION FOR SELECT ON shop.orders FROM robert CASCADE")
            after = admin.execute(GRANTS).fetchall()
        assert ("column", "item", "{robert=r/staff}") in after
    finally:
        server.stop(signal.SIGKILL)
    server = start_server("--data-dir", str(data_dir))  # the snapshot, then the log
    try:
        with _connect(server, "postgres") as admin:
            assert admin.execute(GRANTS).fetchall() == after
        with _connect(server, "carol") as carol:
            carol.execute("SET search_path = shop")
            carol.execute("SET ROLE staff")
            carol.execute("INSERT INTO orders VALUES (1, 'pen', 3)")
            carol.execute("RESET ROLE")
            with _connect(server, "postgres") as admin:
                admin.execute("REVOKE staff FROM carol")  # staff owns orders
            assert carol.execute("UPDATE orders SET price = 4").rowcount == 1
            with pytest.raises(errors.InsufficientPrivilege,
                               match="permission denied for table orders"):
                carol.execute("SELECT item FROM orders")
    finally:
        server.stop()


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    process = start_server("--in-memory")
    yield process
    process.stop()


@pytest.fixture
def admin(server: ServerProcess) -> Iterator[psycopg.Connection]:
    with _connect(server, "postgres") as connection:
        yield connection


def test_open_sessions_see_their_role_renamed_and_dropped(server: ServerProcess,
                                                           admin: psycopg.Connection) -> None:
    name = f"dana_{uuid.uuid4().hex[:8]}"
    admin.execute(f"CREATE ROLE {name} LOGIN")
    oid = _one(admin, f"SELECT oid FROM pg_roles WHERE rolname = '{name}'")
    with _connect(server, name) as dana:
        pid = _one(dana, "SELECT pg_backend_pid()")
        admin.execute(f"ALTER ROLE {name} RENAME TO {name}_2")
        assert dana.execute("SELECT current_user, session_user").fetchone() == (
            f"{name}_2", f"{name}_2")
        assert _one(admin, f"SELECT usename FROM pg_stat_activity WHERE pid = {pid}") == (
            f"{name}_2")
        with pytest.raises(errors.FeatureNotSupported, match="session user cannot be renamed"):
            dana.execute(f"ALTER ROLE {name}_2 RENAME TO {name}_3")
        admin.execute(f"DROP ROLE {name}_2")
        with pytest.raises(errors.UndefinedObject, match=f"invalid role OID: {oid}"):
            dana.execute("SELECT current_user")
        assert _one(dana, "SELECT 1") == 1
        # a new role of the old name is not the session's
        admin.execute(f"CREATE ROLE {name}_2 SUPERUSER")
        with pytest.raises(errors.InsufficientPrivilege):
            dana.execute("SELECT count(*) FROM pg_authid")
        admin.execute(f"DROP ROLE {name}_2")


def test_role_changes_are_reported_and_undone_with_their_transaction(
        server: ServerProcess, admin: psycopg.Connection) -> None:
    """SET ROLE reports is_superuser (ParameterStatus), SET SESSION
    AUTHORIZATION session_authorization too; a rolled back transaction, a
    failed pipeline, a ROLLBACK TO SAVEPOINT take them back."""
    name = f"erin_{uuid.uuid4().hex[:8]}"
    admin.execute(f"CREATE ROLE {name}")
    status = admin.info.parameter_status
    admin.execute(f"SET ROLE {name}")
    assert (status("is_superuser"), status("session_authorization")) == ("off", "postgres")
    admin.execute(f"SET SESSION AUTHORIZATION {name}")
    assert (status("is_superuser"), status("session_authorization")) == ("off", name)
    admin.execute("RESET SESSION AUTHORIZATION")
    assert (status("is_superuser"), status("session_authorization")) == ("on", "postgres")
    with pytest.raises(errors.DivisionByZero), admin.pipeline():
        admin.execute(f"SET ROLE {name}")
        admin.execute("SELECT 1 / 0")
    assert (_one(admin, "SELECT current_user"), status("is_superuser")) == ("postgres", "on")
    with admin.transaction(), pytest.raises(errors.InsufficientPrivilege), admin.transaction():
        admin.execute(f"SET ROLE {name}")
        admin.execute("SELECT count(*) FROM pg_authid")
    assert _one(admin, "SELECT current_user") == "postgres"
    admin.execute(f"DROP ROLE {name}")
