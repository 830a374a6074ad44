"""CREATE / DROP / ALTER / TRUNCATE trees to the executor's DDL specs.

Types are resolved to PostgreSQL OIDs here; default and CHECK expressions
are kept as PostgreSQL text (what pg_get_expr shows) and CHECKs are also
translated for SQLite, which enforces them.
"""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.dependencies import describe, views_using
from catalog.introspection import SEQUENCE_MAX
from catalog.schema import Catalog, Column, Relation
from catalog.sqltypes import SqlType
from executor.ddl import relations
from executor.functions.view_text import bound_query
from sqlext.compile.expression_text import TypedExpression
from sqlext.matview.create import ViewQuery, compile_matview
from sqlext.sql import nodes as x
from sqlext.sql.parse import parse_expression
from sqlext.sql.sqlite_dialect import to_sqlite
from sqlext.translate.scope import Scope, Source, stored_column
from sqlext.translate.translator import Translator
from sqlext.translate.type_names import SERIAL_TYPES, resolve_type


def pg_sql(node: exp.Expression) -> str:
    """PostgreSQL text of an expression, function names as written."""
    return node.sql(dialect="postgres", normalize_functions=False)


def creation_schema(table: exp.Table, catalog: Catalog, search_path: tuple[str, ...]) -> str:
    """Where CREATE puts an object: its schema, or the first schema of the
    search path that exists (as in PostgreSQL)."""
    if table.db:
        return table.db
    for schema in search_path:
        if schema in catalog.schemas and schema != "pg_catalog":
            return schema
    raise errors.InvalidSchemaName("no schema has been selected to create in")


def _names(nodes: list[exp.Expression]) -> tuple[str, ...]:
    return tuple(node.name for node in nodes)


def _referential_actions(reference: exp.Expression) -> tuple[str | None, str | None]:
    on_delete = on_update = None
    for option in reference.args.get("options") or []:
        text = str(option).upper()
        if text.startswith("ON DELETE "):
            on_delete = text.removeprefix("ON DELETE ")
        elif text.startswith("ON UPDATE "):
            on_update = text.removeprefix("ON UPDATE ")
    return on_delete, on_update


def _must_be_table(node: exp.Expression) -> exp.Table:
    """A table name where sqlglot may have parsed something else (``ALTER
    TABLE SELECT ...``): 42601 as PostgreSQL's grammar gives."""
    if not isinstance(node, exp.Table):
        raise errors.SqlSyntaxError(f'syntax error at or near "{pg_sql(node).split()[0]}"')
    return node


def _reference(reference: exp.Expression, search_path: tuple[str, ...], catalog: Catalog,
               creating: tuple[str, str] | None = None
               ) -> tuple[tuple[str, str], tuple[str, ...]]:
    """The table and columns a REFERENCES clause names. ``creating``: the
    table being created, which may reference itself; its key columns, when
    not named, are filled in once the whole statement is read."""
    target = reference.this
    table = _must_be_table(target.this if isinstance(target, exp.Schema) else target)
    columns = _names(target.expressions) if isinstance(target, exp.Schema) else ()
    if creating is not None and table.name == creating[1] and table.db in ("", creating[0]):
        return creating, columns
    relation = catalog.relation(table.name, table.db or None, search_path)
    if not columns:
        primary = relation.primary_key
        if primary is None:
            raise errors.UndefinedObject(
                f'there is no primary key for referenced table "{relation.name}"')
        columns = primary.columns
    keys = [c.columns for c in relation.constraints if c.kind in ("p", "u")]
    keys += [index.index_columns for index in catalog.indexes_of(relation) if index.unique]
    _require_unique_key(keys, columns, relation.name)
    return (relation.schema, relation.name), columns


def _require_unique_key(keys: list[tuple[str, ...]], columns: tuple[str, ...],
                        table: str) -> None:
    """A foreign key must reference columns a primary key or unique
    constraint (or unique index) covers exactly, in any order."""
    if not any(len(key) == len(columns) and set(key) == set(columns) for key in keys):
        raise errors.InvalidForeignKey(
            f'there is no unique constraint matching given keys for referenced table "{table}"')


