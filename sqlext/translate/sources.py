"""FROM items: tables and views under their storage names, subqueries,
VALUES lists, joins and functions used as tables."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import ClassVar

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.dataflow import BATCH_ID
from catalog.schema import INFORMATION_SCHEMA, PG_CATALOG, SEQUENCE_COLUMNS, Relation, Sequence
from catalog.sqltypes import (
    BOOL,
    INT4,
    INT8,
    INTERVAL,
    NUMERIC,
    TEXT,
    TIMESTAMP,
    TIMESTAMPTZ,
    SqlType,
    check_matchable,
    common_type,
)
from catalog.system import LIVE_TABLES
from executor.functions.declare import Overload
from executor.functions.json_rows import ROWS as JSON_ROWS
from executor.functions.registry import FUNCTIONS
from executor.streaming.windows import VISIBLE
from sqlext.sql.sqlite_dialect import NumericKey
from sqlext.translate import numeric_rules
from sqlext.translate.aggregate_rules import AggregateRules
from sqlext.translate.composite import record_fields, record_type
from sqlext.translate.expression_rules import DATETIME_OIDS, vector_as_array
from sqlext.translate.function_rules import check_unnest_argument, listening_channels_call
from sqlext.translate.lateral import element_rows, packed_source, zip_queries
from sqlext.translate.naming import source_position
from sqlext.translate.overloads import Argument, choose
from sqlext.translate.scope import ColumnInfo, Scope, Source, stored_column


def physical_table(relation: Relation) -> exp.Table:
    """How SQLite names a relation: system tables live in attached databases
    named after their schema; user tables of other schemas get prefixed."""
    if relation.schema in (PG_CATALOG, INFORMATION_SCHEMA):
        return exp.Table(this=exp.to_identifier(relation.physical, quoted=True),
                         db=exp.to_identifier(relation.schema))
    return exp.Table(this=exp.to_identifier(relation.physical, quoted=True))


def system_columns(relation: Relation) -> list[ColumnInfo]:
    """Columns found by name but not listed by ``*``: a stream's or window's
    batch_id."""
    if relation.stream is None and relation.window is None:
        return []
    return [ColumnInfo(BATCH_ID, INT8, relation.oid)]


class CurrentBatch(exp.Expression):
    """Inside a transaction execution: the id of the batch the stream ``this``
    (its OID) denotes, a value the executor binds (``executor.plans.Slot``)."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}


