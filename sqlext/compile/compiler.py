"""Statement trees to executable plans, cached.

A plan depends on the statement text, the parameter types the client
declared, the catalog version, the search path and the time zone (literals
of timestamptz are converted at translation time). The cache key holds all
of them, so a hot statement is translated once and then reused.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.dataflow import Parameter, Procedure
from catalog.schema import PG_CATALOG, PUBLIC, Catalog, Relation
from executor import codecs
from executor.ddl.dispatch import DdlSpec
from executor.functions.registry import FUNCTIONS
from executor.plans import (
    NOW_SLOT,
    Access,
    AfterInsert,
    OutputColumn,
    ParamType,
    Slot,
    SqlPlan,
    ValuesRow,
)
from sqlext.compile.dataflow_ddl import DataflowCompiler
from sqlext.compile.object_ddl import compile_object_statement
from sqlext.compile.role_ddl import compile_role_statement
from sqlext.compile.table_ddl import DdlCompiler
from sqlext.sql import nodes as x
from sqlext.sql import settings as config
from sqlext.sql.parse import parse_expression
from sqlext.sql.sqlite_dialect import ScaledNumeric, StatementOnly, to_sqlite
from sqlext.translate.dml import translate_delete, translate_insert, translate_update
from sqlext.translate.scope import ColumnInfo
from sqlext.translate.sources import CurrentBatch
from sqlext.translate.translator import Translator, readable_outputs

CACHE_SIZE: Final = 4096


@dataclass(frozen=True, slots=True)
class Compiled:
    """What a statement becomes: exactly one of ``plan`` (SQL for SQLite),
    ``ddl`` (a schema change) or ``utility`` (handled by the session)."""

    statement: exp.Expression
    params: tuple[ParamType, ...]
    columns: tuple[OutputColumn, ...] | None
    plan: SqlPlan | None = None
    ddl: DdlSpec | None = None
    utility: x.UtilityStatement | None = None
    call: CallPlan | None = None
    """CALL (a utility): the procedure and how its arguments are computed."""

    @property
    def writes(self) -> bool:
        return self.ddl is not None or (self.plan is not None and self.plan.writes)


@dataclass(frozen=True, slots=True)
class CallPlan:
    procedure: Procedure
    arguments: SqlPlan | None
    """A one-row query yielding the arguments, converted to the parameter types
    (None when the procedure takes none)."""


@dataclass(frozen=True, slots=True)
class CompileContext:
    catalog: Catalog
    search_path: tuple[str, ...]
    settings: codecs.Settings
    param_names: tuple[tuple[str, int], ...] = ()
    """Procedure bodies: (parameter name, number) pairs."""
    batch_streams: frozenset[int] = frozenset()
    """Transaction executions: streams whose name denotes the current batch."""
    params_decoded: bool = True
    """Parameter values come through their types' input functions (a
    client's Bind); procedure bodies get stored values as they are."""
    role: str | None = None
    """Who looks names up: naming something in a schema it may not use is
    42501 (None: nobody in particular, the privileges are checked when the
    plan runs)."""


