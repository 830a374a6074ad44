"""Differential tests of the date/time functions: the same SQL against sqlext
and a real PostgreSQL 15, in the same session TimeZone.

EXTRACT and date_part of every field and type, date_trunc and date_bin,
age, AT TIME ZONE, the make_* and justify_* families, to_char of date/time
values and of numbers, to_timestamp and to_date, generate_series over
timestamps, with NULLs, infinities, negative intervals, leap years, BC years
and PostgreSQL's errors (compared by SQLSTATE). The zoned cases run in fixed
zones and in zones with daylight saving time.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.fixtures.differential import outcome, peers_fixture

SETUP = [
    "CREATE TABLE moments (id int PRIMARY KEY, d date, ts timestamp, tz timestamptz, "
    "span interval, n int, x float8)",
    """INSERT INTO moments VALUES
       (1, '2024-02-29', '2024-02-29 13:14:15.5', '2024-02-29 13:14:15.5+00',
        '1 mon 2 days 03:04:05', 7, 1234.5678),
       (2, '1999-12-31', '1999-12-31 23:59:59.999999', '1999-12-31 23:59:59+00',
        '-1 year -2 mons -3 days -04:05:06', -42, -0.25),
       (3, '0044-03-15 BC', '0044-03-15 12:00:00 BC', '0044-03-15 12:00:00+00 BC', '36 hours',
        0, 0),
       (4, 'infinity', '-infinity', 'infinity', '0', NULL, NULL),
       (5, NULL, NULL, NULL, NULL, 1, 1e15)""",
]

FIELDS = ("century", "decade", "millennium", "year", "isoyear", "quarter", "month", "week",
          "day", "dow", "isodow", "doy", "hour", "minute", "second", "milliseconds",
          "microseconds", "epoch", "timezone", "timezone_hour", "timezone_minute")
VALUES = ("date '2021-03-04'", "time '10:20:30.5'", "timestamp '2021-03-04 10:20:30.5'",
          "timestamptz '2021-03-04 10:20:30.5+00'",
          "interval '1 year 2 mons 3 days 04:05:06.5'")

QUERIES = [
    # EXTRACT and date_part of every field of every type (or the error)
    *(f"SELECT extract({field} FROM {value})" for field in FIELDS for value in VALUES),
    *(f"SELECT date_part('{field}', {value})" for field in FIELDS[:18] for value in VALUES[1:]),
    "SELECT extract(julian FROM date '2020-01-01'), extract(julian FROM timestamp '2020-01-01 "
    "12:00'), date_part('julian', timestamp '2020-01-01 06:00')",
    "SELECT extract('j' FROM date '2020-01-01'), extract('qtr' FROM date '2020-08-01'), "
    "extract('msec' FROM time '10:00:01'), extract('YEAR' FROM date '2020-01-01')",
    "SELECT extract(foo FROM date '2020-01-01')",
    "SELECT extract('jan' FROM timestamp '2020-01-01')",
    "SELECT date_part('year', '2020-01-01')",
    "SELECT date_part('hour', date '2020-01-01'), date_part('epoch', date '2020-01-01')",
    "SELECT extract(year FROM date '0001-01-01 BC'), extract(century FROM date '0001-01-01 BC'), "
    "extract(decade FROM date '0005-01-01 BC'), extract(millennium FROM date '1000-01-01 BC'), "
    "extract(isoyear FROM date '0001-01-01 BC')",
    "SELECT extract(year FROM 'infinity'::timestamp), extract(hour FROM '-infinity'::timestamp), "
    "date_part('year', 'infinity'::date), extract(epoch FROM '-infinity'::date), "
    "extract(day FROM 'infinity'::date)",
    "SELECT extract(year FROM interval '-13 months'), extract(month FROM interval '-13 months'), "
    "extract(quarter FROM interval '-13 months'), extract(century FROM interval '-250 years'), "
    "extract(second FROM interval '-1.5 seconds'), extract(epoch FROM interval '-1 day')",
    "SELECT extract(week FROM date '2021-01-03'), extract(isoyear FROM date '2021-01-03'), "
    "extract(week FROM date '2020-12-31'), extract(doy FROM date '2024-12-31'), "
    "extract(dow FROM date '2024-03-03'), extract(isodow FROM date '2024-03-03')",
    "SELECT id, extract(year FROM d), extract(second FROM ts), date_part('dow', tz), "
    "extract(epoch FROM span) FROM moments ORDER BY id",
    "SELECT extract(year FROM NULL::date), date_part(NULL, timestamp '2020-01-01'), "
    "date_part('year', NULL::timestamp)",
    # date_trunc and date_bin
    *(f"SELECT date_trunc('{field}', timestamp '2021-03-04 10:20:30.123456'), "
      f"date_trunc('{field}', timestamptz '2021-03-04 10:20:30.123456+00')"
      for field in ("microseconds", "milliseconds", "second", "minute", "hour", "day", "week",
                    "month", "quarter", "year", "decade", "century", "millennium")),
    *(f"SELECT date_trunc('{field}', interval '1234 years 5 mons 6 days 07:08:09.123456')"
      for field in ("microseconds", "milliseconds", "second", "minute", "hour", "day",
                    "month", "quarter", "year", "decade", "century", "millennium")),
    "SELECT date_trunc('hour', interval '-1 year -2 mons -3 days -04:05:06.789')",
    "SELECT date_trunc('millennium', timestamp '0001-01-01 BC'), date_trunc('century', "
    "timestamp '0001-01-01 BC'), date_trunc('decade', timestamp '0011-01-01 BC'), "
    "date_trunc('millennium', timestamp '2000-12-31'), date_trunc('century', timestamp "
    "'2000-12-31')",
    "SELECT date_trunc('day', date '2020-01-05'), date_trunc('week', timestamp '2021-01-01')",
    "SELECT date_trunc('day', 'infinity'::timestamp), date_trunc('year', "
    "'-infinity'::timestamptz), date_trunc('nosuch', 'infinity'::timestamp)",
    "SELECT date_trunc('foo', timestamp '2020-01-01')",
    "SELECT date_trunc('dow', timestamptz '2020-01-01')",
    "SELECT date_trunc('week', interval '1 day')",
    "SELECT date_trunc('timezone', timestamp '2020-01-01')",
    "SELECT date_trunc('day', '2020-01-01 10:00')",
    "SELECT date_trunc('day', 5)",
    "SELECT date_trunc('day', timestamptz '2020-06-01 12:00+00', 'Asia/Tokyo'), "
    "date_trunc('month', timestamptz '2020-03-31 23:00+00', 'Europe/Paris')",
    "SELECT date_trunc('day', timestamptz '2020-06-01 12:00+00', 'Nowhere/Special')",
    "SELECT id, date_trunc('month', ts), date_trunc('hour', tz), date_trunc('day', span) "
    "FROM moments ORDER BY id",
    "SELECT date_bin('15 minutes', timestamp '2020-01-01 10:17', timestamp '2020-01-01'), "
    "date_bin('15 minutes', timestamptz '2020-01-01 10:17+00', timestamptz '2020-01-01 "
    "11:00+00'), date_bin('1 day 2 hours', timestamp '2020-01-05', timestamp '2001-01-01')",
    "SELECT date_bin('1 hour', timestamp 'infinity', timestamp '2020-01-01')",
    "SELECT date_bin('1 month', timestamp '2020-01-01', timestamp '2020-01-01')",
    "SELECT date_bin('-1 hour', timestamp '2020-01-01', timestamp '2020-01-01')",
    "SELECT date_bin('1 hour', timestamp '2020-01-01', timestamp 'infinity')",
    # age, AT TIME ZONE
    "SELECT age(timestamp '2020-03-31', timestamp '2020-02-29 12:00'), age(timestamp "
    "'2020-01-31', timestamp '2020-03-01'), age(timestamptz '2020-01-01', timestamptz "
    "'1999-12-31 23:00')",
    "SELECT age(timestamp '2024-02-29', timestamp '2023-02-28'), age(timestamp '2023-03-01', "
    "timestamp '2024-02-29 00:00:00.5'), age(date '2020-01-01', date '1900-06-15')",
    "SELECT age('2020-01-01', '2019-01-01'), age(current_date::timestamp, timestamp "
    "'2001-02-03') = age(timestamp '2001-02-03'), age(NULL::timestamp, timestamp '2020-01-01')",
    "SELECT age(ts, timestamp '2000-01-01') FROM moments WHERE id <= 3 ORDER BY id",
    "SELECT timezone('UTC', '2020-01-01 10:00'), timestamp '2020-01-01 10:00' AT TIME ZONE "
    "'America/New_York', timestamptz '2020-01-01 10:00+00' AT TIME ZONE '+05', "
    "timestamptz '2020-01-01 10:00+00' AT TIME ZONE interval '02:00'",
    "SELECT timestamptz '2020-07-01 10:00+00' AT TIME ZONE 'EST', timestamptz "
    "'2020-07-01 10:00+00' AT TIME ZONE 'UTC+3', timestamp '2020-07-01 10:00' AT TIME ZONE "
    "'Asia/Kolkata', 'infinity'::timestamp AT TIME ZONE 'UTC'",
    "SELECT timestamptz '2020-01-01 10:00+00' AT TIME ZONE 'Nowhere/Special'",
    "SELECT timestamptz '2020-01-01 10:00+00' AT TIME ZONE interval '1 day'",
    "SELECT tz AT TIME ZONE 'Europe/Berlin' FROM moments ORDER BY id",
    # building values
    "SELECT make_date(2024, 2, 29), make_date(-44, 3, 15), make_time(23, 59, 59.9999999), "
    "make_time(24, 0, 0), make_timestamp(2020, 2, 29, 12, 30, 45.5), make_timestamp(-1, 1, 1, "
    "0, 0, 0)",
    "SELECT make_date(2023, 2, 29)",
    "SELECT make_date(0, 1, 1)",
    "SELECT make_time(24, 0, 1)",
    "SELECT make_time(10, 60, 0)",
    "SELECT make_timestamptz(2020, 1, 1, 0, 0, 0, '+2'), make_timestamptz(2020, 1, 1, 0, 0, 0, "
    "'EST'), make_timestamptz(2020, 7, 1, 12, 0, 0, 'America/New_York'), "
    "make_timestamptz(2020, 7, 1, 12, 0, 0)",
    "SELECT make_interval(days => 3), make_interval(1, 2, 3, 4, 5, 6, 7.5), "
    "make_interval(hours := 2, secs => 1.25), make_interval(), make_interval(weeks => -2)",
    "SELECT make_interval(foo => 1)",
    "SELECT make_timestamptz(2020, 1, 1, 0, 0, 0, '+20')",
    "SELECT make_timestamptz(2020, 1, 1, 0, 0, 0, 'Foo/Bar')",
    "SELECT make_interval(secs => 'inf')",
    "SELECT make_date(NULL, 1, 1), make_interval(days => NULL)",
    "SELECT to_timestamp(0), to_timestamp('inf'), to_timestamp('-infinity'), to_timestamp(1.5e9),"
    " to_timestamp(-1), to_timestamp(1234567890.123456)",
    "SELECT to_timestamp('NaN')",
    "SELECT to_timestamp(1e20)",
    "SELECT justify_days(interval '35 days'), justify_hours(interval '27 hours'), "
    "justify_interval(interval '1 mon -1 hour'), justify_days(interval '-35 days 1 mon'), "
    "justify_hours(interval '-27 hours 1 day'), justify_interval(interval '-1 mon 35 days')",
    "SELECT justify_interval(span), justify_hours(span), justify_days(span) FROM moments "
    "ORDER BY id",
    "SELECT isfinite(date 'infinity'), isfinite(timestamp '2020-01-01'), isfinite(interval "
    "'1 day'), isfinite(NULL::date), isfinite(timestamptz '-infinity')",
    "SELECT isfinite('2020-01-01')",
    "SELECT pg_typeof(timeofday()), clock_timestamp() >= statement_timestamp(), "
    "statement_timestamp() >= now()",
    # to_char of dates and times
    "SELECT to_char(timestamp '2021-12-31 23:59:59', 'YYYY-MM-DD HH24:MI:SS AM am P.M. Day DY "
    "Month MON month mon IYYY-IW WW Q D')",
    "SELECT to_char(timestamp '2020-01-05 13:04:05.123456', 'FF1 FF2 FF3 FF6 FMMS SSSSS IDDD ID "
    "I IY IYY RM rm FMRM J OF TZH TZM')",
    "SELECT to_char(timestamp '0044-03-15 BC', 'YYYY Y,YYY BC b.c. CC FMCC YYY YY Y')",
    "SELECT to_char(timestamp '2020-01-01', 'DDTH ddth FMDDth HH12TH Mon dAY \"quoted YYYY\" "
    "\\\"x yyyy')",
    "SELECT to_char(timestamp '2020-01-11', 'DDth'), to_char(timestamp '2020-01-12', 'DDth'), "
    "to_char(timestamp '2020-01-22', 'DDth'), to_char(timestamp '2020-01-23', 'DDTH')",
    "SELECT to_char(timestamp '2020-01-01', 'FMx Mi FMMonth FMDay TMMonth'), to_char(timestamp "
    "'2020-01-01', 'ABC'), to_char(timestamp '2020-01-01', ''), to_char(timestamp 'infinity', "
    "'YYYY')",
    "SELECT to_char(date '2024-02-29', 'YYYY/MM/DD TZ'), to_char(timestamptz "
    "'2020-02-29 10:00+00', 'YYYY-MM-DD HH24:MI TZ OF tz'), to_char(timestamp '2020-07-01', "
    "'[TZ][OF]')",
    "SELECT to_char(timestamp '2021-01-03 00:30', 'HH HH12 HH24 AM IYYY IW ID IDDD WW W DDD')",
    "SELECT to_char(interval '1 year 2 mons 3 days 04:05:06.789', 'YYYY MM DD HH24 HH MI SS MS "
    "US DDD CC Q W WW SSSS')",
    "SELECT to_char(interval '-1 year -2 mons -3 days -04:05:06', 'YYYY MM DD HH24 MI SS FMYYYY "
    "FMHH')",
    "SELECT to_char(interval '1 year', 'AM RM'), to_char(interval '15 hours', 'HH12 AM')",
    "SELECT to_char(interval '1 year', 'Mon')",
    "SELECT to_char(interval '1 year', 'D')",
    "SELECT to_char(time '10:20:30', 'HH24 MI SS')",
    "SELECT to_char('2020-01-01', 'YYYY')",
    "SELECT to_char(true, 'YYYY')",
    "SELECT id, to_char(ts, 'YYYY-MM-DD HH24:MI:SS.US BC'), to_char(tz, 'Dy DD Mon YYYY TZ'), "
    "to_char(span, 'DD HH24:MI'), to_char(d, 'FMDay, FMDDth FMMonth YYYY') FROM moments "
    "ORDER BY id",
    "SELECT to_char(NULL::timestamp, 'YYYY'), to_char(timestamp '2020-01-01', NULL)",
    # to_char of numbers
    "SELECT to_char(5, '999'), to_char(-5, '999'), to_char(1234567, '9,999,999'), "
    "to_char(12, '0009'), to_char(-12, 'S0009'), to_char(12, 'FM9999'), to_char(485, '999th'), "
    "to_char(1, 'FM9th')",
    "SELECT to_char(3.14159::float8, '9.99'), to_char(-3.14159::float8, 'FM990.000'), "
    "to_char(0.5::float8, '9.9'), to_char(0.5::float8, 'FM9.9'), to_char(0::float8, 'FM9.99'), "
    "to_char(12.5::float8, '99.9PR'), to_char(-12.5::float8, '99.9PR')",
    "SELECT to_char(-485, '999MI'), to_char(485, 'PL999'), to_char(-485, 'SG999'), "
    "to_char(485, 'L999'), to_char(1485, '9G999D99'), to_char(485, 'RN'), to_char(1999, "
    "'FMrn'), to_char(123456789, '999'), to_char(12345.678::float8, '9.99EEEE')",
    "SELECT to_char(148.5::float8, '999.999'), to_char(-0.1::float8, '99.99'), "
    "to_char(-0.1::float8, 'FM99.99'), to_char(12, '99V9'), to_char(1234, 'FM9,999'), "
    "to_char(5, '\"Value: \"9')",
    "SELECT to_char(123::bigint, '00000'), to_char(2.5::real, '9.99'), to_char(0.001::float8, "
    "'0.9999'), to_char(-0.001::float8, 'S0.999'), to_char(4000, 'RN'), to_char(7, '')",
    "SELECT to_char(-1234.5::numeric, 'FM9,999.00'), to_char(0::numeric, '9.99'), "
    "to_char(42::smallint, '9999'), to_char(-7, 'FM9MI'), to_char(7, 'S9'), to_char(-7, '9S')",
    "SELECT to_char('NaN'::float8, '999.9'), to_char('Infinity'::float8, '999'), "
    "to_char('-Infinity'::float8, 'FM999'), to_char('NaN'::float8, '9.9EEEE'), "
    "to_char('-Infinity'::float8, '99.99EEEE'), to_char(2147483647, '9,999,999,999')",
    "SELECT to_char(12, '9.9.9')",
    "SELECT to_char(12, 'S9MI')",
    "SELECT to_char(12, '9PR9')",
    "SELECT id, to_char(n, 'S999'), to_char(x, 'FM99999990.00') FROM moments ORDER BY id",
    # to_timestamp and to_date
    "SELECT to_timestamp('2020-01-05 10:20', 'YYYY-MM-DD HH24:MI'), to_timestamp('10:00', "
    "'HH24:MI'), to_timestamp('05 Dec 2000', 'DD Mon YYYY'), to_date('20200105', 'YYYYMMDD')",
    "SELECT to_timestamp('2020-01-01 11:30:15 pm', 'YYYY-MM-DD HH12:MI:SS am'), "
    "to_timestamp('Monday 2020 Jan 06', 'Day YYYY Mon DD'), to_timestamp('2020JAN06', "
    "'YYYYMONDD')",
    "SELECT to_date('  2020   01   05', 'YYYY MM DD'), to_date('2020/1/5', 'YYYY/MM/DD'), "
    "to_date('2020-1-5', 'FMYYYY-FMMM-FMDD'), to_date('5.1.2020', 'DD.MM.YYYY')",
    "SELECT to_date('202001', 'YYYYMM'), to_date('2020', 'YYYY'), to_date('0044 BC 03 15', "
    "'YYYY BC MM DD'), to_date('XII 2020', 'RM YYYY')",
    "SELECT to_date('2020-W10-3', 'IYYY-\"W\"IW-ID'), to_date('2020 100', 'YYYY DDD'), "
    "to_date('2451545', 'J'), to_date('21 05', 'CC YY'), to_date('99', 'YY'), to_date('1,234 "
    "01 01', 'Y,YYY MM DD')",
    "SELECT to_date('2024 366', 'YYYY DDD'), to_date('2023 60', 'YYYY DDD'), to_date('1st 01 "
    "2020', 'DDth MM YYYY'), to_date('2024-02-29', 'YYYY-MM-DD')",
    "SELECT to_timestamp('2020-01-01 10:00:00.123456', 'YYYY-MM-DD HH24:MI:SS.US'), "
    "to_timestamp('1.5', 'SS.MS'), to_timestamp('2020-01-01 10:00:00.1234567', 'YYYY-MM-DD "
    "HH24:MI:SS.FF3'), to_timestamp('12:34:56.789', 'HH24:MI:SS.FF2')",
    "SELECT to_timestamp('2020-01-01 12:00 +05:30', 'YYYY-MM-DD HH24:MI TZH:TZM'), "
    "to_timestamp('2020-01-01 12:00 -03', 'YYYY-MM-DD HH24:MI TZH')",
    "SELECT to_date('2020-01', 'YYYY-MM-DD'), to_date('', 'YYYY'), to_date('2020', ''), "
    "to_date(NULL, 'YYYY')",
    "SELECT to_date('2023-02-29', 'YYYY-MM-DD')",
    "SELECT to_date('2020-13-01', 'YYYY-MM-DD')",
    "SELECT to_date('abc', 'YYYY')",
    "SELECT to_timestamp('x2020', 'YYYY')",
    "SELECT to_date('2020 2021', 'YYYY YYYY')",
    "SELECT to_timestamp('13:00 PM', 'HH:MI PM')",
    "SELECT to_date('2020 10', 'YYYY IW')",
    "SELECT to_timestamp('2020 UTC', 'YYYY TZ')",
    "SELECT to_timestamp('2020-01-01 25:00', 'YYYY-MM-DD HH24:MI')",
    "SELECT to_date('2020 ABC 01', 'YYYY Mon DD')",
    "SELECT to_date('12', 'YYYY')",
    # generate_series over timestamps
    "SELECT generate_series('2020-01-01'::date, '2020-01-03', '1 day')",
    "SELECT generate_series('2020-01-01', '2020-01-03', '1 day'::interval)",
    "SELECT * FROM generate_series('2020-01-01'::timestamp, '2020-01-03', '1 day') "
    "WITH ORDINALITY",
    "SELECT g, n FROM generate_series(timestamp '2020-01-31', timestamp '2020-06-01', "
    "interval '1 month') WITH ORDINALITY AS s(g, n)",
    "SELECT * FROM generate_series(timestamptz '2020-01-03', '2020-01-01', '-12 hours') AS x",
    "SELECT x.g FROM generate_series(timestamp '2024-02-27', '2024-03-02', '1 day') AS x(g) "
    "WHERE extract(day FROM x.g) > 28",
    "SELECT count(*), min(g), max(g) FROM generate_series(timestamp '2020-01-01', "
    "'2020-12-31', interval '1 hour') AS g",
    "SELECT * FROM generate_series(timestamp '2020-01-01', '2020-01-03', '0 days')",
    "SELECT count(*) FROM generate_series(timestamp '2020-01-01', NULL, '1 day')",
    "SELECT * FROM generate_series(timestamp '2020-01-01', timestamp '2020-01-03')",
    "SELECT generate_series(1, 3), 'x'",
    "SELECT generate_series(date '2020-01-01', date '2020-01-02', interval '12 hours') AS h",
]

ZONES = ("America/New_York", "Europe/Berlin", "Asia/Kolkata", "-03:30", "Australia/Lord_Howe")
ZONED_QUERIES = [
    "SELECT extract(timezone FROM timestamptz '2020-07-01'), extract(timezone_hour FROM "
    "timestamptz '2020-07-01'), extract(timezone_minute FROM timestamptz '2020-01-01'), "
    "extract(hour FROM timestamptz '2020-07-01 00:00+00'), date_part('day', timestamptz "
    "'2020-07-01 02:00+00')",
    "SELECT date_trunc('day', timestamptz '2020-03-08 12:00'), date_trunc('hour', timestamptz "
    "'2020-11-01 01:30-05'), date_trunc('week', timestamptz '2020-03-31 12:00+00'), "
    "date_trunc('month', timestamptz '2020-11-01 03:00+00')",
    "SELECT to_char(timestamptz '2020-07-01', 'YYYY-MM-DD HH24:MI TZ tz OF TZH TZM'), "
    "to_char(timestamptz '2020-01-15 12:00+00', 'HH12 AM TZ'), to_char(date '2020-07-01', 'TZ')",
    "SELECT * FROM generate_series(timestamptz '2020-03-07 12:00', '2020-03-10', '1 day')",
    "SELECT * FROM generate_series(timestamptz '2020-10-24 00:00', '2020-11-02', '1 day')",
    "SELECT timestamptz '2020-03-07 12:00' + interval '1 day', timestamptz '2020-11-01 00:30' + "
    "interval '1 day 1 hour', timestamptz '2020-03-29 02:30' - interval '1 mon'",
    "SELECT age(timestamptz '2020-03-09 00:00', timestamptz '2020-03-07 12:00'), "
    "age(timestamptz '2020-11-02', timestamptz '2020-10-31 12:00')",
    "SELECT make_timestamptz(2020, 7, 1, 12, 0, 0), make_timestamptz(2020, 3, 8, 2, 30, 0), "
    "to_timestamp('2020-07-01 12:00', 'YYYY-MM-DD HH24:MI'), to_timestamp(1593619200)",
    "SELECT timestamp '2020-07-01 12:00' AT TIME ZONE 'UTC', timestamptz '2020-07-01 12:00' AT "
    "TIME ZONE 'UTC', date_trunc('day', timestamptz '2020-07-01 23:00+00', 'UTC')",
    "SELECT id, extract(hour FROM tz), to_char(tz, 'YYYY-MM-DD HH24:MI:SS TZ'), "
    "date_trunc('day', tz), tz::date FROM moments ORDER BY id",
    "SELECT date_part('epoch', date '2020-01-01'), extract(epoch FROM timestamptz "
    "'2020-01-01 00:00'), age(timestamptz '2020-01-01') = age(current_date, timestamptz "
    "'2020-01-01')",
]


peers = peers_fixture(SETUP, "datetimes")


def _same(peers: tuple[psycopg.Connection, psycopg.Connection], sql: str, zone: str) -> None:
    reference, ours = peers
    for connection in (reference, ours):
        connection.execute(f"SET TimeZone TO '{zone}'")
    expected = outcome(reference, sql)
    actual = outcome(ours, sql)
    assert actual == expected


@pytest.mark.parametrize("sql", QUERIES)
def test_same_as_postgres(peers: tuple[psycopg.Connection, psycopg.Connection],
                          sql: str) -> None:
    _same(peers, sql, "UTC")


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize("sql", ZONED_QUERIES)
def test_same_as_postgres_in_zone(peers: tuple[psycopg.Connection, psycopg.Connection],
                                  sql: str, zone: str) -> None:
    _same(peers, sql, zone)
