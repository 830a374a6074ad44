#!/usr/bin/env python3
"""Long protocol fuzzing run ([7] Hardening): random, truncated, mutated and
reordered frontend traffic, in process against the ``Connection`` state
machine on a real engine, and/or over sockets against a server process of
its own, until that many messages were sent; then a summary. Exits non-zero
on any unclean error or crash.

    .venv/bin/python scripts/fuzz_protocol.py --messages 1000000 [--live | --both] [--seed N]

Connection ``i`` sends ``generate(random.Random(f"{seed}:{i}"), ...)`` of
``tests.fixtures.protocol_fuzz``, so every failure report can be replayed.
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fixtures.protocol_fuzz import (
    FOCUSES,
    Case,
    EngineHarness,
    FuzzFailure,
    check_live,
    generate,
    prepare_live,
    run_live,
    write_rules,
)
from tests.fixtures.servers import ServerProcess, rss_kb, start_server

CASES_PER_ENGINE = 2000
"""A fresh in-process engine this often, so tables fuzzed into stay small."""
SHOWN_FAILURES = 8


@dataclass
class Tally:
    """What one mode did, and what went wrong."""

    mode: str
    messages: int = 0
    connections: int = 0
    errors: int = 0
    """Broken rules: unclean errors, malformed replies, no answer, lost data."""
    crashes: int = 0
    """An exception out of the state machine, or the server process gone."""
    started: float = field(default_factory=time.monotonic)
    kinds: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def failure(self, crash: bool, label: str, exc: BaseException) -> None:
        if crash:
            self.crashes += 1
        else:
            self.errors += 1
        summary = re.split(r": \[|\n", str(exc))[0][:160]  # without the replies shown
        kind = f"{type(exc).__name__}: {summary}"
        self.kinds[kind] += 1
        if self.kinds[kind] == 1 and len(self.notes) < SHOWN_FAILURES:
            detail = "".join(traceback.format_exception(exc)) if crash else str(exc)[:2000]
            self.notes.append(f"{label}:\n{detail}")

    def progress(self) -> str:
        elapsed = time.monotonic() - self.started
        return (f"{self.mode}: {self.messages:,} messages, {self.connections:,} connections, "
                f"{elapsed:.0f} s ({self.messages / max(elapsed, 1e-9):,.0f} messages/s), "
                f"errors {self.errors}, crashes {self.crashes}")


def _case(seed: int, index: int, per_connection: int) -> Case:
    return generate(random.Random(f"{seed}:{index}"), per_connection,
                    FOCUSES[index % len(FOCUSES)])


def _label(seed: int, index: int) -> str:
    return f"connection {index} (seed {seed}, focus {FOCUSES[index % len(FOCUSES)]})"


def fuzz_in_process(args: argparse.Namespace, report: Callable[[Tally], None]) -> Tally:
    tally = Tally("in-process")
    harness = EngineHarness()
    try:
        for index in itertools.count():
            if tally.messages >= args.messages:
                break
            if index and index % CASES_PER_ENGINE == 0:
                harness.close()
                harness = EngineHarness()
            case = _case(args.seed, index, args.per_connection)
            tally.connections += 1
            try:
                tally.messages += harness.run(case)
            except FuzzFailure as exc:
                tally.messages += case.messages_in(len(case.data))
                tally.failure(False, _label(args.seed, index), exc)
            except Exception as exc:
                tally.messages += case.messages_in(len(case.data))
                tally.failure(True, _label(args.seed, index), exc)
                harness.close()  # whatever it left behind goes with it
                harness = EngineHarness()
            report(tally)
    finally:
        harness.close()
    return tally




class LiveServer:
    """The server process under test; restarted if it dies or gets stuck."""

    def __init__(self, rules: Path) -> None:
        self.rules = rules
        self.process = self._start()
        self.rss_start_kb = rss_kb(self.process.process.pid)
        self.rss_end_kb = self.rss_start_kb
        self.restarts = 0

    def _start(self) -> ServerProcess:
        server = start_server("--in-memory", "--hba-file", str(self.rules))
        prepare_live(server)
        return server

    def empty_tables(self) -> None:
        """Rows fuzzed into go, so that RSS growth means leaks, not data."""
        with self.process.connect(autocommit=True, connect_timeout=10) as connection:
            connection.execute("DELETE FROM fz")
            connection.execute("DELETE FROM fz_out")

    def restart(self) -> str:
        """Start over; returns the end of the old server's log."""
        log = "".join(self.process.log[-40:])
        self.process.stop()
        self.process = self._start()
        self.restarts += 1
        return log

    def stop(self) -> None:
        if self.process.alive:
            self.rss_end_kb = rss_kb(self.process.process.pid)
        self.process.stop()


def fuzz_live(args: argparse.Namespace, report: Callable[[Tally], None]) -> tuple[Tally, str]:
    tally = Tally("live")
    with tempfile.TemporaryDirectory(prefix="sqlext-fuzz-") as scratch:
        server = LiveServer(write_rules(Path(scratch)))
        try:
            for index in itertools.count():
                if tally.messages >= args.messages:
                    break
                case = _case(args.seed, index, args.per_connection)
                label = _label(args.seed, index)
                tally.connections += 1
                try:
                    tally.messages += run_live(server.process.host, server.process.port, case)
                except FuzzFailure as exc:
                    tally.messages += case.messages_in(len(case.data))
                    tally.failure(False, label, exc)
                except OSError as exc:  # refused or reset at connect: the server is gone
                    tally.failure(True, label, exc)
                if index % args.check_every == 0 or tally.messages >= args.messages:
                    try:
                        check_live(server.process)
                        server.empty_tables()
                    except FuzzFailure as exc:
                        died = not server.process.alive
                        log = server.restart()
                        tally.failure(died, f"after {label}", FuzzFailure(f"{exc}\n{log}"))
                report(tally)
        finally:
            server.stop()
    return tally, (f"server RSS {server.rss_start_kb / 1024:.1f} MB at start, "
                   f"{server.rss_end_kb / 1024:.1f} MB at the end, {server.restarts} restarts")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1_000_000,
                        help="messages to send (in each mode)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--live", action="store_true",
                       help="only against a live server process")
    group.add_argument("--both", action="store_true", help="in process, then live")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--per-connection", type=int, default=40,
                        help="about this many messages per connection")
    parser.add_argument("--check-every", type=int, default=25,
                        help="live: a psycopg health check after this many connections")
    parser.add_argument("--report-s", type=float, default=60.0,
                        help="a progress line this often")
    args = parser.parse_args()
    print(f"fuzz_protocol: seed {args.seed}, {args.messages:,} messages per mode", flush=True)
    last = time.monotonic()

    def report(tally: Tally) -> None:
        nonlocal last
        if time.monotonic() - last >= args.report_s:
            last = time.monotonic()
            print(f"fuzz_protocol: ... {tally.progress()}", flush=True)

    results: list[tuple[Tally, str]] = []
    if not args.live:
        results.append((fuzz_in_process(args, report), ""))
    if args.live or args.both:
        results.append(fuzz_live(args, report))
    failed = False
    for tally, extra in results:
        for note in tally.notes:
            print(f"fuzz_protocol: {tally.mode} failure in {note}\n", flush=True)
        for kind, count in tally.kinds.most_common():
            print(f"fuzz_protocol: {tally.mode}: {count} x {kind}")
        print(f"fuzz_protocol: {tally.progress()}" + (f", {extra}" if extra else ""))
        failed |= tally.errors + tally.crashes > 0
    print(f"fuzz_protocol: {'FAILED' if failed else 'passed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