class SourceTranslator(AggregateRules):
    """Translates the FROM clause (and VALUES, which may stand anywhere)."""

    def check_schema(self, name: exp.Table) -> None:
        """A name qualified by a schema the role may not use is 42501
        (whether the object exists or not, as PostgreSQL's lookups do)."""
        if self.role is not None and name.db:
            try:
                self.catalog.require_schema(self.role, name.db)
            except errors.SqlError as exc:
                exc.position = source_position(name.args.get("db"))
                raise

    def relation(self, table: exp.Table) -> Relation:
        schema = table.db or None
        self.check_schema(table)
        try:
            return self.catalog.relation(table.name, schema, self.search_path)
        except errors.SqlError as exc:
            exc.position = exc.position or source_position(table.args.get("this"))
            raise

    @staticmethod
    def _rename(columns: list[ColumnInfo], names: list[str]) -> list[ColumnInfo]:
        if len(names) > len(columns):
            raise errors.InvalidColumnReference(
                f"table has {len(columns)} columns available but {len(names)} columns specified"
            )
        renamed = [
            ColumnInfo(name, c.type, c.table_oid, c.column_number, c.nullable)
            for name, c in zip(names, columns, strict=False)
        ]
        return renamed + columns[len(names):]

    def _values(self, node: exp.Values, parent: Scope | None) -> list[ColumnInfo]:
        scope = Scope(parent)
        rows = [row.expressions if isinstance(row, exp.Tuple) else [row]
                for row in node.expressions]
        width = len(rows[0]) if rows else 0
        if any(len(row) != width for row in rows):
            raise errors.SqlSyntaxError("VALUES lists must all be the same length")
        types_by_column: list[list[SqlType]] = [[] for _ in range(width)]
        with self.refusing_set_returning("VALUES"):
            for row in rows:
                for index, item in enumerate(row):
                    types_by_column[index].append(self.expr(item, scope)[1])
        column_types = [common_type(found) for found in types_by_column]
        for row_node in node.expressions:
            items = row_node.expressions if isinstance(row_node, exp.Tuple) else [row_node]
            for item, target in zip(list(items), column_types, strict=True):
                if not target.is_unknown:
                    self.coerce(item, target)
        return [
            ColumnInfo(f"column{index + 1}", TEXT if found.is_unknown else found)
            for index, found in enumerate(column_types)
        ]

    def join_source(self, join: exp.Join, scope: Scope) -> None:
        if is_join_group(join.this):
            raise errors.FeatureNotSupported(
                "parenthesized joins are supported only first in FROM",
                hint="Write the joins without parentheses, in the order they apply.")
        earlier_sources = list(scope.sources)
        earlier = {c.name for s in earlier_sources for c in s.columns}
        source = self.from_item(join.this, scope)
        if source.depends_on is not None and str(join.args.get("side") or "").upper() in (
                "RIGHT", "FULL"):
            raise errors.InvalidColumnReference(
                f'invalid reference to FROM-clause entry for table "{source.depends_on}"',
                detail="The combining JOIN type must be INNER or LEFT for a LATERAL reference.")
        on = join.args.get("on")
        if on is not None:
            with self.refusing_set_returning("JOIN conditions"):
                self.condition(on, scope)
        using = join.args.get("using")
        if using:
            names = [identifier.name for identifier in using]
            self._join_columns(names, earlier_sources, source)
        elif str(join.args.get("method") or "").upper() == "NATURAL":
            names = [c.name for c in source.columns if c.name in earlier]
            self._join_columns(names, earlier_sources, source)
            # SQLite would match hidden columns too (a stream's batch id):
            # the visible common columns are named instead.
            join.set("method", None)
            if names:
                join.set("using", [exp.to_identifier(name, quoted=True) for name in names])
            else:
                join.set("on", exp.true())
        if source.packed and join.args.get("using"):
            self._using_as_on(join, earlier_sources, source, scope)

    def _join_columns(self, names: list[str], left: list[Source], right: Source) -> None:
        """USING or NATURAL: the columns joined on, read on both sides."""
        _check_using(names, left, right)
        right.merged.update(names)
        for name in names:
            for source in (*left, right):
                if name not in source.merged or source is right:
                    column = source.find(name)
                    if column is not None:
                        self.note_read(source, column)

    def _using_as_on(self, join: exp.Join, left: list[Source], right: Source,
                     scope: Scope) -> None:
        """USING with a packed LATERAL item, whose columns SQLite cannot
        name: the equalities, as ON."""
        conditions = []
        for identifier in join.args["using"]:
            name = identifier.name
            found = next(s for s in left if name not in s.merged and s.find(name) is not None)
            equal = exp.EQ(this=exp.column(name, found.alias, quoted=True),
                           expression=exp.column(name, right.alias, quoted=True))
            conditions.append(self.expr(equal, scope)[0])
        join.set("using", None)
        join.set("on", exp.and_(*conditions))

    def from_item(self, item: exp.Expression, scope: Scope, lateral: bool = False) -> Source:
        """Translate a FROM item in place and add it to ``scope``."""
        if isinstance(item, exp.Lateral):
            return self.from_item(_unwrap_lateral(item), scope, lateral=True)
        alias = item.args.get("alias")
        alias_name = alias.name if alias is not None and alias.name else None
        alias_columns = [c.name for c in alias.columns] if alias is not None else []
        if isinstance(item, exp.Subquery | exp.Values) and alias_name is None:
            kind, example = ("VALUES", "VALUES") if isinstance(item, exp.Values) else (
                "subquery", "SELECT")
            raise errors.SqlSyntaxError(f"{kind} in FROM must have an alias",
                                        hint=f"For example, FROM ({example} ...) [AS] foo.")
        if isinstance(item, exp.Subquery):
            frame = scope.from_item_scope(lateral)
            columns = self.query(item.this, frame)
            source = Source(alias_name, self._rename(columns, alias_columns),
                            depends_on=frame.referenced, packed=frame.referenced is not None)
            if source.packed:
                names = [f"_l{index}" for index in range(len(columns))]
                self._alias_subquery_columns(item, [
                    ColumnInfo(name, column.type) for name, column in zip(names, columns,
                                                                          strict=True)])
                item.replace(packed_source(item.this, names, alias_name))
            elif alias_columns:
                self._alias_subquery_columns(item, source.columns)
            scope.add(source)
            return source
        if isinstance(item, exp.Table) and (isinstance(item.this, exp.Anonymous)
                                            or item.args.get("rows_from")):
            return self._table_function(item, alias_name, alias_columns, scope)
        if isinstance(item, exp.Values):
            frame = scope.from_item_scope(lateral)
            columns = self._rename(self._values(item, frame), alias_columns)
            visible = alias_name
            inner = item.copy()
            inner.set("alias", None)
            # SQLite names VALUES columns column1, column2...
            stored = [f"column{index + 1}" for index in range(len(columns))]
            source = Source(visible, columns, depends_on=frame.referenced,
                            packed=frame.referenced is not None)
            if source.packed:
                item.replace(packed_source(_union_of_rows(inner, stored), stored, visible))
            else:
                renamed = exp.select(*[
                    exp.alias_(exp.column(name, quoted=True), column.name, quoted=True)
                    for name, column in zip(stored, columns, strict=True)
                ]).from_(exp.Subquery(this=inner))
                item.replace(exp.Subquery(this=renamed, alias=exp.TableAlias(
                    this=exp.to_identifier(visible, quoted=True))))
            scope.add(source)
            return source
        if isinstance(item, exp.Unnest):
            offset = item.args.get("offset")
            if isinstance(offset, exp.Identifier):
                # sqlglot takes the last alias of 'WITH ORDINALITY u(x, i)' for the ordinal's
                alias_columns.append(offset.name)
            holder = exp.Table(this=_unnest_call(item), alias=alias, ordinality=bool(offset))
            item.replace(holder)
            return self._table_function(holder, alias_name, alias_columns, scope)
        if not isinstance(item, exp.Table):
            raise errors.FeatureNotSupported(f"{item.key.upper()} in FROM is not supported")
        name = item.name
        if not item.db and name in scope.ctes:
            source = Source(alias_name or name, self._rename(scope.ctes[name], alias_columns))
            scope.add(source)
            return source
        sequence = self._sequence(item)
        if sequence is not None:
            return self._sequence_source(item, sequence, alias_name, alias_columns, scope)
        relation = self.relation(item)
        self.read_relations[relation.oid] = relation
        columns = [
            stored_column(c, relation.oid, number) if relation.kind == "r" else
            ColumnInfo(c.name, SqlType(c.type_oid, c.typmod), relation.oid, number,
                       not c.not_null)
            for number, c in enumerate(relation.columns, start=1)
        ]
        visible = alias_name or name
        physical = physical_table(relation)
        item.set("this", physical.this)
        item.set("db", physical.args.get("db"))
        item.set("catalog", None)
        item.set("only", None)
        if alias_name is None:
            item.set("alias", exp.TableAlias(this=exp.to_identifier(visible, quoted=True)))
        elif alias_columns:
            item.set("alias", exp.TableAlias(this=exp.to_identifier(visible, quoted=True)))
            self._wrap_renamed(item, relation, alias_columns)
        source = Source(visible, self._rename(columns, alias_columns),
                        relation_oid=relation.oid)
        if relation.schema == PG_CATALOG and relation.name in LIVE_TABLES:
            self.live_tables.add(relation.name)
        source.system_columns.extend(system_columns(relation))
        restriction = self._restriction(relation)
        if restriction is not None:
            if alias_columns:
                raise errors.FeatureNotSupported(
                    f'column aliases on "{relation.name}" are not supported')
            self._restrict(item, relation, restriction)
        scope.add(source)
        return source

    def _sequence(self, table: exp.Table) -> Sequence | None:
        """The sequence a FROM item names, if it names one and no relation."""
        schema = table.db or None
        if schema is not None and schema not in self.catalog.schemas:
            return None
        if self.catalog.find_relation(table.name, schema, self.search_path) is not None:
            return None
        return self.catalog.find_sequence(table.name, schema, self.search_path)

    def _sequence_source(self, item: exp.Table, sequence: Sequence, alias: str | None,
                         alias_columns: list[str], scope: Scope) -> Source:
        """A sequence read as a relation: one row of its state, as PostgreSQL
        shows it (last_value, log_cnt, is_called)."""
        self.check_schema(item)
        key = [exp.Literal.string(sequence.schema), exp.Literal.string(sequence.name)]
        values = [exp.Anonymous(this="sqlext_sequence_last_value", expressions=key),
                  exp.Literal.number(0),
                  exp.Anonymous(this="sqlext_sequence_is_called", expressions=key)]
        columns = self._rename([ColumnInfo(name, column_type, sequence.oid, number, False)
                                for number, (name, column_type) in enumerate(
                                    SEQUENCE_COLUMNS, start=1)], alias_columns)
        visible = alias or sequence.name
        state = exp.select(*[exp.alias_(value, column.name, quoted=True)
                             for value, column in zip(values, columns, strict=True)])
        item.replace(exp.Subquery(this=state, alias=exp.TableAlias(
            this=exp.to_identifier(visible, quoted=True))))
        source = Source(visible, columns)
        scope.add(source)
        return source

    def _restriction(self, relation: Relation) -> exp.Expression | None:
        """Which rows a stream or window's name denotes: a window its visible
        tuples; inside a transaction execution, the triggering stream exactly
        the batch being processed."""
        if relation.window is not None:
            return exp.EQ(this=exp.column(VISIBLE, quoted=True), expression=exp.Literal.number(1))
        if relation.oid in self.batch_streams:
            return exp.EQ(this=exp.column(BATCH_ID, quoted=True),
                          expression=CurrentBatch(this=relation.oid))
        return None

    @staticmethod
    def _restrict(item: exp.Table, relation: Relation, condition: exp.Expression) -> None:
        rows = exp.select(exp.Star()).from_(physical_table(relation)).where(condition)
        item.replace(exp.Subquery(this=rows, alias=item.args["alias"]))

    def _wrap_renamed(self, item: exp.Table, relation: Relation, names: list[str]) -> None:
        """``FROM t AS x(a, b)``: SQLite has no column aliases on tables."""
        projections = [
            exp.alias_(exp.column(c.name, quoted=True), new, quoted=True)
            for c, new in zip(relation.columns, names, strict=False)
        ] + [exp.column(c.name, quoted=True) for c in relation.columns[len(names):]]
        inner = exp.select(*projections).from_(physical_table(relation))
        alias = item.args["alias"]
        item.replace(exp.Subquery(this=inner, alias=alias))

    @staticmethod
    def _alias_subquery_columns(item: exp.Subquery, columns: list[ColumnInfo]) -> None:
        """``FROM (query) AS a(x, y)``: SQLite has no column aliases on
        subqueries, so the query's outputs (those of the first SELECT of a
        set operation) are named positionally, ORDER BY items naming them
        follow, and an outer SELECT gives them the aliases."""
        alias = item.args["alias"]
        inner = item.this
        first = inner
        while isinstance(first, exp.SetOperation | exp.Subquery):
            first = first.this
        wrapped = exp.select(*[
            exp.alias_(exp.column(f"_c{index}", quoted=True), column.name, quoted=True)
            for index, column in enumerate(columns)
        ]).from_(exp.Subquery(this=inner, alias=exp.TableAlias(
            this=exp.to_identifier("_inner"),
            columns=[exp.to_identifier(f"_c{i}") for i in range(len(columns))])))
        if isinstance(first, exp.Select):
            renamed: dict[str, str] = {}
            for index, projection in enumerate(first.expressions):
                renamed.setdefault(projection.alias_or_name, f"_c{index}")
                target = projection.this if isinstance(projection, exp.Alias) else projection
                projection.replace(exp.alias_(target.copy(), f"_c{index}", quoted=True))
            order = inner.args.get("order")
            for ordered in order.expressions if order is not None else []:
                key = ordered.this
                if isinstance(key, exp.Column) and not key.table and key.name in renamed:
                    key.replace(exp.column(renamed[key.name], quoted=True))
            wrapped = exp.select(*[
                exp.alias_(exp.column(f"_c{index}", quoted=True), column.name, quoted=True)
                for index, column in enumerate(columns)
            ]).from_(exp.Subquery(this=inner.copy(), alias=exp.TableAlias(
                this=exp.to_identifier("_inner"))))
        item.set("this", wrapped)
        item.set("alias", exp.TableAlias(this=alias.this))

    def _table_function(self, item: exp.Table, alias: str | None, alias_columns: list[str],
                        scope: Scope) -> Source:
        """A function in FROM (or ``ROWS FROM`` several, side by side). Its
        arguments may name the FROM items before it: the item is then
        packed (``translate.lateral``); otherwise it is a subquery."""
        call = item.this
        if isinstance(call, exp.Anonymous) and call.name.lower().rpartition(".")[2] in JSON_ROWS:
            with self.refusing_set_returning("FROM"):
                return self.json_rows_source(item, call, alias, alias_columns, scope)
        frame = scope.from_item_scope(lateral=True)
        functions: list[tuple[str, exp.Select, SqlType]] = []
        with self.refusing_set_returning("FROM"):
            for call in item.args.get("rows_from") or [item]:
                functions.extend(self._from_function(call, frame))
        fields = record_fields(functions[0][2]) if len(functions) == 1 else ()
        if fields:
            # a function returning records: a column per field, as in PostgreSQL
            query = _record_columns(functions[0][1], fields)
            values = [(f"v{index}", field, field_type)
                      for index, (field, field_type) in enumerate(fields)]
        elif len(functions) == 1:
            name, query, value_type = functions[0]
            values = [("v", alias_columns[0] if alias_columns else alias or name, value_type)]
        else:
            query = zip_queries([function[1] for function in functions])
            values = [(f"v{index}", name, value_type)
                      for index, (name, _, value_type) in enumerate(functions)]
        columns = [ColumnInfo(name, value_type) for _, name, value_type in values]
        stored = [column for column, _, _ in values]
        if item.args.get("ordinality"):
            columns.append(ColumnInfo("ordinality", INT8))
            stored.append("n")
        visible = alias or functions[0][0]
        # Several functions' columns may share a name: packed, they are
        # found by position.
        source = Source(visible, self._rename(columns, alias_columns),
                        depends_on=frame.referenced,
                        packed=frame.referenced is not None or len(functions) > 1)
        if source.packed:
            item.replace(packed_source(query, stored, visible))
        else:
            wrapped = exp.select(*[
                exp.alias_(exp.column(column), info.name, quoted=True)
                for column, info in zip(stored, source.columns, strict=True)]).from_(
                exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier("_f"))))
            item.replace(exp.Subquery(this=wrapped, alias=exp.TableAlias(
                this=exp.to_identifier(visible, quoted=True))))
        scope.add(source)
        return source

    def _from_function(self, holder: exp.Expression, scope: Scope
                       ) -> list[tuple[str, exp.Select, SqlType]]:
        """The functions a FROM function (a Table holding the call, or an
        Unnest) stands for, unnest(a, b) two, each with its name, its rows
        and their type."""
        call = _unnest_call(holder) if isinstance(holder, exp.Unnest) else holder.this
        if not isinstance(call, exp.Anonymous):
            raise errors.SqlSyntaxError("ROWS FROM() expects function calls")
        name = call.name.lower().rpartition(".")[2]
        if name == "unnest" and len(call.expressions) > 1:
            return [("unnest", *self._unnest(exp.Anonymous(this="unnest", expressions=[array]),
                                             scope)) for array in list(call.expressions)]
        return [(name, *self.set_function(call, name, scope))]

    def set_function(self, call: exp.Anonymous, name: str,
                     scope: Scope) -> tuple[exp.Select, SqlType]:
        """The rows of a function call, as a query with the value ``v`` and
        the row number ``n``, and the values' type."""
        rows = self.TABLE_FUNCTIONS.get(name)
        if rows is not None:
            return rows(self, call, scope)
        definition = FUNCTIONS.get(name)
        special = self.SPECIAL_FORMS.get(name) if definition is None else None
        # to_json(...), row_to_json(...): calls that translate themselves
        found = None if special is None else special(self, call, name, scope)
        if found is None:
            if definition is None or definition.aggregate:
                raise errors.UndefinedFunction(f"function {name} does not exist")
            found = self.call(call, name, scope)
            if definition.set_returning:
                return element_rows(found[0].copy()), found[1]
        translated, value_type = found
        # Any other function yields one row, as in PostgreSQL.
        return exp.select(exp.alias_(translated.copy(), "v"), exp.alias_(
            exp.Literal.number(1), "n")), value_type

    def _generate_series(self, call: exp.Anonymous, scope: Scope) -> tuple[exp.Select,
                                                                            SqlType]:
        args = list(call.expressions)
        if len(args) not in (2, 3):
            raise errors.UndefinedFunction("function generate_series requires 2 or 3 "
                                           "arguments")
        types = [self.expr(arg, scope)[1] for arg in args]
        if any(x.oid in DATETIME_OIDS for x in types):
            return self._datetime_series(call, types)
        if any(x.oid == t.NUMERIC for x in types):
            return self._numeric_series(call, types)
        for arg in list(call.expressions):
            self.coerce(arg, INT8, scope)
        series_type = INT8 if any(x.oid == t.INT8 for x in types) else INT4
        start, stop = (a.copy() for a in call.expressions[:2])
        step = call.expressions[2].copy() if len(args) == 3 else exp.Literal.number(1)
        # Each row carries the (checked) step and the stop, so both are
        # evaluated once; the series runs down for a negative step.
        anchor = exp.select(
            exp.alias_(start, "v"), exp.alias_(exp.Literal.number(1), "n"),
            exp.alias_(exp.Anonymous(this="sqlext_series_step", expressions=[step]), "s"),
            exp.alias_(stop, "e"))
        following = exp.Add(this=exp.column("v"), expression=exp.column("s"))
        recursive = exp.union(
            anchor,
            exp.select(following, exp.Add(this=exp.column("n"), expression=exp.Literal.number(1)),
                       "s", "e").from_("_gs").where(_within(following.copy())),
            distinct=False,
        )
        query = exp.select("v", "n").from_("_gs").with_(
            "_gs", recursive, recursive=True).where(_within(exp.column("v")))
        return query, series_type

    def _numeric_series(self, call: exp.Anonymous, types: list[SqlType]
                        ) -> tuple[exp.Select, SqlType]:
        """generate_series(start, stop[, step]) of numerics: keys, each the
        one before plus the step while within the stop."""
        bounds = [self.conform(arg, arg_type, NUMERIC).copy()
                  for arg, arg_type in zip(list(call.expressions), types, strict=True)]
        start, stop, step = bounds if len(bounds) == 3 else (
            *bounds, numeric_rules.key_literal(Decimal(1)))
        anchor = exp.select(
            exp.alias_(start, "v"), exp.alias_(exp.Literal.number(1), "n"),
            exp.alias_(exp.Anonymous(this="sqlext_numeric_series_step", expressions=[
                start.copy(), stop.copy(), step]), "s"), exp.alias_(stop, "e"))
        following = numeric_rules.operator("+", exp.column("v"), exp.column("s"))
        recursive = exp.union(
            anchor,
            exp.select(following, exp.Add(this=exp.column("n"), expression=exp.Literal.number(1)),
                       "s", "e").from_("_gs").where(_numeric_within(following.copy())),
            distinct=False)
        query = exp.select("v", "n").from_("_gs").with_(
            "_gs", recursive, recursive=True).where(_numeric_within(exp.column("v")))
        return query, NUMERIC

    def _datetime_series(self, call: exp.Anonymous, types: list[SqlType]
                         ) -> tuple[exp.Select, SqlType]:
        """generate_series(start, stop, step) of timestamps: each value is
        the one before plus the step (in the session's time zone for a
        timestamptz) while within the stop, NULL after the last."""
        chosen = choose("generate_series", _DATETIME_SERIES, [Argument(x) for x in types])
        params = chosen.overload.params
        start, stop, step = (
            self.coerce(arg, param).copy() if arg_type.is_unknown
            else self.convert(arg.copy(), arg_type, param)
            for arg, arg_type, param in zip(list(call.expressions), types, params, strict=True))
        oid = exp.Literal.number(params[0].oid)
        first = exp.Anonymous(this="sqlext_series_first", expressions=[
            start, step.copy(), stop.copy(), oid])
        anchor = exp.select(exp.alias_(first, "v"), exp.alias_(exp.Literal.number(1), "n"),
                            exp.alias_(step, "s"), exp.alias_(stop, "e"))
        following = exp.Anonymous(this="sqlext_series_following", expressions=[
            exp.column("v"), exp.column("s"), exp.column("e"), oid.copy()])
        present = exp.column("v").is_(exp.null()).not_()
        recursive = exp.union(
            anchor,
            exp.select(following, exp.Add(this=exp.column("n"), expression=exp.Literal.number(1)),
                       "s", "e").from_("_gs").where(present),
            distinct=False)
        query = exp.select("v", "n").from_("_gs").with_(
            "_gs", recursive, recursive=True).where(present.copy())
        return query, chosen.overload.result

    def _unnest(self, call: exp.Anonymous, scope: Scope) -> tuple[exp.Select, SqlType]:
        array, array_type = self._array_argument(call, "unnest", scope)
        element = SqlType(t.element_of(array_type.oid) or t.TEXT)
        rows = element_rows(array)
        if element.oid == t.BYTEA:  # stored in the array as its text form
            value = rows.expressions[0]
            value.set("this", self.convert(value.this, TEXT, element))
        return rows, element

    def _generate_subscripts(self, call: exp.Anonymous,
                             scope: Scope) -> tuple[exp.Select, SqlType]:
        """generate_subscripts(array, dim[, reverse]): the subscripts of the
        array's dimension ``dim``, in reverse order if asked; arrays have one
        dimension, so any other ``dim`` yields no rows. int2vector and
        oidvector subscripts start at 0 (pg_index.indkey[0] is the first key)."""
        args = list(call.expressions)
        types = [self.expr(arg, scope)[1] for arg in args]
        if len(args) not in (2, 3) or not (t.array_element(types[0].oid) or types[0].oid in (
                t.INT2VECTOR, t.OIDVECTOR)) or any(
                not (x.is_unknown or x.oid in wanted) for x, wanted in zip(
                    types[1:], ((t.INT2, t.INT4), (t.BOOL,)), strict=False)):
            shown = ", ".join(t.format_type(x.oid) for x in types)
            raise errors.no_function(f"generate_subscripts({shown})")
        for arg, target in zip(args[1:], (INT4, BOOL), strict=False):
            self.coerce(arg, target, scope)
        array, dimension = call.expressions[0].copy(), call.expressions[1].copy()
        lower = 1
        if types[0].oid in (t.INT2VECTOR, t.OIDVECTOR):
            array, lower = vector_as_array(array), 0
        position = exp.Add(this=exp.column("key"), expression=exp.Literal.number(1))
        subscript: exp.Expression = exp.Add(this=exp.column("key"),
                                            expression=exp.Literal.number(lower))
        present: exp.Expression = exp.EQ(this=dimension, expression=exp.Literal.number(1))
        if len(args) == 3:
            reverse = call.expressions[2]
            from_end = exp.Sub(this=exp.Anonymous(this="json_array_length", expressions=[
                array.copy()]), expression=exp.Paren(this=exp.Sub(
                    this=exp.column("key"), expression=exp.Literal.number(lower - 1))))
            subscript = exp.If(this=reverse.copy(), true=from_end, false=subscript)
            present = exp.and_(present, reverse.copy().is_(exp.null()).not_())
        query = exp.select(exp.alias_(subscript, "v"), exp.alias_(position.copy(), "n")).from_(
            exp.Table(this=exp.Anonymous(this="json_each", expressions=[array]))).where(
            present).order_by(exp.column("key"))
        return query, INT4

    def _expand_array(self, call: exp.Anonymous, scope: Scope) -> tuple[exp.Select, SqlType]:
        """information_schema._pg_expandarray(): each element with its index,
        as a record (x, n)."""
        array, array_type = self._array_argument(call, "_pg_expandarray", scope)
        rows = element_rows(array)
        value = rows.expressions[0]
        value.set("this", exp.Anonymous(this="json_object", expressions=[
            exp.Literal.string("x"), value.this, exp.Literal.string("n"),
            rows.expressions[1].this.copy()]))
        element = SqlType(t.element_of(array_type.oid) or t.TEXT)
        return rows, record_type((("x", element), ("n", INT4)))

    def _keyword_rows(self, call: exp.Anonymous, scope: Scope) -> tuple[exp.Select, SqlType]:
        """pg_get_keywords(): PostgreSQL's key words, as records."""
        if call.expressions:
            raise errors.no_function("pg_get_keywords(unknown)")
        return element_rows(exp.Anonymous(this="sqlext_pg_get_keywords")), KEYWORD

    def _listening_channels_rows(self, call: exp.Anonymous,
                                 scope: Scope) -> tuple[exp.Select, SqlType]:
        if call.expressions:
            raise errors.no_function("pg_listening_channels(unknown)")
        return self._unnest(listening_channels_call(), scope)

    def _array_argument(self, call: exp.Anonymous, name: str,
                        scope: Scope) -> tuple[exp.Expression, SqlType]:
        """The one array a function takes (int2vector and oidvector too)."""
        if len(call.expressions) != 1:
            shown = ", ".join(t.format_type(self.expr(arg, scope)[1].oid)
                              for arg in list(call.expressions))
            raise errors.no_function(f"{name}({shown})")
        array, array_type = self.expr(call.expressions[0], scope)
        if name == "unnest":
            check_unnest_argument(array_type)
        if array_type.oid in (t.INT2VECTOR, t.OIDVECTOR):
            return vector_as_array(array.copy()), array_type
        return array.copy(), array_type

    TABLE_FUNCTIONS: ClassVar[dict[str, Callable[
        [SourceTranslator, exp.Anonymous, Scope], tuple[exp.Select, SqlType]]]] = {
        "generate_series": _generate_series,
        "unnest": _unnest,
        "generate_subscripts": _generate_subscripts,
        "_pg_expandarray": _expand_array,
        "pg_listening_channels": _listening_channels_rows,
        "pg_get_keywords": _keyword_rows,
        **dict.fromkeys(JSON_ROWS, AggregateRules.json_rows),
    }
    """Functions whose rows are a query of their own (the other set-returning
    functions return theirs as a JSON array)."""