def _output(columns: list[ColumnInfo] | None,
            as_text: set[int] | None = None) -> tuple[OutputColumn, ...] | None:
    """Result columns as clients are told about them; ``as_text`` are
    positions whose values are already their text form (reg* names)."""
    if columns is None:
        return None
    # A record's typmod numbers its shape here; PostgreSQL tells clients -1.
    return tuple(OutputColumn(c.name, c.type.oid, -1 if c.type.oid == t.RECORD else c.type.typmod,
                              c.table_oid, c.column_number,
                              t.TEXT if as_text and index in as_text else 0)
                 for index, c in enumerate(columns))


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
               context.settings, context.param_names, context.batch_streams,
               context.params_decoded, context.role)
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
    translator.param_names = dict(context.param_names)
    translator.batch_streams = context.batch_streams
    translator.params_decoded = context.params_decoded
    translator.role = context.role
    if isinstance(statement, x.DeclareCursor):
        inner = _compile(statement.expression, context, param_oids)
        return Compiled(statement, inner.params, None, utility=statement)
    if isinstance(statement, x.Call):
        return _call(statement, translator)
    if isinstance(statement, x.UtilityStatement):
        return _utility(statement, translator)
    if isinstance(statement, x.RoleDdl):
        spec = compile_role_statement(statement, translator)
        return Compiled(statement, (), None, ddl=spec)
    if isinstance(statement, x.ObjectDdl):
        return Compiled(statement, (), None,
                        ddl=compile_object_statement(statement, translator))
    if isinstance(statement, x.DataflowDdl):
        compiler = DataflowCompiler(DdlCompiler(translator), _body_check(context))
        return Compiled(statement, (), None, ddl=compiler.compile(statement))
    tree = statement.copy()
    if isinstance(tree, exp.Query | exp.Values):
        columns = translator.query(tree)
        if context.params_decoded:
            _scaled_outputs(tree)
        named = readable_outputs(tree, columns)
        sql, slots = _sqlite_text(tree, translator)
        plan = SqlPlan(sql, _params(translator), _output(columns, named), "SELECT",
                       translator.writes, refresh=frozenset(translator.live_tables),
                       observes=_observes(translator),
                       recompute=_recomputed_views(translator), bindings=translator.highest_param,
                       access=_access(translator, statement), slots=slots,
                       snapshot_reads=_snapshot_reads(translator),
                       command=_state_change(translator),
                       engine_calls=_engine_calls(translator))
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
        sql, slots = _sqlite_text(tree, translator)
        plan = SqlPlan(sql, _params(translator), _output(returning), verb, True,
                       target, refresh=frozenset(translator.live_tables),
                       recompute=_recomputed_views(translator),
                       after_insert=_after_insert(translator, verb),
                       bindings=translator.highest_param, access=_access(translator, statement),
                       slots=slots, values_row=None if returning is not None or slots
                       else _values_row(tree, sql, translator.target_relation))
        return Compiled(statement, plan.params, plan.columns, plan=plan)
    spec = DdlCompiler(translator).compile(tree)
    return Compiled(statement, _params(translator), None, ddl=spec)


def _scaled_outputs(tree: exp.Expression) -> None:
    """A client's query sends a numeric(p,s) column of scaled integers as
    the integers, which the column's output function prints with its scale:
    no key per row (``executor.codecs.numeric``)."""
    if not isinstance(tree, exp.Select):
        return
    for projection in tree.expressions:
        value = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(value, ScaledNumeric):
            value.replace(value.this.copy())


def _sqlite_text(tree: exp.Expression, translator: Translator) -> tuple[str, tuple[Slot, ...]]:
    """The SQLite text of a translated statement. Values that stay the same
    through one execution (the transaction's ``now()``, the batch a stream's
    name denotes in a transaction execution) become parameters numbered after
    the client's, bound once (``SqlPlan.slots``), instead of functions SQLite
    calls back into Python for every row. Forms only a statement may use
    (``StatementOnly``) take their place."""
    for faster in list(tree.find_all(StatementOnly)):
        faster.replace(faster.args["statement"])
    slots: list[Slot] = []
    for node in list(tree.find_all(exp.Anonymous, CurrentBatch)):
        if isinstance(node, CurrentBatch):
            slot = Slot("batch", node.this)
        elif node.name == _NOW:
            slot = NOW_SLOT
        else:
            continue
        if slot not in slots:
            slots.append(slot)
        number = translator.highest_param + 1 + slots.index(slot)
        node.replace(exp.Parameter(this=exp.Literal.number(number)))
    return to_sqlite(tree), tuple(slots)


_NOW: Final = FUNCTIONS["now"].target
_PLAIN_INSERT_ARGS: Final = frozenset({"this", "expression"})
"""What an INSERT a group of rows at a time may have: no WITH, ON CONFLICT..."""


