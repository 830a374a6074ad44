"""Arrow output a column at a time (executor.values.arrow_out): every kernel
gives the array the value-by-value reference gives, for edge values of its
type as the engine stores them (made by each type's text input); a value a
kernel cannot take exactly goes to the reference and fails as it does."""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

import pyarrow as pa
import pytest

from catalog import errors
from catalog import types as t
from executor import codecs
from executor.values import arrow, arrow_out

NUMERIC_10_2 = t.numeric_typmod(10, 2)

EDGES: list[tuple[int, int, list[str]]] = [
    (t.INT2, -1, ["-32768", "32767", "0"]),
    (t.INT4, -1, ["-2147483648", "2147483647", "-1"]),
    (t.INT8, -1, ["-9223372036854775808", "9223372036854775807", "0"]),
    (t.OID, -1, ["0", "4294967295"]),
    (t.FLOAT4, -1, ["1.25", "-0", "NaN", "Infinity", "-Infinity", "3.4028235e38", "1e-45",
                    "0.1"]),
    (t.FLOAT8, -1, ["-0", "NaN", "Infinity", "-Infinity", "1.7976931348623157e308",
                    "5e-324", "0.1", "-2.5e-300"]),
    (t.BOOL, -1, ["t", "f", "true"]),
    (t.TEXT, -1, ["", "it's ü", "日本語 😀", "a\tb\\c", "x" * 5000]),
    (t.VARCHAR, t.char_typmod(8), ["", "abc", "ü" * 8]),
    (t.BPCHAR, t.char_typmod(5), ["ab", "", "ü"]),
    (t.NAME, -1, ["pg_class", ""]),
    (t.CHAR, -1, ["a", ""]),
    (t.BYTEA, -1, ["\\x", "\\x00ff", "\\x" + "ab" * 300]),
    (t.NUMERIC, NUMERIC_10_2, ["99999999.99", "-99999999.99", "0", "-0.01", "0.01", "1.5"]),
    (t.NUMERIC, t.numeric_typmod(18, 0), ["999999999999999999", "-999999999999999999", "-1"]),
    (t.NUMERIC, t.numeric_typmod(18, 18), ["0.999999999999999999", "-0.999999999999999999",
                                           "0.000000000000000001"]),
    (t.NUMERIC, t.numeric_typmod(1, 0), ["9", "-9", "0"]),
    (t.DATE, -1, ["0001-01-01", "9999-12-31", "1970-01-01", "1969-12-31", "2000-02-29",
                  "1582-10-04"]),
    (t.TIME, -1, ["00:00:00", "23:59:59.999999", "13:14:15.5", "00:00:00.000001"]),
    (t.TIME, 3, ["12:00:00.123"]),
    (t.TIMESTAMP, -1, ["1969-12-31 23:59:59.999999", "0001-01-01 00:00:00",
                       "9999-12-31 23:59:59.999999", "2024-01-02 03:04:05.000001",
                       "1900-01-01 00:00:00.5", "1970-01-01 00:00:00"]),
    (t.TIMESTAMP, 0, ["2024-01-02 03:04:05"]),
    (t.TIMESTAMPTZ, -1, ["2024-01-02 03:04:05+02", "1969-12-31 23:59:59.999999+00",
                         "0001-01-01 00:00:00+00", "2000-06-30 12:00:00.25-07:30"]),
]

DECLINED: list[tuple[int, int, str, type[errors.SqlError]]] = [
    (t.NUMERIC, NUMERIC_10_2, "NaN", errors.NumericValueOutOfRange),
    (t.DATE, -1, "infinity", errors.DatetimeFieldOverflow),
    (t.DATE, -1, "4713-01-01 BC", errors.DatetimeFieldOverflow),
    (t.DATE, -1, "10000-01-01", errors.DatetimeFieldOverflow),
    (t.TIME, -1, "24:00:00", errors.DatetimeFieldOverflow),
    (t.TIMESTAMP, -1, "-infinity", errors.DatetimeFieldOverflow),
    (t.TIMESTAMP, -1, "0044-03-15 12:00:00 BC", errors.DatetimeFieldOverflow),
    (t.TIMESTAMP, -1, "294276-12-31 23:59:59.999999", errors.DatetimeFieldOverflow),
    (t.TIMESTAMPTZ, -1, "infinity", errors.DatetimeFieldOverflow),
]


def stored(oid: int, typmod: int, texts: list[str]) -> list[Any]:
    """The values as the engine stores them, with NULLs among them."""
    decode = codecs.text_decoder(oid, typmod)
    return [None, *(decode(text) for text in texts), None]


