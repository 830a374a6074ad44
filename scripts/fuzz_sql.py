#!/usr/bin/env python3
"""Long run of the SQL fuzzer (tests/fixtures/sql_fuzz.py) against a server
process of its own: random schemas and statement mixes, one schema and
connection per round; every failure must be a clean PostgreSQL error and the
server must stay up.

    .venv/bin/python scripts/fuzz_sql.py --statements 100000 --seed 1

Prints the statements sent, connections, duration, clean errors by SQLSTATE,
unclean errors and crashes (both must be 0) and the server's RSS at the
start and the end; exits non-zero on any unclean error or crash.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg

from tests.fixtures.servers import ServerProcess, rss_kb, start_server
from tests.fixtures.sql_fuzz import Fuzzer
from tests.fixtures.sql_fuzz_runner import Report, Session


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--statements", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--duration", type=float, help="stop after this many seconds")
    parser.add_argument("--per-schema", type=int, default=300,
                        help="statements per round (schema and connection)")
    parser.add_argument("--statement-timeout-ms", type=int, default=3000)
    parser.add_argument("--server-log", type=Path, help="write the server's log here")
    parser.add_argument("--trace", type=Path,
                        help="write every statement sent and its error, if any, here")
    args = parser.parse_args()
    print(f"fuzz: {args.statements} statements, seed {args.seed}, "
          f"{args.per_schema} per schema", flush=True)
    server = start_server("--in-memory")
    rss_start = rss_kb(server.process.pid)
    started = time.monotonic()
    deadline = started + args.duration if args.duration else None
    report = Report()
    seeds = random.Random(args.seed)
    trace = args.trace.open("w") if args.trace else None
    session = Session(connect=server.connect, alive=lambda: server.alive, report=report,
                      stop_server=lambda: server.stop(signal.SIGKILL),
                      statement_timeout_ms=args.statement_timeout_ms, trace=trace)
    rounds = shown = 0
    last_progress = started
    try:
        while report.statements < args.statements and not report.crashes:
            if deadline is not None and time.monotonic() > deadline:
                break
            seed = seeds.getrandbits(32)
            rounds += 1
            count = min(args.per_schema, args.statements - report.statements)
            session.run(Fuzzer(seed), count, deadline)
            for problem in report.unclean[shown:]:
                print(f"fuzz: UNCLEAN (round seed {seed}): {problem[:3000]}", flush=True)
            shown = len(report.unclean)
            if time.monotonic() - last_progress > 30:
                last_progress = time.monotonic()
                print(f"fuzz: {report.statements} statements, {rounds} rounds, "
                      f"{last_progress - started:.0f} s, {len(report.unclean)} unclean, "
                      f"RSS {rss_kb(server.process.pid) // 1024 if server.alive else 0} MB",
                      flush=True)
        alive = server.alive
        rss_end = rss_kb(server.process.pid) if alive else 0
        fresh_ok = alive and _fresh_connection_works(server)
    finally:
        server.stop()
        if trace is not None:
            trace.close()
        if args.server_log is not None:
            args.server_log.write_text("".join(server.log))
    tracebacks = sum("Traceback" in line for line in server.log)
    print(report.summary(limit=50))
    print(f"duration: {time.monotonic() - started:.0f} s ({rounds} rounds, seed {args.seed})")
    print(f"server RSS: start {rss_start // 1024} MB, end {rss_end // 1024} MB")
    print(f"server alive at the end: {alive}; fresh connection works: {fresh_ok}")
    print(f"tracebacks in the server log: {tracebacks}")
    ok = not report.failed and alive and fresh_ok
    print("fuzz: passed" if ok else "fuzz: FAILED")
    return 0 if ok else 1


def _fresh_connection_works(server: ServerProcess) -> bool:
    try:
        with server.connect(autocommit=True) as conn:
            return conn.execute("SELECT 1").fetchone() == (1,)
    except psycopg.Error:
        return False


if __name__ == "__main__":
    sys.exit(main())
