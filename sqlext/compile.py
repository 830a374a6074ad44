"""Statement trees to executable plans, cached.

A plan depends on the statement text, the parameter types the client
declared, the catalog version, the search path and the time zone (literals
of timestamptz are converted at translation time). The cache key holds all
of them, so a hot statement is translated once and then reused.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

from sqlglot import exp

from catalog import types as t
from catalog.schema import Catalog
from executor import codecs, ddl
from executor.plans import OutputColumn, ParamType, SqlPlan
from sqlext import expressions as x
from sqlext import settings as config
from sqlext.ddl import DdlCompiler
from sqlext.dml import translate_delete, translate_insert, translate_update
from sqlext.scope import ColumnInfo
from sqlext.sqltypes import SqlType
from sqlext.target import to_sqlite
from sqlext.translate import Translator, readable_outputs

CACHE_SIZE: Final = 4096


@dataclass(frozen=True, slots=True)
class Compiled:
    """What a statement becomes: exactly one of ``plan`` (SQL for SQLite),
    ``ddl`` (a schema change) or ``utility`` (handled by the session)."""

    statement: exp.Expression
    params: tuple[ParamType, ...]
    columns: tuple[OutputColumn, ...] | None
    plan: SqlPlan | None = None
    ddl: ddl.DdlSpec | None = None
    utility: x.UtilityStatement | None = None

    @property
    def writes(self) -> bool:
        return self.ddl is not None or (self.plan is not None and self.plan.writes)


@dataclass(frozen=True, slots=True)
class CompileContext:
    catalog: Catalog
    search_path: tuple[str, ...]
    settings: codecs.Settings


def _output(columns: list[ColumnInfo] | None,
            as_text: set[int] | None = None) -> tuple[OutputColumn, ...] | None:
    """Result columns as clients are told about them; ``as_text`` are
    positions whose values are already their text form (reg* names)."""
    if columns is None:
        return None
    return tuple(OutputColumn(c.name, c.type.oid, c.type.typmod, c.table_oid, c.column_number,
                              _display_typmod(c.type),
                              t.TEXT if as_text and index in as_text else 0)
                 for index, c in enumerate(columns))


def _display_typmod(sql_type: SqlType) -> int:
    scale = sql_type.display_scale
    if sql_type.typmod >= 0 or scale is None:
        return sql_type.typmod
    return t.numeric_typmod(1000, scale)


def _params(translator: Translator) -> tuple[ParamType, ...]:
    return tuple(ParamType(p.oid, p.typmod) for p in translator.param_types())


_cache: OrderedDict[tuple[object, ...], Compiled] = OrderedDict()


def compile_statement(statement: exp.Expression, context: CompileContext,
                      param_oids: tuple[int, ...], source: tuple[str, int, str] | None = None
                      ) -> Compiled:
    """Compile one parsed statement; ``source`` (SQL text, statement index,
    nested part) identifies it for the cache."""
    key = None
    if source is not None:
        key = (source, param_oids, context.catalog.version, context.search_path,
               context.settings)
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    compiled = _compile(statement, context, param_oids)
    if key is not None:
        _cache[key] = compiled
        if len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return compiled


def _compile(statement: exp.Expression, context: CompileContext,
             param_oids: tuple[int, ...]) -> Compiled:
    translator = Translator(context.catalog, context.search_path, param_oids, context.settings)
    if isinstance(statement, x.DeclareCursor):
        inner = _compile(statement.expression, context, param_oids)
        return Compiled(statement, inner.params, None, utility=statement)
    if isinstance(statement, x.UtilityStatement):
        return _utility(statement, translator)
    tree = statement.copy()
    if isinstance(tree, exp.Query | exp.Values):
        columns = translator.query(tree)
        named = readable_outputs(tree, columns)
        plan = SqlPlan(to_sqlite(tree), _params(translator), _output(columns, named), "SELECT",
                       translator.writes)
        return Compiled(statement, plan.params, plan.columns, plan=plan)
    if isinstance(tree, exp.Insert | exp.Update | exp.Delete):
        if isinstance(tree, exp.Insert):
            returning, target = translate_insert(translator, tree)
            verb = "INSERT"
        elif isinstance(tree, exp.Update):
            returning, target = translate_update(translator, tree)
            verb = "UPDATE"
        else:
            returning, target = translate_delete(translator, tree)
            verb = "DELETE"
        plan = SqlPlan(to_sqlite(tree), _params(translator), _output(returning), verb, True,
                       target)
        return Compiled(statement, plan.params, plan.columns, plan=plan)
    spec = DdlCompiler(translator).compile(tree)
    return Compiled(statement, _params(translator), None, ddl=spec)


def _utility(statement: x.UtilityStatement, translator: Translator) -> Compiled:
    columns: tuple[OutputColumn, ...] | None = None
    if isinstance(statement, x.Show):
        if statement.name == "all":
            columns = (OutputColumn("name", t.TEXT), OutputColumn("setting", t.TEXT),
                       OutputColumn("description", t.TEXT))
        else:
            columns = (OutputColumn(config.display_name(statement.name), t.TEXT),)
    return Compiled(statement, _params(translator), columns, utility=statement)
