"""Prepared statements and portals of one session.

A ``Prepared`` is one statement of a Parse message or of a simple query; a
``Portal`` is a prepared statement bound to parameter values and result
formats, possibly part-way through its rows (a suspended portal or a SQL
cursor). Values are converted between the wire and storage forms here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sqlglot import exp

from catalog import errors
from catalog import types as t
from executor import codecs
from executor.core import LiveCursor
from executor.plans import OutputColumn, ParamType
from sqlext.compile.compiler import Compiled
from sqlext.session.cursor_motion import CursorMotion
from sqlext.session.snapshot_rows import ForkedRows
from wire.column_rows import ColumnRows
from wire.messages import Field, data_rows_encoder

RowEncoder = Callable[[list[Any]], Any]
"""A chunk of rows of stored values -> their DataRow messages (COPY TO and
FETCH keep the stored rows: they run their portals with ``keep_rows``)."""
ResultShape = tuple[tuple[str, int, int], ...]
"""A statement's result columns: names, types and typmods."""


@dataclass(slots=True)
class Prepared:
    sql: str
    index: int
    statement: exp.Expression | None
    """None for an empty query."""
    declared: tuple[int, ...]
    """Parameter type OIDs the client declared (0 = infer)."""
    compiled: Compiled | None = None
    compiled_for: tuple[object, ...] | None = None
    """(catalog version, search path, settings) ``compiled`` was made for."""
    part: str = ""
    """Names a statement nested in another (a cursor's query) for the plan cache."""
    result_shape: ResultShape | None = None
    """The result columns when first planned: a later plan must return the
    same (names, types, typmods), as PostgreSQL's cached plans must."""

    @property
    def source(self) -> tuple[str, int, str]:
        return self.sql, self.index, self.part


@dataclass(slots=True)
class Portal:
    prepared: Prepared
    compiled: Compiled | None
    params: list[Any]
    formats: list[int]
    encode: RowEncoder | None
    columns: tuple[OutputColumn, ...] | None
    cursor: LiveCursor | None = None
    started: bool = False
    done: bool = False
    holdable: bool = False
    motion: CursorMotion | None = None
    """A SQL cursor's position (DECLARE)."""
    deadline: float = 0.0
    """While its rows are sent: when statement_timeout ends the statement
    (time.monotonic(); 0 for none)."""
    extra: dict[str, Any] = field(default_factory=dict)
    snapshot: ForkedRows | None = None
    """Where the rest of its rows come from once a forked child reads them
    (``snapshot_rows``; ``cursor`` is then None)."""

    def close(self) -> None:
        """Its rows are no longer wanted."""
        if self.cursor is not None:
            self.cursor.close()
            self.cursor = None
        if self.snapshot is not None:
            self.snapshot.close()
            self.snapshot = None


def command_tag(verb: str, count: int) -> str:
    """PostgreSQL's CommandComplete tag (an INSERT's names OID 0)."""
    if verb == "INSERT":
        return f"INSERT 0 {count}"
    return f"{verb} {count}"


def result_shape(compiled: Compiled | None) -> ResultShape:
    return tuple((c.name, c.type_oid, c.typmod)
                 for c in (compiled.columns if compiled is not None else None) or ())


def check_result_shape(prepared: Prepared, compiled: Compiled) -> None:
    """A client's prepared statement planned anew (the schema changed) must
    still return the columns it returned. PostgreSQL refuses otherwise with
    this error, which asyncpg tells by its routine and answers by preparing
    the statement again."""
    if prepared.result_shape is not None and result_shape(compiled) != prepared.result_shape:
        raise errors.FeatureNotSupported("cached plan must not change result type",
                                         routine="RevalidateCachedQuery")


@functools.lru_cache(maxsize=1024)
def fields(columns: tuple[OutputColumn, ...] | None) -> list[Field] | None:
    if columns is None:
        return None
    return [Field(c.name, c.type_oid, t.type_size(c.type_oid), c.typmod, c.table_oid,
                  c.column_number) for c in columns]


def expand_formats(codes: Sequence[int], count: int, what: str) -> list[int]:
    if not codes:
        return [0] * count
    if len(codes) == 1:
        return [codes[0]] * count
    if len(codes) != count:
        raise errors.ProtocolViolation(
            f"bind message has {len(codes)} {what} formats but {count} {what}s")
    return list(codes)


def decode_params(types: Sequence[ParamType], formats: Sequence[int],
                  values: Sequence[bytes | None], settings: codecs.Settings,
                  statement_name: str) -> list[Any]:
    if len(values) != len(types):
        raise errors.ProtocolViolation(
            f'bind message supplies {len(values)} parameters, but prepared statement '
            f'"{statement_name}" requires {len(types)}')
    codes = expand_formats(formats, len(values), "parameter")
    decoders = _param_decoders(tuple(types), tuple(codes), settings)
    decoded: list[Any] = []
    for decoder, code, value in zip(decoders, codes, values, strict=True):
        if value is None:
            decoded.append(None)
        elif code == 0:
            try:
                text = value.decode("utf-8")
            except UnicodeDecodeError:
                raise errors.CharacterNotInRepertoire(
                    "invalid byte sequence for encoding \"UTF8\"") from None
            decoded.append(decoder(text))
        else:
            decoded.append(decoder(value))
    return decoded


