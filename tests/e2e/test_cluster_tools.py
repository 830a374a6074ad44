"""``sqlext run --cluster`` and ``sqlext status --cluster`` on 3 real nodes
on loopback: a script reaches every node exactly once, or (a node down, in
the wrong place, or refusing a row) no node; a node SIGKILLed in the middle
of a run leaves nothing a second run of the same script cannot complete."""

from __future__ import annotations

import contextlib
import hashlib
import re
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from catalog.partitioning import partition_of
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.servers import ServerProcess, run_sqlext, start_sqlext_command

Cluster = Callable[[int], LocalCluster]

SCHEMA = """\
CREATE TABLE regions (code int, name text);
INSERT INTO regions VALUES (1, 'north'), (2, 'south'), (3, 'east');
CREATE TABLE accounts (id int PRIMARY KEY, region int, balance int) PARTITION BY HASH (id);
CREATE STREAM payments (account int, amount int) PARTITION BY HASH (account);
CREATE PROCEDURE book() BEGIN ATOMIC
    INSERT INTO accounts SELECT account, 1, sum(amount) FROM payments GROUP BY account
    ON CONFLICT (id) DO UPDATE SET balance = accounts.balance + excluded.balance;
END;
CREATE TRIGGER book AFTER INSERT ON payments EXECUTE PROCEDURE book();
"""
"""Replicated reference rows (regions has no key: a second application
would double them), a partitioned table and a per-key dataflow."""
REGIONS = [(1, "north"), (2, "south"), (3, "east")]
SCHEMA_TAGS = ("CREATE TABLE", "INSERT 0 3", "CREATE TABLE", "CREATE STREAM",
               "CREATE PROCEDURE", "CREATE TRIGGER")


@pytest.fixture
def schema(tmp_path: Path) -> Path:
    path = tmp_path / "schema.sql"
    path.write_text(SCHEMA)
    return path


def _run(cluster: LocalCluster, script: Path) -> subprocess.CompletedProcess[str]:
    return run_sqlext("run", "--cluster", str(cluster.cluster_file), str(script))


def _label(cluster: LocalCluster, index: int) -> str:
    return f"node {index} (127.0.0.1:{cluster.nodes[index].port})"


def _query(node: ServerProcess, sql: str) -> list[tuple[object, ...]]:
    with node.connect(autocommit=True) as connection:
        return connection.execute(sql).fetchall()


def _regions(node: ServerProcess) -> list[tuple[object, ...]] | None:
    """The node's reference rows; None when it has no such table."""
    if _query(node, "SELECT to_regclass('regions')") == [(None,)]:
        return None
    return _query(node, "SELECT code, name FROM regions ORDER BY code")


def _ledger(node: ServerProcess) -> list[tuple[object, ...]] | None:
    if _query(node, "SELECT to_regclass('sqlext_cluster.applied_scripts')") == [(None,)]:
        return None
    return _query(node, "SELECT digest, script FROM sqlext_cluster.applied_scripts")


def _applied_nowhere(cluster: LocalCluster) -> None:
    for node in cluster.nodes:
        assert _regions(node) is None
        assert _ledger(node) is None


def _holding(node: ServerProcess) -> psycopg.Connection:
    """A session whose open transaction holds the node's executor: the
    runner's first write on that node waits until it ends."""
    connection = node.connect(autocommit=True)
    connection.execute("CREATE TABLE hold (a int)")
    connection.execute("BEGIN")
    connection.execute("INSERT INTO hold VALUES (1)")
    return connection


def _read_until(process: subprocess.Popen[str], start: str) -> list[str]:
    """The runner's output lines up to the one that starts with ``start``."""
    assert process.stdout is not None and process.stderr is not None
    seen = []
    for line in process.stdout:
        seen.append(line.rstrip("\n"))
        if line.startswith(start):
            return seen
    raise AssertionError(f"no line {start!r} in {seen}; stderr: {process.stderr.read()}")


def _skipped_at_any_time(output: str) -> list[str]:
    """The runner's lines, with T for the time a skipped node applied the
    script."""
    return [re.sub(r"already applied at .+: skipped$", "already applied at T: skipped", line)
            for line in output.splitlines()]


