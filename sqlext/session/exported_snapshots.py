"""Exported snapshots: images of the whole engine that many sessions read as
one consistent state (``sqlext_export_snapshot()``, then ``SET TRANSACTION
SNAPSHOT`` in each reader, as ``pg_dump -j`` does with PostgreSQL).

Export. A query calling sqlext_export_snapshot() gets the executor as any
read does: between transactions, and only once every TE that committed
batches set off has run (triggered TEs keep it reserved until then), so an
image never shows half of a batch's dataflow. Before the query runs, the
server forks a *holder*: a copy-on-write image of the whole engine as of
that instant, as the checkpointer's child is. The holder does nothing but
wait for requests; its pages are copied only as the server changes its own.
It lives until sqlext_release_snapshot(id), until no read has used it for
its idle timeout, until an export needs its place (past ``MAX_HOLDERS``
images the one unused the longest goes; only when all are in use is an
export refused), or until the server stops; it dies with the server
(PR_SET_PDEATHSIG), and the server reaps it.

Reads. Each statement of a transaction that imported the snapshot is sent
to the holder, which forks a *reader* for it (so two partitions read on two
cores, while the server's executor serves writers). The reader runs the
statement on its image and streams the encoded result (DataRows or
CopyData messages) back through a pipe the server made.

Control channel: an AF_UNIX SOCK_SEQPACKET pair, server -> holder. Each
message is one pickled ``ReadRequest`` with one file descriptor attached
(SCM_RIGHTS): the write end of the pipe the result is to go to. End of
file on the channel (the snapshot was released or expired): the holder
waits for its readers to finish and exits. Result pipe, reader -> server:
``snapshot_rows`` frames (``!iI`` rows and bytes, then that many DataRows
or CopyData messages; rows -1 ends with the command tag, rows -2 carries
an error).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import math
import os
import pickle
import signal
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from catalog import errors
from sqlext.session.snapshot_rows import CHILD_NICENESS, ForkedRows, reap

MAX_HOLDERS: Final = 16
"""Images held at once (each pins the memory the server has changed since);
past it an unused one makes way for a new export."""
REQUEST_LIMIT: Final = 1 << 20
"""The largest request (mostly its parameter values), in bytes."""
_PR_SET_PDEATHSIG: Final = 1


@dataclass(frozen=True, slots=True)
class ReadRequest:
    """One statement for a reader: what it needs to run it as the session
    that sent it would have."""

    sql: str
    index: int
    """The statement's position in ``sql`` (a simple Query may hold several)."""
    declared: tuple[int, ...]
    params: list[Any]
    """Parameter values in storage form."""
    result_formats: list[int]
    shape: tuple[tuple[str, int, int], ...] | None
    """The columns the client was told of (None: COPY, which tells no columns)."""
    user: str
    database: str
    settings: dict[str, str]
    process_id: int


Serve = Callable[[ReadRequest, int], None]
"""In a reader: run the request and write its frames to the file descriptor."""


class Holder:
    """The server's end of one held image."""

    def __init__(self, pid: int, control: socket.socket) -> None:
        self.pid = pid
        self.control: socket.socket | None = control
        self.snapshot_id: str | None = None
        self.idle_timeout_s = 0.0
        self.users = 0
        """Reads running and open transactions that imported it."""
        self.released = False
        self.timer: asyncio.TimerHandle | None = None
        self.last_used = 0.0
        """When a read or transaction last stopped (or started) using it."""


