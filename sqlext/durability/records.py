"""The command log's records: one typed value per kind, and their bytes.

The journal writes them and recovery reads them; both use only this module.
A record is ``marshal``-encoded as a tuple ``(kind, *fields)`` in the field
order below, nested records as tuples of their fields. Statement
parameters are already in SQLite's storage form (int, float, str, bytes or
None) and times are microseconds since the Unix epoch, UTC.

``LAYOUT_VERSION`` names this layout. Every log segment carries the layout
its records were written in (``storage.commandlog``); a server refuses to
replay a layout it does not know (``RecordError``) instead of guessing.
Change a field, its order or a kind's meaning, and the version goes up.
Layout 1 kept the parameters of a many-row statement as one tuple per row;
layout 2 keeps them a column at a time, with the count of rows in ``many``
(a COPY's rows are columns already: no tuple is made per row). Both are read.
"""

from __future__ import annotations

import marshal
from datetime import UTC, datetime
from typing import Any, Final, NamedTuple

LAYOUT_VERSION: Final = 2
"""The record layout this server writes."""
READABLE_LAYOUTS: Final = (1, 2)
_MARSHAL_VERSION: Final = 4

SequencePositions = tuple[tuple[tuple[str, str], int | None], ...]
"""((schema, sequence name), position or None for never used), ..."""


class RecordError(Exception):
    """A record this server cannot read: an unknown layout or kind, or bytes
    that are no record. The message says which."""


class Statement(NamedTuple):
    """One statement of a logged client transaction, as it is redone."""

    sql: str
    index: int
    """Which statement of ``sql`` (a simple query may hold several)."""
    param_oids: tuple[int, ...]
    """Parameter types the client declared (0: inferred)."""
    params: tuple[Any, ...]
    """The parameter values; with ``many``, a sequence of each parameter's
    values, one per execution."""
    many: int
    """Executions of the statement with a row of ``params`` each (COPY FROM,
    a batch), or 0: one, with ``params``."""
    transaction_start: int
    statement_start: int
    sequence_origins: SequencePositions
    """Where the sequences it may move stood before it ran."""
    environment: int
    """The ``Environment`` (user, database, settings) it ran under."""


class Transaction(NamedTuple):
    """A client transaction: OLTP work, or a border TE that put batches into
    streams."""

    committed: int
    seed: int
    """Of its random numbers (random(), gen_random_uuid())."""
    batches: tuple[tuple[int, int], ...]
    """(stream OID, batch id) of the batches it created."""
    statements: tuple[Statement, ...]
    sequences: SequencePositions
    """The sequences it moved, with their positions at its end."""


class TaskRun(NamedTuple):
    """A transaction execution a PE trigger started (strong recovery only;
    weak recovery runs them again)."""

    committed: int
    seed: int
    schema: str
    procedure: str
    stream_oid: int
    batch: int
    started: int
    sequence_origins: SequencePositions
    batches: tuple[tuple[int, int], ...]
    """(stream OID, batch id) of the batches it created."""


class Environment(NamedTuple):
    """The session state the statements that name ``ident`` ran under;
    numbered anew in every segment."""

    ident: int
    user: str
    database: str
    settings: tuple[tuple[str, str], ...]


class Sequences(NamedTuple):
    """nextval() or setval() outside a logged transaction."""

    positions: SequencePositions


Record = Transaction | TaskRun | Environment | Sequences

_KINDS: Final[dict[int, type[Record]]] = {1: Transaction, 2: TaskRun, 3: Environment,
                                          4: Sequences}
_KIND_OF: Final = {record_type: kind for kind, record_type in _KINDS.items()}


def encode(record: Record) -> bytes:
    if type(record) is Transaction:
        committed, seed, batches, statements, sequences = record
        return marshal.dumps((1, committed, seed, batches, tuple(map(tuple, statements)),
                              sequences), _MARSHAL_VERSION)
    return marshal.dumps((_KIND_OF[type(record)], *record), _MARSHAL_VERSION)


def decode(payload: bytes, layout: int) -> Record:
    """The record of a payload written in ``layout``."""
    if layout not in READABLE_LAYOUTS:
        raise RecordError(f"record layout version {layout}; this server reads versions "
                          f"{', '.join(map(str, READABLE_LAYOUTS))}")
    try:
        fields = marshal.loads(payload)
    except (ValueError, EOFError, TypeError) as exc:
        raise RecordError(f"undecodable record ({exc})") from exc
    if not isinstance(fields, tuple) or not fields:
        raise RecordError("not a command log record")
    record_type = _KINDS.get(fields[0])
    if record_type is None:
        raise RecordError(f"unknown record kind {fields[0]!r}")
    try:
        record = record_type(*fields[1:])
        if isinstance(record, Transaction):
            statements = (Statement(*statement) for statement in record.statements)
            record = record._replace(statements=tuple(
                statements if layout == LAYOUT_VERSION else map(_columns_of_rows, statements)))
    except TypeError as exc:
        raise RecordError(f"{record_type.__name__} record of the wrong shape ({exc})"
                          ) from exc
    return record


def _columns_of_rows(statement: Statement) -> Statement:
    """A layout-1 statement as layout 2 keeps it."""
    if not statement.many:
        return statement._replace(many=0)
    rows = statement.params
    return statement._replace(params=tuple(zip(*rows, strict=True)) if rows and rows[0]
                              else (), many=len(rows))


_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


def micros(moment: datetime) -> int:
    """A time as records keep it."""
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def moment(value: int) -> datetime:
    """A time kept in a record."""
    return datetime.fromtimestamp(value // 1_000_000, UTC).replace(
        microsecond=value % 1_000_000)
