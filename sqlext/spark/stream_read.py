"""spark.readStream.format("sqlext").option("stream", ...): a stream's
committed batches, each once, in batch-id order; the offsets are batch ids
(``{"batch_id": n}``: every batch up to n has been read).

The reader holds the stream (``sqlext_hold_stream``): the server keeps
every batch above the reader's committed offset, even ones the dataflow has
consumed, until Spark commits them, so a restarted query finds them all.
A query that starts below what the stream still holds is refused (55000),
never given a silent gap.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import psycopg
import pyarrow as pa
from psycopg import sql
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxFiles
from pyspark.sql.types import StructType

from sqlext.spark.arrow_copy import read_batches
from sqlext.spark.batch_read import BATCH_ID
from sqlext.spark.catalog_lookup import batch_span, find, last_batch
from sqlext.spark.endpoint import READ_TASK
from sqlext.spark.options import Options
from sqlext.spark.problems import OptionError, SqlextError
from sqlext.spark.spark_types import arrow_schema, conformed

_GONE = "55000"


@dataclass(frozen=True, slots=True)
class Batches(InputPartition):
    """The stream's batches with ids in (after, through]."""

    after: int
    through: int


class StreamReader(DataSourceStreamReader):
    def __init__(self, options: Options, schema: StructType) -> None:
        self.options = options
        self.arrow = arrow_schema(schema)
        name = options.relation("a streaming read")
        with options.endpoint.connect() as connection:
            self.stream = find(connection, name)
        if not self.stream.is_stream:
            raise OptionError(f'option "stream": "{name}" is a table, not a stream')

    def initialOffset(self) -> dict[str, int]:
        with self.options.endpoint.connect() as connection:
            for _attempt in range(3):
                after = self._start(connection)
                try:
                    self._hold(connection, after)
                except SqlextError as exc:
                    # 'earliest' raced the dataflow deleting its oldest batch
                    if exc.sqlstate != _GONE or self.options.starting_batch != "earliest":
                        raise
                    continue
                return {BATCH_ID: after}
        raise SqlextError(_GONE, f'stream "{self.stream.label}" lost its oldest batches '
                                 "while the reader was registering: try again")

    def latestOffset(self, start: dict[str, int], limit: ReadLimit) -> dict[str, int]:
        with self.options.endpoint.connect() as connection:
            latest = last_batch(connection, self.stream)
        if isinstance(limit, ReadMaxFiles):
            latest = min(latest, int(start[BATCH_ID]) + limit.max_files)
        return {BATCH_ID: max(latest, int(start[BATCH_ID]))}

    def getDefaultReadLimit(self) -> ReadLimit:
        """``maxBatchesPerTrigger``: batches play the part files play for
        Spark's file source."""
        if self.options.max_batches is None:
            return ReadAllAvailable()
        return ReadMaxFiles(self.options.max_batches)

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> Sequence[InputPartition]:
        after, through = int(start[BATCH_ID]), int(end[BATCH_ID])
        if through <= after:
            return []
        count = min(self.options.partitions, through - after)
        edges = [after + (through - after) * k // count for k in range(count + 1)]
        return [Batches(low, high) for low, high in itertools.pairwise(edges)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, Batches)
        column = sql.Identifier(BATCH_ID)
        query = sql.SQL("SELECT *, {} FROM {} WHERE {} > {} AND {} <= {} ORDER BY {}").format(
            column, self.stream.identifier, column, sql.Literal(partition.after), column,
            sql.Literal(partition.through), column)
        with self.options.endpoint.connect(READ_TASK) as connection:
            for batch in read_batches(connection, query):
                yield conformed(batch, self.arrow)

    def commit(self, end: dict[str, int]) -> None:
        with self.options.endpoint.connect() as connection:
            self._hold(connection, int(end[BATCH_ID]))

    def _start(self, connection: psycopg.Connection) -> int:
        """The offset a new query starts from."""
        starting = self.options.starting_batch
        if starting == "latest":
            return last_batch(connection, self.stream)
        if starting != "earliest":
            return int(starting) - 1
        oldest, last = batch_span(connection, self.stream)
        return last if oldest is None else oldest - 1

    def _hold(self, connection: psycopg.Connection, after: int) -> None:
        """The stream keeps every batch above ``after`` for this reader."""
        connection.execute("SELECT sqlext_hold_stream(%s, %s, %s)",
                           (self.stream.label, self.options.reader_name, after))
