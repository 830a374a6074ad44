"""Roles and host-based authentication with real clients (libpq through
psycopg, psql, and pgjdbc), and the connection limits."""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from tests.fixtures.java import compile_java, run_java
from tests.fixtures.servers import ServerProcess, run_sqlext, start_server

METHODS = ["password", "md5", "scram-sha-256"]


def _dsn(server: ServerProcess, user: str, password: str | None = None) -> str:
    dsn = f"host={server.host} port={server.port} dbname=sqlext user={user}"
    return dsn if password is None else f"{dsn} password={password}"


def _rules(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _superuser_trust(method: str) -> tuple[str, ...]:
    return ("host all postgres 127.0.0.1/32 trust", f"host all all 127.0.0.1/32 {method}")


@pytest.mark.parametrize("method", METHODS)
def test_password_methods(server_factory: Callable[..., ServerProcess], tmp_path: Path,
                          method: str) -> None:
    hba = _rules(tmp_path / "hba.conf", *_superuser_trust(method))
    server = server_factory("--in-memory", "--hba-file", str(hba))
    with server.connect(autocommit=True) as admin:
        if method == "md5":
            admin.execute("SET password_encryption = 'md5'")
        admin.execute("CREATE ROLE alice LOGIN PASSWORD 's3cret'")
        admin.execute("CREATE USER bob PASSWORD 'other'")
        stored = admin.execute(
            "SELECT rolpassword FROM pg_authid WHERE rolname = 'alice'").fetchone()
    assert stored is not None and "s3cret" not in stored[0]
    assert stored[0].startswith("md5" if method == "md5" else "SCRAM-SHA-256$4096:")
    with psycopg.connect(_dsn(server, "alice", "s3cret")) as conn:
        assert conn.execute("SELECT current_user, session_user").fetchone() == ("alice",
                                                                                "alice")
        assert conn.execute("SHOW is_superuser").fetchone() == ("off",)
    with psycopg.connect(_dsn(server, "bob", "other")) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    for user, password in (("alice", "wrong"), ("mallory", "s3cret"), ("alice", "other")):
        with pytest.raises(psycopg.OperationalError,
                           match=f'password authentication failed for user "{user}"'):
            psycopg.connect(_dsn(server, user, password))


def test_md5_rule_uses_scram_for_a_scram_verifier(
        server_factory: Callable[..., ServerProcess], tmp_path: Path) -> None:
    """As in PostgreSQL: an md5 rule authenticates a role whose password is
    stored as a SCRAM verifier with SCRAM, while a scram-sha-256 rule
    cannot use an MD5 hash."""
    hba = _rules(tmp_path / "hba.conf", "host all postgres 127.0.0.1/32 trust",
                 "host all scrammy 127.0.0.1/32 md5", "host all all 127.0.0.1/32 scram-sha-256")
    server = server_factory("--in-memory", "--hba-file", str(hba))
    with server.connect(autocommit=True) as admin:
        admin.execute("CREATE ROLE scrammy LOGIN PASSWORD 'pw1'")
        admin.execute("SET password_encryption = 'md5'")
        admin.execute("CREATE ROLE hashed LOGIN PASSWORD 'pw2'")
    with psycopg.connect(_dsn(server, "scrammy", "pw1")) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("scrammy",)
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(_dsn(server, "hashed", "pw2"))


def test_rules_reject_and_reload(server_factory: Callable[..., ServerProcess],
                                 tmp_path: Path) -> None:
    hba = _rules(tmp_path / "hba.conf", "host all postgres 127.0.0.1/32 trust",
                 "host all carol 127.0.0.1/32 reject", "host all alice 127.0.0.1/32 trust")
    server = server_factory("--in-memory", "--hba-file", str(hba))
    with server.connect(autocommit=True) as admin:
        admin.execute("CREATE ROLE alice LOGIN")
        admin.execute("CREATE ROLE carol LOGIN")
        admin.execute("CREATE ROLE dave LOGIN")
    with psycopg.connect(_dsn(server, "alice")) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("alice",)
    with pytest.raises(psycopg.OperationalError, match=re.escape(
            'pg_hba.conf rejects connection for host "127.0.0.1", user "carol", '
            'database "sqlext", no encryption')):
        psycopg.connect(_dsn(server, "carol"))
    with pytest.raises(psycopg.OperationalError, match=re.escape(
            'no pg_hba.conf entry for host "127.0.0.1", user "dave", database "sqlext", '
            'no encryption')):
        psycopg.connect(_dsn(server, "dave"))

    _rules(hba, "host all postgres 127.0.0.1/32 trust", "host all alice 127.0.0.1/32 reject",
           "host all all 127.0.0.1/32 trust")
    with server.connect(autocommit=True) as admin:
        assert admin.execute("SELECT pg_reload_conf()").fetchone() == (True,)
    with pytest.raises(psycopg.OperationalError, match="rejects connection"):
        psycopg.connect(_dsn(server, "alice"))
    with psycopg.connect(_dsn(server, "carol")) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("carol",)

    # a malformed file changes nothing, and says where it is wrong
    _rules(hba, "host all all 127.0.0.1/32 letmein")
    since = len(server.log)
    with server.connect(autocommit=True) as admin:
        assert admin.execute("SELECT pg_reload_conf()").fetchone() == (False,)
    server.wait_for_log("line 1: invalid authentication method 'letmein'", since)
    with psycopg.connect(_dsn(server, "carol")) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)

    # SIGHUP reloads too
    _rules(hba, "host all postgres 127.0.0.1/32 trust", "host all all 127.0.0.1/32 reject")
    since = len(server.log)
    server.process.send_signal(signal.SIGHUP)
    server.wait_for_log("authentication rules reloaded", since)
    for user in ("carol", "alice"):
        with pytest.raises(psycopg.OperationalError, match="rejects connection"):
            psycopg.connect(_dsn(server, user))


