"""executor.codecs against PostgreSQL 15: same text, same send bytes, same errors.

For each corpus of input strings (per type, typmod and session settings) one
query asks the peer, through a PL/pgSQL probe that traps errors, for
``(value::type)::text``, ``typsend(value::type)`` and the SQLSTATE of rejected
values. Then, for every value:

* accepted by PostgreSQL: our text encoder, applied to our text decoder's storage
  value, prints PostgreSQL's text; our binary encoder produces PostgreSQL's send
  bytes; our binary decoder reads those bytes back to the same storage value;
* rejected by PostgreSQL: our text decoder raises the same SQLSTATE.

The corpora avoid what the codecs deliberately do differently (see
executor/codecs module docstrings): numeric keeps ~15 significant digits and no
trailing zeros, dates only in ISO order, reg* types print as numbers, and arrays
are one-dimensional with lower bound 1.
"""

from __future__ import annotations

import random
import re
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import psycopg
import pytest

from catalog import types
from catalog.errors import SqlError
from executor.codecs import (
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
from executor.codecs.zones import ABBREVIATIONS
from sqlext.tools.peer import PostgresPeer

# Calls the type's input function with the typmod (as INSERT into a typed column
# does; an explicit cast to varchar(n) would truncate instead of failing), then
# the output function (through format's %s) and the send function.
PROBE = """
CREATE FUNCTION pg_temp.probe(value text, typ regtype, typmod integer, OUT out_text text,
                              OUT out_send bytea, OUT state text, OUT message text)
LANGUAGE plpgsql AS $$
DECLARE
    input regproc;
    send regproc;
    ioparam oid;
    nargs integer;
    call text;
BEGIN
    SELECT t.typinput, t.typsend, CASE WHEN t.typelem <> 0 THEN t.typelem ELSE t.oid END,
           p.pronargs
      INTO input, send, ioparam, nargs
      FROM pg_type t JOIN pg_proc p ON p.oid = t.typinput
     WHERE t.oid = typ;
    call := CASE WHEN nargs = 3
                 THEN format('%s(%L::cstring, %s, %s)', input, value, ioparam, typmod)
                 ELSE format('%s(%L::cstring)', input, value) END;
    EXECUTE format('SELECT format(%L, v), %s(v) FROM (SELECT %s AS v) AS s', '%s', send, call)
        INTO out_text, out_send;
EXCEPTION WHEN others THEN
    state := SQLSTATE;
    message := SQLERRM;
END $$
"""

QUERY = """
SELECT p.out_text, p.out_send, p.state, p.message
FROM unnest(%s::text[]) WITH ORDINALITY AS u(value, n),
     LATERAL pg_temp.probe(u.value, %s::regtype, %s) AS p
ORDER BY u.n
"""

# SQLSTATEs PostgreSQL uses that catalog.errors has no class for yet (22015 interval
# field overflow, 22009 time zone displacement, 22P05 untranslatable character):
# the codecs raise the nearest class, with PostgreSQL's message.
@dataclass(frozen=True)
class Case:
    sql_type: str
    oid: int
    values: tuple[str, ...]
    typmod: int = -1
    timezone: str = "UTC"
    extra_float_digits: int = 1

    @property
    def settings(self) -> Settings:
        return Settings(timezone=self.timezone, extra_float_digits=self.extra_float_digits)

    @property
    def id(self) -> str:
        return f"{self.sql_type}|{self.timezone}|efd={self.extra_float_digits}"


def case(sql_type: str, values: Iterable[str], typmod: int = -1, **settings: object) -> Case:
    oid = types.lookup_name(re.sub(r"\([0-9,]+\)", "", sql_type)).oid
    return Case(sql_type, oid, tuple(values), typmod, **settings)  # type: ignore[arg-type]


# --- corpora -------------------------------------------------------------------

RNG = random.Random(20240102)


def random_float8(count: int) -> list[str]:
    values = []
    for _ in range(count):
        value = struct.unpack(">d", RNG.getrandbits(64).to_bytes(8, "big"))[0]
        values.append(repr(value))
        values.append(repr(float(RNG.getrandbits(RNG.randint(50, 70)))))
    return values


def random_float4(count: int) -> list[str]:
    values = []
    for _ in range(count):
        value = struct.unpack(">f", RNG.getrandbits(32).to_bytes(4, "big"))[0]
        values.append(repr(value))
        values.append(f"{value:.{RNG.randint(0, 9)}e}")
    return values


def random_decimal(integer_digits: int, fraction_digits: int, *, trim: bool) -> str:
    whole = str(RNG.randrange(10**integer_digits))
    fraction = "".join(RNG.choice("0123456789") for _ in range(fraction_digits))
    if trim:
        fraction = fraction.rstrip("0")
    sign = RNG.choice(["", "-"])
    return f"{sign}{whole}.{fraction}" if fraction else sign + whole


def random_timestamps(count: int) -> list[str]:
    values = [format_timestamp(RNG.randrange(TIMESTAMP_MIN, TIMESTAMP_END)) for _ in range(count)]
    modern = 60 * 365 * USECS_PER_DAY
    values += [format_timestamp(RNG.randrange(-modern, modern)) for _ in range(count)]
    return values


def random_intervals(count: int) -> list[str]:
    values = []
    units = ["year", "mons", "weeks", "days", "hours", "min", "secs", "ms", "us", "decade"]
    for _ in range(count):
        magnitude = 10 ** RNG.randint(0, 9)
        values.append(
            format_interval(
                RNG.randint(-magnitude, magnitude) // 1000,
                RNG.randint(-magnitude, magnitude) // 100,
                RNG.randint(-magnitude, magnitude) * RNG.choice([1, 1000, 10**6, 3_600_000_000]),
            )
        )
        picked = RNG.sample(units, RNG.randint(1, 3))
        words = [
            f"{RNG.choice(['', '-', '+'])}{RNG.randint(0, 99)}"
            f"{RNG.choice(['', '.5', '.25', '.123456789'])} {unit}"
            for unit in picked
        ]
        values.append(" ".join(words) + RNG.choice(["", " ago"]))
    return values


# fmt: off
BOOL = ["t", "true", "yes", "on", "1", "f", "false", "no", "off", "0", " TRUE ", "Tr", "y", "of",
        "OfF", "\tno\n", "o", "maybe", "", "2", "tru e", "yess"]
INTEGERS = ["0", "-0", "+7", " 42 ", "\t-17\n", "abc", "1.5", "", "1e3", " 1 2", "0x1F", "1_000",
            "- 1", "+", "٣"]
# Not here: '-NaN' and 'nan(1)', accepted alike but sent with the sign/payload
# PostgreSQL keeps and storage (the text 'NaN') drops.
FLOAT8 = ["1.5", "-1e+300", "1e-320", "5e-324", "1.7976931348623157e308", "1e308", "0.1", "1e15",
          "123456789012345", "1e16", "-0", "NaN", " nan ", "inf", "-Infinity", "+INFINITY", "0x10",
          "0x1.8p1", ".5", "1.", "1e-5", "0.0001", "1e22", "9007199254740993", "1e309", "1e-400",
          "5e", "infinit", "", "1_0", "--1", "1e+", "nan(", "0x"]
FLOAT4 = ["1.1", "0.1", "-0", "0", "1e-45", "7e-46", "3.4028235e38", "3.40282356e38",
          "1.17549435e-38", "NaN", "Infinity", "-inf", "  2.5  ", "123456", "1234567", "1e6",
          "0.0001", "0.00001", "16777217", "0x1p-2", "1e-46", "3.5e38", "abc", "1.0000000596046448"]
# Not here: values beyond float range ('1e400', '1e-16383'), which storage cannot hold.
NUMERIC = ["0", "1", "-1", "123.45", "0.001", "1e20", "1e-10", "-0", "NaN", "nan", "Infinity",
           "-Infinity", "inf", "+inf", " 12 ", ".5", "5.", "1.5e3", "-2.5E-3", "12345678901234",
           "0.1", "1e300", "abc", "1e", "", "+nan", "1 2", "--1", "1e131072", "1e-16384",
           "1.5e-16383", "0.000001", "1e-300"]
NUMERIC_10_2 = ["1.005", "-1.005", "123.45", "0", "-0.001", "99999999.994", "99999999.995",
                "-12345678.9", "NaN", "Infinity", "-inf", "0.005", "-0.005", "1e7", "1e8", "5"]
TEXT = ["hello", "", " spaces ", "ünïcödé 🎉", "tab\there", 'quote"\\back', "line\nbreak"]
UUIDS = ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC999C0B4EF8BB6D6BB9BD380A11",
         "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
         "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
         "{a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
         "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-", "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]
JSON = ['{"a":1}', ' [1, 2.50, "x"] ', "null", '"\\u00e9"', '{"a":1,"a":2}', "{a:1}", "[1,]", "NaN",
        "", '"\\ud800"', '"\\ud83d\\ude00"', "01", "-0", "1E400", '"\t"', "[1] x",
        '{"a": {"b": [true, false, null]}}', "\ufeff1"]
JSONB = ['{"b":1,"a":2,"aa":[1,2.50,1e2,-0, 1E-3]}', '{"a":1,"a":2}', "[]", "{}",
         '"é\\n\\u0001\\u001f"', "true", "12345678901234567890", "1e1000", '"\\u0000"', '{"a":}',
         '{"ab": 1, "b": 2, "é": 3, "z": 4, "aa": 5}', "-0.0", "0.10", "1e-3"]
DATES = ["2024-01-02", "2024-01-02 +00", "2024-1-2", "20240102", "2024-02-29", "0001-01-01",
         "0044-03-15 BC", "0044-03-15 +00 BC", "0044-03-15 BC +00", "0001-02-29 BC",
         "4714-11-24 BC", "5874897-12-31", "infinity",
         "-infinity", "+infinity", "epoch", " EPOCH ", "2024-01-02T03:04:05Z", "2024-01-02 ad",
         "2024-01-02 America/New_York", "2024-01-02 03:04:05.999999", "2023-02-29", "2024-13-01",
         "0000-01-01", "4714-11-23 BC", "5874898-01-01", "abc", "2024-01-02 foo/bar",
         "2024-01-02 24:00:01", "2024-01-02 +16"]
TIMES = ["13:14:15", "13:14:15.123456", "13:14:15.1234567", "23:59:59.9999999", "24:00:00",
         "23:59:60", "1:2:3", "13:14", "allballs", "2024-01-02 13:14:15", "13:14:15+05",
         "13:14:15 UTC", "13:14:15 pst", "00:00:00.0000005", "13:14:15.", "24:00:01", "25:00",
         "13:60", "abc", "13:14:15 America/New_York", "23:59:60.5", "13:14:15 Etc/GMT+5"]
TIMESTAMPS = ["2024-01-02 03:04:05.123456", "2024-01-02T03:04:05", "2024-01-02 03:04:05+00",
              "2024-01-01 00:00:00.0", "2024-01-02", "2024-01-02 03:04:05 America/New_York",
              "0001-01-01 00:00:00", "1000-01-01 00:00:00 BC", "294276-12-31 23:59:59.999999",
              "2024-12-31 23:59:59.9999999", "2024-01-02 24:00", "infinity", "-infinity", "epoch",
              "2024-01-02 03:04:05.", "2024-01-02 3:4", "2024-01-02 03:04:05 z",
              "2024-01-02 03:04:05 bc", "2024-01-02 03:04:05+05 bc", "4714-11-24 00:00:00 BC",
              "0044-03-15 12:00:00 BC +00", "2024-01-02 03:04:05 adt",
              "294277-01-01 00:00:00", "2024-01-02 25:00", "abc", "2024-01-02 03:04:05 foo",
              "2024-01-02 03:04:05 +16", "4714-11-23 23:59:59 BC", "2024-01-02T"]
ZONED = [*TIMESTAMPS, "2024-07-02 03:04:05", "2018-11-04 01:30", "2018-03-11 02:30",
         "2024-01-02 03:04:05+05:30", "2024-01-02 03:04:05-0800", "2024-01-02T03:04:05Z",
         "2024-01-02 03:04:05 +5", "2024-01-02 03:04:05 +05:30:15", "1900-01-01 00:00",
         "2024-01-02 03:04:05 Asia/Kolkata", "10000-01-01", "30000-07-01", "30000-01-01",
         "2024-01-02 03:04:05.123456789", "294276-12-31 23:59:59+00", "4714-11-24 01:00:00+01 BC",
         "2024-03-31 02:30 Europe/Amsterdam", "2024-10-27 02:30 Europe/Amsterdam"]
INTERVALS = ["1 day 02:03:04", "3 hours", "1 year 2 mons", "P1DT2H", "-1 day", "00:00:01.5",
             "@ 1 hour", "1.5 years", "1.5 months", "1.5 days", "-1 day 02:03:04", "1 2:03:04",
             "1-2", "-1-2", "5", "@ 1 hour ago", "P1Y2M3DT4H5M6.5S", "01:02.5",
             "-1 years -2 mons +3 days -04:05:06", "1 day -1 hours", "-1 days +1 hours",
             "01:00 1.5 days", "1h2m", "1 microseconds", "1 millisecondsxyz", "1:", "P1.5Y",
             "PT1.5M", "P0001-02-03T04:05:06", "P1W", "1 week 2 days", "1 century 1 year", "1.5",
             "1 day day", "1 day ago 2 hours", "P00010203T040506", "PT040506.5", "P0001-02",
             "P0001-02T01:02", "P-1Y-2M", "PT-1.5S", "0.5 weeks", "2 decades", "1 millennium",
             "100:00:00", "-100:00:00.000001", "2147483647 days", "178956970 years 7 mons",
             "+1 -2:03", "1 ago day", "1 qtr", "9999999999 years", " P1D", "-", "invalid",
             "1 day 2 days", "1 hour 02:00", "", "P", "PT", "P1", "P1X", "2147483648 days",
             "178956971 years", "1 day -", "1:2:3:4", "1 2 day", "day", "P1Y1Y", "P1DT", "1e2 days",
             "@", "1 day,2 hours", "1 day;2 hours", "100000000000000000 s"]
ARRAY_INT = ["{1,2,NULL}", "{}", " { 1 , 2 } ", '{"3"}', "{ }", "{null}", "{1,2", "{1,,2}", "{} x",
             "x", "{1,a}", "{2147483648}", "{1}}", "{1,}", "{,1}", ""]
ARRAY_TEXT = ['{"a","b c",NULL, "", "a\\"b", "NuLL", x}', "{ a b , c }", '{"{}"}', "{\\\\ a\\\\ }",
              "{null,NULL,Null}", '{"NULL"}', "{N\\ULL}", "{a\\,b}", "{\\ a\\ }", '{é,"ü "}',
              '{a"b"}', '{"a"b}', '{"a', "{a\\", "{a{b}"]
# fmt: on


def scalar_cases() -> Iterator[Case]:
    yield case("boolean", BOOL)
    yield case("smallint", [*INTEGERS, "-32768", "32767", "32768", "-32769"])
    yield case("integer", [*INTEGERS, "2147483647", "-2147483648", "2147483648"])
    yield case(
        "bigint", [*INTEGERS, "9223372036854775807", "-9223372036854775808", "9223372036854775808"]
    )
    yield case("oid", [*INTEGERS, "4294967295", "-1", "-2147483648", "4294967296", "-2147483649"])
    for efd in (1, 0, -3, 3, -15):
        yield case("double precision", FLOAT8, extra_float_digits=efd)
        yield case("real", FLOAT4, extra_float_digits=efd)
    yield case("double precision", random_float8(300))
    yield case("real", random_float4(300))
    yield case(
        "numeric",
        [
            *NUMERIC,
            *(random_decimal(RNG.randint(0, 9), RNG.randint(0, 6), trim=True) for _ in range(300)),
        ],
    )
    yield case("numeric(10,2)", NUMERIC_10_2, types.numeric_typmod(10, 2))
    yield case(
        "numeric(12,4)",
        [random_decimal(8, RNG.randint(0, 6), trim=False) for _ in range(200)],
        types.numeric_typmod(12, 4),
    )
    yield case("numeric(3,3)", ["0.999", "0.9995", "1", "-0.5", "0"], types.numeric_typmod(3, 3))
    yield case("numeric(5,0)", ["99999", "99999.5", "-0.4", "12.5"], types.numeric_typmod(5, 0))
    yield case("text", TEXT)
    yield case("character varying", TEXT)
    yield case(
        "character varying(5)",
        ["abc", "abcde", "abcde   ", "abcdef", "abc  d", "", "éééééé", "ééééé "],
        types.char_typmod(5),
    )
    yield case("character(5)", ["ab", "abcde  ", "", "abcdef", "é"], types.char_typmod(5))
    yield case("character", ["x  ", "", " y"])
    yield case("name", ["a" * 70, "é" * 40, "", "pg_class", "Mixed Case"])
    yield case('"char"', ["a", "é", "", "ab", "\\303", "\\101", "\\0", "\\400", " "])
    yield case(
        "bytea",
        [
            "\\x0001ff",
            "\\xDEADbeef",
            "\\x",
            "\\x 00 01\n",
            "abc",
            "a\\\\b",
            "\\001\\377",
            "é",
            "\\x0",
            "\\xzz",
            "a\\b",
            "\\\\x",
            "\\X00",
            "\\x0 0",
            "\\xé0",
            "a\\400",
            "\\x00\x0b",
        ],
    )
    yield case("uuid", UUIDS)
    yield case("json", JSON)
    yield case("jsonb", JSONB + JSON)
    yield case(
        "date", [*DATES, *(format_date(RNG.randrange(DATE_MIN, DATE_END)) for _ in range(200))]
    )
    yield case(
        "time", [*TIMES, *(format_clock(RNG.randrange(USECS_PER_DAY + 1)) for _ in range(100))]
    )
    yield case("time(2)", ["13:14:15.125", "13:14:15.124999", "23:59:59.999", "00:00:00.005"], 2)
    yield case("timestamp", [*TIMESTAMPS, *random_timestamps(150)])
    yield case(
        "timestamp(3)",
        [
            "2024-01-02 03:04:05.1235",
            "1999-12-31 23:59:59.9995",
            "1999-12-31 23:59:59.9994",
            "infinity",
        ],
        3,
    )
    zoned = [*ZONED, *random_timestamps(100)]
    for zone in (
        "UTC",
        "America/New_York",
        "Asia/Kolkata",
        "Europe/Amsterdam",
        "+02",
        "-05:30",
        "UTC+3",
        "Australia/Lord_Howe",
        "Etc/GMT+5",
        "europe/paris",
        "5.5",
    ):
        yield case("timestamp with time zone", zoned, timezone=zone)
    yield case(
        "timestamp with time zone", [f"2024-01-02 03:04:05 {name}" for name in ABBREVIATIONS]
    )
    yield case("timestamp(0) with time zone", ["2024-01-02 03:04:05.5+01"], 0)
    yield case("interval", [*INTERVALS, *random_intervals(300)])


def array_cases() -> Iterator[Case]:
    yield case("integer[]", ARRAY_INT)
    yield case("text[]", ARRAY_TEXT)
    yield case("character varying(3)[]", ["{abc,de}", "{abcd}", '{"ab  "}'], types.char_typmod(3))
    yield case("double precision[]", ["{1.5,NaN,-Infinity,-0,1e-320}"])
    yield case("real[]", ["{1.1,0.1}"], extra_float_digits=0)
    yield case("numeric(5,2)[]", ["{1.005,NULL}", "{1000}"], types.numeric_typmod(5, 2))
    yield case("numeric[]", ["{1.5,NaN,Infinity}"])
    yield case("boolean[]", ["{t,f,NULL}", "{yes}"])
    yield case("date[]", ["{2024-01-02,infinity}", '{"0044-03-15 BC"}'])
    yield case("time[]", ['{"13:14:15.5"}'])
    yield case("timestamp[]", ['{"2024-01-02 03:04:05",NULL}'])
    yield case(
        "timestamp with time zone[]", ['{"2024-01-02 03:04:05+02"}'], timezone="Asia/Kolkata"
    )
    yield case("interval[]", ['{"1 day","-01:00:00"}', "{P1D}"])
    yield case("bytea[]", ['{"\\\\x0102",NULL,abc}', '{"\\\\x"}'])
    yield case("jsonb[]", ['{"{\\"b\\": 1, \\"a\\": 2}",null}'])
    yield case("json[]", ['{"[1,2]"}'])
    yield case("uuid[]", ["{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}"])
    yield case('"char"[]', ['{a,é,""}'])
    yield case("name[]", ['{pg_class,"a b"}'])
    yield case("smallint[]", ["{1,-32768}"])
    yield case("bigint[]", ["{1,9223372036854775807}"])
    yield case("oid[]", ["{1,4294967295}"])
    yield case("character(2)[]", ["{a,bb}"], types.char_typmod(2))


CASES = [*scalar_cases(), *array_cases()]


# --- checks --------------------------------------------------------------------


@pytest.fixture(scope="module")
def peer_connection(postgres_peer: PostgresPeer) -> Iterator[psycopg.Connection]:
    with psycopg.connect(postgres_peer.dsn, autocommit=True) as connection:
        connection.execute(PROBE)
        yield connection


def same(ours: object, theirs: object) -> bool:
    if isinstance(ours, float) and isinstance(theirs, float):
        return repr(ours) == repr(theirs)
    return type(ours) is type(theirs) and ours == theirs


def mismatches(
    item: Case, rows: list[tuple[str | None, bytes | None, str | None, str]]
) -> Iterator[str]:
    settings = item.settings
    decode = text_decoder(item.oid, item.typmod, settings)
    encode = text_encoder(item.oid, item.typmod, settings)
    receive = binary_decoder(item.oid, item.typmod, settings)
    send = binary_encoder(item.oid, item.typmod)
    for value, (pg_text, pg_send, pg_state, pg_message) in zip(item.values, rows, strict=True):
        try:
            stored = decode(value)
        except SqlError as exc:
            if pg_state is None:
                yield f"{value!r}: we reject ({exc.sqlstate} {exc}), PostgreSQL prints {pg_text!r}"
            elif pg_state != exc.sqlstate:
                yield (
                    f"{value!r}: we raise {exc.sqlstate} ({exc}), PostgreSQL {pg_state} "
                    f"({pg_message})"
                )
            continue
        if pg_state is not None:
            yield f"{value!r}: we accept ({stored!r}), PostgreSQL raises {pg_state} ({pg_message})"
            continue
        assert pg_text is not None and pg_send is not None
        text = encode(stored).decode()
        if text != pg_text:
            yield f"{value!r}: text {text!r} != PostgreSQL {pg_text!r} (storage {stored!r})"
        sent = send(stored)
        if sent != bytes(pg_send):
            yield f"{value!r}: send {sent.hex()} != PostgreSQL {bytes(pg_send).hex()}"
        received = receive(bytes(pg_send))
        if not same(received, stored):
            yield f"{value!r}: recv of PostgreSQL's bytes gives {received!r}, not {stored!r}"


@pytest.mark.parametrize("item", CASES, ids=[item.id for item in CASES])
def test_codec_matches_postgres(peer_connection: psycopg.Connection, item: Case) -> None:
    peer_connection.execute(
        "SELECT set_config('TimeZone', %s, false), set_config('extra_float_digits', %s, false)",
        (item.timezone, str(item.extra_float_digits)),
    )
    sql_type = re.sub(r"\([0-9,]+\)", "", item.sql_type)
    rows = peer_connection.execute(QUERY, (list(item.values), sql_type, item.typmod)).fetchall()
    problems = list(mismatches(item, rows))
    assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems[:40])


