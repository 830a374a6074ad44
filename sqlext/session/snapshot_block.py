"""Statements of a transaction that imported an exported snapshot
(``SET TRANSACTION SNAPSHOT``), and their reader's side.

Such a transaction never takes the serial executor: its queries and
``COPY ... TO STDOUT`` run in a reader forked from the snapshot's holder
(``exported_snapshots``), which streams their DataRows or CopyData back;
what it changes would be lost with the reader, so writes and calls of
functions that act on the engine are refused (25006). Transaction control,
settings and SHOW run as usual.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from catalog import errors
from sqlext.session import snapshot_rows
from sqlext.session.copy_stdio import copy_kind, query_portal, stdio_format
from sqlext.session.exported_snapshots import Holder, ReadRequest
from sqlext.session.portals import Portal, Prepared, result_shape
from sqlext.session.snapshot_rows import ForkedRows
from sqlext.sql import nodes as x
from sqlext.sql.parse import parse
from wire.backend import BackendError, CopyOut, Outcome, Rows

if TYPE_CHECKING:
    from sqlext.session.engine_session import EngineSession

_AS_USUAL = (x.Begin, x.CommitTransaction, x.RollbackTransaction, x.PrepareTransaction,
             x.Savepoint, x.ReleaseSavepoint, x.RollbackToSavepoint, x.SetVariable,
             x.SetTransaction, x.Reset, x.Show, x.Prepare, x.Deallocate, x.Listen,
             x.Unlisten, x.Notify)
"""Utility statements that read no data: they run in the session."""
_WRITES = {x.Call: "CALL", x.ResumeProcedure: "ALTER PROCEDURE"}


class SnapshotStatements:
    """Runs the statements of blocks that imported a snapshot (stateless)."""

    def run(self, session: EngineSession, portal: Portal, holder: Holder, max_rows: int
            ) -> Outcome | None:
        """Run the portal's statement against the snapshot; None: it runs in
        the session as usual."""
        compiled = portal.compiled
        assert compiled is not None
        plan = compiled.plan
        if plan is not None:
            if plan.writes:
                raise _refused(session, plan.tag)
            if plan.engine_calls:
                raise _refused(session, f"{min(plan.engine_calls)}()")
            if not portal.started:
                portal.snapshot = session.host.snapshots.read(holder, _request(
                    session, portal.prepared, portal.params, portal.formats,
                    result_shape(compiled)))
                portal.started = True
            return session.run_portal(portal, max_rows, plan.tag)
        statement = compiled.statement
        if compiled.ddl is not None:
            raise _refused(session, "this statement")
        if isinstance(statement, _AS_USUAL):
            return None
        if isinstance(statement, x.CopyStatement):
            return _copy_out(session, portal, holder, statement)
        verb = _WRITES.get(type(statement))
        if verb is not None:
            raise _refused(session, verb)
        raise errors.FeatureNotSupported(f"{statement.key.upper()} is not supported in a "
                                         "transaction that imported a snapshot")


def _refused(session: EngineSession, what: str) -> errors.SqlError:
    block = session.block
    if block is not None and block.read_only:
        return errors.ReadOnlySqlTransaction(f"cannot execute {what} in a read-only transaction")
    return errors.ReadOnlySqlTransaction(
        f"cannot execute {what} in a transaction that imported a snapshot",
        hint="Such a transaction reads an exported snapshot only; write in another one.")


def _request(session: EngineSession, prepared: Prepared, params: list[Any],
             formats: list[int], shape: tuple[tuple[str, int, int], ...] | None
             ) -> ReadRequest:
    return ReadRequest(prepared.sql, prepared.index, prepared.declared, params, formats,
                       shape, session.user, session.database, dict(session.settings),
                       session.process_id)


def _copy_out(session: EngineSession, portal: Portal, holder: Holder,
              statement: x.CopyStatement) -> CopyOut:
    """COPY ... TO STDOUT in any format, written by the reader."""
    if not statement.args.get("to"):
        raise _refused(session, "COPY FROM")
    if statement.args.get("target") is not None:
        raise errors.FeatureNotSupported(
            "COPY TO a server file is not supported in a transaction that imported a "
            "snapshot", hint="Use COPY ... TO STDOUT.")
    kind = copy_kind(statement.args.get("options") or {})
    code = 1 if kind == "arrow" else int(stdio_format(statement).binary)
    described = query_portal(session, statement.this,
                             list(statement.args.get("columns") or [])).columns or ()
    forked = session.host.snapshots.read(holder, _request(session, portal.prepared,
                                                          portal.params, [], None))
    return CopyOut(_CopyData(session, forked), code, [code] * len(described),
                   lambda: forked.tag or "COPY 0")


class _CopyData:
    """The CopyData messages of a COPY run by a reader, as they arrive (the
    connection asks again later while none has: ``Busy``)."""

    def __init__(self, session: EngineSession, forked: ForkedRows) -> None:
        self._session = session
        self._forked = forked
        self._last = False

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        if self._last:
            raise StopIteration
        data, _, self._last = self._session.snapshot_chunk(self._forked)
        return data


def serve(session: EngineSession, request: ReadRequest, fd: int) -> None:  # pragma: no cover
    """In a reader: run ``request`` as a fresh ``session`` on the image and
    write its result to ``fd`` (``exported_snapshots`` frames)."""
    snapshot_rows.forbid_forks()
    with os.fdopen(fd, "wb", buffering=1 << 20) as out:
        try:
            prepared = Prepared(request.sql, request.index,
                                parse(request.sql).statements[request.index], request.declared)
            prepared.result_shape = request.shape
            portal = session.bind_values(prepared, request.params, request.result_formats)
            if portal.compiled is not None and portal.compiled.plan is not None:
                counts: deque[int] = deque()
                encode = portal.encode
                assert encode is not None

                def counted(rows: list[Any]) -> bytes:
                    counts.append(len(rows))
                    return encode(rows)

                outcome = session.run_portal(portal, 0, portal.compiled.plan.tag, counted)
                assert isinstance(outcome, Rows)
                for chunk in outcome.rows:
                    out.write(snapshot_rows.rows_frame(counts.popleft(), chunk))
                tag = outcome.finish() if outcome.finish is not None else outcome.tag
            else:
                copied = session.execute_portal(portal, 0)
                assert isinstance(copied, CopyOut)
                for messages in copied.messages:
                    out.write(snapshot_rows.rows_frame(0, bytes(messages)))
                tag = copied.tag()
            out.write(snapshot_rows.end_frame(tag or ""))
        except (errors.SqlError, BackendError) as exc:
            out.write(snapshot_rows.error_frame(exc))
