"""The data source's column-wise routing (``sqlext.spark.routing``) gives
every value the owner ``catalog.partitioning.partition_of`` gives its
stored form, for every key type, and shares a batch out without losing,
doubling or reordering a row."""

from __future__ import annotations

import uuid

import pyarrow as pa
from hypothesis import example, given
from hypothesis import strategies as st

from catalog import types
from catalog.partitioning import partition_of
from sqlext.spark.catalog_lookup import PartitionKey
from sqlext.spark.routing import Router, owners, routable

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
COUNTS = st.integers(min_value=1, max_value=64)
TEXT = st.text(st.characters(exclude_categories=("Cs",)))  # what UTF-8 can carry
INTEGER_COLUMNS = {types.INT2: (pa.int16(), pa.int32(), pa.int64()),
                   types.INT4: (pa.int32(), pa.int64()), types.INT8: (pa.int64(),)}
BITS = {types.INT2: 16, types.INT4: 32, types.INT8: 64}


def expected(stored: list[object], count: int) -> list[int]:
    return [partition_of(value, count) for value in stored]


@st.composite
def integer_keys(draw: st.DrawFn) -> tuple[int, pa.DataType, list[int | None]]:
    key_type = draw(st.sampled_from(sorted(INTEGER_COLUMNS)))
    bits = BITS[key_type]
    values = st.integers(min_value=-(2 ** (bits - 1)), max_value=2 ** (bits - 1) - 1)
    return (key_type, draw(st.sampled_from(INTEGER_COLUMNS[key_type])),
            draw(st.lists(st.none() | values)))


@given(integer_keys(), COUNTS)
@example((types.INT8, pa.int64(), [INT64_MIN, INT64_MAX, -1, 0, 1, None, -(2**31)]), 3)
@example((types.INT8, pa.int64(), [INT64_MIN, INT64_MAX, -1, 0, None]), 1)
@example((types.INT2, pa.int16(), [-32768, 32767, -1]), 7)
def test_integer_keys_route_as_partition_of(keys: tuple[int, pa.DataType, list[int | None]],
                                            count: int) -> None:
    key_type, column_type, values = keys
    routed = owners(pa.array(values, column_type), key_type, count)
    assert routed.to_pylist() == expected(values, count)


@given(st.lists(st.none() | TEXT), st.sampled_from([pa.string(), pa.large_string()]),
       st.sampled_from([types.TEXT, types.VARCHAR]), COUNTS)
@example(["", "é", "日本語", "a\x00b", None, "key42"], pa.string(), types.TEXT, 3)
def test_text_keys_route_as_partition_of(values: list[str | None], column_type: pa.DataType,
                                         key_type: int, count: int) -> None:
    routed = owners(pa.array(values, column_type), key_type, count)
    assert routed.to_pylist() == expected(values, count)


UUID_FORMS = (str, lambda u: str(u).upper(), lambda u: "{" + str(u) + "}",
              lambda u: u.hex, lambda u: u.hex.upper())


@given(st.lists(st.none() | st.tuples(st.uuids(), st.sampled_from(range(len(UUID_FORMS))))),
       COUNTS)
@example([(uuid.UUID(int=0), 0), (uuid.UUID(int=2**128 - 1), 1), None], 3)
def test_uuid_keys_route_as_their_canonical_text(values: list[tuple[uuid.UUID, int] | None],
                                                 count: int) -> None:
    """A uuid the DataFrame spells in any form its input takes is routed as
    the canonical text the owning node stores."""
    given_text = [None if v is None else UUID_FORMS[v[1]](v[0]) for v in values]
    stored = [None if v is None else str(v[0]) for v in values]
    routed = owners(pa.array(given_text, pa.string()), types.UUID, count)
    assert routed.to_pylist() == expected(stored, count)


@given(st.lists(st.none() | st.binary()), st.sampled_from([pa.binary(), pa.large_binary()]),
       COUNTS)
@example([b"", b"\x00", b"\xff" * 40, None], pa.binary(), 3)
def test_bytea_keys_route_as_partition_of(values: list[bytes | None], column_type: pa.DataType,
                                          count: int) -> None:
    routed = owners(pa.array(values, column_type), types.BYTEA, count)
    assert routed.to_pylist() == expected(values, count)


@given(st.lists(st.tuples(st.none() | st.integers(INT64_MIN, INT64_MAX), TEXT)),
       st.integers(min_value=1, max_value=8), st.integers(min_value=0, max_value=5))
def test_shares_hold_every_row_once_on_its_owner_in_order(
        rows: list[tuple[int | None, str]], count: int, offset: int) -> None:
    batch = pa.RecordBatch.from_pylist([{"k": k, "v": v} for k, v in rows],
                                       pa.schema([("k", pa.int64()), ("v", pa.string())]))
    batch = batch.slice(min(offset, batch.num_rows))  # a batch that starts inside its buffers
    rows = rows[min(offset, len(rows)):]
    shares = Router(count, PartitionKey("k", types.INT8)).shares(batch)
    assert len(shares) == count
    for node, share in enumerate(shares):
        assert share.schema == batch.schema
        assert [(r["k"], r["v"]) for r in share.to_pylist()] == [
            row for row in rows if partition_of(row[0], count) == node]


def test_a_replicated_relation_gives_every_node_every_row() -> None:
    batch = pa.RecordBatch.from_pydict({"v": [1, 2, 3]})
    assert Router(3).shares(batch) == [batch, batch, batch]


def test_routable_column_types() -> None:
    assert routable(types.INT4, pa.int64()) and routable(types.INT8, pa.int8())
    assert routable(types.UUID, pa.large_string()) and routable(types.BYTEA, pa.binary())
    assert not routable(types.INT8, pa.string())
    assert not routable(types.TEXT, pa.binary())
    assert not routable(types.BYTEA, pa.string())
    assert not routable(types.NUMERIC, pa.int64())
