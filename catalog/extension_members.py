"""Which objects belong to the extension ``sqlext`` (``catalog.extension``):
pg_depend shows each with deptype 'e', so pg_dump leaves them to the
extension's configuration table."""

from __future__ import annotations

from collections.abc import Iterator

from catalog import errors
from catalog.extension import CONFIG_TABLE, EXTENSION_SCHEMA
from catalog.schema import Catalog, Relation


def is_member(catalog: Catalog, relation: Relation) -> bool:
    """Whether a relation belongs to the extension: streams, windows and
    the configuration table."""
    extension = catalog.extension
    return extension is not None and (relation.stream is not None or relation.window is not None
                                      or relation.oid == extension.table_oid)


def members(catalog: Catalog) -> Iterator[tuple[str, int]]:
    """(the system catalog that holds it, OID) of each member: the schema
    if the extension made it, streams, windows, the configuration table,
    the sequences of streams' serial columns, procedures, and the triggers
    on streams and windows (triggers on tables are dumped with their table)."""
    extension = catalog.extension
    if extension is None:
        return
    if extension.owns_schema:
        yield "pg_namespace", catalog.schemas[EXTENSION_SCHEMA].oid
    member_relations = {(r.schema, r.name) for r in catalog.relations.values()
                        if is_member(catalog, r)}
    for key in sorted(member_relations):
        yield "pg_class", catalog.relations[key].oid
    for sequence in catalog.sequences.values():
        if sequence.owned_by is not None and (sequence.schema, sequence.owned_by[0]) in (
                member_relations):
            yield "pg_class", sequence.oid
    for procedure in catalog.procedures.values():
        yield "pg_proc", procedure.oid
    for trigger in catalog.triggers.values():
        if trigger.target in member_relations:
            yield "pg_trigger", trigger.oid


def check_changeable(catalog: Catalog, relation: Relation, verb: str) -> None:
    """0A000 for UPDATE, DELETE and TRUNCATE of the configuration table: its
    rows are the dataflow's statements (inserting one runs it)."""
    extension = catalog.extension
    if extension is not None and relation.oid == extension.table_oid:
        raise errors.FeatureNotSupported(
            f'cannot {verb} table "{EXTENSION_SCHEMA}.{CONFIG_TABLE}"',
            detail="Its rows are the statements that make the dataflow; a row inserted "
                   "into it runs its statement.",
            hint="Drop or replace the stream, window, procedure or trigger instead.")
