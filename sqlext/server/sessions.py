"""Sessions as SQL sees them: the rows of ``pg_stat_activity``, and
``pg_cancel_backend()`` / ``pg_terminate_backend()``.

As in PostgreSQL, a role sees everything about its own sessions and a
superuser about all; of another role's session only whose it is (its query
reads ``<insufficient privilege>``). A role may cancel or end its own
sessions, a superuser any, and nobody but a superuser a superuser's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from catalog import errors
from executor.pg_catalog.tables import DATABASE_OID
from executor.values.conversions import epoch_timestamp, storage_timestamp

if TYPE_CHECKING:
    from sqlext.server.engine import Engine
    from sqlext.session.engine_session import EngineSession

Row = tuple[Any, ...]

TERMINATED: Final = "terminating connection due to administrator command"
_NOT_SUPERUSER: Final = {"cancel": "must be a superuser to cancel superuser query",
                         "terminate": "must be a superuser to terminate superuser process"}
_NOT_MEMBER: Final = {
    "cancel": "must be a member of the role whose query is being canceled or member of "
              "pg_signal_backend",
    "terminate": "must be a member of the role whose process is being terminated or member "
                 "of pg_signal_backend"}


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


class Backends:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # --- pg_stat_activity ---------------------------------------------------------------

    def activity_rows(self) -> list[Row]:
        """One row per client session, as the role reading the view may see it."""
        context = self.engine.executor.context
        catalog = context.catalog
        sees_all = catalog.is_superuser(context.user)
        rows = []
        for process_id, session in sorted(self.engine.sessions.items()):
            who = (DATABASE_OID, session.database, process_id, None,
                   catalog.role_oid(session.user), session.user,
                   session.settings.get("application_name"))
            if sees_all or session.user == context.user:
                rows.append((*who, *_activity(session)))
            else:
                rows.append((*who, *[None] * 13, "<insufficient privilege>", None))
        return rows

    # --- pg_cancel_backend(), pg_terminate_backend() -------------------------------------

    def cancel(self, process_id: int) -> bool:
        """As a CancelRequest does: the session's running statement, or its
        wait for the executor, ends with 57014."""
        target = self._target(process_id, "cancel")
        if target is None:
            return False
        if process_id == self.engine.executor.context.process_id:
            raise errors.QueryCanceled("canceling statement due to user request")
        self.engine.interrupt(target)
        return True

    def terminate(self, process_id: int) -> bool:
        """The session ends with FATAL 57P01 once the calling statement
        returns (at once when it ends itself); its transaction rolls back."""
        target = self._target(process_id, "terminate")
        if target is None:
            return False
        if process_id == self.engine.executor.context.process_id:
            raise errors.AdminShutdown(TERMINATED, severity="FATAL")
        self.engine.loop.call_soon(target.terminate, errors.AdminShutdown(TERMINATED,
                                                                          severity="FATAL"))
        return True

    def _target(self, process_id: int, verb: str) -> EngineSession | None:
        """The session the running statement may signal (None, with a
        WARNING, when there is none: PostgreSQL's answer)."""
        context = self.engine.executor.context
        session = self.engine.sessions.get(process_id)
        if session is None:
            context.warnings.append(f"PID {process_id} is not a PostgreSQL backend process")
            return None
        catalog = context.catalog
        if catalog.is_superuser(context.user):
            return session
        if catalog.is_superuser(session.user):
            raise errors.InsufficientPrivilege(_NOT_SUPERUSER[verb])
        if session.user != context.user:
            raise errors.InsufficientPrivilege(_NOT_MEMBER[verb])
        return session


def _activity(session: EngineSession) -> Row:
    """client_addr ... backend_type of a session the reader may see."""
    activity = session.activity
    host, port = activity.client
    block = session.block
    if activity.active:
        state = "active"
    elif session.failed:
        state = "idle in transaction (aborted)"
    elif block is not None:
        state = "idle in transaction"
    else:
        state = "idle"
    if block is not None:
        transaction_start = storage_timestamp(block.started)
    else:
        transaction_start = epoch_timestamp(activity.query_start) if activity.active else None
    wait_type, wait_event = _wait_event(session)
    return (host or None, None, port, epoch_timestamp(activity.backend_start),
            transaction_start, epoch_timestamp(activity.query_start),
            epoch_timestamp(activity.state_change),
            wait_type, wait_event, state, None, None, None, session.current_sql,
            "client backend")


def _wait_event(session: EngineSession) -> tuple[str | None, str | None]:
    """What the session waits for (PostgreSQL's wait_event_type and wait_event)."""
    if not session.activity.active:
        return "Client", "ClientRead"  # for the client's next command
    waiting = session.token.waiting
    if waiting is not None and not waiting.done():
        return "Lock", "executor"  # another transaction or the dataflow holds it
    if session.checkpointing:
        return "IPC", "CheckpointDone"
    if session.streaming is not None:
        return "Client", "ClientWrite"
    return None, None