def _values_row(tree: exp.Expression, sql: str, relation: Relation | None) -> ValuesRow | None:
    """How a many-row run of this statement may insert a group of rows at
    once, where that is the same as one statement per row: one row of
    parameters only, into a table that is no stream (a stream's rows are
    numbered into batches as they come) and has no foreign key to itself
    (SQLite checks a statement's foreign keys at its end, so one row of a
    group could refer to a later one)."""
    if (not isinstance(tree, exp.Insert) or relation is None or relation.stream is not None
            or any(value for name, value in tree.args.items()
                   if name not in _PLAIN_INSERT_ARGS)):
        return None
    source = tree.expression
    if not isinstance(source, exp.Values) or len(source.expressions) != 1:
        return None
    row = source.expressions[0]
    if not isinstance(row, exp.Tuple) or not row.expressions or not all(
            isinstance(value, exp.Parameter) for value in row.expressions):
        return None
    own = (relation.schema, relation.name)
    if any(c.kind == "f" and c.ref_table == own for c in relation.constraints):
        return None
    text = to_sqlite(row)
    if not sql.endswith(text) or not sql[:-len(text)].endswith("VALUES "):
        return None
    return ValuesRow(sql[:-len(text)], tuple(int(value.name) for value in row.expressions))


_WRITE_PRIVILEGE: Final = {exp.Insert: "a", exp.Update: "w", exp.Delete: "d"}


def _access(translator: Translator, statement: exp.Expression) -> tuple[Access, ...]:
    """The privileges a statement needs (``SqlPlan.access``): SELECT on the
    columns it reads, including those of a DML target it looks at (WHERE,
    RETURNING, SET or ON CONFLICT expressions), and the right to change the
    target's columns it writes, as in PostgreSQL."""
    reads = translator.column_reads
    needed: dict[tuple[str, str], dict[str, tuple[str, ...]]] = {}
    for relation in translator.read_relations.values():
        needed[(relation.schema, relation.name)] = {"r": _names(relation, reads)}
    target = translator.target_relation
    if target is not None:
        wanted = needed.setdefault((target.schema, target.name), {})
        letter = _WRITE_PRIVILEGE[type(statement)]
        wanted[letter] = translator.target_columns
        if translator.conflict_updates:
            wanted["w"] = translator.conflict_updates
        if target.oid in reads:
            wanted["r"] = _names(target, reads)
    return tuple(Access(key, "".join(wanted), tuple(wanted.items()))
                 for key, wanted in needed.items())


def _names(relation: Relation, reads: dict[int, set[str]]) -> tuple[str, ...]:
    """The columns of ``relation`` a statement reads."""
    return tuple(sorted(reads.get(relation.oid, ())))


def _observes(translator: Translator) -> bool:
    """Whether a query watches or controls sessions and the dataflow (it
    reads live system views or calls pg_cancel_backend() and the like),
    reads nothing outside pg_catalog and writes nothing
    (``SqlPlan.observes``)."""
    called = [FUNCTIONS[name] for name in translator.called]
    return bool(translator.live_tables or any(f.session_control for f in called)) and not (
        translator.writes or any(f.waits_for_dataflow for f in called)) and all(
        relation.schema == PG_CATALOG for relation in translator.read_relations.values())


def _state_change(translator: Translator) -> str | None:
    """The function that makes a query a write, as a read-only transaction
    names it (``sqlext_hold_stream()``), if any."""
    return next((f"{name}()" for name in sorted(translator.called)
                 if FUNCTIONS[name].changes_state), None)


def _snapshot_reads(translator: Translator) -> bool:
    """Whether the query may read the rest of its rows from a snapshot in a
    forked child (``SqlPlan.snapshot_reads``): it writes nothing, reads no
    live system view and calls no function of the running engine
    (sequences, settings, notifications, locks, the dataflow, random()),
    whose effects the child would keep to itself."""
    return not (translator.writes or translator.live_tables) and not any(
        implementation.kind == "runtime" for name in translator.called
        for implementation in FUNCTIONS[name].implementations)


def _engine_calls(translator: Translator) -> frozenset[str]:
    return frozenset(name for name in translator.called if FUNCTIONS[name].changes_engine)


def _recomputed_views(translator: Translator) -> tuple[tuple[str, str], ...]:
    """The materialized views the statement reads that are not maintained
    incrementally (they are recomputed first if stale)."""
    return tuple((r.schema, r.name) for r in translator.read_relations.values()
                 if r.matview is not None and not r.matview.incremental)


