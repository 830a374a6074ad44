"""ALTER TABLE ... RENAME: whatever names a table or one of its columns
elsewhere in the catalog follows the new name, as in PostgreSQL: the
table's indexes and constraints, other tables' foreign keys, the sequences
of serial columns, the triggers on the table and the columns views use
(views know the table itself by OID)."""

from __future__ import annotations

from dataclasses import replace

from catalog.introspection import quote_identifier
from catalog.schema import Catalog, Constraint, Relation


def table_renamed(catalog: Catalog, old: Relation, new_name: str, physical: str) -> Catalog:
    """``catalog`` with table ``old`` named ``new_name`` (stored as ``physical``)."""
    key, new_key = (old.schema, old.name), (old.schema, new_name)
    renamed = replace(old, name=new_name, physical=physical)
    catalog = catalog.without_relation(old.schema, old.name).with_relation(renamed)
    changed: list[Relation] = []
    for relation in catalog.relations.values():
        constraints = tuple(
            replace(c, ref_table=new_key) if c.kind == "f" and c.ref_table == key else c
            for c in relation.constraints)
        if relation.kind == "i" and relation.schema == old.schema and (
                relation.index_table == old.name):
            schema = quote_identifier(old.schema)
            definition = (relation.definition or "").replace(
                f" ON {schema}.{quote_identifier(old.name)} USING ",
                f" ON {schema}.{quote_identifier(new_name)} USING ")
            changed.append(replace(relation, index_table=new_name, definition=definition))
        elif constraints != relation.constraints:
            changed.append(replace(relation, constraints=constraints))
    catalog = catalog.with_relations(changed)
    for sequence in list(catalog.sequences.values()):
        if sequence.schema == old.schema and sequence.owned_by and (
                sequence.owned_by[0] == old.name):
            catalog = catalog.with_sequence(replace(
                sequence, owned_by=(new_name, sequence.owned_by[1])))
    for trigger in catalog.triggers_on(old):
        catalog = catalog.with_trigger(replace(trigger, target=new_key))
    return catalog


def column_renamed(catalog: Catalog, table: Relation, old: str, new: str) -> Catalog:
    """``catalog`` with column ``old`` of ``table`` named ``new``."""

    def names(columns: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(new if column == old else column for column in columns)

    def follows(constraint: Constraint, owner: Relation) -> Constraint:
        if (owner.schema, owner.name) == (table.schema, table.name):
            constraint = replace(constraint, columns=names(constraint.columns))
        if constraint.kind == "f" and constraint.ref_table == (table.schema, table.name):
            constraint = replace(constraint, ref_columns=names(constraint.ref_columns))
        return constraint

    table = replace(table, columns=tuple(
        replace(c, name=new) if c.name == old else c for c in table.columns),
        partition_key=new if table.partition_key == old else table.partition_key)
    catalog = catalog.with_relation(table)
    changed: list[Relation] = []
    for relation in catalog.relations.values():
        if relation.kind == "i" and relation.schema == table.schema and (
                relation.index_table == table.name) and old in relation.index_columns:
            changed.append(replace(relation, index_columns=names(relation.index_columns),
                                   definition=_definition_renamed(relation, old, new)))
            continue
        constraints = tuple(follows(c, relation) for c in relation.constraints)
        rule = relation.rule
        if rule is not None and old in (rule.columns_read(table.oid) or ()):
            rule = replace(rule, reads=tuple(
                (oid, names(columns) if oid == table.oid else columns)
                for oid, columns in rule.reads))
        if constraints != relation.constraints or rule is not relation.rule:
            changed.append(replace(relation, constraints=constraints, rule=rule))
    catalog = catalog.with_relations(changed)
    for sequence in list(catalog.sequences.values()):
        if sequence.schema == table.schema and sequence.owned_by == (table.name, old):
            catalog = catalog.with_sequence(replace(sequence, owned_by=(table.name, new)))
    return catalog


def _definition_renamed(index: Relation, old: str, new: str) -> str | None:
    """The CREATE INDEX text with a column renamed in its column list (the
    parenthesized part after USING btree; names quoted when they must be)."""
    definition = index.definition
    if definition is None or " USING btree (" not in definition:
        return definition
    head, _, listed = definition.partition(" USING btree (")
    items = []
    for item in listed.removesuffix(")").split(", "):
        name, descending = item.removesuffix(" DESC"), item.endswith(" DESC")
        unquoted = name[1:-1].replace('""', '"') if name.startswith('"') else name
        if unquoted == old:
            name = quote_identifier(new)
        items.append(name + (" DESC" if descending else ""))
    return f"{head} USING btree ({', '.join(items)})"