def _sections(output: str) -> dict[str, list[list[str]]]:
    """Status output: each titled table's rows (header first, no rule, no
    row count), as lists of their cells."""
    found: dict[str, list[list[str]]] = {}
    for block in output.split("\n\n"):
        title, *lines = block.strip("\n").splitlines() or [""]
        found[title] = [[cell.strip() for cell in line.split("|")]
                        for line in lines[:1] + lines[2:-1]]
    return found


def test_a_script_reaches_every_node_once(cluster_factory: Cluster, schema: Path) -> None:
    cluster = cluster_factory(3)
    done = _run(cluster, schema)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        *(line for index in range(3)
          for line in (f"{_label(cluster, index)}: running {schema}", *SCHEMA_TAGS)),
        *(f"{_label(cluster, index)}: applied" for index in range(3)),
        f"{schema}: on all 3 nodes (applied on nodes 0, 1, 2)"]
    digest = hashlib.sha256(SCHEMA.encode()).hexdigest()
    for node in cluster.nodes:
        assert _regions(node) == REGIONS
        assert _query(node, "SELECT pg_get_partkeydef(to_regclass('accounts')), "
                            "pg_get_partkeydef(to_regclass('payments'))") == [
            ("HASH (id)", "HASH (account)")]
        assert _ledger(node) == [(digest, str(schema))]

    again = _run(cluster, schema)
    assert again.returncode == 0, again.stderr
    assert _skipped_at_any_time(again.stdout) == [
        *(line for index in range(3) for line in (
            f"{_label(cluster, index)}: running {schema}",
            f"{_label(cluster, index)}: already applied at T: skipped")),
        f"{schema}: on all 3 nodes (already on nodes 0, 1, 2)"]
    for node in cluster.nodes:
        assert _regions(node) == REGIONS

    owner = cluster.nodes[partition_of(7, 3)]
    with owner.connect(autocommit=True) as connection:
        connection.execute("INSERT INTO payments VALUES (7, 5)")
    shown = run_sqlext("status", "--cluster", str(cluster.cluster_file))
    assert shown.returncode == 0, shown.stderr
    sections = _sections(shown.stdout)
    assert sections[f"Cluster {cluster.cluster_file}: 3 nodes, 3 up"] == []
    assert sections["Nodes"] == [["node", "address", "state", "partition", "problem"]] + [
        [str(index), f"127.0.0.1:{node.port}", "up", f"{index}/3", ""]
        for index, node in enumerate(cluster.nodes)]
    streams = sections["Streams"]
    assert streams[0] == ["node", "schema", "name", "last_batch", "oldest_batch",
                          "pending_batches", "pending_tuples", "consumers"]
    assert [row[:3] for row in streams[1:]] == [[str(index), "public", "payments"]
                                                for index in range(3)]
    assert streams[1 + partition_of(7, 3)][3] == "1"  # its one batch, the others none
    assert [row[:4] for row in sections["Procedures"][1:]] == [
        [str(index), "public", "book", "idle"] for index in range(3)]


def test_a_row_a_node_does_not_own_applies_the_script_nowhere(cluster_factory: Cluster,
                                                              tmp_path: Path) -> None:
    cluster = cluster_factory(3)
    key = next(key for key in range(100) if partition_of(key, 3) == 0)
    script = tmp_path / "misrouted.sql"
    script.write_text("CREATE TABLE regions (code int, name text);\n"
                      "CREATE TABLE accounts (id int, balance int) PARTITION BY HASH (id);\n"
                      f"INSERT INTO accounts VALUES ({key}, 10);\n")
    done = _run(cluster, script)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"{_label(cluster, 0)}: running {script}", "CREATE TABLE", "CREATE TABLE", "INSERT 0 1",
        f"{_label(cluster, 1)}: running {script}", "CREATE TABLE", "CREATE TABLE"]
    refusal = ('row for relation "accounts" belongs to partition 0 of 3, not to this node '
               "(partition 1 of 3)")
    error, detail, hint, *verdict = done.stderr.splitlines()
    assert error == f"{_label(cluster, 1)}: {script}:3: ERROR:  {refusal}"
    assert detail == f"DETAIL:  Partition key of the failing row contains (id) = ({key})."
    assert hint.startswith("HINT:  Send it to the node that serves partition 0/3")
    assert verdict == [
        f"sqlext run: {script} failed on {_label(cluster, 1)}: line 3: 23514: {refusal}",
        f"sqlext run: {script}: nothing applied"]
    _applied_nowhere(cluster)


