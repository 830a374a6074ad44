"""COPY ... TO: a query's rows in text, CSV or binary, read and formatted a
chunk at a time while they are sent, never held whole.

A chunk is formatted value by value (``copy_stdio.format_rows``,
``copy_binary.encode_row``: the reference) when it is small, and column by
column with Arrow's kernels (``copy_columns``) when it is large. To STDOUT
every row is one CopyData message, as PostgreSQL sends them (psycopg's row
parsers rely on it); to a file the rows follow each other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from sqlext.session import copy_binary
from sqlext.session.copy_stdio import (
    CopyFormat,
    format_rows,
    header_line,
    query_portal,
    stdio_format,
)
from sqlext.session.portals import column_encoders, keep_rows, value_encoders
from sqlext.sql import nodes as x
from wire import messages
from wire.backend import CopyOut, Rows

if TYPE_CHECKING:
    from sqlext.session.engine_session import EngineSession


class CopyTo:
    """The output of one COPY ... TO, produced as its query is read."""

    def __init__(self, session: EngineSession, source: exp.Expression, columns: list[str],
                 fmt: CopyFormat) -> None:
        portal = self.portal = query_portal(session, source, columns)
        described = portal.columns or ()
        formats = [int(fmt.binary)] * len(described)
        self.width = len(described)
        self.count = 0
        """Rows produced so far (all of them once the output is consumed)."""
        self._fmt = fmt
        self._lines_format = dataclasses.replace(fmt, header=False)
        self._names = [c.name for c in described]
        self._encoders = value_encoders(described, formats, session.codec_settings)
        self._columns = [(itemgetter(index), encode) for index, encode in enumerate(
            column_encoders(described, formats, session.codec_settings))]
        self._outcome = session.run_portal(portal, 0, "SELECT", keep_rows)

    def messages(self) -> Iterator[bytes]:
        """CopyData messages, one a row, several to an item."""
        return self._output(framed=True)

    def data(self) -> Iterator[bytes]:
        """The output's bytes, for a file."""
        return self._output(framed=False)

    def _output(self, framed: bool) -> Iterator[bytes]:
        fmt = self._fmt
        frame: Callable[[bytes], bytes] = messages.copy_data if framed else bytes
        # binary COPY's header goes out with the first row, the text header alone
        first = copy_binary.HEADER if fmt.binary else b""
        if fmt.header and not fmt.binary:
            yield frame(header_line(self._names, fmt))
        outcome = self._outcome
        chunks: Iterator[list[Any]] = iter(outcome.rows) if isinstance(outcome, Rows) else (
            iter(()))
        for rows in chunks:
            if rows:
                self.count += len(rows)
                yield self._chunk(rows, first, framed)
                first = b""
        if isinstance(outcome, Rows) and outcome.finish is not None:
            outcome.finish()
        if fmt.binary:
            yield frame(first + copy_binary.TRAILER)

    def _chunk(self, rows: list[Any], first: bytes, framed: bool) -> bytes:
        """The lines of one chunk of rows; ``first`` goes before the first
        line, in the same message."""
        if len(rows) >= messages.BULK_ROWS:
            from sqlext.session import copy_columns  # Arrow, with the first large chunk

            columns = [encode(list(map(value, rows))) for value, encode in self._columns]
            return copy_columns.chunk(columns, len(rows), self._fmt, self._names, first,
                                      framed)
        encoded = ([None if value is None else encode(value)
                    for value, encode in zip(row, self._encoders, strict=False)]
                   for row in rows)
        lines = (map(copy_binary.encode_row, encoded) if self._fmt.binary
                 else format_rows(encoded, self._names, self._lines_format))
        lines = chain((first + next(lines),), lines)
        return b"".join(map(messages.copy_data, lines) if framed else lines)


def copy_to_stdout(session: EngineSession, statement: x.CopyStatement) -> CopyOut:
    """COPY ... TO STDOUT (the rest of a large query made by a forked child:
    ``snapshot_rows.HandedOver``)."""
    fmt = stdio_format(statement)
    output = CopyTo(session, statement.this, list(statement.args.get("columns") or []), fmt)
    code = int(fmt.binary)
    stream = session.hand_over(output.portal, output.messages(),
                               lambda: f"COPY {output.count}")
    return CopyOut(stream, code, [code] * output.width, stream.tag)
