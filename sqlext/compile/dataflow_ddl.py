"""CREATE STREAM / PROCEDURE / TRIGGER and DROP STREAM / PROCEDURE / TRIGGER
trees to the executor's dataflow_objects.

Procedure and EE-trigger bodies are checked when they are created, as
PostgreSQL checks SQL function bodies: every statement must parse, be one
that a procedure may run (SELECT, INSERT, UPDATE, DELETE, CALL), and
compile against the current catalog with the procedure's parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.dataflow import DEFAULT_KEEP_BATCHES, Parameter, StreamOptions, WindowSpec
from catalog.schema import Catalog
from executor import codecs
from executor.ddl import dataflow_objects, relations
from executor.notifications import check_channel
from executor.values import conversions
from sqlext.compile import python_procedures
from sqlext.compile.bodies import body_statements
from sqlext.compile.single_partition import SingleCheck
from sqlext.compile.table_ddl import DdlCompiler, creation_schema, pg_sql
from sqlext.sql import nodes as x
from sqlext.translate.type_names import resolve_type

BodyCheck = Callable[[exp.Expression, tuple[Parameter, ...], str], None]
"""Compiles one body statement of an object of a schema against the
catalog (raises on errors)."""

_STREAM_OPTIONS = frozenset({"batch_column", "notify", "keep_batches"})
_RANGE_TYPES = frozenset({t.INT2, t.INT4, t.INT8, t.TIMESTAMP, t.TIMESTAMPTZ})
_MICROS_PER_DAY = 86_400_000_000
_MICROS_PER_SECOND = 1_000_000


def _window_extent(node: exp.Expression, timed: bool, what: str) -> int:
    """A window size or slide: a positive integer, or (RANGE over
    timestamps) a positive interval without months, in microseconds."""
    if timed:
        if not isinstance(node, exp.Interval):
            raise errors.InvalidParameterValue(
                f"window {what} over a timestamp column must be an interval")
        text = f"{node.this.name} {node.unit.name if node.unit else ''}".strip()
        months, days, micros = conversions.interval_parts(
            codecs.text_decoder(t.INTERVAL)(text))
        if months:
            raise errors.InvalidParameterValue(
                f"window {what} must not be given in months or years")
        extent = micros + days * _MICROS_PER_DAY
    else:
        if not (isinstance(node, exp.Literal) and node.is_int):
            raise errors.InvalidParameterValue(f"window {what} must be an integer",
                                               hint="For example: ROWS 100 SLIDE 10.")
        extent = int(node.name)
    if extent <= 0:
        raise errors.InvalidParameterValue(f"window {what} must be positive")
    return extent


def _keep_batches(value: object, notify: bool) -> int:
    """The keep_batches option: a positive integer, for notify streams only."""
    if value is None:
        return DEFAULT_KEEP_BATCHES if notify else 0
    if not notify:
        raise errors.InvalidParameterValue(
            'stream option "keep_batches" applies to notify streams only',
            hint="Other streams keep a batch until every consumer has run on it.")
    text = str(value)
    if not text.isdigit() or int(text) == 0:
        raise errors.InvalidParameterValue(
            f'invalid value for stream option "keep_batches": "{text}"',
            hint="It is the number of newest batches the stream keeps, at least 1.")
    return int(text)


class DataflowCompiler:
    def __init__(self, tables: DdlCompiler, check_body: BodyCheck) -> None:
        self.tables = tables
        self.catalog: Catalog = tables.catalog
        self.search_path = tables.search_path
        self.check_body = check_body

    def compile(self, node: x.DataflowDdl) -> relations.DdlSpec | dataflow_objects.DataflowSpec:
        if isinstance(node, x.CreateStream):
            return self._create_stream(node)
        if isinstance(node, x.CreateProcedure):
            return self._create_procedure(node)
        if isinstance(node, x.CreateTrigger):
            return self._create_trigger(node)
        if isinstance(node, x.DropDataflow):
            return self._drop(node)
        if isinstance(node, x.CreateWindow):
            return self._create_window(node)
        raise errors.FeatureNotSupported(f"{node.key.upper()} is not supported yet")

    def _create_window(self, node: x.CreateWindow) -> dataflow_objects.CreateWindow:
        target = node.this
        stream_node = node.args["stream"]
        stream = self.catalog.relation(stream_node.name, stream_node.db or None,
                                       self.search_path)
        if stream.stream is None:
            raise errors.WrongObjectType(f'"{stream.name}" is not a stream',
                                         hint="Windows are defined on streams.")
        rows = bool(node.args.get("rows"))
        column_name = node.args.get("column")
        column_type = 0
        if column_name is not None:
            column_type = stream.column(str(column_name)).type_oid
            if column_type not in _RANGE_TYPES:
                raise errors.DatatypeMismatch(
                    f'RANGE column "{column_name}" must be an integer or timestamp column, '
                    f"not {t.format_type(column_type)}")
        partition = node.args.get("partition")
        if partition is not None:
            stream.column(str(partition))
        timed = column_type in (t.TIMESTAMP, t.TIMESTAMPTZ)
        size = _window_extent(node.args["size"], timed, "size")
        slide_node = node.args.get("slide")
        # SLIDE defaults to one tuple, one unit, or (timestamps) one second.
        slide = (_MICROS_PER_SECOND if timed else 1) if slide_node is None else (
            _window_extent(slide_node, timed, "slide"))
        spec = WindowSpec((stream.schema, stream.name), rows, size, slide,
                          str(column_name) if column_name else None, column_type,
                          str(partition) if partition else None)
        return dataflow_objects.CreateWindow(
            creation_schema(target, self.catalog, self.search_path), target.name, spec)

    def _create_stream(self, node: x.CreateStream) -> relations.CreateTable:
        options = dict(node.args.get("options") or {})
        for name in options:
            if name not in _STREAM_OPTIONS:
                raise errors.InvalidParameterValue(f'unrecognized stream option "{name}"')
        partition = node.args.get("partition")
        table = exp.Create(kind="TABLE", this=node.this.copy(), exists=node.args.get("exists"),
                           properties=exp.Properties(expressions=[partition.copy()])
                           if partition is not None else None)
        spec = self.tables.compile(table)
        assert isinstance(spec, relations.CreateTable)
        batch_column = options.get("batch_column")
        notify = options.get("notify")
        return replace(spec, stream=StreamOptions(
            str(batch_column) if batch_column else None,
            None if notify is None else check_channel(str(notify)),
            _keep_batches(options.get("keep_batches"), notify is not None)))

    def _create_procedure(self, node: x.CreateProcedure) -> dataflow_objects.CreateProcedure:
        target = node.this
        schema = creation_schema(target, self.catalog, self.search_path)
        params = tuple(self._parameter(p) for p in node.expressions)
        language = str(node.args["language"]).lower()
        body = str(node.args["body"])
        if language == "python":
            python_procedures.compile_body(body, python_procedures.parameter_names(params),
                                           target.name)
        elif language == "sql":
            for statement in body_statements(body, "a procedure"):
                self.check_body(statement, params, schema)
        else:
            raise errors.UndefinedObject(f'language "{language}" does not exist',
                                         hint="Procedures are written in sql or python.")
        replace_ = bool(node.args.get("replace"))
        existing = self.catalog.procedures.get((schema, target.name))
        if replace_ and existing is not None:
            self._single_partition().replaced(replace(existing, language=language, body=body))
        return dataflow_objects.CreateProcedure(schema, target.name, params, language, body,
                                     replace_)

    def _parameter(self, node: x.ProcedureParam) -> Parameter:
        sql_type = resolve_type(node.args["kind"])
        default = node.args.get("default")
        return Parameter(node.name or None, sql_type.oid, sql_type.typmod,
                         pg_sql(default) if default is not None else None)

    def _create_trigger(self, node: x.CreateTrigger) -> dataflow_objects.CreateTrigger:
        target_node = node.args["target"]
        target = self.catalog.relation(target_node.name, target_node.db or None,
                                       self.search_path)
        event = str(node.args["event"])
        if event == "slide" and target.window is None:
            raise errors.WrongObjectType(f'"{target.name}" is not a window',
                                         hint="AFTER SLIDE triggers fire on windows.")
        if event == "insert" and target.window is not None:
            raise errors.WrongObjectType(
                f'"{target.name}" is a window',
                hint="A window fills from its stream by itself; use AFTER SLIDE.")
        if target.kind != "r":
            raise errors.WrongObjectType(f'"{target.name}" is not a table or stream')
        procedure_node = node.args.get("procedure")
        procedure_key: tuple[str, str] | None = None
        body = node.args.get("body")
        if procedure_node is not None:
            if target.stream is None:
                raise errors.WrongObjectType(
                    f'"{target.name}" is not a stream',
                    hint="EXECUTE PROCEDURE triggers fire for each batch of a stream; use "
                         "AS $$ ... $$ for a trigger that runs inside the inserting "
                         "transaction.")
            procedure = self.catalog.find_procedure(procedure_node.name,
                                                    procedure_node.db or None,
                                                    self.search_path)
            if procedure is None:
                raise errors.UndefinedFunction(
                    f"procedure {procedure_node.name}() does not exist")
            if procedure.required_params:
                raise errors.InvalidFunctionDefinition(
                    f"procedure {procedure.name} needs arguments, so a trigger cannot run it",
                    hint="A procedure run for each batch reads its input from the stream.")
            procedure_key = (procedure.schema, procedure.name)
        statements: tuple[exp.Expression, ...] = ()
        if procedure_node is None:
            statements = body_statements(str(body), "a trigger")
            for statement in statements:
                self.check_body(statement, (), target.schema)
        self._single_partition().trigger(
            target, f'trigger "{node.name}"' if procedure_key is None
            else f'procedure "{procedure_key[1]}"',
            None if procedure_key is None else self.catalog.procedures[procedure_key],
            statements)
        schema = target.schema
        return dataflow_objects.CreateTrigger(schema, str(node.name), event,
                                   (target.schema, target.name), procedure_key,
                                   None if body is None else str(body))

    def _single_partition(self) -> SingleCheck:
        return SingleCheck(self.catalog, tuple(self.search_path))

    def _drop(self, node: x.DropDataflow) -> dataflow_objects.DropDataflow:
        kind = str(node.args["kind"])
        names = tuple(self._drop_target(kind, table) for table in node.expressions)
        return dataflow_objects.DropDataflow(kind, names, bool(node.args.get("exists")),
                                  bool(node.args.get("cascade")))

    def _drop_target(self, kind: str, table: exp.Table) -> tuple[str, str]:
        """(schema, name) of the object, with schema '' when none is found."""
        name, schema = table.name, table.db or None
        if kind in ("stream", "window"):
            relation = self.catalog.find_relation(name, schema, self.search_path)
            return (relation.schema if relation else ""), name
        if kind == "procedure":
            procedure = self.catalog.find_procedure(name, schema, self.search_path)
            return (procedure.schema if procedure else ""), name
        for candidate in (schema,) if schema else self.search_path:
            if (candidate, name) in self.catalog.triggers:
                return candidate, name
        return "", name
