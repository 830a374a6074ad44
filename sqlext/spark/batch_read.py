"""spark.read.format("sqlext"): a table, stream or query read in partitions
that all see one snapshot.

The driver plans the partitions (ranges of ``partitionColumn``, of the
primary key, or of batch ids for a stream) and exports a snapshot
(``sqlext_export_snapshot()``); each task opens its own connection, joins
that snapshot (``SET TRANSACTION SNAPSHOT``) and reads its range with
``COPY (...) TO STDOUT (FORMAT arrow)``, which the server answers from a
forked copy of the snapshot, so partitions read in parallel and never wait
for writers (nor writers for them), and none sees half of a batch's
dataflow.

Spark's filters are not pushed into sqlext: PySpark 4.3 reuses the reader
a query pushed filters into for the next query on the same DataFrame that
pushes none (``df.filter(...).count()`` then ``df.count()`` would count the
filtered rows). A ``query`` option is the way to have sqlext filter.

Spark plans a read once and may run it several times (every action on the
DataFrame, a retried task), so the snapshot is not released after one
pass: it goes when it has been unused for ``snapshotIdleTimeout`` seconds
(default 60), after which the DataFrame must be loaded again.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
import pyarrow as pa
from psycopg import sql
from pyspark.sql.datasource import DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from sqlext.spark.arrow_copy import read_batches
from sqlext.spark.catalog_lookup import Relation, batch_span, find, partition_key, primary_key
from sqlext.spark.endpoint import READ_TASK, Endpoint
from sqlext.spark.options import Options
from sqlext.spark.problems import OptionError, SqlextError
from sqlext.spark.spark_types import arrow_schema, conformed

BATCH_ID = "batch_id"
_INVALID_SNAPSHOT = "22023"


@dataclass(frozen=True, slots=True)
class Source:
    """What a read selects from: a relation (with batch_id for a stream) or
    a query."""

    relation: Relation | None
    query: str | None

    @classmethod
    def of(cls, connection: psycopg.Connection, options: Options) -> Source:
        if options.query is not None:
            return cls(None, options.query)
        name = options.table or options.stream
        assert name is not None
        relation = find(connection, name)
        if options.stream is not None and not relation.is_stream:
            raise OptionError(f'option "stream": "{name}" is a table, not a stream '
                              '(read it with option "table")')
        return cls(relation, None)

    def select(self, condition: sql.Composable | None = None) -> sql.Composable:
        """The rows (those meeting ``condition``). A relation is selected
        from directly: sqlext reads a derived table several times slower."""
        columns = sql.SQL("*, {}").format(sql.Identifier(BATCH_ID)) if (
            self.relation is not None and self.relation.is_stream) else sql.SQL("*")
        query = sql.SQL("SELECT {} FROM {}").format(columns, self.from_clause())
        return query if condition is None else sql.SQL("{} WHERE {}").format(query, condition)

    def from_clause(self) -> sql.Composable:
        if self.relation is None:
            return sql.SQL("({}) AS q").format(sql.SQL(self.query))  # type: ignore[arg-type]
        return self.relation.identifier


@dataclass(frozen=True, slots=True)
class Range(InputPartition):
    """One partition: the rows of node ``node`` whose ``column`` is in
    [low, high) (an open end where None; the first range also takes NULLs)."""

    node: int
    source: Source
    column: str | None
    low: Any
    high: Any
    first: bool
    snapshot: str | None

    def condition(self) -> sql.Composable | None:
        if self.column is None:
            return None
        column = sql.Identifier(self.column)
        parts: list[sql.Composable] = []
        if self.low is not None:
            parts.append(sql.SQL("{} >= {}").format(column, sql.Literal(self.low)))
        if self.high is not None:
            parts.append(sql.SQL("{} < {}").format(column, sql.Literal(self.high)))
        if not parts:
            return None
        both = sql.SQL(" AND ").join(parts)
        return sql.SQL("({} OR {} IS NULL)").format(both, column) if self.first else both


class BatchReader(DataSourceReader):
    def __init__(self, options: Options, schema: StructType) -> None:
        self.options = options
        self.arrow = arrow_schema(schema)

    def partitions(self) -> Sequence[InputPartition]:
        """Each node's partitions, planned on that node; a replicated table
        or stream is read from node 0 alone."""
        options = self.options
        with options.catalog_node.connect() as connection:
            source = Source.of(connection, options)
            replicated = source.relation is not None and (
                partition_key(connection, source.relation) is None)
        nodes = options.nodes[:1] if replicated else options.nodes
        return [partition for node in nodes for partition in _plan(node, source, options)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, Range)
        with self.options.nodes[partition.node].connect(READ_TASK) as connection:
            if partition.snapshot is not None:
                _join(connection, partition.snapshot, self.options)
            for batch in read_batches(connection,
                                      partition.source.select(partition.condition())):
                yield conformed(batch, self.arrow)
            if partition.snapshot is not None:
                connection.execute("COMMIT")


def _plan(endpoint: Endpoint, source: Source, options: Options) -> list[Range]:
    """One node's partitions, all reading one snapshot the node exports."""
    index = endpoint.node.partition
    with endpoint.connect() as connection:
        column, bounds = _split(connection, source, options)
        if not bounds:
            return [Range(index, source, None, None, None, True, None)]
        snapshot = connection.execute("SELECT sqlext_export_snapshot(%s)",
                                      (options.snapshot_idle_s,)).fetchone()[0]
    edges = [None, *bounds, None]
    return [Range(index, source, column, low, high, number == 0, snapshot)
            for number, (low, high) in enumerate(itertools.pairwise(edges))]


