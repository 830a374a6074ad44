"""The steps of a SQL script for ``sqlext run``: its statements, one at a
time as psql sends them, and psql's ``\\copy`` lines (which read or write a
file on the client's side). Other backslash commands are refused."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from catalog.errors import SqlError
from sqlext.sql import nodes as x
from sqlext.sql.parse import parse, statement_texts


class ScriptError(Exception):
    """A line of the script that cannot be run."""


@dataclass(frozen=True, slots=True)
class ClientCopy:
    """``\\copy target FROM|TO 'file' [options]``."""

    sql: str
    """The COPY statement the server runs (``FROM STDIN`` / ``TO STDOUT``)."""
    path: str
    reading: bool
    """FROM: the file's contents go to the server."""


@dataclass(frozen=True, slots=True)
class Step:
    line: int
    """Where it starts in the script (1-based)."""
    sql: str
    copy: ClientCopy | None = None


TRANSACTION_CONTROL: Final = (x.Begin, x.CommitTransaction, x.RollbackTransaction,
                               x.PrepareTransaction, x.FinishPrepared)
"""Statements that begin or end a transaction (savepoints only nest)."""

_COPY = re.compile(r"\\copy\s+(?P<target>.+?)\s+(?P<direction>from|to)\s+"
                   r"(?P<path>'(?:[^']|'')*'|\S+)(?P<options>.*)$", re.IGNORECASE)


def script_steps(text: str) -> list[Step]:
    """Backslash commands stand on lines of their own, at the line's start."""
    steps: list[Step] = []
    chunk: list[str] = []
    chunk_line = 1
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if line.startswith("\\"):
            steps.extend(_statements("".join(chunk), chunk_line))
            steps.append(_backslash(line.strip(), number))
            chunk, chunk_line = [], number + 1
        else:
            chunk.append(line)
    steps.extend(_statements("".join(chunk), chunk_line))
    return steps


def _statements(text: str, first_line: int) -> list[Step]:
    return [Step(first_line + text.count("\n", 0, offset), sql)
            for offset, sql in statement_texts(text)]


def _backslash(command: str, line: int) -> Step:
    match = _COPY.match(command.rstrip(";"))
    if match is None:
        name = command.split()[0]
        raise ScriptError(f"line {line}: {name} is not supported (of psql's backslash "
                          "commands, scripts may use \\copy)")
    path = match["path"]
    if path.startswith("'"):
        path = path[1:-1].replace("''", "'")
    reading = match["direction"].lower() == "from"
    where = "FROM STDIN" if reading else "TO STDOUT"
    return Step(line, command, ClientCopy(f"COPY {match['target']} {where}{match['options']}",
                                          path, reading))


def check_for_cluster(steps: list[Step]) -> None:
    """A script ``sqlext run --cluster`` can apply: each node runs it whole
    as one transaction, so the script may not end that transaction itself,
    and it writes no file here (every node would write it in turn). A
    statement that does not parse is left to the nodes to refuse."""
    for step in steps:
        if step.copy is not None:
            if not step.copy.reading:
                raise ScriptError(f"line {step.line}: \\copy ... TO is not supported in a "
                                  "cluster script (every node would write the file in turn)")
            continue
        try:
            statements = parse(step.sql).statements
        except SqlError:
            continue
        if any(isinstance(statement, TRANSACTION_CONTROL) for statement in statements):
            raise ScriptError(
                f"line {step.line}: {step.sql.split(maxsplit=1)[0].upper()} is not supported "
                "in a cluster script: each node runs the whole script as one transaction "
                "(SAVEPOINT works)")
