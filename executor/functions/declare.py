"""How a SQL function is declared: once, with its signature, its flags and
its implementation.

A family module (``strings``, ``aggregates``, ...) makes a ``Declarations``
and declares each function on it, next to its code::

    FUNCTIONS = Declarations()

    @FUNCTIONS.scalar("left", TEXT, TEXT, INT4, min_args=2, max_args=2)
    def _left(value: Any, count: Any) -> Any: ...

    FUNCTIONS.builtin("lower", TEXT, "lower", TEXT, min_args=1, max_args=1)

``registry`` gathers the families: the translator reads the signatures
(``FunctionDef``) and ``register_functions`` puts every implementation on the
database. A call of a PostgreSQL function becomes a call of its ``target``:
a SQLite built-in of the same meaning, or ours, named ``sqlext_<name>``
unless ``sqlite=`` says otherwise. SQLite names are part of the snapshot
format (views and triggers stored in SQLite call them): never rename one.

Implementations get SQL's storage values (int, float, str, bytes, None) and
raise ``catalog.errors.SqlError`` for PostgreSQL's errors. Those that look at
the running statement or the engine are declared with ``runtime`` and made
once per server from a ``Runtime``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from catalog import types as t
from catalog.dataflow import Trigger
from catalog.schema import Catalog
from catalog.sqltypes import TEXT, SqlType, common_type
from executor import codecs
from executor.context import StatementContext
from executor.core import Executor
from executor.streaming.scheduler import Scheduler

ResultRule = SqlType | Callable[[list[SqlType]], SqlType]
"""The result type, or how it follows from the argument types."""
Function = Callable[..., Any]


class SessionSignals(Protocol):
    """What pg_cancel_backend() and pg_terminate_backend() signal: the
    server's sessions (``sqlext.server.sessions``)."""

    def cancel(self, process_id: int) -> bool:
        """Cancel the running statement of session ``process_id``."""
        ...

    def terminate(self, process_id: int) -> bool:
        """End session ``process_id``."""
        ...


class DataflowText(Protocol):
    """The dataflow's objects as the statements that make them, written by
    the layer that knows the SQL dialect (``sqlext.dataflow.rebuild``)."""

    def definitions(self, catalog: Catalog) -> list[tuple[int, str]]:
        """The rows of ``sqlext.dataflow``: (position, statement)."""
        ...

    def trigger(self, catalog: Catalog, trigger: Trigger) -> str:
        """CREATE TRIGGER (pg_get_triggerdef)."""
        ...


class SnapshotExports(Protocol):
    """The exported snapshots of the server (``sqlext.session.exported_snapshots``)."""

    def publish(self, idle_timeout_s: float) -> str:
        """sqlext_export_snapshot(): the id of the image forked for the
        running statement, kept until released or idle that long."""
        ...

    def release(self, snapshot_id: str) -> None:
        """sqlext_release_snapshot() (22023 for an unknown id)."""
        ...


@dataclass(frozen=True, slots=True)
class Runtime:
    """What implementations that look at the running engine are made from."""

    executor: Executor
    scheduler: Scheduler
    version: str
    """What version() returns."""
    reload_config: Callable[[], bool]
    """What pg_reload_conf() does."""
    sessions: SessionSignals
    listening: Callable[[int], list[str]]
    """The channels a session (by process id) listens on."""
    dataflow_text: DataflowText
    snapshots: SnapshotExports

    def context(self) -> StatementContext:
        """The running statement's (read at call time)."""
        return self.executor.context

    def codec_settings(self) -> codecs.Settings:
        """How values are read and printed for the running statement: its
        session's time zone, floats in their exact form."""
        return _codec_settings(self.executor.context.setting("timezone") or "UTC", 3)

    def output_settings(self) -> codecs.Settings:
        """How the running statement's session prints values, as output
        functions do: in its time zone, floats to its extra_float_digits."""
        context = self.executor.context
        return _codec_settings(context.setting("timezone") or "UTC",
                               int(context.setting("extra_float_digits") or 1))


@functools.lru_cache(maxsize=64)
def _codec_settings(timezone: str, extra_float_digits: int) -> codecs.Settings:
    """One value per time zone and float digits (SQL functions ask for it
    once per row)."""
    return codecs.Settings(timezone=timezone, extra_float_digits=extra_float_digits)


@dataclass(frozen=True, slots=True)
class Implementation:
    """A function of ours as SQLite knows it."""

    sqlite_name: str
    arg_count: int | None
    """SQLite's narg; None: from the declarations that use it (-1 when their
    argument counts differ)."""
    code: Function | type
    kind: Literal["scalar", "runtime", "aggregate"] = "scalar"
    """scalar: ``code`` is the function; runtime: ``code`` makes it from the
    ``Runtime``; aggregate: ``code`` is a class with ``step`` and
    ``finalize``."""


