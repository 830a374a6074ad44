#!/usr/bin/env python3
"""Load/soak run: many concurrent connections mixing OLTP transactions,
CALLs, stream batches through a dataflow and reads of its window and
materialized views, against a server this script starts; checks no error,
no stall, flat server memory and a consistent final state (see
tests/fixtures/soak.py for what exactly).

    .venv/bin/python scripts/soak.py --connections 100 --duration 600
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fixtures.soak import SoakConfig, run_soak


@contextlib.contextmanager
def data_dir(args: argparse.Namespace) -> Iterator[Path | None]:
    """None in memory, else the given directory or a temporary one."""
    if args.in_memory:
        yield None
    elif args.data_dir:
        yield Path(args.data_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="sqlext-soak-") as scratch:
            yield Path(scratch)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=100)
    parser.add_argument("--duration", type=float, default=600.0, help="seconds")
    storage = parser.add_mutually_exclusive_group()
    storage.add_argument("--data-dir", help="default: a temporary directory")
    storage.add_argument("--in-memory", action="store_true",
                         help="no command log (default: durable)")
    parser.add_argument("--checkpoint-interval-s", type=float, default=60.0)
    parser.add_argument("--accounts", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--interval", type=float, default=5.0,
                        help="every client must finish an operation in every interval")
    parser.add_argument("--warmup", type=float, default=60.0,
                        help="seconds before the RSS baseline is taken")
    parser.add_argument("--rss-bound-mb", type=float, default=25.0,
                        help="allowed RSS growth after the warm-up")
    args = parser.parse_args()
    with data_dir(args) as directory:
        config = SoakConfig(connections=args.connections, duration_s=args.duration,
                            data_dir=directory, checkpoint_interval_s=args.checkpoint_interval_s,
                            accounts=args.accounts, seed=args.seed, interval_s=args.interval,
                            warmup_s=args.warmup, rss_bound_mb=args.rss_bound_mb)
        result = run_soak(config, report=lambda line: print(f"soak: {line}", flush=True))
    print("\n".join(f"soak: {line}" for line in result.summary().splitlines()))
    return 1 if result.problems() else 0


if __name__ == "__main__":
    sys.exit(main())
