"""What a stream's readers keep (``sqlext_hold_stream()`` and
``sqlext_release_stream()``; their state is ``executor.stream_readers``).

A stream keeps a batch while a consumer (a PE-triggered procedure, an EE
trigger, a window) has yet to run on it, while it is among a notify
stream's ``keep_batches`` newest, and while a reader has not read it: the
places that delete consumed batches (the scheduler, the EE triggers' INSERT,
the notify streams' trimming) skip the batches a reader holds. The rules of
a reader:

* a new reader says it has read every batch up to ``after_batch``; if the
  stream no longer holds some committed batch above that, the reader would
  miss it: refused (55000), never a silent loss;
* moving back is refused (22023) unless the stream still holds the batches
  the reader would read again;
* moving forward, or releasing, lets the batches no reader needs any more
  go at once, in the calling transaction, unless a consumer has yet to run
  on them or ``keep_batches`` keeps them (a stream nothing consumes keeps
  its batches, readers or not).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from catalog import errors
from catalog.schema import Catalog, Relation
from executor.core import Executor
from executor.streaming.scheduler import Scheduler
from storage.sqlite import quoted

BatchSpan = tuple[int, int]
"""First and last batch id."""


def hold(executor: Executor, scheduler: Scheduler, stream: Relation, reader: str,
         after_batch: int) -> int | None:
    """Register ``reader`` on ``stream`` (or move it): it has read every
    batch up to ``after_batch``. Returns the oldest batch the stream holds
    for it (None: none yet)."""
    before = executor.readers.of(stream.oid).get(reader)
    if before is None:
        gone = _gone(executor, stream, after_batch, None)
        if gone is not None:
            raise errors.ObjectNotInPrerequisiteState(
                f'stream "{stream.name}" no longer holds {_shown(gone)}: reader "{reader}" '
                f"would miss {'it' if gone[0] == gone[1] else 'them'}",
                hint="A stream keeps a consumed batch only while a reader holds it: register "
                     "the reader before it falls behind, or start it after the batches it "
                     f"missed (after_batch {gone[1]}).")
    elif after_batch < before:
        gone = _gone(executor, stream, after_batch, before)
        if gone is not None:
            raise errors.InvalidParameterValue(
                f'reader "{reader}" of stream "{stream.name}" cannot move back from batch '
                f"{before} to batch {after_batch}: the stream no longer holds {_shown(gone)}")
    _move(executor, scheduler, stream, reader, after_batch)
    return executor.database.execute(
        f"SELECT min(batch_id) FROM {quoted(stream.physical)} WHERE batch_id > ?",
        (after_batch,)).fetchone()[0]


def release(executor: Executor, scheduler: Scheduler, stream: Relation, reader: str) -> bool:
    """Drop ``reader``'s hold on ``stream``: False if it held none."""
    if reader not in executor.readers.of(stream.oid):
        return False
    _move(executor, scheduler, stream, reader, None)
    return True


def _move(executor: Executor, scheduler: Scheduler, stream: Relation, reader: str,
          after_batch: int | None) -> None:
    readers = executor.readers
    before = readers.floor(stream.oid)
    readers.place(stream.oid, reader, after_batch)
    after = readers.floor(stream.oid)
    if before is not None and (after is None or after > before):
        _collect(executor, scheduler, stream, before, after)


def _collect(executor: Executor, scheduler: Scheduler, stream: Relation, above: int,
             upto: int | None) -> None:
    """The batches in (``above``, ``upto``] (None: all above) no reader
    holds now: those nothing else keeps go."""
    options = stream.stream
    assert options is not None
    catalog = executor.context.catalog
    if options.notify is not None:
        newest = executor.batches.newest_kept(stream.oid, options.keep_batches) - 1
        upto = newest if upto is None else min(upto, newest)
    elif not _consumed(catalog, stream):
        return
    kept = set(scheduler.pending().get(stream.oid, ()))
    open_batch = executor.batches.writing().get(stream.oid)
    if open_batch is not None and catalog.procedure_triggers_on(stream.oid):
        kept.add(open_batch)  # its procedures run once it commits
    start = above
    for batch in sorted(b for b in kept if b > above and (upto is None or b <= upto)):
        _delete(executor, stream, start, batch - 1)
        start = batch
    _delete(executor, stream, start, upto)


def _consumed(catalog: Catalog, stream: Relation) -> bool:
    """Whether the stream's batches go once consumed (something consumes them)."""
    return bool(catalog.procedure_triggers_on(stream.oid) or catalog.windows_on(stream) or any(
        t.event == "insert" and t.body for t in catalog.triggers_on(stream)))


def _delete(executor: Executor, stream: Relation, above: int, upto: int | None) -> None:
    if upto is None:
        executor.database.execute(
            f"DELETE FROM {quoted(stream.physical)} WHERE batch_id > ?", (above,))
    elif upto > above:
        executor.database.execute(
            f"DELETE FROM {quoted(stream.physical)} WHERE batch_id > ? AND batch_id <= ?",
            (above, upto))


def _gone(executor: Executor, stream: Relation, above: int, upto: int | None
          ) -> BatchSpan | None:
    """The first and last committed batch in (``above``, ``upto``] (None:
    up to the last committed) that the stream no longer holds."""
    counters = executor.batches.counters(stream.oid)
    last = counters.last_batch if upto is None else upto
    if last <= above:
        return None
    committed = counters.accepted or ([[1, counters.last_batch]] if counters.last_batch else [])
    held = [batch for (batch,) in executor.database.execute(
        f"SELECT DISTINCT batch_id FROM {quoted(stream.physical)} WHERE batch_id > ? AND "
        "batch_id <= ? ORDER BY batch_id", (above, last))]
    spans = list(_gaps(committed, held, above + 1, last))
    return (spans[0][0], spans[-1][1]) if spans else None


def _gaps(committed: Sequence[Sequence[int]], held: Sequence[int], first: int, last: int
          ) -> Iterator[BatchSpan]:
    """The spans of the ``committed`` batch id ranges within [``first``,
    ``last``] that are not in ``held`` (sorted ids), in order."""
    position = 0
    for low, high in committed:
        low, high = max(low, first), min(high, last)
        if low > high:
            continue
        cursor = low
        while position < len(held) and held[position] <= high:
            if held[position] > cursor:
                yield cursor, held[position] - 1
            cursor = max(cursor, held[position] + 1)
            position += 1
        if cursor <= high:
            yield cursor, high


def _shown(span: BatchSpan) -> str:
    first, last = span
    return f"batch {first}" if first == last else f"batches {first}..{last}"
