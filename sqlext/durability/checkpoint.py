"""Checkpoints: a snapshot of the whole state, taken without stopping the stream.

The checkpointer waits its turn for the serial executor like any writer, so
it runs between transactions (never inside a batch's dataflow, whose TEs the
scheduler runs back to back). It then starts a new log segment and forks: the
child process holds a copy-on-write image of the in-memory database and the
engine state as of that instant and writes the snapshot files, while the
server goes on at once. The stream stalls only for the fork itself, which
copies page tables, not data (about 20 ms per GB here; see docs/benchmarks.md).

The snapshot is published (its manifest renamed into place) when the child
succeeded and the log up to its LSN is durable; then old snapshots beyond
the number kept and the log segments no kept snapshot needs are deleted.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from executor.core import Executor, Token, WouldBlock
from executor.streaming.scheduler import Scheduler
from sqlext.durability import engine_state
from sqlext.durability.journal import Journal
from storage import commandlog, snapshots

log = logging.getLogger("sqlext")

TICK_S = 1.0


@dataclass(frozen=True, slots=True)
class CheckpointRecord:
    lsn: int
    finished: datetime
    stall_ms: float
    """How long the executor was held: the fork."""
    seconds: float
    """From the fork to the published snapshot."""
    size_bytes: int
    error: str | None = None


class Checkpointer:
    def __init__(self, loop: asyncio.AbstractEventLoop, executor: Executor,
                 scheduler: Scheduler, journal: Journal, directory: Path, keep: int,
                 interval_s: float, log_bytes: int, snapshot_lsn: int) -> None:
        self.loop = loop
        self.executor = executor
        self.scheduler = scheduler
        self.journal = journal
        self.directory = directory
        self.keep = keep
        self.interval_s = interval_s
        self.log_bytes = log_bytes
        self.snapshot_lsn = snapshot_lsn
        self.history: deque[CheckpointRecord] = deque(maxlen=50)
        self.writing: int | None = None
        """The LSN of the snapshot being written now (None: none is)."""
        self._token = Token(-1)
        self._requests: list[asyncio.Future[str | None]] = []
        self._running = False
        self._last = time.monotonic()
        self._tick_s = min(TICK_S, interval_s)
        self._timer = loop.call_later(self._tick_s, self._tick)

    def request(self) -> asyncio.Future[str | None]:
        """A checkpoint that starts after now; the future gives None when it
        is published, or what went wrong."""
        future = self.loop.create_future()
        self._requests.append(future)
        if not self._running:
            self._running = True
            self._acquire()
        return future

    def close(self) -> None:
        self._timer.cancel()

    # --- taking one ------------------------------------------------------------------

    def _tick(self) -> None:
        self._timer = self.loop.call_later(self._tick_s, self._tick)
        if self._running or self.journal.last_lsn <= self.snapshot_lsn:
            return
        if (time.monotonic() - self._last >= self.interval_s
                or self.journal.bytes_since_rotation >= self.log_bytes):
            self.request()

    def _acquire(self) -> None:
        executor = self.executor
        try:
            executor.acquire(self._token)
        except WouldBlock as busy:
            busy.wakeup.add_done_callback(lambda _: self._acquire())
            return
        requests, self._requests = self._requests, []
        lsn = self.journal.last_lsn
        if lsn == self.snapshot_lsn:
            executor.rollback(self._token)
            self._done(requests, None)
            return
        self.journal.rotate()
        started = time.perf_counter()
        try:
            child = os.fork()
            if child == 0:
                self._write_snapshot(lsn)
        except OSError as exc:
            self._finish(CheckpointRecord(lsn, datetime.now(UTC), 0.0, 0.0, 0,
                                          f"could not start the snapshot process: {exc}"),
                         requests)
            return
        finally:
            executor.rollback(self._token)
        stall_ms = (time.perf_counter() - started) * 1000
        self._last = time.monotonic()
        self.writing = lsn
        threading.Thread(target=self._wait_for, args=(child, lsn, stall_ms, started, requests),
                         name="sqlext-checkpoint", daemon=True).start()

    def _write_snapshot(self, lsn: int) -> None:
        """The forked child: write the snapshot files and exit."""
        status = 1
        try:
            # The sockets, the log and the data directory lock stay the
            # server's: a restarted server must be able to take them even
            # while an orphaned child finishes (it then gives up).
            os.closerange(3, os.sysconf("SC_OPEN_MAX"))
            parent = os.getppid()
            data = engine_state.capture(self.executor, self.scheduler, lsn)
            snapshots.write(self.directory, lsn, self.executor.database, data,
                            lambda: os.getppid() == parent)
            status = 0
        except BaseException as exc:
            print(f"sqlext: snapshot at LSN {lsn} failed: {exc!r}", file=sys.stderr)
        finally:
            os._exit(status)

    def _wait_for(self, child: int, lsn: int, stall_ms: float, started: float,
                  requests: list[asyncio.Future[str | None]]) -> None:
        _, status = os.waitpid(child, 0)
        self.loop.call_soon_threadsafe(self._written, status == 0, lsn, stall_ms,
                                              started, requests)

    def _written(self, ok: bool, lsn: int, stall_ms: float, started: float,
                 requests: list[asyncio.Future[str | None]]) -> None:
        snapshot = snapshots.Snapshot(self.directory, lsn)
        if not ok:
            self.writing = None
            snapshots.remove(snapshot)
            self._finish(CheckpointRecord(lsn, datetime.now(UTC), stall_ms,
                                          time.perf_counter() - started, 0,
                                          "the snapshot process failed (see the server log)"),
                         requests)
            return
        if self.journal.durable_lsn < lsn:
            barrier = self.journal.barrier()
            assert barrier is not None
            barrier.add_done_callback(
                lambda _: self._written(ok, lsn, stall_ms, started, requests))
            return
        snapshots.publish(snapshot)
        self.writing = None
        kept = snapshots.prune(self.directory, self.keep)
        if len(kept) == self.keep:
            # the log from the oldest kept snapshot on stays, so that a
            # damaged newer snapshot can be replaced by an older one + replay
            commandlog.remove_covered(self.directory, kept[-1].lsn)
        self.snapshot_lsn = lsn
        size = snapshot.path(".db").stat().st_size
        record = CheckpointRecord(lsn, datetime.now(UTC), stall_ms,
                                  time.perf_counter() - started, size)
        log.info("checkpoint: snapshot at LSN %d (%.1f MB) in %.2f s; the stream stalled "
                 "%.1f ms", lsn, size / 1e6, record.seconds, stall_ms)
        self._finish(record, requests)

    def _finish(self, record: CheckpointRecord,
                requests: list[asyncio.Future[str | None]]) -> None:
        self.history.append(record)
        if record.error is not None:
            log.error("checkpoint at LSN %d failed: %s", record.lsn, record.error)
        self._done(requests, record.error)

    def _done(self, requests: list[asyncio.Future[str | None]], error: str | None) -> None:
        for future in requests:
            if not future.done():
                future.set_result(error)
        self._running = False
        if self._requests:
            self._running = True
            self._acquire()
