"""Running benchmark variants: servers to start, rounds, medians, reports."""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from tempfile import TemporaryDirectory

import psycopg

from sqlext.progress import Progress
from sqlext.tools.bench.baseline import Baseline
from sqlext.tools.peer import PostgresPeer
from sqlext.tools.processes import sqlext_server


@dataclass(frozen=True)
class Measured:
    """What one run of a variant gives: its rate and, for workloads whose
    variants must end in the same state, that state (compared after every
    round; the benchmark fails when two differ)."""

    rate: float
    state: object = None


@dataclass
class Variant:
    """One workload on one target: ``run(dsn)`` returns operations per second."""

    workload: str
    target: str
    """Where it runs: 'sqlext', 'postgres' or 'local' (no server: ``run('')``)."""
    run: Callable[[str], Measured]
    server: tuple[str, ...] = ("--in-memory",)
    """sqlext's options (``{data_dir}`` becomes a fresh temporary directory)."""
    versus: str | None = None
    """The label of the variant this one's rate is compared with; by default
    the PostgreSQL variant of the same workload."""
    agrees_with: str = ""
    """Variants with the same non-empty key here must end in the same state
    (default: those of the same workload)."""
    source: Path | None = None
    """For a sqlext target: the checkout whose code its server runs (None:
    this one; a baseline revision's worktree otherwise)."""

    @property
    def state_group(self) -> str:
        return self.agrees_with or self.workload

    @property
    def label(self) -> str:
        return f"{self.target}: {self.workload}"

    @property
    def on_sqlext(self) -> bool:
        return self.target == "sqlext" or self.source is not None


@dataclass
class Result:
    variant: Variant
    rates: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.rates)


def use_schema(conn: psycopg.Connection, name: str) -> None:
    """Create schema ``name`` and make it the connection's first."""
    conn.execute(f"CREATE SCHEMA {name}")
    conn.execute(f"SET search_path = {name}")


def timed_run(setup: Callable[[psycopg.Connection], object],
              work: Callable[[psycopg.Connection], object], operations: int,
              state: Callable[[psycopg.Connection], object] | None = None
              ) -> Callable[[str], Measured]:
    """A variant's ``run``: connect, ``setup`` in a schema of its own (so
    rounds never see each other's data), time ``work`` (``operations``
    of them), then read the final ``state`` the variants must agree on."""
    def run(dsn: str) -> Measured:
        with psycopg.connect(dsn, autocommit=True) as conn:
            use_schema(conn, f"bench_{time.monotonic_ns()}")
            setup(conn)
            started = time.perf_counter()
            work(conn)
            rate = operations / (time.perf_counter() - started)
            return Measured(rate, state(conn) if state is not None else None)
    return run


class BenchmarkFailed(RuntimeError):
    """Variants that must agree ended in different states."""


def machine_description() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    return (f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}, server event loop: {loop}")


@dataclass(frozen=True)
class Column:
    header: str
    format: str = ""
    """A format spec for numbers (``",.0f"``); text columns leave it empty."""

    def cell(self, value: object) -> str:
        if value is None:
            return ""
        return format(value, self.format) if self.format else str(value)


@dataclass
class Table:
    """A result table: written as markdown to the report and as raw values to
    the JSON file."""

    title: str
    columns: list[Column]
    rows: list[list[object]] = field(default_factory=list)

    def markdown(self) -> str:
        lines = ["| " + " | ".join(c.header for c in self.columns) + " |",
                 "|" + "|".join("---:" if c.format else "---" for c in self.columns) + "|"]
        lines += ["| " + " | ".join(c.cell(v) for c, v in zip(self.columns, row, strict=True))
                  + " |" for row in self.rows]
        return "\n".join(lines)

    def as_json(self) -> dict[str, object]:
        headers = [c.header for c in self.columns]
        return {"title": self.title,
                "rows": [dict(zip(headers, row, strict=True)) for row in self.rows]}


@dataclass
class Output:
    """Where a benchmark's tables go besides the terminal: appended to the
    markdown ``report``, and all of one run's tables into ``json``."""

    benchmark: str
    rounds: int
    report: Path | None = None
    json: Path | None = None
    options: str = ""
    """Further command-line options the report repeats (`` --baseline REV``)."""
    tables: list[Table] = field(default_factory=list)

    def publish(self, table: Table) -> None:
        print(f"\n{table.title}\n\n{table.markdown()}", flush=True)
        self.tables.append(table)
        if self.report is not None:
            with self.report.open("a", encoding="utf-8") as handle:
                handle.write(f"\n### {table.title} ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)\n\n")
                handle.write(f"Command: `sqlext bench {self.benchmark} --rounds {self.rounds}"
                             f"{self.options}`. "
                             f"Machine: {machine_description()}.\n\n")
                handle.write(table.markdown() + "\n")
        if self.json is not None:
            self.json.write_text(json.dumps({
                "benchmark": self.benchmark, "rounds": self.rounds,
                "machine": machine_description(), "date": datetime.now(UTC).isoformat(),
                "tables": [t.as_json() for t in self.tables]}, indent=2) + "\n")