def _utility(statement: x.UtilityStatement, translator: Translator) -> Compiled:
    columns: tuple[OutputColumn, ...] | None = None
    if isinstance(statement, x.Show):
        if statement.name == "all":
            columns = (OutputColumn("name", t.TEXT), OutputColumn("setting", t.TEXT),
                       OutputColumn("description", t.TEXT))
        else:
            columns = (OutputColumn(config.display_name(statement.name), t.TEXT),)
    elif isinstance(statement, x.ExplainMatview):
        columns = (OutputColumn("QUERY PLAN", t.TEXT),)
    elif isinstance(statement, x.ExplainDataflow):
        # as PostgreSQL's EXPLAIN: FORMAT JSON is one json value
        columns = (OutputColumn("QUERY PLAN",
                                t.JSON if statement.args["format"] == "json" else t.TEXT),)
    return Compiled(statement, _params(translator), columns, utility=statement)


def _after_insert(translator: Translator, verb: str) -> AfterInsert | None:
    relation = translator.target_relation
    if verb != "INSERT" or relation is None:
        return None
    catalog = translator.catalog
    triggers = catalog.triggers_on(relation)
    ee = tuple((t.schema, t.name) for t in triggers if t.event == "insert" and t.body)
    windows = tuple((w.schema, w.name) for w in catalog.windows_on(relation))
    if not ee and not windows:
        return None
    consumed = relation.stream is not None and not relation.stream.keep_batches and not any(
        t.procedure for t in triggers)
    return AfterInsert((relation.schema, relation.name), windows, ee, consumed)


def _body_check(context: CompileContext
                ) -> Callable[[exp.Expression, tuple[Parameter, ...], str], None]:
    """Compiles a procedure or trigger body statement to find its errors now:
    its names are looked up on the search path, then in the object's schema
    and public, where a triggered procedure finds them (a restore of
    pg_dump's output runs with an empty search path)."""

    def check(statement: exp.Expression, params: tuple[Parameter, ...], schema: str) -> None:
        path = tuple(dict.fromkeys((*context.search_path, schema, PUBLIC)))
        _compile(statement, procedure_context(replace(context, search_path=path), params),
                 tuple(p.type_oid for p in params))

    return check


def procedure_context(context: CompileContext,
                      params: tuple[Parameter, ...]) -> CompileContext:
    """How a procedure body compiles: the caller's context, with the
    procedure's parameters known by name (it runs as its owner: the
    caller's role looks nothing up)."""
    names = tuple((p.name, number) for number, p in enumerate(params, start=1) if p.name)
    return replace(context, param_names=names, params_decoded=False, role=None)


def _call(statement: x.Call, translator: Translator) -> Compiled:
    """CALL p(args): the arguments become one SELECT, each cast to its
    parameter's type; missing trailing arguments take their defaults."""
    target = statement.this
    translator.check_schema(target)
    procedure = translator.catalog.find_procedure(target.name, target.db or None,
                                                  translator.search_path)
    args = list(statement.expressions)
    if procedure is None:
        raise errors.UndefinedFunction(
            f"procedure {target.name}({', '.join('unknown' for _ in args)}) does not exist",
            hint="No procedure matches the given name and argument types.")
    if not procedure.required_params <= len(args) <= len(procedure.params):
        raise errors.UndefinedFunction(
            f"procedure {procedure.name} takes {len(procedure.params)} argument(s), "
            f"not {len(args)}",
            hint="No procedure matches the given name and argument types.")
    values: list[exp.Expression] = []
    for position, parameter in enumerate(procedure.params):
        value = args[position].copy() if position < len(args) else parse_expression(
            str(parameter.default))
        declared = exp.DataType.build(t.format_type(parameter.type_oid, parameter.typmod),
                                      dialect="postgres")
        values.append(exp.alias_(exp.Cast(this=value, to=declared), f"a{position}"))
    arguments: SqlPlan | None = None
    if values:
        query = exp.select(*values)
        columns = translator.query(query)
        sql, slots = _sqlite_text(query, translator)
        arguments = SqlPlan(sql, _params(translator), _output(columns), "SELECT",
                            translator.writes, bindings=translator.highest_param, slots=slots)
    return Compiled(statement, _params(translator), None, utility=statement,
                    call=CallPlan(procedure, arguments))
