"""``statement_timeout`` and ``lock_timeout`` while a statement waits for
the executor.

A statement that must wait (another session's transaction holds the
executor) is parked and tried again when the executor frees up. The wait is
PostgreSQL's wait for a lock: ``lock_timeout`` bounds it (55P03), and
``statement_timeout`` bounds it with the rest of the statement (57014). So
the first wait of a statement arms a timer that wakes the parked statement
at the earlier limit, and the retry then fails with that limit's error.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from catalog import errors
from executor.core import Wakeup


@dataclass(frozen=True, slots=True)
class _Limit:
    at: float
    """time.monotonic() when the wait must end."""
    error: errors.SqlError


class ExecutorWait:
    """The limits of the current statement's wait (one session's)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._limit: _Limit | None = None
        self._timer: asyncio.TimerHandle | None = None
        """The wake-up at the limit (cancelled once the wait is over: a long
        statement_timeout must not keep one per wait alive)."""

    def expired(self) -> errors.SqlError | None:
        """The error of a limit that has passed (the wait is over), else None."""
        limit = self._limit
        if limit is None or time.monotonic() < limit.at:
            return None
        self.ended()
        return limit.error

    def waiting(self, wakeup: Wakeup, statement_ms: int, lock_ms: int) -> None:
        """The statement waits on ``wakeup``: wake it at its limit (the first
        wait of a statement sets the limit; later waits keep it)."""
        if self._limit is None:
            now = time.monotonic()
            limits = [_Limit(now + ms / 1000, error) for ms, error in (
                (lock_ms, errors.LockNotAvailable("canceling statement due to lock timeout")),
                (statement_ms, errors.QueryCanceled(
                    "canceling statement due to statement timeout"))) if ms > 0]
            if not limits:
                return
            self._limit = min(limits, key=lambda limit: limit.at)
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._loop.call_at(
            self._loop.time() + max(self._limit.at - time.monotonic(), 0.0),
            lambda: None if wakeup.done() else wakeup.set_result(None))

    def ended(self) -> None:
        """The statement has the executor, or gave up: no limit runs."""
        self._limit = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
