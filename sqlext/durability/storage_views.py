"""The rows of the storage views: ``sqlext_log`` (the command log),
``sqlext_snapshots`` (snapshot files on disk) and ``sqlext_checkpoints``
(recent checkpoint runs). In ``--in-memory`` mode there is no log and no
snapshot: the log's row says so and holds NULLs, the others are empty."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from executor.values.conversions import epoch_timestamp
from storage import snapshots

if TYPE_CHECKING:
    from sqlext.durability.service import Durability

Row = tuple[Any, ...]


def log_rows(durability: Durability | None) -> list[Row]:
    journal = durability.journal if durability is not None else None
    if durability is None or journal is None:
        return [("in-memory", *[None] * 10)]
    config = durability.config
    writer = journal.writer
    fsyncs = writer.fsyncs
    status = _stat(writer.path)
    return [("fsync each commit" if config.commandlog_timeout_ms < 0 else "group commit",
             config.commandlog_timeout_ms, config.recovery, journal.last_lsn,
             journal.durable_lsn, epoch_timestamp(writer.last_fsync), fsyncs,
             round(writer.records / fsyncs, 3) if fsyncs else None, writer.max_group,
             str(writer.path.resolve()), status.st_size if status else None)]


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
    checkpointer = durability.checkpointer if durability is not None else None
    return checkpointer.rows() if checkpointer is not None else []


def _snapshot_row(snapshot: snapshots.Snapshot, written: float | None) -> Row:
    """file, lsn, size_bytes (database and engine state so far), written
    (None while it is being written), writing."""
    sizes = [_stat(snapshot.path(suffix)) for suffix in (".db", ".state")]
    return (str(snapshot.path(".db").resolve()), snapshot.lsn,
            sum(status.st_size for status in sizes if status), epoch_timestamp(written),
            written is None)


def _stat(path: Path) -> os.stat_result | None:
    """None when the file is not there (any more: old snapshots are pruned)."""
    try:
        return path.stat()
    except OSError:
        return None