KEYWORD = record_type((("word", TEXT), ("catcode", SqlType(t.CHAR)), ("barelabel", BOOL),
                       ("catdesc", TEXT), ("baredesc", TEXT)))
"""A row of pg_get_keywords()."""

_DATETIME_SERIES = (Overload((TIMESTAMP, TIMESTAMP, INTERVAL), TIMESTAMP),
                    Overload((TIMESTAMPTZ, TIMESTAMPTZ, INTERVAL), TIMESTAMPTZ))


def _record_columns(query: exp.Select, fields: tuple[tuple[str, SqlType], ...]) -> exp.Select:
    """The rows of a function returning records (JSON objects ``v``), a
    column ``v0``, ``v1``... per field, and the row number ``n``."""
    record = exp.column("v", "_r", quoted=True)
    return exp.select(*[
        exp.alias_(exp.Anonymous(this="json_extract", expressions=[
            record.copy(), exp.Literal.string(f"$.{field}")]), f"v{index}", quoted=True)
        for index, (field, _) in enumerate(fields)], exp.column("n", "_r", quoted=True)).from_(
        exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier("_r"))))


def is_join_group(item: exp.Expression) -> bool:
    """``(a JOIN b ON ...)``: joined tables in parentheses (sqlglot makes
    them a subquery without an alias around the first table, which holds
    the joins)."""
    return isinstance(item, exp.Subquery) and not item.alias and isinstance(
        item.this, exp.Table | exp.Subquery) and bool(item.this.args.get("joins"))


