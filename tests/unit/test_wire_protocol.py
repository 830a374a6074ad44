"""The protocol state machine on bytes, with a scripted backend session.

The session here is a stand-in for the engine with fixed answers, so these
tests pin down the protocol rules themselves (message order, error recovery,
suspended portals, postponed calls, COPY, authentication).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from wire import messages as m
from wire.auth import ScramVerifier, md5_password_hash
from wire.backend import (
    BackendError,
    BatchOutcome,
    Busy,
    Command,
    CopyIn,
    Credentials,
    EmptyQuery,
    Outcome,
    PortalDescription,
    Rows,
    StatementDescription,
)
from wire.column_rows import ColumnRows
from wire.protocol import Connection, State

FIELDS = [m.Field("n", 23, 4)]


class Wakeup:
    def __init__(self) -> None:
        self.callbacks: list[Any] = []
        self.fired = False

    def add_done_callback(self, callback: Any) -> None:
        self.callbacks.append(callback)

    def done(self) -> bool:
        return self.fired

    def fire(self) -> None:
        self.fired = True
        for callback in self.callbacks:
            callback(self)


@dataclass
class CopySink:
    received: list[bytes] = field(default_factory=list)
    aborted: str | None = None

    def write(self, data: bytes) -> None:
        self.received.append(data)

    def finish(self) -> str:
        lines = b"".join(self.received).count(b"\n")
        return f"COPY {lines}"

    def abort(self, message: str) -> None:
        self.aborted = message


class ScriptedSession:
    process_id = 42
    secret_key = 7
    on_terminate = None
    on_notification = None

    def __init__(self) -> None:
        self.status = "I"
        self.calls: list[str] = []
        self.busy_once = True
        self.wakeup = Wakeup()
        self.sink = CopySink()
        self.statements: list[str] = []
        self.portal_rows: dict[str, int] = {}
        self.barrier: Wakeup | None = None
        """Set by the statement DURABLE: its reply waits for the log."""
        self.channels = {"c", "chan"}
        """What the session listens to."""

    def initial_parameters(self) -> list[tuple[str, str]]:
        return [("server_version", "15.18"), ("client_encoding", "UTF8")]

    def transaction_status(self) -> str:
        return self.status

    def reads(self, channel: str) -> bool:
        return channel in self.channels

    def take_notices(self) -> list[m.Notice]:
        return []

    def take_parameter_changes(self) -> list[tuple[str, str]]:
        return []

    def durability_barrier(self) -> Wakeup | None:
        barrier, self.barrier = self.barrier, None
        return barrier

    def _outcome(self, sql: str, max_rows: int = 0, portal: str = "") -> Outcome:
        if sql.startswith("ERR"):
            raise BackendError(m.Notice("ERROR", "42601", "scripted failure"))
        if sql == "BUSY" and self.busy_once:
            self.busy_once = False
            raise Busy(self.wakeup)
        if sql == "COPY":
            return CopyIn(self.sink, 0, [0])
        if sql.startswith("DURABLE"):
            self.barrier = Wakeup()
        if sql.startswith("ROWS"):  # ROWS count [width]
            total, *width = map(int, sql.split()[1:])
            sent = self.portal_rows.get(portal, 0)
            count = total - sent if max_rows == 0 else min(max_rows, total - sent)
            self.portal_rows[portal] = sent + count
            rows = [m.data_row([str(sent + i).encode().ljust(width[0] if width else 0, b"x")])
                    for i in range(count)]
            done = sent + count >= total
            return Rows(rows, f"SELECT {count}" if done else None)
        if sql == "":
            return EmptyQuery()
        return Command(sql.upper())

    # simple query
    def simple_statements(self, sql: str) -> int:
        self.statements = [s.strip() for s in sql.split(";") if s.strip()]
        return len(self.statements)

    def run_simple(self, index: int) -> tuple[PortalDescription | None, Outcome]:
        self.calls.append(f"run {self.statements[index]}")
        return PortalDescription(FIELDS, [0]), self._outcome(self.statements[index])

    def end_simple(self) -> None:
        self.calls.append("end")

    def abort_simple(self) -> None:
        self.calls.append("abort")

    # extended query
    def parse(self, name: str, sql: str, param_oids: Sequence[int]) -> None:
        if sql.startswith("ERR"):
            raise BackendError(m.Notice("ERROR", "42601", "bad parse"))
        self.calls.append(f"parse {name}={sql}")
        self.prepared = {**getattr(self, "prepared", {}), name: sql}

    def bind(self, portal: str, statement: str, param_formats: Sequence[int],
             params: Sequence[bytes | None], result_formats: Sequence[int]) -> None:
        self.calls.append(f"bind {portal}<-{statement}")
        self.portals = {**getattr(self, "portals", {}), portal: self.prepared[statement]}

    def batch_sizes(self, statement: str, param_formats: Sequence[int]
                    ) -> Sequence[int | None] | None:
        batched = getattr(self, "prepared", {}).get(statement, "").startswith("BATCH")
        return () if batched else None

    def execute_batch(self, statement: str, param_formats: Sequence[int],
                      rows: ColumnRows, result_formats: Sequence[int]
                      ) -> BatchOutcome | None:
        """BATCH: each row "INSERT 0 1", up to a row whose value is b"bad"
        (its Execute fails), b"badbind" (its Bind fails) or b"notice" (ends
        the batch after it); BATCH BUSY waits once, BATCH NO declines."""
        sql = self.prepared[statement]
        self.calls.append(f"batch {statement} x{len(rows)}")
        if sql == "BATCH NO":
            return None
        if sql == "BATCH BUSY" and self.busy_once:
            self.busy_once = False
            raise Busy(self.wakeup)
        tags: list[str] = []
        for (value, *_rest) in rows:
            if value in (b"bad", b"badbind"):
                error = BackendError(m.Notice("ERROR", "23505", f"row {len(tags)}"))
                return BatchOutcome(tags, error, failed_bind=value == b"badbind")
            tags.append("INSERT 0 1")
            if value == b"notice":
                break
        return BatchOutcome(tags)

    def describe_statement(self, name: str) -> StatementDescription:
        return StatementDescription([23], FIELDS)

    def describe_portal(self, name: str) -> PortalDescription:
        return PortalDescription(FIELDS, [0])

    def execute(self, portal: str, max_rows: int) -> Outcome:
        self.calls.append(f"execute {portal}")
        return self._outcome(self.portals[portal], max_rows, portal)

    def close_statement(self, name: str) -> None:
        self.calls.append(f"close S {name}")

    def close_portal(self, name: str) -> None:
        self.calls.append(f"close P {name}")

    def sync(self) -> None:
        self.calls.append("sync")

    def fail_extended(self) -> None:
        self.calls.append("fail")

    def close(self) -> None:
        self.calls.append("close")


class ScriptedBackend:
    def __init__(self, method: str = "trust", password: str | None = None) -> None:
        self.session = ScriptedSession()
        self.method = method
        self.password = password
        self.cancelled: list[tuple[int, int]] = []

    def credentials(self, user: str, database: str, peer: str, tls: bool) -> Credentials:
        """The stored verifier, as the engine keeps it: an MD5 hash for md5,
        a SCRAM verifier otherwise."""
        if self.password is None:
            return Credentials(self.method)
        if self.method == "md5":
            return Credentials(self.method, md5_password_hash(user, self.password))
        return Credentials(self.method, ScramVerifier.from_password(self.password).text())

    def open_session(self, user: str, database: str, parameters: dict[str, str],
                     client: tuple[str, int | None]) -> ScriptedSession:
        return self.session

    def cancel(self, process_id: int, secret_key: int) -> None:
        self.cancelled.append((process_id, secret_key))


def messages_of(data: bytes) -> list[tuple[bytes, bytes]]:
    out = []
    while data:
        kind = data[:1]
        (length,) = struct.unpack("!i", data[1:5])
        out.append((kind, data[5:1 + length]))
        data = data[1 + length:]
    return out


def kinds(data: bytes) -> str:
    return "".join(kind.decode() for kind, _ in messages_of(data))


def connect(backend: ScriptedBackend | None = None) -> tuple[Connection, ScriptedBackend]:
    backend = backend or ScriptedBackend()
    connection = Connection(backend, "127.0.0.1")  # type: ignore[arg-type]
    connection.receive(m.encode_special_request(m.SSL_REQUEST_CODE))
    assert connection.take_output() == b"N"
    connection.receive(m.encode_startup({"user": "alice", "database": "db"}))
    output = connection.take_output()
    assert kinds(output) == "RSSKZ"
    return connection, backend


def test_startup_sends_parameters_and_ready() -> None:
    connection, _ = connect()
    assert connection.state is State.READY


def test_missing_user_is_fatal() -> None:
    connection = Connection(ScriptedBackend(), "")  # type: ignore[arg-type]
    connection.receive(m.encode_startup({"database": "db"}))
    output = messages_of(connection.take_output())
    assert output[0][0] == b"E" and b"C28000" in output[0][1]
    assert connection.closed


def test_cancel_request_reaches_backend_and_closes() -> None:
    backend = ScriptedBackend()
    connection = Connection(backend, "")  # type: ignore[arg-type]
    connection.receive(m.encode_special_request(m.CANCEL_REQUEST_CODE, 42, 7))
    assert backend.cancelled == [(42, 7)]
    assert connection.closed


def test_simple_query_with_several_statements() -> None:
    connection, backend = connect()
    connection.receive(m.encode_query("ROWS 2; create table"))
    assert kinds(connection.take_output()) == "TDDCCZ"
    assert backend.session.calls == ["run ROWS 2", "run create table", "end"]


def test_empty_query() -> None:
    connection, _ = connect()
    connection.receive(m.encode_query("  "))
    assert kinds(connection.take_output()) == "IZ"


def test_error_in_simple_query_skips_the_rest() -> None:
    connection, backend = connect()
    connection.receive(m.encode_query("begin; ERR; later"))
    assert kinds(connection.take_output()) == "CEZ"
    assert backend.session.calls == ["run begin", "run ERR", "abort"]


def test_extended_query_round_trip() -> None:
    connection, _ = connect()
    connection.receive(
        m.encode_parse("", "ROWS 1") + m.encode_bind("", "") + m.encode_describe("P", "")
        + m.encode_execute("", 0) + m.encode_simple(b"S"))
    assert kinds(connection.take_output()) == "12TDCZ"


def _batch(values: Sequence[bytes], described: bool = True) -> bytes:
    return b"".join(m.encode_bind("", "s", [value]) + (m.encode_describe("P", "") if described
                                                     else b"") + m.encode_execute("", 1)
                    for value in values)


def _batch_connection(sql: str = "BATCH") -> tuple[Connection, ScriptedBackend]:
    connection, backend = connect()
    connection.receive(m.encode_parse("s", sql) + m.encode_simple(b"S"))
    assert kinds(connection.take_output()) == "1Z"
    return connection, backend


def test_pipelined_binds_run_as_one_batch_with_a_reply_per_row() -> None:
    connection, backend = _batch_connection()
    connection.receive(_batch([b"1", b"2", b"3"]) + _batch([b"4"], described=False)
                       + m.encode_simple(b"S"))
    output = messages_of(connection.take_output())
    assert "".join(k.decode() for k, _ in output) == "2nC2nC2nC2CZ"
    assert {body for kind, body in output if kind == b"C"} == {b"INSERT 0 1\0"}
    assert backend.session.calls[-2:] == ["batch s x4", "sync"]


def test_a_failing_row_ends_the_batch_and_the_rest_waits_for_sync() -> None:
    connection, backend = _batch_connection()
    connection.receive(_batch([b"1", b"bad", b"3"]) + m.encode_simple(b"S"))
    assert kinds(connection.take_output()) == "2nC2nEZ"
    assert backend.session.calls[-3:] == ["batch s x3", "fail", "sync"]
    connection.receive(_batch([b"1", b"badbind", b"3"]) + m.encode_simple(b"S"))
    assert kinds(connection.take_output()) == "2nCEZ"


def test_a_row_with_a_notice_ends_the_batch_and_the_rest_runs_one_by_one() -> None:
    connection, backend = _batch_connection()
    connection.receive(_batch([b"1", b"notice", b"3", b"4"]) + m.encode_simple(b"S"))
    # (the scripted session describes every portal as returning rows: T)
    assert kinds(connection.take_output()) == "2nC2nC2TC2TCZ"
    assert backend.session.calls[-6:] == ["batch s x4", "bind <-s", "execute ",
                                          "bind <-s", "execute ", "sync"]


def test_a_declined_batch_runs_message_by_message() -> None:
    connection, backend = _batch_connection("BATCH NO")
    connection.receive(_batch([b"1", b"2"]) + m.encode_simple(b"S"))
    assert kinds(connection.take_output()) == "2TC2TCZ"
    assert backend.session.calls[-6:] == ["batch s x2", "bind <-s", "execute ",
                                          "bind <-s", "execute ", "sync"]


def test_a_busy_batch_is_retried_whole() -> None:
    connection, backend = _batch_connection("BATCH BUSY")
    connection.receive(_batch([b"1", b"2"]) + m.encode_simple(b"S"))
    assert connection.take_output() == b""
    backend.session.wakeup.fire()
    connection.resume()
    assert kinds(connection.take_output()) == "2nC2nCZ"
    assert backend.session.calls[-3:] == ["batch s x2", "batch s x2", "sync"]


def test_a_run_takes_only_the_triples_that_have_arrived() -> None:
    connection, backend = _batch_connection()
    data = _batch([b"1", b"2", b"3"]) + m.encode_simple(b"S")
    cut = len(_batch([b"1", b"2"])) + 7  # inside the third Bind
    connection.receive(data[:cut])
    assert kinds(connection.take_output()) == "2nC2nC"
    connection.receive(data[cut:])
    assert kinds(connection.take_output()) == "2TCZ"
    assert backend.session.calls[-4:] == ["batch s x2", "bind <-s", "execute ", "sync"]


def test_a_malformed_message_after_a_run_ends_the_connection_after_it() -> None:
    connection, _ = _batch_connection()
    connection.receive(_batch([b"1", b"2"]) + b"D\x00\x00\x00\x06Xx")
    assert kinds(connection.take_output()) == "2nC2nCE"
    assert connection.closed


def test_error_discards_until_sync() -> None:
    connection, backend = connect()
    connection.receive(
        m.encode_parse("", "ERR") + m.encode_bind("", "") + m.encode_execute("", 0)
        + m.encode_simple(b"S") + m.encode_parse("", "ok") + m.encode_simple(b"S"))
    assert kinds(connection.take_output()) == "EZ1Z"
    assert backend.session.calls == ["fail", "sync", "parse =ok", "sync"]


def test_row_limit_suspends_portal_across_sync() -> None:
    connection, _ = connect()
    connection.receive(m.encode_parse("", "ROWS 5") + m.encode_bind("C_1", "")
                       + m.encode_execute("C_1", 2) + m.encode_simple(b"S"))
    assert kinds(connection.take_output()) == "12DDsZ"
    connection.receive(m.encode_execute("C_1", 2) + m.encode_simple(b"S"))
    assert kinds(connection.take_output()) == "DDsZ"
    connection.receive(m.encode_execute("C_1", 2) + m.encode_simple(b"S"))
    output = messages_of(connection.take_output())
    assert [k for k, _ in output] == [b"D", b"C", b"Z"]
    assert output[1][1] == b"SELECT 1\0"


def test_pipeline_of_many_executes_before_one_sync() -> None:
    connection, _ = connect()
    flight = m.encode_parse("s", "insert")
    for _ in range(300):
        flight += m.encode_bind("", "s") + m.encode_execute("", 1)
    connection.receive(flight + m.encode_simple(b"S"))
    assert kinds(connection.take_output()) == "1" + "2C" * 300 + "Z"


def test_busy_postpones_and_resumes_the_same_call() -> None:
    connection, backend = connect()
    connection.receive(m.encode_query("BUSY") + m.encode_query("after"))
    assert connection.take_output() == b""
    assert connection.waiting is backend.session.wakeup
    connection.resume()
    assert kinds(connection.take_output()) == "CZCZ"
    assert backend.session.calls == ["run BUSY", "run BUSY", "end", "run after", "end"]


def test_replies_wait_for_durability_and_keep_their_order() -> None:
    connection, backend = connect()
    flushed: list[bytes] = []
    connection.flush_hook = lambda: flushed.append(connection.take_output())
    connection.receive(m.encode_query("DURABLE 1"))
    first = backend.session.barrier
    assert first is None  # taken by the connection
    assert connection.take_output() == b""
    connection.receive(m.encode_query("DURABLE 2") + m.encode_query("plain"))
    assert connection.take_output() == b""
    held = [barrier for barrier, _ in connection._held]
    assert len(held) == 2
    held[1].fire()  # a later commit durable first: nothing may overtake the first
    assert flushed == [b""]
    held[0].fire()
    assert kinds(flushed[-1]) == "CZCZCZ"
    assert connection.take_output() == b""


def _notification_of(data: bytes) -> tuple[int, bytes]:
    (body,) = [b for k, b in messages_of(data) if k == b"A"]
    return struct.unpack("!i", body[:4])[0], body[4:]


def test_an_idle_session_gets_notifications_at_once() -> None:
    connection, backend = connect()
    flushed: list[bytes] = []
    connection.flush_hook = lambda: flushed.append(connection.take_output())
    notify = backend.session.on_notification
    assert notify is not None  # installed by the connection
    notify(77, "chan", "payload")
    assert _notification_of(flushed[-1]) == (77, b"chan\x00payload\x00")
    connection.receive(m.encode_simple(b"H"))  # Flush leaves it idle
    notify(78, "chan", "")
    assert _notification_of(flushed[-1]) == (78, b"chan\x00\x00")


def test_notifications_wait_for_the_end_of_a_cycle_and_of_a_block() -> None:
    connection, backend = connect()
    session = backend.session
    connection.receive(m.encode_parse("", "begin"))
    session.on_notification(1, "c", "during an extended-query cycle")
    assert kinds(connection.take_output()) == "1"
    session.status = "T"
    connection.receive(m.encode_simple(b"S"))
    assert kinds(connection.take_output()) == "Z"  # in a block: held
    session.on_notification(2, "c", "while in the block")
    assert connection.take_output() == b""
    session.status = "E"
    connection.receive(m.encode_query("ERR"))
    assert kinds(connection.take_output()) == "EZ"
    session.status = "I"
    connection.receive(m.encode_query("rollback"))
    output = connection.take_output()
    assert kinds(output) == "CAAZ"  # just before the ReadyForQuery that says idle
    assert [body[4:6] for kind, body in messages_of(output) if kind == b"A"] == [b"c\x00"] * 2


def test_a_notification_the_session_no_longer_reads_is_dropped() -> None:
    connection, backend = connect()
    session = backend.session
    session.status = "T"
    connection.receive(m.encode_query("begin"))
    connection.take_output()
    session.on_notification(1, "c", "held")
    session.on_notification(2, "chan", "held, then unlistened")
    session.channels = {"c"}
    session.status = "I"
    connection.receive(m.encode_query("commit"))
    output = connection.take_output()
    assert kinds(output) == "CAZ"
    assert _notification_of(output) == (1, b"c\x00held\x00")
    session.on_notification(3, "chan", "idle, not listened")
    assert connection.take_output() == b""


def test_copy_in_then_remaining_statements() -> None:
    connection, backend = connect()
    connection.receive(m.encode_query("COPY; after"))
    assert kinds(connection.take_output()) == "G"
    assert connection.state is State.COPY_IN
    connection.receive(m.encode_simple(b"d", b"1\n2\n") + m.encode_simple(b"H")
                       + m.encode_simple(b"d", b"3\n") + m.encode_simple(b"c"))
    output = messages_of(connection.take_output())
    assert [k for k, _ in output] == [b"C", b"C", b"Z"]
    assert output[0][1] == b"COPY 3\0"
    assert backend.session.sink.received == [b"1\n2\n", b"3\n"]


def test_copy_fail_aborts() -> None:
    connection, backend = connect()
    connection.receive(m.encode_query("COPY"))
    connection.take_output()
    connection.receive(m.encode_simple(b"f", b"client gave up\0"))
    output = messages_of(connection.take_output())
    assert [k for k, _ in output] == [b"E", b"Z"]
    assert b"C57014" in output[0][1]
    assert backend.session.sink.aborted is not None


def test_malformed_message_is_fatal_protocol_violation() -> None:
    connection, _ = connect()
    connection.receive(b"\x01" + struct.pack("!i", 4))
    output = messages_of(connection.take_output())
    assert output[0][0] == b"E" and b"C08P01" in output[0][1] and b"SFATAL" in output[0][1]
    assert connection.closed


def test_terminate_closes_session() -> None:
    connection, backend = connect()
    connection.receive(m.encode_simple(b"X"))
    assert connection.closed
    assert backend.session.calls[-1] == "close"


def _scram_client(connection: Connection, password: str) -> list[tuple[bytes, bytes]]:
    """The client side of SCRAM-SHA-256 as libpq does it (empty user name)."""
    client_nonce = "rOprNGfwEbeRWgbNEkqO"
    first_bare = f"n=,r={client_nonce}"
    initial = b"SCRAM-SHA-256\0" + struct.pack("!i", len(first_bare) + 3) + (
        b"n,," + first_bare.encode())
    connection.receive(m.encode_simple(b"p", initial))
    (kind, body), = messages_of(connection.take_output())
    assert kind == b"R" and struct.unpack("!i", body[:4])[0] == 11
    server_first = body[4:].decode()
    attributes = dict(part.split("=", 1) for part in server_first.split(","))
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(),
                                 base64.b64decode(attributes["s"]), int(attributes["i"]))
    client_key = hmac.new(salted, b"Client Key", "sha256").digest()
    stored_key = hashlib.sha256(client_key).digest()
    without_proof = f"c=biws,r={attributes['r']}"
    auth_message = f"{first_bare},{server_first},{without_proof}".encode()
    signature = hmac.new(stored_key, auth_message, "sha256").digest()
    proof = base64.b64encode(bytes(a ^ b for a, b in zip(client_key, signature,
                                                          strict=True))).decode()
    connection.receive(m.encode_simple(b"p", f"{without_proof},p={proof}".encode()))
    return messages_of(connection.take_output())


@pytest.mark.parametrize(("password", "succeeds"), [("s3cret", True), ("wrong", False)])
def test_scram_sha_256(password: str, succeeds: bool) -> None:
    backend = ScriptedBackend("scram-sha-256", "s3cret")
    connection = Connection(backend, "")  # type: ignore[arg-type]
    connection.receive(m.encode_startup({"user": "alice"}))
    (kind, body), = messages_of(connection.take_output())
    assert kind == b"R" and body == struct.pack("!i", 10) + b"SCRAM-SHA-256\0\0"
    output = _scram_client(connection, password)
    if succeeds:
        assert [k for k, _ in output][:2] == [b"R", b"R"]
        assert struct.unpack("!i", output[0][1][:4])[0] == 12
        assert connection.state is State.READY
    else:
        assert output[0][0] == b"E" and b"C28P01" in output[0][1]
        assert connection.closed


@pytest.mark.parametrize(("method", "wire_password", "succeeds"), [
    ("password", b"pw\0", True),
    ("password", b"nope\0", False),
    ("md5", None, True),
])
def test_cleartext_and_md5(method: str, wire_password: bytes | None, succeeds: bool) -> None:
    backend = ScriptedBackend(method, "pw")
    connection = Connection(backend, "")  # type: ignore[arg-type]
    connection.receive(m.encode_startup({"user": "bob"}))
    (kind, body), = messages_of(connection.take_output())
    assert kind == b"R"
    if method == "md5":
        salt = body[4:8]
        inner = hashlib.md5(b"pwbob").hexdigest().encode()
        wire_password = b"md5" + hashlib.md5(inner + salt).hexdigest().encode() + b"\0"
    assert wire_password is not None
    connection.receive(m.encode_simple(b"p", wire_password))
    output = messages_of(connection.take_output())
    assert (connection.state is State.READY) is succeeds
    if not succeeds:
        assert b"C28P01" in output[0][1]


def test_backend_can_terminate_the_session() -> None:
    connection, backend = connect()
    closed: list[bool] = []
    connection.close_hook = lambda: closed.append(True)
    assert backend.session.on_terminate is not None
    backend.session.on_terminate(m.Notice("FATAL", "25P03", "idle"))
    output = messages_of(connection.take_output())
    assert output[0][0] == b"E" and b"C25P03" in output[0][1]
    assert connection.closed and closed == [True]


@pytest.mark.parametrize("extended", [False, True])
def test_a_client_that_does_not_read_pauses_the_rows(extended: bool) -> None:
    """While the transport says the client is behind, the connection stops
    taking rows (Busy); it goes on where it stopped, without running the
    statement again."""
    connection, backend = connect()
    blocked = Wakeup()
    connection.output_blocked = lambda: None if blocked.fired else blocked
    total = 4000  # several OUTPUT_CHUNKs of DataRows
    if extended:
        connection.receive(m.encode_parse("", f"ROWS {total} 1000", []) + m.encode_bind("", "")
                           + m.encode_execute("", 0) + m.encode_simple(b"S"))
    else:
        connection.receive(m.encode_query(f"ROWS {total} 1000"))
    first = kinds(connection.take_output())
    assert connection.waiting is blocked
    assert "C" not in first and 0 < first.count("D") < total
    blocked.fire()
    connection.resume()
    rest = kinds(connection.take_output())
    assert first.count("D") + rest.count("D") == total
    assert rest.endswith("CZ")
    runs = [call for call in backend.session.calls if call.startswith(("run", "execute"))]
    assert len(runs) == 1
