"""Column decoders (batches of pipelined Binds, COPY) against the per-value
decoders they shortcut: where a column decoder returns, every value equals
what the per-value decoder makes of it, and a value the per-value decoder
refuses makes the column decoder refuse the column too."""

from __future__ import annotations

import struct
from collections.abc import Sequence

import pytest

from catalog import types as t
from catalog.errors import SqlError
from executor import codecs

TIMESTAMPS = [
    "2024-01-02 03:04:05", "2024-01-02 03:04:05.123456+00", "2024-01-02 03:04:05.100000",
    "2024-01-02 03:04:05.000000+00:00", "2024-01-02 03:04:05.5+00", "2024-02-29 00:00:00",
    "2023-02-29 00:00:00", "0000-01-01 00:00:00", "0001-01-01 00:00:00", "9999-12-31 23:59:59",
    "2024-01-02 24:00:00", "2024-01-02 23:59:60", "2024-01-02 03:04:05+05",
    "2024-01-02 03:04:05-07:30", "infinity", "-infinity", " 2024-01-02 03:04:05",
    "2024-01-02T03:04:05", "2024-13-01 00:00:00", "2024-01-02 03:04:05.1234567",
    "2024-01-02 03:04", "epoch", "2024-01-02 03:04:05 BC", "garbage",
]
DATES = ["2024-01-02", "2024-01-02 +00", "2024-02-30", "0000-01-01", "0999-03-04",
         "infinity", "2024-01-02 +05", "20240102", "Jan 2 2024", "2024-1-2", "bad"]
BOOLS = ["TRUE", "FALSE", "t", "f", "true", "false", "yes", " t", "1", "0", "maybe", ""]
TEXTS = ["", "plain", "ünïcödé", "tab\there", "x" * 300]
ZONES = ["UTC", "America/New_York", "+05:30"]


def _per_value(oid: int, typmod: int, binary: bool, settings: codecs.Settings,
               values: Sequence[bytes | None]) -> list[object] | SqlError:
    decode = (codecs.binary_decoder(oid, typmod, settings) if binary
              else codecs.text_decoder(oid, typmod, settings))
    try:
        return [None if value is None else decode(value if binary else value.decode())
                for value in values]
    except SqlError as exc:
        return exc


def _check(oid: int, typmod: int, binary: bool, settings: codecs.Settings,
           values: Sequence[bytes | None]) -> None:
    expected = _per_value(oid, typmod, binary, settings, values)
    column = codecs.column_decoder(oid, typmod, binary, settings)
    try:
        decoded = column(values)
    except Exception:  # a column decoder may refuse what it does not know
        return
    assert not isinstance(expected, SqlError), f"column decoder took what {expected} refuses"
    assert decoded == expected
    assert [type(value) for value in decoded] == [type(value) for value in expected]


def _one_by_one_and_together(oid: int, typmod: int, binary: bool, settings: codecs.Settings,
                             values: Sequence[bytes | None]) -> None:
    for value in values:
        _check(oid, typmod, binary, settings, [value, None, value])
    _check(oid, typmod, binary, settings, list(values))


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize("oid", [t.TIMESTAMP, t.TIMESTAMPTZ])
@pytest.mark.parametrize("typmod", [-1, 6, 3, 0])
def test_timestamps(zone: str, oid: int, typmod: int) -> None:
    settings = codecs.Settings(timezone=zone)
    _one_by_one_and_together(oid, typmod, False, settings, [v.encode() for v in TIMESTAMPS])


@pytest.mark.parametrize("zone", ZONES)
def test_dates(zone: str) -> None:
    _one_by_one_and_together(t.DATE, -1, False, codecs.Settings(timezone=zone),
                             [v.encode() for v in DATES])


def test_booleans_and_texts() -> None:
    _one_by_one_and_together(t.BOOL, -1, False, codecs.DEFAULT, [v.encode() for v in BOOLS])
    for oid, typmod in ((t.TEXT, -1), (t.VARCHAR, -1), (t.VARCHAR, 3 + 4), (t.BPCHAR, 5 + 4)):
        _one_by_one_and_together(oid, typmod, False, codecs.DEFAULT,
                                 [v.encode() for v in TEXTS])


@pytest.mark.parametrize(("oid", "code", "numbers"), [
    (t.INT2, "h", [0, 1, -1, 32767, -32768]),
    (t.INT4, "i", [0, 7, -2**31, 2**31 - 1]),
    (t.INT8, "q", [0, -5, 2**63 - 1, -2**63]),
    (t.FLOAT4, "f", [0.0, -0.0, 1.5, float("inf"), float("-inf"), float("nan")]),
    (t.FLOAT8, "d", [0.0, -0.0, 1 / 7, 1e300, float("inf"), float("nan")]),
])
def test_fixed_width_binary(oid: int, code: str, numbers: list[float]) -> None:
    packed: list[bytes | None] = [struct.pack(f">{code}", number) for number in numbers]
    _one_by_one_and_together(oid, -1, True, codecs.DEFAULT, packed)
    _check(oid, -1, True, codecs.DEFAULT, [*packed, b"\x00"])  # a short value
    _check(oid, -1, True, codecs.DEFAULT, [*packed[:1], packed[0] + b"\x00"])  # a long one
    # NaN is stored as the text 'NaN' (catalog.types), and -0.0 keeps its sign
    if code in "fd":
        decoded = codecs.column_decoder(oid, -1, True, codecs.DEFAULT)(packed)
        assert decoded[-1] == "NaN"
        assert str(decoded[1]) == "-0.0"
