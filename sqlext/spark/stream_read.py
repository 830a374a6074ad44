"""spark.readStream.format("sqlext").option("stream", ...): a stream's
committed batches, each once, in batch-id order on each node; the offsets
are each node's batch id (``{"nodes": [n0, n1, ...]}``: every batch of
node i up to ni has been read).

The reader holds the stream on each node (``sqlext_hold_stream``): a node
keeps every batch above the reader's committed offset, even ones the
dataflow has consumed, until Spark commits them, so a restarted query finds
them all. A query that starts below what the stream still holds is refused
(55000), never given a silent gap. A replicated stream is read from node 0.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import psycopg
import pyarrow as pa
from psycopg import sql
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxFiles
from pyspark.sql.types import StructType

from sqlext.spark.arrow_copy import read_batches
from sqlext.spark.batch_read import BATCH_ID
from sqlext.spark.catalog_lookup import batch_span, find, last_batch, partition_key
from sqlext.spark.endpoint import READ_TASK, Endpoint
from sqlext.spark.options import Options
from sqlext.spark.problems import OptionError, SqlextError
from sqlext.spark.spark_types import arrow_schema, conformed

_GONE: Final = "55000"
NODES: Final = "nodes"


@dataclass(frozen=True, slots=True)
class Batches(InputPartition):
    """Node ``node``'s batches of the stream with ids in (after, through]."""

    node: int
    after: int
    through: int


class StreamReader(DataSourceStreamReader):
    def __init__(self, options: Options, schema: StructType) -> None:
        self.options = options
        self.arrow = arrow_schema(schema)
        name = options.relation("a streaming read")
        with options.catalog_node.connect() as connection:
            self.stream = find(connection, name)
            if not self.stream.is_stream:
                raise OptionError(f'option "stream": "{name}" is a table, not a stream')
            replicated = partition_key(connection, self.stream) is None
        self.nodes = options.nodes[:1] if replicated else options.nodes
        """The nodes read: a replicated stream is read from node 0 alone."""

    def initialOffset(self) -> dict[str, list[int]]:
        return {NODES: [self._register(node) for node in self.nodes]}

    def latestOffset(self, start: dict[str, list[int]], limit: ReadLimit
                     ) -> dict[str, list[int]]:
        latest = []
        for node, after in zip(self.nodes, self._positions(start), strict=True):
            with node.connect() as connection:
                last = last_batch(connection, self.stream)
            if isinstance(limit, ReadMaxFiles):
                last = min(last, after + limit.max_files)
            latest.append(max(last, after))
        return {NODES: latest}

    def getDefaultReadLimit(self) -> ReadLimit:
        """``maxBatchesPerTrigger`` (of each node): batches play the part
        files play for Spark's file source."""
        if self.options.max_batches is None:
            return ReadAllAvailable()
        return ReadMaxFiles(self.options.max_batches)

    def partitions(self, start: dict[str, list[int]], end: dict[str, list[int]]
                   ) -> Sequence[InputPartition]:
        found: list[InputPartition] = []
        for node, after, through in zip(self.nodes, self._positions(start),
                                        self._positions(end), strict=True):
            if through <= after:
                continue
            count = min(self.options.partitions, through - after)
            edges = [after + (through - after) * k // count for k in range(count + 1)]
            found += [Batches(node.node.partition, low, high)
                      for low, high in itertools.pairwise(edges)]
        return found

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, Batches)
        column = sql.Identifier(BATCH_ID)
        query = sql.SQL("SELECT *, {} FROM {} WHERE {} > {} AND {} <= {} ORDER BY {}").format(
            column, self.stream.identifier, column, sql.Literal(partition.after), column,
            sql.Literal(partition.through), column)
        with self.options.nodes[partition.node].connect(READ_TASK) as connection:
            for batch in read_batches(connection, query):
                yield conformed(batch, self.arrow)

    def commit(self, end: dict[str, list[int]]) -> None:
        for node, after in zip(self.nodes, self._positions(end), strict=True):
            with node.connect() as connection:
                self._hold(connection, after)

    def _positions(self, offset: dict[str, list[int]]) -> list[int]:
        """Each node's batch id in ``offset``."""
        positions = offset[NODES]
        if len(positions) != len(self.nodes):
            raise OptionError(f"the streaming query's checkpoint holds offsets of "
                              f"{len(positions)} node(s), but it reads {len(self.nodes)}: a "
                              f"query keeps the nodes it started with")
        return [int(position) for position in positions]

    def _register(self, node: Endpoint) -> int:
        """Where a new query starts on ``node``, held there."""
        with node.connect() as connection:
            for _attempt in range(3):
                after = self._start(connection)
                try:
                    self._hold(connection, after)
                except SqlextError as exc:
                    # 'earliest' raced the dataflow deleting its oldest batch
                    if exc.sqlstate != _GONE or self.options.starting_batch != "earliest":
                        raise
                    continue
                return after
        raise SqlextError(_GONE, f'stream "{self.stream.label}" lost its oldest batches on '
                                 f"{node.node} while the reader was registering: try again")

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
