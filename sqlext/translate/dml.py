"""INSERT, UPDATE and DELETE: types of the target columns decide how values
are converted, missing columns get their defaults (evaluated by us, per row,
as PostgreSQL does), RETURNING lists are typed like queries.
"""

from __future__ import annotations

from sqlglot import exp

from catalog import errors
from catalog.extension_members import check_changeable
from catalog.schema import Column, Relation
from catalog.sqltypes import SqlType
from sqlext.sql.object_statements import OVERRIDING
from sqlext.sql.parse import parse_expression
from sqlext.translate.scope import ColumnInfo, Scope, Source, stored_column
from sqlext.translate.sources import system_columns
from sqlext.translate.translator import Translator, output_name, physical_table


def _target_source(relation: Relation, alias: str) -> Source:
    """The changed relation as a statement sees it (under its name or alias,
    or as EXCLUDED): what is read through it is read from the relation."""
    source = Source(alias, [
        stored_column(c, relation.oid, number) for number, c in enumerate(relation.columns, start=1)
    ], relation_oid=relation.oid)
    source.system_columns.extend(system_columns(relation))
    return source


def _writable(translator: Translator, table: exp.Table) -> Relation:
    relation = translator.relation(table)
    if relation.kind != "r":
        raise errors.WrongObjectType(f'cannot change {relation.kind_name} "{relation.name}"')
    if relation.schema == "pg_catalog":
        raise errors.InsufficientPrivilege(
            f'permission denied: "{relation.name}" is a system catalog')
    if relation.window is not None:
        raise errors.WrongObjectType(f'cannot change window "{relation.name}"',
                                     detail="A window fills from its stream by itself.")
    translator.target_relation = relation
    return relation


def _set_physical(table: exp.Table, relation: Relation) -> None:
    physical = physical_table(relation)
    table.set("this", physical.this)
    table.set("db", physical.args.get("db"))
    table.set("catalog", None)
    table.set("only", None)


def default_expression(translator: Translator, column: Column) -> exp.Expression:
    """The column's default as a translated expression (NULL if none)."""
    if column.default is None:
        return exp.Null()
    expression = parse_expression(column.default)
    holder = exp.Paren(this=expression)
    _, sql_type = translator.expr(expression, Scope())
    target = SqlType(column.type_oid, column.typmod)
    return translator.assign(holder.this, sql_type, target, column.name)


def _generated_always(column: Column, message: str) -> errors.GeneratedAlways:
    return errors.GeneratedAlways(message, detail=f'Column "{column.name}" is an identity '
                                  "column defined as GENERATED ALWAYS.")


def _check_not_always(column: Column, overriding: bool) -> None:
    """A value for a GENERATED ALWAYS identity column: only with OVERRIDING
    SYSTEM VALUE (as COPY inserts)."""
    if column.identity == "a" and not overriding:
        error = _generated_always(
            column, f'cannot insert a non-DEFAULT value into column "{column.name}"')
        error.hint = "Use OVERRIDING SYSTEM VALUE to override."
        raise error


def _returning(translator: Translator, node: exp.Expression, scope: Scope) -> list[
        ColumnInfo] | None:
    returning = node.args.get("returning")
    if returning is None:
        return None
    expanded: list[exp.Expression] = []
    for item in returning.expressions:
        if isinstance(item, exp.Star) or (
            isinstance(item, exp.Column) and isinstance(item.this, exp.Star)
        ):
            source = scope.sources[0]
            expanded.extend(exp.column(c.name, source.alias, quoted=True)
                            for c in source.columns)
        else:
            expanded.append(item)
    returning.set("expressions", expanded)
    columns = []
    for item in list(returning.expressions):
        name = output_name(item)
        translated, sql_type = translator.expr(item, scope)
        columns.append(ColumnInfo(name, sql_type))
        if not isinstance(translated, exp.Alias):
            translated.replace(exp.alias_(translated.copy(), name, quoted=True))
    # SQLite's RETURNING sees only the target table, and only by bare names.
    target = scope.sources[0].alias
    for column in returning.find_all(exp.Column):
        if column.table == target:
            column.set("table", None)
    return columns


def _is_default(item: exp.Expression) -> bool:
    return isinstance(item, exp.Var | exp.Column) and item.name.upper() == "DEFAULT" and (
        not isinstance(item, exp.Column) or not item.table)


