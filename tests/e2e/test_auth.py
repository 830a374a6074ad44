"""Password authentication with real clients (libpq through psycopg, and
pgjdbc), and the connection limit."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from tests.fixtures.servers import ServerProcess

METHODS = ["password", "md5", "scram-sha-256"]


def _dsn(server: ServerProcess, user: str, password: str) -> str:
    return (f"host={server.host} port={server.port} dbname=sqlext user={user} "
            f"password={password}")


@pytest.mark.parametrize("method", METHODS)
def test_libpq_password_methods(server_factory: Callable[..., ServerProcess],
                                method: str) -> None:
    server = server_factory("--in-memory", "--auth", method, "--user", "alice:s3cret",
                            "--user", "bob:other")
    with psycopg.connect(_dsn(server, "alice", "s3cret")) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("alice",)
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(_dsn(server, "alice", "wrong"))
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(_dsn(server, "mallory", "s3cret"))


def test_pgjdbc_scram(server_factory: Callable[..., ServerProcess],
                      tmp_path: Path) -> None:
    server = server_factory("--in-memory", "--auth", "scram-sha-256", "--user", "alice:s3cret")
    source = tmp_path / "Login.java"
    source.write_text("""
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
    jar = "/usr/share/java/postgresql.jar"
    javac = shutil.which("javac")
    assert javac, "javac is missing: run `make install`"
    subprocess.run([javac, "-d", str(tmp_path), "-cp", jar, str(source)], check=True)
    url = f"jdbc:postgresql://{server.host}:{server.port}/sqlext"

    def login(password: str) -> str:
        result = subprocess.run(["java", "-cp", f"{jar}:{tmp_path}", "Login", url, "alice",
                                 password], capture_output=True, text=True, timeout=120)
        return result.stdout.strip()

    assert login("s3cret") == "alice"
    assert login("wrong") == "28P01"


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

