"""Host-based authentication rules: PostgreSQL's pg_hba.conf, for TCP.

Each line is ``TYPE DATABASE USER ADDRESS METHOD``; the first line matching a
connection decides how it authenticates, and a connection no line matches is
refused. TYPE is ``host`` (with or without TLS), ``hostssl`` (TLS only) or
``hostnossl``; DATABASE and USER are ``all`` or comma-separated names;
ADDRESS is ``all`` or an address with an optional CIDR mask (``10.0.0.0/8``);
METHOD is trust, reject, md5, scram-sha-256 or password.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Final

METHODS: Final = frozenset({"trust", "reject", "md5", "scram-sha-256", "password"})
PASSWORD_METHODS: Final = frozenset({"md5", "scram-sha-256", "password"})
_TYPES: Final = frozenset({"host", "hostssl", "hostnossl"})

DEFAULT_RULES: Final = """\
# sqlext host-based authentication (the format of PostgreSQL's pg_hba.conf).
# The first line that matches a connection decides; nothing matching: refused.
# Edit, then reload with SELECT pg_reload_conf() or SIGHUP.
#
# TYPE     DATABASE  USER  ADDRESS         METHOD
host       all       all   127.0.0.1/32    trust
host       all       all   ::1/128         trust
# Everybody else with a password (roles get one with CREATE/ALTER ROLE ... PASSWORD):
# hostssl  all       all   0.0.0.0/0       scram-sha-256
"""
"""What a new data directory starts with: trust on loopback, nothing else."""

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class HbaError(Exception):
    """The rules file is malformed; the message names the line."""


@dataclass(frozen=True, slots=True)
class Rule:
    connection: str
    databases: frozenset[str] | None
    """None: all."""
    users: frozenset[str] | None
    network: Network | None
    """None: all addresses."""
    method: str
    line: int

    def matches(self, database: str, user: str, address: str, tls: bool) -> bool:
        if (self.connection == "hostssl" and not tls) or (
                self.connection == "hostnossl" and tls):
            return False
        if self.databases is not None and database not in self.databases:
            return False
        if self.users is not None and user not in self.users:
            return False
        return self.network is None or _in_network(address, self.network)

    def covers_remote(self) -> bool:
        """Whether a client on another machine can match this rule."""
        return self.network is None or not self.network.is_loopback


def _in_network(address: str, network: Network) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.version == network.version and ip in network


def _names(field: str) -> frozenset[str] | None:
    return None if field == "all" else frozenset(field.split(","))


def parse_rules(text: str, source: str) -> tuple[Rule, ...]:
    rules = []
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{source}, line {number}"
        if len(words) != 5:
            raise HbaError(f"{where}: expected TYPE DATABASE USER ADDRESS METHOD, "
                           f"got {raw.strip()!r}")
        connection, databases, users, address, method = words
        if connection not in _TYPES:
            raise HbaError(f"{where}: invalid connection type {connection!r} "
                           f"(host, hostssl or hostnossl)")
        if method not in METHODS:
            raise HbaError(f"{where}: invalid authentication method {method!r} "
                           f"({', '.join(sorted(METHODS))})")
        try:
            network = None if address == "all" else ipaddress.ip_network(address, strict=False)
        except ValueError:
            raise HbaError(f"{where}: invalid IP address or mask {address!r}") from None
        rules.append(Rule(connection, _names(databases), _names(users), network, method,
                          number))
    return tuple(rules)


@dataclass(frozen=True, slots=True)
class HbaRules:
    rules: tuple[Rule, ...]
    source: str

    def find(self, database: str, user: str, address: str, tls: bool) -> Rule | None:
        return next((r for r in self.rules if r.matches(database, user, address, tls)), None)

    def remote_problem(self) -> str | None:
        """Why listening beyond loopback with these rules is unsafe: a rule
        trusts remote clients, or none asks them for a password."""
        remote = [r for r in self.rules if r.covers_remote()]
        trusting = next((r for r in remote if r.method == "trust"), None)
        if trusting is not None:
            return f"{self.source}, line {trusting.line} trusts clients on other machines"
        if not any(r.method in PASSWORD_METHODS for r in remote):
            return f"no rule in {self.source} asks clients on other machines for a password"
        return None


def load_rules(path: Path | None) -> HbaRules:
    """The rules of ``path``; the defaults when ``path`` is None."""
    if path is None:
        return HbaRules(parse_rules(DEFAULT_RULES, "the default rules"), "the default rules")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise HbaError(f"cannot read {path}: {exc.strerror}") from exc
    return HbaRules(parse_rules(text, str(path)), str(path))


def is_loopback_host(host: str) -> bool:
    """Whether listening on ``host`` reaches only this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False

