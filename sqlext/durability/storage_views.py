"""The rows of the storage views: ``sqlext_log`` (the command log),
``sqlext_snapshots`` (snapshot files on disk) and ``sqlext_checkpoints``
(recent checkpoint runs). In ``--in-memory`` mode there is no log and no
snapshot: the log's row says so and holds NULLs, the others are empty."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from executor.pg_catalog.rows import Row, row
from executor.values.conversions import epoch_timestamp, storage_timestamp
from storage import snapshots

if TYPE_CHECKING:
    from sqlext.durability.service import Durability


def log_rows(durability: Durability | None) -> list[Row]:
    journal = durability.journal if durability is not None else None
    if durability is None or journal is None:
        return [row("sqlext_log", durability="in-memory")]
    config = durability.config
    writer = journal.writer
    fsyncs = writer.fsyncs
    status = _stat(writer.path)
    return [row(
        "sqlext_log",
        durability="fsync each commit" if config.commandlog_timeout_ms < 0 else "group commit",
        commit_timeout_ms=config.commandlog_timeout_ms, recovery=config.recovery,
        last_lsn=journal.last_lsn, durable_lsn=journal.durable_lsn,
        last_fsync=epoch_timestamp(writer.last_fsync), fsyncs=fsyncs,
        avg_group=round(writer.records / fsyncs, 3) if fsyncs else None,
        max_group=writer.max_group, file=str(writer.path.resolve()),
        file_bytes=status.st_size if status else None)]


def snapshot_rows(durability: Durability | None) -> list[Row]:
    """The published snapshots, oldest first, then the one being written."""
    checkpointer = durability.checkpointer if durability is not None else None
    if checkpointer is None:
        return []
    rows = []
    for snapshot in reversed(snapshots.complete(checkpointer.directory)):
        manifest = _stat(snapshot.manifest)
        if manifest is not None:  # else pruned meanwhile
            rows.append(_snapshot_row(snapshot, manifest.st_mtime))
    if checkpointer.writing is not None:
        rows.append(_snapshot_row(snapshots.Snapshot(checkpointer.directory,
                                                     checkpointer.writing), None))
    return rows


def checkpoint_rows(durability: Durability | None) -> list[Row]:
    """The latest checkpoints, oldest first."""
    checkpointer = durability.checkpointer if durability is not None else None
    if checkpointer is None:
        return []
    return [row("sqlext_checkpoints", lsn=run.lsn, finished=storage_timestamp(run.finished),
                stall_ms=round(run.stall_ms, 3), seconds=round(run.seconds, 3),
                size_bytes=run.size_bytes, error=run.error) for run in checkpointer.history]


def _snapshot_row(snapshot: snapshots.Snapshot, written: float | None) -> Row:
    """size_bytes counts the database and the engine state so far; written is
    None while it is being written."""
    sizes = [_stat(snapshot.path(suffix)) for suffix in (".db", ".state")]
    return row("sqlext_snapshots", file=str(snapshot.path(".db").resolve()), lsn=snapshot.lsn,
               size_bytes=sum(status.st_size for status in sizes if status),
               written=epoch_timestamp(written), writing=written is None)


def _stat(path: Path) -> os.stat_result | None:
    """None when the file is not there (any more: old snapshots are pruned)."""
    try:
        return path.stat()
    except OSError:
        return None