def _self_references(constraints: list[relations.ConstraintSpec],
                     creating: tuple[str, str]) -> tuple[relations.ConstraintSpec, ...]:
    """A table's references to itself without named columns take its
    primary key, which may be declared after them."""
    primary = next((c.columns for c in constraints if c.kind == "p"), None)
    keys = [c.columns for c in constraints if c.kind in ("p", "u")]
    finished = []
    for constraint in constraints:
        if constraint.ref_table == creating:
            if not constraint.ref_columns:
                if primary is None:
                    raise errors.UndefinedObject(
                        f'there is no primary key for referenced table "{creating[1]}"')
                constraint = replace(constraint, ref_columns=primary)
            _require_unique_key(keys, constraint.ref_columns, creating[1])
        finished.append(constraint)
    return tuple(finished)


class DdlCompiler:
    """Compiles one DDL statement against a catalog."""

    def __init__(self, translator: Translator) -> None:
        self.translator = translator
        self.catalog = translator.catalog
        self.search_path = translator.search_path

    def compile(self, node: exp.Expression) -> relations.DdlSpec:
        if isinstance(node, x.RefreshMatview):
            schema, name = self._resolved(node.this)
            return relations.RefreshMatview(schema, name)
        if isinstance(node, exp.Create):
            return self._create(node)
        if isinstance(node, exp.Drop):
            return self._drop(node)
        if isinstance(node, exp.TruncateTable):
            for item in node.expressions:
                _must_be_table(item)
            return relations.Truncate(tuple(self._resolved(t) for t in node.expressions))
        if isinstance(node, exp.Alter):
            return self._alter(node)
        raise errors.FeatureNotSupported(f"{node.key.upper()} is not supported")

    # --- CREATE ----------------------------------------------------------------

    def _create(self, node: exp.Create) -> relations.DdlSpec:
        kind = str(node.args.get("kind") or "").upper()
        properties = node.args.get("properties")
        if properties is not None and any(
            isinstance(p, exp.TemporaryProperty) for p in properties.expressions
        ):
            raise errors.FeatureNotSupported("temporary tables are not supported")
        if kind == "TABLE":
            if node.expression is not None:
                raise errors.FeatureNotSupported("CREATE TABLE AS is not supported")
            return self._create_table(node)
        if kind == "INDEX":
            return self._create_index(node)
        if kind == "VIEW" and properties is not None and any(
            isinstance(p, exp.MaterializedProperty) for p in properties.expressions
        ):
            return compile_matview(self.view_query(node, "materialized views"),
                                   self.translator, bool(node.args.get("exists")))
        if kind == "VIEW":
            return self._create_view(node)
        if kind == "SCHEMA":
            return relations.CreateSchema(node.this.db or node.this.name,
                                    bool(node.args.get("exists")))
        if kind == "SEQUENCE":
            return self._create_sequence(node)
        raise errors.FeatureNotSupported(f"CREATE {kind} is not supported")

    def _create_table(self, node: exp.Create) -> relations.CreateTable:
        schema_node = node.this
        partition_key = _partition_key(node.args.get("properties"))
        if not isinstance(schema_node, exp.Schema):
            raise errors.SqlSyntaxError("CREATE TABLE needs a column list")
        table = schema_node.this
        schema = creation_schema(table, self.catalog, self.search_path)
        columns: list[relations.ColumnSpec] = []
        constraints: list[relations.ConstraintSpec] = []
        creating = (schema, table.name)
        for item in schema_node.expressions:
            if isinstance(item, exp.ColumnDef):
                columns.append(self._column(item, table.name, constraints, creating))
            else:
                constraints.append(self._table_constraint(item, table.name, creating))
        return self._finish_checks(relations.CreateTable(
            schema, table.name, tuple(columns), _self_references(constraints, creating),
            bool(node.args.get("exists")), partition_key=partition_key))

    def _column(self, item: exp.ColumnDef, table: str,
                constraints: list[relations.ConstraintSpec],
                creating: tuple[str, str] | None = None) -> relations.ColumnSpec:
        name = item.name
        kind = item.args.get("kind")
        if kind is None:
            raise errors.SqlSyntaxError(f'column "{name}" needs a type')
        sql_type = resolve_type(kind)
        serial = isinstance(kind, exp.DataType) and kind.this in SERIAL_TYPES
        not_null = False
        default: str | None = None
        identity, start, increment = "", 1, 1
        for constraint in item.args.get("constraints") or []:
            spec = constraint.args.get("kind")
            constraint_name = constraint.name or None
            if isinstance(spec, exp.NotNullColumnConstraint):
                not_null = not spec.args.get("allow_null")
            elif isinstance(spec, exp.DefaultColumnConstraint):
                default = self._default(spec.this, sql_type, name)
            elif isinstance(spec, exp.PrimaryKeyColumnConstraint):
                constraints.append(relations.ConstraintSpec("p", (name,), constraint_name))
            elif isinstance(spec, exp.UniqueColumnConstraint):
                constraints.append(relations.ConstraintSpec("u", (name,), constraint_name))
            elif isinstance(spec, exp.CheckColumnConstraint):
                constraints.append(_check(spec.this, constraint_name
                                          or f"{table}_{name}_check"))
            elif isinstance(spec, exp.Reference):
                target, ref_columns = _reference(spec, self.search_path, self.catalog,
                                                 creating)
                on_delete, on_update = _referential_actions(spec)
                constraints.append(relations.ConstraintSpec(
                    "f", (name,), constraint_name, ref_table=target, ref_columns=ref_columns,
                    on_delete=on_delete, on_update=on_update))
            elif isinstance(spec, exp.GeneratedAsIdentityColumnConstraint):
                serial = True
                identity, start, increment = _identity(spec)
            else:
                raise errors.FeatureNotSupported(
                    f"column constraint {pg_sql(constraint)} is not supported")
        return relations.ColumnSpec(name, sql_type.oid, sql_type.typmod, not_null, default, serial,
                                    identity=identity, start=start, increment=increment)

    def _default(self, expression: exp.Expression, target: SqlType, column: str
                 ) -> str | None:
        """Check the default translates, and keep it as PostgreSQL prints it
        (None for NULL, a default PostgreSQL does not keep)."""
        typed = TypedExpression(expression, self.catalog, self.search_path,
                                self.translator.settings)
        typed.default(target, column)
        bare = expression
        while isinstance(bare, exp.Paren | exp.Cast):
            bare = bare.this
        return None if isinstance(bare, exp.Null) else typed.text()

    def _translated_default(self, expression: exp.Expression, target: SqlType,
                            column: str) -> str:
        probe = Translator(self.catalog, self.search_path, [], self.translator.settings)
        holder = exp.Paren(this=expression.copy())
        _, found = probe.expr(holder.this, Scope())
        return to_sqlite(probe.assign(holder.this, found, target, column))

    def _table_constraint(self, item: exp.Expression, table: str,
                          creating: tuple[str, str] | None = None
                          ) -> relations.ConstraintSpec:
        name: str | None = None
        if isinstance(item, exp.Constraint):
            name = item.name
            if len(item.expressions) != 1:
                raise errors.FeatureNotSupported("multiple constraints in one clause")
            item = item.expressions[0]
        if isinstance(item, exp.PrimaryKey):
            return relations.ConstraintSpec("p", _names(item.expressions), name)
        if isinstance(item, exp.PrimaryKeyColumnConstraint):
            return relations.ConstraintSpec("p", _names(item.this.expressions), name)
        if isinstance(item, exp.UniqueColumnConstraint):
            target = item.this
            if not isinstance(target, exp.Schema):
                raise errors.SqlSyntaxError("UNIQUE needs a column list")
            return relations.ConstraintSpec("u", _names(target.expressions), name)
        if isinstance(item, exp.CheckColumnConstraint):
            return _check(item.this, name)
        if isinstance(item, exp.ForeignKey):
            reference = item.args["reference"]
            target, ref_columns = _reference(reference, self.search_path, self.catalog,
                                             creating)
            on_delete, on_update = _referential_actions(reference)
            return relations.ConstraintSpec("f", _names(item.expressions), name, ref_table=target,
                                      ref_columns=ref_columns, on_delete=on_delete,
                                      on_update=on_update)
        raise errors.FeatureNotSupported(f"table constraint {pg_sql(item)} is not supported")

    def _finish_checks(self, spec: relations.CreateTable) -> relations.CreateTable:
        """Translate CHECK conditions now that all column types are known."""
        source = Source(spec.name, [stored_column(c) for c in spec.columns])
        constraints = []
        for constraint in spec.constraints:
            if constraint.kind == "c":
                tree = exp.Paren(this=parse_expression(constraint.check_sql or "TRUE"))
                scope = Scope()
                scope.add(source)
                self.translator.expr(tree.this, scope)
                for column in tree.find_all(exp.Column):
                    column.set("table", None)
                used = tuple(dict.fromkeys(c.name for c in tree.find_all(exp.Column)))
                constraint = relations.ConstraintSpec(
                    "c", used, constraint.name or f"{spec.name}_check",
                    check_sql=constraint.check_sql, check_sqlite=to_sqlite(tree.this))
            constraints.append(constraint)
        return replace(spec, constraints=tuple(constraints))

    def _create_index(self, node: exp.Create) -> relations.CreateIndex:
        index = node.this
        table = index.args["table"]
        params = index.args.get("params")
        columns: list[tuple[str, bool]] = []
        for ordered in params.args.get("columns") or [] if params is not None else []:
            target = ordered.this if isinstance(ordered, exp.Ordered) else ordered
            if not isinstance(target, exp.Column):
                raise errors.FeatureNotSupported("indexes on expressions are not supported")
            columns.append((target.name, bool(ordered.args.get("desc"))))
        schema = creation_schema(table, self.catalog, self.search_path)
        self.translator.check_schema(table)
        relation = self.catalog.relation(table.name, table.db or None, self.search_path)
        where = params.args.get("where") if params is not None else None
        predicate = None
        if where is not None:
            typed = TypedExpression(where.this, self.catalog, self.search_path,
                                    self.translator.settings)
            scope = Scope()
            scope.add(Source(relation.name, [stored_column(c) for c in relation.columns]))
            condition = typed.condition(scope)
            predicate = relations.Predicate(typed.text(), condition)
        return relations.CreateIndex(relation.schema if not table.db else schema,
                               index.name or None, relation.name, tuple(columns),
                               bool(node.args.get("unique")), bool(node.args.get("exists")),
                               predicate)

    def _create_view(self, node: exp.Create) -> relations.CreateView:
        query = self.view_query(node, "views")
        reads = tuple((r.schema, r.name) for r in self.translator.read_relations.values())
        return relations.CreateView(query.schema, query.name, query.definition,
                              to_sqlite(query.translated), query.columns,
                              bool(node.args.get("replace")), reads, query.uses)

    def view_query(self, node: exp.Create, what: str) -> ViewQuery:
        """The query of CREATE [MATERIALIZED] VIEW, translated, its outputs
        named as the view's columns."""
        table = node.this
        columns_override: list[str] = []
        if isinstance(table, exp.Schema):
            columns_override = list(_names(table.expressions))
            table = table.this
        query = node.expression
        if not isinstance(query, exp.Query):
            raise errors.SqlSyntaxError("syntax error at end of input")
        definition = bound_query(query, self.catalog, self.search_path)
        translated = query.copy()
        produced = self.translator.query(translated)
        if self.translator.writes:
            raise errors.FeatureNotSupported(f"{what} cannot lock rows")
        names = columns_override + [c.name for c in produced[len(columns_override):]]
        if isinstance(translated, exp.Select):
            for projection, name in zip(translated.expressions, names, strict=False):
                target = projection.this if isinstance(projection, exp.Alias) else projection
                projection.replace(exp.alias_(target.copy(), name, quoted=True))
        columns = tuple(Column(name, info.type.oid, info.type.typmod)
                        for name, info in zip(names, produced, strict=False))
        schema = creation_schema(table, self.catalog, self.search_path)
        return ViewQuery(schema, table.name, definition, translated, columns,
                         self._uses())

    def _uses(self) -> tuple[tuple[int, tuple[str, ...]], ...]:
        """What the translated view query reads (``ViewRule.reads``): the
        columns in the relation's order, system columns left out (they
        cannot be dropped)."""
        reads = self.translator.column_reads
        return tuple((oid, tuple(c.name for c in relation.columns
                                 if c.name in reads.get(oid, ())))
                     for oid, relation in self.translator.read_relations.items())

    def _create_sequence(self, node: exp.Create) -> relations.CreateSequence:
        start: int | None = None
        increment = 1
        declared = node.args.get("expression")
        type_oid = resolve_type(declared).oid if isinstance(declared, exp.DataType) else t.INT8
        if type_oid not in SEQUENCE_MAX:
            raise errors.InvalidParameterValue(
                "sequence type must be smallint, integer, or bigint")
        properties = node.args.get("properties")
        for prop in properties.expressions if properties is not None else []:
            if not isinstance(prop, exp.SequenceProperties):
                raise errors.FeatureNotSupported(f"{pg_sql(prop)} is not supported")
            if prop.args.get("start") is not None:
                start = _sequence_number(prop.args["start"])
            if prop.args.get("increment") is not None:
                increment = _sequence_number(prop.args["increment"])
            _check_sequence_options(prop, type_oid, increment)
        if start is None:  # a descending sequence starts at its maximum, -1
            start = 1 if increment > 0 else -1
        table = node.this
        schema = creation_schema(table, self.catalog, self.search_path)
        return relations.CreateSequence(schema, table.name, start,
                                  increment, bool(node.args.get("exists")), type_oid)

    # --- DROP / ALTER ----------------------------------------------------------

    def _drop(self, node: exp.Drop) -> relations.Drop:
        kind = str(node.args.get("kind") or "").lower()
        if kind == "view" and node.args.get("materialized"):
            kind = "materialized view"
        if kind not in ("table", "view", "materialized view", "index", "sequence", "schema"):
            raise errors.FeatureNotSupported(f"DROP {kind.upper()} is not supported")
        names: list[tuple[str | None, str]] = []
        for table in node.args.get("tables") or []:
            if kind == "schema":
                names.append((None, table.db or table.name))
            else:
                names.append(self._resolved(table))
        return relations.Drop(kind, tuple(names), bool(node.args.get("exists")),
                        bool(node.args.get("cascade")))

    def _resolved(self, table: exp.Table) -> tuple[str | None, str]:
        """(schema, name) of an existing relation or sequence named in DDL; the
        schema stays None when nothing by that name exists (the executor then
        reports it, or skips it for IF EXISTS)."""
        if table.db:
            return table.db, table.name
        found = self.catalog.find_relation(table.name, None, self.search_path)
        if found is not None:
            return found.schema, found.name
        sequence = self.catalog.find_sequence(table.name, None, self.search_path)
        return (sequence.schema if sequence else None), table.name

    def _check_type_change(self, table: exp.Table, column: str) -> None:
        """ALTER COLUMN ... TYPE (which sqlext does not do): PostgreSQL
        refuses it for a column a view uses, and sqlext says so first."""
        schema, name = self._resolved(table)
        relation = self.catalog.relation(name, schema, self.search_path)
        relation.column(column)
        views = views_using(self.catalog, relation, column)
        if views:
            raise errors.FeatureNotSupported(
                "cannot alter type of a column used by a view or rule",
                detail=f'rule _RETURN on {describe(views[0])} depends on column "{column}"')

    def _alter(self, node: exp.Alter) -> relations.AlterTable:
        if str(node.args.get("kind") or "").upper() != "TABLE":
            raise errors.FeatureNotSupported("only ALTER TABLE is supported")
        table = _must_be_table(node.this)
        add: list[relations.ColumnSpec] = []
        drop: list[tuple[str, bool]] = []
        rename_to: str | None = None
        rename_column: tuple[str, str] | None = None
        defaults: list[tuple[str, str | None]] = []
        constraints: list[relations.ConstraintSpec] = []
        dropped: list[tuple[str, bool, bool]] = []
        nullability: list[tuple[str, bool]] = []
        for action in node.args.get("actions") or []:
            if isinstance(action, exp.ColumnDef):
                spec = self._column(action, table.name, [])
                if spec.default is not None:
                    default = parse_expression(spec.default)
                    spec = replace(spec, default_sqlite=self._translated_default(
                        default, SqlType(spec.type_oid, spec.typmod), spec.name))
                add.append(spec)
            elif isinstance(action, exp.Drop) and str(action.args.get("kind")).upper() == (
                "COLUMN"
            ):
                drop.extend((column.name, bool(action.args.get("cascade")))
                            for column in action.args.get("tables") or action.expressions)
            elif isinstance(action, exp.Drop) and str(action.args.get("kind")).upper() == (
                "CONSTRAINT"
            ):
                dropped.extend((item.name, bool(action.args.get("exists")),
                                bool(action.args.get("cascade")))
                               for item in action.args.get("tables") or action.expressions)
            elif isinstance(action, exp.AlterRename):
                rename_to = action.this.name
            elif isinstance(action, exp.RenameColumn):
                rename_column = (action.this.name, action.args["to"].name)
            elif isinstance(action, exp.AlterColumn) and {
                    key for key, value in action.args.items() if value} - {"this"} in (
                    {"default"}, {"drop"}):
                defaults.append(self._column_default(table, action))
            elif isinstance(action, exp.AlterColumn) and {
                    key for key, value in action.args.items() if value is not None} - {
                    "this", "drop"} == {"allow_null"}:
                nullability.append((action.name, not action.args["allow_null"]))
            elif isinstance(action, exp.AddConstraint):
                constraints.extend(self._added_constraint(table, item)
                                   for item in action.expressions)
            else:
                if isinstance(action, exp.AlterColumn) and action.args.get("dtype"):
                    self._check_type_change(table, action.name)
                raise errors.FeatureNotSupported(
                    f"ALTER TABLE {pg_sql(action)} is not supported")
        schema, name = self._resolved(table)
        return relations.AlterTable(schema, name, tuple(add), tuple(drop), rename_to,
                              rename_column, bool(node.args.get("exists")), tuple(defaults),
                              tuple(constraints), tuple(dropped), tuple(nullability))

    def _altered(self, table: exp.Table) -> Relation:
        schema, name = self._resolved(table)
        return self.catalog.relation(name, schema, self.search_path)

    def _column_default(self, table: exp.Table, action: exp.AlterColumn
                        ) -> tuple[str, str | None]:
        """ALTER COLUMN ... SET DEFAULT expression | DROP DEFAULT."""
        expression = action.args.get("default")
        if expression is None:
            return action.name, None
        column = self._altered(table).column(action.name)
        return action.name, self._default(expression, SqlType(column.type_oid, column.typmod),
                                          column.name)

    def _added_constraint(self, table: exp.Table, item: exp.Expression
                          ) -> relations.ConstraintSpec:
        """ADD [CONSTRAINT name] ...: as in CREATE TABLE, a CHECK translated
        for the table's columns."""
        spec = self._table_constraint(item, table.name)
        if spec.kind != "c":
            return spec
        relation = self._altered(table)
        columns = [relations.ColumnSpec(c.name, c.type_oid, c.typmod) for c in relation.columns]
        checked = self._finish_checks(relations.CreateTable(relation.schema, relation.name,
                                                            tuple(columns), (spec,)))
        return checked.constraints[0]