def translate_insert(translator: Translator, node: exp.Insert) -> tuple[
        list[ColumnInfo] | None, str]:
    translator.writes = True
    target = node.this
    overriding = bool(target.meta.get(OVERRIDING))
    listed: list[str] | None = None
    if isinstance(target, exp.Schema):
        listed = [identifier.name for identifier in target.expressions]
        table = target.this
    else:
        table = target
    if not isinstance(table, exp.Table):
        raise errors.SqlSyntaxError('syntax error at or near "("')
    relation = _writable(translator, table)
    alias = table.alias or relation.name
    source = node.expression
    if source is None and not node.args.get("default"):
        raise errors.SqlSyntaxError("syntax error at end of input")
    if listed is None:
        # Without a column list the values fill the first columns in order.
        listed = [c.name for c in relation.columns][:_source_width(source)]
    elif len(set(listed)) != len(listed):
        raise errors.DuplicateColumn("column specified more than once")
    columns = [relation.column(name) for name in listed]
    translator.target_columns = tuple(listed)
    defaulted = [c for c in relation.columns if c.name not in listed and c.default is not None]
    if isinstance(source, exp.Values):
        _insert_values(translator, source, columns, defaulted, overriding)
    elif source is not None:
        _insert_query(translator, node, source, columns, defaulted, overriding)
    elif defaulted:
        values = exp.Values(expressions=[exp.Tuple(expressions=[
            default_expression(translator, c) for c in defaulted])])
        node.set("expression", values)
        node.set("default", None)
    all_columns = [c.name for c in columns] + [c.name for c in defaulted]
    if all_columns:
        node.set("this", exp.Schema(this=table, expressions=[
            exp.to_identifier(name, quoted=True) for name in all_columns]))
    else:
        node.set("this", table)
        node.set("expression", None)
        node.set("default", True)
    _set_physical(table, relation)
    table.set("alias", exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))
    scope = Scope()
    scope.add(_target_source(relation, alias))
    conflict = node.args.get("conflict")
    if conflict is not None:
        _on_conflict(translator, conflict, relation, scope)
    return _returning(translator, node, scope), relation.physical


def _source_width(source: exp.Expression | None) -> int | None:
    """How many values each row of an INSERT source has (None: all columns)."""
    if isinstance(source, exp.Values) and source.expressions:
        first = source.expressions[0]
        return len(first.expressions) if isinstance(first, exp.Tuple) else 1
    if isinstance(source, exp.Select):
        if any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(
                p.this, exp.Star)) for p in source.expressions):
            return None
        return len(source.expressions)
    return None if source is not None else 0


def _insert_values(translator: Translator, values: exp.Values, columns: list[Column],
                   defaulted: list[Column], overriding: bool) -> None:
    scope = Scope()
    for row in list(values.expressions):
        items = row.expressions if isinstance(row, exp.Tuple) else [row]
        if len(items) > len(columns):
            raise errors.SqlSyntaxError("INSERT has more expressions than target columns")
        if len(items) < len(columns):
            raise errors.SqlSyntaxError("INSERT has more target columns than expressions")
        converted: list[exp.Expression] = []
        for item, column in zip(list(items), columns, strict=True):
            if _is_default(item):
                converted.append(default_expression(translator, column))
                continue
            _check_not_always(column, overriding)
            translated, sql_type = translator.expr(item, scope)
            converted.append(translator.assign(
                translated, sql_type, SqlType(column.type_oid, column.typmod), column.name))
        converted.extend(default_expression(translator, c) for c in defaulted)
        row.replace(exp.Tuple(expressions=[c.copy() if c.parent else c for c in converted]))


def _insert_query(translator: Translator, node: exp.Insert, query: exp.Expression,
                  columns: list[Column], defaulted: list[Column], overriding: bool) -> None:
    produced = translator.query(query)
    if len(produced) > len(columns):
        raise errors.SqlSyntaxError("INSERT has more expressions than target columns")
    if len(produced) < len(columns):
        raise errors.SqlSyntaxError("INSERT has more target columns than expressions")
    projections: list[exp.Expression] = []
    for index, (info, column) in enumerate(zip(produced, columns, strict=True)):
        _check_not_always(column, overriding)
        reference = exp.column(f"_c{index}", quoted=True)
        projections.append(translator.assign(
            reference, info.type, SqlType(column.type_oid, column.typmod), column.name))
    projections.extend(default_expression(translator, c) for c in defaulted)
    inner = query.copy()
    if not isinstance(inner, exp.Select):
        raise errors.FeatureNotSupported("INSERT from a set operation is not supported")
    for index, projection in enumerate(inner.expressions):
        target = projection.this if isinstance(projection, exp.Alias) else projection
        projection.replace(exp.alias_(target.copy(), f"_c{index}", quoted=True))
    wrapped = exp.select(*projections).from_(
        exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("_src"))))
    if node.args.get("conflict") is not None:
        # SQLite reads "FROM x ON CONFLICT" as a join constraint without a WHERE.
        wrapped = wrapped.where(exp.true())
    node.set("expression", wrapped)