def test_login_checks(server: ServerProcess) -> None:
    with server.connect(autocommit=True) as admin:
        admin.execute("CREATE ROLE nologin_role")
        admin.execute("CREATE ROLE limited LOGIN CONNECTION LIMIT 1")
        try:
            with pytest.raises(psycopg.OperationalError,
                               match='role "nologin_role" is not permitted to log in'):
                psycopg.connect(_dsn(server, "nologin_role"))
            with pytest.raises(psycopg.OperationalError, match='role "ghost" does not exist'):
                psycopg.connect(_dsn(server, "ghost"))
            with psycopg.connect(_dsn(server, "limited")), pytest.raises(
                    psycopg.OperationalError, match='too many connections for role "limited"'):
                psycopg.connect(_dsn(server, "limited"))
            with psycopg.connect(_dsn(server, "limited")) as again:
                assert again.execute("SELECT current_user").fetchone() == ("limited",)
        finally:
            admin.execute("DROP ROLE nologin_role, limited")


def test_role_statements(server: ServerProcess) -> None:
    errors = psycopg.errors
    with server.connect(autocommit=True) as admin:
        admin.execute("CREATE ROLE manager LOGIN CREATEROLE")
        admin.execute("CREATE ROLE worker LOGIN PASSWORD 'x'")
        try:
            with pytest.raises(errors.DuplicateObject, match='role "worker" already exists'):
                admin.execute("CREATE ROLE worker")
            with pytest.raises(errors.ReservedName, match='role name "pg_x" is reserved'):
                admin.execute("CREATE ROLE pg_x")
            with pytest.raises(errors.UndefinedObject, match='role "nobody" does not exist'):
                admin.execute("ALTER ROLE nobody LOGIN")
            with pytest.raises(errors.FeatureNotSupported, match="role option VALID"):
                admin.execute("CREATE ROLE r VALID UNTIL 'infinity'")
            with pytest.raises(errors.ObjectInUse, match="current user cannot be dropped"):
                admin.execute("DROP ROLE postgres")
            with psycopg.connect(_dsn(server, "manager"), autocommit=True) as manager:
                manager.execute("CREATE ROLE helper")
                manager.execute("ALTER ROLE helper LOGIN CONNECTION LIMIT 5")
                with pytest.raises(errors.InsufficientPrivilege,
                                   match="must be superuser to create superusers"):
                    manager.execute("CREATE ROLE boss SUPERUSER")
                with pytest.raises(errors.InsufficientPrivilege,
                                   match='permission denied to alter role "postgres"'):
                    manager.execute("ALTER ROLE postgres PASSWORD 'taken'")
                manager.execute("DROP ROLE helper")
            with psycopg.connect(_dsn(server, "worker"), autocommit=True) as worker:
                worker.execute("ALTER ROLE worker PASSWORD 'mine'")  # one's own password
                with pytest.raises(errors.InsufficientPrivilege,
                                   match="permission denied to create role"):
                    worker.execute("CREATE ROLE other")
                with pytest.raises(errors.InsufficientPrivilege):
                    worker.execute("ALTER ROLE worker CREATEROLE")
            admin.execute("ALTER ROLE worker RENAME TO labourer")
            row = admin.execute("SELECT rolname, rolcanlogin, rolconnlimit FROM pg_roles "
                                "WHERE rolname = 'labourer'").fetchone()
            assert row == ("labourer", True, -1)
            notices: list[str] = []
            admin.add_notice_handler(lambda notice: notices.append(notice.message_primary))
            admin.execute("DROP ROLE IF EXISTS labourer, nobody")
            assert notices == ['role "nobody" does not exist, skipping']
        finally:
            admin.execute("DROP ROLE IF EXISTS manager, worker, labourer")


