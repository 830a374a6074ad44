"""The command log: append-only segment files of checksummed records.

A segment is ``cmdlog-<first LSN>.log``::

    header  "SQLXCLOG" | u16 format version | u8 recovery mode | u8 record layout
            | u64 first LSN | u32 CRC
    record  u32 payload length | u32 CRC of (LSN, payload) | u64 LSN | payload

The record layout is the version of what the payloads hold, chosen by the
writer (``sqlext.durability.records``); this module stores it and hands it
to the reader. Format 1 kept a 0 there: its segments were written before the
header named the layout, and their records are in layout 1.

LSNs are consecutive across segments. A reader stops at the first record that
is short, fails its checksum or breaks the LSN sequence: that is a torn tail
(the server died while writing it), and it is cut off the file, never
replayed. Because a commit is acknowledged only after its record is on disk,
a cut record was never acknowledged.

``LogWriter`` is the group commit: records are appended to a buffer on the
event loop thread and a writer thread writes and fsyncs whatever has piled
up, one fsync for many commits, then reports the highest durable LSN.
"""

from __future__ import annotations

import itertools
import logging
import os
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

log = logging.getLogger("sqlext")

MAGIC: Final = b"SQLXCLOG"
FORMAT_VERSION: Final = 2
_FIRST_FORMAT: Final = 1
"""Read too: its records are in layout 1."""
MODES: Final = ("strong", "weak")
_HEADER = struct.Struct("<8sHBBQ")
HEADER_SIZE: Final = _HEADER.size + 4
_RECORD = struct.Struct("<IIQ")
_LSN = struct.Struct("<Q")
MAX_RECORD: Final = 1 << 30
"""A length field above this is garbage, not a record."""


class LogError(Exception):
    """The log cannot be used (bad header, unknown version)."""


def segment_name(first_lsn: int) -> str:
    return f"cmdlog-{first_lsn:016d}.log"


def segments(directory: Path) -> list[tuple[int, Path]]:
    """The segment files in LSN order, as (first LSN, path)."""
    found = []
    for path in directory.glob("cmdlog-*.log"):
        digits = path.stem.removeprefix("cmdlog-")
        if digits.isdigit():
            found.append((int(digits), path))
    return sorted(found)


def remove_covered(directory: Path, lsn: int) -> list[Path]:
    """Delete the segments whose records all have LSNs up to ``lsn`` (a
    snapshot covers them); the newest segment always stays."""
    listed = segments(directory)
    removed = []
    for (_, path), (next_first, _) in itertools.pairwise(listed):
        if next_first <= lsn + 1:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def encode_header(first_lsn: int, mode: str, layout: int) -> bytes:
    head = _HEADER.pack(MAGIC, FORMAT_VERSION, MODES.index(mode), layout, first_lsn)
    return head + struct.pack("<I", zlib.crc32(head))


def encode_record(lsn: int, payload: bytes) -> bytes:
    lsn_bytes = _LSN.pack(lsn)
    crc = zlib.crc32(payload, zlib.crc32(lsn_bytes))
    return _RECORD.pack(len(payload), crc, lsn) + payload


@dataclass(frozen=True, slots=True)
class Segment:
    path: Path
    first_lsn: int
    mode: str
    layout: int
    """The version of its records' layout."""


def read_header(path: Path, data: bytes) -> Segment:
    if len(data) < HEADER_SIZE:
        raise LogError(f"{path.name}: header is incomplete")
    head = data[:_HEADER.size]
    (crc,) = struct.unpack_from("<I", data, _HEADER.size)
    magic, version, mode, layout, first_lsn = _HEADER.unpack(head)
    if magic != MAGIC or zlib.crc32(head) != crc:
        raise LogError(f"{path.name}: not a command log segment (bad header)")
    if version not in (_FIRST_FORMAT, FORMAT_VERSION):
        raise LogError(f"{path.name}: command log format version {version}; this server "
                       f"reads versions {_FIRST_FORMAT} and {FORMAT_VERSION}")
    if mode >= len(MODES):
        raise LogError(f"{path.name}: unknown recovery mode {mode}")
    return Segment(path, first_lsn, MODES[mode], 1 if version == _FIRST_FORMAT else layout)


@dataclass(slots=True)
class Cut:
    """Where a segment's valid records end and why."""

    segment: Path
    offset: int
    reason: str


def read_segment(segment: Segment, data: bytes) -> Iterator[tuple[int, bytes] | Cut]:
    """The records of one segment, then a ``Cut`` if its tail is torn."""
    offset = HEADER_SIZE
    expected = segment.first_lsn
    size = len(data)
    while offset < size:
        if size - offset < _RECORD.size:
            yield Cut(segment.path, offset, "record header is incomplete")
            return
        length, crc, lsn = _RECORD.unpack_from(data, offset)
        start = offset + _RECORD.size
        if length > MAX_RECORD or start + length > size:
            yield Cut(segment.path, offset, f"record of LSN {lsn} is incomplete")
            return
        payload = data[start:start + length]
        if zlib.crc32(payload, zlib.crc32(_LSN.pack(lsn))) != crc:
            yield Cut(segment.path, offset, "checksum mismatch")
            return
        if lsn != expected:
            yield Cut(segment.path, offset, f"LSN {lsn} where {expected} was expected")
            return
        yield lsn, payload
        expected += 1
        offset = start + length


