"""df.write.format("sqlext") and writeStream.format("sqlext"): each Spark
task's rows go in as one transaction (one batch of a stream) with
``COPY target (columns) FROM STDIN (FORMAT arrow)``, exactly once
(``sqlext.spark.ledger``).

A stream with a ``batch_column`` gets its id from the rows when the frame
has that column; otherwise the task gives its batch the stream's next id,
taken inside the transaction (which then owns the serial executor, so no
other writer takes it)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg
import pyarrow as pa
from psycopg import sql
from pyspark import TaskContext
from pyspark.sql.datasource import (
    DataSourceArrowWriter,
    DataSourceStreamArrowWriter,
    WriterCommitMessage,
)
from pyspark.sql.types import StructType

from sqlext.spark import ledger
from sqlext.spark.arrow_copy import write_batches
from sqlext.spark.catalog_lookup import Relation, find, last_batch
from sqlext.spark.endpoint import WRITE_TASK
from sqlext.spark.options import Options
from sqlext.spark.problems import OptionError, SqlextError

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
    """Where a write goes, found once on the driver."""

    options: Options
    relation: Relation
    names: tuple[str, ...]
    """The frame's columns."""

    @classmethod
    def of(cls, options: Options, schema: StructType, purpose: str) -> Target:
        name = options.relation(purpose)
        with options.endpoint.connect() as connection:
            relation = find(connection, name)
            ledger.prepare(connection)
        return cls(options, relation, tuple(schema.fieldNames()))

    def write(self, writer: str, epoch: int, batches: Iterator[pa.RecordBatch]) -> Written:
        """One task's rows, exactly once under (writer, epoch, partition).

        The rows go out before the key is claimed, in the same transaction:
        sending them does not need the serial executor, so one task's rows
        travel while another's go in; a key found taken then rolls the rows
        back. A stream that takes its batch id from sqlext claims first: the
        id is read once the transaction owns the executor."""
        part = TaskContext.get().partitionId()
        target = self.relation
        numbered = self._numbered_by_sqlext()
        with self.options.endpoint.connect(WRITE_TASK) as connection:
            if ledger.done(connection, target, writer, epoch, part):
                return Written(writer, part, 0, True)
            taken = False
            with connection.transaction():
                if numbered:
                    taken = not ledger.claim(connection, target, writer, epoch, part)
                    if taken:
                        raise psycopg.Rollback
                    batches = self._with_batch_id(connection, batches)
                count = self._send(connection, batches)
                if not numbered:
                    taken = not ledger.claim(connection, target, writer, epoch, part)
                    if taken:
                        raise psycopg.Rollback
                ledger.written(connection, target, writer, epoch, part, count)
        return Written(writer, part, 0 if taken else count, taken)

    def _send(self, connection: psycopg.Connection, batches: Iterator[pa.RecordBatch]) -> int:
        first = next(batches, None)
        if first is None:
            return 0
        return write_batches(connection.cursor(), self.relation.identifier, first.schema,
                             _chain(first, batches))

    def _numbered_by_sqlext(self) -> bool:
        """A stream with a batch column the frame lacks: its id comes from
        sqlext."""
        column = self.relation.batch_column
        return column is not None and column not in self.names

    def _with_batch_id(self, connection: psycopg.Connection, batches: Iterator[pa.RecordBatch]
                       ) -> Iterator[pa.RecordBatch]:
        """The batches, with the stream's next batch id in its batch column."""
        column = self.relation.batch_column
        assert column is not None
        batch_id = last_batch(connection, self.relation) + 1
        return (batch.append_column(column, pa.array([batch_id] * batch.num_rows, pa.int64()))
                for batch in batches)


def _chain(first: pa.RecordBatch, rest: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    yield first
    yield from rest


class BatchWriter(DataSourceArrowWriter):
    """df.write: append, or overwrite a table (emptied first, in its own
    transaction, as Spark's JDBC writer truncates)."""

    def __init__(self, options: Options, schema: StructType, overwrite: bool) -> None:
        self.target = Target.of(options, schema, "a write")
        self.writer = options.write_id or f"job-{uuid.uuid4()}"
        if overwrite:
            self._empty()

    def _empty(self) -> None:
        relation = self.target.relation
        if relation.is_stream:
            raise OptionError(f'mode "overwrite": "{relation.label}" is a stream, and streams '
                              'are append-only (use mode "append")')
        with self.target.options.endpoint.connect() as connection, connection.transaction():
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
        with self.target.options.endpoint.connect() as connection:
            ledger.finish_epoch(connection, self.target.relation, query, batchId)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        """The tasks that wrote keep their rows: Spark runs the micro-batch
        again and those tasks' keys skip them."""


def _query_of(messages: list[WriterCommitMessage | None]) -> str | None:
    for message in messages:
        if isinstance(message, Written):
            return message.writer
    return None
