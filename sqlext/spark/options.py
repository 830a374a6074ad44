"""The data source's options, checked once on the driver (a bad option is
an error that names it, before any task starts)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from sqlext.spark.endpoint import Endpoint, endpoints
from sqlext.spark.problems import OptionError

DEFAULT_PARTITIONS: Final = 2
DEFAULT_SNAPSHOT_IDLE_S: Final = 60.0
_KNOWN: Final = {
    "url": "sqlext://host:port, with user, password, sslmode as query parameters",
    "cluster": "a cluster file, or node URLs separated by commas, in partition order",
    "table": "a table or stream to read or write",
    "query": "a SELECT to read",
    "stream": "a stream to read with its batch ids",
    "partitionColumn": "the column whose range splits a read",
    "lowerBound": "with partitionColumn: where the first range ends",
    "upperBound": "with partitionColumn: where the last range begins",
    "numPartitions": "how many partitions a read is split into",
    "writeId": "names a write, so that running it again is skipped",
    "readerName": "names a streaming reader (its hold on the stream's batches)",
    "startingBatch": "earliest, latest or a batch id: where a streaming read begins",
    "maxBatchesPerTrigger": "at most this many batches per micro-batch",
    "snapshotIdleTimeout": "seconds a read's shared snapshot lives unused",
}
_CANONICAL: Final = {name.lower(): name for name in _KNOWN}
_SPARKS_OWN: Final = frozenset({"path", "checkpointlocation", "queryname"})
"""Options Spark itself may hand every data source."""


@dataclass(frozen=True, slots=True)
class Options:
    nodes: tuple[Endpoint, ...]
    """The nodes, in partition order (one for a ``url``)."""
    table: str | None = None
    query: str | None = None
    stream: str | None = None
    partition_column: str | None = None
    lower_bound: str | None = None
    upper_bound: str | None = None
    partitions: int = DEFAULT_PARTITIONS
    write_id: str | None = None
    reader_name: str = "spark"
    starting_batch: str = "earliest"
    max_batches: int | None = None
    snapshot_idle_s: float = DEFAULT_SNAPSHOT_IDLE_S

    @classmethod
    def parse(cls, given: Mapping[str, str]) -> Options:
        values = {key.lower(): str(value) for key, value in given.items()}
        unknown = sorted(set(values) - set(_CANONICAL) - _SPARKS_OWN)
        if unknown:
            raise OptionError(f'unknown option "{unknown[0]}" for format "sqlext"; known: '
                              + "; ".join(f"{name} ({what})" for name, what in _KNOWN.items()))
        located = [name for name in ("url", "cluster") if name in values]
        if len(located) != 1:
            raise OptionError('give one of the options "url" (sqlext://host:port) and "cluster" '
                              "(a cluster file or node URLs)" + (", not both" if located else ""))
        named = [name for name in ("table", "query", "stream") if values.get(name)]
        if len(named) > 1:
            raise OptionError(f'give one of the options "table", "query" and "stream", '
                              f"not {' and '.join(repr(n) for n in named)}")
        if not named:
            raise OptionError('one of the options "table", "query" or "stream" is required')
        bounds = [name for name in ("lowerbound", "upperbound") if name in values]
        if bounds and "partitioncolumn" not in values:
            raise OptionError(f'option "{_CANONICAL[bounds[0]]}" needs option "partitionColumn"')
        starting = values.get("startingbatch", "earliest").lower()
        if starting not in ("earliest", "latest"):
            _number(values, "startingbatch", 0)
        return cls(
            endpoints(located[0], values[located[0]]), values.get("table"), values.get("query"),
            values.get("stream"), values.get("partitioncolumn"), values.get("lowerbound"),
            values.get("upperbound"), _number(values, "numpartitions", 1) or DEFAULT_PARTITIONS,
            values.get("writeid"), values.get("readername", "spark"), starting,
            _number(values, "maxbatchespertrigger", 1),
            float(_number(values, "snapshotidletimeout", 1) or DEFAULT_SNAPSHOT_IDLE_S))

    @property
    def catalog_node(self) -> Endpoint:
        """The node the driver asks what names mean (node 0: every node of
        a cluster has the same relations)."""
        return self.nodes[0]

    def relation(self, purpose: str) -> str:
        """The table or stream a write or a streaming read names."""
        name = self.table or self.stream
        if name is None:
            raise OptionError(f'{purpose} needs option "table" (or "stream"), not "query"')
        return name


def _number(values: Mapping[str, str], name: str, least: int) -> int | None:
    text = values.get(name)
    if text is None:
        return None
    try:
        number = int(text)
    except ValueError:
        number = least - 1
    if number < least:
        raise OptionError(f'option "{_CANONICAL[name]}" must be an integer of at least {least}, '
                          f'not "{text}"')
    return number
