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

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from catalog import errors
from catalog.schema import Column, Relation
from executor import codecs
from sqlext.session import copy_binary
from sqlext.session.portals import Portal, Prepared, keep_rows
from sqlext.sql import nodes as x
from sqlext.sql.parse import parse
from storage import sqlite
from wire.backend import CopyIn

if TYPE_CHECKING:
    from sqlext.session.engine_session import EngineSession

BATCH_ROWS = 5000
_TEXT_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_TEXT_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)")


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


FORMATS = ("text", "csv", "binary", "parquet")


def copy_kind(options: dict[str, object]) -> str:
    """The FORMAT option: text, csv, binary or parquet."""
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

def _unescape(match: re.Match[str]) -> str:
    token = match.group(1)
    if token[0] == "x" and len(token) > 1:
        return chr(int(token[1:], 16))
    if token[0] in "01234567":
        return chr(int(token, 8))
    return _TEXT_ESCAPES.get(token, token)


def parse_text_line(line: str, fmt: CopyFormat) -> list[str | None]:
    values: list[str | None] = []
    for raw in line.split(fmt.delimiter):
        if raw == fmt.null:
            values.append(None)
        else:
            values.append(_TEXT_ESCAPE.sub(_unescape, raw) if "\\" in raw else raw)
    return values


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
    """Receives CopyData, parses rows and inserts them in batches."""

    def __init__(self, session: EngineSession, prepared: Prepared, fmt: CopyFormat,
                 table: str, columns: list[str], decoders: list[Any]) -> None:
        self.session = session
        self.prepared = prepared
        self.fmt = fmt
        self.table = table
        self.columns = columns
        self.decoders = decoders
        self.pending = ""
        self.rows: list[list[Any]] = []
        self.count = 0
        self.line = 0
        self.header_pending = fmt.header
        self.ended = False
        self.csv = CsvParser(fmt) if fmt.csv else None
        self.binary = copy_binary.BinaryRows(len(columns)) if fmt.binary else None

    def write(self, data: bytes) -> None:
        if self.binary is not None:
            self._binary_rows(data, final=False)
            return
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise errors.CharacterNotInRepertoire(
                'invalid byte sequence for encoding "UTF8"') from None
        self.pending += text
        self._consume(final=False)

    def finish(self) -> str:
        if self.binary is not None:
            self._binary_rows(b"", final=True)
        else:
            self._consume(final=True)
        self._flush()
        return f"COPY {self.count}"

    def abort(self, message: str) -> None:
        self.rows.clear()

    def _binary_rows(self, data: bytes, final: bool) -> None:
        assert self.binary is not None
        for values in self.binary.rows(data, final):
            self.line += 1
            self._add(values)
        if len(self.rows) >= BATCH_ROWS:
            self._flush()

    def _consume(self, final: bool) -> None:
        if self.ended:
            return
        if self.csv is not None:
            records, self.pending = self.csv.records(self.pending, final)
            for record in records:
                self._csv_record(record)
        else:
            lines = self.pending.split("\n")
            self.pending = lines.pop()
            if final and self.pending:
                lines.append(self.pending)
                self.pending = ""
            for line in lines:
                self._text_line(line.removesuffix("\r"))
        if len(self.rows) >= BATCH_ROWS:
            self._flush()

    def _text_line(self, line: str) -> None:
        if self.ended:
            return
        self.line += 1
        if line == "\\.":
            self.ended = True
            return
        if self.header_pending:
            self.header_pending = False
            return
        self._add(parse_text_line(line, self.fmt))

    def _csv_record(self, record: list[tuple[str, bool]]) -> None:
        self.line += 1
        if self.header_pending:
            self.header_pending = False
            return
        if len(record) == 1 and record[0] == ("\\.", False):
            self.ended = True
            return
        values: list[str | None] = []
        for index, (value, quoted) in enumerate(record):
            not_null = index < len(self.columns) and self.columns[index] in \
                self.fmt.force_not_null
            values.append(None if value == self.fmt.null and not quoted and not not_null
                          else value)
        self._add(values)

    def _add(self, values: Sequence[str | bytes | None]) -> None:
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
                exc.detail = where if self.binary else f'{where}: "{value}"'
                raise
        self.rows.append(row)

    def _flush(self) -> None:
        if not self.rows:
            return
        self.count += insert_rows(self.session, self.prepared, self.rows)
        self.rows = []


def insert_rows(session: EngineSession, prepared: Prepared, rows: list[list[Any]]) -> int:
    """Run the INSERT ``prepared`` once per row of parameters (COPY FROM,
    and its redo during recovery): how many rows it inserted (COPY ...
    WHERE skips some)."""
    executor = session.executor
    compiled = session.compiled(prepared)
    assert compiled is not None and compiled.plan is not None
    context = session.statement_context()
    executor.begin_statement(session.token, context, session.statement_timeout_ms)
    try:
        stored = executor.run_plan_many(compiled.plan, rows).rowcount
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
    or a query's rows, as stored values (each format encodes them itself)."""
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
    portal.encode = keep_rows
    portal.sends_messages = False
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
    decoder = codecs.binary_decoder if fmt.binary else codecs.text_decoder
    decoders = [decoder(c.type_oid, c.typmod, session.codec_settings) for c in target.types]
    return CopyFromSink(session, target.prepared, fmt, target.relation.name, target.columns,
                        decoders)


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
