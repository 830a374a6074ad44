"""The nodes of a cluster as ``sqlext run --cluster`` and ``sqlext status
--cluster`` reach them: a connection to each, and each node's own word on
its partition (``SHOW sqlext.partition``) checked against its place in the
cluster, so that a script or a status never goes to a node in the wrong
place."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Final

import psycopg

from catalog.partitioning import Placement
from sqlext.cluster.cluster_file import Cluster, Node
from sqlext.tools.client_options import first_line

CONNECT_TIMEOUT: Final = 10
"""Seconds to wait for a node that does not answer (a URL's
``connect_timeout`` wins)."""


class State(Enum):
    UP = "up"
    DOWN = "down"
    """Not reachable: no server, or none that finishes the handshake."""
    REFUSED = "refusing"
    """It answered with an error: a login refused, no such database, no
    partition to tell."""
    MISPLACED = "wrong partition"


@dataclass(frozen=True, slots=True)
class Reached:
    node: Node
    state: State
    connection: psycopg.Connection | None
    """Open when it is UP or MISPLACED."""
    serves: str | None
    """The partition it says it serves ("I/N"), if it said."""
    detail: str = ""
    """What is wrong, when it is not UP: psycopg's or the server's message,
    or where the cluster places it."""

    @property
    def problem(self) -> str | None:
        """Why the node cannot take part in a run, as a sentence."""
        if self.state is State.UP:
            return None
        if self.state is State.MISPLACED:
            return f"{self.node} serves partition {self.serves}, but {self.detail}"
        return f"{self.node} is {self.state.value}: {self.detail}"

    @classmethod
    def failed(cls, node: Node, exc: psycopg.Error, serves: str | None = None) -> Reached:
        """A node that did not connect or answer: down when there is no
        SQLSTATE (nothing answered), else refusing."""
        if exc.sqlstate is None:
            return cls(node, State.DOWN, None, serves, first_line(exc))
        return cls(node, State.REFUSED, None, serves, f"{exc.sqlstate}: {first_line(exc)}")


@contextlib.contextmanager
def reach(cluster: Cluster, command: str) -> Iterator[list[Reached]]:
    """Every node, in partition order; the connections close at the end
    (an open transaction on one rolls back)."""
    with contextlib.ExitStack() as stack:
        yield [_reach(node, cluster.partitions, command, stack) for node in cluster.nodes]


def _reach(node: Node, count: int, command: str, stack: contextlib.ExitStack) -> Reached:
    arguments = {"application_name": f"sqlext {command}", "connect_timeout": CONNECT_TIMEOUT,
                 **node.address.connect_arguments()}
    try:
        connection = stack.enter_context(psycopg.connect(autocommit=True, **arguments))
        row = connection.execute("SHOW sqlext.partition").fetchone()
    except psycopg.Error as exc:
        return Reached.failed(node, exc)
    assert row is not None
    serves, place = str(row[0]), Placement(node.partition, count)
    if serves != str(place):
        return Reached(node, State.MISPLACED, connection, serves,
                       f"the cluster lists it as partition {place}")
    return Reached(node, State.UP, connection, serves)
