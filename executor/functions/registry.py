"""Every SQL function sqlext knows, gathered from the families, and putting
their implementations on the database.

``FUNCTIONS`` is what the translator reads (PostgreSQL name ->
``FunctionDef``); ``register_functions`` makes each implementation once per
server and registers it under its SQLite name. A function that fails records
its PostgreSQL error in the statement context before raising, so the client
sees the right SQLSTATE rather than SQLite's "user-defined function raised
exception".
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any, Final

from catalog import errors
from executor.core import Executor
from executor.functions import (
    advisory_locks,
    aggregates,
    array_edits,
    array_functions,
    catalog_info,
    conditionals,
    datetime_functions,
    extension_functions,
    formatting_functions,
    json_aggregates,
    json_constructors,
    json_functions,
    json_paths,
    json_rows,
    jsonb_edits,
    jsonb_path_queries,
    keyword_list,
    listen_notify,
    math_functions,
    network_functions,
    numeric_functions,
    ordered_aggregates,
    partitions,
    privilege_info,
    record_text,
    reflection_info,
    regex_functions,
    rewrites,
    row_packing,
    sequences,
    session_info,
    session_signals,
    snapshot_exports,
    streams,
    string_functions,
    text_format,
)
from executor.functions.declare import Declarations, FunctionDef, Implementation, Runtime
from storage.sqlite import Database

FAMILIES: Final[tuple[Declarations, ...]] = tuple(module.FUNCTIONS for module in (
    session_info, string_functions, regex_functions, math_functions, conditionals, aggregates,
    array_functions, json_functions, json_constructors, json_aggregates, jsonb_edits, json_rows,
    ordered_aggregates, sequences, listen_notify, streams, session_signals, catalog_info,
    rewrites, datetime_functions, formatting_functions, network_functions, privilege_info,
    numeric_functions, row_packing, reflection_info, keyword_list, extension_functions,
    array_edits, json_paths, record_text, jsonb_path_queries, text_format, advisory_locks,
    snapshot_exports, partitions))


def _gather() -> dict[str, FunctionDef]:
    found: dict[str, FunctionDef] = {}
    for family in FAMILIES:
        for name, definition in family.functions.items():
            if name in found:
                raise ValueError(f"function {name} is declared in two families")
            found[name] = definition
    return found


FUNCTIONS: Final = _gather()
"""Every PostgreSQL function sqlext knows, by lower-case name."""


class FunctionFailed(Exception):
    """Raised into SQLite after the real error was parked in the context."""


def implementations() -> Iterator[tuple[Implementation, int]]:
    """Every function of ours, once, with its SQLite argument count."""
    declared: dict[str, list[Implementation]] = defaultdict(list)
    arities: dict[str, set[int]] = defaultdict(set)
    for definition in FUNCTIONS.values():
        for implementation in definition.implementations:
            declared[implementation.sqlite_name].append(implementation)
        if definition.implementations:
            fixed = definition.min_args == definition.max_args
            arities[definition.target].add(definition.min_args if fixed else -1)
    for family in FAMILIES:
        for implementation in family.internal_functions:
            declared[implementation.sqlite_name].append(implementation)
    for name, found in declared.items():
        first = found[0]
        if any(other.code is not first.code or other.kind != first.kind for other in found):
            raise ValueError(f"{name} is declared with different implementations")
        counts = {i.arg_count for i in found if i.arg_count is not None} or arities[name]
        yield first, counts.pop() if len(counts) == 1 else -1


def register_functions(database: Database, runtime: Runtime) -> None:
    """Put every implementation on the database (once per server)."""
    for implementation, arg_count in implementations():
        if implementation.kind == "aggregate":
            aggregate = _guarded_aggregate(runtime.executor, implementation.code)
            if hasattr(aggregate, "inverse"):
                database.create_window_function(implementation.sqlite_name, arg_count,
                                                aggregate)
            else:
                database.create_aggregate(implementation.sqlite_name, arg_count, aggregate)
            continue
        function = (implementation.code(runtime) if implementation.kind == "runtime"
                    else implementation.code)
        database.create_function(implementation.sqlite_name, arg_count,
                                 _guard(runtime.executor, function))


def _guarded_aggregate(executor: Executor, aggregate: Any) -> type:
    """The aggregate class with its methods guarded as functions are."""
    methods = {name: _guard(executor, getattr(aggregate, name))
               for name in ("step", "inverse", "value", "finalize") if hasattr(aggregate, name)}
    return type(aggregate.__name__, (aggregate,), methods)


def _guard(executor: Executor, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def call(*args: Any) -> Any:
        try:
            return function(*args)
        except errors.SqlError as exc:
            executor.context.fail(exc)
            raise FunctionFailed(exc.message) from exc
        except Exception as exc:
            # A bug: say where, rather than SQLite's "user-defined function
            # raised exception".
            error = errors.InternalError(
                f"{function.__name__}{args!r} failed: {type(exc).__name__}: {exc}")
            executor.context.fail(error)
            raise FunctionFailed(error.message) from exc
    return call
