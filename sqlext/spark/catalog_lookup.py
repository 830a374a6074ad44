"""What the data source learns from sqlext's catalog: the relation an
option names, its primary key, its partition key, whether it is a stream
(and its batch column), and a query's exact column types."""

from __future__ import annotations

from dataclasses import dataclass

import psycopg
import pyarrow as pa
from psycopg import sql

from sqlext.spark.arrow_copy import read_schema
from sqlext.spark.problems import SqlextError

_FIND = """
SELECT c.oid, n.nspname, c.relname, s.name IS NOT NULL, s.batch_column
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN sqlext_streams s ON s.schema = n.nspname AND s.name = c.relname
WHERE c.oid = to_regclass(%s)"""
_PRIMARY_KEY = """
SELECT a.attname FROM pg_index i
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
WHERE i.indrelid = to_regclass(%s) AND i.indisprimary"""
_PARTITION_KEY = """
SELECT a.attname, a.atttypid FROM pg_partitioned_table p
JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
WHERE p.partrelid = to_regclass(%s)"""


@dataclass(frozen=True, slots=True)
class Relation:
    oid: int
    schema: str
    name: str
    is_stream: bool
    batch_column: str | None

    @property
    def identifier(self) -> sql.Composable:
        return sql.Identifier(self.schema, self.name)

    @property
    def label(self) -> str:
        return f"{self.schema}.{self.name}"

    @property
    def regclass(self) -> str:
        """The name as ``to_regclass`` reads it (quoted)."""
        return ".".join('"' + part.replace('"', '""') + '"' for part in (self.schema, self.name))


@dataclass(frozen=True, slots=True)
class PartitionKey:
    """The column a relation is hash-partitioned on (``PARTITION BY HASH``)."""

    column: str
    type_oid: int


def find(connection: psycopg.Connection, name: str) -> Relation:
    """The table or stream ``name`` denotes (as in SQL: on the search path,
    ``schema.name``, quoted where needed); 42P01 when there is none."""
    row = connection.execute(_FIND, (name,)).fetchone()
    if row is None:
        raise SqlextError("42P01", f'relation "{name}" does not exist')
    return Relation(int(row[0]), row[1], row[2], bool(row[3]), row[4])


def batch_span(connection: psycopg.Connection, stream: Relation) -> tuple[int | None, int]:
    """The lowest batch id ``stream`` holds (None: it holds none) and the
    highest committed to it (``sqlext_streams``)."""
    row = connection.execute("SELECT oldest_batch, last_batch FROM sqlext_streams "
                             "WHERE schema = %s AND name = %s",
                             (stream.schema, stream.name)).fetchone()
    if row is None:
        raise SqlextError("42P01", f'stream "{stream.label}" does not exist')
    return (None if row[0] is None else int(row[0])), int(row[1])


def last_batch(connection: psycopg.Connection, stream: Relation) -> int:
    """The highest batch id committed to ``stream``."""
    return batch_span(connection, stream)[1]


def primary_key(connection: psycopg.Connection, relation: Relation) -> str | None:
    """The (first) column of the relation's primary key, if it has one."""
    row = connection.execute(_PRIMARY_KEY, (relation.regclass,)).fetchone()
    return None if row is None else str(row[0])


def partition_key(connection: psycopg.Connection, relation: Relation) -> PartitionKey | None:
    """The relation's partition key; None when it has none, so that it is
    replicated (the same rows on every node)."""
    row = connection.execute(_PARTITION_KEY, (relation.regclass,)).fetchone()
    return None if row is None else PartitionKey(str(row[0]), int(row[1]))


def query_schema(connection: psycopg.Connection, query: sql.Composable) -> pa.Schema:
    """The Arrow schema of ``query``'s rows, exactly as sqlext types them."""
    empty = sql.SQL("SELECT * FROM ({}) AS q LIMIT 0").format(query)
    return read_schema(connection, empty)