def test_a_node_that_is_down_stops_the_run_until_it_is_back(cluster_factory: Cluster,
                                                            schema: Path) -> None:
    cluster = cluster_factory(3)
    port = cluster.nodes[2].port
    cluster.nodes[2].stop(signal.SIGKILL)
    refused = _run(cluster, schema)
    assert refused.returncode == 1
    assert refused.stdout == ""
    problem, verdict = refused.stderr.splitlines()
    assert problem.startswith(f"sqlext run: node 2 (127.0.0.1:{port}) is down: ")
    assert "Connection refused" in problem
    assert verdict == f"sqlext run: {schema}: nothing applied"
    for node in cluster.nodes[:2]:
        assert _regions(node) is None and _ledger(node) is None

    shown = run_sqlext("status", "--cluster", str(cluster.cluster_file))
    assert shown.returncode == 1
    sections = _sections(shown.stdout)
    assert f"Cluster {cluster.cluster_file}: 3 nodes, 2 up" in sections
    down = sections["Nodes"][3]
    assert down[:4] == ["2", f"127.0.0.1:{port}", "down", ""]
    assert "Connection refused" in down[4]
    assert sections["Streams"][1:] == []

    cluster.nodes[2] = cluster.start(2, port)
    done = _run(cluster, schema)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"{schema}: on all 3 nodes (applied on nodes 0, 1, 2)"
    for node in cluster.nodes:
        assert _regions(node) == REGIONS
    shown = run_sqlext("status", "--cluster", str(cluster.cluster_file))
    assert shown.returncode == 0, shown.stderr
    assert [row[0] for row in _sections(shown.stdout)["Streams"][1:]] == ["0", "1", "2"]


def test_a_node_lost_while_the_script_runs_leaves_it_nowhere(cluster_factory: Cluster,
                                                             schema: Path) -> None:
    cluster = cluster_factory(3)
    holder = _holding(cluster.nodes[1])
    runner = start_sqlext_command("run", "--cluster", str(cluster.cluster_file), str(schema))
    _read_until(runner, f"{_label(cluster, 1)}: running")  # node 0 has run it, not committed
    port = cluster.nodes[1].port
    cluster.nodes[1].stop(signal.SIGKILL)
    _, errors = runner.communicate(timeout=60)
    with contextlib.suppress(psycopg.Error):
        holder.close()
    assert runner.returncode == 1
    assert f"sqlext run: {schema} failed on {_label(cluster, 1)}: " in errors
    assert errors.endswith(f"sqlext run: {schema}: nothing applied\n")
    cluster.nodes[1] = cluster.start(1, port)
    _applied_nowhere(cluster)

    done = _run(cluster, schema)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"{schema}: on all 3 nodes (applied on nodes 0, 1, 2)"
    for node in cluster.nodes:
        assert _regions(node) == REGIONS


def test_a_node_lost_between_commits_is_completed_by_the_same_run(cluster_factory: Cluster,
                                                                   schema: Path) -> None:
    """Node 1 dies after running the script and before its commit: nodes 0
    and 2 commit. The same run again skips them and applies node 1."""
    cluster = cluster_factory(3)
    holder = _holding(cluster.nodes[2])
    runner = start_sqlext_command("run", "--cluster", str(cluster.cluster_file), str(schema))
    _read_until(runner, f"{_label(cluster, 2)}: running")
    port = cluster.nodes[1].port
    cluster.nodes[1].stop(signal.SIGKILL)
    holder.execute("ROLLBACK")
    holder.close()
    output, errors = runner.communicate(timeout=60)
    assert runner.returncode == 1
    assert output.splitlines()[-2:] == [f"{_label(cluster, 0)}: applied",
                                        f"{_label(cluster, 2)}: applied"]
    assert f"sqlext run: {schema} failed on {_label(cluster, 1)}: COMMIT: " in errors
    assert errors.endswith(
        f"sqlext run: {schema}: applied on nodes 0, 2, not on node 1: run it again to complete "
        "the cluster (nodes that have it skip it)\n")
    cluster.nodes[1] = cluster.start(1, port)
    assert _regions(cluster.nodes[1]) is None

    done = _run(cluster, schema)
    assert done.returncode == 0, done.stderr
    assert _skipped_at_any_time(done.stdout) == [
        f"{_label(cluster, 0)}: running {schema}",
        f"{_label(cluster, 0)}: already applied at T: skipped",
        f"{_label(cluster, 1)}: running {schema}", *SCHEMA_TAGS,
        f"{_label(cluster, 2)}: running {schema}",
        f"{_label(cluster, 2)}: already applied at T: skipped",
        f"{_label(cluster, 1)}: applied",
        f"{schema}: on all 3 nodes (applied on node 1; already on nodes 0, 2)"]
    for node in cluster.nodes:
        assert _regions(node) == REGIONS


