"""The data directory: one server at a time, by an exclusive lock file."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_NAME = "sqlext.lock"


class DataDirectoryInUse(Exception):
    pass


def lock(directory: Path) -> int:
    """Create ``directory`` if needed and lock it; returns the descriptor
    that holds the lock (the kernel releases it when the process dies)."""
    directory.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        raise DataDirectoryInUse(
            f"another sqlext server is using the data directory {directory}") from None
    os.ftruncate(descriptor, 0)
    os.write(descriptor, f"{os.getpid()}\n".encode())
    return descriptor