@dataclass(frozen=True, slots=True)
class Overload:
    """One signature of a function PostgreSQL declares several times
    (date_trunc(text, timestamp), date_trunc(text, interval)...), or once
    with polymorphic parameters (anyarray, anycompatible...), which each
    call resolves to concrete types."""

    params: tuple[SqlType, ...]
    result: SqlType
    names: tuple[str, ...] = ()
    """The parameters' names, for calls that name their arguments."""
    defaults: tuple[Any, ...] = ()
    """Storage values of the last parameters' defaults."""
    variadic: bool = False
    """The last parameter takes one or more arguments (PostgreSQL's VARIADIC),
    which the implementation gets one by one."""


@dataclass(frozen=True, slots=True)
class FunctionDef:
    """A PostgreSQL function as the translator sees it."""

    result: ResultRule
    target: str
    """The SQLite function a call becomes."""
    args: tuple[SqlType | None, ...] = ()
    """Types that unknown-typed arguments (literals, parameters) take, by
    position; the last entry repeats for variadic functions."""
    min_args: int = 0
    max_args: int | None = None
    aggregate: bool = False
    window_only: bool = False
    """A window function: a call needs an OVER clause."""
    numeric_target: str | None = None
    """Used instead of ``target`` when the first argument's type is one of
    ``numeric_args`` (exact decimal arithmetic on numeric's storage forms)."""
    numeric_args: frozenset[int] = frozenset({t.NUMERIC, t.INT8})
    session_control: bool = False
    """Acts on other sessions: a query calling it must not wait for the
    executor (the session to end may be the one holding it)."""
    waits_for_dataflow: bool = False
    """Its answer needs the executor free of other transactions."""
    changes_state: bool = False
    """It changes the engine's durable state: a statement calling it is a
    write (it takes the executor, its transaction can undo the change, and
    the command log records it), as an INSERT is."""
    changes_engine: bool = False
    """Acts on the running engine (sequences, settings, notifications,
    sessions, the dataflow, exported snapshots): a read of an exported
    snapshot, which runs on a copy of the engine, must not call it
    (``SqlPlan.engine_calls``)."""
    same_kind_args: bool = False
    """The known argument types must make one type (numbers, strings, or
    dates and timestamps), as COALESCE's must: 42804 otherwise."""
    bytea_too: bool = False
    """A text parameter takes bytea as well (PostgreSQL has a bytea form)."""
    interval_too: bool = False
    """A numeric parameter takes interval as well."""
    ordered_set: bool = False
    """An ordered-set aggregate: called as ``name(direct arguments) WITHIN
    GROUP (ORDER BY ...)`` only (``min_args``/``max_args`` count both)."""
    json_args: bool = False
    """The SQLite function takes its arguments as JSON values (arrays are
    stored as JSON: array_agg builds one with json_group_array)."""
    set_returning: bool = False
    """Returns a set of rows: the SQLite function returns them as a JSON
    array, which the translator expands (``result`` is the rows' type)."""
    implementations: tuple[Implementation, ...] = ()
    """Ours behind ``target`` and ``numeric_target`` (none for SQLite's)."""
    overloads: tuple[Overload, ...] = ()
    """The signatures a call chooses among as PostgreSQL does; its arguments
    are then converted to the chosen parameter types (``args``, ``min_args``
    and ``max_args`` follow from them)."""
    type_args: tuple[int, ...] = ()
    """Positions whose chosen parameter type OIDs the implementation gets
    before the arguments: one implementation serves the overloads."""
    any_args: int | None = None
    """The position from which the parameters are PostgreSQL's VARIADIC
    "any" (concat, format, num_nulls): from there an argument of every type
    is taken, an unknown one as text. Where ``args`` says text, each is
    passed as the text its type's output function prints (concat(true) is
    't', where true::text is 'true'); where it says None, as it is."""
    casts_to_text: bool = False
    """A text parameter takes a value of any type, cast to text: the
    anyelement forms PostgreSQL declares as ``f($1::text)``
    (quote_literal(anyelement) is 'true' for a boolean)."""

    def result_type(self, arg_types: list[SqlType]) -> SqlType:
        if isinstance(self.result, SqlType):
            return self.result
        return self.result(arg_types)

    def arg_type(self, index: int) -> SqlType | None:
        if not self.args:
            return None
        return self.args[min(index, len(self.args) - 1)]


