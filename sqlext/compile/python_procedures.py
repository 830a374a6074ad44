"""LANGUAGE python procedures: control flow around SQL.

The body is the body of a Python function whose arguments are the
procedure's parameters, in order and by name. Inside it:

* ``sql(statement, *args)`` runs one SELECT, INSERT, UPDATE, DELETE, CALL or NOTIFY
  in the procedure's transaction (``$1``, ``$2``... take ``args``) and
  returns its rows as a list of tuples (empty for statements without rows);
* ``notice(message)`` sends a NOTICE to the client;
* raising any exception aborts the procedure: its transaction rolls back and
  the client gets the error (SQL errors keep their SQLSTATE, anything else
  is P0001 with the exception's message).

Values arrive and leave in their storage form: integers, floats, text and
bytes; booleans are 0 and 1; dates and timestamps are ISO text. Only
superusers may create such procedures: the code runs inside the server.
The body compiles once per text.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from functools import lru_cache
from types import CodeType, FunctionType
from typing import Any

from catalog import errors
from catalog.dataflow import Parameter, Procedure

SqlRunner = Callable[..., list[tuple[Any, ...]]]
_ENTRY = "procedure_body"


@lru_cache(maxsize=256)
def compile_body(body: str, params: tuple[str, ...], name: str) -> CodeType:
    """The body as a function definition (raises 42601 on a syntax error)."""
    source = f"def {_ENTRY}({', '.join(params)}):\n" + textwrap.indent(
        textwrap.dedent(body).strip("\n") or "pass", "    ")
    try:
        return compile(source, f"<procedure {name}>", "exec")
    except SyntaxError as exc:
        line = (exc.lineno or 2) - 1
        raise errors.SqlSyntaxError(f"syntax error in procedure {name}, line {line}: "
                                    f"{exc.msg}") from None


def parameter_names(params: Sequence[Parameter]) -> tuple[str, ...]:
    """The Python argument names (unnamed parameters are arg1, arg2...)."""
    return tuple(p.name or f"arg{number}" for number, p in enumerate(params, 1))


def run(procedure: Procedure, args: Sequence[Any], sql: SqlRunner,
        notice: Callable[[object], None]) -> None:
    code = compile_body(procedure.body, parameter_names(procedure.params), procedure.name)
    namespace: dict[str, Any] = {"sql": sql, "notice": notice, "__builtins__": __builtins__}
    exec(code, namespace)
    function: FunctionType = namespace[_ENTRY]
    try:
        function(*args)
    except errors.SqlError:
        raise
    except Exception as exc:
        raise errors.RaiseException(str(exc) or type(exc).__name__) from exc
