"""LISTEN / NOTIFY: who listens on which channel, and the delivery of what
committed transactions announced.

A committed transaction's notifications go to every session listening on
their channel when it commits (the notifier included), in commit order and,
within a transaction, in the order they were made. A notification reports
a commit, so with a command log it waits, as the committing client's reply
does, until that commit is durable; the ones after it wait behind it.

A session reads what was committed only between transactions, as a
PostgreSQL backend reads its notification queue, and keeps what is on the
channels it listens to by then (``listens``): notifications committed
during a block that UNLISTENs a channel never reach the client, and those
on a channel it LISTENs to in the block do (when it was listening already:
a first LISTEN starts reading at its commit), so they are sent to it too
(``expect``). When to put a notification on the wire (at once for an idle
client, before the ReadyForQuery that reports it idle otherwise) is the
connection's business.
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
        self._expected: dict[str, dict[int, Deliver]] = {}
        """Channel -> sessions that LISTEN to it in their open block."""

    # --- sessions -------------------------------------------------------------------

    def attach(self, process_id: int, deliver: Deliver) -> None:
        """A session opened: its LISTENs will deliver through ``deliver``."""
        self._sessions[process_id] = deliver

    def detach(self, process_id: int) -> None:
        """A session closed: it stops listening."""
        self._change(process_id, ((False, None),))
        self.block_ended(process_id)
        self._sessions.pop(process_id, None)

    def expect(self, process_id: int, channel: str) -> None:
        """LISTEN in the session's open block: if it reads notifications
        already (it listens to some channel), it gets those committed on
        ``channel`` meanwhile, and keeps them if the LISTEN commits."""
        deliver = self._sessions.get(process_id)
        if deliver is not None and process_id in self._listening:
            self._expected.setdefault(channel, {})[process_id] = deliver

    def block_ended(self, process_id: int) -> None:
        """The session's block committed or rolled back: its LISTENs took
        effect or are gone."""
        for channel in [c for c, waiting in self._expected.items() if process_id in waiting]:
            del self._expected[channel][process_id]
            if not self._expected[channel]:
                del self._expected[channel]

    def listened(self, channel: str) -> bool:
        return channel in self._channels

    def listens(self, process_id: int, channel: str) -> bool:
        """Whether the session listens to ``channel`` (a notification it
        reads now is kept, or dropped)."""
        return channel in self._listening.get(process_id, ())

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
                      for deliver in {**self._channels.get(channel, {}),
                                      **self._expected.get(channel, {})}.values()]
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
