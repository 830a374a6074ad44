"""Columns in Apache Arrow's form: COPY ... TO STDOUT / FROM STDIN (FORMAT
arrow), and the batches Parquet files are written from and read into.

A client that works in columns (pyarrow, pandas, Spark's Python data
sources) gets a query's rows as one Arrow IPC stream (a schema, then a
record batch per chunk of rows, then the end-of-stream marker) in the
CopyData messages of COPY ... TO STDOUT, and sends a table's rows the same
way to COPY ... FROM STDIN: typed columns, no text to print or parse. The
types are those of Parquet export (``executor.values.arrow``): numeric(p,s)
is decimal128(p,s), timestamps are microseconds (with UTC for timestamptz),
arrays are lists. Columns coming in are matched by name, as Parquet's are.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING, Any, Final

import pyarrow as pa
from sqlglot import exp

from catalog import errors
from executor.values import arrow, arrow_in
from sqlext.session.copy_stdio import InsertTarget, insert_rows, insert_target, query_portal
from sqlext.session.portals import Portal, keep_rows
from sqlext.sql import nodes as x
from wire import messages
from wire.backend import CopyIn, CopyOut, Rows
from wire.column_rows import ColumnRows

if TYPE_CHECKING:
    from sqlext.session.engine_session import EngineSession

CHUNK_ROWS: Final = 65536
"""Rows per record batch (and per Parquet row group)."""
FIRST_ROWS: Final = 2000
"""Rows of the first batch of COPY TO STDOUT, read on the executor."""
_END_OF_STREAM: Final = b"\xff\xff\xff\xff\x00\x00\x00\x00"
_BINARY: Final = 1


def query_batches(session: EngineSession, source: exp.Expression, columns: list[str]
                  ) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
    """The schema of a query's (or a relation's) rows and their record
    batches, read as they are taken; the portal closes with the last one."""
    return portal_batches(session, query_portal(session, source, columns), CHUNK_ROWS)


def portal_batches(session: EngineSession, portal: Portal, first_rows: int
                   ) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
    """``query_batches`` of a portal not yet run; the first batch has at
    most ``first_rows`` rows."""
    described = portal.columns or ()
    schema = pa.schema([pa.field(c.name, arrow.arrow_type(c.type_oid, c.typmod))
                        for c in described])
    build = arrow.arrow_columns([(c.type_oid, c.typmod) for c in described])

    # The first chunk is read now: a query that must wait for the executor
    # waits here, where the statement can be tried again (WouldBlock); a
    # started portal reads on without waiting.
    outcome = session.run_portal(portal, first_rows, "SELECT", keep_rows)

    def batches() -> Iterator[pa.RecordBatch]:
        nonlocal outcome
        try:
            while True:
                if not isinstance(outcome, Rows):
                    raise errors.FeatureNotSupported("COPY (statement) TO needs a query")
                rows: list[Any] = list(chain.from_iterable(outcome.rows))
                if rows:
                    yield pa.RecordBatch.from_arrays(build(rows), schema=schema)
                if outcome.tag is not None:
                    return
                outcome = session.run_portal(portal, CHUNK_ROWS, "SELECT", keep_rows)
        finally:
            portal.close()

    return schema, batches()


def insert_batches(session: EngineSession, target: InsertTarget, names: Iterable[str],
                   batches: Iterable[pa.RecordBatch], source: str) -> int:
    """Insert record batches into ``target``'s columns, each found by name
    among ``names`` (the batches' columns); how many rows went in."""
    available = set(names)
    for column in target.columns:
        if column not in available:
            raise errors.UndefinedColumn(
                f'column "{column}" of relation "{target.relation.name}" is not in {source}',
                hint="Columns are matched by name; list the columns to load, or rename "
                     "them in the data.")
    converters = [arrow_in.storage_column(c.type_oid, c.typmod, session.codec_settings)
                  for c in target.types]
    count = 0
    for batch in batches:
        values = []
        for column, convert in zip(target.types, converters, strict=True):
            try:
                values.append(convert(batch.column(column.name)))
            except errors.SqlError as exc:
                exc.detail = f"COPY {target.relation.name}, column {column.name}"
                raise
        count += insert_rows(session, target.prepared, ColumnRows(values, batch.num_rows))
    return count


def arrow_to_stdout(session: EngineSession, statement: x.CopyStatement) -> CopyOut:
    """COPY ... TO STDOUT (FORMAT arrow): an Arrow IPC stream. Its first
    batch is small: once it is out, the rest of a large query is made by a
    forked child (``snapshot_rows.HandedOver``)."""
    _check_options(statement)
    portal = query_portal(session, statement.this, list(statement.args.get("columns") or []))
    schema, batches = portal_batches(session, portal, FIRST_ROWS)
    count = 0

    def data() -> Iterator[bytes]:
        nonlocal count
        yield messages.copy_data(schema.serialize().to_pybytes())
        for batch in batches:
            count += batch.num_rows
            yield messages.copy_data(batch.serialize().to_pybytes())
        yield messages.copy_data(_END_OF_STREAM)

    stream = session.hand_over(portal, data(), lambda: f"COPY {count}")
    return CopyOut(stream, _BINARY, [_BINARY] * len(schema), stream.tag)


class ArrowSink:
    """COPY ... FROM STDIN (FORMAT arrow): the stream is read once it has
    all arrived (a record batch may span any number of CopyData messages)."""

    def __init__(self, session: EngineSession, target: InsertTarget) -> None:
        self.session = session
        self.target = target
        self.columns = target.columns
        self._data: list[bytes] = []

    def write(self, data: bytes) -> None:
        self._data.append(data)

    def finish(self) -> str:
        try:
            reader = pa.ipc.open_stream(pa.py_buffer(b"".join(self._data)))
            count = insert_batches(self.session, self.target, reader.schema.names, reader,
                                   "the Arrow stream")
        except pa.ArrowInvalid as exc:
            raise errors.BadCopyFileFormat(f"invalid Arrow IPC stream: {exc}") from exc
        return f"COPY {count}"

    def abort(self, message: str) -> None:
        self._data.clear()


def arrow_from_stdin(session: EngineSession, statement: x.CopyStatement) -> CopyIn:
    """COPY ... FROM STDIN (FORMAT arrow)."""
    _check_options(statement)
    if statement.args.get("where") is not None:
        raise errors.FeatureNotSupported("COPY FROM (FORMAT arrow) does not take WHERE")
    target = insert_target(session, statement.this, list(statement.args.get("columns") or []))
    return CopyIn(ArrowSink(session, target), _BINARY, [_BINARY] * len(target.columns))


def _check_options(statement: x.CopyStatement) -> None:
    options = statement.args.get("options") or {}
    others = sorted(name for name in options if name != "format")
    if others:
        raise errors.FeatureNotSupported(
            f"COPY FORMAT arrow takes no other options ({', '.join(others)} given)")
