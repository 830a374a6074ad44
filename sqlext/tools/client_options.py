"""The commands that talk to a running server (``sqlext run``, ``graph``,
``status``) take psql's connection options: ``-h`` is the host, so
``--help`` alone asks for help."""

from __future__ import annotations

import argparse

import psycopg


def client_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str,
                  **kwargs: str) -> argparse.ArgumentParser:
    parser = commands.add_parser(name, add_help=False, **kwargs)
    parser.add_argument("--help", action="help", help="show this help message and exit")
    parser.add_argument("-h", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, default=5499)
    parser.add_argument("-U", "--user", default="postgres")
    parser.add_argument("-d", "--dbname", default="sqlext")
    return parser


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
