"""``sqlext status --cluster``: every node of a cluster on one screen: where
it listens, whether it is up and serves the partition the cluster gives it,
and what waits in its streams and procedures. A node that is down is shown
as down, next to the others."""

from __future__ import annotations

import sys
from typing import Final, TextIO

import psycopg

from sqlext.cluster.cluster_file import ClusterError, load
from sqlext.tools.cluster_nodes import Reached, State, reach
from sqlext.tools.psql_tables import Table

SECTIONS: Final = (
    ("Streams", "SELECT schema, name, last_batch, oldest_batch, pending_batches, "
                "pending_tuples, consumers FROM sqlext_streams ORDER BY schema, name"),
    ("Procedures", "SELECT schema, name, state, waiting_batches, batches_run, batches_failed, "
                   "stopped_at_batch, error FROM sqlext_procedures ORDER BY schema, name"),
)
"""Per node, under a ``node`` column: each stream's backlog (the batches a
procedure has not run yet, the oldest batch it still holds) and each
procedure's state."""


def run(source: str, out: TextIO = sys.stdout) -> int:
    """The exit status: 1 if a node is not up (down, refusing, or serving
    another partition), else 0."""
    try:
        cluster = load(source)
    except ClusterError as exc:
        print(f"sqlext status: {exc}", file=sys.stderr)
        return 1
    with reach(cluster, "status") as reached:
        nodes, tables = zip(*(_read(node) for node in reached), strict=True)
    up = sum(node.state is State.UP for node in nodes)
    print(f"Cluster {source}: {len(nodes)} nodes, {up} up\n", file=out)
    print("Nodes", file=out)
    Table(["node", "address", "state", "partition", "problem"],
          [[str(node.node.partition), str(node.node.address), node.state.value,
            node.serves or "", node.detail] for node in nodes],
          [True, False, False, False, False]).print(out)
    for index, (title, _) in enumerate(SECTIONS):
        shown = [(node, found[index]) for node, found in zip(nodes, tables, strict=True) if found]
        if shown:
            print(title, file=out)
            first = shown[0][1]
            Table(["node", *first.names],
                  [[str(node.node.partition), *row] for node, table in shown for row in table.rows],
                  [True, *first.right]).print(out)
    return 0 if up == len(nodes) else 1


def _read(node: Reached) -> tuple[Reached, list[Table]]:
    """The node's sections (none when it cannot be read; a node that fails
    them is shown as what it is then)."""
    if node.connection is None:
        return node, []
    try:
        return node, [Table.of(node.connection.execute(query)) for _, query in SECTIONS]
    except psycopg.Error as exc:
        return Reached.failed(node.node, exc, node.serves), []