@dataclass(slots=True)
class Declarations:
    """The functions of one family, by PostgreSQL name, and the functions of
    ours only the engine's own SQL calls (``internal``)."""

    functions: dict[str, FunctionDef] = field(default_factory=dict)
    internal_functions: list[Implementation] = field(default_factory=list)

    def builtin(self, name: str, result: ResultRule, target: str, *args: SqlType | None,
                names: Iterable[str] = (), **flags: Any) -> None:
        """A PostgreSQL function SQLite has under the name ``target``."""
        self._declare((name, *names), FunctionDef(result, target, args, **flags))

    def scalar(self, name: str, result: ResultRule, *args: SqlType | None,
               names: Iterable[str] = (), sqlite: str | None = None,
               sqlite_args: int | None = None, **flags: Any) -> Callable[[Function], Function]:
        """A PostgreSQL function implemented by the decorated function
        (``sqlite_args``: its SQLite narg when the engine's own SQL calls it
        with other arguments than users may)."""
        return self._ours(name, result, args, names, sqlite, sqlite_args, flags, "scalar")

    def runtime(self, name: str, result: ResultRule, *args: SqlType | None,
                names: Iterable[str] = (), sqlite: str | None = None,
                sqlite_args: int | None = None, **flags: Any) -> Callable[[Function], Function]:
        """A PostgreSQL function made by the decorated function from the
        ``Runtime``."""
        return self._ours(name, result, args, names, sqlite, sqlite_args, flags, "runtime")

    def aggregate(self, name: str, result: ResultRule, target: str | type,
                  *args: SqlType | None, min_args: int = 1, max_args: int | None = 1,
                  names: Iterable[str] = (), numeric: type | None = None,
                  sqlite_args: int = 1, **flags: Any) -> None:
        """An aggregate SQLite has as ``target``, or ours (``target`` is then
        its class, named ``sqlext_<name>`` in SQLite, taking ``sqlite_args``
        arguments); ``numeric``: ours, used when the first argument is numeric."""
        implementations = []
        if isinstance(target, type):
            implementations.append(Implementation(f"sqlext_{name}", sqlite_args, target,
                                                  "aggregate"))
            target = f"sqlext_{name}"
        numeric_target = None
        if numeric is not None:
            numeric_target = f"sqlext_numeric_{name}"
            implementations.append(Implementation(numeric_target, 1, numeric, "aggregate"))
        self._declare((name, *names), FunctionDef(
            result, target, args, min_args, max_args, aggregate=True,
            numeric_target=numeric_target, implementations=tuple(implementations), **flags))

    def internal(self, sqlite_name: str, arg_count: int, runtime: bool = False
                 ) -> Callable[[Function], Function]:
        """A function of ours that only the engine's own SQL calls (what the
        translator's rewrites, matview programs and stream triggers emit);
        ``runtime``: the decorated function makes it from the ``Runtime``."""

        def declare(function: Function) -> Function:
            self.internal_functions.append(Implementation(
                sqlite_name, arg_count, function, "runtime" if runtime else "scalar"))
            return function

        return declare

    def overloaded(self, name: str, *overloads: Overload, type_args: tuple[int, ...] = (),
                   runtime: bool = False, sqlite: str | None = None,
                   names: Iterable[str] = (), set_returning: bool = False, **extra: Any
                   ) -> Callable[[Function], Function]:
        """A PostgreSQL function with several signatures, implemented by the
        decorated function (made from the ``Runtime`` if ``runtime``), which
        gets every parameter of the chosen one (defaults filled in)."""
        counts = {len(o.params) for o in overloads}
        variadic = any(o.variadic for o in overloads)
        arg_count = counts.pop() + len(type_args) if len(counts) == 1 and not variadic else -1
        flags = {"min_args": min(len(o.params) - len(o.defaults) for o in overloads),
                 "max_args": None if variadic else max(len(o.params) for o in overloads),
                 "overloads": overloads, "type_args": type_args, "set_returning": set_returning,
                 **extra}
        return self._ours(name, _overload_result(overloads), (), names, sqlite, arg_count, flags,
                          "runtime" if runtime else "scalar")
    def internal_aggregate(self, sqlite_name: str, arg_count: int) -> Callable[[type], type]:
        """An aggregate of ours (the decorated class) that only the engine's
        own SQL calls (``arg_count`` -1: any number of arguments)."""

        def declare(aggregate: type) -> type:
            self.internal_functions.append(Implementation(
                sqlite_name, arg_count, aggregate, "aggregate"))
            return aggregate

        return declare

    def _ours(self, name: str, result: ResultRule, args: tuple[SqlType | None, ...],
              names: Iterable[str], sqlite: str | None, sqlite_args: int | None,
              flags: dict[str, Any], kind: Literal["scalar", "runtime"]
              ) -> Callable[[Function], Function]:
        target = sqlite or f"sqlext_{name}"

        def declare(function: Function) -> Function:
            implementation = Implementation(target, sqlite_args, function, kind)
            self._declare((name, *names), FunctionDef(result, target, args, **flags,
                                                      implementations=(implementation,)))
            return function

        return declare

    def _declare(self, names: tuple[str, ...], definition: FunctionDef) -> None:
        for name in names:
            if name in self.functions:
                raise ValueError(f"function {name} is declared twice")
            self.functions[name] = definition


def _overload_result(overloads: tuple[Overload, ...]) -> ResultRule:
    """The result of the overload whose parameters the (converted) arguments have."""
    def result(types: list[SqlType]) -> SqlType:
        oids = tuple(found.oid for found in types)
        return next((o.result for o in overloads
                     if tuple(p.oid for p in o.params) == oids), overloads[0].result)
    return result


def first_known(types: list[SqlType]) -> SqlType:
    """The type of the first argument whose type is known (text if none is)."""
    for found in types:
        if not found.is_unknown:
            return SqlType(found.oid)
    return TEXT


def common(types: list[SqlType]) -> SqlType:
    """The arguments' common type (text if none is known)."""
    found = common_type(types)
    return TEXT if found.is_unknown else found
