"""Cutting a byte stream into protocol messages, with size limits.

A length word is checked before any body is buffered, so a client that
announces a 2 GB message is refused at once instead of making the server
wait for (or allocate) it.
"""

from __future__ import annotations

import struct

from wire.messages import MalformedMessage

_INT32 = struct.Struct("!i")

MAX_STARTUP_PACKET = 10_000
"""PostgreSQL's MAX_STARTUP_PACKET_LENGTH."""
SMALL_MESSAGE_LIMIT = 10_000
"""PostgreSQL's PQ_SMALL_MESSAGE_LIMIT, for messages that never carry data."""
DEFAULT_MAX_MESSAGE_SIZE = 256 * 1024 * 1024
_SMALL_TYPES = frozenset(b"CDEHSXc")


class FrameReader:
    """Accumulates received bytes and hands out complete packets."""

    __slots__ = ("_buffer", "_pos", "max_message_size")

    def __init__(self, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE) -> None:
        self._buffer = bytearray()
        self._pos = 0
        self.max_message_size = max_message_size

    def feed(self, data: bytes) -> None:
        if self._pos and self._pos == len(self._buffer):
            self._buffer.clear()
            self._pos = 0
        self._buffer += data

    def pending(self) -> int:
        """Bytes received but not yet handed out."""
        return len(self._buffer) - self._pos

    def view(self) -> tuple[bytearray, int]:
        """The buffer and where its unread bytes start, for a reader that
        takes many messages at once (``skip_to`` then says how far it read)."""
        return self._buffer, self._pos

    def skip_to(self, position: int) -> None:
        """Everything before ``position`` (in ``view``'s buffer) is read."""
        self._pos = position
        if position == len(self._buffer):
            self._buffer.clear()
            self._pos = 0

    def read_rest(self) -> bytes:
        """Everything buffered and not yet handed out (then forgotten)."""
        rest = bytes(self._buffer[self._pos:])
        self._buffer.clear()
        self._pos = 0
        return rest

    def read_startup(self) -> bytes | None:
        """The body of the next startup-phase packet (length word removed)."""
        buffer, pos = self._buffer, self._pos
        if len(buffer) - pos < 4:
            return None
        (length,) = _INT32.unpack_from(buffer, pos)
        if length < 8 or length > MAX_STARTUP_PACKET:
            raise MalformedMessage("invalid length of startup packet")
        end = pos + length
        if len(buffer) < end:
            return None
        self._pos = end
        return bytes(buffer[pos + 4:end])

    def read_message(self) -> tuple[bytes, bytes] | None:
        """The next ``(type byte, body)``, or None until it has fully arrived."""
        buffer, pos = self._buffer, self._pos
        if len(buffer) - pos < 5:
            return None
        kind = buffer[pos]
        (length,) = _INT32.unpack_from(buffer, pos + 1)
        limit = SMALL_MESSAGE_LIMIT if kind in _SMALL_TYPES else self.max_message_size
        if length < 4 or length - 4 > limit:
            raise MalformedMessage(f"invalid message length {length} for message type {kind}")
        end = pos + 1 + length
        if len(buffer) < end:
            return None
        self._pos = end
        if end == len(buffer):
            body = bytes(buffer[pos + 5:end])
            buffer.clear()
            self._pos = 0
        else:
            body = bytes(buffer[pos + 5:end])
            if pos > 65536:
                del buffer[:end]
                self._pos = 0
        return bytes((kind,)), body
