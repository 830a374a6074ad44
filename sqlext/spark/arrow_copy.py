"""Rows in Arrow's form over COPY: ``COPY (query) TO STDOUT (FORMAT arrow)``
read as record batches while they arrive, and record batches sent with
``COPY target (columns) FROM STDIN (FORMAT arrow)``."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pyarrow as pa
from psycopg import sql


class _CopyReader(io.RawIOBase):
    """COPY TO's data as a file Arrow's stream reader reads from."""

    def __init__(self, chunks: Iterator[memoryview]) -> None:
        self._chunks = chunks
        self._pending = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._pending:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._pending = memoryview(chunk)
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


def read_batches(connection: psycopg.Connection, query: sql.Composable
                 ) -> Iterator[pa.RecordBatch]:
    """The record batches of ``query``'s rows, each as it arrives."""
    statement = sql.SQL("COPY ({}) TO STDOUT (FORMAT arrow)").format(query)
    with connection.cursor() as cursor, cursor.copy(statement) as copy:
        chunks = iter(copy)
        yield from pa.ipc.open_stream(io.BufferedReader(_CopyReader(chunks), 1 << 20))
        for _rest in chunks:  # the end of the COPY, after Arrow's end-of-stream marker
            pass


def read_schema(connection: psycopg.Connection, query: sql.Composable) -> pa.Schema:
    """The schema of ``query``'s rows (the query should return none)."""
    statement = sql.SQL("COPY ({}) TO STDOUT (FORMAT arrow)").format(query)
    with connection.cursor() as cursor, cursor.copy(statement) as copy:
        data = b"".join(bytes(chunk) for chunk in copy)
    return pa.ipc.open_stream(pa.py_buffer(data)).schema


class _CopySink:
    """An Arrow output stream whose bytes go out as COPY FROM's data."""

    def __init__(self, copy: psycopg.Copy) -> None:
        self._copy = copy
        self.closed = False

    def write(self, data: bytes) -> int:
        self._copy.write(data)
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


@contextmanager
def copy_in(cursor: psycopg.Cursor, target: sql.Composable, schema: pa.Schema
            ) -> Iterator[pa.ipc.RecordBatchStreamWriter]:
    """``COPY target (columns) FROM STDIN (FORMAT arrow)`` (columns by
    name): the batches written to the writer it gives go in, once it ends."""
    columns = sql.SQL(", ").join(sql.Identifier(name) for name in schema.names)
    statement = sql.SQL("COPY {} ({}) FROM STDIN (FORMAT arrow)").format(target, columns)
    with cursor.copy(statement) as copy, pa.ipc.new_stream(_CopySink(copy), schema) as writer:
        yield writer
