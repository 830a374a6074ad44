"""executor.codecs without a server: round trips, exact wire bytes, errors.

The behaviour itself is pinned against PostgreSQL in
tests/conformance/test_codecs_vs_postgres.py; these tests check that every
storage value survives text and binary round trips (hypothesis), the byte
layouts PostgreSQL documents, the SQLSTATEs and messages of rejected input, and
the leniency towards values SQLite computes.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catalog import types
from catalog.errors import SqlError
from executor.codecs import (
    DEFAULT,
    Settings,
    binary_decoder,
    binary_encoder,
    text_decoder,
    text_encoder,
)
from executor.codecs.civil import (
    DATE_END,
    DATE_MIN,
    TIMESTAMP_END,
    TIMESTAMP_MIN,
    USECS_PER_DAY,
    format_clock,
    format_date,
    format_timestamp,
)
from executor.codecs.intervals import format_interval

N102 = types.numeric_typmod(10, 2)
NY = Settings(timezone="America/New_York")


def text_round_trip(
    oid: int, stored: object, typmod: int = -1, settings: Settings = DEFAULT
) -> object:
    text = text_encoder(oid, typmod, settings)(stored)
    return text_decoder(oid, typmod, settings)(text.decode())


def binary_round_trip(oid: int, stored: object, typmod: int = -1) -> object:
    data = binary_encoder(oid, typmod)(stored)
    return binary_decoder(oid, typmod)(data)


def assert_round_trips(
    oid: int, stored: object, typmod: int = -1, settings: Settings = DEFAULT
) -> None:
    for result in (
        text_round_trip(oid, stored, typmod, settings),
        binary_round_trip(oid, stored, typmod),
    ):
        assert type(result) is type(stored)
        if isinstance(stored, float):
            assert repr(result) == repr(stored)  # also tells -0.0 from 0.0
        else:
            assert result == stored


def raises(sqlstate: str, function: Callable[[], object], message: str | None = None) -> None:
    with pytest.raises(SqlError) as caught:
        function()
    assert caught.value.sqlstate == sqlstate
    if message is not None:
        assert caught.value.message == message


# --- round trips ------------------------------------------------------------------


def storage_float(value: float) -> float | str:
    return "NaN" if math.isnan(value) else value


@given(st.booleans())
def test_bool_round_trip(value: bool) -> None:
    assert_round_trips(types.BOOL, int(value))


@pytest.mark.parametrize(("oid", "bits"), [(types.INT2, 16), (types.INT4, 32), (types.INT8, 64)])
@given(data=st.data())
def test_integer_round_trip(oid: int, bits: int, data: st.DataObject) -> None:
    assert_round_trips(oid, data.draw(st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)))


@pytest.mark.parametrize("oid", [types.OID, types.REGCLASS, types.REGTYPE, types.REGPROC])
@given(value=st.integers(0, (1 << 32) - 1))
def test_oid_round_trip(oid: int, value: int) -> None:
    assert_round_trips(oid, value)


@given(st.floats(), st.integers(1, 3))
def test_float8_round_trip(value: float, extra_float_digits: int) -> None:
    settings = Settings(extra_float_digits=extra_float_digits)
    assert_round_trips(types.FLOAT8, storage_float(value), settings=settings)


@given(st.floats(width=32))
def test_float4_round_trip(value: float) -> None:
    assert_round_trips(types.FLOAT4, storage_float(value))


@given(st.integers(-(10**60), 10**60), st.integers(0, 40))
def test_numeric_round_trip(digits: int, scale: int) -> None:
    # every digit and the display scale (a key: executor.codecs.numeric_storage)
    stored = text_decoder(types.NUMERIC)(str(Decimal(digits).scaleb(-scale)))
    assert_round_trips(types.NUMERIC, stored)


@pytest.mark.parametrize(("text", "printed"), [
    ("12345678901234567890.123456789", "12345678901234567890.123456789"), ("1.10", "1.10"),
    ("-0.000", "0.000"), ("1e20", "100000000000000000000"), (" nan ", "NaN"),
    ("-inf", "-Infinity")])
def test_numeric_keeps_every_digit_and_its_scale(text: str, printed: str) -> None:
    assert text_encoder(types.NUMERIC)(text_decoder(types.NUMERIC)(text)).decode() == printed


@given(st.decimals(min_value=-(10**8) + 1, max_value=10**8 - 1, places=2))
def test_numeric_with_typmod_round_trip(value: Decimal) -> None:
    # numeric(10,2) is held as the integer value * 100
    assert_round_trips(types.NUMERIC, int(value * 100), N102)


TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"))


@pytest.mark.parametrize("oid", [types.TEXT, types.VARCHAR, types.UNKNOWN, types.BPCHAR])
@given(value=TEXT)
def test_text_round_trip(oid: int, value: str) -> None:
    assert_round_trips(oid, value)


@given(TEXT.filter(lambda text: len(text) <= 8 and not text.endswith(" ")))
def test_bpchar_pads_and_round_trips(value: str) -> None:
    stored = text_decoder(types.BPCHAR, types.char_typmod(8))(value)
    assert stored == value.ljust(8)
    assert_round_trips(types.BPCHAR, stored, types.char_typmod(8))


@given(TEXT.filter(lambda text: len(text.encode()) < 64))
def test_name_round_trip(value: str) -> None:
    assert_round_trips(types.NAME, value)


@given(st.integers(0, 255))
def test_char_round_trip(byte: int) -> None:
    assert_round_trips(types.CHAR, chr(byte) if byte else "")


@given(st.binary())
def test_bytea_round_trip(value: bytes) -> None:
    assert_round_trips(types.BYTEA, value)


@given(st.uuids())
def test_uuid_round_trip(value: object) -> None:
    assert_round_trips(types.UUID, str(value))


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda children: st.lists(children) | st.dictionaries(TEXT, children),
    max_leaves=10,
)


@given(JSON_VALUES, st.sampled_from([None, (",", ":"), (" , ", " : ")]))
def test_json_keeps_text_and_jsonb_normalises(
    value: object, separators: tuple[str, str] | None
) -> None:
    text = json.dumps(value, separators=separators, ensure_ascii=False)
    assert text_decoder(types.JSON)(text) == text
    assert_round_trips(types.JSON, text)
    normalised = str(text_decoder(types.JSONB)(text))
    exact = json.JSONDecoder(parse_float=Decimal, parse_int=Decimal)
    assert exact.decode(normalised) == exact.decode(text)
    assert text_decoder(types.JSONB)(normalised) == normalised
    assert_round_trips(types.JSONB, normalised)


@given(st.integers(DATE_MIN, DATE_END - 1))
def test_date_round_trip(days: int) -> None:
    assert_round_trips(types.DATE, format_date(days))


@given(st.integers(0, USECS_PER_DAY))
def test_time_round_trip(micros: int) -> None:
    assert_round_trips(types.TIME, format_clock(micros))


@given(st.integers(TIMESTAMP_MIN, TIMESTAMP_END - 1))
def test_timestamp_round_trip(micros: int) -> None:
    assert_round_trips(types.TIMESTAMP, format_timestamp(micros))


ZONES = [
    "UTC",
    "America/New_York",
    "Asia/Kolkata",
    "Australia/Lord_Howe",
    "+02",
    "-05:30",
    "UTC+3",
    "Europe/Amsterdam",
]


@given(st.integers(TIMESTAMP_MIN, TIMESTAMP_END - 1), st.sampled_from(ZONES))
def test_timestamptz_round_trip(micros: int, zone: str) -> None:
    assert_round_trips(types.TIMESTAMPTZ, format_timestamp(micros), settings=Settings(zone))


@given(
    st.integers(-(1 << 31), (1 << 31) - 1),
    st.integers(-(1 << 31), (1 << 31) - 1),
    st.integers(-(1 << 63) + 1, (1 << 63) - 1) | st.integers(-(10**12), 10**12),
)
def test_interval_round_trip(months: int, days: int, micros: int) -> None:
    assert_round_trips(types.INTERVAL, format_interval(months, days, micros))


def array_storage(values: list[object]) -> str:
    return json.dumps(values, ensure_ascii=False, separators=(",", ":"))


@given(st.lists(st.none() | st.integers(-(1 << 31), (1 << 31) - 1)))
def test_int_array_round_trip(values: list[object]) -> None:
    assert_round_trips(1007, array_storage(values))


@given(st.lists(st.none() | TEXT))
def test_text_array_round_trip(values: list[object]) -> None:
    assert_round_trips(1009, array_storage(values))


@given(st.lists(st.none() | st.floats().map(storage_float)))
def test_float_array_round_trip(values: list[object]) -> None:
    # Infinities are stored as 1e999, which SQLite's JSON accepts (Infinity it does not);
    # the only strings here are "NaN", so replacing text is safe.
    assert_round_trips(1022, array_storage(values).replace("Infinity", "1e999"))


@given(st.lists(st.none() | st.binary()))
def test_bytea_array_round_trip(values: list[bytes | None]) -> None:
    stored = array_storage([None if value is None else "\\x" + value.hex() for value in values])
    assert_round_trips(1001, stored)


# --- exact forms ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "typmod", "expected"),
    [
        ("123.45", N102, "0002 0000 0000 0002 007b 1194"),
        ("-0.01", -1, "0001 ffff 4000 0002 0064"),
        ("0", N102, "0000 0000 0000 0002"),
        ("0", -1, "0000 0000 0000 0000"),
        ("1e20", -1, "0001 0005 0000 0000 0001"),
        ("0.001", -1, "0001 ffff 0000 0003 000a"),
        ("NaN", -1, "0000 0000 c000 0000"),
        ("Infinity", -1, "0000 0000 d000 0020"),
        ("-Infinity", -1, "0000 0000 f000 0020"),
    ],
)
def test_numeric_send(text: str, typmod: int, expected: str) -> None:
    stored = text_decoder(types.NUMERIC, typmod)(text)
    assert binary_encoder(types.NUMERIC, typmod)(stored).hex() == expected.replace(" ", "")


@pytest.mark.parametrize(
    ("oid", "text", "expected"),
    [
        (types.BOOL, "on", "01"),
        (types.INT2, "-2", "fffe"),
        (types.INT4, "1", "00000001"),
        (types.INT8, "-1", "ffffffffffffffff"),
        (types.OID, "-1", "ffffffff"),
        (types.FLOAT4, "1.5", "3fc00000"),
        (types.FLOAT8, "1.5", "3ff8000000000000"),
        (types.FLOAT8, "NaN", "7ff8000000000000"),
        (types.TEXT, "é", "c3a9"),
        (types.CHAR, "é", "c3"),
        (types.BYTEA, "\\xdeadbeef", "deadbeef"),
        (types.DATE, "2000-01-02", "00000001"),
        (types.DATE, "infinity", "7fffffff"),
        (types.DATE, "-infinity", "80000000"),
        (types.TIME, "00:00:01.5", "000000000016e360"),
        (types.TIMESTAMP, "2000-01-01 00:00:01", "00000000000f4240"),
        (types.TIMESTAMP, "infinity", "7fffffffffffffff"),
        (types.TIMESTAMPTZ, "-infinity", "8000000000000000"),
        (types.TIMESTAMPTZ, "2000-01-01 01:00:00+01", "0000000000000000"),
        (types.INTERVAL, "1 mon 2 days 00:00:03", "00000000002dc6c00000000200000001"),
        (types.UUID, "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "a0eebc999c0b4ef8bb6d6bb9bd380a11"),
        (types.JSONB, '{"a":1}', "01" + b'{"a": 1}'.hex()),
        (1007, "{}", "00000000 00000000 00000017"),
        (
            1007,
            "{1,NULL}",
            "00000001 00000001 00000017 00000002 00000001 00000004 00000001 ffffffff",
        ),
    ],
)
def test_send_bytes(oid: int, text: str, expected: str) -> None:
    stored = text_decoder(oid)(text)
    assert binary_encoder(oid)(stored).hex() == expected.replace(" ", "")


@pytest.mark.parametrize(
    ("oid", "typmod", "text", "stored", "printed"),
    [
        (types.BOOL, -1, "  Yes ", 1, "t"),
        (types.INT4, -1, " -42 ", -42, "-42"),
        (types.FLOAT4, -1, "1.1", struct.unpack(">f", struct.pack(">f", 1.1))[0], "1.1"),
        (types.FLOAT8, -1, "-1e300", -1e300, "-1e+300"),
        (types.FLOAT8, -1, "0.00001", 1e-05, "1e-05"),
        (types.FLOAT8, -1, "-0", -0.0, "-0"),
        (types.FLOAT8, -1, "inf", math.inf, "Infinity"),
        (types.FLOAT8, -1, "1e15", 1e15, "1e+15"),
        (types.NUMERIC, N102, "1.005", 101, "1.01"),
        (types.NUMERIC, N102, "0", 0, "0.00"),
        (types.NUMERIC, N102, "nan", "NaN", "NaN"),
        (types.NUMERIC, -1, "1e20", "3020020" + "1", "100000000000000000000"),
        (types.NUMERIC, -1, "-0", "2", "0"),
        (types.NUMERIC, -1, "-1.50", "197999984~ ", "-1.50"),
        (types.NUMERIC, -1, "nan", "5", "NaN"),
        (types.VARCHAR, types.char_typmod(5), "abc   ", "abc  ", "abc  "),
        (types.BPCHAR, types.char_typmod(5), "ab", "ab   ", "ab   "),
        (types.NAME, -1, "é" * 40, "é" * 31, "é" * 31),
        (types.CHAR, -1, "\\101", "A", "A"),
        (types.BYTEA, -1, "a\\\\b\\001", b"a\\b\x01", "\\x615c6201"),
        (types.BYTEA, -1, "\\x 00 FF", b"\x00\xff", "\\x00ff"),
        (
            types.UUID,
            -1,
            "{a0eebc999c0b4ef8bb6d6bb9bd380a11}",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        ),
        (
            types.JSONB,
            -1,
            '{"b": [1, 2.50], "aa": 1e2, "b": null}',
            '{"b": null, "aa": 100}',
            '{"b": null, "aa": 100}',
        ),
        (types.DATE, -1, "2024-01-02 +00", "2024-01-02", "2024-01-02"),
        (types.DATE, -1, "epoch", "1970-01-01", "1970-01-01"),
        (types.DATE, -1, "0044-03-15 BC", "0044-03-15 BC", "0044-03-15 BC"),
        (types.TIME, -1, "13:14:15.1234567", "13:14:15.123457", "13:14:15.123457"),
        (types.TIME, -1, "23:59:60", "24:00:00", "24:00:00"),
        (
            types.TIMESTAMP,
            -1,
            "2024-01-02T03:04:05+00",
            "2024-01-02 03:04:05",
            "2024-01-02 03:04:05",
        ),
        (
            types.TIMESTAMP,
            -1,
            "2024-01-01 00:00:00.0",
            "2024-01-01 00:00:00",
            "2024-01-01 00:00:00",
        ),
        (
            types.TIMESTAMP,
            3,
            "1999-12-31 23:59:59.9995",
            "1999-12-31 23:59:59.999",
            "1999-12-31 23:59:59.999",
        ),
        (
            types.TIMESTAMPTZ,
            -1,
            "2024-01-02 03:04:05.123456-08",
            "2024-01-02 11:04:05.123456",
            "2024-01-02 11:04:05.123456+00",
        ),
        (
            types.INTERVAL,
            -1,
            "P1Y2M3DT4H5M6.789S",
            "1 year 2 mons 3 days 04:05:06.789",
            "1 year 2 mons 3 days 04:05:06.789",
        ),
        (types.INTERVAL, -1, "@ 1 hour ago", "-01:00:00", "-01:00:00"),
        (types.INTERVAL, -1, "-1 day 02:03:04", "-1 days +02:03:04", "-1 days +02:03:04"),
        (1007, -1, " { 1 , 2 ,NULL} ", "[1,2,null]", "{1,2,NULL}"),
        (
            1009,
            -1,
            '{"a","b c",NULL,"",x,"NULL","a\\"b"}',
            '["a","b c",null,"","x","NULL","a\\"b"]',
            '{a,"b c",NULL,"",x,"NULL","a\\"b"}',
        ),
        (1015, types.char_typmod(2), "{ab  ,c}", '["ab","c"]', "{ab,c}"),
        (1022, -1, "{NaN,-Infinity,-0}", '["NaN",-1e999,-0.0]', "{NaN,-Infinity,-0}"),
        (1001, -1, '{"\\\\x01",NULL}', '["\\\\x01",null]', '{"\\\\x01",NULL}'),
    ],
)
def test_text_forms(oid: int, typmod: int, text: str, stored: object, printed: str) -> None:
    assert text_decoder(oid, typmod)(text) == stored
    assert text_encoder(oid, typmod)(stored).decode() == printed


@pytest.mark.parametrize(
    ("stored", "settings", "printed"),
    [
        ("2024-01-02 03:04:05.123456", Settings(), "2024-01-02 03:04:05.123456+00"),
        ("2024-07-02 03:04:05", NY, "2024-07-01 23:04:05-04"),
        ("2024-01-02 03:04:05", Settings("Asia/Kolkata"), "2024-01-02 08:34:05+05:30"),
        ("1900-01-01 00:00:00", Settings("Europe/Amsterdam"), "1900-01-01 00:19:32+00:19:32"),
        ("2024-01-02 03:04:05", Settings("+02"), "2024-01-02 05:04:05+02"),
        ("2024-01-02 03:04:05", Settings("-05:30"), "2024-01-02 08:34:05+05:30"),
        ("2024-01-02 03:04:05", Settings("UTC+3"), "2024-01-02 00:04:05-03"),
        ("0044-03-15 12:00:00 BC", Settings(), "0044-03-15 12:00:00+00 BC"),
        ("infinity", NY, "infinity"),
    ],
)
def test_timestamptz_prints_in_session_zone(stored: str, settings: Settings, printed: str) -> None:
    assert text_encoder(types.TIMESTAMPTZ, -1, settings)(stored).decode() == printed


def test_timestamptz_reads_local_times_in_session_zone() -> None:
    decode = text_decoder(types.TIMESTAMPTZ, -1, NY)
    assert decode("2024-01-02 03:04:05") == "2024-01-02 08:04:05"
    assert decode("2018-11-04 01:30") == "2018-11-04 06:30:00"  # ambiguous: after the change
    assert decode("2018-03-11 02:30") == "2018-03-11 07:30:00"  # skipped: before the change
    assert decode("2024-01-02 03:04:05 Europe/Paris") == "2024-01-02 02:04:05"
    assert decode("2024-01-02 03:04:05 PST") == "2024-01-02 11:04:05"


@pytest.mark.parametrize(
    ("extra_float_digits", "value", "printed"),
    [
        (1, 0.1, "0.1"),
        (0, 0.1, "0.1"),
        (3, 1 / 3, "0.3333333333333333"),
        (0, 1 / 3, "0.333333333333333"),
        (-14, 123.0, "1e+02"),
    ],
)
def test_extra_float_digits(extra_float_digits: int, value: float, printed: str) -> None:
    encode = text_encoder(types.FLOAT8, -1, Settings(extra_float_digits=extra_float_digits))
    assert encode(value).decode() == printed


# --- errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("oid", "typmod", "text", "sqlstate", "message"),
    [
        (types.INT4, -1, "abc", "22P02", 'invalid input syntax for type integer: "abc"'),
        (types.INT2, -1, "32768", "22003", 'value "32768" is out of range for type smallint'),
        (types.INT8, -1, "1_000", "22P02", 'invalid input syntax for type bigint: "1_000"'),
        (types.OID, -1, "4294967296", "22003", 'value "4294967296" is out of range for type oid'),
        (types.BOOL, -1, "maybe", "22P02", 'invalid input syntax for type boolean: "maybe"'),
        (types.FLOAT8, -1, "1e400", "22003", '"1e400" is out of range for type double precision'),
        (types.FLOAT4, -1, "1e-50", "22003", '"1e-50" is out of range for type real'),
        (types.FLOAT8, -1, "5e", "22P02", 'invalid input syntax for type double precision: "5e"'),
        (types.NUMERIC, -1, "1e", "22P02", 'invalid input syntax for type numeric: "1e"'),
        (types.NUMERIC, N102, "99999999.995", "22003", "numeric field overflow"),
        (types.NUMERIC, N102, "Infinity", "22003", "numeric field overflow"),
        (types.NUMERIC, -1, "1e131072", "22003", "value overflows numeric format"),
        (
            types.VARCHAR,
            types.char_typmod(5),
            "abcdef",
            "22001",
            "value too long for type character varying(5)",
        ),
        (
            types.BPCHAR,
            types.char_typmod(2),
            "abc",
            "22001",
            "value too long for type character(2)",
        ),
        (types.BYTEA, -1, "\\x0", "22023", "invalid hexadecimal data: odd number of digits"),
        (types.BYTEA, -1, "\\xzz", "22023", 'invalid hexadecimal digit: "z"'),
        (types.BYTEA, -1, "a\\b", "22P02", 'invalid input syntax for type bytea: "a\\b"'),
        (types.UUID, -1, "a0ee", "22P02", 'invalid input syntax for type uuid: "a0ee"'),
        (types.JSON, -1, "{a:1}", "22P02", "invalid input syntax for type json"),
        (types.JSON, -1, "NaN", "22P02", "invalid input syntax for type json"),
        (types.JSONB, -1, '"\\ud800"', "22P02", "invalid input syntax for type json"),
        (types.DATE, -1, "2023-02-29", "22008", 'date/time field value out of range: "2023-02-29"'),
        (types.DATE, -1, "abc", "22007", 'invalid input syntax for type date: "abc"'),
        (types.DATE, -1, "4714-11-23 BC", "22008", 'date out of range: "4714-11-23 BC"'),
        (types.DATE, -1, "today", "0A000", None),
        (types.TIME, -1, "24:00:01", "22008", 'date/time field value out of range: "24:00:01"'),
        (
            types.TIMESTAMP,
            -1,
            "294277-01-01 00:00:00",
            "22008",
            'timestamp out of range: "294277-01-01 00:00:00"',
        ),
        (
            types.TIMESTAMP,
            -1,
            "2024-01-02 03:04:05 Foo/Bar",
            "22023",
            'time zone "foo/bar" not recognized',
        ),
        (
            types.TIMESTAMPTZ,
            -1,
            "2024-01-02 03:04:05 foo",
            "22007",
            'invalid input syntax for type timestamp with time zone: "2024-01-02 03:04:05 foo"',
        ),
        (
            types.INTERVAL,
            -1,
            "1 day 2 days",
            "22007",
            'invalid input syntax for type interval: "1 day 2 days"',
        ),
        (
            types.INTERVAL,
            -1,
            "9999999999 years",
            "22015",
            'interval field value out of range: "9999999999 years"',
        ),
        (1007, -1, "{1,2", "22P02", 'malformed array literal: "{1,2"'),
        (1007, -1, "{1,a}", "22P02", 'invalid input syntax for type integer: "a"'),
        (1007, -1, "{{1},{2}}", "0A000", "multidimensional arrays are not supported"),
        (1007, -1, "[0:1]={1,2}", "0A000", None),
        (1009, -1, '{a"b"}', "22P02", 'malformed array literal: "{a"b"}"'),
        (types.REGCLASS, -1, "pg_class", "0A000", None),
    ],
)
def test_rejected_text(
    oid: int, typmod: int, text: str, sqlstate: str, message: str | None
) -> None:
    raises(sqlstate, lambda: text_decoder(oid, typmod)(text), message)


@pytest.mark.parametrize(
    ("oid", "data", "sqlstate", "message"),
    [
        (types.INT4, b"\x00\x01", "08P01", "insufficient data left in message"),
        (types.INT4, b"\x00" * 5, "22P03", "incorrect binary data format"),
        (types.FLOAT8, b"", "08P01", None),
        (
            types.NUMERIC,
            bytes.fromhex("0000000012000000"),
            "22P03",
            'invalid sign in external "numeric" value',
        ),
        (
            types.NUMERIC,
            bytes.fromhex("00010000000000012710"),
            "22P03",
            'invalid digit in external "numeric" value',
        ),
        (types.TEXT, b"a\xc3\x28", "22021", 'invalid byte sequence for encoding "UTF8": 0xc3 0x28'),
        (types.TEXT, b"a\x00", "22021", 'invalid byte sequence for encoding "UTF8": 0x00'),
        (types.JSONB, b"\x02{}", "XX000", "unsupported jsonb version number 2"),
        (types.DATE, bytes.fromhex("7ffffff0"), "22008", "date out of range"),
        (
            1007,
            bytes.fromhex("00000001 00000000 00000019 00000001 00000001"),
            "42804",
            "binary data has array element type 25 (text) instead of expected 23 (integer)",
        ),
        (
            1007,
            bytes.fromhex("00000002 00000000 00000017 00000001 00000001 00000001 00000001"),
            "0A000",
            "multidimensional arrays are not supported",
        ),
        (
            1007,
            bytes.fromhex("00000001 00000000 00000017 00000001 00000002 ffffffff"),
            "0A000",
            None,
        ),
    ],
)
def test_rejected_binary(oid: int, data: bytes, sqlstate: str, message: str | None) -> None:
    raises(sqlstate, lambda: binary_decoder(oid)(data), message)


def test_unknown_type_oids() -> None:
    assert text_decoder(424242)("anything") == "anything"
    assert text_encoder(424242)(12) == b"12"
    assert text_encoder(424242)(b"\x01") == b"\\x01"
    raises("0A000", lambda: binary_encoder(424242))
    raises("0A000", lambda: binary_decoder(424242))


def test_invalid_session_timezone() -> None:
    raises(
        "22023",
        lambda: text_encoder(types.TIMESTAMPTZ, -1, Settings("Mars/Olympus")),
        'invalid value for parameter "TimeZone": "Mars/Olympus"',
    )


# --- leniency towards what SQLite computes -------------------------------------------


@pytest.mark.parametrize(
    ("oid", "typmod", "stored", "text", "binary"),
    [
        (types.INT4, -1, 3.0, "3", "00000003"),
        (types.INT4, -1, True, "1", "00000001"),
        (types.INT8, -1, 2.5, "2", "0000000000000002"),
        (types.BOOL, -1, True, "t", "01"),
        (types.BOOL, -1, 0, "f", "00"),
        (types.FLOAT8, -1, 2, "2", "4000000000000000"),
        (types.FLOAT4, -1, 2, "2", "40000000"),
        (types.NUMERIC, -1, 12345678901234567890, "12345678901234567890", None),
        (types.NUMERIC, N102, 700, "7.00", "0001000000000002 0007"),
        (types.TEXT, -1, 42, "42", "3432"),
        (types.BYTEA, -1, bytearray(b"\x01"), "\\x01", "01"),
    ],
)
def test_lenient_encoders(
    oid: int, typmod: int, stored: object, text: str, binary: str | None
) -> None:
    assert text_encoder(oid, typmod)(stored).decode() == text
    if binary is not None:
        assert binary_encoder(oid, typmod)(stored).hex() == binary.replace(" ", "")


def test_integer_binary_overflow_is_out_of_range() -> None:
    raises("22003", lambda: binary_encoder(types.INT2)(1 << 20), "smallint out of range")
