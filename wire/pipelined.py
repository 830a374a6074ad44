"""Runs of pipelined Bind [Describe] Execute messages, read straight from the
receive buffer.

pgjdbc's ``executeBatch`` and psycopg's ``executemany`` send, before one
Sync, the same three messages for every row of parameters: a Bind of one
prepared statement into the unnamed portal, maybe a Describe of that
portal, and an Execute. Only the parameter values differ from row to row.
Knowing the first row's messages, the rest are checked against the bytes
they must start and end with, and only the values are cut out: no message
objects are made. Anything that is not such a triple, or has not fully
arrived, ends the run and is left in the buffer for the general path (which
also reports any malformed message).
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable
from dataclasses import dataclass

from wire.framing import FrameReader
from wire.messages import Bind, Describe, Execute, FrontendMessage

_INT16 = struct.Struct("!h")
_INT32 = struct.Struct("!i")
_BIND = ord("B")
READ_AHEAD = 1 << 20
"""Bytes of the receive buffer one run is read from at most."""


@dataclass(slots=True)
class BindRun:
    """The rows of a run, for the session to execute as one batch."""

    first: Bind
    rows: list[tuple[bytes | None, ...]]
    """Each Bind's parameter values, the first's included."""
    described: list[bool]
    """Whether each Bind was followed by Describe of the portal."""
    max_rows: list[int]
    """Each Execute's row limit."""

    def messages(self, start: int = 0) -> list[FrontendMessage]:
        """The messages of the rows from ``start`` on, to handle one by one."""
        first = self.first
        portal = first.portal
        found: list[FrontendMessage] = []
        for row, described, max_rows in zip(self.rows[start:], self.described[start:],
                                            self.max_rows[start:], strict=True):
            found.append(Bind(portal, first.statement, first.param_formats, row,
                              first.result_formats))
            if described:
                found.append(Describe("P", portal))
            found.append(Execute(portal, max_rows))
        return found


ValuesReader = Callable[[bytes, int, int], "tuple[tuple[bytes | None, ...], int] | None"]
"""(data, start, end) -> the values of a Bind's parameters from ``start``
(each a length, -1 for NULL, and that many bytes) and where they end, or
None when they do not fit before ``end``."""


@functools.lru_cache(maxsize=64)
def _values_reader(count: int) -> ValuesReader:
    """The reader of ``count`` parameter values, written out for that
    count: a loop over the parameters costs ~0.2 us each in its own
    bookkeeping, the written-out reader about half."""
    lines = ["def read(data, start, end):", "    while True:"]
    for number in range(count):
        lines += ["        if start + 4 > end: break",
                  f"        (l{number},) = unpack(data, start)",
                  "        start += 4",
                  f"        if l{number} == -1: v{number} = None",
                  f"        elif l{number} < 0 or start + l{number} > end: break",
                  f"        else: v{number} = data[start:start + l{number}]; start += l{number}"]
    lines += [f"        return ({''.join(f'v{number}, ' for number in range(count))}), start",
              "    return None"]
    scope: dict[str, object] = {"unpack": _INT32.unpack_from}
    exec("\n".join(lines), scope)  # our own text, made of the count
    return scope["read"]  # type: ignore[return-value]


def read_run(framer: FrameReader, first: Bind) -> BindRun | None:
    """The run that ``first`` (just read) begins, with the triples after it
    that have fully arrived, taken from the buffer; None, taking nothing,
    unless at least two complete triples are there. Only the unnamed portal
    makes runs: binding a named one again before it is closed is 42P03."""
    if first.portal:
        return None
    portal = b"\0"  # the unnamed portal's name
    describe = b"D" + _INT32.pack(5 + len(portal)) + b"P" + portal
    execute = b"E" + _INT32.pack(8 + len(portal)) + portal
    head = (portal + first.statement.encode() + b"\0" + _INT16.pack(len(first.param_formats))
            + struct.pack(f"!{len(first.param_formats)}h", *first.param_formats)
            + _INT16.pack(len(first.params)))
    tail = (_INT16.pack(len(first.result_formats))
            + struct.pack(f"!{len(first.result_formats)}h", *first.result_formats))
    buffer, base = framer.view()
    # One copy of what has arrived (up to a bound, so a long pipeline of
    # short runs is not copied again and again): its values are then cut
    # out of it with one copy each.
    data = bytes(buffer[base:base + READ_AHEAD])
    size = len(data)
    unpack = _INT32.unpack_from
    run = BindRun(first, [], [], [])
    pos = consumed = 0
    read_values = _values_reader(len(first.params))
    values: tuple[bytes | None, ...] | None = first.params
    while True:
        if values is None:  # the next Bind
            if size - pos < 5 or data[pos] != _BIND:
                break
            end = pos + 1 + unpack(data, pos + 1)[0]
            start = pos + 5 + len(head)
            if end > size or end < start or not data.startswith(head, pos + 5):
                break
            read = read_values(data, start, end)
            if read is None:
                break
            values, start = read
            if start + len(tail) != end or not data.startswith(tail, start):
                break
            pos = end
        described = data.startswith(describe, pos)
        after = pos + len(describe) if described else pos
        if not data.startswith(execute, after) or after + len(execute) + 4 > size:
            break
        run.rows.append(values)
        run.described.append(described)
        run.max_rows.append(unpack(data, after + len(execute))[0])
        pos = consumed = after + len(execute) + 4
        values = None
    if len(run.rows) < 2:
        return None
    framer.skip_to(base + consumed)
    return run
