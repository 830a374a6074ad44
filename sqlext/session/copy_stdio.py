"""COPY ... FROM STDIN and COPY ... TO STDOUT, in text, CSV and binary
formats, and what COPY to and from server files (sqlext.session.copy_files)
shares with them.

Incoming data is parsed as it arrives (CopyData messages may split lines
anywhere) and inserted in batches through an ordinary prepared INSERT, so
column defaults, type input functions and constraints apply exactly as for
INSERT. Outgoing rows use the types' text (or binary) output functions, one
CopyData per row, as PostgreSQL sends them; the per-row formatting here is
the reference that ``copy_out`` follows for large chunks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from catalog import errors
from catalog.schema import Column, Relation
from executor import codecs
from executor.codecs.base import decode_utf8
from sqlext.session import copy_binary
from sqlext.session.copy_fields import FieldReader
from sqlext.session.portals import Portal, Prepared
from sqlext.sql import nodes as x
from sqlext.sql.parse import parse
from storage import sqlite
from wire.backend import CopyIn
from wire.column_rows import ColumnRows

if TYPE_CHECKING:
    from sqlext.session.engine_session import EngineSession

BATCH_ROWS = 5000
CHUNK_BYTES = 1 << 16
"""COPY FROM reads text and CSV data in chunks of whole lines of about this size."""


@dataclass(frozen=True, slots=True)
class CopyFormat:
    csv: bool
    binary: bool
    delimiter: str
    null: str
    quote: str
    escape: str
    header: bool
    force_quote: tuple[str, ...] | str
    force_not_null: tuple[str, ...]


def _single_char(value: object, what: str) -> str:
    text = str(value)
    if len(text) != 1:
        raise errors.FeatureNotSupported(f"COPY {what} must be a single one-byte character")
    return text


FORMATS = ("text", "csv", "binary", "parquet", "arrow")


def copy_kind(options: dict[str, object]) -> str:
    """The FORMAT option: text, csv, binary, parquet or arrow."""
    kind = str(options.get("format", "text")).lower()
    if kind not in FORMATS:
        raise errors.InvalidParameterValue(f'COPY format "{kind}" not recognized')
    return kind


_CSV_ONLY = {"quote": "quote", "escape": "escape", "force_quote": "force quote",
             "force_not_null": "force not null"}


def _check_options(kind: str, options: dict[str, object]) -> None:
    """The options a format refuses, as PostgreSQL's ProcessCopyOptions
    refuses them (in its order)."""
    if kind == "binary":
        for option in ("delimiter", "null"):
            if option in options:
                raise errors.SqlSyntaxError(f"cannot specify {option.upper()} in BINARY mode")
        if "header" in options:
            raise errors.FeatureNotSupported("cannot specify HEADER in BINARY mode")
    if kind != "csv":
        for option, name in _CSV_ONLY.items():
            if option in options:
                raise errors.FeatureNotSupported(f"COPY {name} available only in CSV mode")


def copy_format(options: dict[str, object]) -> CopyFormat:
    """The options of a text, CSV or binary COPY."""
    kind = copy_kind(options)
    _check_options(kind, options)
    csv = kind == "csv"
    delimiter = _single_char(options.get("delimiter", "," if csv else "\t"), "delimiter")
    quote = _single_char(options.get("quote", '"'), "quote")
    header_option = str(options.get("header", "false")).lower()
    force_quote = options.get("force_quote", ())
    return CopyFormat(
        csv=csv, binary=kind == "binary", delimiter=delimiter,
        null=str(options.get("null", "" if csv else "\\N")),
        quote=quote, escape=_single_char(options.get("escape", quote), "escape"),
        header=header_option in ("true", "on", "1", "match"),
        force_quote="*" if force_quote == "*" else tuple(force_quote),  # type: ignore[arg-type]
        force_not_null=tuple(options.get("force_not_null", ())),  # type: ignore[arg-type]
    )


# --- parsing -------------------------------------------------------------------------

class CsvParser:
    """PostgreSQL's CSV dialect: an unquoted empty field is NULL (the NULL
    string), a quoted one is an empty string; quoted fields may hold
    delimiters and newlines."""

    def __init__(self, fmt: CopyFormat) -> None:
        self.fmt = fmt

    def records(self, text: str, final: bool) -> tuple[list[list[tuple[str, bool]]], str]:
        """Complete records in ``text`` and the unconsumed rest."""
        fmt = self.fmt
        records: list[list[tuple[str, bool]]] = []
        fields: list[tuple[str, bool]] = []
        value: list[str] = []
        quoted = in_quotes = False
        start = position = 0
        length = len(text)
        while position < length:
            char = text[position]
            if in_quotes:
                following = text[position + 1] if position + 1 < length else ""
                if fmt.escape != fmt.quote and char == fmt.escape and following in (
                    fmt.quote, fmt.escape
                ):
                    value.append(following)
                    position += 2
                    continue
                if char == fmt.quote:
                    if fmt.escape == fmt.quote and following == fmt.quote:
                        value.append(fmt.quote)
                        position += 2
                        continue
                    if not following and not final:
                        break  # a doubled quote may continue in the next chunk
                    in_quotes = False
                else:
                    value.append(char)
                position += 1
                continue
            if char == fmt.quote:
                in_quotes = quoted = True
            elif char == fmt.delimiter:
                fields.append(("".join(value), quoted))
                value, quoted = [], False
            elif char in "\r\n":
                if char == "\r" and position + 1 < length and text[position + 1] == "\n":
                    position += 1
                fields.append(("".join(value), quoted))
                records.append(fields)
                fields, value, quoted = [], [], False
                start = position + 1
            else:
                value.append(char)
            position += 1
        if final and (fields or value or quoted) and start < length:
            if in_quotes:
                raise errors.BadCopyFileFormat("unterminated CSV quoted field")
            fields.append(("".join(value), quoted))
            records.append(fields)
            start = length
        return records, text[start:]


# --- COPY FROM STDIN -----------------------------------------------------------------

class CopyFromSink:
    """Receives CopyData, parses rows and inserts them in batches.

    Text and CSV data is read in chunks of whole lines; a chunk's fields are
    decoded a column at a time (``FieldReader.columns`` and the types'
    column decoders). A chunk that way refuses or that fails to decode is
    read again line by line and value by value, the reference, which names
    the line and column of an error as PostgreSQL does."""

    def __init__(self, session: EngineSession, prepared: Prepared, fmt: CopyFormat,
                 table: str, columns: list[Column], decoders: list[codecs.BinDecoder],
                 column_decoders: list[codecs.ColumnDecoder]) -> None:
        self.session = session
        self.prepared = prepared
        self.fmt = fmt
        self.table = table
        self.columns = [column.name for column in columns]
        self.decoders = decoders
        """Each column's input function, from its field's bytes."""
        self.column_decoders = column_decoders
        self.pending = bytearray()
        self.rows = ColumnRows.empty(len(columns))
        self.count = 0
        self.line = 0
        self.header_pending = fmt.header
        self.ended = False
        self.fields = FieldReader(fmt.delimiter, fmt.null, len(columns),
                                  [c in fmt.force_not_null for c in self.columns])
        self.csv = CsvParser(fmt) if fmt.csv else None
        self.binary = copy_binary.BinaryRows(
            len(columns), [copy_binary.binary_size(c.type_oid) for c in columns]
        ) if fmt.binary else None

    def write(self, data: bytes) -> None:
        if self.binary is not None:
            self._binary_rows(data, final=False)
            return
        for start in range(0, len(data), CHUNK_BYTES):
            self.pending += data[start:start + CHUNK_BYTES]
            if len(self.pending) >= CHUNK_BYTES:
                self._consume(final=False)

    def finish(self) -> str:
        if self.binary is not None:
            self._binary_rows(b"", final=True)
        else:
            self._consume(final=True)
        self._flush()
        return f"COPY {self.count}"

    def abort(self, message: str) -> None:
        self.rows = ColumnRows.empty(len(self.columns))

    def _binary_rows(self, data: bytes, final: bool) -> None:
        assert self.binary is not None
        fields, count = self.binary.rows(data, final)
        width = len(self.columns)
        if not self._add_columns([fields[index::width] for index in range(width)], count):
            for row in range(count):
                self.line += 1
                self._add(fields[row * width:(row + 1) * width])
        if self.rows.count >= BATCH_ROWS:
            self._flush()

    def _consume(self, final: bool) -> None:
        """Reads the whole lines pending (at the end: all that is pending)."""
        if self.ended:
            self.pending.clear()
            return
        end = len(self.pending) if final else self._lines_end()
        chunk = bytes(self.pending[:end])
        del self.pending[:end]
        if self.csv is not None:
            self._csv_chunk(chunk, final)
        else:
            self._text_chunk(chunk)
        if self.rows.count >= BATCH_ROWS:
            self._flush()

    def _lines_end(self) -> int:
        """Where the last whole line pending ends (a text-format newline
        after a backslash does not end its line)."""
        pending = self.pending
        end = pending.rfind(b"\n")
        while self.csv is None and end > 0 and pending[end - 1] == 0x5C:
            start = end - 1
            while start > 0 and pending[start - 1] == 0x5C:
                start -= 1
            if (end - start) % 2 == 0:
                break
            end = pending.rfind(b"\n", 0, start)
        return end + 1

    def _plain(self, chunk: bytes) -> bytes | None:
        """The chunk as the column-at-a-time reading takes it (ending with a
        newline, lines ending with a newline only), if it can: UTF-8 without
        NUL, no header to skip, no end marker, no lone carriage return, no
        escaped line end, no CSV quote (None otherwise)."""
        if self.header_pending or b"\x00" in chunk or not chunk:
            return None
        if not chunk.isascii():
            try:
                chunk.decode()
            except UnicodeDecodeError:
                return None
        if not chunk.endswith(b"\n"):
            chunk += b"\n"
        if b"\r" in chunk:
            chunk = chunk.replace(b"\r\n", b"\n")
            if b"\r" in chunk:
                return None
        if (b"\\\n" in chunk or chunk.startswith(b"\\.\n") or b"\n\\.\n" in chunk
                or (self.csv is not None and self.fmt.quote.encode() in chunk)):
            return None
        return chunk

    def _columns(self, chunk: bytes) -> bool:
        """Adds the rows of a chunk read column by column, if it can."""
        plain = self._plain(chunk)
        if plain is None:
            return False
        try:
            read = self.fields.columns(plain, csv=self.csv is not None)
        except errors.SqlError:
            return False  # an escape making a bad byte: the line's error
        return read is not None and self._add_columns(*read)

    def _text_chunk(self, chunk: bytes) -> None:
        if self._columns(chunk):
            return
        lines = self.fields.lines(chunk)
        if lines[-1] == b"":
            lines.pop()
        for line in lines:
            self._text_line(line.removesuffix(b"\r"))

    def _csv_chunk(self, chunk: bytes, final: bool) -> None:
        assert self.csv is not None
        if self._columns(chunk):
            return
        records, rest = self.csv.records(self._utf8(chunk), final)
        self.pending[:0] = rest.encode()  # a quoted field going on in the next chunk
        for record in records:
            self._csv_record(record)

    def _utf8(self, chunk: bytes) -> str:
        """The chunk as text; an invalid byte sequence is an error of its line."""
        if chunk.isascii() and b"\x00" not in chunk:
            return chunk.decode("ascii")
        for number, line in enumerate(chunk.split(b"\n"), self.line + 1):
            self._check_utf8(line, number)
        return chunk.decode()

    def _check_utf8(self, line: bytes, number: int) -> None:
        if not line.isascii() or b"\x00" in line:
            try:
                decode_utf8(line)
            except errors.SqlError as exc:
                exc.detail = f"COPY {self.table}, line {number}"
                raise

    def _add_columns(self, columns: list[Sequence[bytes | None]], count: int) -> bool:
        """Adds the rows of ``count`` lines given as columns of fields, if
        every column decodes as a whole (else the caller reads them line by
        line)."""
        try:
            values = [decode(column) for decode, column in zip(
                self.column_decoders, columns, strict=True)]
        except Exception:
            return False  # the reference, value by value, says what is wrong
        self.rows.extend(values, count)
        self.line += count
        return True

    def _text_line(self, line: bytes) -> None:
        if self.ended:
            return
        self.line += 1
        if line == b"\\.":
            self.ended = True
            return
        if self.header_pending:
            self.header_pending = False
            return
        self._check_utf8(line, self.line)
        try:
            values = self.fields.fields(line)
        except errors.SqlError as exc:
            exc.detail = f"COPY {self.table}, line {self.line}"
            raise
        self._add(values)

    def _csv_record(self, record: list[tuple[str, bool]]) -> None:
        if self.ended:
            return
        # PostgreSQL counts the lines of quoted values too
        self.line += 1 + sum(value.count("\n") for value, quoted in record if quoted)
        if self.header_pending:
            self.header_pending = False
            return
        if len(record) == 1 and record[0] == ("\\.", False):
            self.ended = True
            return
        values: list[bytes | None] = []
        for index, (value, quoted) in enumerate(record):
            not_null = index < len(self.columns) and self.columns[index] in \
                self.fmt.force_not_null
            values.append(None if value == self.fmt.null and not quoted and not not_null
                          else value.encode())
        self._add(values)

    def _add(self, values: Sequence[bytes | None]) -> None:
        # PostgreSQL's order: extra fields first, then column by column, so a
        # bad value before the missing fields is what is reported.
        if len(values) > len(self.columns):
            raise errors.BadCopyFileFormat("extra data after last expected column",
                                           detail=f"COPY {self.table}, line {self.line}")
        row: list[Any] = []
        for index, (column, decoder) in enumerate(zip(self.columns, self.decoders, strict=True)):
            if index == len(values):
                raise errors.BadCopyFileFormat(
                    f"missing data for column \"{column}\"",
                    detail=f"COPY {self.table}, line {self.line}")
            value = values[index]
            if value is None:
                row.append(None)
                continue
            try:
                row.append(decoder(value))
            except errors.SqlError as exc:
                where = f"COPY {self.table}, line {self.line}, column {column}"
                exc.detail = where if self.binary else f'{where}: "{value.decode()}"'
                raise
        self.rows.append(row)

    def _flush(self) -> None:
        if not self.rows.count:
            return
        self.count += insert_rows(self.session, self.prepared, self.rows)
        self.rows = ColumnRows.empty(len(self.columns))


def insert_rows(session: EngineSession, prepared: Prepared,
                rows: Sequence[Sequence[Any]]) -> int:
    """Run the INSERT ``prepared`` once per row of parameters (COPY FROM,
    and its redo during recovery): how many rows it inserted (COPY ...
    WHERE skips some)."""
    executor = session.executor
    compiled = session.compiled(prepared)
    assert compiled is not None and compiled.plan is not None
    context = session.statement_context()
    executor.begin_statement(session.token, context, session.statement_timeout_ms)
    try:
        stored = executor.run_plan_many(compiled.plan, rows)
        # a stream's windows and EE triggers see COPY like an INSERT
        session.host.dataflow.after_insert(compiled.plan, stored, session.compile_context(),
                                             session.token)
        session.note(prepared, rows, many=True)
    except sqlite.Error as exc:
        raise executor.translate_error(exc, session.token, compiled.plan.target,
                                       "INSERT") from exc
    finally:
        executor.end_statement()
    if context.definitions:  # rows for sqlext.dataflow, which SQLite does not count
        session.run_definitions(context.definitions)
        return len(context.definitions)
    return stored


# --- COPY TO STDOUT ------------------------------------------------------------------

def _escape_text(value: str, delimiter: str) -> str:
    if not any(c in value for c in ("\\", "\n", "\r", "\t", delimiter)):
        return value
    escaped = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    escaped = escaped.replace("\t", "\\t")
    if delimiter != "\t":
        escaped = escaped.replace(delimiter, "\\" + delimiter)
    return escaped


def _csv_field(value: str, fmt: CopyFormat, force: bool, alone: bool) -> str:
    """A CSV field, quoted when it must be; ``alone``: the only one of its
    line, where the end-of-data marker \\. would be taken as such."""
    needs = force or value == fmt.null or any(
        c in value for c in (fmt.delimiter, fmt.quote, "\n", "\r")) or (
        alone and value == "\\.")
    if not needs:
        return value
    doubled = value.replace(fmt.escape, fmt.escape * 2) if fmt.escape != fmt.quote else value
    doubled = doubled.replace(fmt.quote, fmt.escape + fmt.quote)
    return f"{fmt.quote}{doubled}{fmt.quote}"


def header_line(names: list[str], fmt: CopyFormat) -> bytes:
    """The HEADER line of a text or CSV COPY ... TO."""
    if fmt.csv:
        alone = len(names) == 1
        return (fmt.delimiter.join(_csv_field(n, fmt, False, alone) for n in names)
                + "\n").encode()
    return (fmt.delimiter.join(names) + "\n").encode()


def forced_quotes(names: list[str], fmt: CopyFormat) -> list[bool]:
    """Which columns FORCE_QUOTE names (CSV)."""
    return [fmt.force_quote == "*" or name in fmt.force_quote for name in names]


def format_rows(rows: Iterator[Sequence[bytes | None]], names: list[str],
                fmt: CopyFormat) -> Iterator[bytes]:
    """Text or CSV lines of rows of encoded values (with the header line if
    the format has one)."""
    if fmt.header:
        yield header_line(names, fmt)
    forced = forced_quotes(names, fmt)
    for row in rows:
        fields = []
        for value, force in zip(row, forced, strict=True):
            if value is None:
                fields.append(fmt.null)
            elif fmt.csv:
                fields.append(_csv_field(value.decode(), fmt, force, len(forced) == 1))
            else:
                fields.append(_escape_text(value.decode(), fmt.delimiter))
        yield (fmt.delimiter.join(fields) + "\n").encode()


# --- the two ends of a COPY ----------------------------------------------------------

def _quote(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect="postgres")


def query_portal(session: EngineSession, source: exp.Expression,
                 columns: list[str]) -> Portal:
    """A portal, not yet run, over what COPY ... TO reads: a table's columns
    or a query's rows, read as stored values (``run_portal`` with
    ``keep_rows``: each format encodes them itself)."""
    if isinstance(source, exp.Table):
        listed = ", ".join(_quote(c) for c in columns) if columns else "*"
        table = source.sql(dialect="postgres")
        sql = f"SELECT {listed} FROM {table}"
    else:
        sql = source.sql(dialect="sqlext")
    prepared = Prepared(sql, 0, session_parse(sql), ())
    portal = session.bind_prepared(prepared, [], [], [], "")
    if portal.compiled is None or portal.compiled.plan is None:
        raise errors.FeatureNotSupported("COPY (statement) TO needs a query")
    return portal


@dataclass(frozen=True, slots=True)
class InsertTarget:
    """Where COPY ... FROM puts rows: a relation's columns, through an INSERT."""

    relation: Relation
    types: list[Column]
    prepared: Prepared

    @property
    def columns(self) -> list[str]:
        return [column.name for column in self.types]


