"""Column decoders against the value decoders they stand in for.

A column decoder (``codecs.column_decoder``) may refuse a column by raising,
but when it returns, every value must be exactly what the type's value
decoder makes of it (same type, same value, -0.0 kept), and a column with a
value the value decoder refuses must not decode. Those that read odd forms
value by value instead of refusing (``DEFERRING``) must decode every valid
column.
"""

from __future__ import annotations

import functools
import itertools
import struct
from collections.abc import Callable, Sequence

import pytest

from catalog import types as t
from executor import codecs
from executor.codecs.base import Settings, repeated_text

BERLIN = Settings(timezone="Europe/Berlin")
DEFERRING = {
    *[(name, False) for name in ("smallint", "integer", "bigint", "double precision",
                                 "numeric(10,2)", "numeric(18,0)", "numeric(5,-2)", "numeric",
                                 "date", "timestamp", "timestamptz")],
    *[(name, True) for name in ("boolean", "text", "varchar(3)", "date", "timestamp", "timestamptz",
                                "timestamp(2)", "timestamptz(6)")]}

TEXT_CASES: list[tuple[str, int, int, list[bytes]]] = [
    ("smallint", t.INT2, -1, [b"0", b"-32768", b"32767", b"32768", b"-32769", b"12"]),
    ("integer", t.INT4, -1, [
        b"0", b"-0", b"007", b"-2147483648", b"2147483647", b"2147483648", b"-2147483649",
        b" 5", b"5 ", b"+5", b"1_000", b"", b"-", b"1-2", b"--1", b"12a", b"\xd9\xa3",
        b"9" * 30, b"1\n2", b"0x10"]),
    ("bigint", t.INT8, -1, [b"9223372036854775807", b"-9223372036854775808",
                            b"9223372036854775808", b"1000003", b"-5"]),
    ("double precision", t.FLOAT8, -1, [
        b"1.5", b"-0", b"0", b"0.0", b"-0.0", b"0e10", b"1e-400", b"-1e-400", b"1e400",
        b"-1e400", b"4.9e-324", b"2.5e-310", b"1.7976931348623157e308", b"Infinity",
        b"-Infinity", b"NaN", b"nan", b"inf", b" 1.5", b"1.5 ", b"+1.5", b".5", b"5.",
        b"1e5", b"1E+05", b"0x1p3", b"1_0", b"", b"e5", b"1e", b".", b"-.5e-3", b"0.1",
        b"123456789012345678901234567890", b"3.14159265358979323846", b"1\n2"]),
    ("numeric(10,2)", t.NUMERIC, t.numeric_typmod(10, 2), [
        b"12.34", b"-0.50", b"-0.00", b"0.00", b"99999999.99", b"100000000.00",
        b"-99999999.99", b"-100000000.00", b"12.5", b"12", b"12.345", b"12.355", b".50",
        b"-.50", b"1e2", b"NaN", b"Infinity", b" 1.00", b"00001.00", b"1.00\n2.00", b"",
        b"-", b"1..00", b"+1.00", b"1.0a"]),
    ("numeric(18,0)", t.NUMERIC, t.numeric_typmod(18, 0), [
        b"0", b"-0", b"999999999999999999", b"1000000000000000000", b"12.5", b"7"]),
    ("numeric(5,-2)", t.NUMERIC, t.numeric_typmod(5, -2), [b"12345", b"-50", b"1.00"]),
    ("numeric", t.NUMERIC, -1, [b"12.34", b"-0.50", b"1e3", b"NaN", b"0.000"]),
    ("boolean", t.BOOL, -1, [b"t", b"f", b"true", b"FALSE", b"yes", b" on", b"x"]),
    ("text", t.TEXT, -1, [b"", b"plain", "non-ASCII \u00e9\u4e2d".encode(), b"\\N"]),
    ("varchar(3)", t.VARCHAR, t.char_typmod(3), [b"abc", b"ab ", b"abcd", b"abc  "]),
    ("date", t.DATE, -1, [b"2024-02-29", b"2023-02-29", b"2024-01-01 +00", b"epoch",
                          b"0001-01-01 BC", b"20240101", b"2023-04-30", b"2023-04-31",
                          b"2023-12-31", b"0000-01-01", b"0001-01-01", b"9999-12-31",
                          b"2023-13-01", b"2023-00-10", b"10000-01-01", b"2023-1-01", b"2000-02-29",
                          b"1900-02-29", b"2100-02-28", b"2023-02-30"]),
    *[(name, oid, -1, [
        b"2024-01-01 00:00:01.250000", b"2024-01-01 00:00:01.25+00", b"2024-01-01T00:00:01",
        b"2023-02-29 00:00:00", b"2024-06-30 23:59:60", b"infinity", b"2024-01-31 23:59:59.5+00",
        b"2023-04-30 00:00:00+00", b"2023-04-31 00:00:00+00", b"2024-02-29 12:00:00+00",
        b"0000-01-01 00:00:00+00", b"0001-01-01 00:00:00+00", b"9999-12-31 23:59:59.999999+00",
        b"2024-06-15 12:00:00.100000+00", b"2024-06-15 12:00:00+01", b"2024-06-15 24:00:00+00",
        b"2024-06-15 12:00:00", b"2024-06-15 12:00:00.000001", b"2024-06-15 12:00:00.+00",
        b"2024-01-01 00:00:00.000000+00:00", b"2024-03-31 02:30:00 Europe/Berlin",
        b"1900-02-29 00:00:00+00", b"2000-02-29 00:00:00+00", b"-infinity"])
      for name, oid in (("timestamp", t.TIMESTAMP), ("timestamptz", t.TIMESTAMPTZ))],
]


