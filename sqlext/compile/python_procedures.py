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
bytes; booleans are 0 and 1; dates and timestamps are ISO text; numeric
values are ``decimal.Decimal`` both ways (their storage forms are not for
people: ``executor.codecs.numeric_storage``), computed with 1000 digits of
precision in the body. Only
superusers may create such procedures: the code runs inside the server.
The body compiles once per text.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from decimal import Decimal, localcontext
from functools import lru_cache
from types import CodeType, FunctionType
from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.dataflow import Parameter, Procedure
from executor import codecs
from executor.codecs import numeric

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


_DECIMAL_DIGITS: Final = 1000
"""Decimal arithmetic in a body keeps this many digits (Python's default is
28: a numeric(38,10) sum would round)."""


def run(procedure: Procedure, args: Sequence[Any], sql: SqlRunner,
        notice: Callable[[object], None]) -> None:
    code = compile_body(procedure.body, parameter_names(procedure.params), procedure.name)
    namespace: dict[str, Any] = {"sql": sql, "notice": notice, "__builtins__": __builtins__}
    exec(code, namespace)
    function: FunctionType = namespace[_ENTRY]
    values = [from_storage(value, param.type_oid)
              for value, param in zip(args, procedure.params, strict=False)]
    try:
        with localcontext(prec=_DECIMAL_DIGITS):
            function(*values)
    except errors.SqlError:
        raise
    except Exception as exc:
        raise errors.RaiseException(str(exc) or type(exc).__name__) from exc


def from_storage(value: Any, oid: int, typmod: int = -1) -> Any:
    """A storage value as the body sees it (numeric: a Decimal)."""
    if oid == t.NUMERIC and value is not None:
        return numeric.exact(value, typmod)
    return value


def to_storage(value: Any, oid: int, typmod: int) -> Any:
    """A value the body passes to ``sql()`` as the parameter of type
    ``oid`` stores it (a number for a numeric parameter: its storage form)."""
    if oid == t.NUMERIC and isinstance(value, int | float | Decimal):
        return codecs.text_decoder(oid, typmod)(str(value))
    return value
