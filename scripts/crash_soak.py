#!/usr/bin/env python3
"""Soak run of the crash loop: the Leaderboard fed by a pipelined client while
the server is SIGKILLed many times (default 100) and restarted on the same
data directory; at the end every acknowledged vote must have been processed
exactly once and the state must equal the benchmark's oracle.

    .venv/bin/python scripts/crash_soak.py --kills 100 --recovery strong
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlext.tools.bench.leaderboard_bench import generate_votes
from tests.fixtures.crash_loop import CrashLoop
from tests.fixtures.leaderboard_oracle import Oracle, assert_matches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--votes", type=int, default=100_000)
    parser.add_argument("--recovery", choices=("strong", "weak"), default="strong")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--longest-run-s", type=float, default=3.0,
                        help="a kill comes at a random moment up to this long after a restart")
    parser.add_argument("--data-dir", help="default: a temporary directory")
    args = parser.parse_args()
    votes = list(generate_votes(args.votes))
    oracle = Oracle()
    for vote in votes:
        oracle.vote(*vote)
    with tempfile.TemporaryDirectory(prefix="sqlext-soak-") as scratch:
        data_dir = Path(args.data_dir or scratch)
        print(f"soak: {args.kills} kills, {args.votes} votes, {args.recovery} recovery, "
              f"seed {args.seed}, data in {data_dir}", flush=True)
        started = time.monotonic()
        loop = CrashLoop(data_dir, recovery=args.recovery, kills=args.kills, seed=args.seed,
                         longest_run_s=args.longest_run_s,
                         report=lambda line: print(f"soak: {line}", flush=True))
        server = loop.run(votes)
        try:
            with server.connect(autocommit=True) as conn:
                conn.execute("SELECT sqlext_drain(600)")
                assert_matches(conn, oracle)
        finally:
            server.stop()
    print(f"soak: passed: {args.kills} kills, every vote exactly once, state equals the "
          f"oracle ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
