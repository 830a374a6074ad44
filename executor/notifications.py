"""What a transaction announces when it commits: notifications (NOTIFY,
pg_notify(), the batches of notify streams) and changes to its session's
listening channels (LISTEN, UNLISTEN).

Both take effect only if the transaction commits, as in PostgreSQL: a
ROLLBACK drops them, and so does a ROLLBACK TO SAVEPOINT for those made
after the savepoint. Identical notifications (same channel and payload) of
one transaction are sent once, in the place of the first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice
from typing import Final

from catalog import errors

MAX_PAYLOAD: Final = 8000
"""Payloads of this many bytes or more are refused (PostgreSQL's
NOTIFY_PAYLOAD_MAX_LENGTH)."""
MAX_CHANNEL: Final = 63
"""The longest channel name in bytes (NAMEDATALEN - 1)."""

Notification = tuple[str, str]
"""(channel, payload)."""
ListenChange = tuple[bool, str | None]
"""(True, channel): LISTEN; (False, channel): UNLISTEN; (False, None): UNLISTEN *."""
PendingMark = tuple[int, int]


def check_channel(channel: str | None) -> str:
    """A channel name as PostgreSQL accepts it (22023 otherwise)."""
    if not channel:
        raise errors.InvalidParameterValue("channel name cannot be empty")
    if len(channel.encode()) > MAX_CHANNEL:
        raise errors.InvalidParameterValue("channel name too long")
    return channel


def notification(channel: str | None, payload: str | None) -> Notification:
    """A checked notification; a missing payload is an empty one."""
    text = payload or ""
    check_channel(channel)
    assert channel is not None
    if len(text.encode()) >= MAX_PAYLOAD:
        raise errors.InvalidParameterValue("payload string too long")
    return channel, text


@dataclass(slots=True)
class Pending:
    """What one open transaction announces at its commit."""

    notifications: dict[Notification, None] = field(default_factory=dict)
    """In the order they were made (a dict: duplicates fold into the first)."""
    listens: list[ListenChange] = field(default_factory=list)

    def mark(self) -> PendingMark:
        """Where a SAVEPOINT stands."""
        return len(self.notifications), len(self.listens)

    def restore(self, mark: PendingMark) -> None:
        """ROLLBACK TO SAVEPOINT: what came after ``mark`` is gone."""
        notifications, listens = mark
        if len(self.notifications) > notifications:
            self.notifications = dict(islice(self.notifications.items(), notifications))
        del self.listens[listens:]
