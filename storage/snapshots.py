"""Snapshot files: a consistent copy of the database as of one LSN.

A snapshot is three files named by the LSN it covers:

* ``snapshot-<LSN>.db``: the SQLite database (tables, streams, windows with
  their staged tuples);
* ``snapshot-<LSN>.state``: the engine's own state (catalog, batch counters,
  sequences, the scheduler's waiting work), as bytes the engine encodes;
* ``snapshot-<LSN>.json``: the manifest (format version, sizes, CRC-32 of
  both files). It is written last, so a snapshot without one is incomplete
  and ignored; one whose checksums do not match is corrupt.
"""

from __future__ import annotations

import json
import logging
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from storage.commandlog import fsync_directory
from storage.sqlite import Database

log = logging.getLogger("sqlext")

FORMAT: Final = "sqlext-snapshot"
FORMAT_VERSION: Final = 1
_CHUNK: Final = 1 << 20


def _stem(lsn: int) -> str:
    return f"snapshot-{lsn:016d}"


@dataclass(frozen=True, slots=True)
class Snapshot:
    directory: Path
    lsn: int

    def path(self, suffix: str) -> Path:
        return self.directory / f"{_stem(self.lsn)}{suffix}"

    @property
    def manifest(self) -> Path:
        return self.path(".json")


def _checksum(path: Path) -> tuple[int, int]:
    """(size, CRC-32) of a file."""
    crc = 0
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            crc = zlib.crc32(chunk, crc)
            size += len(chunk)
    return size, crc


def _write_durably(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def write(directory: Path, lsn: int, database: Database, state: bytes,
          keep_going: Callable[[], bool]) -> Snapshot:
    """Write snapshot ``lsn`` except for publishing its manifest (the
    server does that once the log up to ``lsn`` is durable)."""
    snapshot = Snapshot(directory, lsn)
    database_path = snapshot.path(".db")
    database_path.unlink(missing_ok=True)
    database.backup_to(str(database_path), keep_going)
    with open(database_path, "rb+") as handle:
        os.fsync(handle.fileno())
    _write_durably(snapshot.path(".state"), state)
    files = {}
    for role, suffix in (("database", ".db"), ("state", ".state")):
        size, crc = _checksum(snapshot.path(suffix))
        files[role] = {"name": snapshot.path(suffix).name, "size": size, "crc32": crc}
    manifest = {"format": FORMAT, "version": FORMAT_VERSION, "lsn": lsn,
                "created": datetime.now(UTC).isoformat(), "files": files}
    _write_durably(snapshot.path(".json.tmp"), json.dumps(manifest, indent=1).encode())
    return snapshot


def publish(snapshot: Snapshot) -> None:
    os.replace(snapshot.path(".json.tmp"), snapshot.manifest)
    fsync_directory(snapshot.directory)


def complete(directory: Path) -> list[Snapshot]:
    """Snapshots with a manifest, newest first (not yet verified)."""
    found = []
    for path in directory.glob("snapshot-*.json"):
        digits = path.name.removeprefix("snapshot-").removesuffix(".json")
        if digits.isdigit():
            found.append(Snapshot(directory, int(digits)))
    return sorted(found, key=lambda s: s.lsn, reverse=True)


def verify(snapshot: Snapshot) -> str | None:
    """Why the snapshot cannot be used, or None if it is sound."""
    try:
        manifest = json.loads(snapshot.manifest.read_bytes())
    except (OSError, ValueError) as exc:
        return f"unreadable manifest ({exc})"
    if manifest.get("format") != FORMAT or manifest.get("lsn") != snapshot.lsn:
        return "manifest does not describe this snapshot"
    if manifest.get("version") != FORMAT_VERSION:
        return (f"snapshot format version {manifest.get('version')}; this server reads "
                f"version {FORMAT_VERSION}")
    for role, suffix in (("database", ".db"), ("state", ".state")):
        expected = manifest["files"][role]
        try:
            size, crc = _checksum(snapshot.path(suffix))
        except OSError as exc:
            return f"{role} file unreadable ({exc.strerror})"
        if (size, crc) != (expected["size"], expected["crc32"]):
            return f"{role} file checksum mismatch"
    return None


def load(snapshot: Snapshot, database: Database) -> bytes:
    """Copy the snapshot's tables into ``database``; returns the engine state."""
    database.restore_from(str(snapshot.path(".db")))
    return snapshot.path(".state").read_bytes()


def remove(snapshot: Snapshot) -> None:
    for suffix in (".json", ".json.tmp", ".db", ".state"):
        snapshot.path(suffix).unlink(missing_ok=True)


def remove_incomplete(directory: Path) -> None:
    """Files of snapshots that never got a manifest (the server died)."""
    published = {s.lsn for s in complete(directory)}
    for path in directory.glob("snapshot-*"):
        digits = path.name.removeprefix("snapshot-").split(".", 1)[0]
        if digits.isdigit() and int(digits) not in published:
            path.unlink(missing_ok=True)


def prune(directory: Path, keep: int) -> list[Snapshot]:
    """Delete all but the newest ``keep`` snapshots; returns those kept."""
    snapshots = complete(directory)
    for old in snapshots[keep:]:
        remove(old)
    return snapshots[:keep]
