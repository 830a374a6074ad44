"""node-postgres (the npm package ``pg``, with ``pg-cursor``) against sqlext
and against PostgreSQL 15: tests/clients/node/cases.js runs each case on
both and prints what the client got as JSON; each case must give the same
on both (values as node-postgres parses them, type OIDs, command tags,
error codes and fields).

The packages are those pinned in tests/clients/node/package-lock.json,
installed by ``make install`` (``npm ci``).
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from sqlext.tools.peer import PostgresPeer
from tests.fixtures.servers import ServerProcess

NODE_DIR = Path(__file__).resolve().parent / "node"

CASES = ("parameters", "untypedParameters", "jsonb", "arrays", "preparedStatements",
         "transaction", "errors", "cursor", "notifications", "multipleStatements")
"""The cases cases.js runs, in its order."""

Report = dict[str, Any]


def _start(host: str, port: int, database: str) -> subprocess.Popen[str]:
    assert (NODE_DIR / "node_modules" / "pg").is_dir(), \
        "node-postgres is not installed: run `make install` (npm ci in tests/clients/node)"
    schema = f"node_{uuid.uuid4().hex[:12]}"
    return subprocess.Popen(
        ["node", "cases.js", host, str(port), "postgres", database, schema],
        cwd=NODE_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "TZ": "UTC"})


def _report(process: subprocess.Popen[str]) -> Report:
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    report: Report = json.loads(out)
    return report


@pytest.fixture(scope="module")
def reports(server: ServerProcess, postgres: PostgresPeer) -> tuple[Report, Report]:
    """(sqlext's, PostgreSQL's), the two runs side by side."""
    ours = _start(server.host, server.port, "sqlext")
    theirs = _start("127.0.0.1", postgres.port, "postgres")
    return _report(ours), _report(theirs)


def test_every_case_ran(reports: tuple[Report, Report]) -> None:
    ours, theirs = reports
    assert tuple(ours) == tuple(theirs) == CASES


@pytest.mark.parametrize("case", CASES)
def test_same_as_postgres(reports: tuple[Report, Report], case: str) -> None:
    ours, theirs = reports
    assert "failed" not in theirs[case], theirs[case]  # the case itself is sound
    assert ours[case] == theirs[case]