def insert_target(session: EngineSession, table: exp.Expression, columns: list[str],
                  where: exp.Expression | None = None) -> InsertTarget:
    """The INSERT that COPY ... FROM runs; waits for the executor (writes).
    With ``WHERE condition``, a row is inserted only where the condition
    holds; it sees the columns COPY fills."""
    if not isinstance(table, exp.Table):
        raise errors.SqlSyntaxError("COPY FROM needs a table")
    context = session.compile_context()
    relation = context.catalog.relation(table.name, table.db or None, context.search_path)
    if not columns:
        columns = [c.name for c in relation.columns]
    types = [relation.column(name) for name in columns]
    listed = ", ".join(_quote(c) for c in columns)
    if where is None:
        placeholders = ", ".join(f"${i + 1}" for i in range(len(columns)))
        rows = f"VALUES ({placeholders})"
    else:
        values = ", ".join(f"${i + 1} AS {_quote(c)}" for i, c in enumerate(columns))
        rows = (f"SELECT * FROM (SELECT {values}) AS {_quote(table.name)} "
                f"{where.sql(dialect='sqlext')}")
    # COPY writes identity columns too, as in PostgreSQL
    sql = (f"INSERT INTO {table.sql(dialect='postgres')} ({listed}) OVERRIDING SYSTEM VALUE "
           f"{rows}")
    prepared = Prepared(sql, 0, session_parse(sql), tuple(c.type_oid for c in types))
    session.acquire(True, command="COPY FROM")
    return InsertTarget(relation, types, prepared)


