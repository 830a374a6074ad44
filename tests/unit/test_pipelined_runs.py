"""Runs of pipelined Bind/Describe/Execute read straight from the buffer:
every value comes out as the Bind carried it, whichever way it was cut."""

from __future__ import annotations

import pytest

from wire import messages as m
from wire.framing import FrameReader
from wire.pipelined import read_run

ROWS: list[tuple[bytes | None, ...]] = [
    (b"\x00\x00\x00\x01", b"\x00\x00\x00\x02", b"one"),
    (None, b"\x00\x00\x00\x03", b"two"),  # a NULL where a 4-byte value is expected
    (b"\x00\x00\x01", b"\x00\x00\x00\x04", None),  # a value of another size
    (b"\x00\x00\x00\x05", None, b""),
    (b"\x00\x00\x00\x06", b"\x00\x00\x00\x07", b"last"),
]


def _triples(rows: list[tuple[bytes | None, ...]], described: bool) -> bytes:
    return b"".join(m.encode_bind("", "s", row, [1, 1, 0]) + (
        m.encode_describe("P", "") if described else b"") + m.encode_execute("", 0)
                    for row in rows)


@pytest.mark.parametrize("sizes", [(4, 4, None), (None, None, None), ()],
                         ids=["fixed", "any", "unknown"])
@pytest.mark.parametrize("described", [False, True])
def test_every_value_comes_out_as_sent(sizes: tuple[int | None, ...], described: bool) -> None:
    framer = FrameReader()
    framer.feed(_triples(ROWS, described) + b"S\x00\x00\x00\x04")
    first = m.decode(*framer.read_message())  # type: ignore[misc]
    assert isinstance(first, m.Bind)
    run = read_run(framer, first, sizes)
    assert run is not None
    assert list(run.rows) == ROWS
    assert run.described == [described] * len(ROWS)
    assert m.decode(*framer.read_message()) is m.SYNC  # type: ignore[misc]
