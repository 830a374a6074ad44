"""PostgreSQL statement trees to SQLite statement trees, with types.

The ``Translator`` walks a (copied) statement tree once. For every
expression it works out the PostgreSQL type and rewrites what SQLite would
get wrong: literals and parameters take their type from context and are
converted to the storage form at translation time, casts and operators with
PostgreSQL-specific behaviour (division by zero, regular expressions,
date arithmetic...) become calls of our registered functions, table names
become storage names, ``*`` is expanded. The result is a tree
``sqlext.target`` prints as SQLite SQL, plus the result columns and
parameter types clients are told about.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.schema import INFORMATION_SCHEMA, PG_CATALOG, PUBLIC, Catalog, Relation
from executor import codecs
from sqlext import functions
from sqlext.catalog_functions import CATALOG_FUNCTIONS
from sqlext.scope import ColumnInfo, Scope, Source
from sqlext.sqltypes import (
    BOOL,
    DATE,
    FLOAT8,
    INT4,
    INT8,
    INTERVAL,
    NUMERIC,
    TEXT,
    TIMESTAMP,
    TIMESTAMPTZ,
    UNKNOWN,
    SqlType,
    arithmetic_scale,
    arithmetic_type,
    common_type,
    is_numeric,
    is_string,
    resolve_type,
)
from sqlext.target import StorageLiteral

_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ,
                exp.NullSafeNEQ)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)
_DATETIME = frozenset({t.DATE, t.TIME, t.TIMESTAMP, t.TIMESTAMPTZ, t.INTERVAL})
_INT_TYPES = frozenset({t.INT2, t.INT4, t.INT8})
_OID_TYPES = frozenset({t.OID, t.REGCLASS, t.REGTYPE, t.REGPROC, t.REGNAMESPACE})
_REG_TYPES = _OID_TYPES - {t.OID}
_REGEX_OPERATORS = {"~": (False, False), "~*": (True, False), "!~": (False, True),
                    "!~*": (True, True)}


def physical_table(relation: Relation) -> exp.Table:
    """How SQLite names a relation: system tables live in attached databases
    named after their schema; user tables of other schemas get prefixed."""
    if relation.schema in (PG_CATALOG, INFORMATION_SCHEMA):
        return exp.Table(this=exp.to_identifier(relation.physical, quoted=True),
                         db=exp.to_identifier(relation.schema))
    return exp.Table(this=exp.to_identifier(relation.physical, quoted=True))


def storage_name(schema: str, name: str) -> str:
    """The SQLite table name of a user relation."""
    return name if schema == PUBLIC else f"{schema}.{name}"


def _is_unknown_literal(node: exp.Expression) -> bool:
    return isinstance(node, exp.Literal) and node.is_string


def output_name(node: exp.Expression) -> str:
    """PostgreSQL's name for a result column (FigureColname)."""
    if isinstance(node, exp.Alias):
        return node.alias
    inner = node
    while isinstance(inner, exp.Paren):
        inner = inner.this
    if isinstance(inner, exp.Column):
        return inner.name
    if isinstance(inner, exp.Cast):
        name = output_name(inner.this)
        if name != "?column?":
            return name
        return t.TYPES[resolve_type(inner.args["to"]).oid].name
    if isinstance(inner, exp.Anonymous):
        return inner.name.lower().rpartition(".")[2]
    if isinstance(inner, exp.Bracket | exp.Filter):
        return output_name(inner.this)
    if isinstance(inner, exp.Trim):
        return {"LEADING": "ltrim", "TRAILING": "rtrim"}.get(
            str(inner.args.get("position") or "").upper(), "btrim")
    if isinstance(inner, exp.Window):
        return output_name(inner.this)
    if isinstance(inner, exp.Case):
        return "case"
    if isinstance(inner, exp.Array):
        return "array"
    if isinstance(inner, exp.Exists):
        return "exists"
    if isinstance(inner, exp.Coalesce):
        return "coalesce"
    if isinstance(inner, exp.CurrentTimestamp):
        return "current_timestamp"
    if isinstance(inner, exp.CurrentDate):
        return "current_date"
    if isinstance(inner, exp.CurrentUser):
        return "current_user"
    if isinstance(inner, exp.CurrentSchema):
        return "current_schema"
    if isinstance(inner, exp.Interval):
        return "interval"
    if isinstance(inner, exp.Subquery) and isinstance(inner.this, exp.Select):
        projections = inner.this.expressions
        if projections:
            return output_name(projections[0])
    named = _SPECIAL_NAMES.get(type(inner))
    if named is not None:
        return named
    if isinstance(inner, exp.Func) and not isinstance(inner, exp.Binary):
        return inner.sql_name().lower()
    return "?column?"


_FUNCTIONS = {**functions.FUNCTIONS, **CATALOG_FUNCTIONS}

_SPECIAL_NAMES: dict[type[exp.Expression], str] = {
    exp.StrPosition: "position", exp.Substring: "substring", exp.GroupConcat: "string_agg",
    exp.Extract: "extract", exp.Pow: "?column?", exp.Unnest: "unnest",
}