def _sequence_number(node: exp.Expression) -> int:
    """START and INCREMENT of CREATE SEQUENCE: an integer, maybe negative."""
    negative = isinstance(node, exp.Neg)
    number = node.this if negative else node
    if not (isinstance(number, exp.Literal) and number.is_int):
        raise errors.SqlSyntaxError(f'syntax error at or near "{pg_sql(node).split()[0]}"')
    return -int(number.name) if negative else int(number.name)


def _identity(spec: exp.GeneratedAsIdentityColumnConstraint) -> tuple[str, int, int]:
    """GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY [(START WITH s INCREMENT BY
    i)]: the kind of identity and how its sequence counts."""
    unsupported = [key for key, value in spec.args.items()
                   if value and key not in ("this", "start", "increment")]
    if unsupported:
        raise errors.FeatureNotSupported(
            f"identity option {unsupported[0].upper()} is not supported")
    increment = _sequence_number(spec.args["increment"]) if spec.args.get(
        "increment") is not None else 1
    start = _sequence_number(spec.args["start"]) if spec.args.get("start") is not None else (
        1 if increment > 0 else -1)
    return ("a" if spec.this else "d"), start, increment


def _check_sequence_options(prop: exp.SequenceProperties, type_oid: int, increment: int
                            ) -> None:
    """CREATE SEQUENCE options other than START and INCREMENT: those that
    state PostgreSQL's defaults (as pg_dump writes them) are accepted; sqlext
    sequences have no other bounds, caches or cycles (0A000)."""
    low, high = (1, SEQUENCE_MAX[type_oid]) if increment > 0 else (
        -SEQUENCE_MAX[type_oid] - 1, -1)
    for key, default in (("minvalue", low), ("maxvalue", high), ("cache", 1)):
        if prop.args.get(key) is not None and _sequence_number(prop.args[key]) != default:
            raise errors.FeatureNotSupported(f"sequence option {key.upper()} is not supported",
                                             hint="sqlext sequences have no bounds but "
                                                  "their type's and cache nothing.")
    for option in prop.args.get("options") or []:
        if str(option.this).upper() not in ("NO MINVALUE", "NO MAXVALUE", "NO CYCLE"):
            raise errors.FeatureNotSupported(
                f"sequence option {str(option.this).upper()} is not supported")
    if prop.args.get("owned") is not None:
        raise errors.FeatureNotSupported("OWNED BY in CREATE SEQUENCE is not supported",
                                         hint="Use ALTER SEQUENCE ... OWNED BY.")


