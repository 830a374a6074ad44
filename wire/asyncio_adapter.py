"""The asyncio adapter: sockets in, ``Connection`` objects behind them.

Statements run on the event loop thread (the engine's serial executor lives
there), so a long statement keeps the loop busy. A CancelRequest for it must
still get through: connections are therefore accepted by a small listener
thread that answers the packets before StartupMessage itself (SSLRequest,
GSSENCRequest, CancelRequest) and hands every real session to the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import selectors
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import cast

from wire import messages
from wire.backend import Backend
from wire.framing import DEFAULT_MAX_MESSAGE_SIZE, FrameReader
from wire.messages import MalformedMessage
from wire.protocol import Connection, StartupNegotiation, protocol_violation
from wire.tls import TlsChannel, TlsFailed

log = logging.getLogger("sqlext")

STARTUP_TIMEOUT_S = 60.0
"""Like PostgreSQL's authentication_timeout: a silent client is dropped."""
OUTPUT_BUFFER_LIMIT = 4 << 20
"""Bytes a connection may have waiting for its client before it stops
producing more (results are read from their cursors as they are sent)."""
TURN_SECONDS = 0.05
"""How long one connection sends a result before the others get a turn."""


class _ClientProtocol(asyncio.Protocol):
    """Moves bytes between one socket and its ``Connection``."""

    def __init__(self, connection: Connection, startup: messages.StartupMessage,
                 leftover: bytes, tls: TlsChannel | None, registry: set[_ClientProtocol]
                 ) -> None:
        self.connection = connection
        self.startup = startup
        self.leftover = leftover
        self.tls = tls
        self.registry = registry
        self.transport: asyncio.Transport | None = None
        self._writable: asyncio.Future[None] | None = None
        """Pending while the transport's buffer is over its limit."""
        self._ended = False
        """The client ended its side while a call was postponed."""
        self._turn_started = 0.0
        """When this connection's current turn of the event loop began."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a socket transport (asyncio's own or uvloop's, which is not a subclass)
        self.transport = cast(asyncio.Transport, transport)
        self.registry.add(self)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.transport.set_write_buffer_limits(high=OUTPUT_BUFFER_LIMIT)
        self.connection.flush_hook = self._flush
        self.connection.close_hook = self._after_processing
        self.connection.output_blocked = self._output_blocked
        self.connection.unsent_bytes = self.transport.get_write_buffer_size
        self.connection.framer.feed(self.leftover)
        self.connection.start_with(self.startup)
        self._after_processing()

    def data_received(self, data: bytes) -> None:
        if self.tls is not None:
            try:
                data = self.tls.receive(data)
            except TlsFailed as exc:
                log.info("TLS error from %s: %s", self.connection.peer, exc)
                self.close()
                return
        self._turn_started = asyncio.get_running_loop().time()
        self.connection.receive(data)
        self._after_processing()

    def eof_received(self) -> bool:
        """The client ended its side: messages it sent before still get
        their answers (True keeps the transport open until then)."""
        if self.connection.waiting is None:
            return False
        self._ended = True
        return True

    def _output_blocked(self) -> asyncio.Future[None] | None:
        """What a long result waits for: the client to read (the buffer is
        full), or, after TURN_SECONDS of sending, the other connections'
        turn of the event loop."""
        if self._writable is not None:
            return self._writable
        loop = asyncio.get_running_loop()
        if loop.time() - self._turn_started < TURN_SECONDS:
            return None
        turn: asyncio.Future[None] = loop.create_future()
        loop.call_soon(lambda: turn.done() or turn.set_result(None))
        return turn

    def connection_lost(self, exc: Exception | None) -> None:
        self.registry.discard(self)
        self.resume_writing()
        self.connection.connection_lost()

    def pause_writing(self) -> None:
        if self._writable is None:
            self._writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        writable, self._writable = self._writable, None
        if writable is not None and not writable.done():
            writable.set_result(None)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def _flush(self) -> None:
        data = self.connection.take_output()
        if self.tls is not None:
            self.tls.send(data)
            data = self.tls.take_output()
        if data and self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _after_processing(self) -> None:
        self._flush()
        assert self.transport is not None
        if self.connection.closed or (self._ended and self.connection.waiting is None):
            if self.transport.get_write_buffer_size() > OUTPUT_BUFFER_LIMIT:
                self.transport.abort()  # the client is not reading: drop what it did not take
            else:
                self.transport.close()
        elif self.connection.waiting is not None:
            self.transport.pause_reading()
            self.connection.waiting.add_done_callback(self._wake)

    def _wake(self, _: object) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        self.transport.resume_reading()
        self._turn_started = asyncio.get_running_loop().time()
        self.connection.resume()
        self._after_processing()


@dataclass(slots=True)
class _Handshake:
    sock: socket.socket
    peer: str
    port: int | None
    framer: FrameReader
    negotiation: StartupNegotiation
    deadline: float
    tls: TlsChannel | None = None


class _Listener(threading.Thread):
    """Accepts connections and deals with the packets before StartupMessage."""

    def __init__(self, server: WireServer, sock: socket.socket) -> None:
        super().__init__(name="sqlext-listener", daemon=True)
        self.server = server
        self.sock = sock
        self.selector = selectors.DefaultSelector()
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._stopping = False

    def stop(self) -> None:
        self._stopping = True
        self._wakeup_w.send(b"x")

    def run(self) -> None:
        self.sock.setblocking(False)
        self.selector.register(self.sock, selectors.EVENT_READ, None)
        self.selector.register(self._wakeup_r, selectors.EVENT_READ, None)
        try:
            while not self._stopping:
                for key, _ in self.selector.select(timeout=1.0):
                    if key.fileobj is self.sock:
                        self._accept()
                    elif key.data is not None:
                        self._read(key.data)
                self._expire()
        finally:
            for key in list(self.selector.get_map().values()):
                if key.data is not None:
                    key.data.sock.close()
            self.selector.close()
            self.sock.close()
            self._wakeup_r.close()
            self._wakeup_w.close()

    def _accept(self) -> None:
        try:
            conn, address = self.sock.accept()
        except (BlockingIOError, InterruptedError):
            return
        conn.setblocking(False)
        framer = FrameReader(self.server.max_message_size)
        negotiation = StartupNegotiation(framer, tls=self.server.tls_context is not None)
        handshake = _Handshake(conn, _peer_name(address), _peer_port(address), framer,
                               negotiation, time.monotonic() + STARTUP_TIMEOUT_S)
        self.selector.register(conn, selectors.EVENT_READ, handshake)

    def _drop(self, handshake: _Handshake) -> None:
        self.selector.unregister(handshake.sock)
        handshake.sock.close()

    def _read(self, handshake: _Handshake) -> None:
        try:
            data = handshake.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._drop(handshake)
            return
        if not data:
            self._drop(handshake)
            return
        tls = handshake.tls
        try:
            if tls is not None:
                data = tls.receive(data)
                self._send(handshake, tls.take_output())
            handshake.framer.feed(data)
            reply, packet = handshake.negotiation.advance()
            if isinstance(packet, messages.SSLRequest):
                self._send(handshake, reply)
                assert self.server.tls_context is not None  # only then is TLS offered
                handshake.tls = tls = TlsChannel(self.server.tls_context)
                # bytes that followed SSLRequest already belong to TLS
                handshake.framer.feed(tls.receive(handshake.framer.read_rest()))
                self._send(handshake, tls.take_output())
                return
            if tls is not None:
                tls.send(reply)
                reply = tls.take_output()
            self._send(handshake, reply)
        except MalformedMessage as exc:
            self._refuse(handshake, str(exc))
            return
        except (OSError, TlsFailed):
            self._drop(handshake)
            return
        if packet is None:
            return
        if isinstance(packet, messages.CancelRequest):
            self.server.backend.cancel(packet.process_id, packet.secret_key)
            self._drop(handshake)
            return
        self.selector.unregister(handshake.sock)
        leftover = handshake.framer.read_rest()
        self.server.adopt(handshake.sock, (handshake.peer, handshake.port), packet, leftover,
                          tls)

    @staticmethod
    def _send(handshake: _Handshake, data: bytes) -> None:
        if data:
            handshake.sock.sendall(data)

    def _refuse(self, handshake: _Handshake, reason: str) -> None:
        try:
            error = messages.error_response(protocol_violation(reason))
            if handshake.tls is not None:
                handshake.tls.send(error)
                error = handshake.tls.take_output()
            handshake.sock.setblocking(True)
            handshake.sock.settimeout(1.0)
            handshake.sock.sendall(error)
        except (OSError, TlsFailed):
            pass
        self._drop(handshake)

    def _expire(self) -> None:
        now = time.monotonic()
        for key in list(self.selector.get_map().values()):
            handshake = key.data
            if handshake is not None and handshake.deadline < now:
                self._drop(handshake)


def _peer_name(address: object) -> str:
    if isinstance(address, tuple) and address:
        return str(address[0])
    return str(address)


def _peer_port(address: object) -> int | None:
    if isinstance(address, tuple) and len(address) > 1:
        return int(address[1])
    return None


class WireServer:
    """Listens on ``host:port`` (port 0 picks a free one) for ``backend``."""

    def __init__(
        self,
        backend: Backend,
        host: str = "127.0.0.1",
        port: int = 5499,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        tls_context: ssl.SSLContext | None = None,
    ) -> None:
        self.backend = backend
        self.host = host
        self.port = port
        self.max_message_size = max_message_size
        self.tls_context = tls_context
        """Offered to clients that send SSLRequest (None: no TLS)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: _Listener | None = None
        self._clients: set[_ClientProtocol] = set()

    def start(self) -> None:
        """Bind and start accepting; call from the running event loop."""
        self._loop = asyncio.get_running_loop()
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        sock.listen(512)
        self.port = sock.getsockname()[1]
        self._listener = _Listener(self, sock)
        self._listener.start()

    def adopt(self, sock: socket.socket, peer: tuple[str, int | None],
              startup: messages.StartupMessage, leftover: bytes, tls: TlsChannel | None) -> None:
        """Called from the listener thread with a socket past the handshake."""
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._adopt, sock, peer, startup, leftover, tls)

    def _adopt(self, sock: socket.socket, peer: tuple[str, int | None],
               startup: messages.StartupMessage, leftover: bytes, tls: TlsChannel | None) -> None:
        assert self._loop is not None
        host, port = peer
        connection = Connection(self.backend, host, self.max_message_size, tls=tls is not None,
                                peer_port=port)
        self._loop.create_task(
            self._loop.connect_accepted_socket(
                lambda: _ClientProtocol(connection, startup, leftover, tls, self._clients), sock
            )
        )

    def close(self) -> None:
        if self._listener is not None:
            self._listener.stop()
            self._listener.join(timeout=5)
            self._listener = None
        for client in list(self._clients):
            client.close()
