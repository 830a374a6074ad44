"""The data directory brought to life: recovery, then the log and checkpoints.

One directory holds everything: ``cmdlog-*.log`` segments, ``snapshot-*``
files and the lock that keeps a second server out.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from sqlext.durability.checkpoint import Checkpointer
from sqlext.durability.journal import Journal
from sqlext.durability.recovery import Recovered, recover
from sqlext.session.engine_session import SessionHost
from storage import datadir

log = logging.getLogger("sqlext")


@dataclass(frozen=True, slots=True)
class DurabilityConfig:
    data_dir: Path
    recovery: str = "strong"
    """strong: every committed TE is logged; weak: client transactions only."""
    commandlog_timeout_ms: int = 10
    checkpoint_interval_s: float = 300.0
    checkpoint_log_mb: float = 64.0
    """A checkpoint also starts once the log has grown this much since the last."""
    snapshots_kept: int = 2


class Durability:
    """Owns the journal and the checkpointer of one data directory: creates
    them once recovery is over, hands the journal to the executor, closes
    both."""

    def __init__(self, host: SessionHost, config: DurabilityConfig) -> None:
        self.host = host
        self.config = config
        self.journal: Journal | None = None
        self.checkpointer: Checkpointer | None = None
        self._lock: int | None = None

    def start(self) -> Recovered:
        """Recover the data directory, then log every commit from here on."""
        config = self.config
        directory = config.data_dir
        self._lock = datadir.lock(directory)
        log.info("data directory %s, %s recovery, group commit %s", directory.resolve(),
                 config.recovery, "off (one fsync per commit)"
                 if config.commandlog_timeout_ms < 0 else
                 f"within {config.commandlog_timeout_ms} ms")
        host = self.host
        recovered = recover(host, directory)
        journal = Journal(host.loop, directory, recovered.last_lsn + 1, config.recovery,
                          config.commandlog_timeout_ms, host.executor.work_ahead)
        self.journal = journal
        host.executor.journal = journal
        self.checkpointer = Checkpointer(
            host.loop, host.executor, host.scheduler, journal, directory,
            max(config.snapshots_kept, 1), config.checkpoint_interval_s,
            int(config.checkpoint_log_mb * 1_000_000), recovered.snapshot_lsn)
        # PE triggers on again: TEs whose batches were waiting run now
        host.scheduler.unpause()
        return recovered

    def close(self) -> None:
        if self.checkpointer is not None:
            self.checkpointer.close()
        if self.journal is not None:
            self.host.executor.journal = None
            self.journal.close()
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None
