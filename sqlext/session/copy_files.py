"""COPY to and from files on the server: text, CSV, binary and Parquet.

As in PostgreSQL, reading and writing server files is for superusers. The
files are also confined to one directory, the server's ``--copy-dir``: a
relative name is taken inside it, an absolute one must lie inside it.
Parquet is the way bulk data leaves sqlext for Spark and other engines
(``COPY table|stream|(query) TO 'f.parquet' (FORMAT parquet)``) and comes
back in (``COPY table FROM 'f.parquet' (FORMAT parquet)``, columns matched by
name). Rows read from a file go through the same INSERT as COPY FROM STDIN
and are written to the command log as rows, so recovery never needs the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlglot import exp

from catalog import errors
from sqlext.session.copy_arrow import insert_batches, query_batches
from sqlext.session.copy_out import CopyTo
from sqlext.session.copy_stdio import (
    BATCH_ROWS,
    copy_format,
    copy_kind,
    copy_sink,
    insert_target,
)
from sqlext.sql import nodes as x
from storage import datafiles
from wire.backend import Command, Outcome

if TYPE_CHECKING:
    from sqlext.session.engine_session import EngineSession

_NO_SUPERUSER_HINT = ("Anyone can COPY to stdout or from stdin. "
                      "psql's \\copy command also works for anyone.")


def server_file(session: EngineSession, name: str, writing: bool) -> Path:
    """The path COPY may use for the file ``name`` (raises otherwise)."""
    if not session.is_superuser:
        role, direction = (("pg_write_server_files", "to") if writing
                           else ("pg_read_server_files", "from"))
        raise errors.InsufficientPrivilege(
            f"must be superuser or have privileges of the {role} role to COPY "
            f"{direction} a file", hint=_NO_SUPERUSER_HINT)
    root = session.host.copy_dir
    if root is None:
        raise errors.InsufficientPrivilege(
            "COPY to or from a file on the server is disabled: the server has no COPY "
            "directory", hint="Start the server with --copy-dir DIR (a server with a data "
                              "directory uses DATA_DIR/files), or use COPY ... FROM STDIN / "
                              "TO STDOUT (psql: \\copy).")
    path = (root / name).resolve()
    if not path.is_relative_to(root):
        raise errors.InsufficientPrivilege(
            f'could not use file "{name}": it is outside the COPY directory "{root}"')
    if writing:
        root.mkdir(parents=True, exist_ok=True)
    return path


def _file_error(exc: OSError, name: str, writing: bool) -> errors.SqlError:
    direction = "writing" if writing else "reading"
    message = f'could not open file "{name}" for {direction}: {exc.strerror or exc}'
    if isinstance(exc, FileNotFoundError):
        return errors.UndefinedFile(message)
    if isinstance(exc, PermissionError):
        return errors.InsufficientPrivilege(message)
    return errors.IoError(message)


def copy_file(session: EngineSession, statement: x.CopyStatement) -> Outcome:
    """COPY ... TO 'file' / FROM 'file'."""
    name = str(statement.args["target"])
    writing = bool(statement.args.get("to"))
    options = statement.args.get("options") or {}
    kind = copy_kind(options)
    if kind == "arrow":
        raise errors.FeatureNotSupported(
            "COPY FORMAT arrow works with STDIN and STDOUT, not files on the server",
            hint="Use FORMAT parquet for files.")
    path = server_file(session, name, writing)
    columns: list[str] = list(statement.args.get("columns") or [])
    parquet = kind == "parquet"
    try:
        if writing:
            count = (_parquet_to(session, statement.this, columns, path) if parquet
                     else _text_to(session, statement.this, columns, path, options))
        else:
            where = statement.args.get("where")
            count = (_parquet_from(session, statement.this, columns, path, name, where)
                     if parquet else _text_from(session, statement.this, columns, path,
                                                options, where))
    except OSError as exc:
        raise _file_error(exc, name, writing) from exc
    except datafiles.ParquetError as exc:
        raise errors.BadCopyFileFormat(f'"{name}" is not a readable Parquet file: {exc}') from exc
    return Command(f"COPY {count}")


# --- text, CSV and binary -------------------------------------------------------------

def _text_to(session: EngineSession, source: exp.Expression, columns: list[str], path: Path,
             options: dict[str, object]) -> int:
    output = CopyTo(session, source, columns, copy_format(options))
    datafiles.write_bytes(path, output.data())
    return output.count


def _text_from(session: EngineSession, table: exp.Expression, columns: list[str], path: Path,
               options: dict[str, object], where: exp.Expression | None) -> int:
    sink = copy_sink(session, table, columns, copy_format(options), where)
    for chunk in datafiles.read_chunks(path):
        sink.write(chunk)
    sink.finish()
    return sink.count


# --- Parquet --------------------------------------------------------------------------

def _parquet_to(session: EngineSession, source: exp.Expression, columns: list[str],
                path: Path) -> int:
    schema, batches = query_batches(session, source, columns)
    return datafiles.write_parquet(path, schema, batches)


def _parquet_from(session: EngineSession, table: exp.Expression, columns: list[str],
                  path: Path, name: str, where: exp.Expression | None) -> int:
    target = insert_target(session, table, columns, where)
    return insert_batches(session, target, datafiles.parquet_columns(path),
                          datafiles.read_parquet(path, target.columns, BATCH_ROWS),
                          f'Parquet file "{name}"')