def flatten_join_groups(select: exp.Select) -> None:
    """``FROM ((a JOIN b ON p) LEFT JOIN c ON q) ...`` is ``FROM a JOIN b ON p
    LEFT JOIN c ON q ...``: joins apply left to right, so parentheses around
    the first FROM item change nothing (PostgreSQL's view definitions, as
    pg_dump writes them, put every join in them)."""
    from_ = select.args.get("from_")
    while from_ is not None and is_join_group(from_.this):
        group = from_.this.this
        inner = list(group.args.get("joins") or [])
        group.set("joins", None)
        from_.set("this", group)
        select.set("joins", inner + list(select.args.get("joins") or []))


def _union_of_rows(values: exp.Values, names: list[str]) -> exp.Expression:
    """VALUES as SELECTs joined by UNION ALL: SQLite loses the columns of a
    VALUES list that names columns of an outer query."""
    rows = [exp.select(*[exp.alias_(item.copy(), name, quoted=True) for item, name in zip(
        row.expressions if isinstance(row, exp.Tuple) else [row], names, strict=True)])
            for row in values.expressions]
    union: exp.Expression = rows[0]
    for row in rows[1:]:
        union = exp.union(union, row, distinct=False)
    return union


def _unnest_call(item: exp.Unnest) -> exp.Anonymous:
    return exp.Anonymous(this="unnest", expressions=list(item.expressions))


