"""The nodes of a cluster, from a cluster file or a list of URLs.

A cluster file is TOML that lists the nodes in partition order (the first
is partition 0)::

    [[node]]
    url = "sqlext://127.0.0.1:5501"
    [[node]]
    url = "sqlext://127.0.0.1:5502/sqlext?user=loader"

A node URL is ``sqlext://host[:port][/database][?user=&password=&sslmode=...]``
(``postgresql://`` is taken too); the port defaults to 5499, the database
to ``sqlext``, the user to PGUSER or ``postgres``.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import parse_qsl, unquote, urlsplit

SCHEMES: Final = ("sqlext", "postgresql", "postgres")
DEFAULT_PORT: Final = 5499
DEFAULT_DATABASE: Final = "sqlext"
DEFAULT_USER: Final = "postgres"
"""The role a URL without ``user`` connects as (PGUSER when set): the
superuser every sqlext server starts with."""
PARAMETERS: Final = frozenset({"user", "password", "sslmode", "sslrootcert",
                               "connect_timeout", "application_name"})


class ClusterError(ValueError):
    """A cluster file or node URL that cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class Address:
    """Where one server listens, and how to log in."""

    host: str
    port: int
    database: str
    parameters: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, url: str) -> Address:
        parts = urlsplit(url.strip())
        if parts.scheme not in SCHEMES or not parts.hostname:
            raise ClusterError(f'"{url}" is not a node URL like sqlext://host:port')
        try:
            port = parts.port or DEFAULT_PORT
        except ValueError:
            raise ClusterError(f'"{url}" has a bad port') from None
        parameters = dict(parse_qsl(parts.query, keep_blank_values=True))
        unknown = sorted(set(parameters) - PARAMETERS)
        if unknown:
            raise ClusterError(f'"{url}" has unknown parameters: {", ".join(unknown)} '
                               f'(known: {", ".join(sorted(PARAMETERS))})')
        if parts.username:
            parameters.setdefault("user", unquote(parts.username))
        if parts.password:
            parameters.setdefault("password", unquote(parts.password))
        parameters.setdefault("user", os.environ.get("PGUSER", DEFAULT_USER))
        return cls(parts.hostname, port, unquote(parts.path.lstrip("/")) or DEFAULT_DATABASE,
                   tuple(sorted(parameters.items())))

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"

    def connect_arguments(self) -> dict[str, object]:
        """Keyword arguments for ``psycopg.connect``."""
        return {"host": self.host, "port": self.port, "dbname": self.database,
                **dict(self.parameters)}


@dataclass(frozen=True, slots=True)
class Node:
    partition: int
    address: Address

    def __str__(self) -> str:
        return f"node {self.partition} ({self.address})"


@dataclass(frozen=True, slots=True)
class Cluster:
    nodes: tuple[Node, ...]

    @property
    def partitions(self) -> int:
        return len(self.nodes)


def load(source: str) -> Cluster:
    """A cluster from a cluster file's path, or from node URLs separated by
    commas (in partition order)."""
    if "://" in source:
        urls = [url for url in source.split(",") if url.strip()]
    else:
        urls = _file_urls(Path(source))
    if not urls:
        raise ClusterError(f'cluster "{source}" lists no nodes')
    return Cluster(tuple(Node(index, Address.parse(url)) for index, url in enumerate(urls)))


def _file_urls(path: Path) -> list[str]:
    try:
        document = tomllib.loads(path.read_text())
    except OSError as exc:
        raise ClusterError(f"cannot read cluster file {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ClusterError(f"cluster file {path} is not valid TOML: {exc}") from None
    nodes = document.get("node")
    if not isinstance(nodes, list) or not all(isinstance(node, dict) for node in nodes):
        raise ClusterError(f"cluster file {path} must list its nodes as [[node]] tables")
    urls = []
    for number, node in enumerate(nodes):
        url = node.get("url")
        if not isinstance(url, str):
            raise ClusterError(f'cluster file {path}: node {number} has no url = "sqlext://..."')
        urls.append(url)
    return urls
