"""The per-connection protocol state machine, free of I/O.

Bytes go in through ``receive()``; bytes to send accumulate and are taken
with ``take_output()``. The connection turns messages into calls on the
backend ``Session`` and the results into messages.

States and the moves between them (``_set_state`` refuses any other)::

    STARTUP ──StartupMessage──▶ AUTHENTICATING ──proof──▶ READY
       │                              │                   │  ▲
       └─CancelRequest─▶ CLOSED ◀─────┘ (failure)         │  │
                                                          ▼  │
            COPY_IN ◀──COPY FROM STDIN── READY ──error in extended query──▶ AWAITING_SYNC
                                                              (discard until Sync)

Rules quoted from the protocol documentation: after an error in the
extended protocol "the backend issues ErrorResponse, then reads and discards
messages until a Sync is reached"; during COPY IN "the backend will ignore
Flush and Sync messages".
"""

from __future__ import annotations

import enum
import functools
import logging
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from wire import messages
from wire.auth import AuthenticationFailed, AuthExchange, exchange_for
from wire.backend import (
    Backend,
    BackendError,
    Busy,
    Command,
    CopyOut,
    CopySink,
    EmptyQuery,
    Outcome,
    PortalDescription,
    Rows,
    Session,
    Wakeup,
)
from wire.framing import DEFAULT_MAX_MESSAGE_SIZE, FrameReader
from wire.messages import MalformedMessage, Notice
from wire.pipelined import BindRun, read_run

log = logging.getLogger("sqlext")

OUTPUT_CHUNK = 1 << 20
"""Hand output to the transport once this much has accumulated."""
NOTIFICATION_BACKLOG_LIMIT = 32 << 20
"""Bytes of notifications and other output a listening connection may have
waiting for its client (held until its transaction block ends, or sent and
not read). Past it the connection ends with FATAL 54000, as a publish/
subscribe server drops a subscriber that does not read (Redis: 32 MB): the
memory a slow listener holds stays bounded, and the notifiers and the
dataflow never wait for it. One transaction that sends a listener more than
this at once drops it too."""


class State(enum.Enum):
    STARTUP = "startup"
    AUTHENTICATING = "authenticating"
    READY = "ready"
    COPY_IN = "copy in"
    AWAITING_SYNC = "awaiting sync"
    CLOSED = "closed"


_TRANSITIONS: dict[State, frozenset[State]] = {
    State.STARTUP: frozenset({State.AUTHENTICATING, State.READY, State.CLOSED}),
    State.AUTHENTICATING: frozenset({State.READY, State.CLOSED}),
    State.READY: frozenset({State.COPY_IN, State.AWAITING_SYNC, State.CLOSED}),
    State.COPY_IN: frozenset({State.READY, State.AWAITING_SYNC, State.CLOSED}),
    State.AWAITING_SYNC: frozenset({State.READY, State.CLOSED}),
    State.CLOSED: frozenset(),
}


class IllegalTransition(Exception):
    pass


def protocol_violation(message: str) -> Notice:
    return Notice("FATAL", "08P01", message)


def _internal_error(exc: BaseException) -> Notice:
    return Notice("ERROR", "XX000", f"internal error: {type(exc).__name__}: {exc}")


StartupPacket = messages.StartupMessage | messages.CancelRequest | messages.SSLRequest


class StartupNegotiation:
    """The packets before StartupMessage. GSSENCRequest is declined with 'N',
    and so is SSLRequest unless ``tls`` is offered: then the reply is 'S' and
    the SSLRequest itself is returned (TLS starts with the next byte; an
    SSLRequest inside TLS is declined)."""

    def __init__(self, framer: FrameReader, tls: bool = False) -> None:
        self.framer = framer
        self.tls = tls

    def advance(self) -> tuple[bytes, StartupPacket | None]:
        """Consume buffered packets: (bytes to send, final packet or None)."""
        reply = b""
        while (body := self.framer.read_startup()) is not None:
            packet = messages.decode_startup(body)
            if isinstance(packet, messages.SSLRequest) and self.tls:
                self.tls = False
                return reply + b"S", packet
            if isinstance(packet, messages.SSLRequest | messages.GSSENCRequest):
                reply += b"N"
                continue
            return reply, packet
        return reply, None