def _unwrap_lateral(item: exp.Lateral) -> exp.Expression:
    """``LATERAL (query) a`` / ``LATERAL f(...) a``: the item, with its alias."""
    inner = item.this
    alias = item.args.get("alias")
    replacement: exp.Expression
    if isinstance(inner, exp.Subquery) and isinstance(inner.this, exp.Values):
        replacement = inner.this
        replacement.set("alias", alias)
    elif isinstance(inner, exp.Subquery):
        replacement = exp.Subquery(this=inner.this, alias=alias or inner.args.get("alias"))
    elif isinstance(inner, exp.Unnest):
        replacement = inner.copy()
        replacement.set("alias", alias)
    else:
        replacement = exp.Table(this=inner, alias=alias,
                                ordinality=item.args.get("ordinality"))
    item.replace(replacement)
    return replacement


def _within(value: exp.Expression) -> exp.Expression:
    """Whether a generate_series value is still within the stop ``e``, in the
    direction of the step ``s``."""
    return exp.If(this=exp.GT(this=exp.column("s"), expression=exp.Literal.number(0)),
                  true=exp.LTE(this=value, expression=exp.column("e")),
                  false=exp.GTE(this=value.copy(), expression=exp.column("e")))


def _numeric_within(value: exp.Expression) -> exp.Expression:
    """``_within`` for numeric keys, compared as numbers."""
    zero = numeric_rules.key_literal(Decimal(0))
    return exp.If(this=exp.GT(this=NumericKey(this=exp.column("s")), expression=zero),
                  true=exp.LTE(this=NumericKey(this=value), expression=exp.column("e")),
                  false=exp.GTE(this=NumericKey(this=value.copy()), expression=exp.column("e")))


def _check_using(names: list[str], left: list[Source], right: Source) -> None:
    """USING columns must be named once, exist once on the left (a column
    merged by an earlier USING counts once) and on the right, with types
    that make one merged column."""
    for position, name in enumerate(names):
        if name in names[:position]:
            raise errors.DuplicateColumn(
                f'column name "{name}" appears more than once in USING clause')
        found = [column for source in left if name not in source.merged
                 if (column := source.find(name)) is not None]
        if not found:
            raise errors.UndefinedColumn(
                f'column "{name}" specified in USING clause does not exist in left table')
        if len(found) > 1:
            raise errors.AmbiguousColumn(
                f'common column name "{name}" appears more than once in left table')
        right_column = right.find(name)
        if right_column is None:
            raise errors.UndefinedColumn(
                f'column "{name}" specified in USING clause does not exist in right table')
        check_matchable([found[0].type, right_column.type], "JOIN/USING")
