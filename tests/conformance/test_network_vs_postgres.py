"""Differential tests of inet and cidr: the same SQL on sqlext and on
PostgreSQL 15. Values read and print as PostgreSQL's (abbreviated IPv4,
classful cidr masks, IPv6 with embedded IPv4 dotted), compare and sort as
PostgreSQL orders them (family, then network, then mask length, then
address: '10.0.0.10' after '10.0.0.9', never as text), in ORDER BY, min/max,
DISTINCT, primary keys and unique indexes; the functions and the
containment operators << and >> agree; and the binary forms round-trip.
"""

from __future__ import annotations

import ipaddress

import psycopg
import pytest

from tests.fixtures.differential import outcome, peers_fixture

ADDRESSES = ["10.0.0.10", "10.0.0.9", "10.0.0.0/8", "10.0.0.0/7", "9.255.255.255",
             "10.0.0.9/31", "0.0.0.0/0", "192.168.1.20/24", "::1", "::/0", "::ffff:10.0.0.1",
             "fe80::1/64", "2001:db8::ff00:42:8329"]

SETUP = [
    "CREATE TABLE hosts (id int PRIMARY KEY, addr inet, net cidr)",
    "INSERT INTO hosts VALUES " + ", ".join(
        f"({number}, '{address}', network('{address}'))"
        for number, address in enumerate(ADDRESSES, start=1)) + ", (99, NULL, NULL)",
    "CREATE TABLE known (addr inet PRIMARY KEY, net cidr UNIQUE)",
    "CREATE INDEX hosts_by_addr ON hosts (addr)",
]

