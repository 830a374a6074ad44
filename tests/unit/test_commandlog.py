"""The command log's file format and group commit, on files in a temp dir."""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from storage import commandlog as cl

LAYOUT = 7
"""A record layout version: the log keeps it for the writer, whatever it is."""


def _write(directory: Path, records: int, timeout_ms: int = 0) -> tuple[cl.LogWriter, list[int]]:
    directory.mkdir(exist_ok=True)
    durable: list[int] = []
    done = threading.Event()

    def on_durable(lsn: int) -> None:
        durable.append(lsn)
        if lsn == records:
            done.set()

    writer = cl.LogWriter(directory, 1, "strong", LAYOUT, timeout_ms, on_durable)
    for lsn in range(1, records + 1):
        writer.append(lsn, f"record {lsn}".encode())
    writer.kick()
    assert done.wait(10)
    return writer, durable


def _read(directory: Path) -> list[tuple[int, bytes] | cl.Cut]:
    found: list[tuple[int, bytes] | cl.Cut] = []
    for _, path in cl.segments(directory):
        data = path.read_bytes()
        found.extend(cl.read_segment(cl.read_header(path, data), data))
    return found


def test_records_round_trip_in_lsn_order(tmp_path: Path) -> None:
    writer, durable = _write(tmp_path, 50)
    writer.close()
    assert durable[-1] == 50
    assert _read(tmp_path) == [(lsn, f"record {lsn}".encode()) for lsn in range(1, 51)]


def test_group_commit_shares_fsyncs_and_per_commit_does_not(tmp_path: Path) -> None:
    grouped, _ = _write(tmp_path / "grouped", 200, timeout_ms=50)
    grouped.close()
    single, durable = _write(tmp_path / "single", 20, timeout_ms=-1)
    single.close()
    assert grouped.fsyncs < 10
    assert single.fsyncs == 20 and durable == list(range(1, 21))


@pytest.mark.parametrize(("damage", "reason"), [
    (lambda data: data[:-3], "incomplete"),
    (lambda data: data[:-5] + bytes([data[-5] ^ 1]) + data[-4:], "checksum mismatch"),
    (lambda data: data + b"\x00\x00", "record header is incomplete"),
])
def test_a_damaged_tail_is_reported_where_it_starts(
        tmp_path: Path, damage: Callable[[bytes], bytes], reason: str) -> None:
    writer, _ = _write(tmp_path, 5)
    writer.close()
    (_, path), = cl.segments(tmp_path)
    intact = path.stat().st_size
    path.write_bytes(damage(path.read_bytes()))
    found = _read(tmp_path)
    cut = found[-1]
    assert isinstance(cut, cl.Cut) and reason in cut.reason
    records = 5 if intact < path.stat().st_size else 4
    assert [item[0] for item in found[:-1]] == list(range(1, records + 1))  # type: ignore[index]
    cl.truncate(path, cut.offset)
    assert len(_read(tmp_path)) == records


def test_rotation_and_removal_of_covered_segments(tmp_path: Path) -> None:
    durable: list[int] = []
    writer = cl.LogWriter(tmp_path, 1, "weak", LAYOUT, 0, durable.append)
    for lsn in range(1, 4):
        writer.append(lsn, b"a")
    writer.rotate(4)
    for lsn in range(4, 7):
        writer.append(lsn, b"b")
    writer.close()
    assert [first for first, _ in cl.segments(tmp_path)] == [1, 4]
    assert [item[0] for item in _read(tmp_path)] == list(range(1, 7))  # type: ignore[index]
    assert cl.remove_covered(tmp_path, 2) == []
    assert [p.name for p in cl.remove_covered(tmp_path, 3)] == [cl.segment_name(1)]
    assert cl.remove_covered(tmp_path, 100) == []  # the newest segment always stays


def test_segments_carry_their_record_layout(tmp_path: Path) -> None:
    writer, _ = _write(tmp_path, 1)
    writer.close()
    (_, path), = cl.segments(tmp_path)
    assert cl.read_header(path, path.read_bytes()).layout == LAYOUT


def test_foreign_file_and_future_version_are_refused(tmp_path: Path) -> None:
    path = tmp_path / cl.segment_name(1)
    with pytest.raises(cl.LogError, match="not a command log segment"):
        cl.read_header(path, b"x" * 40)
    header = bytearray(cl.encode_header(1, "strong", LAYOUT))
    header[8] = 99
    header[-4:] = zlib.crc32(bytes(header[:-4])).to_bytes(4, "little")
    with pytest.raises(cl.LogError, match="format version 99; this server reads versions 1 "
                                          "and 2"):
        cl.read_header(path, bytes(header))
