"""The seam between the protocol and the engine.

The wire layer knows bytes and sessions, never SQL meaning: it turns protocol
messages into calls on a ``Session`` and the values those calls return into
protocol messages. Statement and portal names live in the session, because
SQL-level cursors (``DECLARE c CURSOR``) are protocol portals too.

Every ``Session`` call is synchronous. A call that cannot proceed now (the
engine is busy with another session's transaction) raises ``Busy`` before it
changes anything; the connection then stops reading and repeats the same call
once ``Busy.wakeup`` fires.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from wire.column_rows import ColumnRows
from wire.messages import Field, Notice


class BackendError(Exception):
    """An error to report to the client as an ErrorResponse; a ``fatal``
    one ends the connection after it is sent."""

    def __init__(self, notice: Notice, *, fatal: bool = False) -> None:
        super().__init__(notice.message)
        self.notice = notice
        self.fatal = fatal


class Wakeup(Protocol):
    def add_done_callback(self, callback: Callable[[object], object], /) -> None: ...

    def done(self) -> bool: ...


class Busy(Exception):
    """The call must be repeated once ``wakeup`` is done."""

    def __init__(self, wakeup: Wakeup) -> None:
        super().__init__("busy")
        self.wakeup = wakeup


Messages = bytes
"""One or more complete messages back to back: the DataRows of a chunk of
rows (``messages.data_rows_encoder``), or the CopyData of a chunk of COPY
rows."""


@dataclass(slots=True)
class Rows:
    """Result rows of one Execute, already encoded in the portal's formats.
    ``rows`` may produce them while they are sent (a generator reading its
    cursor, a chunk of DataRows at a time): the connection stops taking
    them while the client does not read, and calls ``finish`` once all are
    out."""

    rows: Iterable[Messages]
    tag: str | None
    """CommandComplete tag, or None when the portal is suspended (row limit)."""
    finish: Callable[[], str] | None = None
    """Called after the last row; returns the CommandComplete tag (it then
    replaces ``tag``)."""


@dataclass(slots=True)
class Command:
    """A statement without a result set."""

    tag: str


@dataclass(slots=True)
class EmptyQuery:
    pass


class CopySink(Protocol):
    """Receives the data of COPY ... FROM STDIN."""

    def write(self, data: bytes) -> None: ...

    def finish(self) -> str:
        """All data arrived: apply it and return the CommandComplete tag."""
        ...

    def abort(self, message: str) -> None:
        """The client sent CopyFail; nothing must be applied."""
        ...


@dataclass(slots=True)
class CopyIn:
    sink: CopySink
    overall_format: int
    column_formats: list[int]


@dataclass(slots=True)
class CopyOut:
    """COPY ... TO STDOUT: its CopyData messages may be produced while they
    are sent, as Rows' are; ``tag`` gives the CommandComplete tag once all
    are out."""

    messages: Iterable[Messages]
    overall_format: int
    column_formats: list[int]
    tag: Callable[[], str]


Outcome = Rows | Command | EmptyQuery | CopyIn | CopyOut


@dataclass(slots=True)
class BatchOutcome:
    """What ``Session.execute_batch`` did with a run of Bind/Execute pairs:
    the rows before ``error`` ran, each with its CommandComplete tag."""

    tags: list[str]
    error: BackendError | None = None
    """The error of the row after the last tag; the rows after it never ran."""
    failed_bind: bool = False
    """That row's Bind failed (it gets no BindComplete), not its Execute."""


@dataclass(frozen=True, slots=True)
class StatementDescription:
    param_oids: list[int]
    fields: list[Field] | None
    """None when the statement returns no rows (NoData)."""


@dataclass(frozen=True, slots=True)
class PortalDescription:
    fields: list[Field] | None
    formats: list[int] = field(default_factory=list)


