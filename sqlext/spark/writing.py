"""df.write.format("sqlext") and writeStream.format("sqlext"): each Spark
task's rows go to the nodes that own them (``sqlext.spark.routing``; all
of them to every node when the relation is replicated), each node's share
as one transaction there (one batch of a stream) with ``COPY target
(columns) FROM STDIN (FORMAT arrow)``, exactly once per node
(``sqlext.spark.node_write``). A node that cannot be reached fails the
task (08006, naming the node): its rows are never sent to another.

A stream with a ``batch_column`` gets its id from the rows when the frame
has that column; otherwise the task gives its batch the stream's next id,
taken inside the transaction (which then owns the serial executor, so no
other writer takes it)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import pyarrow as pa
from psycopg import sql
from pyspark import TaskContext
from pyspark.sql.datasource import (
    DataSourceArrowWriter,
    DataSourceStreamArrowWriter,
    WriterCommitMessage,
)
from pyspark.sql.types import StructType

from catalog import types
from sqlext.spark import ledger
from sqlext.spark.catalog_lookup import PartitionKey, Relation, find, partition_key
from sqlext.spark.node_write import WriteKey, node_write
from sqlext.spark.options import Options
from sqlext.spark.problems import OptionError, SqlextError
from sqlext.spark.routing import Router, routable, wanted
from sqlext.spark.spark_types import arrow_schema

_STREAMING_EPOCH = "streaming.sql.batchId"
_STREAMING_QUERY = "sql.streaming.queryId"


@dataclass(frozen=True, slots=True)
class Written(WriterCommitMessage):
    writer: str
    part: int
    rows: int
    skipped: bool


@dataclass(frozen=True, slots=True)
class Target:
    """Where a write goes, found once on the driver: the relation on each
    node (its OID differs from node to node) and how rows are shared out
    among the nodes."""

    options: Options
    relations: tuple[Relation, ...]
    router: Router
    batch_column: str | None
    """The stream's batch column when sqlext numbers its batches (the frame
    lacks it)."""

    @classmethod
    def of(cls, options: Options, schema: StructType, purpose: str) -> Target:
        name = options.relation(purpose)
        relations: list[Relation] = []
        key: PartitionKey | None = None
        for node in options.nodes:
            with node.connect() as connection:
                relations.append(find(connection, name))
                if node is options.catalog_node:
                    key = partition_key(connection, relations[0])
                ledger.prepare(connection)
        column = relations[0].batch_column
        return cls(options, tuple(relations), _router(key, relations[0], schema, len(relations)),
                   column if column is not None and column not in schema.fieldNames() else None)

    @property
    def relation(self) -> Relation:
        return self.relations[0]

    def write(self, writer: str, epoch: int, batches: Iterator[pa.RecordBatch]) -> Written:
        """One task's rows: each node's share as one transaction on that
        node, exactly once under (writer, epoch, partition) in its ledger.
        Every node's share is in before any commits: only a node lost
        between two commits leaves the task on some nodes, and the task's
        retry then completes it (each node's ledger knows what it has)."""
        key = WriteKey(writer, epoch, TaskContext.get().partitionId())
        with ExitStack() as stack:
            shares = [stack.enter_context(node_write(node, relation, self.batch_column, key))
                      for node, relation in zip(self.options.nodes, self.relations, strict=True)]
            if all(share.skipped for share in shares):
                return Written(writer, key.part, 0, True)
            for batch in batches:
                for share, rows in zip(shares, self.router.shares(batch), strict=True):
                    if rows.num_rows:
                        share.send(rows)
            for share in shares:
                share.prepare()
            for share in shares:
                share.commit()
        return Written(writer, key.part, sum(share.rows for share in shares),
                       all(share.skipped for share in shares))


def _router(key: PartitionKey | None, relation: Relation, schema: StructType,
            count: int) -> Router:
    """Rows by their key's owner; every row to every node when the relation
    is replicated (or there is one node: nothing to route). The frame must
    carry the key, as a column routing reads exactly as the node stores it."""
    if key is None or count == 1:
        return Router(count)
    if key.column not in schema.fieldNames():
        raise SqlextError("42703", f'the DataFrame has no column "{key.column}", the partition '
                                   f'key of "{relation.label}"')
    column_type = arrow_schema(schema).field(key.column).type
    if not routable(key.type_oid, column_type):
        raise SqlextError("42804", f'column "{key.column}" is the partition key of '
                                   f'"{relation.label}" ({types.format_type(key.type_oid)}): the '
                                   f"DataFrame's column must be {wanted(key.type_oid)}, not "
                                   f"{schema[key.column].dataType.simpleString()}")
    return Router(count, key)


class BatchWriter(DataSourceArrowWriter):
    """df.write: append, or overwrite a table (emptied first, in its own
    transaction, as Spark's JDBC writer truncates)."""

    def __init__(self, options: Options, schema: StructType, overwrite: bool) -> None:
        self.target = Target.of(options, schema, "a write")
        self.writer = options.write_id or f"job-{uuid.uuid4()}"
        if overwrite:
            self._empty()

    def _empty(self) -> None:
        """Every node's rows go (each node in its own transaction)."""
        target = self.target
        if target.relation.is_stream:
            raise OptionError(f'mode "overwrite": "{target.relation.label}" is a stream, and '
                              'streams are append-only (use mode "append")')
        for node, relation in zip(target.options.nodes, target.relations, strict=True):
            with node.connect() as connection, connection.transaction():
                connection.execute(sql.SQL("TRUNCATE {}").format(relation.identifier))
                ledger.forget(connection, relation, self.writer)

    def write(self, iterator: Iterator[pa.RecordBatch]) -> Written:
        return self.target.write(self.writer, 0, iterator)


class StreamWriter(DataSourceStreamArrowWriter):
    """writeStream: each micro-batch's tasks write under the query's id and
    the epoch; the driver's commit marks the epoch done."""

    def __init__(self, options: Options, schema: StructType) -> None:
        self.target = Target.of(options, schema, "a streaming write")

    def write(self, iterator: Iterator[pa.RecordBatch]) -> Written:
        context = TaskContext.get()
        query = context.getLocalProperty(_STREAMING_QUERY)
        epoch = context.getLocalProperty(_STREAMING_EPOCH)
        if query is None or epoch is None:
            raise SqlextError("XX000", "a streaming write task without Spark's query id "
                                       "and micro-batch id")
        return self.target.write(f"query-{query}", int(epoch), iterator)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        query = _query_of(messages)
        if query is None:
            return
        target = self.target
        for node, relation in zip(target.options.nodes, target.relations, strict=True):
            with node.connect() as connection:
                ledger.finish_epoch(connection, relation, query, batchId)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        """The tasks that wrote keep their rows: Spark runs the micro-batch
        again and those tasks' keys skip them."""


def _query_of(messages: list[WriterCommitMessage | None]) -> str | None:
    for message in messages:
        if isinstance(message, Written):
            return message.writer
    return None
