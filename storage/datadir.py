"""The data directory: one server at a time, by an exclusive lock file; the
cluster partition it belongs to, so that it never serves another."""

from __future__ import annotations

import fcntl
import json
import os
import zlib
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


PARTITION_NAME = "partition.json"
PARTITION_FORMAT = 1


class PartitionFileDamaged(Exception):
    pass


def read_partition(directory: Path) -> str | None:
    """The partition (``"I/N"``) the data directory was made for, or None
    for a directory that has not recorded one."""
    path = directory / PARTITION_NAME
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise PartitionFileDamaged(f"cannot read {path}: {exc}") from None
    partition = document.get("partition") if isinstance(document, dict) else None
    if (not isinstance(partition, str) or document.get("format") != PARTITION_FORMAT
            or document.get("crc32") != zlib.crc32(partition.encode())):
        raise PartitionFileDamaged(f"{path} is damaged (or of an unknown format)")
    return partition


def write_partition(directory: Path, partition: str) -> None:
    """Record the partition the data directory belongs to (atomically)."""
    directory.mkdir(parents=True, exist_ok=True)
    document = {"format": PARTITION_FORMAT, "partition": partition,
                "crc32": zlib.crc32(partition.encode())}
    temporary = directory / f"{PARTITION_NAME}.tmp"
    temporary.write_text(json.dumps(document) + "\n", encoding="utf-8")
    os.replace(temporary, directory / PARTITION_NAME)
