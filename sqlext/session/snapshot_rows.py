"""The rest of a large result, read from a snapshot by a forked child.

A query runs on the serial executor between transactions, as every
statement does; its first chunk of rows goes out from there. When rows are
left after that chunk (a Spark partition read, a big SELECT), the server
forks, as the checkpointer does: the child holds a copy-on-write image of
the whole process as of that instant, so the query's open SQLite cursor in
the child goes on reading exactly the state the statement started on, while
the server's own copy moves on at once. The child encodes the rows a chunk
at a time (the DataRows the portal would send) and writes them to a pipe;
the server passes them to the client. Writers never wait for the reader and
the reader never for writers; several such reads run at once, each on a
core of its own; the stream stalls only for the fork, which copies page
tables, not data (about 2 ms per 100 MB of the server's memory).

The child runs at a lower CPU priority than the server (``CHILD_NICENESS``),
so a machine with fewer free cores than readers gives the dataflow its share
first. Only queries that leave the engine untouched read this way
(``SqlPlan.snapshot_reads``): no writes, no sequences, settings,
notifications, locks or dataflow waits, whose effects the child would keep
to itself.

Pipe frames: ``!iI`` (rows, bytes) then the DataRows of that many rows;
rows -1 ends the result (its bytes, if any, are the CommandComplete tag:
reads of an exported snapshot send one), rows -2 carries a pickled error
(SQLSTATE, message, fields) instead of rows. ``exported_snapshots`` sends
CopyData messages the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import pickle
import signal
import struct
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from catalog import errors
from executor.core import LiveCursor, WouldBlock
from storage import sqlite
from wire.backend import BackendError

CHILD_NICENESS: Final = 7
"""How much lower the child's CPU priority is than the server's: by the
Linux scheduler's weights, a server sharing a core with a reader keeps
about 85% of it."""
LARGE: Final = 2000
"""Rows that must be left after a query's first chunk for a child to read
them: fewer are read on the executor (a fork costs a few milliseconds)."""
MAX_READERS: Final = 8
"""Forked readers at once; a query past that reads on the executor."""
_FRAME: Final = struct.Struct("!iI")
_INT32: Final = struct.Struct("!i")
_END: Final = -1
_ERROR: Final = -2
_ERROR_FIELDS: Final = ("detail", "hint", "position", "severity", "schema", "table", "column",
                        "constraint", "routine")
_readers: set[ForkedRows] = set()

RowsEncoder = Callable[[Sequence[Any]], bytes]
"""A chunk of stored rows -> their DataRow messages."""
ErrorTranslator = Callable[[sqlite.Error], errors.SqlError]


_forks = True


def may_fork() -> bool:
    return _forks and len(_readers) < MAX_READERS


def forbid_forks() -> None:
    """This process is itself a forked reader (it has no event loop to
    watch a child with): its queries read here."""
    global _forks
    _forks = False


class ForkedRows:
    """The server's end: chunks of encoded rows as the child sends them."""

    def __init__(self, loop: asyncio.AbstractEventLoop, pid: int | None, fd: int,
                 on_close: Callable[[], None] | None = None) -> None:
        """``pid``: the child to end when the rows are no longer wanted
        (None: another process's child, which ends when the pipe closes);
        ``on_close`` is called once they are all taken or no longer wanted."""
        self._loop = loop
        self._pid = pid
        self._on_close = on_close
        self.tag: str | None = None
        """The CommandComplete tag the child sent with its last frame."""
        self._fd: int | None = fd
        self._received = bytearray()
        self._frames: deque[tuple[int, bytes]] = deque()
        """Whole frames received and not yet taken."""
        self._ended = False
        self._failure: errors.SqlError | None = None
        self._readable: asyncio.Future[None] | None = None
        _readers.add(self)

    @classmethod
    def start(cls, loop: asyncio.AbstractEventLoop, rows: list[Any],
              cursor: sqlite.Cursor | None, encode: RowsEncoder, chunk_rows: int,
              translate: ErrorTranslator) -> ForkedRows:
        """Fork now: the child sends ``rows`` (read but not sent), then the
        rest of ``cursor``, ``chunk_rows`` at a time."""
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child ends in os._exit
            os.close(read_fd)
            _child(write_fd, rows, cursor, encode, chunk_rows, translate)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        return cls(loop, pid, read_fd)

    def fetch(self, count: int) -> tuple[bytes, int, bool]:
        """The DataRows of up to ``count`` rows (0: the next chunk), how many
        they are, and whether they are the last. Raises WouldBlock until the
        child has sent them, and the child's error when it failed."""
        self._receive()
        if not self._frames and not self._ended:
            raise WouldBlock(self._when_readable())
        if self._failure is not None and not self._frames:
            failure, self._failure = self._failure, None
            self.close()
            raise failure
        if not self._frames:
            self.close()
            return b"", 0, True
        rows, data = self._frames.popleft()
        if count and rows > count:
            data, rest = _split_rows(data, count)
            self._frames.appendleft((rows - count, rest))
            rows = count
        last = self._ended and not self._frames and self._failure is None
        if last:
            self.close()
        return data, rows, last

    def close(self) -> None:
        """The rows are no longer wanted (or all taken): the child goes."""
        _readers.discard(self)
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()
        if self._readable is not None:
            self._loop.remove_reader(self._fd)  # type: ignore[arg-type]
            self._readable = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        pid, self._pid = self._pid, None
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            threading.Thread(target=reap, args=(pid,), name="sqlext-reader-reap",
                             daemon=True).start()

    def _receive(self) -> None:
        while self._fd is not None and not self._ended:
            try:
                data = os.read(self._fd, 1 << 20)
            except BlockingIOError:
                break
            if not data:  # the child ended without its last frame
                self._ended = True
                self._failure = self._failure or errors.InternalError(
                    "the process reading the query's snapshot ended before its last row")
                break
            self._received += data
            self._take_frames()

    def _take_frames(self) -> None:
        received = self._received
        position = 0
        while len(received) - position >= _FRAME.size:
            rows, size = _FRAME.unpack_from(received, position)
            end = position + _FRAME.size + size
            if len(received) < end:
                break
            payload = bytes(received[position + _FRAME.size:end])
            position = end
            if rows == _END:
                self._ended = True
                self.tag = payload.decode() if payload else None
            elif rows == _ERROR:
                self._ended = True
                self._failure = _error(payload)
            else:
                self._frames.append((rows, payload))
        del received[:position]

    def _when_readable(self) -> asyncio.Future[None]:
        if self._readable is None:
            future = self._loop.create_future()
            fd = self._fd
            assert fd is not None

            def readable() -> None:
                self._loop.remove_reader(fd)
                self._readable = None
                if not future.done():
                    future.set_result(None)

            self._loop.add_reader(fd, readable)
            self._readable = future
        return self._readable


