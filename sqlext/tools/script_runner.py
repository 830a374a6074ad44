"""``sqlext run script.sql``: a script applied through a client connection,
one statement at a time (each commits on its own unless the script says
BEGIN). Results print as psql prints them; the first error stops the run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Final, TextIO

import psycopg

from sqlext.progress import Progress
from sqlext.tools.script import ClientCopy, Step

COPY_CHUNK = 1 << 20
RIGHT_ALIGNED: Final = frozenset((20, 21, 23, 26, 28, 29, 700, 701, 790, 1700, 5069))
"""The type OIDs psql aligns to the right: int8, int2, int4, oid, xid, cid,
float4, float8, money, numeric, xid8 (``column_type_alignment`` in psql)."""


def run_steps(conn: psycopg.Connection, steps: list[Step], name: str,
              out: TextIO = sys.stdout, progress: bool = False) -> bool:
    """Runs ``steps``; False (after printing the error) if one failed."""
    counter = Progress(f"{name}", len(steps), "statements") if progress else None
    for step in steps:
        try:
            if step.copy is not None:
                tag = _client_copy(conn, step.copy, progress)
            else:
                tag = _statement(conn, step.sql, out)
        except psycopg.Error as exc:
            _report(name, step, exc)
            return False
        except OSError as exc:
            print(f"{name}:{step.line}: {exc}", file=sys.stderr)
            return False
        if tag is not None:
            print(tag, file=out)
        if counter is not None:
            counter.advance()
    if counter is not None:
        counter.finish()
    return True


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


def print_table(cursor: psycopg.Cursor[Any], out: TextIO) -> None:
    """A result in psql's aligned format: the values' PostgreSQL text forms,
    centred headers, numbers to the right, no trailing blanks."""
    result = cursor.pgresult
    assert result is not None and cursor.description is not None
    names = [column.name for column in cursor.description]
    shown = [["" if (value := result.get_value(row, column)) is None else value.decode()
              for column in range(result.nfields)] for row in range(result.ntuples)]
    widths = [max([len(name), *(len(row[i]) for row in shown)]) for i, name in enumerate(names)]
    numeric = [result.ftype(column) in RIGHT_ALIGNED for column in range(result.nfields)]
    print(" " + " | ".join(_centred(name, width) for name, width in zip(names, widths,
                                                                        strict=True)) + " ",
          file=out)
    print("-" + "-+-".join("-" * width for width in widths) + "-", file=out)
    for row in shown:
        cells = [value.rjust(width) if numeric[i] else value.ljust(width)
                 for i, (value, width) in enumerate(zip(row, widths, strict=True))]
        print((" " + " | ".join(cells)).rstrip(), file=out)
    print(f"({len(shown)} row{'' if len(shown) == 1 else 's'})\n", file=out)


def _centred(name: str, width: int) -> str:
    """As psql centres a header: an odd blank goes to the right."""
    left = (width - len(name)) // 2
    return " " * left + name + " " * (width - len(name) - left)


def _report(name: str, step: Step, exc: psycopg.Error) -> None:
    diagnostic = exc.diag
    severity = diagnostic.severity or "ERROR"
    message = diagnostic.message_primary or str(exc).strip()
    print(f"{name}:{step.line}: {severity}:  {message}", file=sys.stderr)
    for label, text in (("DETAIL", diagnostic.message_detail),
                        ("HINT", diagnostic.message_hint)):
        if text:
            print(f"{label}:  {text}", file=sys.stderr)
