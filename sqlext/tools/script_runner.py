"""``sqlext run script.sql``: a script applied through a client connection,
one statement at a time (each commits on its own unless the script says
BEGIN). Results print as psql prints them; the first error stops the run."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import psycopg

from sqlext.progress import Progress
from sqlext.tools.client_options import first_line
from sqlext.tools.psql_tables import print_table
from sqlext.tools.script import ClientCopy, Step

COPY_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class StepFailed:
    """The step that stopped a run, and why."""

    step: Step
    sqlstate: str | None
    """None: no SQLSTATE (a file on this side, or a connection that was lost)."""
    message: str


def run_steps(conn: psycopg.Connection, steps: list[Step], name: str,
              out: TextIO = sys.stdout, progress: bool = False,
              label: str = "") -> StepFailed | None:
    """Runs ``steps``; the failure (after printing the error, each line of it
    after ``label``) if one failed."""
    counter = Progress(f"{label}{name}", len(steps), "statements") if progress else None
    for step in steps:
        try:
            if step.copy is not None:
                tag = _client_copy(conn, step.copy, progress)
            else:
                tag = _statement(conn, step.sql, out)
        except psycopg.Error as exc:
            return _report(f"{label}{name}", step, exc)
        except OSError as exc:
            print(f"{label}{name}:{step.line}: {exc}", file=sys.stderr)
            return StepFailed(step, None, str(exc))
        if tag is not None:
            print(tag, file=out)
        if counter is not None:
            counter.advance()
    if counter is not None:
        counter.finish()
    return None


def _statement(conn: psycopg.Connection, sql: str, out: TextIO) -> str | None:
    """Runs ``sql``: its rows as a table, or (as psql) its command tag."""
    cursor = conn.execute(sql)
    if cursor.description is not None:
        print_table(cursor, out)
        return None
    return cursor.statusmessage or ""


def _client_copy(conn: psycopg.Connection, copy: ClientCopy, progress: bool) -> str:
    path = Path(copy.path)
    with conn.cursor() as cursor:
        if copy.reading:
            meter = Progress(f"COPY {path.name}", path.stat().st_size, "bytes") if (
                progress) else None
            with path.open("rb") as source, cursor.copy(copy.sql) as sink:
                while chunk := source.read(COPY_CHUNK):
                    sink.write(chunk)
                    if meter is not None:
                        meter.advance(len(chunk))
            if meter is not None:
                meter.finish()
        else:
            with path.open("wb") as target, cursor.copy(copy.sql) as source:
                for chunk in source:
                    target.write(chunk)
        return cursor.statusmessage or f"COPY {cursor.rowcount}"


def _report(where: str, step: Step, exc: psycopg.Error) -> StepFailed:
    diagnostic = exc.diag
    severity = diagnostic.severity or "ERROR"
    message = diagnostic.message_primary or first_line(exc)
    print(f"{where}:{step.line}: {severity}:  {message}", file=sys.stderr)
    for label, text in (("DETAIL", diagnostic.message_detail),
                        ("HINT", diagnostic.message_hint)):
        if text:
            print(f"{label}:  {text}", file=sys.stderr)
    return StepFailed(step, exc.sqlstate, message)