def decode_param_rows(types: Sequence[ParamType], formats: Sequence[int],
                      rows: ColumnRows, settings: codecs.Settings, statement_name: str
                      ) -> tuple[Sequence[tuple[Any, ...]], errors.SqlError | None]:
    """The parameter values of many Binds of one statement, decoded a column
    at a time: the rows that decode, and the error of the first row that
    does not (exactly what ``decode_params`` says of it; the rows after it
    are left out)."""
    count = len(types)
    if len(rows.columns) == count:
        try:
            binary = expand_formats(formats, count, "parameter")
            decoders = _column_decoders(tuple(types), tuple(binary), settings)
            return ColumnRows([decoder(column) for decoder, column in zip(
                decoders, rows.columns, strict=True)], len(rows)), None
        except Exception:
            pass  # the row-by-row decoding below is the reference: it says what is wrong
    decoded: list[tuple[Any, ...]] = []
    for row in rows:
        try:
            decoded.append(tuple(decode_params(types, formats, row, settings, statement_name)))
        except errors.SqlError as exc:
            return decoded, exc
    return decoded, None


@functools.lru_cache(maxsize=1024)
def _column_decoders(types: tuple[ParamType, ...], codes: tuple[int, ...],
                     settings: codecs.Settings) -> list[codecs.ColumnDecoder]:
    return [codecs.column_decoder(p.oid, p.typmod, code == 1, settings)
            for p, code in zip(types, codes, strict=True)]


@functools.lru_cache(maxsize=1024)
def _param_decoders(types: tuple[ParamType, ...], codes: tuple[int, ...],
                    settings: codecs.Settings) -> list[Callable[[Any], Any]]:
    """Each parameter's input function in its format, built once per shape."""
    return [codecs.text_decoder(p.oid, p.typmod, settings) if code == 0
            else _binary_decoder(p, settings) for p, code in zip(types, codes, strict=True)]


def _binary_decoder(param: ParamType, settings: codecs.Settings) -> Callable[[bytes], Any]:
    """A type without binary input fails only when a value arrives (NULL is fine)."""
    try:
        return codecs.binary_decoder(param.oid, param.typmod, settings)
    except errors.FeatureNotSupported as exc:
        problem = exc

        def fail(_value: bytes) -> Any:
            raise problem

        return fail


def row_encoder(columns: Sequence[OutputColumn], formats: Sequence[int],
                settings: codecs.Settings) -> RowEncoder:
    return _row_encoder(tuple(columns), tuple(formats), settings)


@functools.lru_cache(maxsize=1024)
def _row_encoder(columns: tuple[OutputColumn, ...], formats: tuple[int, ...],
                 settings: codecs.Settings) -> RowEncoder:
    return data_rows_encoder(value_encoders(columns, formats, settings),
                             column_encoders(columns, formats, settings))


def keep_rows(rows: list[Any]) -> list[Any]:
    """The RowEncoder of a reader that wants the stored rows themselves."""
    return rows


def _check_binary(columns: Sequence[OutputColumn], formats: Sequence[int]) -> None:
    for column, code in zip(columns, formats, strict=True):
        if code == 1 and column.encode_as and column.type_oid != t.REGTYPE:
            raise errors.FeatureNotSupported(
                f'binary output of column "{column.name}" '
                f"({t.format_type(column.type_oid)}) is not supported; request text")


def value_encoders(columns: Sequence[OutputColumn], formats: Sequence[int],
                   settings: codecs.Settings) -> list[codecs.Encoder]:
    """Each column's output function in its format (0 text, 1 binary)."""
    _check_binary(columns, formats)
    return [
        codecs.text_encoder(c.encode_as or c.type_oid, c.typmod, settings) if code == 0
        else _type_oid_sent if c.encode_as else codecs.binary_encoder(c.type_oid, c.typmod)
        for c, code in zip(columns, formats, strict=True)
    ]


def column_encoders(columns: Sequence[OutputColumn], formats: Sequence[int],
                    settings: codecs.Settings) -> list[codecs.ColumnEncoder]:
    """Each column's output function in its format, a chunk of rows at a time."""
    _check_binary(columns, formats)
    return [
        codecs.text_column_encoder(c.encode_as or c.type_oid, c.typmod, settings) if code == 0
        else _TYPE_OIDS_SENT if c.encode_as
        else codecs.binary_column_encoder(c.type_oid, c.typmod)
        for c, code in zip(columns, formats, strict=True)
    ]


_OID_SEND: Final = codecs.binary_encoder(t.REGTYPE)


def _type_oid_sent(name: object) -> bytes:
    """A regtype computed as its name (pg_typeof) sent in binary: its OID,
    found in the fixed table of types."""
    return _OID_SEND(t.lookup_name(str(name)).oid)


_TYPE_OIDS_SENT: Final = codecs.each(_type_oid_sent)