def truncate(path: Path, offset: int) -> None:
    with open(path, "r+b") as handle:
        handle.truncate(offset)
        handle.flush()
        os.fsync(handle.fileno())


def fsync_directory(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@dataclass(frozen=True, slots=True)
class _Rotate:
    first_lsn: int


class LogWriter:
    """Group commit. ``append`` runs on the event loop thread; a writer
    thread writes and fsyncs. ``timeout_ms`` is how long the oldest unwritten
    record may wait for ``kick`` (the loop has no more work) before the writer
    goes ahead anyway; 0 writes at once; -1 writes and fsyncs every record on
    its own (no group commit)."""

    def __init__(self, directory: Path, first_lsn: int, mode: str, layout: int,
                 timeout_ms: int, on_durable: Callable[[int], None]) -> None:
        self.directory = directory
        self.mode = mode
        self.layout = layout
        self.timeout_ms = timeout_ms
        self.on_durable = on_durable
        # what sqlext_log shows (written by the writer thread only)
        self.fsyncs = 0
        self.records = 0
        """Records made durable since start-up."""
        self.max_group = 0
        """The most records one fsync made durable."""
        self.last_fsync: float | None = None
        """``time.time()`` of the latest fsync."""
        self.path = directory / segment_name(first_lsn)
        """The segment being written."""
        self._condition = threading.Condition()
        self._pending: list[bytes | _Rotate] = []
        self._pending_last = 0
        self._oldest = 0.0
        self._kicked = False
        self._closing = False
        self._descriptor = self._open(first_lsn)
        self._thread = threading.Thread(target=self._run, name="sqlext-cmdlog", daemon=True)
        self._thread.start()

    # --- the loop thread -----------------------------------------------------------

    def append(self, lsn: int, payload: bytes) -> None:
        frame = encode_record(lsn, payload)
        with self._condition:
            if not self._pending:
                self._oldest = time.monotonic()
                self._condition.notify()
            self._pending.append(frame)
            self._pending_last = lsn

    def rotate(self, first_lsn: int) -> None:
        """Records from ``first_lsn`` on go to a new segment."""
        with self._condition:
            self._pending.append(_Rotate(first_lsn))
            self._kicked = True
            self._condition.notify()

    def kick(self) -> None:
        """Write what is pending now (the loop ran out of work)."""
        with self._condition:
            if self._pending:
                self._kicked = True
                self._condition.notify()

    def close(self) -> None:
        """Write everything still pending, then stop."""
        with self._condition:
            self._closing = True
            self._condition.notify()
        self._thread.join()
        os.close(self._descriptor)

    # --- the writer thread ---------------------------------------------------------

    def _open(self, first_lsn: int) -> int:
        path = self.path = self.directory / segment_name(first_lsn)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        _write_all(descriptor, encode_header(first_lsn, self.mode, self.layout))
        os.fsync(descriptor)
        fsync_directory(self.directory)
        return descriptor

    def _take(self) -> tuple[list[bytes | _Rotate], int] | None:
        """Wait for work; the frames to write and the LSN they end at."""
        with self._condition:
            while True:
                if self._pending:
                    waited = (time.monotonic() - self._oldest) * 1000
                    if (self._kicked or self._closing or self.timeout_ms <= 0
                            or waited >= self.timeout_ms):
                        break
                    self._condition.wait((self.timeout_ms - waited) / 1000)
                elif self._closing:
                    return None
                else:
                    self._condition.wait()
            if self.timeout_ms < 0 and isinstance(self._pending[0], bytes):
                taken = [self._pending.pop(0)]
                last = _RECORD.unpack_from(taken[0])[2]  # type: ignore[arg-type]
            else:
                taken, self._pending = self._pending, []
                last = self._pending_last
            if self._pending:
                self._oldest = time.monotonic()
            else:
                self._kicked = False
            return taken, last

    def _run(self) -> None:
        try:
            while (work := self._take()) is not None:
                frames, last = work
                chunk: list[bytes] = []
                for frame in frames:
                    if isinstance(frame, _Rotate):
                        self._flush(chunk)
                        chunk = []
                        os.close(self._descriptor)
                        self._descriptor = self._open(frame.first_lsn)
                    else:
                        chunk.append(frame)
                self._flush(chunk)
                self.on_durable(last)
        except OSError:
            # Like PostgreSQL's PANIC on a failed WAL fsync: a commit that
            # cannot be made durable must not be acknowledged, ever.
            log.critical("command log write failed; stopping the server", exc_info=True)
            os._exit(70)

    def _flush(self, frames: list[bytes]) -> None:
        if not frames:
            return
        _write_all(self._descriptor, b"".join(frames))
        os.fdatasync(self._descriptor)
        self.last_fsync = time.time()
        self.fsyncs += 1
        self.records += len(frames)
        self.max_group = max(self.max_group, len(frames))


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]
