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
from wire.messages import Field, data_row_encoder

RowEncoder = Callable[[Sequence[Any]], Any]
"""A row of stored values -> its DataRow message (COPY TO keeps the stored
values: ``copy.query_portal``)."""


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
    return data_row_encoder(column_encoders(columns, formats, settings))


def column_encoders(columns: Sequence[OutputColumn], formats: Sequence[int],
                    settings: codecs.Settings) -> list[codecs.Encoder]:
    """Each column's output function in its format (0 text, 1 binary)."""
    for column, code in zip(columns, formats, strict=True):
        if code == 1 and column.encode_as and column.type_oid != t.REGTYPE:
            raise errors.FeatureNotSupported(
                f'binary output of column "{column.name}" '
                f"({t.format_type(column.type_oid)}) is not supported; request text")
    return [
        codecs.text_encoder(c.encode_as or c.type_oid, c.typmod, settings) if code == 0
        else _type_oid_sent if c.encode_as else codecs.binary_encoder(c.type_oid, c.typmod)
        for c, code in zip(columns, formats, strict=True)
    ]


_OID_SEND: Final = codecs.binary_encoder(t.REGTYPE)


def _type_oid_sent(name: object) -> bytes:
    """A regtype computed as its name (pg_typeof) sent in binary: its OID,
    found in the fixed table of types."""
    return _OID_SEND(t.lookup_name(str(name)).oid)
