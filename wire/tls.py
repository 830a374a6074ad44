"""TLS for one connection, as a filter between the socket and the protocol.

PostgreSQL starts TLS in the middle of a connection: the client sends
SSLRequest in clear, the server answers 'S', and everything after that is
TLS. The handshake happens on the listener thread and the rest on the event
loop, so the TLS state cannot live in a socket object: it lives here, in an
``ssl.SSLObject`` over memory buffers, which either thread can drive.
"""

from __future__ import annotations

import ssl
from pathlib import Path


class TlsFailed(Exception):
    """The handshake failed or the peer sent something that is not TLS."""


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    """A server context with the certificate chain and its key (TLS 1.2+)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context


class TlsChannel:
    """Ciphertext in, plaintext out (``receive``); plaintext in, ciphertext
    out (``send`` then ``take_output``)."""

    __slots__ = ("_incoming", "_object", "_outgoing", "established")

    def __init__(self, context: ssl.SSLContext) -> None:
        self._incoming = ssl.MemoryBIO()
        self._outgoing = ssl.MemoryBIO()
        self._object = context.wrap_bio(self._incoming, self._outgoing, server_side=True)
        self.established = False

    def receive(self, data: bytes) -> bytes:
        """Feed bytes from the socket; returns the plaintext they complete."""
        self._incoming.write(data)
        parts: list[bytes] = []
        try:
            if not self.established:
                self._object.do_handshake()
                self.established = True
            # b"" means the peer ended TLS: the socket closes next
            while chunk := self._object.read(65536):
                parts.append(chunk)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError, ssl.SSLZeroReturnError):
            pass
        except ssl.SSLError as exc:
            raise TlsFailed(exc.reason or str(exc)) from exc
        return b"".join(parts)

    def send(self, plaintext: bytes) -> None:
        if plaintext:
            try:
                self._object.write(plaintext)
            except ssl.SSLError as exc:
                raise TlsFailed(exc.reason or str(exc)) from exc

    def take_output(self) -> bytes:
        """Ciphertext to write to the socket (handshake replies included)."""
        return self._outgoing.read()
