"""``sqlext status``: one screen on a running server, from its system views:
the streams and where batches wait, the procedures and which one is stopped
(and why), the log and the last snapshots, the sessions."""

from __future__ import annotations

import argparse
import sys
from typing import Final

import psycopg

from sqlext.tools import cluster_status
from sqlext.tools.client_options import client_error, client_parser, connect
from sqlext.tools.psql_tables import print_table

SECTIONS: Final = (
    ("Streams", "SELECT schema, name, last_batch, pending_batches, pending_tuples, consumers "
                "FROM sqlext_streams ORDER BY schema, name"),
    ("Windows", "SELECT schema, name, stream, kind, size, slide, visible_tuples, "
                "staged_tuples, slides FROM sqlext_windows ORDER BY schema, name"),
    ("Procedures", "SELECT schema, name, state, waiting_batches, batches_run, batches_failed, "
                   "avg_ms, p99_ms, stopped_at_batch, error FROM sqlext_procedures "
                   "ORDER BY schema, name"),
    ("Command log", "SELECT durability, recovery, last_lsn, durable_lsn, last_fsync, fsyncs, "
                    "avg_group, max_group FROM sqlext_log"),
    ("Snapshots", "SELECT lsn, size_bytes, written, writing FROM sqlext_snapshots "
                  "ORDER BY lsn DESC LIMIT 3"),
    ("Sessions", "SELECT pid, usename, application_name, client_addr, state, "
                 "left(query, 50) AS query "
                 "FROM pg_stat_activity ORDER BY pid"),
)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    client_parser(commands, "status", cluster=True,
                  help="a one-screen summary of a running server, or of a cluster",
                  description=(
                      "What a running server is doing, from its system views. With --cluster: "
                      "every node, whether it is up and serves its partition, and its streams' "
                      "backlog and procedures; the exit status is 1 if a node is down, refuses "
                      "the connection or serves another partition, else 0."))


def run(args: argparse.Namespace) -> int:
    if args.cluster is not None:
        return cluster_status.run(args.cluster)
    try:
        with connect(args, "status") as conn:
            version = conn.execute("SELECT version()").fetchone()
            print(f"{version[0] if version else 'sqlext'} at {args.host}:{args.port}\n")
            for title, query in SECTIONS:
                cursor = conn.execute(query)
                print(title)
                print_table(cursor, sys.stdout)
    except psycopg.Error as exc:
        print(f"sqlext status: {client_error(args, exc)}", file=sys.stderr)
        return 1
    return 0
