"""Differential tests of everyday text, math and formatting functions
against PostgreSQL 15: format(), the functions taking "any" arguments
(concat, concat_ws, num_nulls: values printed by their types' output
functions), quote_nullable and quote_literal of any type, overlay,
translate, to_hex, the sha2 digests, bit_length, cbrt, degrees, radians,
setseed (its result and errors; the numbers it makes random() draw are
tests/e2e/test_setseed.py's), to_number, and bit_and/bit_or/bit_xor.

Each query runs on both servers; column names, result types (OIDs and
modifiers) and the rows as text must match byte for byte, or both must fail
with the same SQLSTATE, message, DETAIL and HINT.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.fixtures.differential import (
    Peers,
    assert_same_as_postgres,
    outcome,
    peers_fixture,
)

SETUP = [
    "CREATE TABLE emp (id int PRIMARY KEY, name text NOT NULL, dept text, salary numeric(10,2), "
    "hired date, active boolean, rating float8, tags text[], updated timestamptz)",
    """INSERT INTO emp VALUES
       (1, 'ann', 'eng', 120000.50, '2020-01-15', true, 4.5, ARRAY['a','b'],
        '2024-01-02 03:04:05+00'),
       (2, 'bob', 'eng', 95000, '2021-06-01', true, 3.25, ARRAY['b'], '2024-02-01 00:00:00+00'),
       (3, 'cid', 'ops', 70000.25, '2019-11-30', false, NULL, NULL, NULL),
       (4, 'dee', NULL, 50000, '2022-02-28', true, 5, '{}', '2023-12-31 23:59:59.5+00'),
       (5, 'eve', 'ops', NULL, NULL, NULL, -0.5, ARRAY['c', NULL], '2024-06-30 12:00:00+00')""",
    "CREATE TABLE kinds (code char(4), doc jsonb, ip inet)",
    """INSERT INTO kinds VALUES ('ab', '{"k": [1, "x"], "a": 0.50}', '10.0.0.1'),
       ('abcd', '[true, null]', '10.1.0.0/16'), (NULL, NULL, NULL)""",
]

FORMAT = [
    "SELECT format('Hello %s', 'World'), format('%s, %s', 1, NULL), format(NULL), "
    "format('abc'), format(NULL, 1)",
    "SELECT format('%s %s', true, 1.50), format('%L', 42), format('%L', NULL), format('%I', "
    "'Foo bar'), format('%I', 'select')",
    "SELECT format('%I', NULL)",
    "SELECT format('%2$s %1$s', 'a', 'b'), format('|%-10s|%10s|', 'ab', 'cd'), format('|%*s|', "
    "6, 'x'), format('|%-*s|', 6, 'x'), format('|%*s|', -6, 'x')",
    "SELECT format('%1$*2$s|', 'x', 5), format('%3$*2$s|', 'x', 5, 'y'), format('|%*s|', NULL, "
    "'x'), format('|%*s|', '4', 'x')",
    "SELECT format('%*2$s|', 'x', 5)",
    "SELECT format('|%*s|', 'x', 'y')",
    "SELECT format('|%*s|', 99999999999, 'y')",
    "SELECT format('|%*s|', true, 'y')",
    "SELECT format('%*s|', 3::int8, 'x'), format('%*s|', ' 3 ', 'x'), format('%*s|', 3::int2, "
    "'x'), format('%*s|', 3.0::float8, 'x')",
    "SELECT format('%*s|', 3.0, 'x')",
    "SELECT format('%*s|', -2147483648, 'x')",
    "SELECT format('%s %s', 'a')",
    "SELECT format('%x', 1)",
    "SELECT format('%', 1)",
    "SELECT format('abc %')",
    "SELECT format('%1', 1)",
    "SELECT format('%0$s', 1)",
    "SELECT format('%*0$s', 1)",
    "SELECT format('%*1s', 1, 2)",
    "SELECT format('%99999999999s', 1)",
    "SELECT format('%2147483647$s', 1)",
    "SELECT format('%*2147483648$s', 1)",
    "SELECT format('%1$s %s %s', 'a', 'b', 'c'), format('%%%s%%', 'x'), format('%-s|', 'x'), "
    "format('%--5s|', 'x'), format('%s %2$s %s', 'a', 'b', 'c')",
    "SELECT format('%5-s|', 'x')",
    "SELECT format('%$s', 1)",
    "SELECT format('%*$s', 1)",
    "SELECT format('%1$', 1)",
    "SELECT format('%*', 1)",
    "SELECT format('%1$-', 1)",
    "SELECT format('%1$%', 1)",
    "SELECT format('%é', 1)",
    "SELECT format(''), format('%%'), format('%s', ''), format('%s', 1, 2, 3), format('%-*s|', "
    "-4, 'x'), format('%5$-3s|', 1, 2, 3, 4, 5)",
    "SELECT format('%L', 'it''s'), format('%L', E'back\\\\slash'), format('%I', "
    '\'a"b\'), format(\'%L\', true), format(\'%L\', ARRAY[1,2]), format(\'%s\', ARRAY[\'a b\', '
    'NULL])',
    'SELECT format(\'%s\', \'{"b":1, "a":[1,2]}\'::jsonb), format(\'%s\', '
    "date '2024-02-03'), format('%s', 1.5::float8), format('%s', 0.1::float8 + 0.2), "
    "format('%s', '\\xdead'::bytea), format('%s', interval '1 day 2 hours'), format('%L', "
    "'NaN'::float8)",
    "SELECT format('%s', 'é'), format('|%5s|', 'é'), format('|%-3L|', 'é'), format(E'%s\\n', "
    "1::int2), format('%s', '1.2.3.4/32'::inet), format('%s', 'a'::name)",
    "SELECT format('%I', ''), format('%I', 'abc_1$'), format('%I', 'ABC'), format('%I', "
    "'int'), format('%I', 'user'), format('%I', 'name'), format('%I', 'x'::name), format('%I', "
    "'_a9')",
    "SELECT format('%s %s', 1.5::real, 1e20::float8), format('%s|%s', 'NaN'::numeric, "
    "'-Infinity'::float8), format('%s', 1e-5::float8)",
    "SELECT format('INSERT INTO %I VALUES(%L, %L, %s)', 'my table', 10, NULL, now() IS NOT NULL)",
    "SELECT format('%s', name), format('%s/%L', salary, hired), format('%s', active), "
    "format('%s', tags), format('%s', rating) FROM emp ORDER BY id",
    "SELECT format('%1$s: %2$s', 'x', doc), format('%s', ip), format('%s', "
    'code) FROM kinds ORDER BY 1',
]

ANY_ARGUMENTS = [
    "SELECT pg_typeof(format('%s', 1)), pg_typeof(concat(1)), pg_typeof(num_nulls(1))",
    "SELECT concat(true), concat(1.50), concat(date '2024-01-02'), concat(ARRAY[1,2]), "
    'concat(\'{"a":1}\'::jsonb)',
    "SELECT concat_ws(',', true, 1.50, 2.5::float8, now()::date > '2000-01-01')",
    "SELECT concat(1.0::float8), concat(interval '1 day'), concat('\\x01'::bytea), "
    "concat(timestamptz '2024-01-02 03:04:05+00'), concat('12:00'::time, 1::oid)",
    "SELECT concat('1.2.3.4'::inet), '1.2.3.4'::inet::text, "
    "concat('a3bf5d9f-96a2-4f4b-8a6e-9d0d2c1d9e1f'::uuid, '192.168.0.0/24'::cidr)",
    "SELECT concat('a', NULL, 1), concat_ws('-', 'a', NULL, 'b'), concat_ws(NULL, 'a'), "
    "concat_ws(',', NULL), concat(NULL)",
    "SELECT concat(1e-5::float8, 100000000000000000000::float8), concat('NaN'::numeric, "
    "'Infinity'::float8), concat(0.1::float8 + 0.2)",
    "SELECT concat(name, ':', salary, ':', active, ':', hired, ':', tags, ':', "
    'updated) FROM emp ORDER BY id',
    "SELECT concat_ws(' | ', id, rating, active) FROM emp ORDER BY id",
    "SELECT concat(doc, ip, code, 'pg_class'::regclass, 'int4'::regtype) FROM kinds ORDER BY 1",
    'SELECT concat()',
    "SELECT concat_ws(',')",
    "SELECT num_nulls(1, NULL, 'a', NULL::int), num_nonnulls(1, NULL, 'a'), num_nulls(NULL), "
    'num_nonnulls(NULL, NULL::date)',
    'SELECT num_nulls(salary, hired, rating, tags), num_nonnulls(salary, hired, rating, tags, '
    'active) FROM emp ORDER BY id',
    'SELECT num_nulls()',
    "SELECT quote_nullable(NULL), quote_nullable('a''b'), quote_nullable(42), "
    'quote_nullable(true), quote_literal(true), quote_nullable(1.50), '
    "quote_nullable(E'a\\\\b'), quote_nullable(NULL::int)",
    "SELECT quote_literal('1.2.3.4'::inet), quote_nullable(ARRAY[1,2]), "
    "quote_literal(ARRAY['a']), quote_nullable('2024-01-02'::date), "
    "quote_nullable(now() - now()), quote_literal('\\x01'::bytea)",
    'SELECT quote_nullable(salary), quote_nullable(hired), '
    'quote_literal(active) FROM emp ORDER BY id',
    "SELECT quote_ident('a$'), quote_ident('select'), quote_ident('user'), "
    "quote_ident('between'), quote_ident('int'), quote_ident('Ab'), quote_ident('é'), "
    "quote_ident('abc'), quote_ident('a b'), quote_ident('1a')",
]

STRINGS = [
    "SELECT overlay('Txxxxas' placing 'hom' from 2 for 4), "
    "overlay('abcdef' placing 'XY' from 3), overlay('abc' placing 'XY' from 10), "
    "overlay('abc' placing '' from 2 for 1), overlay('abc' placing 'Z' from 1 for 0)",
    "SELECT overlay('abcdef' placing 'xx' from 2 for -1), "
    "overlay('abcdef' placing 'xx' from 2 for -10), overlay(NULL placing 'x' from 1), "
    "overlay('abc' placing 'x' from NULL), overlay('abc' placing 'x' from 1 for NULL)",
    "SELECT overlay('abc' placing 'x' from 0)",
    "SELECT overlay('abc' placing 'x' from -1 for 2)",
    "SELECT overlay('abc' placing 'x' from 2147483647 for 1)",
    "SELECT overlay('\\x1234567890'::bytea placing '\\002\\003'::bytea from 2 for 3), "
    "overlay('\\x1234'::bytea placing '\\xff' from 2)",
    "SELECT overlay('abc', 'x', 2, 1), overlay('abc', 'x', 2), "
    "pg_typeof(overlay('abc' placing 'x' from 1)), overlay('héllo' placing 'É' from 2 for 1)",
    "SELECT overlay('abc'::varchar placing 'x' from 1), "
    "overlay('abc'::bytea placing 'x' from 1), overlay('abc' placing 'x' from '2')",
    'SELECT overlay(name placing upper(name) from 2 for 1) FROM emp ORDER BY id',
    'SELECT to_hex(255), to_hex(-1), to_hex(-1::bigint), to_hex(9223372036854775807), '
    'to_hex(0), to_hex(NULL::int), to_hex(1::int2), to_hex(2147483648), to_hex(-2147483648)',
    "SELECT to_hex('10')",
    'SELECT to_hex(1.5)',
    'SELECT to_hex(id * 1000), to_hex(-id::bigint) FROM emp ORDER BY id',
    "SELECT translate('12345', '143', 'ax'), translate('abc', 'abca', 'xyz'), translate('abc', "
    "'', 'x'), translate(NULL, 'a', 'b'), translate('héllo', 'él', 'EL'), translate('aaa', "
    "'a', '')",
    "SELECT sha224('abc'::bytea), sha256(''), sha384('abc'), sha512('\\x00'::bytea), sha256(NULL)",
    "SELECT sha256('abc'::text)",
    "SELECT sha256(E'\\\\xzz')",
    "SELECT encode(sha256(name::bytea), 'hex') FROM emp WHERE id = 1",
    "SELECT bit_length('héllo'), bit_length(''), bit_length('\\x0102'::bytea), "
    'bit_length(NULL), bit_length(name) FROM emp WHERE id = 1',
    'SELECT bit_length(12)',
]

MATH = [
    "SELECT cbrt(27), cbrt(-8), cbrt(2), cbrt(0), cbrt('-0'), cbrt('Infinity'), cbrt('NaN'), "
    'cbrt(1e-320), cbrt(27::numeric), pg_typeof(cbrt(1))',
    'SELECT degrees(pi()), degrees(1), degrees(0.5), radians(180), radians(1), radians(-45.5), '
    "degrees('NaN'), radians('-Infinity'), degrees(1e300), radians(1e-320)",
    'SELECT degrees(1.7e308)',
    'SELECT radians(4.9e-324)',
    'SELECT degrees(rating), radians(rating), cbrt(rating) FROM emp ORDER BY id',
    'SELECT setseed(0.5), pg_typeof(setseed(0)), setseed(-1), setseed(1), '
    'setseed(0.5::numeric), setseed(1::int)',
    'SELECT setseed(1.5)',
    'SELECT setseed(-1.0000001)',
    "SELECT setseed('NaN')",
    'SELECT setseed(NULL), setseed(NULL) IS NULL',
    "SELECT setseed('x')",
]

TO_NUMBER = [
    "SELECT to_number('12,454.8-', '99G999D9S'), to_number('12,454.8-', '99,999.9S'), "
    "to_number('-34,338,492', '99G999G999'), to_number('-34,338,492.654,878', "
    "'99G999G999D999G999')",
    "SELECT to_number('123', '999'), to_number('123.45', '999.99'), to_number('123.45', "
    "'999.9'), to_number('123.45', '999'), to_number(' 123', '999'), to_number('1234', '999')",
    "SELECT to_number('<564646.654564>', '999999.999999PR'), to_number('0.00001-', "
    "'9.999999S'), to_number('5.01-', 'FM9.999999S'), to_number('5.01-', 'FM9.999999MI'), "
    "to_number('5 4 4 4 4 8 . 7 8', '9 9 9 9 9 9 . 9 9')",
    "SELECT to_number('.01', 'FM9.99'), to_number('.0', '99999999.99999999'), to_number('0', "
    "'99.99'), to_number('.-01', 'S99.99'), to_number('.01-', '99.99S'), to_number(' . 0 1-', "
    "' 9 9 . 9 9 S')",
    "SELECT to_number('34,50','999,99'), to_number('123,000','999G'), "
    "to_number('123456','999G999'), to_number('$1234.56','L9,999.99'), "
    "to_number('$1234.56','L99,999.99'), to_number('$1,234.56','L99,999.99')",
    "SELECT to_number('1234.56','L99,999.99'), to_number('1,234.56','L99,999.99'), "
    "to_number('42nd', '99th'), to_number('123456', '99999V99'), to_number('12', '9V9'), "
    "to_number('1', '9V999')",
    "SELECT to_number('x1', '999'), to_number('1x', '999'), to_number(NULL, '9'), "
    "to_number('1', NULL), pg_typeof(to_number('1','9')), to_number('1', '')",
    "SELECT to_number('-1', '9'), to_number('-1', 'S9'), to_number('+1', 'S9'), "
    "to_number('1-', '9MI'), to_number('-1', 'MI9'), to_number('1', '9MI'), to_number('<1>', "
    "'9PR'), to_number('1', '9PR')",
    "SELECT to_number('12.5', '99D9'), to_number('1 234', '9G999'), to_number('0012', '0000'), "
    "to_number('12', '0000'), to_number('1.5', 'FM0.00')",
    "SELECT to_number('-5', 'SG9'), to_number('+5', 'PL9'), to_number('5', 'B9'), "
    "to_number('-5', '9SG')",
    "SELECT to_number('1,2,3', '9,9,9'), to_number('12', '9,9'), to_number('1.2.3', '9.9'), "
    "to_number('99999999999999999999', '99999999999999999999')",
    "SELECT to_number('1 2', '99'), to_number('12 ', '99'), to_number('  -12', '999'), "
    "to_number('- 12', 'S999'), to_number('12abc', '99'), to_number('a12', '99')",
    'SELECT to_number(\'x1\', \'x9\'), to_number(\'ab12\', \'"ab"99\'), to_number(\'12\', '
    "'FMx99'), to_number('1,', '9,'), to_number(',1', ',9'), to_number('1 ', '9 '), "
    "to_number('12', '9 9')",
    "SELECT to_number('1,234', 'FM9,999'), to_number('1,234', 'FM9G999'), to_number('1234-', "
    "'9999MI'), to_number('1234+', 'FM9999PL')",
    "SELECT to_number('1.23456', '9.99'), to_number('12345678901234567890.12345', "
    "'99999999999999999999.99999'), to_number('0.000', '9.999'), to_number('-0', '9')",
    "SELECT to_number('1th2', '9th9'), to_number('1.5th', '9.9th'), to_number('€12', 'L99'), "
    "to_number('£1', 'L9'), to_number('12'::varchar, '99')",
    "SELECT to_number(to_char(salary, 'FM999,999.00'), '999,999.99') FROM emp ORDER BY id",
    "SELECT to_number('', '999')",
    "SELECT to_number('abc', '999')",
    "SELECT to_number('1', 'x9')",
    "SELECT to_number('-.5', 'S.9')",
    "SELECT to_number('1', 'FM')",
    "SELECT to_number('-', '9')",
    "SELECT to_number('5', '.')",
    "SELECT to_number('12,5', '99D9')",
    "SELECT to_number('12', 'RN')",
    "SELECT to_number('1e5', '9EEEE')",
    "SELECT to_number('123', '9.9.9')",
    "SELECT to_number('123', '99PR9')",
    "SELECT to_number('-12.5', 'S99.9V9')",
    "SELECT to_number('1', 'S9S')",
    "SELECT to_number(12, '99')",
]

BIT_AGGREGATES = [
    'SELECT bit_and(x), bit_or(x), bit_xor(x), pg_typeof(bit_and(x)) FROM (VALUES (12), (10), '
    '(NULL::int), (7)) v(x)',
    'SELECT bit_and(x), bit_or(x), bit_xor(x), pg_typeof(bit_or(x)) FROM (VALUES (12::int2), '
    '(10::int2)) v(x)',
    'SELECT bit_and(x), bit_or(x), bit_xor(x), pg_typeof(bit_xor(x)) FROM (VALUES (-1::int8), '
    '(9223372036854775807)) v(x)',
    'SELECT bit_and(x), bit_or(x), bit_xor(x) FROM (VALUES (-8), (-3)) v(x)',
    'SELECT bit_and(x), bit_or(x), bit_xor(x) FROM (VALUES (NULL::int)) v(x)',
    'SELECT bit_and(x) FROM (VALUES (1.5)) v(x)',
    "SELECT bit_or(x) FROM (VALUES ('a')) v(x)",
    'SELECT bit_xor(x) FROM (VALUES (true)) v(x)',
    'SELECT bit_or(1), bit_and(id), bit_or(id), bit_xor(id) FROM emp',
    'SELECT x, bit_or(x) OVER (ORDER BY x), '
    'bit_and(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), '
    'bit_xor(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM (VALUES (1), '
    '(3), (7), (-4), (NULL)) v(x) ORDER BY x',
    'SELECT dept, bit_or(id), '
    'bit_and(id) FILTER (WHERE id > 1) FROM emp GROUP BY dept ORDER BY dept',
]
QUERIES = FORMAT + ANY_ARGUMENTS + STRINGS + MATH + TO_NUMBER + BIT_AGGREGATES

SESSION = ["TimeZone = 'America/New_York'", "extra_float_digits = 0"]
PRINTED_AS_THE_SESSION_PRINTS = [
    "SELECT concat(updated), format('%s', updated), quote_nullable(updated) FROM emp ORDER BY id",
    "SELECT concat(0.1::float8 + 0.2, ' ', rating / 3), format('%s|%s', 1 / 3::float8, "
    "0.1::real) FROM emp ORDER BY id",
]
"""Output functions print as the session says: in its time zone, floats
to its extra_float_digits."""


peers = peers_fixture(SETUP, "text_functions")


@pytest.mark.parametrize("sql", QUERIES)
def test_same_as_postgres(peers: Peers, sql: str) -> None:
    assert_same_as_postgres(peers, sql, typmods=True, diagnosis=True)


def test_printed_as_the_session_prints(
        peers: tuple[psycopg.Connection, psycopg.Connection]) -> None:
    reference, ours = peers
    try:
        for connection in peers:
            for setting in SESSION:
                connection.execute(f"SET {setting}")
        for sql in PRINTED_AS_THE_SESSION_PRINTS:
            assert outcome(ours, sql) == outcome(reference, sql)
    finally:
        for connection in peers:
            for setting in SESSION:
                connection.execute(f"RESET {setting.partition(' ')[0]}")
