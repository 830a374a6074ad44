"""The commands that talk to a running server (``sqlext run``, ``graph``,
``status``) take psql's connection options: ``-h`` is the host, so
``--help`` alone asks for help."""

from __future__ import annotations

import argparse


def client_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str,
                  **kwargs: str) -> argparse.ArgumentParser:
    parser = commands.add_parser(name, add_help=False, **kwargs)
    parser.add_argument("--help", action="help", help="show this help message and exit")
    parser.add_argument("-h", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, default=5499)
    parser.add_argument("-U", "--user", default="postgres")
    parser.add_argument("-d", "--dbname", default="sqlext")
    return parser
