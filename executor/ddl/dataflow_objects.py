"""Schema changes of dataflows: procedures, triggers, and the DROP of
streams, procedures and triggers with their dependency rules.

Streams themselves are created by ``executor.ddl.relations`` (a stream is stored like
a table). What depends on what:

* a trigger belongs to the relation it fires on and goes with it;
* a PE trigger depends on its procedure: DROP PROCEDURE fails with 2BP01
  while one exists, unless CASCADE drops the trigger too;
* a window depends on its stream: DROP STREAM fails with 2BP01 while one
  exists, unless CASCADE drops the window too (``executor.ddl.drops``, which
  drops streams and windows with what depends on them).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from catalog import errors
from catalog.dataflow import Parameter, Procedure, Trigger, WindowSpec
from catalog.schema import Catalog, Relation
from executor.ddl.drops import drop_relations
from executor.ddl.relations import CreateTable, DdlResult, storage_name
from executor.streaming import windows
from storage.sqlite import Database


@dataclass(frozen=True, slots=True)
class CreateProcedure:
    schema: str
    name: str
    params: tuple[Parameter, ...]
    language: str
    body: str
    replace: bool = False


@dataclass(frozen=True, slots=True)
class CreateWindow:
    schema: str
    name: str
    spec: WindowSpec


@dataclass(frozen=True, slots=True)
class CreateTrigger:
    schema: str
    name: str
    event: str
    target: tuple[str, str]
    procedure: tuple[str, str] | None
    body: str | None


@dataclass(frozen=True, slots=True)
class DropDataflow:
    kind: str
    """'stream', 'window', 'procedure' or 'trigger'."""
    names: tuple[tuple[str, str], ...]
    """(schema, name); the schema is '' when nothing by that name was found."""
    if_exists: bool = False
    cascade: bool = False


DataflowSpec = CreateProcedure | CreateWindow | CreateTrigger | DropDataflow
DATAFLOW_SPECS = (CreateProcedure, CreateWindow, CreateTrigger, DropDataflow)


def apply_dataflow(spec: DataflowSpec, catalog: Catalog, database: Database) -> DdlResult:
    if isinstance(spec, CreateProcedure):
        return _create_procedure(spec, catalog)
    if isinstance(spec, CreateTrigger):
        return _create_trigger(spec, catalog)
    if isinstance(spec, CreateWindow):
        return _create_window(spec, catalog, database)
    return _drop(spec, catalog, database)


def _create_window(spec: CreateWindow, catalog: Catalog, database: Database) -> DdlResult:
    if catalog.find_relation(spec.name, spec.schema) is not None:
        raise errors.DuplicateTable(f'relation "{spec.name}" already exists')
    stream = catalog.relation(spec.spec.stream[1], spec.spec.stream[0])
    catalog, oid = catalog.allocate_oids(3)  # the window, its row type's two
    columns = tuple(replace(c, default=None) for c in stream.columns)
    physical = storage_name(spec.schema, spec.name, catalog)
    window = Relation(oid, spec.schema, spec.name, "r", physical, columns, window=spec.spec,
                      row_type=oid + 2)
    windows.create_storage(database, window, stream)
    return DdlResult(catalog.with_relation(window), "CREATE WINDOW")


def _create_procedure(spec: CreateProcedure, catalog: Catalog) -> DdlResult:
    existing = catalog.procedures.get((spec.schema, spec.name))
    if existing is not None:
        if not spec.replace:
            raise errors.DuplicateFunction(
                f'procedure "{spec.name}" already exists',
                hint="Use CREATE OR REPLACE PROCEDURE to change it.")
        if tuple(p.type_oid for p in existing.params) != tuple(
            p.type_oid for p in spec.params
        ) and _pe_triggers_of(catalog, existing):
            raise errors.InvalidFunctionDefinition(
                f'cannot change the parameters of procedure "{spec.name}": triggers run it')
        procedure = replace(existing, params=spec.params, language=spec.language,
                            body=spec.body)  # keeps its owner and privileges
    else:
        catalog, oid = catalog.allocate_oids()
        procedure = Procedure(oid, spec.schema, spec.name, spec.params, spec.language,
                              spec.body)
    return DdlResult(catalog.with_procedure(procedure), "CREATE PROCEDURE")


def _create_trigger(spec: CreateTrigger, catalog: Catalog) -> DdlResult:
    if (spec.schema, spec.name) in catalog.triggers:
        raise errors.DuplicateObject(f'trigger "{spec.name}" already exists')
    catalog, oid = catalog.allocate_oids()
    trigger = Trigger(oid, spec.schema, spec.name, spec.event, spec.target, spec.procedure,
                      spec.body)
    return DdlResult(catalog.with_trigger(trigger), "CREATE TRIGGER")


def _pe_triggers_of(catalog: Catalog, procedure: Procedure) -> list[Trigger]:
    key = (procedure.schema, procedure.name)
    return sorted((t for t in catalog.triggers.values() if t.procedure == key),
                  key=lambda t: t.name)


def _drop(spec: DropDataflow, catalog: Catalog, database: Database) -> DdlResult:
    notices: list[str] = []
    cascaded: list[str] = []
    relations: list[Relation] = []
    for schema, name in spec.names:
        if spec.kind in ("stream", "window"):
            relation = _stream_or_window(spec, schema, name, catalog, notices)
            if relation is not None:
                relations.append(relation)
        elif spec.kind == "procedure":
            catalog = _drop_procedure(spec, schema, name, catalog, cascaded, notices)
        else:
            trigger = catalog.triggers.get((schema, name))
            if trigger is None:
                _missing(spec, "trigger", name, notices)
                continue
            catalog = catalog.without_trigger(schema, name)
    catalog = drop_relations(relations, catalog, database, spec.cascade, cascaded)
    return DdlResult(catalog, f"DROP {spec.kind.upper()}", notices, cascaded)


def _missing(spec: DropDataflow, kind: str, name: str, notices: list[str]) -> None:
    if not spec.if_exists:
        error = errors.UndefinedFunction if kind == "procedure" else (
            errors.UndefinedTable if kind in ("stream", "window") else errors.UndefinedObject)
        raise error(f'{kind} "{name}" does not exist')
    notices.append(f'{kind} "{name}" does not exist, skipping')


def _stream_or_window(spec: DropDataflow, schema: str, name: str, catalog: Catalog,
                      notices: list[str]) -> Relation | None:
    """The stream or window DROP STREAM / WINDOW names (None: IF EXISTS and
    there is none)."""
    relation = catalog.find_relation(name, schema) if schema else None
    if relation is None:
        _missing(spec, spec.kind, name, notices)
        return None
    if spec.kind == "window":
        if relation.window is None:
            raise errors.WrongObjectType(f'"{name}" is not a window')
    elif relation.stream is None:
        raise errors.WrongObjectType(f'"{name}" is not a stream',
                                     hint="Use DROP TABLE to remove a table.")
    return relation


def _drop_procedure(spec: DropDataflow, schema: str, name: str, catalog: Catalog,
                    cascaded: list[str], notices: list[str]) -> Catalog:
    procedure = catalog.procedures.get((schema, name))
    if procedure is None:
        _missing(spec, "procedure", name, notices)
        return catalog
    return drop_procedure(procedure, catalog, spec.cascade, cascaded)


def drop_procedure(procedure: Procedure, catalog: Catalog, cascade: bool,
                   cascaded: list[str]) -> Catalog:
    """The procedure, and with CASCADE the triggers that run it."""
    name = procedure.name
    users = _pe_triggers_of(catalog, procedure)
    if users and not cascade:
        raise errors.DependentObjectsStillExist(
            f"cannot drop procedure {name} because other objects depend on it",
            detail="\n".join(f"trigger {t.name} on {t.target[1]} depends on procedure {name}"
                             for t in users),
            hint="Use DROP ... CASCADE to drop the dependent objects too.")
    for trigger in users:
        cascaded.append(f"trigger {trigger.name} on {trigger.target[1]}")
        catalog = catalog.without_trigger(trigger.schema, trigger.name)
    return catalog.without_procedure(procedure.schema, name)


def makes_dataflow(spec: object) -> bool:
    """Whether a change creates a stream, window, procedure or trigger (the
    database then has the extension, ``ensure_extension``)."""
    return isinstance(spec, CreateProcedure | CreateWindow | CreateTrigger) or (
        isinstance(spec, CreateTable) and spec.stream is not None)