class Translator:
    """Translates one statement. Not reusable: create one per statement."""

    def __init__(
        self,
        catalog: Catalog,
        search_path: Sequence[str],
        param_types: Sequence[int],
        settings: codecs.Settings,
    ) -> None:
        self.catalog = catalog
        self.search_path = tuple(search_path)
        self.params: list[SqlType] = [
            SqlType(oid) if oid else UNKNOWN for oid in param_types
        ]
        self.settings = settings
        self.writes = False
        """Set when the statement changes data (or locks rows FOR UPDATE)."""
        self._set_returning: list[list[exp.Expression]] = []
        """Per SELECT being translated: json_each() sources its select list's
        set-returning functions (unnest...) need."""

    # --- parameters ---------------------------------------------------------

    def _param_index(self, node: exp.Expression) -> int:
        try:
            number = int(node.name)
        except ValueError as exc:
            raise errors.SqlSyntaxError(f"invalid parameter {node.sql()}") from exc
        if number < 1:
            raise errors.UndefinedParameter(f"there is no parameter ${number}")
        while len(self.params) < number:
            self.params.append(UNKNOWN)
        return number - 1

    def param_types(self) -> list[SqlType]:
        """Final parameter types: still-unknown ones become text."""
        return [TEXT if p.is_unknown else p for p in self.params]

    # --- relations ----------------------------------------------------------

    def relation(self, table: exp.Table) -> Relation:
        schema = table.db or None
        try:
            return self.catalog.relation(table.name, schema, self.search_path)
        except errors.SqlError as exc:
            exc.position = exc.position or source_position(table.args.get("this"))
            raise

    # --- queries ------------------------------------------------------------

    def query(self, node: exp.Expression, parent: Scope | None = None) -> list[ColumnInfo]:
        """Translate a query in place; returns its result columns."""
        if isinstance(node, exp.Subquery):
            return self.query(node.this, parent)
        if isinstance(node, exp.SetOperation):
            return self._set_operation(node, parent)
        if isinstance(node, exp.Values):
            return self._values(node, parent)
        if isinstance(node, exp.Select):
            return self._select(node, parent)
        raise errors.FeatureNotSupported(f"{node.key.upper()} is not supported as a query")

    def _with(self, node: exp.Expression, scope: Scope) -> None:
        with_ = node.args.get("with_") or node.args.get("with")
        if not with_:
            return
        for cte in with_.expressions:
            name = cte.alias
            alias_columns = [c.name for c in cte.args["alias"].columns] if cte.args.get(
                "alias") else []
            body = cte.this
            if with_.args.get("recursive") and isinstance(body, exp.SetOperation):
                anchor = self.query(body.this, scope)
                columns = self._rename(anchor, alias_columns)
                scope.ctes[name] = columns
                self.query(body.expression, scope)
            else:
                columns = self._rename(self.query(body, scope), alias_columns)
            scope.ctes[name] = columns

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

    def _set_operation(self, node: exp.SetOperation, parent: Scope | None) -> list[ColumnInfo]:
        scope = Scope(parent)
        self._with(node, scope)
        left = self.query(node.this, scope)
        right = self.query(node.expression, scope)
        if len(left) != len(right):
            raise errors.SqlSyntaxError(
                f"each {node.key.upper()} query must have the same number of columns"
            )
        columns = [
            ColumnInfo(a.name, common_type([a.type, b.type]))
            for a, b in zip(left, right, strict=True)
        ]
        self._order_and_limit(node, scope)
        return [ColumnInfo(c.name, TEXT if c.type.is_unknown else c.type) for c in columns]

    def _values(self, node: exp.Values, parent: Scope | None) -> list[ColumnInfo]:
        scope = Scope(parent)
        rows = [row.expressions if isinstance(row, exp.Tuple) else [row]
                for row in node.expressions]
        width = len(rows[0]) if rows else 0
        if any(len(row) != width for row in rows):
            raise errors.SqlSyntaxError("VALUES lists must all be the same length")
        types_by_column: list[list[SqlType]] = [[] for _ in range(width)]
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

    def _select(self, node: exp.Select, parent: Scope | None) -> list[ColumnInfo]:
        scope = Scope(parent)
        self._with(node, scope)
        from_ = node.args.get("from_") or node.args.get("from")
        if from_ is not None:
            self._from_item(from_.this, scope)
        for join in node.args.get("joins") or []:
            self._join(join, scope)
        if node.args.get("locks"):
            self.writes = True
            node.set("locks", None)
        where = node.args.get("where")
        if where is not None:
            self.expr(where.this, scope)
        self._expand_stars(node, scope)
        columns: list[ColumnInfo] = []
        self._set_returning.append([])
        for projection in list(node.expressions):
            name = output_name(projection)
            translated, sql_type = self.expr(projection, scope)
            if sql_type.is_unknown:
                if _is_unknown_literal(_unalias(translated)):
                    self.coerce(_unalias(translated), TEXT)
                sql_type = TEXT
            info = self._column_info(_unalias(translated), name, sql_type, scope)
            columns.append(info)
            scope.outputs.setdefault(name, sql_type)
            if not isinstance(translated, exp.Alias):
                translated.replace(exp.alias_(translated.copy(), name, quoted=True))
        for source in self._set_returning.pop():
            # One row per element, next to the row it came from (SQLite's
            # table-valued functions may use columns of earlier FROM items).
            if node.args.get("from_") is None and node.args.get("from") is None:
                node.from_(source, copy=False)
            else:
                node.join(source, copy=False)
        group = node.args.get("group")
        if group is not None:
            for item in group.expressions:
                self._order_item(item, scope)
        having = node.args.get("having")
        if having is not None:
            self.expr(having.this, scope)
        distinct = node.args.get("distinct")
        if distinct is not None and distinct.args.get("on") is not None:
            for item in distinct.args["on"].expressions:
                self._order_item(item, scope)
        self._order_and_limit(node, scope)
        if distinct is not None and distinct.args.get("on") is not None:
            _distinct_on(node, columns)
        return columns

    def _column_info(self, node: exp.Expression, name: str, sql_type: SqlType,
                     scope: Scope) -> ColumnInfo:
        if isinstance(node, exp.Column):
            found = scope.resolve(node.name, node.table or None)
            if found is not None:
                return ColumnInfo(name, sql_type, found.table_oid, found.column_number,
                                  found.nullable)
        return ColumnInfo(name, sql_type)

    def _order_and_limit(self, node: exp.Expression, scope: Scope) -> None:
        order = node.args.get("order")
        if order is not None:
            for ordered in order.expressions:
                self._order_item(ordered.this, scope)
        for key in ("limit", "offset"):
            clause = node.args.get(key)
            if clause is None:
                continue
            value = clause.args.get("expression") or clause.this
            if (isinstance(value, exp.Var) and value.name.upper() == "ALL") or (
                value is not None and value.sql().upper() == "ALL"
            ):
                node.set(key, None)
                continue
            if value is not None:
                self.coerce(value, INT8, scope)

    def _order_item(self, item: exp.Expression, scope: Scope) -> None:
        """ORDER BY / GROUP BY items: output names, ordinals or expressions."""
        if isinstance(item, exp.Literal) and not item.is_string:
            return
        if isinstance(item, exp.Column) and not item.table and item.name in scope.outputs:
            try:
                found = scope.resolve(item.name)
            except errors.AmbiguousColumn:
                found = None
            if found is None or not isinstance(item.parent, exp.Group):
                item.replace(exp.column(item.name, quoted=True))
                return
        self.expr(item, scope)

    def _expand_stars(self, node: exp.Select, scope: Scope) -> None:
        expanded: list[exp.Expression] = []
        changed = False
        for projection in node.expressions:
            star_of = self._star_source(projection)
            if star_of is None:
                expanded.append(projection)
                continue
            changed = True
            sources = scope.sources if star_of == "*" else [self._source(star_of, scope)]
            if not sources:
                raise errors.SqlSyntaxError("SELECT * with no tables specified is not valid")
            for position, source in enumerate(sources):
                for column in source.columns:
                    if star_of == "*" and column.name in source.merged:
                        continue
                    reference = exp.column(column.name, source.alias, quoted=True)
                    joined = [later for later in sources[position + 1:]
                              if column.name in later.merged] if star_of == "*" else []
                    if joined:
                        # A USING/NATURAL join column: whichever side has it.
                        reference = exp.alias_(exp.Coalesce(this=reference, expressions=[
                            exp.column(column.name, later.alias, quoted=True)
                            for later in joined]), column.name, quoted=True)
                    expanded.append(reference)
        if changed:
            node.set("expressions", expanded)

    @staticmethod
    def _star_source(projection: exp.Expression) -> str | None:
        if isinstance(projection, exp.Star):
            return "*"
        if isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star):
            return projection.table
        return None

    def _source(self, alias: str, scope: Scope) -> Source:
        source = scope.source(alias)
        if source is None:
            raise errors.UndefinedTable(f'missing FROM-clause entry for table "{alias}"')
        return source

    # --- FROM -----------------------------------------------------------------

    def _join(self, join: exp.Join, scope: Scope) -> None:
        earlier = {c.name for s in scope.sources for c in s.columns}
        source = self._from_item(join.this, scope)
        on = join.args.get("on")
        if on is not None:
            self.expr(on, scope)
        using = join.args.get("using")
        if using:
            source.merged.update(identifier.name for identifier in using)
        elif str(join.args.get("method") or "").upper() == "NATURAL":
            source.merged.update(c.name for c in source.columns if c.name in earlier)

    def _from_item(self, item: exp.Expression, scope: Scope) -> Source:
        alias = item.args.get("alias")
        alias_name = alias.name if alias is not None and alias.name else None
        alias_columns = [c.name for c in alias.columns] if alias is not None else []
        if isinstance(item, exp.Subquery | exp.Values) and alias_name is None:
            kind, example = ("VALUES", "VALUES") if isinstance(item, exp.Values) else (
                "subquery", "SELECT")
            raise errors.SqlSyntaxError(f"{kind} in FROM must have an alias",
                                        hint=f"For example, FROM ({example} ...) [AS] foo.")
        if isinstance(item, exp.Subquery):
            columns = self.query(item.this, Scope(None, scope.ctes))
            source = Source(alias_name, self._rename(columns, alias_columns))
            if alias_columns:
                self._alias_subquery_columns(item, source.columns)
            scope.add(source)
            return source
        if isinstance(item, exp.Table) and isinstance(item.this, exp.Anonymous):
            return self._table_function(item, item.this, alias_name, alias_columns, scope)
        if isinstance(item, exp.Values):
            columns = self._rename(self._values(item, scope), alias_columns)
            visible = alias_name
            # SQLite names VALUES columns column1, column2...: rename them.
            inner = item.copy()
            inner.set("alias", None)
            renamed = exp.select(*[
                exp.alias_(exp.column(f"column{index + 1}", quoted=True), column.name,
                           quoted=True)
                for index, column in enumerate(columns)
            ]).from_(exp.Subquery(this=inner))
            item.replace(exp.Subquery(this=renamed, alias=exp.TableAlias(
                this=exp.to_identifier(visible, quoted=True))))
            source = Source(visible, columns)
            scope.add(source)
            return source
        if isinstance(item, exp.Unnest):
            call = exp.Anonymous(this="unnest", expressions=list(item.expressions))
            holder = exp.Table(this=call, alias=item.args.get("alias"),
                               ordinality=bool(item.args.get("offset")))
            item.replace(holder)
            return self._table_function(holder, call, alias_name, alias_columns, scope)
        if not isinstance(item, exp.Table):
            raise errors.FeatureNotSupported(f"{item.key.upper()} in FROM is not supported")
        name = item.name
        if not item.db and name in scope.ctes:
            source = Source(alias_name or name, self._rename(scope.ctes[name], alias_columns))
            scope.add(source)
            return source
        relation = self.relation(item)
        columns = [
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
        source = Source(visible, self._rename(columns, alias_columns))
        scope.add(source)
        return source

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
        alias = item.args["alias"]
        inner = item.this
        wrapped = exp.select(*[
            exp.alias_(exp.column(f"_c{index}", quoted=True), column.name, quoted=True)
            for index, column in enumerate(columns)
        ]).from_(exp.Subquery(this=inner, alias=exp.TableAlias(
            this=exp.to_identifier("_inner"),
            columns=[exp.to_identifier(f"_c{i}") for i in range(len(columns))])))
        # SQLite has no column aliases on subqueries either: name the inner
        # projections positionally instead.
        if isinstance(inner, exp.Select):
            for index, projection in enumerate(inner.expressions):
                target = projection.this if isinstance(projection, exp.Alias) else projection
                projection.replace(exp.alias_(target.copy(), f"_c{index}", quoted=True))
            wrapped = exp.select(*[
                exp.alias_(exp.column(f"_c{index}", quoted=True), column.name, quoted=True)
                for index, column in enumerate(columns)
            ]).from_(exp.Subquery(this=inner.copy(), alias=exp.TableAlias(
                this=exp.to_identifier("_inner"))))
        item.set("this", wrapped)
        item.set("alias", exp.TableAlias(this=alias.this))

    def _table_function(self, item: exp.Table, call: exp.Anonymous, alias: str | None,
                        alias_columns: list[str], scope: Scope) -> Source:
        """A function in FROM. Each becomes a subquery with a value column
        ``v`` and an ordinal ``n`` (for WITH ORDINALITY)."""
        name = call.name.lower().rpartition(".")[2]
        if name == "generate_series":
            query, value_type = self._generate_series(call, scope)
        elif name == "unnest":
            query, value_type = self._unnest(call, scope)
        elif name in _FUNCTIONS and not _FUNCTIONS[name].aggregate:
            # Any other function yields one row, as in PostgreSQL.
            holder = exp.Paren(this=call.copy())
            _, value_type = self.expr(holder.this, scope)
            query = exp.select(exp.alias_(holder.this, "v"), exp.alias_(
                exp.Literal.number(1), "n"))
        else:
            raise errors.UndefinedFunction(f"function {name} does not exist")
        value_name = alias_columns[0] if alias_columns else (alias or name)
        columns = [ColumnInfo(value_name, value_type)]
        projections = [exp.alias_(exp.column("v"), value_name, quoted=True)]
        if item.args.get("ordinality"):
            ordinal_name = alias_columns[1] if len(alias_columns) > 1 else "ordinality"
            columns.append(ColumnInfo(ordinal_name, INT8))
            projections.append(exp.alias_(exp.column("n"), ordinal_name, quoted=True))
        visible = alias or name
        wrapped = exp.select(*projections).from_(exp.Subquery(
            this=query, alias=exp.TableAlias(this=exp.to_identifier("_f"))))
        item.replace(exp.Subquery(this=wrapped, alias=exp.TableAlias(
            this=exp.to_identifier(visible, quoted=True))))
        source = Source(visible, columns)
        scope.add(source)
        return source

    def _generate_series(self, call: exp.Anonymous, scope: Scope) -> tuple[exp.Select,
                                                                            SqlType]:
        args = list(call.expressions)
        if len(args) not in (2, 3):
            raise errors.UndefinedFunction("function generate_series requires 2 or 3 "
                                           "arguments")
        types = [self.expr(arg, scope)[1] for arg in args]
        if any(x.oid in _DATETIME for x in types):
            raise errors.FeatureNotSupported("generate_series over timestamps is not supported")
        for arg in list(call.expressions):
            self.coerce(arg, INT8, scope)
        series_type = INT8 if any(x.oid == t.INT8 for x in types) else INT4
        start, stop = (a.copy() for a in call.expressions[:2])
        step = call.expressions[2].copy() if len(args) == 3 else exp.Literal.number(1)
        following = exp.Add(this=exp.column("v"), expression=step.copy())
        recursive = exp.union(
            exp.select(exp.alias_(start, "v"), exp.alias_(exp.Literal.number(1), "n")),
            exp.select(following, exp.Add(this=exp.column("n"),
                                          expression=exp.Literal.number(1))).from_("_gs")
            .where(exp.LTE(this=following.copy(), expression=stop)),
            distinct=False,
        )
        query = exp.select("v", "n").from_("_gs").with_("_gs", recursive, recursive=True)
        return query, series_type

    def _unnest(self, call: exp.Anonymous, scope: Scope) -> tuple[exp.Select, SqlType]:
        if len(call.expressions) != 1:
            raise errors.FeatureNotSupported("unnest with several arrays is not supported")
        array_type = self.expr(call.expressions[0], scope)[1]
        element = SqlType(t.element_of(array_type.oid) or t.TEXT)
        query = exp.select(exp.alias_(exp.column("value"), "v"), exp.alias_(
            exp.Add(this=exp.column("key"), expression=exp.Literal.number(1)), "n")).from_(
            exp.Table(this=exp.Anonymous(this="json_each", expressions=[
                call.expressions[0].copy()]))).order_by(exp.column("key"))
        return query, element

    # --- expressions --------------------------------------------------------

    def expr(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        """Translate an expression in place: (its replacement, its type)."""
        handler = _HANDLERS.get(type(node))
        if handler is not None:
            return handler(self, node, scope)
        for base, base_handler in _BASE_HANDLERS:
            if isinstance(node, base):
                return base_handler(self, node, scope)
        raise errors.FeatureNotSupported(
            f"expression {node.sql(dialect='postgres')[:60]!r} is not supported"
        )

    def _children(self, node: exp.Expression, scope: Scope) -> list[SqlType]:
        return [self.expr(child, scope)[1] for child in list(node.iter_expressions())]

    def coerce(self, node: exp.Expression, target: SqlType, scope: Scope | None = None,
               assignment: bool = False) -> exp.Expression:
        """Give an unknown-typed literal or parameter the type ``target``
        (converting literals to their storage form now)."""
        inner = node
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if _is_unknown_literal(inner):
            value = codecs.text_decoder(target.oid, target.typmod, self.settings)(inner.this)
            replacement = StorageLiteral(this=value)
            inner.replace(replacement)
            return replacement if inner is node else node
        if isinstance(inner, exp.Parameter | exp.Placeholder):
            index = self._param_index(inner)
            if self.params[index].is_unknown:
                self.params[index] = target
        return node

    def convert(self, node: exp.Expression, source: SqlType, target: SqlType) -> exp.Expression:
        """Wrap ``node`` (of type ``source``) so it yields a ``target`` value."""
        if source.oid == target.oid and (target.typmod < 0 or source.typmod == target.typmod):
            return node
        if target.oid in (t.FLOAT4, t.FLOAT8) and source.oid in _INT_TYPES | {t.NUMERIC}:
            return exp.Cast(this=node, to=exp.DataType.build("REAL"))
        if target.oid == t.NUMERIC and target.typmod < 0 and source.oid in (
            *_INT_TYPES, t.FLOAT4, t.FLOAT8
        ):
            return exp.Cast(this=node, to=exp.DataType.build("REAL"))
        if target.oid in _INT_TYPES and source.oid in _INT_TYPES and (
            t.TYPES[target.oid].length >= t.TYPES[source.oid].length
        ):
            return node
        if is_string(target) and is_string(source) and target.typmod < 0:
            return node
        if target.oid == t.BOOL and source.oid in _INT_TYPES:
            return exp.NEQ(this=exp.Paren(this=node), expression=exp.Literal.number(0))
        return exp.Anonymous(this="sqlext_convert", expressions=[
            node, exp.Literal.number(source.oid), exp.Literal.number(source.typmod),
            exp.Literal.number(target.oid), exp.Literal.number(target.typmod),
        ])

    def assign(self, node: exp.Expression, node_type: SqlType, target: SqlType,
               column: str) -> exp.Expression:
        """Convert a value stored into a column of type ``target`` (PostgreSQL's
        assignment casts), raising 42804 where PostgreSQL would."""
        if node_type.is_unknown or isinstance(node, exp.Null):
            return self.coerce(node, target)
        if isinstance(node, StorageLiteral):
            return node
        number = _number_literal(node)
        if number is not None and (is_numeric(target) or is_string(target)):
            # Constants are converted now, as PostgreSQL folds them while
            # planning: an out-of-range value fails before anything runs.
            value = codecs.text_decoder(target.oid, target.typmod, self.settings)(number)
            replacement = StorageLiteral(this=value)
            node.replace(replacement)
            return replacement
        allowed = (
            node_type.oid == target.oid
            or (is_numeric(node_type) and is_numeric(target))
            or is_string(target)
            or (node_type.oid in _DATETIME and target.oid in _DATETIME)
            or (is_string(node_type) and target.oid in (t.VARCHAR, t.BPCHAR, t.TEXT, t.NAME))
            or (node_type.oid == t.JSON and target.oid == t.JSONB)
            or (node_type.oid == t.JSONB and target.oid == t.JSON)
            or (t.element_of(node_type.oid) and t.element_of(target.oid))
        )
        if not allowed:
            raise errors.DatatypeMismatch(
                f'column "{column}" is of type {t.format_type(target.oid, target.typmod)} but '
                f"expression is of type {t.format_type(node_type.oid, node_type.typmod)}",
                hint="You will need to rewrite or cast the expression.",
            )
        if node_type.oid in (t.FLOAT4, t.FLOAT8, t.NUMERIC) and target.oid in _INT_TYPES:
            return exp.Anonymous(this="sqlext_convert", expressions=[
                node, exp.Literal.number(node_type.oid), exp.Literal.number(node_type.typmod),
                exp.Literal.number(target.oid), exp.Literal.number(-1)])
        if target.oid in (t.VARCHAR, t.BPCHAR) and target.typmod >= 0:
            return exp.Anonymous(this="sqlext_assign_char", expressions=[
                self.convert(node, node_type, TEXT), exp.Literal.number(target.oid),
                exp.Literal.number(target.typmod)])
        return self.convert(node, node_type, target)

    def _reg_literal(self, text: str, target: SqlType) -> int | str:
        """'name'::regclass and friends: resolved now, against the catalog.
        regproc values are kept as function names (we have no pg_proc OIDs)."""
        name = text.strip()
        if name.isdigit():
            return int(name)
        if target.oid == t.REGPROC:
            return name.rpartition(".")[2]
        if target.oid == t.REGTYPE:
            return t.lookup_name(name).oid
        if target.oid == t.REGNAMESPACE:
            oid = self.catalog.schemas.get(name.strip('"'))
            if oid is None:
                raise errors.InvalidSchemaName(f'schema "{name}" does not exist')
            return oid
        schema, _, bare = name.rpartition(".")
        bare = bare.strip('"')
        relation = self.catalog.find_relation(bare, schema.strip('"') or None, self.search_path)
        if relation is not None:
            return relation.oid
        sequence = self.catalog.find_sequence(bare, schema.strip('"') or None, self.search_path)
        if sequence is not None:
            return sequence.oid
        if target.oid == t.OID:
            raise errors.InvalidTextRepresentation(
                f'invalid input syntax for type oid: "{text}"')
        raise errors.UndefinedTable(f'relation "{name}" does not exist')

    # handlers (registered in _HANDLERS below) ---------------------------------

    def _literal(self, node: exp.Literal, scope: Scope) -> tuple[exp.Expression, SqlType]:
        if node.is_string:
            return node, UNKNOWN
        text = node.this
        if any(ch in text for ch in "eE"):
            return node, NUMERIC
        if "." in text:
            return node, SqlType(t.NUMERIC, -1, len(text.partition(".")[2]))
        value = int(text)
        if -(2**31) <= value < 2**31:
            return node, INT4
        if -(2**63) <= value < 2**63:
            return node, INT8
        replacement = StorageLiteral(this=float(value))
        node.replace(replacement)
        return replacement, NUMERIC

    def _byte_string(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        replacement = exp.Literal.string(node.this)
        node.replace(replacement)
        return replacement, UNKNOWN

    def _null(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        return node, UNKNOWN

    def _boolean(self, node: exp.Boolean, scope: Scope) -> tuple[exp.Expression, SqlType]:
        replacement = StorageLiteral(this=1 if node.this else 0)
        node.replace(replacement)
        return replacement, BOOL

    def _storage_literal(self, node: exp.Expression,
                         scope: Scope) -> tuple[exp.Expression, SqlType]:
        return node, UNKNOWN

    def _parameter(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        index = self._param_index(node)
        if isinstance(node, exp.Placeholder):
            replacement = exp.Parameter(this=exp.Literal.number(index + 1))
            node.replace(replacement)
            node = replacement
        return node, self.params[index]

    def _column(self, node: exp.Column, scope: Scope) -> tuple[exp.Expression, SqlType]:
        table = node.table or None
        located = scope.locate(node.name, table)
        if located is None:
            if table is not None and scope.source(table) is None:
                raise errors.UndefinedTable(f'missing FROM-clause entry for table "{table}"')
            shown = f"{table}.{node.name}" if table else node.name
            raise errors.UndefinedColumn(f'column "{shown}" does not exist',
                                         position=source_position(node.this))
        source, found = located
        node.set("db", None)
        node.set("catalog", None)
        node.this.set("quoted", True)
        if table is None and not scope.joined_later(source, node.name):
            # Qualified, so sources the translation adds (json_each...) never
            # make a name ambiguous for SQLite.
            table = source.alias
        if table:
            node.set("table", exp.to_identifier(table, quoted=True))
        return node, found.type

    def _alias(self, node: exp.Alias, scope: Scope) -> tuple[exp.Expression, SqlType]:
        _, sql_type = self.expr(node.this, scope)
        return node, sql_type

    def _paren(self, node: exp.Paren, scope: Scope) -> tuple[exp.Expression, SqlType]:
        _, sql_type = self.expr(node.this, scope)
        return node, sql_type

    def _collate(self, node: exp.Collate, scope: Scope) -> tuple[exp.Expression, SqlType]:
        inner, sql_type = self.expr(node.this, scope)
        node.replace(inner)
        return inner, sql_type

    def _cast(self, node: exp.Cast, scope: Scope) -> tuple[exp.Expression, SqlType]:
        target = resolve_type(node.args["to"])
        inner, source = self.expr(node.this, scope)
        bare = inner
        while isinstance(bare, exp.Paren):
            bare = bare.this
        if _is_unknown_literal(bare) and target.oid in _OID_TYPES:
            replacement = StorageLiteral(this=self._reg_literal(bare.this, target))
            inner.replace(replacement)
        elif _is_unknown_literal(bare) or (
            isinstance(bare, exp.Parameter) and source.is_unknown
        ):
            if target.oid == t.NUMERIC and target.typmod < 0 and _is_unknown_literal(bare):
                target = SqlType(t.NUMERIC, -1, _literal_scale(bare.this))
            replacement = self.coerce(inner, target)
        elif source.oid in _REG_TYPES and is_string(target):
            replacement = reg_name(inner, source)
        elif isinstance(bare, exp.Null) or (
            target.oid in _OID_TYPES and source.oid in (*_INT_TYPES, *_OID_TYPES)
        ):
            replacement = inner
        else:
            replacement = self.convert(inner, source, target)
        node.replace(replacement)
        return replacement, target

    def _comparison(self, node: exp.Binary, scope: Scope) -> tuple[exp.Expression, SqlType]:
        left, left_type = self.expr(node.this, scope)
        right_any = node.expression
        if isinstance(right_any, exp.Any | exp.All):
            return self._quantified(node, left, left_type, right_any, scope)
        right, right_type = self.expr(right_any, scope)
        self._unify(left, left_type, right, right_type)
        return node, BOOL

    def _unify(self, left: exp.Expression, left_type: SqlType, right: exp.Expression,
               right_type: SqlType) -> SqlType:
        if left_type.is_unknown and not right_type.is_unknown:
            self.coerce(left, right_type)
            return right_type
        if right_type.is_unknown and not left_type.is_unknown:
            self.coerce(right, left_type)
            return left_type
        if left_type.is_unknown and right_type.is_unknown:
            self.coerce(left, TEXT)
            self.coerce(right, TEXT)
            return TEXT
        return left_type

    def _quantified(self, node: exp.Binary, left: exp.Expression, left_type: SqlType,
                    quantified: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        target = quantified.this
        while isinstance(target, exp.Paren):
            target = target.this
        is_all = isinstance(quantified, exp.All)
        if isinstance(target, exp.Query | exp.Subquery):
            columns = self.query(target, scope)
            if columns:
                self._unify(left, left_type, exp.Null(), columns[0].type)
            return node, BOOL
        if not isinstance(node, exp.EQ | exp.NEQ):
            raise errors.FeatureNotSupported("only = ANY/ALL and <> ANY/ALL over arrays are "
                                             "supported")
        array, array_type = self.expr(target, scope)
        element = SqlType(t.element_of(array_type.oid) or t.TEXT)
        if left_type.is_unknown:
            self.coerce(left, element)
        elements = exp.select(exp.column("value")).from_(exp.Table(
            this=exp.Anonymous(this="json_each", expressions=[array.copy()])))
        membership: exp.Expression = exp.In(this=left.copy(), query=exp.Subquery(this=elements))
        if isinstance(node, exp.EQ) and is_all:
            raise errors.FeatureNotSupported("= ALL over arrays is not supported")
        if isinstance(node, exp.NEQ):
            if not is_all:
                raise errors.FeatureNotSupported("<> ANY over arrays is not supported")
            membership = exp.Not(this=membership)
        node.replace(membership)
        return membership, BOOL

    def _logical(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        for child in list(node.iter_expressions()):
            child_node, child_type = self.expr(child, scope)
            if child_type.is_unknown:
                self.coerce(child_node, BOOL)
        return node, BOOL

    def _predicate(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        self._children(node, scope)
        return node, BOOL

    def _like(self, node: exp.Binary, scope: Scope) -> tuple[exp.Expression, SqlType]:
        left, left_type = self.expr(node.this, scope)
        right, right_type = self.expr(node.expression, scope)
        self.coerce(left, TEXT) if left_type.is_unknown else None
        self.coerce(right, TEXT) if right_type.is_unknown else None
        if isinstance(node, exp.ILike):
            replacement = exp.Like(this=exp.Lower(this=left.copy()),
                                   expression=exp.Lower(this=right.copy()))
            node.replace(replacement)
            return replacement, BOOL
        return node, BOOL

    def _escape(self, node: exp.Escape, scope: Scope) -> tuple[exp.Expression, SqlType]:
        self._like(node.this, scope) if isinstance(node.this, exp.Like | exp.ILike) else None
        escape, escape_type = self.expr(node.expression, scope)
        if escape_type.is_unknown:
            self.coerce(escape, TEXT)
        return node, BOOL

    def _regex(self, node: exp.Expression, scope: Scope, operator: str) -> tuple[
            exp.Expression, SqlType]:
        left, left_type = self.expr(node.this, scope)
        right, right_type = self.expr(node.expression, scope)
        for part, part_type in ((left, left_type), (right, right_type)):
            if part_type.is_unknown:
                self.coerce(part, TEXT)
        insensitive, negated = _REGEX_OPERATORS[operator]
        call: exp.Expression = exp.Anonymous(this="sqlext_regex_match", expressions=[
            left.copy(), right.copy(), exp.Literal.number(1 if insensitive else 0)])
        if negated:
            call = exp.Not(this=call)
        node.replace(call)
        return call, BOOL

    def _regexp_like(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        return self._regex(node, scope, "~*" if isinstance(node, exp.RegexpILike) else "~")

    def _operator(self, node: exp.Operator, scope: Scope) -> tuple[exp.Expression, SqlType]:
        operator = str(node.args.get("operator", "")).split(".")[-1].strip()
        if operator in _REGEX_OPERATORS:
            return self._regex(node, scope, operator)
        raise errors.UndefinedFunction(f"operator does not exist: {operator}")

    def _not(self, node: exp.Not, scope: Scope) -> tuple[exp.Expression, SqlType]:
        inner, inner_type = self.expr(node.this, scope)
        if inner_type.is_unknown:
            self.coerce(inner, BOOL)
        return node, BOOL

    def _is(self, node: exp.Is, scope: Scope) -> tuple[exp.Expression, SqlType]:
        inner, inner_type = self.expr(node.this, scope)
        if inner_type.is_unknown and not isinstance(inner, exp.Null):
            self.coerce(inner, TEXT)
        target = node.expression
        if isinstance(target, exp.Boolean):
            node.set("expression", exp.Boolean(this=target.this))
        return node, BOOL

    def _in(self, node: exp.In, scope: Scope) -> tuple[exp.Expression, SqlType]:
        left, left_type = self.expr(node.this, scope)
        query = node.args.get("query")
        if query is not None:
            columns = self.query(query, scope)
            if left_type.is_unknown and columns:
                self.coerce(left, columns[0].type)
            return node, BOOL
        items = list(node.expressions)
        item_types = [self.expr(item, scope)[1] for item in items]
        target = left_type if not left_type.is_unknown else common_type(item_types)
        if target.is_unknown:
            target = TEXT
        self.coerce(left, target)
        for item in list(node.expressions):
            self.coerce(item, target)
        return node, BOOL

    def _between(self, node: exp.Between, scope: Scope) -> tuple[exp.Expression, SqlType]:
        parts = [node.this, node.args["low"], node.args["high"]]
        part_types = [self.expr(part, scope)[1] for part in parts]
        target = common_type(part_types)
        for part in [node.this, node.args["low"], node.args["high"]]:
            self.coerce(part, TEXT if target.is_unknown else target)
        return node, BOOL

    def _arithmetic(self, node: exp.Binary, scope: Scope) -> tuple[exp.Expression, SqlType]:
        left, left_type = self.expr(node.this, scope)
        right, right_type = self.expr(node.expression, scope)
        if left_type.oid in _DATETIME or right_type.oid in _DATETIME:
            return self._datetime_arithmetic(node, left, left_type, right, right_type)
        if left_type.is_unknown and right_type.is_unknown:
            left_type = right_type = NUMERIC
        if left_type.is_unknown:
            self.coerce(left, right_type)
            left_type = right_type
        if right_type.is_unknown:
            self.coerce(right, left_type)
            right_type = left_type
        result = arithmetic_type(left_type, right_type)
        if result.oid == t.NUMERIC:
            operator = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*"}.get(type(node), "/")
            result = SqlType(t.NUMERIC, -1, arithmetic_scale(operator, left_type, right_type))
        if isinstance(node, exp.Div | exp.Mod) and not _nonzero_constant(node.expression):
            function = "sqlext_div" if isinstance(node, exp.Div) else "sqlext_mod"
            integer = result.oid in _INT_TYPES
            call = exp.Anonymous(this=function, expressions=[
                node.this.copy(), node.expression.copy(), exp.Literal.number(int(integer))])
            node.replace(call)
            return call, result
        if isinstance(node, exp.Div) and result.oid not in _INT_TYPES and (
            left_type.oid in _INT_TYPES and right_type.oid in _INT_TYPES
        ):
            return node, result
        return node, result

    def _datetime_arithmetic(self, node: exp.Binary, left: exp.Expression, left_type: SqlType,
                             right: exp.Expression, right_type: SqlType) -> tuple[
                                 exp.Expression, SqlType]:
        operator = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/"}.get(type(node))
        if operator is None:
            raise errors.UndefinedFunction("operator does not exist for date/time values")
        if left_type.is_unknown:
            left_type = right_type
            self.coerce(left, left_type)
        if right_type.is_unknown:
            right_type = INTERVAL if left_type.oid in (t.TIMESTAMP, t.TIMESTAMPTZ, t.TIME) \
                else (INT4 if left_type.oid == t.DATE else left_type)
            self.coerce(right, right_type)
        result = _datetime_result(operator, left_type, right_type)
        call = exp.Anonymous(this="sqlext_datetime_arith", expressions=[
            exp.Literal.string(operator), node.this.copy(), exp.Literal.number(left_type.oid),
            node.expression.copy(), exp.Literal.number(right_type.oid)])
        node.replace(call)
        return call, result

    def _negative(self, node: exp.Neg, scope: Scope) -> tuple[exp.Expression, SqlType]:
        inner, inner_type = self.expr(node.this, scope)
        if isinstance(inner, exp.Literal) and not inner.is_string:
            return node, inner_type
        if inner_type.is_unknown:
            self.coerce(inner, NUMERIC)
            return node, NUMERIC
        if inner_type.oid == t.INTERVAL:
            call = exp.Anonymous(this="sqlext_datetime_arith", expressions=[
                exp.Literal.string("*"), inner.copy(), exp.Literal.number(t.INTERVAL),
                exp.Literal.number(-1), exp.Literal.number(t.INT4)])
            node.replace(call)
            return call, INTERVAL
        return node, inner_type

    def _concat(self, node: exp.DPipe, scope: Scope) -> tuple[exp.Expression, SqlType]:
        left, left_type = self.expr(node.this, scope)
        right, right_type = self.expr(node.expression, scope)
        if left_type.is_unknown:
            self.coerce(left, TEXT)
        if right_type.is_unknown:
            self.coerce(right, TEXT)
        for part, part_type in ((left, left_type), (right, right_type)):
            if not part_type.is_unknown and not is_string(part_type) and (
                part_type.oid not in _INT_TYPES
            ):
                part.replace(self.convert(part.copy(), part_type, TEXT))
        return node, TEXT

    def _bitwise(self, node: exp.Binary, scope: Scope) -> tuple[exp.Expression, SqlType]:
        types = self._children(node, scope)
        for child in list(node.iter_expressions()):
            self.coerce(child, INT8)
        return node, arithmetic_type(*(types + types)[:2])

    def _case(self, node: exp.Case, scope: Scope) -> tuple[exp.Expression, SqlType]:
        subject = node.this
        subject_type = self.expr(subject, scope)[1] if subject is not None else None
        results: list[exp.Expression] = []
        result_types: list[SqlType] = []
        for branch in node.args.get("ifs") or []:
            condition, condition_type = self.expr(branch.this, scope)
            if subject_type is not None:
                self._unify(subject, subject_type, condition, condition_type)
            elif condition_type.is_unknown:
                self.coerce(condition, BOOL)
            result, result_type = self.expr(branch.args["true"], scope)
            results.append(result)
            result_types.append(result_type)
        default = node.args.get("default")
        if default is not None:
            result, result_type = self.expr(default, scope)
            results.append(result)
            result_types.append(result_type)
        target = common_type(result_types)
        if target.is_unknown:
            target = TEXT
        for branch in node.args.get("ifs") or []:
            self.coerce(branch.args["true"], target)
        if node.args.get("default") is not None:
            self.coerce(node.args["default"], target)
        return node, target

    def _variadic_common(self, node: exp.Expression, scope: Scope) -> tuple[
            exp.Expression, SqlType]:
        children = list(node.iter_expressions())
        found = [self.expr(child, scope)[1] for child in children]
        target = common_type(found)
        target = TEXT if target.is_unknown else target
        for child in list(node.iter_expressions()):
            self.coerce(child, target)
        return node, target

    def _tuple(self, node: exp.Tuple, scope: Scope) -> tuple[exp.Expression, SqlType]:
        """A row value, e.g. ``(a, b) = (1, 'x')``; its fields are compared
        pairwise, so unknown literals take the type of their partner."""
        found = self._children(node, scope)
        other = node.parent.expression if isinstance(node.parent, _COMPARISONS) and (
            node.parent.this is node) else None
        if isinstance(other, exp.Tuple) and len(other.expressions) == len(found):
            partner_types = [self.expr(child, scope)[1] for child in list(other.expressions)]
            for mine, theirs, mine_type, their_type in zip(
                list(node.expressions), list(other.expressions), found, partner_types,
                strict=True,
            ):
                self._unify(mine, mine_type, theirs, their_type)
        return node, UNKNOWN

    def _power(self, node: exp.Pow, scope: Scope) -> tuple[exp.Expression, SqlType]:
        left, left_type = self.expr(node.this, scope)
        right, right_type = self.expr(node.expression, scope)
        numeric = t.NUMERIC in (left_type.oid, right_type.oid)
        target = NUMERIC if numeric else FLOAT8
        for part, part_type in ((left, left_type), (right, right_type)):
            if part_type.is_unknown:
                self.coerce(part, target)
        call = exp.Anonymous(this="power", expressions=[node.this.copy(),
                                                        node.expression.copy()])
        node.replace(call)
        return call, target

    def _subquery(self, node: exp.Subquery, scope: Scope) -> tuple[exp.Expression, SqlType]:
        columns = self.query(node.this, scope)
        if len(columns) != 1:
            raise errors.SqlSyntaxError("subquery must return only one column")
        return node, columns[0].type

    def _query_value(self, node: exp.Query, scope: Scope) -> tuple[exp.Expression, SqlType]:
        """A query used as a value (e.g. the operand of IN or a scalar subquery)."""
        columns = self.query(node, scope)
        return node, columns[0].type if columns else UNKNOWN

    def _exists(self, node: exp.Exists, scope: Scope) -> tuple[exp.Expression, SqlType]:
        self.query(node.this, scope)
        return node, BOOL

    def _array(self, node: exp.Array, scope: Scope) -> tuple[exp.Expression, SqlType]:
        items = list(node.expressions)
        if len(items) == 1 and isinstance(items[0], exp.Query):
            columns = self.query(items[0], scope)
            element = columns[0].type if columns else TEXT
            name = columns[0].name if columns else "?column?"
            replacement = exp.Subquery(this=exp.select(exp.Anonymous(
                this="json_group_array", expressions=[exp.column(name, quoted=True)])).from_(
                    exp.Subquery(this=items[0].copy(), alias=exp.TableAlias(
                        this=exp.to_identifier("_array")))))
            node.replace(replacement)
            return replacement, SqlType(t.array_of(element.oid) or t.array_of(t.TEXT))
        found = [self.expr(item, scope)[1] for item in items]
        element = common_type(found)
        element = TEXT if element.is_unknown else element
        for item in list(node.expressions):
            self.coerce(item, element)
        replacement = exp.Anonymous(this="json_array", expressions=[
            item.copy() for item in node.expressions])
        node.replace(replacement)
        return replacement, SqlType(t.array_of(element.oid) or t.array_of(t.TEXT))

    def _bracket(self, node: exp.Bracket, scope: Scope) -> tuple[exp.Expression, SqlType]:
        array, array_type = self.expr(node.this, scope)
        if len(node.expressions) != 1 or isinstance(node.expressions[0], exp.Slice):
            raise errors.FeatureNotSupported("array slices are not supported")
        index, index_type = self.expr(node.expressions[0], scope)
        if index_type.is_unknown:
            self.coerce(index, INT4)
        element = SqlType(t.element_of(array_type.oid) or t.TEXT)
        position = node.expressions[0].copy()
        if not isinstance(position, exp.Literal):
            # sqlglot makes constant subscripts 0-based already; others are 1-based.
            position = exp.Paren(this=exp.Sub(this=exp.Paren(this=position),
                                              expression=exp.Literal.number(1)))
        path = exp.DPipe(this=exp.DPipe(this=exp.Literal.string("$["), expression=position),
                         expression=exp.Literal.string("]"))
        replacement = exp.Anonymous(this="json_extract", expressions=[array.copy(), path])
        node.replace(replacement)
        return replacement, element

    def _interval(self, node: exp.Interval, scope: Scope) -> tuple[exp.Expression, SqlType]:
        value = node.this
        unit = node.args.get("unit")
        text = value.this if isinstance(value, exp.Literal) else value.sql()
        if unit is not None:
            text = f"{text} {unit.sql()}"
        replacement = StorageLiteral(
            this=codecs.text_decoder(t.INTERVAL, -1, self.settings)(str(text)))
        node.replace(replacement)
        return replacement, INTERVAL

    def _current(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        name, sql_type = _CURRENT_FUNCTIONS[type(node)]
        replacement = exp.Anonymous(this=name, expressions=[])
        node.replace(replacement)
        return replacement, sql_type

    def _dot(self, node: exp.Dot, scope: Scope) -> tuple[exp.Expression, SqlType]:
        """``pg_catalog.f(...)`` (a schema-qualified call) or ``(record).field``."""
        function = node.expression
        if isinstance(function, exp.Anonymous) and node.this.name in (PG_CATALOG,
                                                                      INFORMATION_SCHEMA):
            node.replace(function)
            return self.expr(function, scope)
        if isinstance(function, exp.Identifier):
            record, record_type = self.expr(node.this, scope)
            field_type = record_field(record_type, function.name)
            replacement = exp.Anonymous(this="json_extract", expressions=[
                record.copy(), exp.Literal.string(f"$.{function.name}")])
            node.replace(replacement)
            return replacement, field_type
        raise errors.FeatureNotSupported(
            f"expression {node.sql(dialect='postgres')[:60]!r} is not supported")

    def _set_returning_call(self, node: exp.Anonymous, name: str,
                            scope: Scope) -> tuple[exp.Expression, SqlType]:
        """unnest() / _pg_expandarray() in a select list: each element becomes
        a row, through a json_each() source joined to the query."""
        if not self._set_returning or len(node.expressions) != 1:
            raise errors.FeatureNotSupported(
                f"{name}() is supported in FROM and in the select list only")
        array, array_type = self.expr(node.expressions[0], scope)
        if array_type.oid in (t.INT2VECTOR, t.OIDVECTOR):
            # stored as PostgreSQL prints them: '1 2 3'
            array = exp.Concat(expressions=[
                exp.Literal.string("["),
                exp.Anonymous(this="replace", expressions=[
                    exp.Anonymous(this="trim", expressions=[array.copy()]),
                    exp.Literal.string(" "), exp.Literal.string(",")]),
                exp.Literal.string("]")])
        alias = f"_srf{sum(len(found) for found in self._set_returning)}"
        self._set_returning[-1].append(exp.Table(
            this=exp.Anonymous(this="json_each", expressions=[array.copy()]),
            alias=exp.TableAlias(this=exp.to_identifier(alias))))
        element = SqlType(t.element_of(array_type.oid) or t.TEXT)
        value = exp.column("value", alias)
        if name == "unnest":
            node.replace(value)
            return value, element
        ordinal = exp.Add(this=exp.column("key", alias), expression=exp.Literal.number(1))
        record = exp.Anonymous(this="json_object", expressions=[
            exp.Literal.string("x"), value, exp.Literal.string("n"), ordinal])
        node.replace(record)
        return record, record_type((("x", element), ("n", INT4)))

    def _anonymous(self, node: exp.Anonymous, scope: Scope) -> tuple[exp.Expression, SqlType]:
        name = node.name.lower()
        if name in ("unnest", "_pg_expandarray"):
            return self._set_returning_call(node, name, scope)
        if name == "array" and len(node.expressions) == 1 and isinstance(
            node.expressions[0], exp.Query
        ):
            array = exp.Array(expressions=[node.expressions[0]])
            node.replace(array)
            return self._array(array, scope)
        if "." in name:
            schema, _, name = name.rpartition(".")
            if schema != PG_CATALOG:
                raise errors.UndefinedFunction(f"function {node.name} does not exist")
        args = list(node.expressions)
        if name == "pg_typeof" and len(args) == 1:
            _, arg_type = self.expr(args[0], scope)
            replacement = StorageLiteral(this=(TEXT if arg_type.is_unknown else arg_type).oid)
            node.replace(replacement)
            return replacement, SqlType(t.REGTYPE)
        definition = _FUNCTIONS.get(name)
        if definition is None:
            raise errors.UndefinedFunction(
                f"function {name}({', '.join('unknown' for _ in args)}) does not exist",
                hint="No function matches the given name and argument types.",
            )
        if name in functions.WINDOW_ONLY and not isinstance(node.parent, exp.Window):
            raise errors.SqlError(f"window function {name} requires an OVER clause")
        star = len(args) == 1 and isinstance(args[0], exp.Star)
        count = 0 if star else len(args)
        if count < definition.min_args or (
            definition.max_args is not None and count > definition.max_args
        ):
            raise errors.UndefinedFunction(
                f"function {name} does not accept {count} argument(s)",
                hint="No function matches the given name and argument types.",
            )
        arg_types: list[SqlType] = []
        deferred: list[tuple[int, exp.Expression]] = []
        if not star:
            for index, arg in enumerate(args):
                inner = arg.this if isinstance(arg, exp.Distinct) else arg
                if isinstance(arg, exp.Distinct):
                    for distinct_arg in list(arg.expressions):
                        arg_types.append(self.expr(distinct_arg, scope)[1])
                    continue
                if isinstance(inner, exp.Order):
                    raise errors.FeatureNotSupported("ORDER BY inside aggregates is not "
                                                     "supported")
                translated, arg_type = self.expr(arg, scope)
                if arg_type.is_unknown:
                    wanted = definition.arg_type(index)
                    if wanted is None:
                        deferred.append((len(arg_types), translated))
                    else:
                        self.coerce(translated, wanted)
                        arg_type = wanted
                arg_types.append(arg_type)
        result = definition.result_type(arg_types)
        for index, translated in deferred:
            # Arguments of polymorphic functions (coalesce, greatest...) whose
            # type is unknown take the type the other arguments decided.
            wanted = TEXT if result.is_unknown else result
            self.coerce(translated, wanted)
            arg_types[index] = wanted
        target = definition.target
        if definition.numeric_target and arg_types and arg_types[0].oid in (
            t.NUMERIC, t.INT8
        ) and not isinstance(node.parent, exp.Window):
            target = definition.numeric_target
        node.set("this", target)
        return node, definition.result_type(arg_types)

    def _window(self, node: exp.Window, scope: Scope) -> tuple[exp.Expression, SqlType]:
        _, sql_type = self.expr(node.this, scope)
        for item in node.args.get("partition_by") or []:
            self.expr(item, scope)
        order = node.args.get("order")
        if order is not None:
            for ordered in order.expressions:
                self.expr(ordered.this, scope)
        return node, sql_type

    def _filter(self, node: exp.Filter, scope: Scope) -> tuple[exp.Expression, SqlType]:
        _, sql_type = self.expr(node.this, scope)
        self.expr(node.expression.this if isinstance(node.expression, exp.Where)
                  else node.expression, scope)
        return node, sql_type

    def _distinct(self, node: exp.Distinct, scope: Scope) -> tuple[exp.Expression, SqlType]:
        found = [self.expr(child, scope)[1] for child in list(node.expressions)]
        return node, found[0] if found else UNKNOWN

    def _group_concat(self, node: exp.GroupConcat, scope: Scope) -> tuple[
            exp.Expression, SqlType]:
        inner = node.this
        if isinstance(inner, exp.Order):
            raise errors.FeatureNotSupported("ORDER BY inside aggregates is not supported")
        translated, inner_type = self.expr(inner, scope)
        if inner_type.is_unknown:
            self.coerce(translated, TEXT)
        separator = node.args.get("separator")
        if separator is not None:
            separator_node, separator_type = self.expr(separator, scope)
            if separator_type.is_unknown:
                self.coerce(separator_node, TEXT)
        return node, TEXT

    def _substring(self, node: exp.Substring, scope: Scope) -> tuple[exp.Expression, SqlType]:
        for child in list(node.iter_expressions()):
            child_node, child_type = self.expr(child, scope)
            if child_type.is_unknown:
                self.coerce(child_node, TEXT if child is node.this else INT4)
        return node, TEXT

    def _trim(self, node: exp.Trim, scope: Scope) -> tuple[exp.Expression, SqlType]:
        for child in list(node.iter_expressions()):
            child_node, child_type = self.expr(child, scope)
            if child_type.is_unknown:
                self.coerce(child_node, TEXT)
        return node, TEXT

    def _position(self, node: exp.StrPosition, scope: Scope) -> tuple[exp.Expression, SqlType]:
        for child in list(node.iter_expressions()):
            child_node, child_type = self.expr(child, scope)
            if child_type.is_unknown:
                self.coerce(child_node, TEXT)
        return node, INT4

    def _extract(self, node: exp.Extract, scope: Scope) -> tuple[exp.Expression, SqlType]:
        field = node.this.name.lower()
        value, value_type = self.expr(node.expression, scope)
        if value_type.is_unknown:
            self.coerce(value, TIMESTAMPTZ)
            value_type = TIMESTAMPTZ
        call = exp.Anonymous(this="sqlext_extract", expressions=[
            exp.Literal.string(field), value.copy(), exp.Literal.number(value_type.oid)])
        node.replace(call)
        fractional = field in ("epoch", "second", "seconds") and value_type.oid != t.DATE
        milliseconds = field in ("millisecond", "milliseconds") and value_type.oid != t.DATE
        return call, SqlType(t.NUMERIC, -1, 6 if fractional else 3 if milliseconds else 0)


_RECORD_SHAPES: list[tuple[tuple[str, SqlType], ...]] = []


def record_type(fields: tuple[tuple[str, SqlType], ...]) -> SqlType:
    """The type of a composite value with these fields. Records are held as
    JSON objects; the typmod numbers the shape (field names and types)."""
    if fields not in _RECORD_SHAPES:
        _RECORD_SHAPES.append(fields)
    return SqlType(t.RECORD, _RECORD_SHAPES.index(fields))


def record_field(record: SqlType, name: str) -> SqlType:
    if record.oid != t.RECORD or not 0 <= record.typmod < len(_RECORD_SHAPES):
        raise errors.WrongObjectType("column notation .{name} applied to a value that is "
                                     "not a composite type")
    for field, field_type in _RECORD_SHAPES[record.typmod]:
        if field == name:
            return field_type
    raise errors.UndefinedColumn(f'could not identify column "{name}" in record data type')


def source_position(node: exp.Expression | None) -> int | None:
    """1-based position of a name in the statement text (error positions)."""
    meta = node.meta if isinstance(node, exp.Identifier) and node.meta else {}
    start = meta.get("start")
    return start + 1 if isinstance(start, int) else None


def reg_name(node: exp.Expression, source: SqlType) -> exp.Expression:
    """The name a regclass/regtype/... value stands for (its text output)."""
    return exp.Anonymous(this="sqlext_reg_name", expressions=[
        node, exp.Literal.number(source.oid)])


def readable_outputs(tree: exp.Expression, columns: list[ColumnInfo]) -> set[int]:
    """Result columns of reg* types are sent as names, as PostgreSQL prints
    them; returns the positions of those columns (their values are text)."""
    named: set[int] = set()
    if not isinstance(tree, exp.Select):
        return named
    for index, (projection, column) in enumerate(zip(tree.expressions, columns,
                                                     strict=False)):
        if column.type.oid in _REG_TYPES and isinstance(projection, exp.Alias):
            projection.set("this", reg_name(projection.this.copy(), column.type))
            named.add(index)
    return named


def _distinct_on(node: exp.Select, columns: list[ColumnInfo]) -> None:
    """SELECT DISTINCT ON (keys) ... ORDER BY ...: keep the first row of each
    key group (row_number() = 1) and keep the query's order, which SQLite's
    window rewrite alone would lose."""
    keys = [key.copy() for key in node.args["distinct"].args["on"].expressions]
    order = node.args.get("order")
    ordered = [o.copy() for o in order.expressions] if order is not None else []
    inner = node.copy()
    inner.set("distinct", None)
    inner.set("order", None)
    inner.set("limit", None)
    inner.set("offset", None)
    for index, item in enumerate(ordered):
        inner.append("expressions", exp.alias_(item.this.copy(), f"_o{index}", quoted=True))
    window = exp.Window(this=exp.Anonymous(this="row_number", expressions=[]),
                        partition_by=keys, order=exp.Order(expressions=ordered) if ordered
                        else None)
    inner.append("expressions", exp.alias_(window, "_rn", quoted=True))
    outer = exp.select(*[exp.column(c.name, quoted=True) for c in columns]).from_(
        exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("_d"))))
    outer = outer.where(exp.EQ(this=exp.column("_rn", quoted=True),
                               expression=exp.Literal.number(1)))
    if ordered:
        outer.set("order", exp.Order(expressions=[
            exp.Ordered(this=exp.column(f"_o{index}", quoted=True), desc=o.args.get("desc"),
                        nulls_first=o.args.get("nulls_first"))
            for index, o in enumerate(ordered)]))
    for key in ("limit", "offset"):
        if node.args.get(key) is not None:
            outer.set(key, node.args[key].copy())
    for key in set(node.args) | set(outer.args):
        node.set(key, outer.args.get(key))


def _number_literal(node: exp.Expression) -> str | None:
    """The text of a (possibly negated) number literal."""
    if isinstance(node, exp.Literal) and not node.is_string:
        return str(node.this)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and (
        not node.this.is_string
    ):
        return f"-{node.this.this}"
    return None


def _literal_scale(text: str) -> int | None:
    """Digits after the decimal point of a numeric literal ('3.50' -> 2)."""
    mantissa = text.strip().lower()
    if "e" in mantissa or not mantissa.replace(".", "", 1).lstrip("+-").isdigit():
        return None
    return len(mantissa.partition(".")[2])


def _unalias(node: exp.Expression) -> exp.Expression:
    return node.this if isinstance(node, exp.Alias) else node


def _nonzero_constant(node: exp.Expression) -> bool:
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return float(node.this) != 0
        except ValueError:
            return False
    return False


def _datetime_result(operator: str, left: SqlType, right: SqlType) -> SqlType:
    pair = (left.oid, right.oid)
    if operator == "-" and left.oid == right.oid == t.DATE:
        return INT4
    if operator == "-" and left.oid == right.oid and left.oid in (t.TIMESTAMP, t.TIMESTAMPTZ,
                                                                   t.TIME):
        return INTERVAL
    if left.oid == t.DATE and right.oid in _INT_TYPES:
        return DATE
    if pair == (t.DATE, t.INTERVAL) or pair == (t.INTERVAL, t.DATE):
        return TIMESTAMP
    if t.INTERVAL in pair and (t.TIMESTAMPTZ in pair):
        return TIMESTAMPTZ
    if t.INTERVAL in pair and (t.TIMESTAMP in pair):
        return TIMESTAMP
    if t.INTERVAL in pair and t.TIME in pair:
        return SqlType(t.TIME)
    if left.oid == t.INTERVAL or right.oid == t.INTERVAL:
        return INTERVAL
    raise errors.UndefinedFunction(
        f"operator does not exist: {t.format_type(left.oid)} {operator} "
        f"{t.format_type(right.oid)}")


_CURRENT_FUNCTIONS: dict[type[exp.Expression], tuple[str, SqlType]] = {
    exp.CurrentTimestamp: ("sqlext_now", TIMESTAMPTZ),
    exp.CurrentDate: ("sqlext_current_date", DATE),
    exp.CurrentUser: ("sqlext_current_user", SqlType(t.NAME)),
    exp.SessionUser: ("sqlext_current_user", SqlType(t.NAME)),
    exp.CurrentSchema: ("sqlext_current_schema", SqlType(t.NAME)),
    exp.CurrentCatalog: ("sqlext_current_database", SqlType(t.NAME)),
    exp.Localtimestamp: ("sqlext_localtimestamp", TIMESTAMP),
    exp.CurrentTime: ("sqlext_current_time", SqlType(t.TIME)),
    exp.Localtime: ("sqlext_current_time", SqlType(t.TIME)),
}

_HANDLERS: dict[type, Any] = {
    exp.Literal: Translator._literal,
    exp.ByteString: Translator._byte_string,
    exp.Null: Translator._null,
    exp.Boolean: Translator._boolean,
    StorageLiteral: Translator._storage_literal,
    exp.Parameter: Translator._parameter,
    exp.Placeholder: Translator._parameter,
    exp.Column: Translator._column,
    exp.Alias: Translator._alias,
    exp.Paren: Translator._paren,
    exp.Collate: Translator._collate,
    exp.Cast: Translator._cast,
    exp.TryCast: Translator._cast,
    exp.And: Translator._logical,
    exp.Or: Translator._logical,
    exp.Not: Translator._not,
    exp.Is: Translator._is,
    exp.In: Translator._in,
    exp.Between: Translator._between,
    exp.Like: Translator._like,
    exp.ILike: Translator._like,
    exp.Escape: Translator._escape,
    exp.RegexpLike: Translator._regexp_like,
    exp.RegexpILike: Translator._regexp_like,
    exp.Operator: Translator._operator,
    exp.Neg: Translator._negative,
    exp.DPipe: Translator._concat,
    exp.Case: Translator._case,
    exp.Coalesce: Translator._variadic_common,
    exp.Subquery: Translator._subquery,
    exp.Exists: Translator._exists,
    exp.Array: Translator._array,
    exp.Bracket: Translator._bracket,
    exp.Interval: Translator._interval,
    exp.Anonymous: Translator._anonymous,
    exp.Window: Translator._window,
    exp.Filter: Translator._filter,
    exp.Distinct: Translator._distinct,
    exp.GroupConcat: Translator._group_concat,
    exp.Substring: Translator._substring,
    exp.Trim: Translator._trim,
    exp.StrPosition: Translator._position,
    exp.Extract: Translator._extract,
    exp.Tuple: Translator._tuple,
    exp.Dot: Translator._dot,
    exp.Pow: Translator._power,
    **{kind: Translator._current for kind in _CURRENT_FUNCTIONS},
    **{kind: Translator._comparison for kind in _COMPARISONS},
    **{kind: Translator._arithmetic for kind in _ARITHMETIC},
    **{kind: Translator._bitwise for kind in (exp.BitwiseAnd, exp.BitwiseOr, exp.BitwiseXor,
                                             exp.BitwiseLeftShift, exp.BitwiseRightShift)},
}

_BASE_HANDLERS: list[tuple[type, Any]] = [
    (exp.Query, Translator._query_value),
]