def shown(column: pa.Array) -> tuple[str, list[str]]:
    """A column's type and values, told apart exactly (NaN, -0.0, scales)."""
    return str(column.type), [repr(value) for value in column.to_pylist()]


def kernel_of(oid: int, typmod: int) -> arrow_out.Kernel:
    found = arrow_out.kernel(oid, typmod, arrow.arrow_type(oid, typmod))
    assert found is not None
    return found


@pytest.mark.parametrize(("oid", "typmod", "texts"), EDGES,
                         ids=[f"{t.format_type(o, m)}" for o, m, _ in EDGES])
def test_a_kernel_gives_the_reference_array(oid: int, typmod: int, texts: list[str]) -> None:
    values = stored(oid, typmod, texts)
    made = kernel_of(oid, typmod).column(values)
    assert made is not None
    assert shown(made) == shown(arrow.each_value(oid, typmod)(values))


def test_rows_go_into_arrow_at_once_as_the_reference_gives_them() -> None:
    columns = [(oid, typmod) for oid, typmod, _ in EDGES]
    stored_columns = [stored(oid, typmod, [text for text in texts if text != "NaN"])
                      for oid, typmod, texts in EDGES]
    rows = list(zip_longest(*stored_columns))
    whole = arrow_out.rows_kernel([kernel_of(oid, typmod) for oid, typmod in columns])
    assert whole is not None
    arrays = whole(rows)
    assert arrays is not None and all(array is not None for array in arrays)
    made = arrow.arrow_columns(columns)(rows)
    for (oid, typmod), values, column in zip(columns, zip(*rows, strict=True), made, strict=True):
        assert shown(column) == shown(arrow.each_value(oid, typmod)(list(values)))


def test_a_refused_row_sends_every_column_through_its_own_kernel() -> None:
    """A float NaN (stored as text) is refused in a row of floats; the
    columns then go one by one, and NaN is still a NaN."""
    columns = [(t.FLOAT8, -1), (t.INT4, -1), (t.FLOAT4, -1)]
    rows = [(1.5, 1, "NaN"), ("NaN", None, -0.0), (None, 7, float("inf"))]
    whole = arrow_out.rows_kernel([kernel_of(oid, typmod) for oid, typmod in columns])
    assert whole is not None and whole(rows) is None
    made = arrow.arrow_columns(columns)(rows)
    for (oid, typmod), values, column in zip(columns, zip(*rows, strict=True), made, strict=True):
        assert shown(column) == shown(arrow.each_value(oid, typmod)(list(values)))


def test_types_without_a_kernel_go_value_by_value() -> None:
    for oid, typmod in [(t.NUMERIC, -1), (t.NUMERIC, t.numeric_typmod(20, 2)),
                        (t.INTERVAL, -1), (t.UUID, -1), (t.array_of(t.INT4), -1)]:
        assert arrow_out.kernel(oid, typmod, arrow.arrow_type(oid, typmod)) is None
    columns = [(t.INT4, -1), (t.INTERVAL, -1), (t.NUMERIC, -1)]
    assert arrow_out.rows_kernel([arrow_out.kernel(oid, typmod, arrow.arrow_type(oid, typmod))
                                  for oid, typmod in columns]) is None
    rows = list(zip(stored(t.INT4, -1, ["1"]), stored(t.INTERVAL, -1, ["1 day 02:00"]),
                    stored(t.NUMERIC, -1, ["-1e-10"]), strict=True))
    made = arrow.arrow_columns(columns)(rows)
    assert [column.to_pylist()[1] for column in made] == [
        1, "1 day 02:00:00", arrow.each_value(t.NUMERIC, -1)(rows[1][2:]).to_pylist()[0]]


@pytest.mark.parametrize(("oid", "typmod", "text", "error"), DECLINED,
                         ids=[text for _, _, text, _ in DECLINED])
def test_a_value_a_kernel_cannot_take_fails_as_in_the_reference(
        oid: int, typmod: int, text: str, error: type[errors.SqlError]) -> None:
    values = stored(oid, typmod, [text])
    assert kernel_of(oid, typmod).column(values) is None
    with pytest.raises(error) as reference:
        arrow.each_value(oid, typmod)(values)
    with pytest.raises(error) as column:
        arrow.arrow_column(oid, typmod)(values)
    with pytest.raises(error) as rows:
        arrow.arrow_columns([(t.INT4, -1), (oid, typmod)])(
            [(index, value) for index, value in enumerate(values)])
    assert column.value.message == rows.value.message == reference.value.message
