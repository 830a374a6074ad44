"""The PostgreSQL JDBC driver (the Debian jar Spark uses) against sqlext: a
Java program compiled here with javac runs every check of JdbcCheck.java."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pytest

from tests.fixtures.java import JDBC_JAR, compile_java
from tests.fixtures.servers import ServerProcess

SOURCE = Path(__file__).resolve().parents[1] / "java" / "JdbcCheck.java"
CHECKS = ["types", "binary-results", "batch", "fetch-size", "metadata", "failing-batch"]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_java(tmp_path_factory.mktemp("jdbc"), "JdbcCheck", SOURCE.read_text())


def test_jdbc_checks(server: ServerProcess, compiled: Path) -> None:
    url = f"jdbc:postgresql://{server.host}:{server.port}/sqlext"
    suffix = "_" + uuid.uuid4().hex[:6]
    result = subprocess.run(
        ["java", "-cp", f"{JDBC_JAR}:{compiled}", "JdbcCheck", url, suffix],
        capture_output=True, text=True, timeout=300)
    passed = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("ok ")]
    assert result.returncode == 0, result.stdout + result.stderr[-4000:]
    assert passed == CHECKS
