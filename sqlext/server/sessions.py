"""The open sessions by process id, and what SQL and clients do with them:
the rows of ``pg_stat_activity``, ``pg_cancel_backend()`` /
``pg_terminate_backend()`` and the protocol's CancelRequest.

As in PostgreSQL, a role sees everything about its own sessions and a
superuser about all; of another role's session only whose it is (its query
reads ``<insufficient privilege>``). A role may cancel or end its own
sessions, a superuser any, and nobody but a superuser a superuser's.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Iterator
from typing import Any, Final

from catalog import errors
from catalog.schema import Catalog
from executor.codecs.network import address_value
from executor.core import Executor
from executor.pg_catalog.rows import Row, row
from executor.pg_catalog.tables import DATABASE_OID
from executor.values.conversions import epoch_timestamp, storage_timestamp
from sqlext.session.engine_session import EngineSession

TERMINATED: Final = "terminating connection due to administrator command"
_NOT_SUPERUSER: Final = {"cancel": "must be a superuser to cancel superuser query",
                         "terminate": "must be a superuser to terminate superuser process"}
_NOT_MEMBER: Final = {
    "cancel": "must be a member of the role whose query is being canceled or member of "
              "pg_signal_backend",
    "terminate": "must be a member of the role whose process is being terminated or member "
                 "of pg_signal_backend"}


class Sessions:
    """The server's client sessions. Sessions come and go on the event loop;
    a CancelRequest looks one up from the listener thread, hence the lock."""

    def __init__(self, executor: Executor, loop: asyncio.AbstractEventLoop) -> None:
        self._executor = executor
        self._loop = loop
        self._by_process_id: dict[int, EngineSession] = {}
        self._process_ids = itertools.count(1000)
        self._lock = threading.Lock()

    def next_process_id(self) -> int:
        return next(self._process_ids)

    def add(self, session: EngineSession) -> None:
        with self._lock:
            self._by_process_id[session.process_id] = session

    def remove(self, session: EngineSession) -> None:
        with self._lock:
            self._by_process_id.pop(session.process_id, None)

    def __len__(self) -> int:
        return len(self._by_process_id)

    def __iter__(self) -> Iterator[EngineSession]:
        return iter(list(self._by_process_id.values()))

    def of_role(self, role_oid: int) -> int:
        """How many sessions the role logged in."""
        return sum(1 for session in self if session.identity.login == role_oid)

    # --- signals ----------------------------------------------------------------------

    def cancel_request(self, process_id: int, secret_key: int) -> None:
        """A CancelRequest (from the listener thread)."""
        with self._lock:
            session = self._by_process_id.get(process_id)
        if session is not None and session.secret_key == secret_key:
            self.interrupt(session)

    def interrupt(self, session: EngineSession) -> None:
        """Cancel the session's running statement, or its wait for the
        executor (thread-safe); an idle session is left alone."""
        token = session.token
        waiting = token.waiting
        if waiting is not None and waiting.done():
            waiting = None  # it waited before, and ran since
        if waiting is None and not self._executor.is_running(token) and (
                session.streaming is None):
            return
        self._executor.cancel(token)
        if waiting is not None:
            def wake() -> None:
                if not waiting.done():
                    waiting.set_result(None)
            self._loop.call_soon_threadsafe(wake)

    # --- pg_stat_activity ---------------------------------------------------------------

    def activity_rows(self) -> list[Row]:
        """One row per client session, as the role reading the view may see it."""
        context = self._executor.context
        catalog = context.catalog
        sees_all = catalog.is_superuser(context.user)
        rows = []
        for process_id, session in sorted(self._by_process_id.items()):
            who = {"datid": DATABASE_OID, "datname": session.database, "pid": process_id,
                   "usesysid": session.identity.login, "usename": _login(session, catalog),
                   "application_name": session.settings.get("application_name")}
            if sees_all or catalog.has_privileges_of(context.user, _login(session, catalog)):
                rows.append(row("pg_stat_activity", **who, **_activity(session)))
            else:
                rows.append(row("pg_stat_activity", **who, query="<insufficient privilege>"))
        return rows

    # --- pg_cancel_backend(), pg_terminate_backend() -------------------------------------

    def cancel(self, process_id: int) -> bool:
        """As a CancelRequest does: the session's running statement, or its
        wait for the executor, ends with 57014."""
        target = self._target(process_id, "cancel")
        if target is None:
            return False
        if process_id == self._executor.context.process_id:
            raise errors.QueryCanceled("canceling statement due to user request")
        self.interrupt(target)
        return True

    def terminate(self, process_id: int) -> bool:
        """The session ends with FATAL 57P01 once the calling statement
        returns (at once when it ends itself); its transaction rolls back."""
        target = self._target(process_id, "terminate")
        if target is None:
            return False
        if process_id == self._executor.context.process_id:
            raise errors.AdminShutdown(TERMINATED, severity="FATAL")
        self._loop.call_soon(target.terminate, errors.AdminShutdown(TERMINATED,
                                                                          severity="FATAL"))
        return True

    def _target(self, process_id: int, verb: str) -> EngineSession | None:
        """The session the running statement may signal (None, with a
        WARNING, when there is none: PostgreSQL's answer)."""
        context = self._executor.context
        session = self._by_process_id.get(process_id)
        if session is None:
            context.warnings.append(f"PID {process_id} is not a PostgreSQL backend process")
            return None
        catalog = context.catalog
        if catalog.is_superuser(context.user):
            return session
        if catalog.is_superuser(_login(session, catalog)):
            raise errors.InsufficientPrivilege(_NOT_SUPERUSER[verb])
        if not catalog.has_privileges_of(context.user, _login(session, catalog)):
            raise errors.InsufficientPrivilege(_NOT_MEMBER[verb])
        return session


def _login(session: EngineSession, catalog: Catalog) -> str:
    """The name of the role the session logged in as, now."""
    return catalog.role_name(session.identity.login) or session.login_user


def _activity(session: EngineSession) -> dict[str, Any]:
    """The pg_stat_activity columns of a session the reader may see, from
    client_addr on."""
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
    return {"client_addr": address_value(host), "client_port": port,
            "backend_start": epoch_timestamp(activity.backend_start),
            "xact_start": transaction_start,
            "query_start": epoch_timestamp(activity.query_start),
            "state_change": epoch_timestamp(activity.state_change),
            "wait_event_type": wait_type, "wait_event": wait_event, "state": state,
            "query": session.current_sql, "backend_type": "client backend"}


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