# Malformed binary input: (type OID, bytes). PostgreSQL sees them as bind parameters.
BAD_BINARY = [
    (types.INT4, b"\x00\x01"),
    (types.INT4, b"\x00\x01\x02\x03\x04"),
    (types.INT8, b""),
    (types.BOOL, b"\x01\x01"),
    (types.FLOAT8, b"\x00" * 4),
    (types.NUMERIC, bytes.fromhex("0000000012000000")),
    (types.NUMERIC, bytes.fromhex("00010000000000012710")),
    (types.NUMERIC, bytes.fromhex("0001000000004000")),
    (types.NUMERIC, bytes.fromhex("000000000000c000")),
    (types.TEXT, b"a\x00b"),
    (types.TEXT, b"a\xc3\x28b"),
    (types.VARCHAR, b"\xff"),
    (types.JSONB, b"\x02{}"),
    (types.JSON, b"{"),
    (types.UUID, b"\x00" * 15),
    (types.DATE, bytes.fromhex("7ffffff0")),
    (types.TIME, bytes.fromhex("00000014250000ff")),
    (types.TIMESTAMP, bytes.fromhex("7fffffffffffff00")),
    (types.INTERVAL, b"\x00" * 15),
    (types.CHAR, b"ab"),
    (1007, bytes.fromhex("00000001 00000000 00000019 00000001 00000001 00000004 00000001")),
    (1007, bytes.fromhex("00000001 00000002 00000017 00000001 00000001 00000004 00000001")),
    (1007, bytes.fromhex("00000007 00000000 00000017")),
    (1007, bytes.fromhex("00000001 00000000 00000017 00000001 00000001 00000004 0000")),
]


def test_binary_rejections_match_postgres(peer_connection: psycopg.Connection) -> None:
    problems = []
    for oid, data in BAD_BINARY:
        result = peer_connection.pgconn.exec_params(b"SELECT $1", [data], [oid], [1], 0)
        pg_state = result.error_field(ord("C"))
        try:
            stored = binary_decoder(oid)(data)
        except SqlError as exc:
            if pg_state is None or exc.sqlstate != pg_state.decode():
                problems.append(
                    f"{oid} {data.hex()}: we raise {exc.sqlstate}, PostgreSQL {pg_state!r}"
                )
        else:
            problems.append(f"{oid} {data.hex()}: we accept {stored!r}, PostgreSQL {pg_state!r}")
    assert not problems, "\n".join(problems)