def test_nodes_out_of_partition_order_are_refused(cluster_factory: Cluster, schema: Path,
                                                  tmp_path: Path) -> None:
    cluster = cluster_factory(3)
    swapped = tmp_path / "swapped.toml"
    urls = cluster.urls
    swapped.write_text("".join(f'[[node]]\nurl = "{url}"\n' for url in (urls[1], urls[0],
                                                                        urls[2])))
    refused = run_sqlext("run", "--cluster", str(swapped), str(schema))
    assert refused.returncode == 1
    ports = [node.port for node in cluster.nodes]
    assert refused.stderr.splitlines() == [
        f"sqlext run: node 0 (127.0.0.1:{ports[1]}) serves partition 1/3, but the cluster "
        "lists it as partition 0/3",
        f"sqlext run: node 1 (127.0.0.1:{ports[0]}) serves partition 0/3, but the cluster "
        "lists it as partition 1/3",
        f"sqlext run: {schema}: nothing applied"]
    _applied_nowhere(cluster)

    shown = run_sqlext("status", "--cluster", str(swapped))
    assert shown.returncode == 1
    assert [row[2:] for row in _sections(shown.stdout)["Nodes"][1:]] == [
        ["wrong partition", "1/3", "the cluster lists it as partition 0/3"],
        ["wrong partition", "0/3", "the cluster lists it as partition 1/3"],
        ["up", "2/3", ""]]

    listed = run_sqlext("run", "--cluster", ",".join(urls), str(schema))  # URLs, in order
    assert listed.returncode == 0, listed.stderr
    for node in cluster.nodes:
        assert _regions(node) == REGIONS


def test_what_a_cluster_run_refuses_before_reaching_any_node(tmp_path: Path) -> None:
    nowhere = "sqlext://127.0.0.1:1"
    for options, problem in (
            (["-p", "5499"], "--cluster takes each node's address from the cluster, not -p"),
            (["-h", "db", "-U", "me"], "--cluster takes each node's address from the cluster, "
                                       "not -h/-U"),
            (["--data-dir", str(tmp_path)], "--cluster applies the script to running nodes, "
                                            "not to a --data-dir")):
        done = run_sqlext("run", "--cluster", nowhere, *options, "-", stdin="SELECT 1")
        assert (done.returncode, done.stderr) == (2, f"sqlext run: {problem}\n")
    conflict = run_sqlext("status", "--cluster", nowhere, "-d", "other")
    assert (conflict.returncode, conflict.stderr) == (
        2, "sqlext status: --cluster takes each node's address from the cluster, not -d\n")
    missing = run_sqlext("run", "--cluster", str(tmp_path / "nosuch.toml"), "-", stdin="SELECT 1")
    assert missing.returncode == 1
    assert "cannot read cluster file" in missing.stderr
    in_block = run_sqlext("run", "--cluster", nowhere, "-",
                          stdin="CREATE TABLE t (a int);\nBEGIN;\nINSERT INTO t VALUES (1);\n")
    assert (in_block.returncode, in_block.stderr) == (
        1, "sqlext run: stdin: line 2: BEGIN is not supported in a cluster script: each node "
           "runs the whole script as one transaction (SAVEPOINT works)\n")
    down = run_sqlext("status", "--cluster", nowhere)
    assert down.returncode == 1
    assert "    0 | 127.0.0.1:1 | down  |" in down.stdout
