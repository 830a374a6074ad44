"""Where the data source finds sqlext: the nodes the ``url`` or ``cluster``
option names, connections to them, and sqlext's errors as Spark shows
them.

A ``url`` is a cluster of one node: every read and write goes through the
same per-node code whether there is one node or many.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final

import psycopg

from sqlext.cluster.cluster_file import Address, Cluster, ClusterError, Node, load
from sqlext.spark.problems import OptionError, SqlextError

APPLICATION: Final = "sqlext.spark"
DRIVER: Final = "driver"
WRITE_TASK: Final = "write task"
READ_TASK: Final = "read task"
_CONNECTION_FAILURE: Final = "08006"


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One sqlext node. A node of a ``cluster`` must serve the partition
    the cluster gives it (checked on the driver); a ``url``'s may serve any."""

    node: Node
    placement: str | None
    """``"I/N"``, what ``sqlext.partition`` must say; None for a url."""

    @contextmanager
    def connect(self, work: str = DRIVER) -> Iterator[psycopg.Connection]:
        """An autocommit connection; sqlext's errors come out as SqlextError.
        It shows in pg_stat_activity as ``sqlext.spark <work>`` unless the
        URL names an application_name. The driver's connections check the
        node's partition."""
        arguments = {"application_name": f"{APPLICATION} {work}",
                     **self.node.address.connect_arguments()}
        with self.talking(), psycopg.connect(autocommit=True, **arguments) as connection:
            if work == DRIVER:
                self._check_placement(connection)
            yield connection

    @contextmanager
    def talking(self) -> Iterator[None]:
        """Turn psycopg's errors into SqlextError, keeping the SQLSTATE; an
        error of the connection itself (a node that cannot be reached, or
        is lost) is 08006 naming the node."""
        try:
            yield
        except psycopg.Error as exc:
            diagnostic = exc.diag
            message = diagnostic.message_primary or str(exc).strip()
            if exc.sqlstate is None:
                lost = isinstance(exc, psycopg.OperationalError)
                raise SqlextError(_CONNECTION_FAILURE, f"{self.node}"
                                  f"{' is down or unreachable' if lost else ''}: {message}"
                                  ) from None
            raise SqlextError(exc.sqlstate, message, diagnostic.message_detail,
                              diagnostic.message_hint) from None

    def _check_placement(self, connection: psycopg.Connection) -> None:
        if self.placement is None:
            return
        row = connection.execute("SELECT current_setting('sqlext.partition')").fetchone()
        serving = None if row is None else str(row[0])
        if serving != self.placement:
            raise OptionError(f'option "cluster": {self.node} serves partition {serving}, not '
                              f"{self.placement} (list the nodes in partition order)")


def endpoints(option: str, value: str) -> tuple[Endpoint, ...]:
    """The nodes ``option`` ("url" or "cluster") names, in partition order."""
    try:
        if option == "url":
            return (Endpoint(Node(0, Address.parse(value)), None),)
        cluster: Cluster = load(value)
    except ClusterError as exc:
        raise OptionError(f'option "{option}": {exc}') from None
    count = cluster.partitions
    return tuple(Endpoint(node, f"{node.partition}/{count}") for node in cluster.nodes)