def _pack(code: str, *values: object) -> bytes:
    return struct.pack(">" + code, *values)


BINARY_CASES: list[tuple[str, int, int, list[bytes]]] = [
    ("smallint", t.INT2, -1, [_pack("h", -5), _pack("h", 32767), b"\x00", b"\x00\x00\x00"]),
    ("integer", t.INT4, -1, [_pack("i", -2**31), _pack("i", 7), _pack("h", 7)]),
    ("bigint", t.INT8, -1, [_pack("q", 2**63 - 1), _pack("q", -1), _pack("i", 1)]),
    ("real", t.FLOAT4, -1, [_pack("f", 1.5), _pack("f", float("nan")), _pack("f", -0.0),
                            _pack("d", 1.5)]),
    ("double precision", t.FLOAT8, -1, [
        _pack("d", -0.0), _pack("d", float("nan")), _pack("d", float("-inf")),
        _pack("d", 5e-324), _pack("f", 1.0)]),
    ("numeric(10,2)", t.NUMERIC, t.numeric_typmod(10, 2), [
        codecs.binary_encoder(t.NUMERIC)(value) for value in (1234, -50, 0)]),
    ("boolean", t.BOOL, -1, [b"\x00", b"\x01", b"\x02", b"\xff", b"", b"\x00\x01"]),
    ("date", t.DATE, -1, [_pack("i", days) for days in (
        0, -1, 8766, -730119, -730120, -730121, 2921939, 2921940, 2**31 - 1, -2**31,
        -2451545, -2451546, 2147483494, 2147483493)] + [b"\x00\x01"]),
    *[(name, oid, typmod, [_pack("q", micros) for micros in (
        0, -1, 1, 250000, 86_399_999_999, 757_382_400_000_001, -63_082_281_600_000_000,
        -63_082_281_600_000_001, 252_455_615_999_999_999, 252_455_616_000_000_000,
        2**63 - 1, -2**63, -211_813_488_000_000_000, 9_214_646_400_000_000_000,
        1_500_000)] + [b"\x00" * 4])
      for name, oid, typmod in (("timestamp", t.TIMESTAMP, -1), ("timestamptz", t.TIMESTAMPTZ, -1),
                                ("timestamp(2)", t.TIMESTAMP, 2),
                                ("timestamptz(6)", t.TIMESTAMPTZ, 6))],
    ("text", t.TEXT, -1, [b"", b"plain", "non-ASCII \u00e9\u4e2d".encode(), b"a\x00b",
                          b"\xff", b"\xc3", b"\xa9", b"\xed\xa0\x80", b"\xc0\x80"]),
    ("varchar(3)", t.VARCHAR, t.char_typmod(3), [b"abc", b"abcd", b"\xff"]),
]


def _outcome(decode: Callable[[Sequence[bytes | None]], list[object]],
             values: Sequence[bytes | None]) -> list[tuple[type, str]] | None:
    """The decoded values with their types (repr tells -0.0 from 0.0), or
    None when decoding raises."""
    try:
        return [(type(value), repr(value)) for value in decode(values)]
    except Exception:
        return None


def _each(oid: int, typmod: int, binary: bool, settings: Settings,
          values: Sequence[bytes | None]) -> list[object]:
    if binary:
        decode = codecs.binary_decoder(oid, typmod, settings)
        return [None if v is None else decode(v) for v in values]
    text = codecs.text_decoder(oid, typmod, settings)
    return [None if v is None else text(v.decode()) for v in values]


def _columns(values: list[bytes]) -> list[list[bytes | None]]:
    """Each value alone, each next to a NULL, each pair of neighbours, and
    all of them at once."""
    return ([[value] for value in values] + [[None, value, None] for value in values]
            + [[first, second] for first, second in itertools.pairwise(values)]
            + [list(values), [None, *values, None]])


CASES = [(name, oid, typmod, False, values) for name, oid, typmod, values in TEXT_CASES] + [
    (name, oid, typmod, True, values) for name, oid, typmod, values in BINARY_CASES]


@pytest.mark.parametrize("settings", [codecs.DEFAULT, BERLIN], ids=["UTC", "Berlin"])
@pytest.mark.parametrize(("name", "oid", "typmod", "binary", "values"), CASES,
                         ids=[f"{c[0]}-{'binary' if c[3] else 'text'}" for c in CASES])
def test_column_decoder_gives_what_the_value_decoder_gives(
        name: str, oid: int, typmod: int, binary: bool, values: list[bytes],
        settings: Settings) -> None:
    column = codecs.column_decoder(oid, typmod, binary, settings)
    each = functools.partial(_each, oid, typmod, binary, settings)
    valid = [value for value in values if _outcome(each, [value]) is not None]
    for values_of_column in [*_columns(values), *_columns(valid)]:
        expected = _outcome(each, values_of_column)
        got = _outcome(column, values_of_column)
        if expected is None:
            assert got is None, f"{name}: {values_of_column!r} decoded but is invalid"
        elif (name, binary) in DEFERRING:
            assert got == expected, f"{name}: {values_of_column!r}"
        else:
            assert got in (None, expected), f"{name}: {values_of_column!r}"


def test_repeated_texts_are_decoded_once_and_errors_never_kept() -> None:
    seen: list[str] = []

    def decode(text: str) -> object:
        seen.append(text)
        if text == "bad":
            raise ValueError(text)
        return text.upper()

    column = repeated_text(decode, distinct=2)
    assert column([b"a", None, b"a", b"b", b"c", b"c"]) == ["A", None, "A", "B", "C", "C"]
    assert seen == ["a", "b", "c", "c"]  # only two are remembered
    for _ in range(2):
        with pytest.raises(ValueError, match="bad"):
            column([b"bad"])
    assert seen.count("bad") == 2
