"""``sqlext graph``: the dataflow of a running server as a picture.

Asks the server for ``EXPLAIN (FORMAT DOT) DATAFLOW`` and writes the DOT
text (``--dot``) and/or an SVG drawn by Graphviz's ``dot`` (``--svg``).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

import psycopg

from sqlext.tools.client_options import client_error, client_parser, connect

_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?(\(\))?")
"""What NAME may be: a (schema-qualified) name, with () for a procedure."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = client_parser(
        commands, "graph", help="draw the dataflow of a running server",
        description="Draw the dataflow graph of a running server (EXPLAIN (FORMAT DOT) "
                    "DATAFLOW) with its live counts. Without --svg or --dot, print the DOT "
                    "text.")
    parser.add_argument("name", nargs="?", help=(
        "only the part reachable from this stream, relation or procedure (name() for a "
        "procedure)"))
    parser.add_argument("--svg", type=Path, help="write the picture here (needs Graphviz)")
    parser.add_argument("--dot", type=Path, help="write the Graphviz DOT text here")


def run(args: argparse.Namespace) -> int:
    def fail(message: str) -> int:
        print(f"sqlext graph: {message}", file=sys.stderr)
        return 1

    if args.name is not None and not _NAME.fullmatch(args.name):
        return fail(f"not a stream, relation or procedure name: {args.name!r}")
    dot = shutil.which("dot")
    if args.svg is not None and dot is None:
        return fail("--svg needs Graphviz's dot program, which is not installed "
                    "(Debian: apt-get install graphviz); --dot writes the DOT text without it")
    statement = "EXPLAIN (FORMAT DOT) DATAFLOW" + (f" {args.name}" if args.name else "")
    try:
        with connect(args, "graph") as conn:
            row = conn.execute(statement).fetchone()
    except psycopg.Error as exc:
        return fail(client_error(args, exc))
    assert row is not None
    text: str = row[0]
    if args.dot is not None:
        args.dot.write_text(text)
    if args.svg is not None:
        assert dot is not None
        drawn = subprocess.run([dot, "-Tsvg", "-o", str(args.svg)], input=text, text=True,
                               capture_output=True, check=False)
        if drawn.returncode != 0:
            return fail(f"dot failed: {drawn.stderr.strip()}")
    if args.svg is None and args.dot is None:
        sys.stdout.write(text)
    return 0