class Session(Protocol):
    """One client connection's state inside the engine."""

    process_id: int
    secret_key: int
    on_terminate: Callable[[Notice], None] | None
    """Set by the connection: ends it with a FATAL error (idle timeout,
    pg_terminate_backend)."""
    on_notification: Callable[[int, str, str], None] | None
    """Set by the connection: sends the client a NotificationResponse
    (process id of the notifier, channel, payload) at once if it is idle,
    otherwise just before the next ReadyForQuery that reports it idle."""

    def reads(self, channel: str) -> bool:
        """Whether a notification on ``channel`` is still for the client
        when the connection comes to send it (the session may have stopped
        listening in the meantime)."""
        ...

    def initial_parameters(self) -> list[tuple[str, str]]:
        """ParameterStatus values sent after authentication, in order."""
        ...

    def transaction_status(self) -> str:
        """'I' idle, 'T' in a transaction block, 'E' in a failed one."""
        ...

    def take_notices(self) -> list[Notice]: ...

    def take_parameter_changes(self) -> list[tuple[str, str]]: ...

    def durability_barrier(self) -> Wakeup | None:
        """Not None while something this session may have seen (its own
        commit, or data it read) is not durable yet: replies wait for it."""
        ...

    # simple query protocol
    def simple_statements(self, sql: str) -> int:
        """Parse a Query message; returns how many statements it holds (0 for
        an empty query). They are run with ``run_simple(i)``."""
        ...

    def run_simple(self, index: int) -> tuple[PortalDescription | None, Outcome]: ...

    def end_simple(self) -> None:
        """The Query message is done: end its implicit transaction."""
        ...

    def abort_simple(self) -> None:
        """A statement of the Query message failed: roll back its implicit
        transaction, or mark the explicit one failed."""
        ...

    # extended query protocol
    def parse(self, name: str, sql: str, param_oids: Sequence[int]) -> None: ...

    def bind(
        self,
        portal: str,
        statement: str,
        param_formats: Sequence[int],
        params: Sequence[bytes | None],
        result_formats: Sequence[int],
    ) -> None: ...

    def batch_sizes(self, statement: str, param_formats: Sequence[int]
                    ) -> Sequence[int | None] | None:
        """None unless Bind/Execute pairs of this prepared statement may run
        as one batch (``execute_batch``); else the size of each parameter's
        value in these formats where it is always the same (None: any).
        Cheap: asked before the connection looks ahead for the rest of a
        pipelined run."""
        ...

    def execute_batch(
        self,
        statement: str,
        param_formats: Sequence[int],
        rows: ColumnRows,
        result_formats: Sequence[int],
    ) -> BatchOutcome | None:
        """Bind the unnamed portal to ``statement`` with each row of
        parameters and execute it, row after row, as that many Bind and
        Execute messages would, with the same replies, errors and
        transaction state. None: nothing was done, send the messages one by
        one instead."""
        ...

    def describe_statement(self, name: str) -> StatementDescription: ...

    def describe_portal(self, name: str) -> PortalDescription: ...

    def execute(self, portal: str, max_rows: int) -> Outcome: ...

    def close_statement(self, name: str) -> None: ...

    def close_portal(self, name: str) -> None: ...

    def sync(self) -> None:
        """End of an extended-query cycle: commit its implicit transaction."""
        ...

    def fail_extended(self) -> None:
        """An extended-query message failed: abort the implicit transaction,
        or mark the explicit one failed."""
        ...

    def close(self) -> None:
        """The connection is gone: roll back and release everything."""
        ...


@dataclass(frozen=True, slots=True)
class Credentials:
    """How a user must authenticate (from the server's configuration)."""

    method: str
    """'trust', 'password', 'md5', 'scram-sha-256' or 'reject'."""
    verifier: str | None = None
    """The user's stored password verifier (None: no password, or no such user)."""
    matched: bool = True
    """False when no rule matched the connection (it is then rejected)."""


class Backend(Protocol):
    """The engine as the wire layer sees it."""

    def credentials(self, user: str, database: str, peer: str, tls: bool) -> Credentials: ...

    def open_session(self, user: str, database: str, parameters: dict[str, str],
                     client: tuple[str, int | None]) -> Session:
        """``client`` is the peer's address and port. Raises
        BackendError(fatal=True) to refuse the connection."""
        ...

    def cancel(self, process_id: int, secret_key: int) -> None:
        """CancelRequest; called from the listener thread, must be thread-safe."""
        ...
