"""Client-assigned batch ids: accepted ids kept as merged ranges, in any order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from executor.batches import StreamCounters


@given(st.lists(st.integers(min_value=1, max_value=60), unique=True))
def test_accepted_ids_in_any_order_are_exact_merged_ranges(ids: list[int]) -> None:
    counters = StreamCounters()
    for batch in ids:
        assert not counters.was_accepted(batch)
        counters.add(batch)
    assert all(counters.was_accepted(batch) for batch in ids)
    assert not any(counters.was_accepted(batch) for batch in range(0, 62) if batch not in ids)
    ranges = counters.accepted
    assert ranges == sorted(ranges)
    assert all(first <= last for first, last in ranges)
    # merged: no two ranges touch
    assert all(ranges[i][1] + 1 < ranges[i + 1][0] for i in range(len(ranges) - 1))
    assert sum(last - first + 1 for first, last in ranges) == len(ids)
