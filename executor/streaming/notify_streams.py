"""Notify streams (``CREATE STREAM ... WITH (notify = 'channel')``).

When a transaction that wrote a batch into a notify stream commits, the
batch is announced on the stream's channel as one JSON payload::

    {"stream":"s","batch_id":7,"row_count":2,"rows":[{"a":1,"b":"x"},{"a":2,"b":"y"}]}

with the rows in insertion order, values as PostgreSQL's to_json() writes
them. A payload must stay under 8000 bytes; a batch too big for that is
announced without ``rows`` and read with ``SELECT ... WHERE batch_id = 7``.

So that a client that was away can catch up by batch id, a notify stream
keeps its ``keep_batches`` newest batches (by id), and any older one a
procedure has yet to run on or a reader holds, instead of deleting a batch once consumed.
Both happen just before the transaction commits, inside it: the trimming
is redone exactly by recovery, and nothing is built when nobody listens.
"""

from __future__ import annotations

from collections.abc import Callable

from catalog.schema import Catalog, Relation
from executor.core import Executor, Token
from executor.notifications import MAX_PAYLOAD
from executor.streaming.scheduler import Scheduler
from executor.values.json_text import json_string, row_encoder
from storage.sqlite import quoted

RowsToJson = Callable[[tuple[object, ...]], str]


class StreamNotifier:
    def __init__(self, executor: Executor, scheduler: Scheduler,
                 listened: Callable[[str], bool]) -> None:
        self.executor = executor
        self.scheduler = scheduler
        self.listened = listened
        """Whether some session listens on a channel."""
        self._encoders: dict[int, tuple[Relation, RowsToJson]] = {}
        executor.sealing_batches = self.seal

    def seal(self, token: Token, catalog: Catalog, batches: dict[int, int]) -> None:
        """The executor's ``sealing_batches``: trim and announce the notify
        streams among ``batches``."""
        for stream_oid, batch in batches.items():
            relation = catalog.relation_by_oid(stream_oid)
            options = relation.stream if relation is not None else None
            if options is None or options.notify is None:
                continue
            assert relation is not None
            self._trim(relation, options.keep_batches, batch)
            if self.listened(options.notify):
                self.executor.add_notification(token, (options.notify,
                                                       self.payload(relation, batch)))

    def _trim(self, stream: Relation, keep: int, batch: int) -> None:
        """Delete the batches older than the newest ``keep`` that no TE and
        no reader still needs (never the one being committed)."""
        oldest = self.executor.batches.newest_kept(stream.oid, keep)
        waiting = self.scheduler.oldest_waiting(stream.oid)
        if waiting is not None:
            oldest = min(oldest, waiting)
        read = self.executor.readers.floor(stream.oid)
        if read is not None:
            oldest = min(oldest, read + 1)
        self.executor.database.execute(
            f"DELETE FROM {quoted(stream.physical)} WHERE batch_id < ? AND batch_id <> ?",
            (oldest, batch))

    def payload(self, stream: Relation, batch: int) -> str:
        """The JSON announcing one batch (without its rows when they do not fit)."""
        database = self.executor.database
        physical = quoted(stream.physical)
        head = f'{{"stream":{json_string(stream.name)},"batch_id":{batch},"row_count":'
        encode = self._encoder(stream)
        rows: list[str] = []
        size = 0
        cursor = database.execute(
            f"SELECT {', '.join(quoted(c.name) for c in stream.columns)} FROM {physical} "
            "WHERE batch_id = ? ORDER BY rowid", (batch,))
        for row in cursor:
            rows.append(encode(row))
            size += len(rows[-1].encode()) + 1
            if size >= MAX_PAYLOAD:
                break
        else:
            whole = f'{head}{len(rows)},"rows":[{",".join(rows)}]}}'
            if len(whole.encode()) < MAX_PAYLOAD:
                return whole
        cursor.close()
        count = database.execute(f"SELECT count(*) FROM {physical} WHERE batch_id = ?",
                                 (batch,)).fetchone()[0]
        return f"{head}{count}}}"

    def _encoder(self, stream: Relation) -> RowsToJson:
        cached = self._encoders.get(stream.oid)
        if cached is None or cached[0] is not stream:
            cached = self._encoders[stream.oid] = (stream, row_encoder(
                [(c.name, c.type_oid, c.typmod) for c in stream.columns]))
        return cached[1]

