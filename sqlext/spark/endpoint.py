"""Where the data source finds sqlext: the ``url`` option, connections made
from it, and sqlext's errors as Spark shows them."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final
from urllib.parse import parse_qsl, unquote, urlsplit

import psycopg

from sqlext.spark.problems import OptionError, SqlextError

SCHEME: Final = "sqlext"
DEFAULT_PORT: Final = 5499
DEFAULT_USER: Final = "postgres"
"""The role a URL without ``user`` connects as (PGUSER when set): the
superuser every sqlext server starts with."""
APPLICATION: Final = "sqlext.spark"
WRITE_TASK: Final = "write task"
READ_TASK: Final = "read task"
_PARAMETERS: Final = frozenset({"user", "password", "sslmode", "sslrootcert",
                                "connect_timeout", "application_name"})


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One sqlext server, as ``sqlext://host:port[/database]?user=...``."""

    host: str
    port: int
    database: str
    parameters: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, url: str) -> Endpoint:
        parts = urlsplit(url)
        if parts.scheme != SCHEME or not parts.hostname:
            raise OptionError(f'option "url" must look like sqlext://host:port, not "{url}"')
        try:
            port = parts.port or DEFAULT_PORT
        except ValueError:
            raise OptionError(f'option "url" has a bad port: "{url}"') from None
        parameters = dict(parse_qsl(parts.query, keep_blank_values=True))
        unknown = sorted(set(parameters) - _PARAMETERS)
        if unknown:
            raise OptionError(f'option "url" has unknown parameters: {", ".join(unknown)} '
                              f'(known: {", ".join(sorted(_PARAMETERS))})')
        if parts.username:
            parameters.setdefault("user", unquote(parts.username))
        if parts.password:
            parameters.setdefault("password", unquote(parts.password))
        parameters.setdefault("user", os.environ.get("PGUSER", DEFAULT_USER))
        return cls(parts.hostname, port, unquote(parts.path.lstrip("/")) or "sqlext",
                   tuple(sorted(parameters.items())))

    @contextmanager
    def connect(self, work: str = "driver") -> Iterator[psycopg.Connection]:
        """An autocommit connection; sqlext's errors come out as SqlextError.
        It shows in pg_stat_activity as ``sqlext.spark <work>`` unless the
        URL names an application_name."""
        parameters = {"application_name": f"{APPLICATION} {work}", **dict(self.parameters)}
        with talking(), psycopg.connect(host=self.host, port=self.port, dbname=self.database,
                                        autocommit=True, **parameters) as connection:
            yield connection


@contextmanager
def talking() -> Iterator[None]:
    """Turn psycopg's errors into SqlextError, keeping the SQLSTATE."""
    try:
        yield
    except psycopg.Error as exc:
        diagnostic = exc.diag
        raise SqlextError(exc.sqlstate or "08006",
                          diagnostic.message_primary or str(exc).strip(),
                          diagnostic.message_detail, diagnostic.message_hint) from None
