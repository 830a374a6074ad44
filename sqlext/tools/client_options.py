"""The commands that talk to a running server (``sqlext run``, ``graph``,
``status``) take psql's connection options: ``-h`` is the host, so
``--help`` alone asks for help. ``run`` and ``status`` also take
``--cluster``, whose node URLs say everything the options would."""

from __future__ import annotations

import argparse
from typing import Final

import psycopg

from sqlext.cluster.cluster_file import DEFAULT_DATABASE, DEFAULT_PORT, DEFAULT_USER

DEFAULT_HOST: Final = "127.0.0.1"
_DEFAULTS: Final = {"host": DEFAULT_HOST, "port": DEFAULT_PORT, "user": DEFAULT_USER,
                    "dbname": DEFAULT_DATABASE}
_FLAGS: Final = {"host": "-h", "port": "-p", "user": "-U", "dbname": "-d"}


def client_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str,
                  cluster: bool = False, **kwargs: str) -> argparse.ArgumentParser:
    """The options are None unless given: ``settle`` puts the defaults in."""
    parser = commands.add_parser(name, add_help=False, **kwargs)
    parser.add_argument("--help", action="help", help="show this help message and exit")
    parser.add_argument("-h", "--host", help=f"the server's host (default {DEFAULT_HOST})")
    parser.add_argument("-p", "--port", type=int, help=f"its port (default {DEFAULT_PORT})")
    parser.add_argument("-U", "--user", help=f"log in as (default {DEFAULT_USER})")
    parser.add_argument("-d", "--dbname", help=f"database (default {DEFAULT_DATABASE})")
    if cluster:
        parser.add_argument("--cluster", metavar="CLUSTER", help=(
            "every node of a cluster instead of one server: a cluster file (TOML: "
            '[[node]] url = "sqlext://host:port" per node, in partition order) or node '
            "URLs separated by commas; the URLs say host, port, user and database, so "
            "-h, -p, -U and -d do not go with it"))
    return parser


def settle(args: argparse.Namespace) -> str | None:
    """Puts in the defaults of the options not given; what is wrong with the
    options given, if anything (the connection options next to --cluster)."""
    if getattr(args, "cluster", None) is not None:
        given = [_FLAGS[option] for option in _FLAGS if getattr(args, option) is not None]
        if given:
            return (f"--cluster takes each node's address from the cluster, not "
                    f"{'/'.join(given)}")
    for option, default in _DEFAULTS.items():
        if getattr(args, option) is None:
            setattr(args, option, default)
    return None


def connect(args: argparse.Namespace, command: str, host: str | None = None,
            port: int | None = None) -> psycopg.Connection[tuple[object, ...]]:
    """An autocommit connection as the options say (``host``/``port``
    override them), named ``sqlext <command>`` in pg_stat_activity."""
    return psycopg.connect(host=host or args.host, port=port or args.port, user=args.user,
                           dbname=args.dbname, autocommit=True,
                           application_name=f"sqlext {command}")


def client_error(args: argparse.Namespace, exc: psycopg.Error) -> str:
    """What a client command says when the server refused it or was not there."""
    if isinstance(exc, psycopg.OperationalError):
        return f"cannot connect to {args.host}:{args.port}: {exc}"
    return f"{exc.sqlstate}: {exc.diag.message_primary}"


def first_line(exc: Exception) -> str:
    """What psycopg says about an error without a server message (a lost
    connection, a refused one), without its advice on further lines."""
    return str(exc).strip().split("\n", 1)[0]
