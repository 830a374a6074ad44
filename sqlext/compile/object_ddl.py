"""COMMENT ON, ALTER ... OWNER TO, ALTER SEQUENCE ... OWNED BY, ALTER TABLE
... ADD GENERATED AS IDENTITY and CREATE EXTENSION trees to the executor's
specs (``executor.ddl.objects``, ``executor.ddl.create_extension``): names are
looked up on the session's search path here, so the specs name their
objects' schemas."""

from __future__ import annotations

from sqlglot import exp

from catalog import errors
from executor.ddl import objects
from executor.ddl.create_extension import CreateExtension
from sqlext.sql import nodes as x
from sqlext.translate.translator import Translator
from sqlext.version import __version__


def compile_object_statement(node: x.ObjectDdl, translator: Translator
                             ) -> objects.ObjectSpec | CreateExtension:
    if isinstance(node, x.CreateExtension):
        return CreateExtension(node.name, __version__, node.args.get("schema"),
                               node.args.get("version"), bool(node.args.get("exists")))
    if isinstance(node, x.CommentOn):
        kind = node.args["kind"]
        if kind == "extension":
            raise errors.FeatureNotSupported("COMMENT ON EXTENSION is not supported")
        if kind == "schema":
            return objects.SetComment(kind, None, node.this.name, text=node.args.get("text"))
        schema = _schema_of(node.this, translator, sequence=kind == "sequence")
        return objects.SetComment(kind, schema, node.this.name, node.args.get("column"),
                                  node.args.get("text"))
    if isinstance(node, x.AlterOwner):
        kind = node.args["kind"]
        if kind == "schema":
            return objects.ChangeOwner(kind, None, node.this.name, node.args["owner"])
        schema = _schema_of(node.this, translator, sequence=kind in ("table", "sequence"))
        return objects.ChangeOwner(kind, schema, node.this.name, node.args["owner"])
    if isinstance(node, x.AlterSequenceOwner):
        schema = _schema_of(node.this, translator, sequence=True)
        column = node.args.get("column")
        if column is None:
            return objects.SequenceOwnedBy(schema, node.this.name, None)
        if not column.table:
            raise errors.SqlSyntaxError("invalid OWNED BY option",
                                        hint="Specify OWNED BY table.column or OWNED BY NONE.")
        table = exp.Table(this=column.args["table"], db=column.args.get("db"))
        return objects.SequenceOwnedBy(schema, node.this.name,
                                       (_schema_of(table, translator), table.name), column.name)
    if isinstance(node, x.AddIdentity):
        sequence = node.args.get("sequence")
        schema = _schema_of(node.this, translator)
        if sequence is not None and sequence.db and sequence.db != schema:
            raise errors.ObjectNotInPrerequisiteState(
                "sequence must be in same schema as table it is linked to")
        return objects.AddIdentity(schema, node.this.name, node.args["column"],
                                   bool(node.args["always"]),
                                   sequence.name if sequence is not None else None,
                                   node.args.get("start"), node.args.get("increment"))
    raise errors.FeatureNotSupported(f"{node.key.upper()} is not supported")


def _schema_of(name: exp.Table, translator: Translator, sequence: bool = False) -> str:
    """The schema of the relation (or, with ``sequence``, the sequence) a
    possibly qualified name finds on the search path: 42P01 if none."""
    translator.check_schema(name)
    catalog = translator.catalog
    if name.db:
        if name.db not in catalog.schemas:
            raise errors.InvalidSchemaName(f'schema "{name.db}" does not exist')
        return name.db
    relation = catalog.find_relation(name.name, None, translator.search_path)
    if relation is not None:
        return relation.schema
    found = catalog.find_sequence(name.name, None, translator.search_path) if sequence else None
    if found is None:
        raise errors.UndefinedTable(f'relation "{name.name}" does not exist')
    return found.schema
