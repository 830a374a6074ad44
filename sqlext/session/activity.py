"""What pg_stat_activity shows of a session that its other state does not tell."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(slots=True)
class Activity:
    """What pg_stat_activity shows of a session that its other state does
    not tell (times are ``time.time()`` values)."""

    client: tuple[str, int | None]
    """The client's address and port."""
    backend_start: float = field(default_factory=time.time)
    active: bool = False
    """A command is being worked on (from its first message to ReadyForQuery)."""
    query_start: float | None = None
    state_change: float = field(default_factory=time.time)