def _partition_key(properties: exp.Properties | None) -> str | None:
    """The column of PARTITION BY HASH (column), None without PARTITION BY."""
    for prop in properties.expressions if properties is not None else ():
        if isinstance(prop, exp.PartitionedOfProperty):
            raise errors.FeatureNotSupported(
                "PARTITION OF is not supported",
                hint="A table declared PARTITION BY HASH (column) is spread over the nodes of "
                     "a sqlext cluster by its key: it has no partitions of its own to create.")
        if not isinstance(prop, exp.PartitionedByProperty):
            continue
        method = prop.this
        if not (isinstance(method, exp.Anonymous) and str(method.this).upper() == "HASH"):
            raise errors.FeatureNotSupported(
                "only PARTITION BY HASH (column) is supported",
                hint="sqlext places each row on the cluster node that owns the hash of its key.")
        keys = method.expressions
        if len(keys) != 1 or not isinstance(keys[0], exp.Column) or keys[0].table:
            raise errors.FeatureNotSupported("a partition key is exactly one column",
                                             hint="PARTITION BY HASH (column)")
        return keys[0].name
    return None


def _check(condition: exp.Expression, name: str | None) -> relations.ConstraintSpec:
    """A CHECK constraint, translated for SQLite once the table is complete."""
    while isinstance(condition, exp.Paren):  # as PostgreSQL keeps it: CHECK ((a > 0))
        condition = condition.this
    return relations.ConstraintSpec("c", (), name, check_sql=pg_sql(condition))

