"""CREATE MATERIALIZED VIEW: the query translated once, its shape analysed,
and the program that keeps it up to date generated (``programs``)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from catalog import errors
from catalog.schema import INFORMATION_SCHEMA, PG_CATALOG, Column, Relation
from executor.ddl.relations import CreateMatview, storage_name
from sqlext.matview.programs import IncrementalProgram, Program, recomputed_program
from sqlext.matview.shape import NotIncremental, analyse
from sqlext.sql.sqlite_dialect import to_sqlite
from sqlext.translate.translator import Translator


@dataclass(frozen=True, slots=True)
class ViewQuery:
    """The query of CREATE [MATERIALIZED] VIEW, translated, its outputs named as
    the view's columns (``sqlext.compile.table_ddl``)."""

    schema: str
    name: str
    definition: str
    """The query as PostgreSQL text (pg_get_viewdef)."""
    translated: exp.Expression
    columns: tuple[Column, ...]
    uses: tuple[tuple[int, tuple[str, ...]], ...]
    """What the query reads (``catalog.schema.ViewRule.reads``)."""


def compile_matview(query: ViewQuery, translator: Translator, if_not_exists: bool
                    ) -> CreateMatview:
    """CREATE MATERIALIZED VIEW, its ``query`` translated by ``translator``."""
    if translator.highest_param:
        raise errors.FeatureNotSupported(
            "materialized views may not be defined using bound parameters")
    names = [c.name for c in query.columns]
    for name in names:
        if names.count(name) > 1:
            raise errors.DuplicateColumn(f'column "{name}" specified more than once',
                                         hint="Name the columns with AS.")
    relations = list(translator.read_relations.values())
    for relation in relations:
        _check_source(relation)
    sources = tuple((r.schema, r.name) for r in relations)
    physical = storage_name(query.schema, query.name, translator.catalog)
    shown_name = f"{query.schema}.{query.name}"
    notice = None
    try:
        shape = analyse(query.translated, {r.physical: r for r in relations})
        program = IncrementalProgram(shape, query.translated, physical, shown_name,
                                     names).build(sources)
    except NotIncremental as exc:
        program = _recomputed(query.translated, physical, shown_name, query.columns,
                              relations, sources, str(exc))
        notice = (f'materialized view "{query.name}" cannot be maintained incrementally '
                  f"because {exc}: it will be recomputed in full when read after its "
                  "tables change")
    return CreateMatview(query.schema, query.name, physical, query.definition,
                             query.columns, program.create, program.matview, notice,
                             if_not_exists, query.uses)


def _check_source(relation: Relation) -> None:
    if relation.schema in (PG_CATALOG, INFORMATION_SCHEMA):
        raise errors.FeatureNotSupported(
            "materialized views cannot read system catalogs",
            detail=f'"{relation.name}" is a system catalog.')
    if relation.kind == "v":
        raise errors.FeatureNotSupported(
            f'materialized views cannot read the view "{relation.name}"',
            hint="Use the view's query, or make it a materialized view.")


def _recomputed(translated: exp.Expression, physical: str, shown_name: str,
                columns: tuple[Column, ...], relations: list[Relation],
                sources: tuple[tuple[str, str], ...], reason: str) -> Program:
    watched: list[str] = []
    for relation in relations:
        tables = relation.matview.watched if relation.matview else (relation.physical,)
        watched += [table for table in tables if table not in watched]
    return recomputed_program(to_sqlite(translated), physical, shown_name,
                              [(c.name, c.type_oid) for c in columns], tuple(watched),
                              sources, reason)