def _split_rows(data: bytes, count: int) -> tuple[bytes, bytes]:
    """The first ``count`` DataRows of ``data`` and the rest (a client asked
    for fewer rows at a time than the child sends)."""
    position = 0
    length = _INT32.unpack_from
    for _ in range(count):
        position += 1 + length(data, position + 1)[0]
    return data[:position], data[position:]


def _error(payload: bytes) -> errors.SqlError:
    sqlstate, message, fields = pickle.loads(payload)
    return errors.lookup(sqlstate)(message, **fields)


def rows_frame(rows: int, data: bytes) -> bytes:
    """The frame of ``rows`` rows' encoded ``data``."""
    return _FRAME.pack(rows, len(data)) + data


def end_frame(tag: str = "") -> bytes:
    """The last frame of a result (with its tag, if any)."""
    data = tag.encode()
    return _FRAME.pack(_END, len(data)) + data


def error_frame(failure: errors.SqlError | BackendError) -> bytes:
    """The last frame of a result that failed (an engine error, or the
    wire's form of one)."""
    if isinstance(failure, BackendError):
        notice = failure.notice
        failure = errors.lookup(notice.code)(notice.message, detail=notice.detail,
                                             hint=notice.hint)
    payload = pickle.dumps((failure.sqlstate, failure.message,
                            {name: getattr(failure, name) for name in _ERROR_FIELDS}))
    return _FRAME.pack(_ERROR, len(payload)) + payload