def test_pgjdbc_scram(server_factory: Callable[..., ServerProcess], tmp_path: Path) -> None:
    hba = _rules(tmp_path / "hba.conf", *_superuser_trust("scram-sha-256"))
    server = server_factory("--in-memory", "--hba-file", str(hba))
    with server.connect(autocommit=True) as admin:
        admin.execute("CREATE ROLE alice LOGIN PASSWORD 's3cret'")
    classes = compile_java(tmp_path, "Login", """
        import java.sql.*;
        public class Login {
            public static void main(String[] args) throws Exception {
                try (Connection c = DriverManager.getConnection(args[0], args[1], args[2]);
                     ResultSet rs = c.createStatement().executeQuery("SELECT current_user")) {
                    rs.next();
                    System.out.println(rs.getString(1));
                } catch (SQLException e) {
                    System.out.println(e.getSQLState());
                }
            }
        }
    """)
    url = f"jdbc:postgresql://{server.host}:{server.port}/sqlext"
    assert run_java(classes, "Login", url, "alice", "s3cret") == "alice"
    assert run_java(classes, "Login", url, "alice", "wrong") == "28P01"


def test_connection_limit(server_factory: Callable[..., ServerProcess]) -> None:
    server = server_factory("--in-memory", "--max-connections", "2")
    first = server.connect()
    second = server.connect()
    with pytest.raises(psycopg.OperationalError, match="too many clients"):
        server.connect()
    second.close()
    with server.connect() as third:
        assert third.execute("SELECT 1").fetchone() == (1,)
    first.close()


def _refusal(*args: str) -> str:
    result = run_sqlext("serve", "--port", "0", *args)
    assert result.returncode == 1, result.stdout + result.stderr
    return result.stderr


def test_remote_listening_needs_passwords(server_factory: Callable[..., ServerProcess],
                                          tmp_path: Path) -> None:
    message = _refusal("--in-memory", "--host", "0.0.0.0")
    assert "no rule in the default rules asks clients on other machines for a password" in (
        message)
    trusting = _rules(tmp_path / "trusting.conf", "host all all 0.0.0.0/0 trust")
    assert "line 1 trusts clients on other machines" in _refusal(
        "--in-memory", "--host", "0.0.0.0", "--hba-file", str(trusting))
    broken = _rules(tmp_path / "broken.conf", "host all all")
    assert "line 1: expected TYPE DATABASE USER ADDRESS METHOD" in _refusal(
        "--in-memory", "--hba-file", str(broken))
    # explicitly allowed, or with password rules, it starts
    allowed = start_server("--in-memory", "--host", "0.0.0.0", "--allow-remote-trust")
    assert allowed.alive
    allowed.stop()
    secured = _rules(tmp_path / "secured.conf", "host all all 127.0.0.1/32 trust",
                     "hostssl all all 0.0.0.0/0 scram-sha-256")
    server = server_factory("--in-memory", "--host", "0.0.0.0", "--hba-file", str(secured))
    with psycopg.connect(f"host=127.0.0.1 port={server.port} user=postgres dbname=x") as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_data_directory_rules_and_durable_roles(tmp_path: Path) -> None:
    """A new data directory gets pg_hba.conf with loopback trust; roles,
    their verifiers (never the password) and privileges survive a crash."""
    data = tmp_path / "data"
    server = start_server("--data-dir", str(data))
    try:
        rules = (data / "pg_hba.conf").read_text()
        assert "host       all       all   127.0.0.1/32    trust" in rules
        with server.connect(autocommit=True) as admin:
            admin.execute("CREATE ROLE alice LOGIN PASSWORD 'plain-secret'")
            admin.execute("CREATE TABLE t (a int)")
            admin.execute("GRANT SELECT ON t TO alice")
    finally:
        server.stop(signal.SIGKILL)
    for path in data.rglob("*"):
        if path.is_file():
            assert b"plain-secret" not in path.read_bytes(), path
    _rules(data / "pg_hba.conf", "host all postgres 127.0.0.1/32 trust",
           "host all all 127.0.0.1/32 scram-sha-256")
    server = start_server("--data-dir", str(data))
    try:
        with psycopg.connect(_dsn(server, "alice", "plain-secret")) as conn:
            assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("INSERT INTO t VALUES (1)")
    finally:
        server.stop()
