"""``sqlext run --cluster``: one script applied to every node of a cluster.

1. Every node is reached and says it serves the partition the cluster gives
   it (``cluster_nodes``). If one does not (it is down, or serves another
   partition), nothing is applied anywhere.
2. In partition order, each node begins a transaction, claims the script in
   its ledger (``cluster_ledger``) and runs the script. A node that has the
   script already is skipped. If the script fails on a node (an error, or
   the node is lost), every open transaction rolls back: nothing is applied.
3. The transactions commit, in partition order. A node lost between two
   commits leaves the script on the nodes that committed; running the same
   script again completes the cluster, since those nodes' ledgers say they
   have it.

An open transaction holds its node's executor from its first write to its
commit: other writers on that node wait meanwhile, as they wait for any
transaction. Taking the nodes in partition order means that two runs at
once never wait for each other in a circle.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
from dataclasses import dataclass
from enum import Enum, auto
from typing import TextIO

import psycopg

from sqlext.cluster.cluster_file import ClusterError, Node, load
from sqlext.tools.client_options import first_line
from sqlext.tools.cluster_ledger import claim
from sqlext.tools.cluster_nodes import reach
from sqlext.tools.script import ScriptError, Step, check_for_cluster
from sqlext.tools.script_runner import run_steps


class Outcome(Enum):
    """What became of the script on one node."""

    PENDING = auto()
    OPEN = auto()
    """Run in a transaction that has not committed yet."""
    APPLIED = auto()
    ALREADY = auto()
    """The node's ledger had it: skipped."""
    FAILED = auto()
    ROLLED_BACK = auto()
    """Run, then rolled back because another node failed."""


HAVE_IT = (Outcome.APPLIED, Outcome.ALREADY)


@dataclass(frozen=True, slots=True)
class Script:
    name: str
    """As the user named it: its path, or stdin."""
    text: str
    steps: list[Step]

    @property
    def digest(self) -> str:
        """What the ledger knows it by: the same text is the same script."""
        return hashlib.sha256(self.text.encode()).hexdigest()


@dataclass(slots=True)
class NodeRun:
    node: Node
    connection: psycopg.Connection
    outcome: Outcome = Outcome.PENDING
    why: str = ""
    """What failed, when it did."""


def run(source: str, script: Script, out: TextIO = sys.stdout, progress: bool = False) -> int:
    """Applies ``script`` to the cluster ``source`` names; the exit status:
    0 only when every node has the script."""
    try:
        cluster = load(source)
        check_for_cluster(script.steps)
    except (ClusterError, ScriptError) as exc:
        print(f"sqlext run: {script.name}: {exc}", file=sys.stderr)
        return 1
    with reach(cluster, "run") as nodes:
        problems = [node.problem for node in nodes if node.problem is not None]
        if problems:
            for problem in problems:
                print(f"sqlext run: {problem}", file=sys.stderr)
            print(f"sqlext run: {script.name}: nothing applied", file=sys.stderr)
            return 1
        runs = [NodeRun(node.node, node.connection)
                for node in nodes if node.connection is not None]  # all of them, being up
        for node_run in runs:
            if not _prepare(node_run, script, out, progress):
                _roll_back(runs)
                break
        else:
            for node_run in runs:
                _commit(node_run, out)
    return _report(runs, script.name, out)


def _prepare(run: NodeRun, script: Script, out: TextIO, progress: bool) -> bool:
    """Step 2 on one node: False if it failed."""
    print(f"{run.node}: running {script.name}", file=out, flush=True)
    connection = run.connection
    try:
        connection.execute("SET idle_in_transaction_session_timeout = 0")  # while others run
        connection.execute("BEGIN")
        applied_at = claim(connection, script.digest, script.name)
        if applied_at is not None:
            connection.execute("ROLLBACK")
            run.outcome = Outcome.ALREADY
            print(f"{run.node}: already applied at {applied_at}: skipped", file=out, flush=True)
            return True
    except psycopg.Error as exc:
        run.outcome, run.why = Outcome.FAILED, _error(exc)
        return False
    failure = run_steps(connection, script.steps, script.name, out, progress,
                        label=f"{run.node}: ")
    if failure is None:
        run.outcome = Outcome.OPEN
        return True
    run.outcome = Outcome.FAILED
    run.why = f"line {failure.step.line}: {_reason(failure.sqlstate, failure.message)}"
    return False


def _roll_back(runs: list[NodeRun]) -> None:
    """After a failure in step 2: nothing of this run stays anywhere."""
    for run in runs:
        if run.outcome in (Outcome.OPEN, Outcome.FAILED):
            # an error: the node or the connection is gone, and its transaction with it
            with contextlib.suppress(psycopg.Error):
                run.connection.execute("ROLLBACK")
            if run.outcome is Outcome.OPEN:
                run.outcome = Outcome.ROLLED_BACK


def _commit(run: NodeRun, out: TextIO) -> None:
    if run.outcome is not Outcome.OPEN:
        return
    try:
        run.connection.execute("COMMIT")
    except psycopg.Error as exc:
        run.outcome, run.why = Outcome.FAILED, f"COMMIT: {_error(exc)}"
        if exc.sqlstate is None:
            run.why += " (committed or not: the node's ledger will tell the next run)"
        return
    run.outcome = Outcome.APPLIED
    print(f"{run.node}: applied", file=out, flush=True)


def _report(runs: list[NodeRun], name: str, out: TextIO) -> int:
    applied = [run.node.partition for run in runs if run.outcome is Outcome.APPLIED]
    already = [run.node.partition for run in runs if run.outcome is Outcome.ALREADY]
    if len(applied) + len(already) == len(runs):
        how = [f"{what} on {_nodes(partitions)}" for what, partitions in
               (("applied", applied), ("already", already)) if partitions]
        print(f"{name}: on all {len(runs)} nodes ({'; '.join(how)})", file=out)
        return 0
    for run in runs:
        if run.outcome is Outcome.FAILED:
            print(f"sqlext run: {name} failed on {run.node}: {run.why}", file=sys.stderr)
    if not applied:
        print(f"sqlext run: {name}: nothing applied", file=sys.stderr)
    else:
        missing = [run.node.partition for run in runs if run.outcome not in HAVE_IT]
        print(f"sqlext run: {name}: applied on {_nodes(applied)}, not on {_nodes(missing)}: "
              "run it again to complete the cluster (nodes that have it skip it)",
              file=sys.stderr)
    return 1


def _error(exc: psycopg.Error) -> str:
    return _reason(exc.sqlstate, exc.diag.message_primary or first_line(exc))


def _reason(sqlstate: str | None, message: str) -> str:
    return f"{sqlstate}: {message}" if sqlstate else message


def _nodes(partitions: list[int]) -> str:
    return f"node{'s' if len(partitions) > 1 else ''} {', '.join(map(str, partitions))}"