def reap(pid: int) -> None:
    """Wait for a child process to end (run in a thread of its own)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _become_reader(fd: int) -> None:  # pragma: no cover
    """A forked reader keeps only ``fd`` (the server's sockets, log and data
    directory stay the server's), runs at a lower priority and never
    collects garbage (a collection would touch, and so copy, pages for
    nothing); it reads no more once it is a reader itself."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)
    os.closerange(3, fd)
    os.closerange(fd + 1, os.sysconf("SC_OPEN_MAX"))
    os.nice(CHILD_NICENESS)
    gc.disable()
    forbid_forks()


def _child(fd: int, rows: list[Any], cursor: sqlite.Cursor | None, encode: RowsEncoder,
           chunk_rows: int, translate: ErrorTranslator) -> None:  # pragma: no cover
    """The forked child: send the rows, then exit (never return into the
    server's code: its event loop, threads and files are the server's)."""
    try:
        _become_reader(fd)
        out = os.fdopen(fd, "wb", buffering=1 << 20)
        try:
            while True:
                if cursor is not None and len(rows) < chunk_rows:
                    more = cursor.fetchmany(chunk_rows - len(rows))
                    if len(more) < chunk_rows - len(rows):
                        cursor = None
                    rows.extend(more)
                if rows:
                    out.write(rows_frame(len(rows), encode(rows)))
                    rows = []
                if cursor is None:
                    out.write(end_frame())
                    break
        except (sqlite.Error, errors.SqlError) as exc:
            out.write(error_frame(translate(exc) if isinstance(exc, sqlite.Error) else exc))
        out.flush()
    finally:
        os._exit(0)


def worth_forking(snapshot_reads: bool, cursor: LiveCursor | None) -> bool:
    """Whether the rest of a query (``SqlPlan.snapshot_reads``) still to be
    read from ``cursor`` is large enough to be read by a forked child."""
    return snapshot_reads and cursor is not None and may_fork() and cursor.has_left(LARGE)


class HandedOver:
    """The messages of a COPY ... TO STDOUT: made here until its query turns
    out large (``worth``), then by a forked child that goes on with the
    same iterator on its image of the server, while the server passes
    what the child sends on (``fetch``: ``ForkedRows.fetch(0)``, raising
    the connection's Busy while nothing has arrived)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, messages: Iterator[bytes],
                 tag: Callable[[], str], worth: Callable[[], bool],
                 fetch: Callable[[ForkedRows], tuple[bytes, int, bool]],
                 handed_over: Callable[[], None], done: Callable[[], None]) -> None:
        """``handed_over``: the server's end of the query goes (its portal
        closes); ``done``: the child sent the last message."""
        self._loop = loop
        self._messages = messages
        self._tag = tag
        self._worth = worth
        self._fetch = fetch
        self._handed_over = handed_over
        self._done = done
        self._forked: ForkedRows | None = None
        self._last = False

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        forked = self._forked
        if forked is None:
            message = next(self._messages)
            if self._worth():
                self._fork()
            return message
        if self._last:
            raise StopIteration
        data, _, self._last = self._fetch(forked)
        if self._last:
            self._done()
        return data

    def tag(self) -> str:
        """The CommandComplete tag (the child's, once it made the messages)."""
        if self._forked is None:
            return self._tag()
        return self._forked.tag or self._tag()

    def _fork(self) -> None:
        read_fd, write_fd = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            self._worth = lambda: False  # the rest is made here
            return
        if pid == 0:  # pragma: no cover - the child ends in os._exit
            os.close(read_fd)
            _send_rest(write_fd, self._messages, self._tag)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        self._forked = ForkedRows(self._loop, pid, read_fd)
        self._handed_over()


def _send_rest(fd: int, messages: Iterator[bytes], tag: Callable[[], str]
               ) -> None:  # pragma: no cover
    """The forked child of ``HandedOver``: the rest of the messages, then
    the tag."""
    try:
        _become_reader(fd)
        out = os.fdopen(fd, "wb", buffering=1 << 20)
        try:
            for message in messages:
                out.write(rows_frame(0, bytes(message)))
            out.write(end_frame(tag()))
        except (errors.SqlError, BackendError) as exc:
            out.write(error_frame(exc))
        out.flush()
    finally:
        os._exit(0)