class SnapshotHolders:
    """Every held image of the server, by id."""

    def __init__(self, loop: asyncio.AbstractEventLoop, serve: Serve,
                 limit: int = MAX_HOLDERS) -> None:
        self._loop = loop
        self._serve = serve
        self._limit = limit
        self._by_id: dict[str, Holder] = {}
        self._live: set[Holder] = set()
        self._pending: Holder | None = None
        """The image forked for the running query, until it calls publish."""
        self._exported = 0

    # --- export ------------------------------------------------------------------------

    def fork(self) -> None:
        """Fork a holder now (the running query calls sqlext_export_snapshot())."""
        if len(self._live) >= self._limit:
            unused = [h for h in self._live if h.users == 0 and h.snapshot_id is not None]
            if not unused:
                raise errors.ConfigurationLimitExceeded(
                    f"too many exported snapshots ({len(self._live)} are being read)",
                    hint="Wait for a read to end, or release a snapshot with "
                         "sqlext_release_snapshot(id).")
            self._end(min(unused, key=lambda h: h.last_used))
        server_end, holder_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        server_end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, REQUEST_LIMIT)
        parent = os.getpid()
        try:
            pid = os.fork()
        except OSError as exc:
            server_end.close()
            holder_end.close()
            raise errors.InsufficientResources(
                f"could not fork the process holding a snapshot: {exc}") from exc
        if pid == 0:  # pragma: no cover - the holder ends in os._exit
            _hold(holder_end, parent, self._serve)
        holder_end.close()
        holder = Holder(pid, server_end)
        self._live.add(holder)
        self._pending = holder

    def publish(self, idle_timeout_s: float) -> str:
        """The id of the image forked for the running query (the same for
        every call in it)."""
        holder = self._pending
        if holder is None:
            raise errors.FeatureNotSupported(
                "sqlext_export_snapshot() must be called by a query of its own, not from a "
                "view, procedure or trigger")
        if not idle_timeout_s > 0:
            raise errors.InvalidParameterValue(
                "sqlext_export_snapshot idle timeout must be greater than zero")
        if holder.snapshot_id is None:
            self._exported += 1
            holder.snapshot_id = f"{os.getpid():08X}-{self._exported:08X}-1"
            holder.idle_timeout_s = idle_timeout_s
            holder.last_used = self._loop.time()
            self._by_id[holder.snapshot_id] = holder
            self._arm(holder)
        return holder.snapshot_id

    def settle(self) -> None:
        """The query that forked an image is over: unless it published it,
        the image goes."""
        holder, self._pending = self._pending, None
        if holder is not None and holder.snapshot_id is None:
            self._end(holder)

    # --- import and reads --------------------------------------------------------------

    def attach(self, snapshot_id: str) -> Holder:
        """A transaction imports the snapshot: it stays until the
        transaction ends (``detach``)."""
        holder = self._by_id.get(snapshot_id)
        if holder is None:
            raise errors.InvalidParameterValue(f'invalid snapshot identifier: "{snapshot_id}"')
        self._use(holder)
        return holder

    def detach(self, holder: Holder) -> None:
        holder.users -= 1
        holder.last_used = self._loop.time()
        if holder.users == 0:
            if holder.released:
                self._end(holder)
            else:
                self._arm(holder)

    def read(self, holder: Holder, request: ReadRequest) -> ForkedRows:
        """Have a reader forked from ``holder`` run ``request``; its frames
        arrive through the returned reader."""
        payload = pickle.dumps(request)
        if len(payload) > REQUEST_LIMIT:
            raise errors.ProgramLimitExceeded(
                f"a read of an exported snapshot takes at most {REQUEST_LIMIT} bytes of "
                f"statement and parameters ({len(payload)} given)")
        if holder.control is None:
            raise errors.InvalidParameterValue(
                f'invalid snapshot identifier: "{holder.snapshot_id}"')
        read_fd, write_fd = os.pipe()
        try:
            socket.send_fds(holder.control, [payload], [write_fd])
        except OSError as exc:
            os.close(read_fd)
            raise errors.InternalError(
                f'the process holding snapshot "{holder.snapshot_id}" is gone: {exc}') from exc
        finally:
            os.close(write_fd)
        os.set_blocking(read_fd, False)
        self._use(holder)
        return ForkedRows(self._loop, None, read_fd, lambda: self.detach(holder))

    # --- ending ------------------------------------------------------------------------

    def release(self, snapshot_id: str) -> None:
        """sqlext_release_snapshot(): the id is forgotten now; the image
        goes once the reads and transactions using it are over."""
        holder = self._by_id.pop(snapshot_id, None)
        if holder is None:
            raise errors.InvalidParameterValue(f'invalid snapshot identifier: "{snapshot_id}"')
        holder.released = True
        if holder.users == 0:
            self._end(holder)

    def close(self) -> None:
        """The server stops: every holder (and so every reader) dies now."""
        for holder in list(self._live):
            with contextlib.suppress(ProcessLookupError):
                os.kill(holder.pid, signal.SIGKILL)
            self._end(holder)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(holder.pid, 0)

    def _use(self, holder: Holder) -> None:
        holder.users += 1
        holder.last_used = self._loop.time()
        if holder.timer is not None:
            holder.timer.cancel()
            holder.timer = None

    def _arm(self, holder: Holder) -> None:
        """Count its idle time from now (an infinite timeout never ends)."""
        if holder.timer is not None:
            holder.timer.cancel()
            holder.timer = None
        if math.isfinite(holder.idle_timeout_s):
            holder.timer = self._loop.call_later(holder.idle_timeout_s, self._expire, holder)

    def _expire(self, holder: Holder) -> None:
        holder.timer = None
        if holder.users == 0 and holder.snapshot_id is not None:
            self._by_id.pop(holder.snapshot_id, None)
            self._end(holder)

    def _end(self, holder: Holder) -> None:
        """Close the holder's channel: it exits once its readers are done."""
        if holder.timer is not None:
            holder.timer.cancel()
            holder.timer = None
        if holder.snapshot_id is not None and self._by_id.get(holder.snapshot_id) is holder:
            del self._by_id[holder.snapshot_id]
        if holder not in self._live:
            return
        self._live.discard(holder)
        control, holder.control = holder.control, None
        if control is not None:
            control.close()
        threading.Thread(target=reap, args=(holder.pid,), name="sqlext-holder-reap",
                         daemon=True).start()


def _die_with(parent: int) -> None:
    """This process gets SIGKILL when its parent ends (and ends now if the
    parent already has)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(0)


def _hold(control: socket.socket, parent: int, serve: Serve) -> None:  # pragma: no cover
    """The holder: fork a reader per request until the channel closes, then
    wait for the readers and exit (never return into the server's code)."""
    try:
        _die_with(parent)
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the readers
        keep = control.fileno()
        os.closerange(3, keep)
        os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
        gc.disable()  # a collection would touch (and so copy) pages for nothing
        holder = os.getpid()
        while True:
            message, fds, _, _ = socket.recv_fds(control, REQUEST_LIMIT, 1)
            if not message:
                break
            if not fds:
                continue
            if os.fork() == 0:
                control.close()
                _read(holder, serve, message, fds[0])
            os.close(fds[0])
        with contextlib.suppress(ChildProcessError):
            os.wait()  # returns once every reader has ended
    finally:
        os._exit(0)


def _read(holder: int, serve: Serve, message: bytes, fd: int) -> None:  # pragma: no cover
    try:
        _die_with(holder)
        os.nice(CHILD_NICENESS)
        serve(pickle.loads(message), fd)
    finally:
        os._exit(0)
