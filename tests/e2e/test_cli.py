"""The command line: ``sqlext run`` (a script against a running server, or
against a data directory), ``sqlext status``, ``--log-format json`` and
``--log-level``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg

from sqlext.tools.peer import free_port
from tests.fixtures.servers import ROOT, ServerProcess, own_schema, run_sqlext, start_server
from tests.fixtures.waiting import wait_until


def test_run_applies_a_script_and_stops_at_the_first_error(server: ServerProcess,
                                                           tmp_path: Path) -> None:
    with own_schema(server, "cli") as conn:
        schema = conn.execute("SELECT current_schema()").fetchone()[0]
        data = tmp_path / "readings.csv"
        data.write_text("".join(f"{n},sensor {n % 3}\n" for n in range(1, 5001)))
        script = tmp_path / "load.sql"
        script.write_text(
            f"SET search_path = {schema};\n"
            "CREATE TABLE readings (n int, sensor text);\n"
            f"\\copy readings FROM '{data}' WITH (FORMAT csv)\n"
            "SELECT sensor, count(*) AS n FROM readings GROUP BY sensor ORDER BY sensor;\n"
            f"\\copy readings TO '{tmp_path / 'out.txt'}'\n"
            "\n"
            "INSERT INTO readings VALUES (1 / 0, 'never');\n"
            "INSERT INTO readings VALUES (0, 'not reached');\n")
        done = run_sqlext("run", str(script), "--port", str(server.port))
        assert done.returncode == 1
        assert done.stdout.splitlines() == [
            "SET", "CREATE TABLE", "COPY 5000",
            "  sensor  |  n   ", "----------+------",
            " sensor 0 | 1666", " sensor 1 | 1667", " sensor 2 | 1667", "(3 rows)", "",
            "COPY 5000"]
        assert done.stderr == f"{script}:7: ERROR:  division by zero\n"
        assert len((tmp_path / "out.txt").read_text().splitlines()) == 5000
        assert conn.execute("SELECT count(*) FROM readings").fetchone() == (5000,)


def test_run_on_a_data_directory_keeps_the_result(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    done = run_sqlext("run", "-", "--data-dir", str(data_dir),
                      stdin="CREATE TABLE kept (a int); INSERT INTO kept VALUES (1), (2);")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["CREATE TABLE", "INSERT 0 2"]
    server = start_server("--data-dir", str(data_dir))
    try:
        with server.connect(autocommit=True) as conn:
            assert conn.execute("SELECT sum(a) FROM kept").fetchone() == (3,)
    finally:
        server.stop()


def test_run_reports_what_it_cannot_do(server: ServerProcess, tmp_path: Path) -> None:
    refused = run_sqlext("run", "-", "--port", str(server.port), stdin="SELECT 1;\n\\gset\n")
    assert refused.returncode == 1
    assert "line 2: \\gset is not supported" in refused.stderr
    missing = run_sqlext("run", str(tmp_path / "nosuch.sql"), "--port", str(server.port))
    assert missing.returncode == 1 and "No such file" in missing.stderr
    unreachable = run_sqlext("run", "-", "--port", "1", stdin="SELECT 1")
    assert unreachable.returncode == 1 and "cannot connect to 127.0.0.1:1" in unreachable.stderr


def test_json_log_lines(tmp_path: Path) -> None:
    server = start_server("--in-memory", "--log-format", "json")
    try:
        with server.connect(autocommit=True) as conn:
            conn.execute("SELECT 1")
    finally:
        server.stop()
    entries = [json.loads(line) for line in server.log if line.strip()]
    assert {"time", "level", "logger", "message"} <= entries[0].keys()
    assert any(e["level"] == "WARNING" and "in-memory mode" in e["message"] for e in entries)
    assert any(e["message"].startswith("sqlext listening on") for e in entries)


def test_log_level() -> None:
    """At level warning the server does not say where it listens: a port
    chosen here tells when it is up (it has logged everything up to that)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "sqlext", "serve", "--port", str(port), "--in-memory",
         "--log-level", "warning"], env=env, cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    wait_until(lambda: _answers(port) or process.poll() is not None, "the server to start")
    process.terminate()
    output, _ = process.communicate(timeout=10)
    assert "WARNING sqlext: in-memory mode" in output
    assert " INFO " not in output
    refused = run_sqlext("serve", "--log-level", "chatty")
    assert refused.returncode == 2 and "invalid choice" in refused.stderr


def test_status_shows_where_batches_wait(server_factory: Callable[..., ServerProcess],
                                         tmp_path: Path) -> None:
    server = server_factory("--data-dir", str(tmp_path / "data"))
    with server.connect(autocommit=True) as conn:
        conn.execute("CREATE STREAM readings (a int)")
        conn.execute("CREATE WINDOW last_two ON readings ROWS 2 SLIDE 1")
        conn.execute("CREATE TABLE ratios (r int)")
        conn.execute("CREATE PROCEDURE ratio() LANGUAGE sql AS $$ INSERT INTO ratios "
                     "SELECT 1 / (a - 3) FROM readings $$")
        conn.execute("CREATE TRIGGER each_reading AFTER INSERT ON readings "
                     "EXECUTE PROCEDURE ratio()")
        for value in (1, 3, 4):
            conn.execute(f"INSERT INTO readings VALUES ({value})")
        conn.execute("CHECKPOINT")
        lsn = conn.execute("SELECT last_lsn FROM sqlext_log").fetchone()
    shown = run_sqlext("status", "-p", str(server.port))
    assert shown.returncode == 0, shown.stderr
    sections = dict(_sections(shown.stdout))
    assert sections["Streams"][2] == (
        " public | readings |          3 |               2 |              2 | "
        "procedure ratio, window last_two")
    assert sections["Windows"][2].startswith(
        " public | last_two | readings | rows | 2    | 1     |              2 |")
    procedure = sections["Procedures"][2]
    assert procedure.startswith(" public | ratio | stopped |               2 |           1 |"
                                "              1 |")
    assert procedure.endswith("|                2 | division by zero")
    assert f"| strong   | {lsn[0]:8} | {lsn[0]:11} |" in sections["Command log"][2]
    assert sections["Snapshots"][2].startswith(f" {lsn[0]:3} |")
    assert sections["Snapshots"][2].endswith("| f")
    assert "| postgres | sqlext status    | 127.0.0.1   | active |" in sections["Sessions"][2]
    unreachable = run_sqlext("status", "-p", "1")
    assert unreachable.returncode == 1 and "cannot connect" in unreachable.stderr


def _answers(port: int) -> bool:
    try:
        with psycopg.connect(f"host=127.0.0.1 port={port} user=postgres dbname=sqlext",
                             connect_timeout=5) as conn:
            return conn.execute("SELECT 1").fetchone() == (1,)
    except psycopg.OperationalError:
        return False


def _sections(screen: str) -> Iterator[tuple[str, list[str]]]:
    """``sqlext status``'s sections: title -> its table's lines."""
    for block in screen.strip().split("\n\n")[1:]:
        title, *table = block.splitlines()
        yield title, table