def copy_sink(session: EngineSession, table: exp.Expression, columns: list[str],
              fmt: CopyFormat, where: exp.Expression | None = None) -> CopyFromSink:
    """A sink that parses text, CSV or binary data and inserts its rows."""
    target = insert_target(session, table, columns, where)
    settings = session.codec_settings
    decoders = [codecs.binary_decoder(c.type_oid, c.typmod, settings) if fmt.binary
                else _from_utf8(codecs.text_decoder(c.type_oid, c.typmod, settings))
                for c in target.types]
    column_decoders = [codecs.column_decoder(c.type_oid, c.typmod, fmt.binary, settings)
                       for c in target.types]
    return CopyFromSink(session, target.prepared, fmt, target.relation.name, target.types,
                        decoders, column_decoders)


def _from_utf8(decode: codecs.Decoder) -> codecs.BinDecoder:
    """A text input function taking the field's bytes (checked UTF-8)."""
    return lambda data: decode(data.decode())


def stdio_format(statement: x.CopyStatement) -> CopyFormat:
    """The format of COPY ... FROM STDIN / TO STDOUT (Parquet is for files)."""
    options = statement.args.get("options") or {}
    if copy_kind(options) == "parquet":
        raise errors.FeatureNotSupported(
            "COPY FORMAT parquet works with files on the server, not STDIN or STDOUT",
            hint="COPY table TO 'file.parquet' (FORMAT parquet); the file lands in the "
                 "server's --copy-dir.")
    return copy_format(options)


def copy_from_stdin(session: EngineSession, statement: x.CopyStatement) -> CopyIn:
    """COPY ... FROM STDIN."""
    fmt = stdio_format(statement)
    columns: list[str] = list(statement.args.get("columns") or [])
    code = int(fmt.binary)
    sink = copy_sink(session, statement.this, columns, fmt, statement.args.get("where"))
    return CopyIn(sink, code, [code] * len(sink.columns))


def session_parse(sql: str) -> exp.Expression:
    return parse(sql).statements[0]
