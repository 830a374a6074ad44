"""The column encoders (executor.codecs.columnar, Arrow) against the
per-value encoders they stand in for: byte for byte, for whatever storage
values a column may hold, including the ones a kernel must leave to the
per-value encoder (NULLs, 'NaN' as stored, a 3.0 among ints, BC dates...).
The DataRows of a chunk assembled column by column (wire.bulk) equal the
ones assembled row by row. PostgreSQL itself is compared in
tests/conformance/test_bulk_output_vs_postgres.py.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from catalog import types
from executor.codecs import (
    Settings,
    binary_column_encoder,
    binary_encoder,
    text_column_encoder,
    text_encoder,
)
from executor.codecs.civil import format_date, format_timestamp
from executor.codecs.columnar import arrow
from wire import bulk
from wire.messages import BULK_ROWS, data_row_encoder, data_rows_encoder

NUMERIC_10_2 = ((10 << 16) | 2) + 4
NUMERIC_18_5 = ((18 << 16) | 5) + 4

floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [0.0, -0.0, 1e-4, 9.999999999999999e-05, 1e10, 9999999999.999998, 1e15, 5e-324, "NaN"])
ints = st.integers(-(2**63), 2**63 - 1)
timestamps = st.integers(-(10**17), 10**17).map(format_timestamp) | st.sampled_from(
    ["infinity", "-infinity", "0044-03-15 12:00:00 BC", "2024-01-02 03:04", "12345-01-01 00:00:00",
     # New York's DST changes of 2024 and its change from local mean time
     "2024-03-10 06:59:59.999999", "2024-03-10 07:00:00", "2024-11-03 05:59:59",
     "2024-11-03 06:00:00", "1883-11-18 17:03:57", "1883-11-18 17:03:58"])
ZONES = ("UTC", "America/New_York", "+05:30", "Australia/Lord_Howe", "Europe/Dublin")
dates = st.integers(-(10**6), 10**6).map(format_date) | st.sampled_from(
    ["infinity", "-infinity", "0044-03-15 BC", "5874897-12-31"])
texts = st.text() | st.binary()

CASES: list[tuple[int, int, st.SearchStrategy[Any]]] = [
    (types.INT2, -1, st.integers(-(2**15), 2**15 - 1)),
    (types.INT4, -1, st.integers(-(2**31), 2**31 - 1) | st.sampled_from([3.0, 2.5, "7"])),
    (types.INT8, -1, ints),
    (types.OID, -1, st.integers(0, 2**32 - 1)),
    (types.BOOL, -1, st.sampled_from([0, 1, 2, -1, 1.0, "t"])),
    (types.FLOAT8, -1, floats | ints.map(float) | st.integers(-(2**40), 2**40)),
    (types.TEXT, -1, texts),
    (types.TIMESTAMPTZ, -1, timestamps),
    (types.TIMESTAMP, -1, timestamps),
    (types.DATE, -1, dates),
    (types.NUMERIC, NUMERIC_10_2, st.integers(-(10**10) + 1, 10**10 - 1) | st.just("NaN")),
    (types.NUMERIC, NUMERIC_18_5, st.integers(-(10**18) + 1, 10**18 - 1)),
]


def _bytes_of(column: Any) -> list[bytes | None]:
    return bulk.as_bytes(column).to_pylist()


def _each(encode: Any, values: list[Any]) -> list[bytes | None]:
    return [None if value is None else encode(value) for value in values]


def _columns(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.lists(st.none() | strategy, min_size=1, max_size=40)


@settings(max_examples=60)
@given(st.data())
def test_text_columns_equal_their_values(data: st.DataObject) -> None:
    for oid, typmod, strategy in CASES:
        values = data.draw(_columns(strategy), label=f"oid {oid}")
        for zone in ZONES:
            config = Settings(timezone=zone)
            expected = _each(text_encoder(oid, typmod, config), values)
            assert _bytes_of(text_column_encoder(oid, typmod, config)(values)) == expected


@settings(max_examples=60)
@given(st.data())
def test_binary_columns_equal_their_values(data: st.DataObject) -> None:
    for oid, typmod, strategy in CASES:
        values = data.draw(_columns(strategy), label=f"oid {oid}")
        expected = _each(binary_encoder(oid, typmod), values)
        assert _bytes_of(binary_column_encoder(oid, typmod)(values)) == expected


def test_extra_float_digits_zero_prints_value_by_value() -> None:
    config = Settings(extra_float_digits=0)
    values = [0.1, 1e15, None, 2.5]
    expected = _each(text_encoder(types.FLOAT8, -1, config), values)
    assert _bytes_of(text_column_encoder(types.FLOAT8, -1, config)(values)) == expected


@settings(max_examples=20)
@given(st.lists(st.tuples(st.none() | ints, st.none() | texts, st.none() | floats),
                min_size=1, max_size=20))
def test_chunks_of_data_rows_equal_row_by_row(drawn: list[tuple[Any, ...]]) -> None:
    rows = (drawn * BULK_ROWS)[:BULK_ROWS + len(drawn)]  # a chunk large enough
    oids = (types.INT8, types.TEXT, types.FLOAT8)
    for code in (0, 1):
        encoders = [text_encoder(oid) if code == 0 else binary_encoder(oid) for oid in oids]
        columns = [text_column_encoder(oid) if code == 0 else binary_column_encoder(oid)
                   for oid in oids]
        one_row = data_row_encoder(encoders)
        assert data_rows_encoder(encoders, columns)(rows) == b"".join(map(one_row, rows))


def test_a_column_of_nulls_only() -> None:
    values = [None] * 5
    for oid in (types.INT4, types.TEXT, types.FLOAT8, types.TIMESTAMPTZ, types.NUMERIC):
        assert _bytes_of(text_column_encoder(oid)(values)) == values
        assert _bytes_of(binary_column_encoder(oid)(values)) == values
    assert arrow.pa.array(values).null_count == 5