def _join(connection: psycopg.Connection, snapshot: str, options: Options) -> None:
    """Read the snapshot the driver exported for this DataFrame."""
    connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
    try:
        connection.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot)))
    except psycopg.errors.InvalidParameterValue:
        raise SqlextError(_INVALID_SNAPSHOT, f"the snapshot this DataFrame reads ({snapshot}) is "
                          f"gone: it was unused for snapshotIdleTimeout "
                          f"({options.snapshot_idle_s:g} s)",
                          hint="Load the DataFrame again, or give a longer "
                               "snapshotIdleTimeout.") from None


def _split(connection: psycopg.Connection, source: Source, options: Options
           ) -> tuple[str | None, list[Any]]:
    """The column a read is split on and the values where its ranges meet
    (none: one partition)."""
    if options.partitions < 2:
        return None, []
    column = options.partition_column
    if column is not None and options.lower_bound is not None and (
            options.upper_bound is not None):
        return column, _strides(options)
    if column is None and source.relation is not None:
        column = BATCH_ID if source.relation.is_stream else primary_key(connection,
                                                                        source.relation)
    if column is None:
        return None, []
    if source.relation is not None and source.relation.is_stream and column == BATCH_ID:
        return column, _batch_ranges(connection, source.relation, options.partitions)
    return column, _quantiles(connection, source, column, options.partitions)


def _strides(options: Options) -> list[Any]:
    """Spark JDBC's split: equal strides between lowerBound and upperBound."""
    assert options.lower_bound is not None and options.upper_bound is not None
    try:
        low, high = int(options.lower_bound), int(options.upper_bound)
    except ValueError:
        raise OptionError('options "lowerBound" and "upperBound" must be integers') from None
    if high <= low:
        raise OptionError('option "upperBound" must be greater than "lowerBound"')
    count = min(options.partitions, high - low)
    return sorted({low + (high - low) * k // count for k in range(1, count)})


def _batch_ranges(connection: psycopg.Connection, stream: Relation, count: int) -> list[int]:
    first, last = batch_span(connection, stream)
    if first is None or last <= first:
        return []
    return sorted({first + (last + 1 - first) * k // count for k in range(1, count)})


def _quantiles(connection: psycopg.Connection, source: Source, column: str, count: int
               ) -> list[Any]:
    """Values of ``column`` that split the rows into ``count`` ranges of
    about equal size."""
    rows = connection.execute(sql.SQL("SELECT count({}) FROM {}").format(
        sql.Identifier(column), source.from_clause())).fetchone()
    total = int(rows[0]) if rows else 0
    bounds = []
    for k in range(1, count):
        found = connection.execute(sql.SQL(
            "SELECT {} FROM {} WHERE {} IS NOT NULL ORDER BY {} LIMIT 1 OFFSET {}").format(
            sql.Identifier(column), source.from_clause(), sql.Identifier(column),
            sql.Identifier(column), sql.Literal(total * k // count))).fetchone()
        if found is not None:
            bounds.append(found[0])
    return sorted(set(bounds))


def schema_source(connection: psycopg.Connection, options: Options) -> sql.Composable:
    """The query whose columns a read's schema is."""
    return Source.of(connection, options).select()
