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
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalog import errors
from executor.core import wall_clock
from executor.streaming.scheduler import Task
from sqlext.durability import engine_state
from sqlext.durability import journal as records
from sqlext.progress import Progress
from sqlext.session.copy_stdio import insert_rows
from sqlext.session.engine_session import EngineSession
from sqlext.session.portals import Prepared
from sqlext.sql.parse import parse
from storage import commandlog, snapshots

if TYPE_CHECKING:
    from sqlext.server.engine import Engine

log = logging.getLogger("sqlext")



class RecoveryError(Exception):
    """The data directory cannot be brought back; the server must not start."""


@dataclass(frozen=True, slots=True)
class Recovered:
    snapshot_lsn: int
    last_lsn: int


class _ReplaySession(EngineSession):
    """Redoes logged client transactions."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine, 0, "postgres", "postgres", {})
        self.environments: dict[int, tuple[str, str, dict[str, str]]] = {}

    def adopt(self, ident: int) -> None:
        user, database, settings = self.environments[ident]
        self.user = user
        self.database = database
        self.settings = dict(settings)
        self._refresh_derived()

    def redo(self, seed: int, entries: Sequence[tuple[Any, ...]]) -> dict[int, int]:
        executor = self.executor
        executor.acquire(self.token, seed)
        self.begin("read committed", False)  # the statements must not commit one by one
        environment = None
        try:
            for entry in entries:
                (sql, index, param_oids, params, many, started, at, origins,
                 ident) = entry
                if ident != environment:
                    self.adopt(ident)
                    environment = ident
                self.block.started = records.moment(started)
                statement_time = records.moment(at)
                executor.clock = lambda moment=statement_time: moment
                executor.place_sequences(origins)
                prepared = Prepared(sql, index, parse(sql).statements[index], param_oids)
                if many:
                    insert_rows(self, prepared, [list(row) for row in params])
                else:
                    self._execute(self.bind_values(prepared, list(params)), 0)
        except BaseException:
            executor.rollback(self.token)
            raise
        finally:
            self.block = None
            executor.clock = wall_clock
        return executor.commit(self.token)


class Replayer:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.session = _ReplaySession(engine)

    def apply(self, lsn: int, record: tuple[Any, ...], weak: bool) -> None:
        kind = record[0]
        executor = self.engine.executor
        if kind == records.ENVIRONMENT:
            _, ident, user, database, settings = record
            self.session.environments[ident] = (user, database, dict(settings))
        elif kind == records.SEQUENCES:
            executor.place_sequences(record[1])
        elif kind == records.TRANSACTION:
            _, _, seed, batches, entries, sequences = record
            try:
                created = self.session.redo(seed, entries)
            except errors.SqlError as exc:
                raise RecoveryError(f"LSN {lsn}: a logged transaction failed when redone: "
                                    f"{exc.sqlstate} {exc.message}") from exc
            executor.place_sequences(sequences)
            if created != dict(batches):
                log.warning("recovery: LSN %d made batches %s, the log says %s", lsn, created,
                            dict(batches))
            if weak:
                self.engine.scheduler.run()
        elif kind == records.TASK:
            _, _, seed, schema, name, stream_oid, batch, started, origins, _ = record
            self._redo_task(lsn, Task((schema, name), stream_oid, batch), seed,
                            records.moment(started), origins)
        else:
            raise RecoveryError(f"LSN {lsn}: unknown record kind {kind}")

    def _redo_task(self, lsn: int, task: Task, seed: int, started: datetime,
                   origins: Sequence[tuple[tuple[str, str], int | None]]) -> None:
        executor = self.engine.executor
        executor.clock = lambda: started
        executor.place_sequences(origins)
        try:
            found = self.engine.scheduler.replay(task, seed)
        finally:
            executor.clock = wall_clock
        if not found:
            raise RecoveryError(f"LSN {lsn}: the log has procedure {task.procedure[1]} run "
                                f"batch {task.batch}, which was not waiting")


def _load_snapshot(engine: Engine, directory: Path) -> int:
    """Load the newest sound snapshot; its LSN (0 without one)."""
    snapshots.remove_incomplete(directory)
    for snapshot in snapshots.complete(directory):
        reason = snapshots.verify(snapshot)
        if reason is not None:
            log.warning("recovery: snapshot %s is unusable (%s); trying an older one",
                        snapshot.manifest.name, reason)
            continue
        started = time.monotonic()
        data = snapshots.load(snapshot, engine.database)
        try:
            lsn = engine_state.restore(engine.executor, engine.scheduler, data)
        except engine_state.StateError as exc:
            log.warning("recovery: snapshot %s is unusable (%s); trying an older one",
                        snapshot.manifest.name, exc)
            continue
        engine.catalog_tables.refresh(engine.database, engine.executor.catalog)
        log.info("recovery: loaded snapshot %s (LSN %d) in %.2f s", snapshot.manifest.name,
                 lsn, time.monotonic() - started)
        return lsn
    return 0


def _read_log(directory: Path, after: int) -> list[tuple[int, bytes, bool]]:
    """Every sound record after LSN ``after``, with whether its segment was
    written under weak recovery; cuts a torn tail."""
    found: list[tuple[int, bytes, bool]] = []
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
                found.append((lsn, payload, weak))
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


def recover(engine: Engine, directory: Path) -> Recovered:
    started = time.monotonic()
    snapshot_lsn = _load_snapshot(engine, directory)
    pending = _read_log(directory, snapshot_lsn)
    scheduler = engine.scheduler
    scheduler.paused = True
    replayer = Replayer(engine)
    total = len(pending)
    if total:
        log.info("recovery: replaying %d records (LSN %d to %d)", total, pending[0][0],
                 pending[-1][0])
    progress = Progress("recovery: replayed", total, "records", logger=log)
    last = snapshot_lsn
    previous_weak = False
    for lsn, payload, weak in pending:
        if weak and not previous_weak:
            # the server that wrote this segment first ran what was waiting
            scheduler.run()
        previous_weak = weak
        try:
            record = records.decode(payload)
        except (ValueError, EOFError, TypeError) as exc:
            raise RecoveryError(f"LSN {lsn}: undecodable record ({exc})") from exc
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
