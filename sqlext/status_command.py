"""``sqlext status``: one screen on a running server, from its system views:
the streams and where batches wait, the procedures and which one is stopped
(and why), the log and the last snapshots, the sessions."""

from __future__ import annotations

import argparse
import sys
from typing import Final

import psycopg

from sqlext.client_options import client_parser
from sqlext.script_runner import print_table

SECTIONS: Final = (
    ("Streams", "SELECT schema, name, last_batch, tuples, consumers FROM sqlext_streams "
                "ORDER BY schema, name"),
    ("Procedures", "SELECT schema, name, state, waiting_batches, batches_run, batches_failed, "
                   "stopped_at_batch, error FROM sqlext_procedures ORDER BY schema, name"),
    ("Snapshots", "SELECT lsn, finished, seconds, size_bytes, error FROM sqlext_checkpoints "
                  "ORDER BY finished DESC LIMIT 3"),
)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    client_parser(commands, "status", help="a one-screen summary of a running server",
                  description="What a running server is doing, from its system views.")


def run(args: argparse.Namespace) -> int:
    try:
        with psycopg.connect(host=args.host, port=args.port, user=args.user,
                             dbname=args.dbname, autocommit=True) as conn:
            version = conn.execute("SELECT version()").fetchone()
            print(f"{version[0] if version else 'sqlext'} at {args.host}:{args.port}\n")
            for title, query in SECTIONS:
                cursor = conn.execute(query)
                assert cursor.description is not None
                print(title)
                print_table([c.name for c in cursor.description], cursor.fetchall(),
                            sys.stdout)
    except psycopg.OperationalError as exc:
        print(f"sqlext status: cannot connect to {args.host}:{args.port}: {exc}",
              file=sys.stderr)
        return 1
    except psycopg.Error as exc:
        print(f"sqlext status: {exc.sqlstate}: {exc.diag.message_primary}", file=sys.stderr)
        return 1
    return 0
