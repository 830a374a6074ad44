"""One Spark task's share of its rows for one node: one transaction on that
node, exactly once under the task's key in that node's ledger
(``sqlext.spark.ledger``).

Each node's ledger decides for its own share: a retried task sends its
rows to every node again, and a node that has the key already (it
committed the share the first time) takes none of them. The rows go out
before the key is claimed, in the same transaction: sending them does not
need the node's serial executor, so one task's rows travel while another's
go in; a key found taken then rolls the rows back. A stream that takes its
batch id from sqlext claims first: the id is read once the transaction
owns the executor (a task opens its nodes in partition order, so two tasks
never wait for each other's executors in a circle).

Every call on the node is made inside its endpoint's ``talking()``, so an
error says which node it came from, however the task's nodes are nested.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import psycopg
import pyarrow as pa

from sqlext.spark import ledger
from sqlext.spark.arrow_copy import copy_in
from sqlext.spark.catalog_lookup import Relation, last_batch
from sqlext.spark.endpoint import WRITE_TASK, Endpoint


@dataclass(frozen=True, slots=True)
class WriteKey:
    """What names a task's rows: the write (or streaming query), the
    micro-batch epoch and the task's partition."""

    writer: str
    epoch: int
    part: int


@contextmanager
def node_write(endpoint: Endpoint, relation: Relation, batch_column: str | None,
               key: WriteKey) -> Iterator[NodeWrite]:
    """The node's transaction for the share (or the share found written
    before: ``skipped``). Left without ``commit`` (this or another node
    failed), it rolls back."""
    with endpoint.connect(WRITE_TASK) as connection, ExitStack() as copying:
        share = NodeWrite(endpoint, connection, relation, batch_column, key, copying)
        share.begin()
        yield share


class NodeWrite:
    """``send`` the share's batches, ``prepare`` puts them in with the key,
    ``commit`` commits."""

    def __init__(self, endpoint: Endpoint, connection: psycopg.Connection, relation: Relation,
                 batch_column: str | None, key: WriteKey, copying: ExitStack) -> None:
        self.endpoint = endpoint
        self.connection = connection
        self.relation = relation
        self.batch_column = batch_column
        """The stream's batch column when sqlext numbers the batch."""
        self.key = key
        self.rows = 0
        self.skipped = False
        self._copying = copying
        self._copy: pa.ipc.RecordBatchStreamWriter | None = None
        self._batch_id: int | None = None

    def begin(self) -> None:
        with self.endpoint.talking():
            if ledger.done(self.connection, self.relation, *self._key()):
                self.skipped = True
                return
            self.connection.execute("BEGIN")
            if self.batch_column is None:
                return
            if self._claim():
                self._batch_id = last_batch(self.connection, self.relation) + 1
            else:
                self.connection.execute("ROLLBACK")

    def send(self, batch: pa.RecordBatch) -> None:
        if self.skipped:
            return
        if self._batch_id is not None:
            assert self.batch_column is not None
            batch = batch.append_column(self.batch_column, pa.repeat(
                pa.scalar(self._batch_id, pa.int64()), batch.num_rows))
        with self.endpoint.talking():
            if self._copy is None:
                self._copy = self._copying.enter_context(copy_in(
                    self.connection.cursor(), self.relation.identifier, batch.schema))
            self._copy.write_batch(batch)
        self.rows += batch.num_rows

    def prepare(self) -> None:
        """The share's rows go in with the key, not committed yet: every
        node of the task prepares before any commits, so an error on one
        (a duplicate key, a check) leaves no node with part of the task."""
        if self.skipped:
            return
        with self.endpoint.talking():
            self._copying.close()  # the end of the COPY
            if self.batch_column is None:
                self._claim()
            if not self.skipped:
                ledger.written(self.connection, self.relation, *self._key(), self.rows)
            else:
                self.connection.execute("ROLLBACK")

    def commit(self) -> None:
        if not self.skipped:
            with self.endpoint.talking():
                self.connection.execute("COMMIT")

    def _claim(self) -> bool:
        """Claims the key; False (and nothing to write) if it was taken."""
        if ledger.claim(self.connection, self.relation, *self._key()):
            return True
        self.skipped, self.rows = True, 0
        return False

    def _key(self) -> tuple[str, int, int]:
        return self.key.writer, self.key.epoch, self.key.part
