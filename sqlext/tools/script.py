"""The steps of a SQL script for ``sqlext run``: its statements, one at a
time as psql sends them, and psql's ``\\copy`` lines (which read or write a
file on the client's side). Other backslash commands are refused."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlext.sql.parse import statement_texts


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