class Connection:
    """One client connection. Not thread-safe: used from the event loop."""

    def __init__(
        self,
        backend: Backend,
        peer: str = "",
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        tls: bool = False,
        peer_port: int | None = None,
    ) -> None:
        self.backend = backend
        self.peer = peer
        self.peer_port = peer_port
        self.tls = tls
        """Whether the connection is encrypted (host-based rules may require it)."""
        self.state = State.STARTUP
        self.framer = FrameReader(max_message_size)
        self.session: Session | None = None
        self.waiting: Wakeup | None = None
        """Set while a call is postponed (``Busy``); ``resume()`` retries it."""
        self.flush_hook: Callable[[], None] | None = None
        self.close_hook: Callable[[], None] | None = None
        """Called when the connection ends on the backend's initiative."""
        self._negotiation = StartupNegotiation(self.framer)
        self._out: list[bytes] = []
        self._out_size = 0
        self._held: deque[tuple[Wakeup, list[bytes]]] = deque()
        """Output that waits for the commits it reports to be durable."""
        self._pending: messages.FrontendMessage | BindRun | None = None
        self._lookahead: deque[messages.FrontendMessage] = deque()
        """Messages to handle before reading more: those of a run of binds
        the session did not execute as a batch (all or the rest)."""
        self._auth: AuthExchange | None = None
        self._startup: messages.StartupMessage | None = None
        self._simple: list[int] | None = None  # [statement count, next index]
        self._copy_sink: CopySink | None = None
        self._unfinished: tuple[Iterator[bytes], Callable[[], None]] | None = None
        """Messages of a result still to send, and what follows them."""
        self.output_blocked: Callable[[], Wakeup | None] | None = None
        """Set by the transport: a Wakeup while the client is not reading
        fast enough (sending pauses until it is done), else None."""
        self._idle = False
        """The last ReadyForQuery said 'I' and no message came since."""
        self._notifications: list[tuple[str, bytes]] = []
        """NotificationResponses waiting for the session to be idle, with
        their channels."""
        self._notification_bytes = 0
        self.unsent_bytes: Callable[[], int] = lambda: 0
        """Set by the transport: bytes written and not yet taken by the client."""

    # --- driving ------------------------------------------------------------

    def receive(self, data: bytes) -> None:
        """Feed bytes from the socket and process every complete message."""
        self.framer.feed(data)
        if self.waiting is None:
            self._process()

    def resume(self) -> None:
        """The postponed call may proceed now."""
        self.waiting = None
        message, self._pending = self._pending, None
        if message is not None and self._dispatch(message):
            self._process()

    def take_output(self) -> bytes:
        """Everything that may be sent now: output held behind a durability
        barrier waits (and so does all output after it)."""
        parts: list[bytes] = []
        while self._held and self._held[0][0].done():
            parts.extend(self._held.popleft()[1])
        if not self._held:
            parts.extend(self._out)
            self._out.clear()
            self._out_size = 0
        return b"".join(parts)

    def connection_lost(self) -> None:
        if self.session is not None:
            session, self.session = self.session, None
            session.close()
        if self.state is not State.CLOSED:
            self._set_state(State.CLOSED)

    def notify(self, process_id: int, channel: str, payload: str) -> None:
        """Send a NotificationResponse: now if the session is idle, else
        just before the next ReadyForQuery that reports it idle (after its
        transaction block), as PostgreSQL does; one the session no longer
        ``reads`` by then is dropped."""
        if self.state is State.CLOSED:
            return
        message = messages.notification_response(process_id, channel, payload)
        backlog = self._notification_bytes + self._out_size + self.unsent_bytes()
        if backlog + len(message) > NOTIFICATION_BACKLOG_LIMIT:
            log.warning("dropping %s: its client does not read its notifications (%d bytes "
                        "waiting)", self.peer, backlog)
            self.terminate(Notice(
                "FATAL", "54000", "terminating connection because its client does not read "
                f"its notifications ({backlog} bytes are waiting)",
                hint="Read notifications as they arrive, and do not stay long in a "
                     "transaction block while listening."))
            return
        if not self._idle:
            self._notifications.append((channel, message))
            self._notification_bytes += len(message)
            return
        if self.session is None or not self.session.reads(channel):
            return
        self._emit(message)
        if self.flush_hook is not None:
            self.flush_hook()

    def terminate(self, notice: Notice) -> None:
        """The backend ends this session: send the FATAL error and close."""
        if self.state is State.CLOSED:
            return
        self._fatal(notice)
        if self.close_hook is not None:
            self.close_hook()

    @property
    def closed(self) -> bool:
        return self.state is State.CLOSED

    # --- internals ----------------------------------------------------------

    def _set_state(self, new: State) -> None:
        if new not in _TRANSITIONS[self.state]:
            raise IllegalTransition(f"cannot switch from {self.state.value} to {new.value}")
        self.state = new

    def _emit(self, data: bytes) -> None:
        self._out.append(data)
        self._out_size += len(data)
        if self._out_size >= OUTPUT_CHUNK and self.flush_hook is not None:
            self.flush_hook()

    def _fatal(self, notice: Notice) -> None:
        self._emit(messages.error_response(notice))
        self.connection_lost()

    def _process(self) -> None:
        try:
            while self.state is not State.CLOSED and self.waiting is None:
                if self.state is State.STARTUP:
                    if not self._advance_startup():
                        return
                    continue
                message: messages.FrontendMessage | BindRun
                if self._lookahead:
                    message = self._lookahead.popleft()
                else:
                    frame = self.framer.read_message()
                    if frame is None:
                        return
                    message = messages.decode(*frame)
                    if (type(message) is messages.Bind and self.state is State.READY
                            and self.session is not None):
                        sizes = self.session.batch_sizes(message.statement,
                                                         message.param_formats)
                        if sizes is not None:
                            message = read_run(self.framer, message, sizes) or message
                if not self._dispatch(message):
                    return
        except MalformedMessage as exc:
            self._fatal(protocol_violation(str(exc)))

    def _dispatch(self, message: messages.FrontendMessage | BindRun) -> bool:
        """Handle one message; False when processing must pause (Busy)."""
        if not isinstance(message, messages.Flush):
            self._idle = False  # until its cycle ends with ReadyForQuery
        try:
            self._handle(message)
        except Busy as busy:
            self._pending = message
            self.waiting = busy.wakeup
            return False
        if self.session is not None:
            self._hold_output(self.session.durability_barrier())
        return True

    def _hold_output(self, barrier: Wakeup | None) -> None:
        """The output so far reports state that is not durable yet: it goes
        out once ``barrier`` is done."""
        if barrier is None or not self._out:
            return
        self._held.append((barrier, self._out))
        self._out = []
        self._out_size = 0
        if self.flush_hook is not None:
            hook = self.flush_hook
            barrier.add_done_callback(lambda _: hook())

    def _advance_startup(self) -> bool:
        reply, packet = self._negotiation.advance()
        if reply:
            self._emit(reply)
        if packet is None:
            return False
        if isinstance(packet, messages.CancelRequest):
            self.backend.cancel(packet.process_id, packet.secret_key)
            self._set_state(State.CLOSED)
            return False
        assert isinstance(packet, messages.StartupMessage)  # TLS is never offered here
        self._start(packet)
        return True

    def start_with(self, packet: messages.StartupMessage) -> None:
        """Begin with a StartupMessage already read by the listener."""
        self._start(packet)
        self._process()

    def _start(self, startup: messages.StartupMessage) -> None:
        user = startup.parameters.get("user", "")
        if not user:
            self._fatal(Notice("FATAL", "28000",
                               "no PostgreSQL user name specified in startup packet"))
            return
        self._startup = startup
        database = startup.parameters.get("database") or user
        credentials = self.backend.credentials(user, database, self.peer, self.tls)
        if credentials.method == "reject":
            encryption = "SSL encryption" if self.tls else "no encryption"
            verdict = ("no pg_hba.conf entry for" if not credentials.matched
                       else "pg_hba.conf rejects connection for")
            self._fatal(Notice("FATAL", "28000",
                               f'{verdict} host "{self.peer}", user "{user}", '
                               f'database "{database}", {encryption}'))
            return
        try:
            self._auth = exchange_for(credentials.method, user, credentials.verifier)
        except AuthenticationFailed:
            self._auth_failed(user)
            return
        if self._auth is None:
            self._open_session()
            return
        self._set_state(State.AUTHENTICATING)
        self._emit(self._auth.start())

    def _auth_failed(self, user: str) -> None:
        self._fatal(Notice("FATAL", "28P01", f'password authentication failed for user "{user}"'))

    def _authenticate(self, message: messages.FrontendMessage) -> None:
        assert self._auth is not None and self._startup is not None
        user = self._startup.parameters["user"]
        if not isinstance(message, messages.PasswordData):
            self._fatal(protocol_violation("expected password response"))
            return
        try:
            reply = self._auth.step(message.data)
        except AuthenticationFailed:
            self._auth_failed(user)
            return
        if reply:
            self._emit(reply)
        if self._auth.done:
            self._open_session()

    def _open_session(self) -> None:
        assert self._startup is not None
        parameters = self._startup.parameters
        user = parameters["user"]
        try:
            session = self.backend.open_session(
                user, parameters.get("database") or user, parameters, (self.peer, self.peer_port)
            )
        except BackendError as exc:
            self._fatal(exc.notice)
            return
        self.session = session
        session.on_terminate = self.terminate
        session.on_notification = self.notify
        parts = [messages.authentication_ok()]
        parts += [messages.parameter_status(k, v) for k, v in session.initial_parameters()]
        parts.append(messages.backend_key_data(session.process_id, session.secret_key))
        self._emit(b"".join(parts))
        self._set_state(State.READY)
        self._ready_for_query()

    def _handle(self, message: messages.FrontendMessage) -> None:
        state = self.state
        if state is State.READY:
            _READY_HANDLERS[type(message)](self, message)
        elif state is State.AUTHENTICATING:
            self._authenticate(message)
        elif isinstance(message, messages.Terminate):
            self.connection_lost()
        elif state is State.COPY_IN:
            self._handle_copy(message)
        elif state is State.AWAITING_SYNC and isinstance(message, messages.Sync):
            self._set_state(State.READY)
            self._sync()

    def _terminate(self, message: messages.FrontendMessage) -> None:
        self.connection_lost()

    def _ignore(self, message: messages.FrontendMessage) -> None:
        """Flush (output goes out after every receive anyway) and stray copy
        messages outside COPY mode, which PostgreSQL ignores too."""

    def _copy_done_again(self, message: messages.FrontendMessage) -> None:
        """A CopyDone seen in READY: stray (ignored, as PostgreSQL does), or
        the retry of one whose COPY finished while the statements after it
        in the same Query had to wait: they go on."""
        if self._simple is not None:
            self._resume_simple()

    def _unexpected_password(self, message: messages.FrontendMessage) -> None:
        self._fatal(protocol_violation("unexpected password message"))

    def _function_call(self, message: messages.FrontendMessage) -> None:
        self._error(Notice("ERROR", "0A000", "the fastpath function call is not supported"))
        self._ready()

    # --- results --------------------------------------------------------------

    def _notices(self) -> None:
        session = self.session
        assert session is not None
        for notice in session.take_notices():
            self._emit(messages.notice_response(notice))
        for name, value in session.take_parameter_changes():
            self._emit(messages.parameter_status(name, value))

    def _ready(self) -> None:
        self._notices()
        self._ready_for_query()

    def _ready_for_query(self) -> None:
        assert self.session is not None
        status = self.session.transaction_status()
        if status == "I" and self._notifications:
            self._emit(b"".join(message for channel, message in self._notifications
                                if self.session.reads(channel)))
            self._notifications.clear()
            self._notification_bytes = 0
        self._emit(messages.ready_for_query(status))
        self._idle = status == "I"

    def _error(self, notice: Notice) -> None:
        assert self.session is not None
        for pending in self.session.take_notices():
            self._emit(messages.notice_response(pending))
        self._emit(messages.error_response(notice))

    def _write_outcome(self, outcome: Outcome) -> None:
        if isinstance(outcome, Rows):
            self._send_all(iter(outcome.rows), lambda: self._rows_sent(outcome))
        elif isinstance(outcome, Command):
            self._notices()
            self._emit(messages.command_complete(outcome.tag))
        elif isinstance(outcome, EmptyQuery):
            self._emit(messages.EMPTY_QUERY_RESPONSE)
        elif isinstance(outcome, CopyOut):
            self._emit(messages.copy_out_response(outcome.overall_format,
                                                  outcome.column_formats))
            self._send_all(iter(outcome.messages),
                           lambda: self._emit(messages.COPY_DONE_MESSAGE
                                              + messages.command_complete(outcome.tag())))
        else:
            self._emit(messages.copy_in_response(outcome.overall_format,
                                                 outcome.column_formats))
            self._copy_sink = outcome.sink
            self._set_state(State.COPY_IN)

    def _rows_sent(self, outcome: Rows) -> None:
        tag = outcome.finish() if outcome.finish is not None else outcome.tag
        self._notices()
        self._emit(messages.PORTAL_SUSPENDED if tag is None else messages.command_complete(tag))

    def _send_all(self, parts: Iterator[bytes], then: Callable[[], None]) -> None:
        """Send the messages ``parts`` yields (each part one message or a
        chunk of them), then do ``then``. When the client stops reading, or
        the connection has had its turn of the event loop
        (``output_blocked``, asked after every part), this raises Busy and
        the retried message continues here (``_continue_sending``): a
        result is never held in memory whole, only what the transport
        buffers, and an endless one does not keep other clients waiting."""
        self._unfinished = (parts, then)
        self._continue_sending()

    def _continue_sending(self) -> None:
        assert self._unfinished is not None
        parts, then = self._unfinished
        for part in parts:
            self._emit(part)
            blocked = self.output_blocked() if self.output_blocked else None
            if blocked is not None:
                raise Busy(blocked)
        self._unfinished = None
        then()

    def _describe_fields(self, description: PortalDescription | None) -> None:
        if description is not None and description.fields is not None:
            self._emit(messages.row_description(description.fields, description.formats))

    # --- simple query -------------------------------------------------------

    def _query(self, message: messages.Query) -> None:
        session = self.session
        assert session is not None
        if self._simple is None:
            try:
                count = session.simple_statements(message.sql)
            except BackendError as exc:
                self._simple_failed(exc.notice)
                return
            if count == 0:
                self._emit(messages.EMPTY_QUERY_RESPONSE)
                self._ready()
                return
            self._simple = [count, 0]
        self._resume_simple()

    def _resume_simple(self) -> None:
        try:
            self._continue_simple()
        except BackendError as exc:
            if exc.fatal:
                self._fatal(exc.notice)
            else:
                self._simple_failed(exc.notice)
        except Busy:
            raise
        except Exception as exc:
            log.exception("internal error in simple query")
            self._simple_failed(_internal_error(exc))

    def _continue_simple(self) -> None:
        session = self.session
        assert session is not None and self._simple is not None
        if self._unfinished is not None:
            self._continue_sending()
        count, index = self._simple
        while index < count:
            description, outcome = session.run_simple(index)
            index += 1
            self._simple[1] = index
            if isinstance(outcome, Rows):
                self._describe_fields(description)
            self._write_outcome(outcome)
            if self.state is State.COPY_IN:
                return
        self._simple = None
        session.end_simple()
        self._ready()

    def _simple_failed(self, notice: Notice) -> None:
        assert self.session is not None
        self._simple = None
        self._unfinished = None
        self._error(notice)
        self.session.abort_simple()
        self._ready()

    # --- COPY FROM STDIN ----------------------------------------------------

    def _handle_copy(self, message: messages.FrontendMessage) -> None:
        sink = self._copy_sink
        assert sink is not None
        if isinstance(message, messages.CopyData):
            try:
                sink.write(message.data)
            except BackendError as exc:
                self._copy_failed(exc.notice)
            return
        if isinstance(message, messages.Sync | messages.Flush):
            return
        if isinstance(message, messages.CopyDone):
            try:
                tag = sink.finish()
            except BackendError as exc:
                self._copy_failed(exc.notice)
                return
            except Busy:
                raise
            except Exception as exc:
                log.exception("internal error in COPY")
                self._copy_failed(_internal_error(exc))
                return
            self._copy_sink = None
            self._set_state(State.READY)
            self._emit(messages.command_complete(tag))
            if self._simple is not None:
                self._resume_simple()
            return
        if isinstance(message, messages.CopyFail):
            sink.abort(message.message)
            self._copy_failed(Notice("ERROR", "57014",
                                     f"COPY from stdin failed: {message.message}"))
            return
        kind = type(message).__name__
        self._copy_failed(Notice("ERROR", "08P01",
                                 f"unexpected message {kind} during COPY from stdin"))

    def _copy_failed(self, notice: Notice) -> None:
        sink, self._copy_sink = self._copy_sink, None
        if sink is not None:
            sink.abort(notice.message)
        if self._simple is not None:
            self._set_state(State.READY)
            self._simple_failed(notice)
        else:
            self._set_state(State.AWAITING_SYNC)
            self._error(notice)
            assert self.session is not None
            self.session.fail_extended()

    # --- extended query -----------------------------------------------------

    def _extended(self, message: messages.FrontendMessage) -> None:
        session = self.session
        assert session is not None
        try:
            _EXTENDED_STEPS[type(message)](self, session, message)
        except BackendError as exc:
            if exc.fatal:
                self._fatal(exc.notice)
                return
            self._error(exc.notice)
            self._extended_failed(session)
        except Busy:
            raise
        except Exception as exc:
            log.exception("internal error in extended query")
            self._error(_internal_error(exc))
            self._extended_failed(session)

    def _extended_failed(self, session: Session) -> None:
        self._unfinished = None
        session.fail_extended()
        if self.state is State.COPY_IN:
            self._copy_sink = None
            self._set_state(State.READY)
        if self.state is State.READY:
            self._set_state(State.AWAITING_SYNC)

    def _batch(self, session: Session, run: BindRun) -> None:
        first = run.first
        outcome = session.execute_batch(first.statement, first.param_formats, run.rows,
                                        first.result_formats)
        if outcome is None:
            self._lookahead.extend(run.messages())
            return
        tags = outcome.tags
        if tags:  # notices come with the last row (they end a batch)
            before_last = len(tags) - 1
            self._emit(b"".join(map(bytes.__add__, map(
                _BATCH_REPLIES.__getitem__, run.described[:before_last]), map(
                _command_complete, tags[:before_last]))) + _BATCH_REPLIES[
                run.described[before_last]])
            self._notices()
            self._emit(_command_complete(tags[-1]))
        if outcome.error is not None:
            if not outcome.failed_bind:
                self._emit(_BATCH_REPLIES[run.described[len(tags)]])
            raise outcome.error
        self._lookahead.extend(run.messages(len(tags)))

    def _bind(self, session: Session, message: messages.Bind) -> None:
        session.bind(message.portal, message.statement, message.param_formats,
                     message.params, message.result_formats)
        self._emit(messages.BIND_COMPLETE)

    def _execute(self, session: Session, message: messages.Execute) -> None:
        if self._unfinished is not None:  # the retry of an Execute whose rows paused
            self._continue_sending()
            return
        self._write_outcome(session.execute(message.portal, message.max_rows))

    def _parse(self, session: Session, message: messages.Parse) -> None:
        session.parse(message.statement, message.sql, message.param_oids)
        self._emit(messages.PARSE_COMPLETE)

    def _close(self, session: Session, message: messages.Close) -> None:
        if message.kind == "S":
            session.close_statement(message.name)
        else:
            session.close_portal(message.name)
        self._emit(messages.CLOSE_COMPLETE)

    def _sync_step(self, session: Session, message: messages.Sync) -> None:
        self._sync()

    def _describe(self, session: Session, message: messages.Describe) -> None:
        if message.kind == "S":
            statement = session.describe_statement(message.name)
            self._emit(messages.parameter_description(statement.param_oids))
            if statement.fields is None:
                self._emit(messages.NO_DATA)
            else:
                formats = [0] * len(statement.fields)
                self._emit(messages.row_description(statement.fields, formats))
            return
        portal = session.describe_portal(message.name)
        if portal.fields is None:
            self._emit(messages.NO_DATA)
        else:
            self._emit(messages.row_description(portal.fields, portal.formats))

    def _sync(self) -> None:
        session = self.session
        assert session is not None
        try:
            session.sync()
        except BackendError as exc:
            self._error(exc.notice)
        self._ready()


