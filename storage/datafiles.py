"""Files that COPY writes and reads on the server: text/CSV bytes and Parquet
(Apache Arrow's implementation).

A file appears under its name only when complete: it is written to a
temporary name in the same directory, flushed to disk and renamed, so a
reader (Spark) never sees half a file. Parquet files carry page checksums
(CRC-32), checked again on reading, and the key ``sqlext.format`` =
PARQUET_FORMAT_VERSION in their metadata.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, Final

import pyarrow as pa
import pyarrow.parquet as pq

from storage.commandlog import fsync_directory

PARQUET_FORMAT_VERSION: Final = b"1"
_METADATA_KEY: Final = b"sqlext.format"
_READ_CHUNK: Final = 1 << 20


class ParquetError(Exception):
    """The file is not a readable Parquet file (or its checksums fail)."""


def _publish(path: Path, write: Callable[[Path], int]) -> int:
    """Run ``write`` on a temporary file, then put that file in place."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        written = write(temporary)
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
        fsync_directory(path.parent)
    finally:
        temporary.unlink(missing_ok=True)
    return written


def write_bytes(path: Path, chunks: Iterable[bytes]) -> int:
    """Write ``chunks`` to ``path``, replacing it atomically; returns bytes written."""

    def write(temporary: Path) -> int:
        size = 0
        with open(temporary, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
                size += len(chunk)
        return size
    return _publish(path, write)


def read_chunks(path: Path) -> Iterator[bytes]:
    handle: BinaryIO
    with open(path, "rb") as handle:
        while chunk := handle.read(_READ_CHUNK):
            yield chunk


def write_parquet(path: Path, schema: pa.Schema, batches: Iterable[pa.RecordBatch]) -> int:
    """Write ``batches`` to ``path``, replacing it atomically; returns rows written."""
    schema = schema.with_metadata({**(schema.metadata or {}),
                                   _METADATA_KEY: PARQUET_FORMAT_VERSION})

    def write(temporary: Path) -> int:
        rows = 0
        with pq.ParquetWriter(temporary, schema, compression="zstd",
                              write_page_checksum=True) as writer:
            for batch in batches:
                writer.write_batch(batch)
                rows += batch.num_rows
        return rows
    return _publish(path, write)


def parquet_columns(path: Path) -> list[str]:
    """The top-level column names of a Parquet file."""
    try:
        return list(pq.ParquetFile(path).schema_arrow.names)
    except pa.ArrowInvalid as exc:
        raise ParquetError(str(exc)) from None


def read_parquet(path: Path, columns: list[str], batch_rows: int) -> Iterator[pa.RecordBatch]:
    """The file's ``columns`` in batches of up to ``batch_rows`` rows."""
    try:
        source = pq.ParquetFile(path, page_checksum_verification=True)
        yield from source.iter_batches(batch_size=batch_rows, columns=columns)
    except pa.ArrowInvalid as exc:
        raise ParquetError(str(exc)) from None
