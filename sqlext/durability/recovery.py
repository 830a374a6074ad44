"""Start-up: the newest sound snapshot, then the command log after it.

Strong recovery (every committed TE was logged) replays in log order with PE
triggers off: a logged TE runs the very TE that was waiting for its batch,
and the TEs still waiting at the end run once recovery is over. A segment
written under weak recovery holds client transactions only, so after each
one the TEs it triggered run again, as they did the first time.

A record is redone with the time, random seed and sequence positions it
recorded, through the same session code that ran it, so a replay reaches
the state the server had. Nothing is logged while replaying.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from catalog import errors
from executor.core import wall_clock
from executor.streaming.scheduler import Task
from sqlext.durability import engine_state, records
from sqlext.progress import Progress
from sqlext.session.copy_stdio import insert_rows
from sqlext.session.engine_session import EngineSession, SessionHost
from sqlext.session.identity import Identity
from sqlext.session.portals import Prepared
from sqlext.sql.parse import parse
from storage import commandlog, snapshots
from wire.column_rows import ColumnRows

log = logging.getLogger("sqlext")



class RecoveryError(Exception):
    """The data directory cannot be brought back; the server must not start."""


@dataclass(frozen=True, slots=True)
class Recovered:
    snapshot_lsn: int
    last_lsn: int


class _ReplaySession(EngineSession):
    """Redoes logged client transactions."""

    def __init__(self, host: SessionHost) -> None:
        super().__init__(host, 0, "postgres", "postgres", {})
        self.environments: dict[int, records.Environment] = {}

    def adopt(self, ident: int) -> None:
        """Run as the logged session did: as its user, with its role and
        settings (role names as they were then, which the catalog being
        rebuilt has at that point of the log)."""
        environment = self.environments[ident]
        self.database = environment.database
        self.settings = dict(environment.settings)
        catalog = self.executor.working_catalog(self.token)
        self.identity = Identity.of_login(catalog, environment.user).with_role(
            catalog, self.settings.get("role"))
        self._catalog_seen = -1
        self._refresh_derived()

    def redo(self, transaction: records.Transaction) -> dict[int, int]:
        executor = self.executor
        executor.acquire(self.token, transaction.seed)
        self.begin("read committed", False)  # the statements must not commit one by one
        environment = None
        try:
            for statement in transaction.statements:
                if statement.environment != environment:
                    self.adopt(statement.environment)
                    environment = statement.environment
                assert self.block is not None
                self.block.started = records.moment(statement.transaction_start)
                statement_time = records.moment(statement.statement_start)
                executor.clock = lambda moment=statement_time: moment
                executor.place_sequences(statement.sequence_origins)
                sql, index = statement.sql, statement.index
                prepared = Prepared(sql, index, parse(sql).statements[index],
                                    statement.param_oids)
                if statement.many:
                    insert_rows(self, prepared, ColumnRows(list(map(list, statement.params)),
                                                          statement.many))
                else:
                    self.execute_portal(self.bind_values(prepared, list(statement.params)), 0)
        except BaseException:
            executor.rollback(self.token)
            raise
        finally:
            self.block = None
            executor.clock = wall_clock
        return executor.commit(self.token)


class Replayer:
    def __init__(self, host: SessionHost) -> None:
        self.host = host
        self.session = _ReplaySession(host)

    def apply(self, lsn: int, record: records.Record, weak: bool) -> None:
        executor = self.host.executor
        if isinstance(record, records.Environment):
            self.session.environments[record.ident] = record
        elif isinstance(record, records.Sequences):
            executor.place_sequences(record.positions)
        elif isinstance(record, records.Transaction):
            try:
                created = self.session.redo(record)
            except errors.SqlError as exc:
                raise RecoveryError(f"LSN {lsn}: a logged transaction failed when redone: "
                                    f"{exc.sqlstate} {exc.message}") from exc
            executor.place_sequences(record.sequences)
            if created != dict(record.batches):
                log.warning("recovery: LSN %d made batches %s, the log says %s", lsn, created,
                            dict(record.batches))
            if weak:
                self.host.scheduler.run()
        else:
            self._redo_task(lsn, record)

    def _redo_task(self, lsn: int, record: records.TaskRun) -> None:
        task = Task((record.schema, record.procedure), record.stream_oid, record.batch)
        started = records.moment(record.started)
        executor = self.host.executor
        executor.clock = lambda: started
        executor.place_sequences(record.sequence_origins)
        try:
            found = self.host.scheduler.replay(task, record.seed)
        finally:
            executor.clock = wall_clock
        if not found:
            raise RecoveryError(f"LSN {lsn}: the log has procedure {task.procedure[1]} run "
                                f"batch {task.batch}, which was not waiting")


def _load_snapshot(host: SessionHost, directory: Path) -> int:
    """Load the newest sound snapshot; its LSN (0 without one)."""
    snapshots.remove_incomplete(directory)
    for snapshot in snapshots.complete(directory):
        reason = snapshots.verify(snapshot)
        if reason is not None:
            log.warning("recovery: snapshot %s is unusable (%s); trying an older one",
                        snapshot.manifest.name, reason)
            continue
        started = time.monotonic()
        database = host.executor.database
        data = snapshots.load(snapshot, database)
        try:
            lsn = engine_state.restore(host.executor, host.scheduler, data)
        except engine_state.StateError as exc:
            log.warning("recovery: snapshot %s is unusable (%s); trying an older one",
                        snapshot.manifest.name, exc)
            continue
        host.catalog_tables.refresh(database, host.executor.catalog)
        log.info("recovery: loaded snapshot %s (LSN %d) in %.2f s", snapshot.manifest.name,
                 lsn, time.monotonic() - started)
        return lsn
    return 0


class _Logged(NamedTuple):
    lsn: int
    payload: bytes
    weak: bool
    """Its segment was written under weak recovery."""
    layout: int
    """The record layout its segment was written in."""


def _read_log(directory: Path, after: int) -> list[_Logged]:
    """Every sound record after LSN ``after``; cuts a torn tail."""
    found: list[_Logged] = []
    listed = commandlog.segments(directory)
    expected = after + 1
    for position, (_, path) in enumerate(listed):
        data = path.read_bytes()
        try:
            segment = commandlog.read_header(path, data)
        except commandlog.LogError as exc:
            if position == len(listed) - 1 and len(data) < commandlog.HEADER_SIZE:
                # the server died while starting this segment: nothing in it
                log.warning("recovery: %s; removing the unfinished segment", exc)
                path.unlink()
                break
            raise RecoveryError(str(exc)) from exc
        if segment.layout not in records.READABLE_LAYOUTS:
            raise RecoveryError(
                f"{path.name} holds records of layout version {segment.layout}; this server "
                f"reads versions {', '.join(map(str, records.READABLE_LAYOUTS))} (was the "
                "log written by a newer sqlext?)")
        weak = segment.mode == "weak"
        if segment.first_lsn > expected:
            raise RecoveryError(
                f"the command log has no records {expected} to {segment.first_lsn - 1} "
                f"(segment {path.name}); the newest usable snapshot covers LSN {after}")
        for item in commandlog.read_segment(segment, data):
            if isinstance(item, commandlog.Cut):
                _cut(item, listed[position + 1:])
                return found
            lsn, payload = item
            if lsn >= expected:
                found.append(_Logged(lsn, payload, weak, segment.layout))
                expected = lsn + 1
    return found


def _cut(cut: commandlog.Cut, later: list[tuple[int, Path]]) -> None:
    log.warning("recovery: the command log %s ends in a torn record at byte %d (%s); "
                "cutting it off (it was never acknowledged)", cut.segment.name, cut.offset,
                cut.reason)
    commandlog.truncate(cut.segment, cut.offset)
    for _, path in later:
        aside = path.with_suffix(".corrupt")
        log.error("recovery: %s follows a damaged record and is not replayed; kept as %s",
                  path.name, aside.name)
        path.rename(aside)


def recover(host: SessionHost, directory: Path) -> Recovered:
    started = time.monotonic()
    snapshot_lsn = _load_snapshot(host, directory)
    pending = _read_log(directory, snapshot_lsn)
    scheduler = host.scheduler
    scheduler.paused = True
    replayer = Replayer(host)
    total = len(pending)
    if total:
        log.info("recovery: replaying %d records (LSN %d to %d)", total, pending[0][0],
                 pending[-1][0])
    progress = Progress("recovery: replayed", total, "records", logger=log)
    last = snapshot_lsn
    previous_weak = False
    for lsn, payload, weak, layout in pending:
        if weak and not previous_weak:
            # the server that wrote this segment first ran what was waiting
            scheduler.run()
        previous_weak = weak
        try:
            record = records.decode(payload, layout)
        except records.RecordError as exc:
            raise RecoveryError(f"LSN {lsn}: {exc}") from exc
        replayer.apply(lsn, record, weak)
        last = lsn
        progress.advance()
    if total:
        progress.finish()
    seconds = time.monotonic() - started
    rate = f", {total / seconds:,.0f} records/s" if total and seconds > 0 else ""
    log.info("recovery: done in %.2f s: snapshot LSN %d, %d records replayed to LSN %d%s; "
             "%d TEs waiting", seconds, snapshot_lsn, total, last, rate,
             len(scheduler.waiting()))
    return Recovered(snapshot_lsn, last)
