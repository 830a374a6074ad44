"""TLS with real clients: psycopg (libpq) sslmode require and verify-full,
psql, pgjdbc ssl=true, and host rules that require or refuse TLS."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.fixtures.java import compile_java, run_java
from tests.fixtures.servers import ServerProcess, run_sqlext, start_server


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A certificate authority, and a server certificate it signed for
    localhost and 127.0.0.1 (plus a second, unrelated authority)."""
    directory = tmp_path_factory.mktemp("tls")
    for name in ("ca", "other-ca"):
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                 "-subj", f"/CN=sqlext test {name}", "-keyout", f"{name}.key",
                 "-out", f"{name}.pem", cwd=directory)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
             "-keyout", "server.key", "-out", "server.csr", cwd=directory)
    (directory / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.pem",
             cwd=directory)
    return directory


@pytest.fixture(scope="module")
def tls_server(certificates: Path, tmp_path_factory: pytest.TempPathFactory
               ) -> Iterator[ServerProcess]:
    hba = tmp_path_factory.mktemp("hba") / "hba.conf"
    hba.write_text("host all postgres 127.0.0.1/32 trust\n"
                   "hostnossl all plain 127.0.0.1/32 trust\n"
                   "hostssl all plain 127.0.0.1/32 reject\n"
                   "hostssl all all 127.0.0.1/32 scram-sha-256\n")
    server = start_server("--in-memory", "--hba-file", str(hba),
                          "--tls-cert", str(certificates / "server.pem"),
                          "--tls-key", str(certificates / "server.key"))
    with server.connect(autocommit=True) as admin:
        admin.execute("CREATE ROLE alice LOGIN PASSWORD 's3cret'")
        admin.execute("CREATE ROLE plain LOGIN")
    yield server
    server.stop()


def _dsn(server: ServerProcess, host: str = "127.0.0.1", **options: str) -> str:
    extra = " ".join(f"{key}={value}" for key, value in options.items())
    return f"host={host} port={server.port} dbname=sqlext {extra}"


def test_sslmode_require_and_verify_full(tls_server: ServerProcess,
                                         certificates: Path) -> None:
    with psycopg.connect(_dsn(tls_server, user="alice", password="s3cret",
                              sslmode="require")) as conn:
        assert conn.pgconn.ssl_in_use
        assert conn.execute("SELECT current_user").fetchone() == ("alice",)
        # a result bigger than one TLS record comes through whole
        rows = conn.execute("SELECT repeat('x', 1000) FROM generate_series(1, 500)").fetchall()
        assert len(rows) == 500 and rows[-1][0] == "x" * 1000
    with psycopg.connect(_dsn(tls_server, "localhost", user="alice", password="s3cret",
                              sslmode="verify-full",
                              sslrootcert=str(certificates / "ca.pem"))) as conn:
        assert conn.pgconn.ssl_in_use
    with pytest.raises(psycopg.OperationalError, match="certificate verify failed"):
        psycopg.connect(_dsn(tls_server, "localhost", user="alice", password="s3cret",
                             sslmode="verify-full",
                             sslrootcert=str(certificates / "other-ca.pem")))


def test_rules_require_or_refuse_tls(tls_server: ServerProcess) -> None:
    # alice may only come in over TLS
    with pytest.raises(psycopg.OperationalError, match=re.escape(
            'no pg_hba.conf entry for host "127.0.0.1", user "alice", database "sqlext", '
            "no encryption")):
        psycopg.connect(_dsn(tls_server, user="alice", password="s3cret", sslmode="disable"))
    # plain only without: libpq's "prefer" falls back to no TLS when refused
    with pytest.raises(psycopg.OperationalError, match=re.escape(
            'pg_hba.conf rejects connection for host "127.0.0.1", user "plain", '
            'database "sqlext", SSL encryption')):
        psycopg.connect(_dsn(tls_server, user="plain", sslmode="require"))
    with psycopg.connect(_dsn(tls_server, user="plain", sslmode="prefer")) as conn:
        assert not conn.pgconn.ssl_in_use
        assert conn.execute("SELECT current_user").fetchone() == ("plain",)


def test_psql_over_tls(tls_server: ServerProcess) -> None:
    result = subprocess.run(
        ["psql", _dsn(tls_server, user="alice", sslmode="require"), "-XAtc",
         "SELECT current_user"], capture_output=True, text=True, timeout=60,
        env={"PGPASSWORD": "s3cret", "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "alice"


def test_pgjdbc_ssl(tls_server: ServerProcess, certificates: Path, tmp_path: Path) -> None:
    classes = compile_java(tmp_path, "TlsLogin", """
        import java.sql.*;
        public class TlsLogin {
            public static void main(String[] args) throws Exception {
                try (Connection c = DriverManager.getConnection(args[0], "alice", "s3cret");
                     ResultSet rs = c.createStatement().executeQuery(
                         "SELECT current_user, count(*) FROM generate_series(1, 10000)")) {
                    rs.next();
                    System.out.println(rs.getString(1) + " " + rs.getLong(2));
                } catch (SQLException e) {
                    System.out.println(e.getSQLState() + " " + e.getMessage());
                }
            }
        }
    """)
    base = f"jdbc:postgresql://localhost:{tls_server.port}/sqlext"
    root = certificates / "ca.pem"
    # ssl=true verifies the certificate and the host name (sslmode verify-full)
    assert run_java(classes, "TlsLogin", f"{base}?ssl=true&sslrootcert={root}") == (
        "alice 10000")
    refused = run_java(classes, "TlsLogin",
                       f"{base}?ssl=true&sslrootcert={certificates / 'other-ca.pem'}")
    assert refused.startswith("08006"), refused
    without = run_java(classes, "TlsLogin", f"{base}?sslmode=disable")
    assert without.startswith("28000") and "no encryption" in without, without


def test_bad_certificate_refuses_to_start(tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    result = run_sqlext("serve", "--in-memory", "--port", "0", "--tls-cert", str(missing),
                        "--tls-key", str(missing))
    assert result.returncode == 1
    assert "cannot load the TLS certificate and key" in result.stderr