QUERIES = [
    # input and output
    "SELECT '10.1.2.3'::inet, '10.1.2.3/8'::inet, '10.1/16'::inet, '10/8'::inet, "
    "'010.001.002.003'::inet, '1.2.3.4/32'::inet, '1.2.3.4/08'::inet",
    "SELECT '::1'::inet, '::ffff:1.2.3.4'::inet, '::ffff:1.2.3.4/120'::inet, "
    "'FE80::1/64'::inet, '::'::inet, '1::'::inet, '::2'::inet, '::1:0'::inet, '::1:2'::inet, "
    "'::ffff'::inet, '::ffff:0:0'::inet, '::ffff:0:1.2.3.4'::inet, '1:0:0:1:0:0:0:1'::inet, "
    "'1:0:0:1:0:0:1:1'::inet, '0:0:0:1::'::inet, '1:2:3:4:5:6:1.2.3.4'::inet",
    "SELECT '10.0.0.0/8'::cidr, '10'::cidr, '128'::cidr, '192.168'::cidr, "
    "'192.168.1'::cidr, '224'::cidr, '240'::cidr, '10.1.2'::cidr, '0'::cidr, "
    "'1.2.3.4'::cidr, '::/0'::cidr, 'fe80::/10'::cidr, '::1'::cidr",
    "SELECT '10'::inet",
    "SELECT '10.1.2'::inet",
    "SELECT '1.2.3.4/33'::inet",
    "SELECT '::1/129'::inet",
    "SELECT '1.2.3.256'::inet",
    "SELECT ' 1.2.3.4'::inet",
    "SELECT ''::inet",
    "SELECT 'fe80::1%eth0'::inet",
    "SELECT '10.1.2.3/8'::cidr",
    "SELECT '10/33'::cidr",
    "SELECT '{1.2.3.4,::1/64,NULL}'::inet[], '{10.0.0.0/8}'::cidr[], "
    "ARRAY['1.2.3.4'::inet, '::1']",
    # casts
    "SELECT '10.1.2.3/8'::inet::cidr, '10.0.0.0/8'::cidr::inet, '10.1.2.3'::inet::text, "
    "'10.0.0.0/8'::cidr::text, '10.1.2.3'::inet::varchar, '10.1.2.3'::inet::varchar(4), "
    "'::1'::inet::text, 'x' || '10.1.2.3'::inet, '10.1.2.3'::inet || 'x'",
    "SELECT 'abc'::text::inet",
    "SELECT '10.1.2.3/8'::text::cidr",
    "SELECT pg_typeof('1.2.3.4'::cidr), pg_typeof(min(net)), pg_typeof(max(addr)) FROM hosts",
    "SELECT to_json('1.2.3.4/24'::inet), json_build_object('a', '10.0.0.1'::inet), "
    "to_jsonb('10.0.0.0/8'::cidr)",
    "SELECT json_agg(addr ORDER BY addr), array_agg(net ORDER BY net DESC) FROM hosts",
    # comparisons and order
    "SELECT '10.0.0.10'::inet > '10.0.0.9'::inet, '10.0.0.0/8'::inet = '10.0.0.0/8'::cidr, "
    "'10.0.0.1'::inet < '10.0.0.0/8'::inet, '1.2.3.4'::inet < '::1'::inet, "
    "'10.0.0.0/7'::cidr < '10.0.0.0/8'::cidr, '255.255.255.255'::inet < '::'::inet",
    "SELECT id, addr FROM hosts ORDER BY addr, id",
    "SELECT id, addr FROM hosts ORDER BY addr DESC NULLS LAST, id",
    "SELECT id, net FROM hosts ORDER BY net, id",
    "SELECT addr FROM hosts WHERE addr > '10.0.0.9' ORDER BY addr",
    "SELECT addr FROM hosts WHERE addr BETWEEN '10.0.0.0/8' AND '10.0.0.10' ORDER BY addr",
    "SELECT min(addr), max(addr), min(net), max(net), count(DISTINCT net) FROM hosts",
    "SELECT net, count(*) FROM hosts GROUP BY net ORDER BY net",
    "SELECT a.id, b.id FROM hosts a JOIN hosts b ON a.addr = b.net ORDER BY 1, 2",
    "SELECT addr FROM hosts WHERE addr IN ('10.0.0.9', '::1') ORDER BY addr",
    # functions
    "SELECT host('10.1.2.3/8'::inet), masklen('10.1.2.3/8'::inet), family('::1'::inet), "
    "network('10.1.2.3/8'::inet), broadcast('10.1.2.3/8'::inet), netmask('10.1.2.3/8'::inet), "
    "hostmask('10.1.2.3/8'::inet)",
    "SELECT family('1.2.3.4'), masklen('::1/64'), host('::1/64'), host('10.0.0.0/8'::cidr), "
    "network('::1/64'), broadcast('::1/64'), netmask('::1/64'), hostmask('::/0'), "
    "netmask('0.0.0.0/0'), broadcast('1.2.3.4'), host(NULL), masklen(NULL::inet)",
    "SELECT id, host(addr), masklen(addr), family(addr), network(addr), broadcast(addr) "
    "FROM hosts ORDER BY id",
    "SELECT '10.1.2.3'::inet << '10.0.0.0/8'::inet, '10.0.0.0/8'::inet << '10.0.0.0/8', "
    "'10.0.0.0/8'::cidr >> '10.1.2.3', '::1'::inet << '10.0.0.0/8', "
    "'10.0.0.0/8' >> '10.0.0.0/9'::cidr, NULL::inet << '10.0.0.0/8'",
    "SELECT a.id, b.id FROM hosts a JOIN hosts b ON a.addr << b.net ORDER BY 1, 2",
    "SELECT '1.2.3.4'::inet << 2",
    # keys
    "INSERT INTO known VALUES ('10.0.0.10', '10.0.0.0/8'), ('10.0.0.9', '10.0.0.0/16')",
    "INSERT INTO known VALUES ('10.0.0.10/32', '11.0.0.0/8')",
    "INSERT INTO known VALUES ('10.0.0.11', '10.0.0.0/8')",
    "INSERT INTO known VALUES ('10.0.0.10/31', '10.0.0.0/8'::inet)",
    "INSERT INTO known VALUES ('10.0.0.12', '10.0.0.0/8'::inet::cidr) "
    "ON CONFLICT (net) DO UPDATE SET addr = excluded.addr RETURNING *",
    "INSERT INTO known (net) SELECT addr FROM hosts WHERE id = 3",
    "INSERT INTO known (addr) VALUES ('text'::text)",
    "SELECT * FROM known ORDER BY addr",
]

Peers = tuple[psycopg.Connection, psycopg.Connection]


peers = peers_fixture(SETUP, "network")


@pytest.mark.parametrize("sql", QUERIES)
def test_network_values(peers: Peers, sql: str) -> None:
    reference, ours = peers
    assert outcome(ours, sql, typmods=True) == outcome(reference, sql, typmods=True)


@pytest.mark.parametrize("address", ADDRESSES)
def test_binary_forms_round_trip(peers: Peers, address: str) -> None:
    """psycopg reads and writes inet and cidr in binary: the same values."""
    sent = [ipaddress.ip_interface(address), ipaddress.ip_network(address, strict=False)]
    sql = (f"SELECT %b::inet, %b::cidr, %s::inet = %s::cidr, '{address}'::inet, "
           f"network('{address}')")
    results = [connection.cursor(binary=True).execute(sql, [*sent, *sent]).fetchone()
               for connection in peers]
    assert results[0] == results[1]
