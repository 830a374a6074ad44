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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wire.column_rows import ColumnRows
from wire.framing import FrameReader
from wire.messages import Bind, Describe, Execute, FrontendMessage

_INT16 = struct.Struct("!h")
_INT32 = struct.Struct("!i")
_BIND = ord("B")
FIRST_WINDOW = 1 << 16
"""Bytes of the receive buffer a run is first read from: the window grows
(four times at a time) while the run goes on to its end, so a short run is
not read from a copy of everything that has arrived."""


@dataclass(slots=True)
class BindRun:
    """The rows of a run, for the session to execute as one batch."""

    first: Bind
    rows: ColumnRows
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


Scanner = Callable[..., int]
"""(data, position, head, tail, describe, execute, run) -> where the whole
triples from ``position`` end, their values and flags added to ``run``."""


def _value(name: str, indent: str) -> list[str]:
    """Lines reading one value (a length, -1 for NULL, then its bytes)."""
    return [f"{indent}if start + 4 > end: break",
            f"{indent}(l_{name},) = unpack(data, start)",
            f"{indent}start += 4",
            f"{indent}if l_{name} == -1: {name} = None",
            f"{indent}elif l_{name} < 0 or start + l_{name} > end: break",
            f"{indent}else: {name} = data[start:start + l_{name}]; start += l_{name}"]


def _fixed_values(names: list[str], sizes: list[int], number: int,
                  scope: dict[str, object]) -> list[str]:
    """Lines reading values of known sizes with one struct call (a NULL or
    another size among them: value by value)."""
    packer = struct.Struct("!" + "".join(f"i{size}s" for size in sizes))
    scope[f"fixed{number}"] = packer.unpack_from
    items = ", ".join(f"l_{name}, {name}" for name in names)
    same = " and ".join(f"l_{name} == {size}" for name, size in zip(names, sizes, strict=True))
    slow = [line for name in names for line in _value(name, "            ")]
    return [f"        if start + {packer.size} <= end:",
            f"            {items} = fixed{number}(data, start)",
            f"            fits = {same}",
            "        else:",
            "            fits = False",
            "        if fits:",
            f"            start += {packer.size}",
            "        else:",
            *slow]


@functools.lru_cache(maxsize=64)
def _scanner(sizes: tuple[int | None, ...]) -> Scanner:
    """The loop over a run's Bind [Describe] Execute triples, written out for
    Binds of parameters of these ``sizes`` (None: any; a number: the size
    of a binary value of a fixed-width type, read with its neighbours in one
    struct call): each triple is checked against the bytes it must start
    and end with (``head``, ``tail``), and its values are cut from their
    lengths (-1: NULL). Written out, a triple of 8 values costs about half
    what a loop over the values does. Anything else ends it."""
    count = len(sizes)
    names = [f"v{number}" for number in range(count)]
    scope: dict[str, object] = {"unpack": _INT32.unpack_from}
    lines = ["def scan(data, pos, head, tail, describe, execute, run):",
             "    size = len(data)",
             f"    {''.join(f'a{n}, ' for n in range(count))}= "
             "[column.append for column in run.rows.columns]" if count else "",
             "    add_described, add_max = run.described.append, run.max_rows.append",
             "    skip, tail_size = 5 + len(head), len(tail)",
             "    describe_size, execute_size = len(describe), len(execute)",
             "    while True:",
             "        if size - pos < 5 or data[pos] != 66: break",
             "        (length,) = unpack(data, pos + 1)",
             "        end = pos + 1 + length",
             "        start = pos + skip",
             "        if end > size or end < start or not data.startswith(head, pos + 5): break"]
    index = 0
    while index < count:
        fixed = index
        while fixed < count and sizes[fixed] is not None:
            fixed += 1
        if fixed - index > 1:
            lines += _fixed_values(names[index:fixed], list(sizes[index:fixed]),  # type: ignore[arg-type]
                                   index, scope)
            index = fixed
        else:
            lines += _value(names[index], "        ")
            index += 1
    lines += ["        if start + tail_size != end or not data.startswith(tail, start): break",
              "        described = data.startswith(describe, end)",
              "        after = end + describe_size if described else end",
              "        if after + execute_size + 4 > size or not data.startswith(execute, after):",
              "            break",
              *(f"        a{number}({name})" for number, name in enumerate(names)),
              "        add_described(described)",
              "        add_max(unpack(data, after + execute_size)[0])",
              "        pos = after + execute_size + 4",
              "    return pos"]
    exec("\n".join(lines), scope)  # our own text, made of the sizes
    return scope["scan"]  # type: ignore[return-value]


def read_run(framer: FrameReader, first: Bind, sizes: Sequence[int | None] = ()
             ) -> BindRun | None:
    """The run that ``first`` (just read) begins, with the triples after it
    that have fully arrived, taken from the buffer; None, taking nothing,
    unless at least two complete triples are there. ``sizes``: the size of
    each parameter's binary value where its type's is fixed. Only the
    unnamed portal makes runs: binding a named one again before it is
    closed is 42P03."""
    if first.portal:
        return None
    if len(sizes) != len(first.params):
        sizes = [None] * len(first.params)
    portal = b"\0"  # the unnamed portal's name
    describe = b"D" + _INT32.pack(5 + len(portal)) + b"P" + portal
    execute = b"E" + _INT32.pack(8 + len(portal)) + portal
    head = (portal + first.statement.encode() + b"\0" + _INT16.pack(len(first.param_formats))
            + struct.pack(f"!{len(first.param_formats)}h", *first.param_formats)
            + _INT16.pack(len(first.params)))
    tail = (_INT16.pack(len(first.result_formats))
            + struct.pack(f"!{len(first.result_formats)}h", *first.result_formats))
    buffer, base = framer.view()
    available = len(buffer) - base
    window = min(available, FIRST_WINDOW)
    data = bytes(buffer[base:base + window])
    # the first Bind is read: its Describe and Execute come first
    described = data.startswith(describe)
    after = len(describe) if described else 0
    if not data.startswith(execute, after) or after + len(execute) + 4 > len(data):
        return None
    run = BindRun(first, ColumnRows([[value] for value in first.params], 1), [described],
                  [_INT32.unpack_from(data, after + len(execute))[0]])
    scan = _scanner(tuple(sizes))
    position = after + len(execute) + 4
    while True:
        position = scan(data, position, head, tail, describe, execute, run)
        if window == available or position < window // 2:
            break  # ended by what came, not by the window
        window = min(available, window * 4)
        data = bytes(buffer[base:base + window])
    run.rows.count = len(run.described)
    if len(run.described) < 2:
        return None
    framer.skip_to(base + position)
    return run
