"""The ``sqlext`` command line."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import psycopg

from catalog.errors import SqlError
from sqlext.durability.recovery import RecoveryError
from sqlext.server.hba import HbaError
from sqlext.server.serve import ServerOptions, StartupRefused, serve
from sqlext.tools import graph_command, logs, status_command
from sqlext.tools.bench import (
    chains_bench,
    cluster_bench,
    durability_bench,
    leaderboard_bench,
    matview_bench,
    numeric_bench,
    spark_bench,
    wire_bench,
)
from sqlext.tools.bench.baseline import BaselineUnavailable, baseline
from sqlext.tools.bench.harness import BenchmarkFailed, Output, Variant, run_variants
from sqlext.tools.bench.spark_bench import SparkUnavailable
from sqlext.tools.client_options import client_parser, connect
from sqlext.tools.peer import PeerUnavailable
from sqlext.tools.processes import start_sqlext
from sqlext.tools.script import ScriptError, script_steps
from sqlext.tools.script_runner import run_steps
from sqlext.version import __version__
from storage.commandlog import LogError
from storage.datadir import DataDirectoryInUse

try:
    from uvloop import run  # a faster event loop, when installed
except ImportError:
    from asyncio import run

def _variants(title: str, variants: Callable[[], list[Variant]]
              ) -> Callable[[argparse.Namespace, Output], object]:
    return _variants_of_args(lambda _: (title, variants()))


def _variants_of_args(make: Callable[[argparse.Namespace], tuple[str, list[Variant]]]
                      ) -> Callable[[argparse.Namespace, Output], object]:
    """A benchmark of variants (its title and variants from the options)."""
    def run(args: argparse.Namespace, output: Output) -> object:
        title, variants = make(args)
        with contextlib.ExitStack() as stack:
            base = stack.enter_context(baseline(args.baseline)) if args.baseline else None
            return run_variants(title, variants, output, with_peer=args.peer == "postgres",
                                baseline=base)
    return run


def _leaderboard(args: argparse.Namespace) -> tuple[str, list[Variant]]:
    rules = leaderboard_bench.Rules(args.contestants, args.removal_every, args.window,
                                    args.slide, args.votes_per_phone)
    title = "Leaderboard: votes/s, one client"
    if rules != leaderboard_bench.EXAMPLE:
        title += f" ({rules})"
    return title, leaderboard_bench.variants(args.votes, rules=rules)


def _spark(args: argparse.Namespace, output: Output) -> object:
    with contextlib.ExitStack() as stack:
        base = stack.enter_context(baseline(args.baseline)) if args.baseline else None
        return spark_bench.run_spark(output, args.peer == "postgres",
                                     tuple(args.rows or spark_bench.SIZES), baseline=base)


BENCHMARKS: dict[str, Callable[[argparse.Namespace, Output], object]] = {
    "wire": _variants("Wire: one psycopg connection", wire_bench.variants),
    "leaderboard": _variants_of_args(_leaderboard),
    "pe-chain": _variants("PE chain (Figure 7): batches/s, triggers vs client-driven",
                          chains_bench.pe_variants),
    "ee-chain": _variants("EE chain (Figure 6): batches/s, triggers vs client-driven",
                          chains_bench.ee_variants),
    "numeric": _variants("Numeric: money-shaped sums and inserts", numeric_bench.variants),
    "recovery": lambda args, output: durability_bench.run_recovery(output),
    "checkpoint": lambda args, output: durability_bench.run_checkpoint(args.size_mb, output),
    "matview": lambda args, output: matview_bench.run_matviews(
        output, args.peer == "postgres", tuple(args.rows or matview_bench.SIZES)),
    "spark": lambda args, output: _spark(args, output),
    "cluster": lambda args, output: cluster_bench.run_cluster(
        output, args.rows[0] if args.rows else cluster_bench.EVENTS),
}
"""``sqlext bench NAME``: each starts the servers it needs and publishes its tables."""
WITH_BASELINE = ("wire", "leaderboard", "pe-chain", "ee-chain", "numeric", "spark")
"""The benchmarks ``--baseline`` works with."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sqlext", description=(
        "A transactional stream-processing engine that speaks the PostgreSQL protocol."))
    parser.add_argument("--version", action="version", version=f"sqlext {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve", help="run the server")
    serve_parser.add_argument("--host", default="127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=5499)
    serve_parser.add_argument("--data-dir", default="./sqlext-data")
    serve_parser.add_argument("--in-memory", action="store_true",
                              help="keep no command log and no snapshots")
    serve_parser.add_argument("--recovery", choices=("strong", "weak"), default="strong")
    serve_parser.add_argument("--commandlog-timeout-ms", type=int, default=10,
                              help="group commit: longest wait before an fsync "
                                   "(-1: one fsync per commit)")
    serve_parser.add_argument("--checkpoint-interval-s", type=float, default=300.0,
                              help="take a snapshot this often (when anything changed)")
    serve_parser.add_argument("--checkpoint-log-mb", type=float, default=64.0,
                              help="...or once the command log grew this much")
    serve_parser.add_argument("--snapshots-kept", type=int, default=2)
    serve_parser.add_argument("--copy-dir", help=(
        "directory for server-side COPY files, e.g. Parquet (default: DATA_DIR/files; "
        "none with --in-memory)"))
    serve_parser.add_argument("--max-connections", type=int, default=100)
    serve_parser.add_argument("--max-message-mb", type=float, default=256.0,
                              help="largest protocol message a client may send")
    serve_parser.add_argument("--max-held-batches", type=int, default=10_000, help=(
        "batches that may wait for a stopped procedure before its input streams refuse "
        "more (53400)"))
    serve_parser.add_argument("--hba-file", help=(
        "authentication rules in pg_hba.conf format (default: DATA_DIR/pg_hba.conf, "
        "created with trust on loopback only; with --in-memory: those defaults)"))
    serve_parser.add_argument("--allow-remote-trust", action="store_true", help=(
        "start on a non-loopback --host even if the rules let remote clients in without "
        "a password"))
    serve_parser.add_argument("--tls-cert", help="PEM certificate chain: offer TLS")
    serve_parser.add_argument("--tls-key", help="PEM private key of --tls-cert")
    serve_parser.add_argument("--http-port", type=int, help=(
        "serve the read-only dashboard on this port (0: a free one)"))
    serve_parser.add_argument("--http-host", default="127.0.0.1",
                              help="address of the dashboard (it asks for no password)")
    serve_parser.add_argument("--partition", metavar="I/N", help=(
        "serve partition I of a cluster of N nodes (default: the one the data directory "
        "recorded, else 0/1)"))
    serve_parser.add_argument("--log-level", choices=logs.LEVELS, default="INFO",
                              type=str.upper)
    serve_parser.add_argument("--log-format", choices=logs.FORMATS, default="text",
                              help="json: one JSON object per line")
    run_parser = client_parser(commands, "run", help=(
        "apply a SQL script to a running server, or to the data directory of one that is "
        "not running (--data-dir)"))
    run_parser.add_argument("script", help="a file of SQL statements, or - for standard input")
    run_parser.add_argument("--data-dir", help=(
        "start a server on this data directory for the script, then stop it"))
    bench_parser = commands.add_parser("bench", help="run a benchmark next to PostgreSQL")
    bench_parser.add_argument("name", choices=sorted(BENCHMARKS))
    bench_parser.add_argument("--size-mb", type=int, default=1000,
                              help="checkpoint: database size")
    bench_parser.add_argument("--rows", type=int, action="append",
                              help="spark: DataFrame size (repeatable; default 100,000 and "
                                   "1,000,000); matview: base relation size (default 10^3 "
                                   "to 10^6); cluster: events (default 200,000)")
    bench_parser.add_argument("--rounds", type=int, default=3)
    example = leaderboard_bench.EXAMPLE
    rules = bench_parser.add_argument_group(
        "leaderboard rules", "the example's (examples/leaderboard) unless given")
    rules.add_argument("--votes", type=int, default=leaderboard_bench.BENCH_VOTES,
                       help="votes per run")
    rules.add_argument("--contestants", type=int, default=example.contestants)
    rules.add_argument("--removal-every", type=int, default=example.removal_every,
                       help="valid votes between two removals of the lowest contestant")
    rules.add_argument("--window", type=int, default=example.window,
                       help="the trending window's size (ROWS n)")
    rules.add_argument("--slide", type=int, default=example.slide,
                       help="the trending window's slide (SLIDE m)")
    rules.add_argument("--votes-per-phone", type=int, default=example.votes_per_phone)
    bench_parser.add_argument("--peer", choices=("postgres", "none"), default="postgres")
    bench_parser.add_argument("--baseline", metavar="REV", help=(
        f"also run the sqlext workloads on git revision REV's code, and compare with it "
        f"({', '.join(WITH_BASELINE)})"))
    bench_parser.add_argument("--report", default="docs/benchmarks.md",
                              help="markdown file the result tables are appended to "
                                   "('' for none)")
    bench_parser.add_argument("--json", help="also write the results to this JSON file")
    graph_command.add_parser(commands)
    status_command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader went away (sqlext status | head): stop quietly, as psql does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    logs.configure(getattr(args, "log_level", "INFO"), getattr(args, "log_format", "text"))
    if args.command == "run":
        return _run(args)
    if args.command == "graph":
        return graph_command.run(args)
    if args.command == "status":
        return status_command.run(args)
    if args.command == "bench":
        if args.baseline and args.name not in WITH_BASELINE:
            print(f"sqlext bench: --baseline works with {', '.join(WITH_BASELINE)}",
                  file=sys.stderr)
            return 2
        output = Output(args.name, args.rounds, Path(args.report) if args.report else None,
                        Path(args.json) if args.json else None,
                        options=f" --baseline {args.baseline}" if args.baseline else "")
        try:
            BENCHMARKS[args.name](args, output)
        except (BenchmarkFailed, PeerUnavailable, BaselineUnavailable, SparkUnavailable) as exc:
            print(f"sqlext bench {args.name}: {exc}", file=sys.stderr)
            return 1
        return 0
    if args.command == "serve":
        if bool(args.tls_cert) != bool(args.tls_key):
            print("sqlext: --tls-cert and --tls-key go together", file=sys.stderr)
            return 2
        if args.in_memory:
            logging.getLogger("sqlext").warning(
                "in-memory mode: no command log, no snapshots; data does not survive a "
                "restart")
        options = ServerOptions(
            host=args.host, port=args.port, data_dir=args.data_dir, in_memory=args.in_memory,
            recovery=args.recovery, commandlog_timeout_ms=args.commandlog_timeout_ms,
            checkpoint_interval_s=args.checkpoint_interval_s,
            checkpoint_log_mb=args.checkpoint_log_mb, snapshots_kept=args.snapshots_kept,
            max_connections=args.max_connections,
            max_message_size=int(args.max_message_mb * 1024 * 1024),
            max_held_batches=args.max_held_batches, copy_dir=args.copy_dir,
            hba_file=args.hba_file, allow_remote_trust=args.allow_remote_trust,
            tls_cert=args.tls_cert, tls_key=args.tls_key, http_port=args.http_port,
            http_host=args.http_host, partition=args.partition,
        )
        try:
            with contextlib.suppress(KeyboardInterrupt):
                run(serve(options))
        except (DataDirectoryInUse, RecoveryError, LogError, HbaError, StartupRefused) as exc:
            print(f"sqlext: cannot start: {exc}", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"sqlext: could not listen on {args.host}:{args.port}: {exc.strerror}",
                  file=sys.stderr)
            return 1
        return 0
    return 2


def _run(args: argparse.Namespace) -> int:
    name = "stdin" if args.script == "-" else args.script
    try:
        text = sys.stdin.read() if args.script == "-" else Path(args.script).read_text()
        steps = script_steps(text)
    except (OSError, ScriptError, SqlError) as exc:
        print(f"sqlext run: {name}: {exc}", file=sys.stderr)
        return 1
    with contextlib.ExitStack() as stack:
        host, port = args.host, args.port
        if args.data_dir is not None:
            server = start_sqlext("--data-dir", args.data_dir)
            stack.callback(server.stop)
            host, port = server.host, server.port
        try:
            conn = stack.enter_context(connect(args, "run", host, port))
        except psycopg.OperationalError as exc:
            print(f"sqlext run: cannot connect to {host}:{port}: {exc}", file=sys.stderr)
            return 1
        succeeded = run_steps(conn, steps, name, progress=sys.stderr.isatty())
    return 0 if succeeded else 1


if __name__ == "__main__":
    sys.exit(main())
