"""Readers of streams: a retention of a stream's batches that a reader
registers (``sqlext_hold_stream()``; the rules are in
``executor.streaming.retention``).

A reader (a Spark streaming source, say) names the highest batch id it has
read; its stream keeps every batch above that until the reader moves past
it. Readers change only with the transaction that changes them: each change
leaves its undo with the executor's ``UndoLog``, so ROLLBACK (and ROLLBACK
TO SAVEPOINT) puts the earlier value back; snapshots keep them (``state``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection

Undo = Callable[[Callable[[], None]], None]
"""Leaves an action that puts back what the open transaction changed."""
ReadersState = dict[int, dict[str, int]]
"""Stream OID -> reader name -> the highest batch id it has read."""


class StreamReaders:
    def __init__(self, undo: Undo) -> None:
        self._undo = undo
        self._by_stream: ReadersState = {}

    def of(self, stream_oid: int) -> dict[str, int]:
        """The stream's readers and the batch each has read up to."""
        return self._by_stream.get(stream_oid, {})

    def floor(self, stream_oid: int) -> int | None:
        """The batch the slowest reader has read up to: the stream keeps
        every batch above it (None: no reader holds any)."""
        readers = self._by_stream.get(stream_oid)
        return min(readers.values()) if readers else None

    def holds(self, stream_oid: int, batch: int) -> bool:
        """Whether some reader still needs ``batch``."""
        floor = self.floor(stream_oid)
        return floor is not None and batch > floor

    def place(self, stream_oid: int, reader: str, after_batch: int | None) -> None:
        """Register or move ``reader`` (None: drop it), until the open
        transaction rolls back."""
        readers = self._by_stream.setdefault(stream_oid, {})
        before = readers.get(reader)
        self._set(readers, reader, after_batch)
        self._undo(lambda: self._put_back(stream_oid, reader, before))

    def _put_back(self, stream_oid: int, reader: str, after_batch: int | None) -> None:
        self._set(self._by_stream.setdefault(stream_oid, {}), reader, after_batch)
        if not self._by_stream[stream_oid]:
            del self._by_stream[stream_oid]

    @staticmethod
    def _set(readers: dict[str, int], reader: str, after_batch: int | None) -> None:
        if after_batch is None:
            readers.pop(reader, None)
        else:
            readers[reader] = after_batch

    def state(self, streams: Collection[int]) -> ReadersState:
        """What a snapshot keeps: the readers of the ``streams`` that exist
        (a dropped stream's readers went with it)."""
        return {oid: dict(readers) for oid, readers in self._by_stream.items()
                if readers and oid in streams}

    def restore(self, state: ReadersState) -> None:
        self._by_stream = {oid: dict(readers) for oid, readers in state.items()}
