"""Client-assigned batch ids: accepted ids kept as merged ranges, in any order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from executor.batches import BatchLedger, StreamCounters


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


@given(st.lists(st.integers(min_value=1, max_value=60), unique=True, min_size=1),
       st.integers(min_value=1, max_value=70))
def test_newest_kept_is_the_lowest_of_the_highest_ids(ids: list[int], keep: int) -> None:
    """What a notify stream keeping ``keep`` batches still holds, the open
    transaction's batch (the last id) counted before it commits."""
    ledger = BatchLedger()
    *committed, last = ids
    for batch in committed:
        assert ledger.accept(7, "s", batch)
        ledger.commit()
    assert ledger.accept(7, "s", last)
    expected = sorted(ids)[-keep] if keep <= len(ids) else min(ids)
    assert ledger.newest_kept(7, keep) == expected


def test_newest_kept_of_engine_numbered_batches() -> None:
    ledger = BatchLedger()
    for _ in range(5):
        ledger.batch_for(3)
        ledger.commit()
    assert ledger.newest_kept(3, 2) == 4
    assert ledger.batch_for(3) == 6
    assert ledger.newest_kept(3, 2) == 5