def _on_conflict(translator: Translator, conflict: exp.Expression, relation: Relation,
                 scope: Scope) -> None:
    excluded = Scope(scope)
    excluded.add(_target_source(relation, "excluded"))
    keys = []
    target = scope.sources[0]
    for key in conflict.args.get("conflict_keys") or []:
        column = key.this if isinstance(key, exp.Ordered) else key
        relation.column(column.name)
        found = target.find(column.name)
        assert found is not None
        translator.note_read(target, found)  # the arbiter's columns are read
        keys.append(exp.column(column.name, quoted=True))
    if keys:
        conflict.set("conflict_keys", keys)
    updates = []
    for item in conflict.args.get("expressions") or []:
        if isinstance(item, exp.EQ):
            column = relation.column(item.this.name)
            updates.append(column.name)
            translated, sql_type = translator.expr(item.expression, excluded)
            item.set("expression", translator.assign(
                translated, sql_type, SqlType(column.type_oid, column.typmod), column.name))
    translator.conflict_updates = tuple(updates)
    where = conflict.args.get("where")
    if where is not None:
        translator.condition(where.this, excluded)


def _target(translator: Translator, table: exp.Table) -> tuple[Relation, str, Scope]:
    """The table an UPDATE or DELETE changes: its relation, the name it goes
    by in the statement, and a scope that sees it under that name."""
    translator.writes = True
    relation = _writable(translator, table)
    alias = table.alias or relation.name
    scope = Scope()
    scope.add(_target_source(relation, alias))
    return relation, alias, scope


def _finish_target(table: exp.Table, relation: Relation, alias: str) -> None:
    _set_physical(table, relation)
    table.set("alias", exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))


def translate_update(translator: Translator, node: exp.Update) -> tuple[
        list[ColumnInfo] | None, str]:
    table = node.this
    relation, alias, scope = _target(translator, table)
    if relation.stream is not None:
        raise errors.WrongObjectType(f'cannot update stream "{relation.name}"',
                                     detail="Streams are append-only.")
    check_changeable(translator.catalog, relation, "update")
    from_ = node.args.get("from_") or node.args.get("from")
    if from_ is not None:
        translator.from_item(from_.this, scope)
    for join in (from_.args.get("joins") or []) if from_ is not None else []:
        translator.join_source(join, scope)
    translator.target_columns = tuple(assignment.this.name for assignment in node.expressions
                                      if isinstance(assignment, exp.EQ))
    for assignment in list(node.expressions):
        if not isinstance(assignment, exp.EQ):
            raise errors.FeatureNotSupported("only SET column = value is supported")
        column = relation.column(assignment.this.name)
        assignment.set("this", exp.column(column.name, quoted=True))
        value = assignment.expression
        if _is_default(value):
            assignment.set("expression", default_expression(translator, column))
            continue
        if column.identity == "a":
            raise _generated_always(column, f'column "{column.name}" can only be updated to '
                                    "DEFAULT")
        translated, sql_type = translator.expr(value, scope)
        assignment.set("expression", translator.assign(
            translated, sql_type, SqlType(column.type_oid, column.typmod), column.name))
    where = node.args.get("where")
    if where is not None:
        translator.condition(where.this, scope)
    _finish_target(table, relation, alias)
    return _returning(translator, node, scope), relation.physical


def translate_delete(translator: Translator, node: exp.Delete) -> tuple[
        list[ColumnInfo] | None, str]:
    table = node.this
    if not isinstance(table, exp.Table):
        # sqlglot reads "DELETE t WHERE ..." (no FROM) with the table elsewhere.
        named = node.args.get("tables") or []
        near = f' at or near "{named[0].name}"' if named else ""
        raise errors.SqlSyntaxError(f"syntax error{near}")
    relation, alias, scope = _target(translator, table)
    check_changeable(translator.catalog, relation, "delete from")
    using = node.args.get("using") or []
    for item in using:
        translator.from_item(item, scope)
    where = node.args.get("where")
    if where is not None:
        translator.condition(where.this, scope)
    _finish_target(table, relation, alias)
    if using:
        # SQLite has no DELETE ... USING: delete the target rows the join finds.
        rowid = exp.column("rowid", alias, quoted=True)
        matches = exp.select(rowid).from_(table.copy())
        for item in using:
            matches = matches.join(item.copy())
        if where is not None:
            matches = matches.where(where.this.copy())
        node.set("using", None)
        node.set("where", exp.Where(this=exp.In(this=rowid.copy(),
                                                 query=exp.Subquery(this=matches))))
    return _returning(translator, node, scope), relation.physical
