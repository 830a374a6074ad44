"""PostgreSQL protocol v3 messages: decoding what clients send, encoding what
the server answers. Pure functions over bytes; no I/O, no SQL meaning.

Reference: https://www.postgresql.org/docs/15/protocol-message-formats.html
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Final

PROTOCOL_3_0 = 196608
SSL_REQUEST_CODE = 80877103
GSSENC_REQUEST_CODE = 80877104
CANCEL_REQUEST_CODE = 80877102

_INT16 = struct.Struct("!h")
_INT32 = struct.Struct("!i")
_UINT32 = struct.Struct("!I")
_HEADER = struct.Struct("!ci")


class MalformedMessage(Exception):
    """A message that does not follow the protocol (SQLSTATE 08P01)."""


# --- frontend messages -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartupMessage:
    protocol: int
    parameters: dict[str, str]


@dataclass(frozen=True, slots=True)
class SSLRequest:
    pass


@dataclass(frozen=True, slots=True)
class GSSENCRequest:
    pass


@dataclass(frozen=True, slots=True)
class CancelRequest:
    process_id: int
    secret_key: int


@dataclass(frozen=True, slots=True)
class Query:
    sql: str


@dataclass(frozen=True, slots=True)
class Parse:
    statement: str
    sql: str
    param_oids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Bind:
    portal: str
    statement: str
    param_formats: tuple[int, ...]
    params: tuple[bytes | None, ...]
    result_formats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Describe:
    kind: str
    """'S' for a prepared statement, 'P' for a portal."""
    name: str


@dataclass(frozen=True, slots=True)
class Execute:
    portal: str
    max_rows: int


@dataclass(frozen=True, slots=True)
class Close:
    kind: str
    name: str


@dataclass(frozen=True, slots=True)
class Sync:
    pass


@dataclass(frozen=True, slots=True)
class Flush:
    pass


@dataclass(frozen=True, slots=True)
class Terminate:
    pass


@dataclass(frozen=True, slots=True)
class CopyData:
    data: bytes


@dataclass(frozen=True, slots=True)
class CopyDone:
    pass


@dataclass(frozen=True, slots=True)
class CopyFail:
    message: str


@dataclass(frozen=True, slots=True)
class PasswordData:
    """'p': a password, SASLInitialResponse or SASLResponse; which one depends
    on the authentication exchange, so the body is kept raw."""

    data: bytes


@dataclass(frozen=True, slots=True)
class FunctionCall:
    pass


FrontendMessage = (
    Query | Parse | Bind | Describe | Execute | Close | Sync | Flush | Terminate
    | CopyData | CopyDone | CopyFail | PasswordData | FunctionCall
)

SYNC = Sync()
FLUSH = Flush()
TERMINATE = Terminate()
COPY_DONE = CopyDone()


class _Reader:
    """Cursor over a message body; every read checks bounds."""

    __slots__ = ("body", "pos")

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.pos = 0

    def _fixed(self, layout: struct.Struct) -> int:
        end = self.pos + layout.size
        if end > len(self.body):
            raise MalformedMessage("insufficient data left in message")
        (value,) = layout.unpack_from(self.body, self.pos)
        self.pos = end
        return int(value)

    def int16(self) -> int:
        return self._fixed(_INT16)

    def uint32(self) -> int:
        return self._fixed(_UINT32)

    def int32(self) -> int:
        return self._fixed(_INT32)

    def cstring(self) -> str:
        end = self.body.find(b"\0", self.pos)
        if end < 0:
            raise MalformedMessage("invalid string in message")
        raw = self.body[self.pos:end]
        self.pos = end + 1
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedMessage("invalid UTF-8 in message") from exc

    def format_codes(self) -> tuple[int, ...]:
        """A count, then that many int16 format codes."""
        count = self.int16()
        if count < 0:
            raise MalformedMessage("invalid format code count")
        end = self.pos + 2 * count
        if end > len(self.body):
            raise MalformedMessage("insufficient data left in message")
        codes = struct.unpack_from(f"!{count}h", self.body, self.pos)
        self.pos = end
        return codes

    def values(self) -> tuple[bytes | None, ...]:
        """A count, then that many length-prefixed values (-1: NULL)."""
        count = self.int16()
        if count < 0:
            raise MalformedMessage("invalid parameter count")
        body, pos, size = self.body, self.pos, len(self.body)
        unpack = _INT32.unpack_from
        values: list[bytes | None] = []
        for _ in range(count):
            if pos + 4 > size:
                raise MalformedMessage("insufficient data left in message")
            (length,) = unpack(body, pos)
            pos += 4
            if length == -1:
                values.append(None)
                continue
            end = pos + length
            if length < 0 or end > size:
                raise MalformedMessage("insufficient data left in message")
            values.append(body[pos:end])
            pos = end
        self.pos = pos
        return tuple(values)

    def take(self, count: int) -> bytes:
        end = self.pos + count
        if count < 0 or end > len(self.body):
            raise MalformedMessage("insufficient data left in message")
        data = self.body[self.pos:end]
        self.pos = end
        return data

    def rest(self) -> bytes:
        data = self.body[self.pos:]
        self.pos = len(self.body)
        return data

    def end(self) -> None:
        if self.pos != len(self.body):
            raise MalformedMessage("invalid message format")


def decode_startup(body: bytes) -> StartupMessage | SSLRequest | GSSENCRequest | CancelRequest:
    """Decode the first packet of a connection (no type byte; ``body`` is
    everything after the length word)."""
    reader = _Reader(body)
    code = reader.uint32()
    if code == SSL_REQUEST_CODE:
        reader.end()
        return SSLRequest()
    if code == GSSENC_REQUEST_CODE:
        reader.end()
        return GSSENCRequest()
    if code == CANCEL_REQUEST_CODE:
        process_id = reader.int32()
        secret_key = reader.int32()
        reader.end()
        return CancelRequest(process_id, secret_key)
    if code >> 16 != 3:
        raise MalformedMessage(
            f"unsupported frontend protocol {code >> 16}.{code & 0xFFFF}: "
            "server supports 3.0 to 3.0"
        )
    parameters: dict[str, str] = {}
    while True:
        name = reader.cstring()
        if not name:
            break
        parameters[name] = reader.cstring()
    reader.end()
    return StartupMessage(code, parameters)


def _decode_query(r: _Reader) -> Query:
    return Query(r.cstring())


def _decode_parse(r: _Reader) -> Parse:
    name = r.cstring()
    sql = r.cstring()
    count = r.int16()
    if count < 0:
        raise MalformedMessage("invalid parameter count")
    oids = tuple(r.uint32() for _ in range(count))
    return Parse(name, sql, oids)


def _decode_bind(r: _Reader) -> Bind:
    portal = r.cstring()
    statement = r.cstring()
    formats = r.format_codes()
    params = r.values()
    result_formats = r.format_codes()
    for code in (*formats, *result_formats):
        if code not in (0, 1):
            raise MalformedMessage(f"unsupported format code: {code}")
    return Bind(portal, statement, formats, params, result_formats)


def _decode_describe(r: _Reader) -> Describe:
    kind = r.take(1).decode("latin-1")
    if kind not in ("S", "P"):
        raise MalformedMessage(f"invalid DESCRIBE message subtype {ord(kind)}")
    return Describe(kind, r.cstring())


def _decode_execute(r: _Reader) -> Execute:
    return Execute(r.cstring(), r.int32())


def _decode_close(r: _Reader) -> Close:
    kind = r.take(1).decode("latin-1")
    if kind not in ("S", "P"):
        raise MalformedMessage(f"invalid CLOSE message subtype {ord(kind)}")
    return Close(kind, r.cstring())


def _decode_copy_fail(r: _Reader) -> CopyFail:
    return CopyFail(r.cstring())


_DECODERS = {
    b"Q": _decode_query,
    b"P": _decode_parse,
    b"B": _decode_bind,
    b"D": _decode_describe,
    b"E": _decode_execute,
    b"C": _decode_close,
    b"f": _decode_copy_fail,
}
_EMPTY_MESSAGES: dict[bytes, FrontendMessage] = {
    b"S": SYNC,
    b"H": FLUSH,
    b"X": TERMINATE,
    b"c": COPY_DONE,
}


def decode(kind: bytes, body: bytes) -> FrontendMessage:
    """Decode one regular frontend message (after startup)."""
    empty = _EMPTY_MESSAGES.get(kind)
    if empty is not None:
        return empty
    if kind == b"d":
        return CopyData(body)
    if kind == b"p":
        return PasswordData(body)
    if kind == b"F":
        return FunctionCall()
    if kind in _REPEATED and len(body) <= _REPEATED_BODY_LIMIT:
        return _decode_repeated(kind, body)
    return _decode_body(kind, body)


_REPEATED: Final = frozenset({b"P", b"D", b"E"})
"""Messages a pipelined client sends the same, byte for byte, for every row
(Parse of the unnamed statement, Describe, Execute): decoded once. The
messages are immutable values, so one may serve every connection."""
_REPEATED_BODY_LIMIT: Final = 4096


@functools.lru_cache(maxsize=256)
def _decode_repeated(kind: bytes, body: bytes) -> FrontendMessage:
    return _decode_body(kind, body)


def _decode_body(kind: bytes, body: bytes) -> FrontendMessage:
    decoder = _DECODERS.get(kind)
    if decoder is None:
        raise MalformedMessage(f"invalid frontend message type {kind[0]}")
    reader = _Reader(body)
    message = decoder(reader)
    reader.end()
    return message


# --- backend messages --------------------------------------------------------


def _frame(kind: bytes, body: bytes) -> bytes:
    return _HEADER.pack(kind, len(body) + 4) + body


def _cstr(text: str) -> bytes:
    """A NUL-terminated string. A NUL inside ``text`` (client data quoted in
    an error message, a setting's value) would end the string early and
    shift every later field, so it is sent as the two characters ``\\0``."""
    data = text.encode("utf-8")
    if b"\0" in data:
        data = data.replace(b"\0", b"\\0")
    return data + b"\0"


def authentication_ok() -> bytes:
    return b"R\x00\x00\x00\x08\x00\x00\x00\x00"


def authentication_cleartext() -> bytes:
    return b"R\x00\x00\x00\x08\x00\x00\x00\x03"


def authentication_md5(salt: bytes) -> bytes:
    return _frame(b"R", _INT32.pack(5) + salt)


def authentication_sasl(mechanisms: Sequence[str]) -> bytes:
    return _frame(b"R", _INT32.pack(10) + b"".join(_cstr(m) for m in mechanisms) + b"\0")


def authentication_sasl_continue(data: bytes) -> bytes:
    return _frame(b"R", _INT32.pack(11) + data)


def authentication_sasl_final(data: bytes) -> bytes:
    return _frame(b"R", _INT32.pack(12) + data)


def parameter_status(name: str, value: str) -> bytes:
    return _frame(b"S", _cstr(name) + _cstr(value))


def backend_key_data(process_id: int, secret_key: int) -> bytes:
    return _frame(b"K", _INT32.pack(process_id) + _INT32.pack(secret_key))


READY_IDLE = b"Z\x00\x00\x00\x05I"
READY_IN_TRANSACTION = b"Z\x00\x00\x00\x05T"
READY_FAILED = b"Z\x00\x00\x00\x05E"
_READY = {"I": READY_IDLE, "T": READY_IN_TRANSACTION, "E": READY_FAILED}


def ready_for_query(status: str) -> bytes:
    return _READY[status]


PARSE_COMPLETE = b"1\x00\x00\x00\x04"
BIND_COMPLETE = b"2\x00\x00\x00\x04"
CLOSE_COMPLETE = b"3\x00\x00\x00\x04"
NO_DATA = b"n\x00\x00\x00\x04"
PORTAL_SUSPENDED = b"s\x00\x00\x00\x04"
EMPTY_QUERY_RESPONSE = b"I\x00\x00\x00\x04"
COPY_DONE_MESSAGE = b"c\x00\x00\x00\x04"


def command_complete(tag: str) -> bytes:
    return _frame(b"C", _cstr(tag))


def parameter_description(oids: Sequence[int]) -> bytes:
    return _frame(b"t", _INT16.pack(len(oids)) + b"".join(_UINT32.pack(o) for o in oids))


_FIELD_TAIL = struct.Struct("!IhIhih")


@dataclass(frozen=True, slots=True)
class Field:
    """One column of a RowDescription."""

    name: str
    type_oid: int
    type_size: int = -1
    type_modifier: int = -1
    table_oid: int = 0
    column_number: int = 0


def row_description(fields: Sequence[Field], formats: Sequence[int]) -> bytes:
    parts = [_INT16.pack(len(fields))]
    for field, fmt in zip(fields, formats, strict=True):
        parts.append(_cstr(field.name))
        parts.append(
            _FIELD_TAIL.pack(
                field.table_oid, field.column_number, field.type_oid,
                field.type_size, field.type_modifier, fmt,
            )
        )
    return _frame(b"T", b"".join(parts))


def data_row(values: Sequence[bytes | None]) -> bytes:
    """A DataRow of values already encoded."""
    return data_row_encoder([bytes] * len(values))(values)


def data_row_encoder(encoders: Sequence[Callable[[Any], bytes]]
                     ) -> Callable[[Sequence[Any]], bytes]:
    """A function turning a row of values into its DataRow message, each
    non-NULL value through its column's encoder."""
    count = _INT16.pack(len(encoders))
    pack = _INT32.pack

    def encode(row: Sequence[Any]) -> bytes:
        parts = [count]
        append = parts.append
        # A row may carry trailing values no column shows (sort keys).
        for value, encoder in zip(row, encoders, strict=False):
            if value is None:
                append(b"\xff\xff\xff\xff")
            else:
                data = encoder(value)
                append(pack(len(data)))
                append(data)
        body = b"".join(parts)
        return b"D" + pack(len(body) + 4) + body

    return encode


RowsEncoder = Callable[[Sequence[Sequence[Any]]], bytes]
"""A chunk of rows -> their DataRow messages, one after the other."""
ColumnEncoder = Callable[[Sequence[Any]], Any]
"""The values of one column in a chunk (None for NULL) -> an Arrow array of
their wire forms (``bulk``)."""

BULK_ROWS: Final = 128
"""Chunks this large are encoded column by column (``bulk``); below it the
fixed cost of Arrow's calls (~80 us a chunk) outweighs what it saves."""


def data_rows_encoder(encoders: Sequence[Callable[[Any], bytes]],
                      column_encoders: Sequence[ColumnEncoder]) -> RowsEncoder:
    """A function turning a chunk of rows into their DataRow messages: row
    by row through ``encoders`` (one per column, never given NULL), or
    column by column through ``column_encoders`` when the chunk is large
    (the hot path of every large result set)."""
    one_row = data_row_encoder(encoders)
    # A row may carry trailing values no column shows (sort keys).
    columns = [(itemgetter(index), encode_column)
               for index, encode_column in enumerate(column_encoders)]

    def encode(rows: Sequence[Sequence[Any]]) -> bytes:
        if len(rows) < BULK_ROWS:
            return b"".join(map(one_row, rows))
        from wire import bulk  # Arrow, imported with the first large chunk

        return bulk.framed(b"D", bulk.field_rows(
            [encode_column(list(map(value, rows))) for value, encode_column in columns],
            len(rows)))

    return encode


def _response_fields(fields: Iterable[tuple[bytes, str | None]]) -> bytes:
    parts = [code + _cstr(value) for code, value in fields if value is not None]
    parts.append(b"\0")
    return b"".join(parts)


@dataclass(frozen=True, slots=True)
class Notice:
    """The fields of an ErrorResponse or NoticeResponse."""

    severity: str
    code: str
    message: str
    detail: str | None = None
    hint: str | None = None
    position: int | None = None
    schema: str | None = None
    table: str | None = None
    column: str | None = None
    constraint: str | None = None
    routine: str | None = None


def _notice_body(notice: Notice) -> bytes:
    return _response_fields(
        (
            (b"S", notice.severity),
            (b"V", notice.severity),
            (b"C", notice.code),
            (b"M", notice.message),
            (b"D", notice.detail),
            (b"H", notice.hint),
            (b"P", str(notice.position) if notice.position else None),
            (b"s", notice.schema),
            (b"t", notice.table),
            (b"c", notice.column),
            (b"n", notice.constraint),
            (b"R", notice.routine),
        )
    )


def error_response(notice: Notice) -> bytes:
    return _frame(b"E", _notice_body(notice))


def notice_response(notice: Notice) -> bytes:
    return _frame(b"N", _notice_body(notice))


def _copy_response(kind: bytes, overall_format: int, column_formats: Sequence[int]) -> bytes:
    body = bytes([overall_format]) + _INT16.pack(len(column_formats))
    body += b"".join(_INT16.pack(f) for f in column_formats)
    return _frame(kind, body)


def copy_in_response(overall_format: int, column_formats: Sequence[int]) -> bytes:
    return _copy_response(b"G", overall_format, column_formats)


def copy_out_response(overall_format: int, column_formats: Sequence[int]) -> bytes:
    return _copy_response(b"H", overall_format, column_formats)


def copy_data(data: bytes) -> bytes:
    return b"d" + _INT32.pack(len(data) + 4) + data


def notification_response(process_id: int, channel: str, payload: str) -> bytes:
    return _frame(b"A", _INT32.pack(process_id) + _cstr(channel) + _cstr(payload))


# --- client-side encoders (tests and tools speak the protocol too) -----------


def encode_startup(parameters: dict[str, str], protocol: int = PROTOCOL_3_0) -> bytes:
    body = _INT32.pack(protocol)
    body += b"".join(_cstr(k) + _cstr(v) for k, v in parameters.items()) + b"\0"
    return _INT32.pack(len(body) + 4) + body


def encode_special_request(code: int, *values: int) -> bytes:
    body = _UINT32.pack(code) + b"".join(_INT32.pack(v) for v in values)
    return _INT32.pack(len(body) + 4) + body


def encode_query(sql: str) -> bytes:
    return _frame(b"Q", _cstr(sql))


def encode_parse(statement: str, sql: str, param_oids: Sequence[int] = ()) -> bytes:
    body = _cstr(statement) + _cstr(sql) + _INT16.pack(len(param_oids))
    body += b"".join(_UINT32.pack(o) for o in param_oids)
    return _frame(b"P", body)


def encode_bind(
    portal: str,
    statement: str,
    params: Sequence[bytes | None] = (),
    param_formats: Sequence[int] = (),
    result_formats: Sequence[int] = (),
) -> bytes:
    body = _cstr(portal) + _cstr(statement)
    body += _INT16.pack(len(param_formats)) + b"".join(_INT16.pack(f) for f in param_formats)
    body += _INT16.pack(len(params))
    for value in params:
        body += b"\xff\xff\xff\xff" if value is None else _INT32.pack(len(value)) + value
    body += _INT16.pack(len(result_formats)) + b"".join(_INT16.pack(f) for f in result_formats)
    return _frame(b"B", body)


def encode_describe(kind: str, name: str) -> bytes:
    return _frame(b"D", kind.encode() + _cstr(name))


def encode_execute(portal: str, max_rows: int = 0) -> bytes:
    return _frame(b"E", _cstr(portal) + _INT32.pack(max_rows))


def encode_close(kind: str, name: str) -> bytes:
    return _frame(b"C", kind.encode() + _cstr(name))


def encode_simple(kind: bytes, body: bytes = b"") -> bytes:
    """Sync (S), Flush (H), Terminate (X), CopyDone (c), CopyData (d), p, f."""
    return _frame(kind, body)

