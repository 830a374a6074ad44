"""Batch ids of streams.

All rows one transaction inserts into a stream form one batch. The engine
numbers batches itself (the highest id so far + 1), or, for a stream with a
``batch_column``, takes the id the client put in that column. A client id
names a batch: one already accepted is a re-delivery, skipped with a NOTICE
(so a retried writer is harmless); any other id is accepted whenever it
arrives, because parallel writers (the tasks of a Spark job) commit in no
particular order. Batches run through the dataflow in commit order. Accepted
ids are kept as ranges, so a stream whose ids have no gaps costs one pair of
numbers.

The ledger is changed only by the transaction that owns the executor and is
undone when that transaction rolls back, exactly like the rows themselves.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Final

from catalog import errors
from catalog.schema import Relation
from storage.sqlite import Database, quoted

_MAX: Final = 2**63

LedgerMark = tuple[dict[int, int], dict[int, int], set[int]]


@dataclass
class StreamCounters:
    last_batch: int = 0
    """The highest batch id committed (or accepted) on the stream."""
    skipped: int = 0
    """Re-delivered batches skipped (client-assigned ids)."""
    accepted: list[list[int]] = field(default_factory=list)
    """Client-assigned ids accepted so far, as sorted [first, last] ranges."""

    def was_accepted(self, batch: int) -> bool:
        position = bisect.bisect_right(self.accepted, [batch, _MAX]) - 1
        return position >= 0 and self.accepted[position][0] <= batch <= (
            self.accepted[position][1])

    def add(self, batch: int) -> None:
        """Record an accepted id (not accepted before), merging ranges."""
        accepted = self.accepted
        position = bisect.bisect_right(accepted, [batch, _MAX])
        joins_left = position > 0 and accepted[position - 1][1] == batch - 1
        joins_right = position < len(accepted) and accepted[position][0] == batch + 1
        if joins_left and joins_right:
            accepted[position - 1][1] = accepted.pop(position)[1]
        elif joins_left:
            accepted[position - 1][1] = batch
        elif joins_right:
            accepted[position][0] = batch
        else:
            accepted.insert(position, [batch, batch])


@dataclass
class BatchLedger:
    streams: dict[int, StreamCounters] = field(default_factory=dict)
    """By stream OID."""
    _open: dict[int, int] = field(default_factory=dict)
    """Stream OID -> the batch the open transaction is writing."""
    _skipping: dict[int, int] = field(default_factory=dict)
    """Stream OID -> a re-delivered batch id the open transaction is skipping."""
    _client_assigned: set[int] = field(default_factory=set)

    def counters(self, stream_oid: int) -> StreamCounters:
        found = self.streams.get(stream_oid)
        if found is None:
            found = self.streams[stream_oid] = StreamCounters()
        return found

    def batch_for(self, stream_oid: int) -> int:
        """The batch id of the open transaction's rows in the stream (the
        first row allocates it)."""
        batch = self._open.get(stream_oid)
        if batch is None:
            batch = self._open[stream_oid] = self.counters(stream_oid).last_batch + 1
        return batch

    def accept(self, stream_oid: int, stream_name: str, batch: int | None) -> bool:
        """A row with client-assigned batch id ``batch``: True to store it,
        False to skip it as part of a re-delivered batch."""
        if batch is None:
            raise errors.NotNullViolation(
                f'null value in batch column of stream "{stream_name}"')
        current = self._open.get(stream_oid, self._skipping.get(stream_oid))
        if current is not None and current != batch:
            raise errors.InvalidParameterValue(
                f'one transaction inserts one batch into stream "{stream_name}": '
                f"batch id {batch} follows batch id {current}",
                hint="Commit each batch in its own transaction.")
        if current is not None:
            return stream_oid in self._open
        counters = self.counters(stream_oid)
        if counters.was_accepted(batch):
            self._skipping[stream_oid] = batch
            return False
        self._open[stream_oid] = batch
        self._client_assigned.add(stream_oid)
        return True

    def skipped_batch(self, stream_oid: int) -> int | None:
        return self._skipping.get(stream_oid)

    def writing(self) -> dict[int, int]:
        """The batches the open transaction writes (stream OID -> batch id)."""
        return self._open

    def newest_kept(self, stream_oid: int, keep: int) -> int:
        """The lowest of the ``keep`` highest batch ids of a stream, the open
        transaction's included: the oldest batch a stream that keeps its
        last ``keep`` batches still holds."""
        counters = self.counters(stream_oid)
        open_batch = self._open.get(stream_oid)
        if stream_oid not in self._client_assigned and not counters.accepted:
            # numbered by the engine: consecutive
            return max(counters.last_batch, open_batch or 0) - keep + 1
        ranges = counters.accepted
        if open_batch is not None:  # accepted only when it commits
            ranges = sorted([*ranges, [open_batch, open_batch]])
        for first, last in reversed(ranges):
            if last - first + 1 >= keep:
                return last - keep + 1
            keep -= last - first + 1
        return ranges[0][0] if ranges else 1

    def commit(self) -> dict[int, int]:
        """The transaction committed: its batches (stream OID -> batch id)."""
        created = self._open
        for stream_oid, batch in created.items():
            counters = self.counters(stream_oid)
            counters.last_batch = max(counters.last_batch, batch)
            if stream_oid in self._client_assigned:
                counters.add(batch)
        for stream_oid in self._skipping:
            self.counters(stream_oid).skipped += 1
        self.rollback()
        return created

    def rollback(self) -> None:
        self._open = {}
        self._skipping = {}
        self._client_assigned = set()

    def mark(self) -> LedgerMark:
        """The open transaction's batches now (taken at a SAVEPOINT)."""
        return dict(self._open), dict(self._skipping), set(self._client_assigned)

    def restore(self, mark: LedgerMark) -> None:
        """ROLLBACK TO SAVEPOINT: batches begun after the mark are gone, so a
        transaction whose rows all rolled back creates no batch."""
        self._open, self._skipping, self._client_assigned = (
            dict(mark[0]), dict(mark[1]), set(mark[2]))


def delete_batch(database: Database, stream: Relation, batch: int) -> None:
    """Garbage-collect one consumed batch of a stream."""
    database.execute(f"DELETE FROM {quoted(stream.physical)} WHERE batch_id = ?",
                     (batch,))