def run_variants(title: str, variants: list[Variant], output: Output,
                 with_peer: bool = True, baseline: Baseline | None = None) -> list[Result]:
    """Every round runs every variant once, on servers started here (one per
    distinct set of sqlext options and code, and the PostgreSQL peer when a
    variant needs it and ``with_peer``). With a ``baseline``, each sqlext
    variant runs on its code too, and is compared with that."""
    if baseline is not None:
        variants = with_baseline(variants, baseline, with_peer)
    results = [Result(v) for v in variants if with_peer or v.target != "postgres"]
    needs_peer = any(r.variant.target == "postgres" for r in results)
    with ExitStack() as servers:
        peer = servers.enter_context(PostgresPeer()) if needs_peer else None
        dsns: dict[tuple[Path | None, tuple[str, ...]], str] = {}
        for variant in (r.variant for r in results if r.variant.on_sqlext):
            key = (variant.source, variant.server)
            if key not in dsns:
                data_dir = servers.enter_context(TemporaryDirectory(prefix="sqlext-bench-"))
                args = [a.replace("{data_dir}", data_dir) for a in variant.server]
                dsns[key] = servers.enter_context(sqlext_server(*args, source=variant.source))
        progress = Progress(f"sqlext bench {output.benchmark}", output.rounds * len(results),
                            "runs")
        for round_number in range(1, output.rounds + 1):
            states: dict[str, dict[str, object]] = {}
            # odd rounds forwards, even ones backwards: drift in the machine's
            # speed during a round favours no variant
            for result in results if round_number % 2 else results[::-1]:
                variant = result.variant
                dsn = ""
                if variant.on_sqlext:
                    dsn = dsns[(variant.source, variant.server)]
                elif peer is not None and variant.target == "postgres":
                    dsn = peer.dsn
                measured = variant.run(dsn)
                result.rates.append(measured.rate)
                if measured.state is not None:
                    states.setdefault(variant.state_group, {})[variant.label] = measured.state
                line = f"round {round_number}/{output.rounds} {variant.label}: " \
                       f"{measured.rate:,.0f}/s"
                if progress.terminal:
                    progress.advance(note=line)
                else:
                    print(f"  {line}", flush=True)
            for group in states.values():
                _check_same_state(group)
        progress.finish()
    output.publish(results_table(title, results))
    return results


def with_baseline(variants: list[Variant], baseline: Baseline, with_peer: bool
                  ) -> list[Variant]:
    """Each sqlext variant followed by its twin on the baseline's code; the
    current code is compared with the twin, the twin with PostgreSQL."""
    paired: list[Variant] = []
    for variant in variants:
        if variant.target != "sqlext":
            paired.append(variant)
            continue
        versus = variant.versus or (f"postgres: {variant.workload}" if with_peer else None)
        if versus is not None and versus.startswith("sqlext: "):  # another sqlext variant:
            versus = f"{baseline.target}: {versus.removeprefix('sqlext: ')}"  # its twin
        twin = replace(variant, target=baseline.target, source=baseline.source,
                       agrees_with=variant.state_group, versus=versus)
        paired += [replace(variant, versus=twin.label, agrees_with=variant.state_group), twin]
    return paired


def _check_same_state(states: dict[str, object]) -> None:
    if not states:
        return
    first_label, first = next(iter(states.items()))
    differing = [label for label, state in states.items() if state != first]
    if differing:
        raise BenchmarkFailed(f"final states differ: {', '.join(differing)} did not end "
                              f"in the state of {first_label}")


def results_table(title: str, results: list[Result]) -> Table:
    """Median and range per variant, and its rate relative to the variant it
    is compared with, measured in the same run."""
    medians = {r.variant.label: r.median for r in results}
    table = Table(title, [Column("workload"), Column("server"), Column("median/s", ",.0f"),
                          Column("min/s", ",.0f"), Column("max/s", ",.0f"),
                          Column("compared with"), Column("ratio (x)", ".2f")])
    for result in results:
        variant = result.variant
        versus = variant.versus or (f"postgres: {variant.workload}"
                                    if variant.target == "sqlext" else None)
        base = medians.get(versus) if versus else None
        table.rows.append([variant.workload, variant.target, result.median, min(result.rates),
                           max(result.rates), versus if base else None,
                           result.median / base if base else None])
    return table
