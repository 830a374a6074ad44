"""LISTEN / NOTIFY: who listens on which channel, and the delivery of what
committed transactions announced.

A committed transaction's notifications go to every session listening on
their channel when it commits (the notifier included), in commit order and,
within a transaction, in the order they were made. A notification reports
a commit, so with a command log it waits, as the committing client's reply
does, until that commit is durable; the ones after it wait behind it.
When to put a notification on the wire (at once for an idle client, after
its transaction block otherwise) is the connection's business.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable

from executor.notifications import ListenChange, Notification, Pending

Deliver = Callable[[int, str, str], None]
"""Sends one notification (sender's process id, channel, payload) to a client."""
Delivery = tuple[Deliver, int, str, str]
Barrier = Callable[[], "asyncio.Future[None] | None"]


class NotifyHub:
    def __init__(self, barrier: Barrier) -> None:
        self._barrier = barrier
        """Done once everything committed so far is durable (None: it is)."""
        self._sessions: dict[int, Deliver] = {}
        self._channels: dict[str, dict[int, Deliver]] = {}
        self._listening: dict[int, dict[str, None]] = {}
        """Process id -> its channels, in the order it began listening."""
        self._waiting: deque[tuple[asyncio.Future[None] | None, list[Delivery]]] = deque()

    # --- sessions -------------------------------------------------------------------

    def attach(self, process_id: int, deliver: Deliver) -> None:
        """A session opened: its LISTENs will deliver through ``deliver``."""
        self._sessions[process_id] = deliver

    def detach(self, process_id: int) -> None:
        """A session closed: it stops listening."""
        self._change(process_id, ((False, None),))
        self._sessions.pop(process_id, None)

    def listened(self, channel: str) -> bool:
        return channel in self._channels

    def channels(self, process_id: int) -> list[str]:
        """pg_listening_channels() of a session."""
        return list(self._listening.get(process_id, ()))

    # --- commits ----------------------------------------------------------------------

    def committed(self, process_id: int, pending: Pending) -> None:
        """The executor's ``on_announce``: a transaction of ``process_id``
        committed what ``pending`` holds."""
        if pending.listens:
            self._change(process_id, pending.listens)
        if pending.notifications:
            self._publish(process_id, pending.notifications)

    def _change(self, process_id: int, changes: Iterable[ListenChange]) -> None:
        deliver = self._sessions.get(process_id)
        if deliver is None:
            return
        mine = self._listening.setdefault(process_id, {})
        for listen, channel in changes:
            for name in ([channel] if channel is not None else list(mine)):
                if listen:
                    mine[name] = None
                    self._channels.setdefault(name, {})[process_id] = deliver
                elif name in mine:
                    del mine[name]
                    listeners = self._channels[name]
                    del listeners[process_id]
                    if not listeners:
                        del self._channels[name]
        if not mine:
            del self._listening[process_id]

    def _publish(self, sender: int, notifications: Iterable[Notification]) -> None:
        deliveries = [(deliver, sender, channel, payload)
                      for channel, payload in notifications
                      for deliver in self._channels.get(channel, {}).values()]
        if not deliveries:
            return
        barrier = self._barrier()
        if barrier is None and not self._waiting:
            _deliver(deliveries)
            return
        self._waiting.append((barrier, deliveries))
        if barrier is not None:
            barrier.add_done_callback(lambda _: self._release())

    def _release(self) -> None:
        """Deliver, in order, what no longer waits for its commit to be durable."""
        waiting = self._waiting
        while waiting and (waiting[0][0] is None or waiting[0][0].done()):
            _deliver(waiting.popleft()[1])


def _deliver(deliveries: list[Delivery]) -> None:
    for deliver, sender, channel, payload in deliveries:
        deliver(sender, channel, payload)