_BATCH_REPLIES: dict[bool, bytes] = {
    False: messages.BIND_COMPLETE,
    True: messages.BIND_COMPLETE + messages.NO_DATA,
}
"""A batched row's replies before its CommandComplete, by whether its
portal was described (a batched statement returns no rows)."""


@functools.lru_cache(maxsize=64)
def _command_complete(tag: str) -> bytes:
    return messages.command_complete(tag)


_EXTENDED_STEPS: dict[type, Callable[[Connection, Session, Any], None]] = {
    BindRun: Connection._batch,
    messages.Bind: Connection._bind,
    messages.Execute: Connection._execute,
    messages.Parse: Connection._parse,
    messages.Describe: Connection._describe,
    messages.Close: Connection._close,
    messages.Sync: Connection._sync_step,
}
"""What each extended-query message does (errors are handled by ``_extended``)."""

_READY_HANDLERS: dict[type, Callable[[Connection, Any], None]] = {
    messages.Query: Connection._query,
    **dict.fromkeys(_EXTENDED_STEPS, Connection._extended),
    messages.Flush: Connection._ignore,
    messages.Terminate: Connection._terminate,
    messages.CopyData: Connection._ignore,
    messages.CopyDone: Connection._copy_done_again,
    messages.CopyFail: Connection._ignore,
    messages.PasswordData: Connection._unexpected_password,
    messages.FunctionCall: Connection._function_call,
}
"""How a connection in the READY state handles each message type."""
