"""Expressions: their PostgreSQL types, and the SQLite that behaves the same.

For every expression the ``ExpressionTranslator`` works out the PostgreSQL
type and rewrites what SQLite would get wrong: literals and parameters take
their type from context and are converted to the storage form at translation
time; casts and operators with PostgreSQL-specific behaviour (division by
zero, regular expressions, date arithmetic...) become calls of our registered
functions. ``HANDLERS`` maps each expression class to its rule.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Final

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.schema import INFORMATION_SCHEMA, PG_CATALOG, Catalog, Relation
from catalog.sqltypes import (
    BOOL,
    BYTEA,
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
    arithmetic_type,
    check_matchable,
    common_type,
    is_numeric,
    is_string,
)
from executor import codecs
from executor.codecs.numeric import parse_decimal
from executor.functions.catalog_info import reg_input
from executor.values.conversions import INT_RANGES, integer_result
from sqlext.sql.sqlite_dialect import ScaledNumeric, StatementOnly, StorageLiteral
from sqlext.translate import numeric_rules
from sqlext.translate.composite import record_field
from sqlext.translate.lateral import COLUMN_POSITION, SelectListRows, packed_value
from sqlext.translate.naming import source_position
from sqlext.translate.scope import ColumnInfo, Scope, Source
from sqlext.translate.type_names import resolve_type

_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ,
                exp.NullSafeNEQ)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)
DATETIME_OIDS = frozenset({t.DATE, t.TIME, t.TIMESTAMP, t.TIMESTAMPTZ, t.INTERVAL})
_INT_TYPES = frozenset({t.INT2, t.INT4, t.INT8})
_TEXT_ARRAY = SqlType(t.array_of(t.TEXT))
_OID_TYPES = frozenset({t.OID, t.REGCLASS, t.REGTYPE, t.REGPROC, t.REGNAMESPACE})
REG_TYPES = _OID_TYPES - {t.OID}
_REGEX_OPERATORS = {"~": (False, False), "~*": (True, False), "!~": (False, True),
                    "!~*": (True, True)}

Handler = Callable[[Any, Any, Scope], tuple[exp.Expression, SqlType]]


class ExpressionTranslator:
    """Translates expressions; ``Translator`` adds queries and FROM items."""

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
        self.highest_param = 0
        """The highest parameter number the SQL uses (SQLite binds exactly
        that many values; PostgreSQL lets a statement leave parameters unused)."""
        self.param_names: dict[str, int] = {}
        """Procedure bodies: parameter name -> number; a name no column
        claims refers to the parameter (as in PostgreSQL SQL functions)."""
        self.batch_streams: frozenset[int] = frozenset()
        """Streams (OIDs) whose name denotes only the batch being processed."""
        self.params_decoded = True
        """See ``CompileContext.params_decoded``."""
        self.role: str | None = None
        """See ``CompileContext.role``."""
        self.target_relation: Relation | None = None
        """INSERT, UPDATE, DELETE: the relation changed."""
        self.live_tables: set[str] = set()
        """Live system views the statement reads."""
        self.called: set[str] = set()
        """The (PostgreSQL) functions the statement calls."""
        self.read_relations: dict[int, Relation] = {}
        """Every relation named in a FROM clause, by OID."""
        self.column_reads: dict[int, set[str]] = {}
        """Relation OID -> the columns the statement reads, system columns
        (tableoid, batch_id) too: column privileges are checked on them, and
        a view depends on those of its query (``ViewRule.reads``)."""
        self.target_columns: tuple[str, ...] = ()
        """INSERT: the columns given values; UPDATE: the columns set."""
        self.conflict_updates: tuple[str, ...] = ()
        """INSERT ... ON CONFLICT DO UPDATE: the columns set."""
        self.writes = False
        """Set when the statement changes data (or locks rows FOR UPDATE)."""
        self._set_returning: list[SelectListRows | str] = []
        """Where set-returning functions are being translated: the innermost
        select list (which takes them), or a clause that refuses them."""

    def _param_index(self, node: exp.Expression) -> int:
        try:
            number = int(node.name)
        except ValueError as exc:
            raise errors.SqlSyntaxError(f"invalid parameter {node.sql()}") from exc
        if number < 1:
            raise errors.UndefinedParameter(f"there is no parameter ${number}")
        while len(self.params) < number:
            self.params.append(UNKNOWN)
        self.highest_param = max(self.highest_param, number)
        return number - 1

    def param_types(self) -> list[SqlType]:
        """Final parameter types: still-unknown ones become text."""
        return [TEXT if p.is_unknown else p for p in self.params]

    def expr(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        """Translate an expression in place: (its replacement, its type)."""
        handler = self.HANDLERS.get(type(node))
        if handler is not None:
            return handler(self, node, scope)
        if isinstance(node, exp.Query):
            return self._query_value(node, scope)
        raise errors.FeatureNotSupported(
            f"expression {node.sql(dialect='postgres')[:60]!r} is not supported"
        )

    def _children(self, node: exp.Expression, scope: Scope) -> list[SqlType]:
        return [self.expr(child, scope)[1] for child in list(node.iter_expressions())]

    def coerce(self, node: exp.Expression, target: SqlType, scope: Scope | None = None,
               assignment: bool = False, stored: bool = False) -> exp.Expression:
        """Give an unknown-typed literal or parameter the type ``target``
        (converting literals to their storage form now). A numeric value
        takes the form expressions compute with (a key) unless ``stored``
        into a column of ``target``."""
        inner = node
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if target.oid == t.NUMERIC and not stored:
            target = NUMERIC
        if is_unknown_literal(inner):
            value = codecs.text_decoder(target.oid, target.typmod, self.settings)(inner.this)
            replacement: exp.Expression = StorageLiteral(this=value)
            if target.oid == t.NUMERIC and not stored:
                replacement = numeric_rules.NumericKey(this=replacement)
            inner.replace(replacement)
            return replacement if inner is node else node
        if isinstance(inner, exp.Parameter | exp.Placeholder):
            index = self._param_index(inner)
            if self.params[index].is_unknown:
                self.params[index] = target
        return node

    def conform(self, node: exp.Expression, node_type: SqlType,
                target: SqlType) -> exp.Expression:
        """``node`` as a value of ``target`` where values meet (CASE branches,
        IN lists, the two sides of a comparison...): unknowns take the type,
        numbers meeting numerics are converted."""
        if node_type.is_unknown:
            return self.coerce(node, target)
        if not numeric_rules.changes_representation(node_type, target):
            return node
        converted = self.convert(node.copy(), node_type, SqlType(target.oid))
        node.replace(converted)
        return converted

    def convert(self, node: exp.Expression, source: SqlType, target: SqlType) -> exp.Expression:
        """Wrap ``node`` (of type ``source``) so it yields a ``target`` value."""
        if target.oid == t.NUMERIC and source.oid != t.NUMERIC and (
                is_numeric(source) or is_string(source)):
            return numeric_rules.to_numeric(node, source, target.typmod)
        if source.oid == t.NUMERIC and target.oid == t.BOOL:
            raise errors.CannotCoerce("cannot cast type numeric to boolean")
        if source.oid == t.NUMERIC and target.oid == t.NUMERIC:
            return numeric_rules.to_numeric(node, source, target.typmod) if (
                target.typmod >= 0 and source.typmod != target.typmod) else node
        if source.oid == target.oid and (target.typmod < 0 or source.typmod == target.typmod):
            return node
        if target.oid in (t.FLOAT4, t.FLOAT8) and source.oid == t.NUMERIC:
            return numeric_rules.to_float(node)
        if target.oid in (t.FLOAT4, t.FLOAT8) and source.oid in _INT_TYPES:
            return exp.Cast(this=node, to=exp.DataType.build("REAL"))
        if target.oid in _INT_TYPES and source.oid in _INT_TYPES:
            if t.TYPES[target.oid].length >= t.TYPES[source.oid].length:
                return node
            if _plain(node):
                return _checked(_fits(node, target), node, source, target)
            if _row_level(node):
                return StatementOnly(this=_converted(node.copy(), source, target),
                                     statement=_narrowed_once(node, source, target))
        if source.oid == t.BPCHAR and target.oid != t.BPCHAR and is_string(target):
            # char(n)'s padding means nothing: text, varchar and name drop it
            node = exp.Anonymous(this="rtrim", expressions=[node, exp.Literal.string(" ")])
            source = TEXT
        if is_string(target) and is_string(source) and target.typmod < 0:
            return node
        if target.oid == t.BOOL and source.oid in _INT_TYPES:
            return exp.NEQ(this=exp.Paren(this=node), expression=exp.Literal.number(0))
        if source.oid in (t.INT2VECTOR, t.OIDVECTOR) and (
            t.element_of(target.oid) == t.element_of(source.oid)
        ):
            return vector_as_array(node)
        return _converted(node, source, target)

    def _adopt_typmod(self, node: exp.Expression, node_type: SqlType, target: SqlType) -> bool:
        """A parameter of the column's type that only this value uses takes
        the column's typmod: its decoder then rounds or checks the value once,
        while binding, instead of a conversion SQLite calls for every row."""
        if not self.params_decoded or not isinstance(node, exp.Parameter) or (
                node_type.oid != target.oid):
            return False
        if node_type.typmod >= 0 or target.typmod < 0:
            return False
        uses = sum(1 for other in node.root().find_all(exp.Parameter, exp.Placeholder)
                   if other.name == node.name)
        if uses != 1:
            return False
        self.params[self._param_index(node)] = target
        return True

    def assign(self, node: exp.Expression, node_type: SqlType, target: SqlType,
               column: str) -> exp.Expression:
        """Convert a value stored into a column of type ``target`` (PostgreSQL's
        assignment casts), raising 42804 where PostgreSQL would."""
        if node_type.is_unknown or isinstance(node, exp.Null):
            return self.coerce(node, target, stored=True)
        sized = target.oid in (t.VARCHAR, t.BPCHAR) and target.typmod not in (-1, node_type.typmod)
        if isinstance(node, StorageLiteral) and node_type.oid == target.oid and not sized:
            # A constant of another type ('x'::date into json, a number too
            # large for bigint) is checked and converted like any value; one
            # of another length ('x'::bpchar into char(3)) is padded or checked.
            return node
        if self._adopt_typmod(node, node_type, target):
            return node
        if target.oid == t.NUMERIC and (is_numeric(node_type) or is_string(node_type)) and (
                _number_literal(node) is None):
            return numeric_rules.stored(node, node_type, target)
        number = _number_literal(node)
        if number is not None and (is_numeric(target) or is_string(target)):
            # Constants are converted now, as PostgreSQL folds them while
            # planning: an out-of-range value fails before anything runs (an
            # integer one with the message of its cast, "integer out of range").
            value = integer_result(int(number), target.oid) if (
                target.oid in _INT_TYPES and number.lstrip("-").isdigit()) else (
                codecs.text_decoder(target.oid, target.typmod, self.settings)(number))
            replacement = StorageLiteral(this=value)
            node.replace(replacement)
            return replacement
        allowed = (
            node_type.oid == target.oid
            or (is_numeric(node_type) and is_numeric(target))
            or is_string(target)
            or (node_type.oid in DATETIME_OIDS and target.oid in DATETIME_OIDS)
            or (is_string(node_type) and target.oid in (t.VARCHAR, t.BPCHAR, t.TEXT, t.NAME))
            or {node_type.oid, target.oid} <= {t.INET, t.CIDR}
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
        length = t.char_length(target.typmod)
        if target.oid == t.VARCHAR and length is not None and is_string(node_type) and (
                _plain(node)):
            return _checked(exp.LTE(this=exp.Length(this=node.copy()),
                                    expression=exp.Literal.number(length)), node, TEXT, target)
        if target.oid in (t.VARCHAR, t.BPCHAR) and target.typmod >= 0:
            return exp.Anonymous(this="sqlext_assign_char", expressions=[
                self.convert(node, node_type, TEXT), exp.Literal.number(target.oid),
                exp.Literal.number(target.typmod)])
        return self.convert(node, node_type, target)

    def _reg_literal(self, text: str, target: SqlType) -> int | str:
        """'name'::regclass and friends: resolved now, against the catalog
        (PostgreSQL also reads such constants when it parses the query)."""
        return reg_input(self.catalog, self.search_path, None, text, target.oid)

    def _literal(self, node: exp.Literal, scope: Scope) -> tuple[exp.Expression, SqlType]:
        if node.is_string:
            return node, UNKNOWN
        text = node.this
        if text.lstrip("-").isdigit():
            value = int(text)
            if -(2**31) <= value < 2**31:
                return node, INT4
            if -(2**63) <= value < 2**63:
                return node, INT8
        number = parse_decimal(text)
        replacement = numeric_rules.key_literal(number)
        node.replace(replacement)
        return replacement, NUMERIC

    def _dollar_quoted(self, node: exp.RawString, scope: Scope) -> tuple[exp.Expression,
                                                                          SqlType]:
        """``$$text$$`` and ``$tag$text$tag$``: a string constant like 'text'."""
        literal = exp.Literal.string(node.this)
        node.replace(literal)
        return literal, UNKNOWN

    def _byte_string(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        """E'...': sqlglot has decoded its escapes already."""
        if "\x00" in node.this:  # E'\x00', E'\000'
            raise errors.CharacterNotInRepertoire(
                'invalid byte sequence for encoding "UTF8": 0x00')
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
        if table is None and not node.this.quoted and node.name in ("current_role", "user"):
            call = exp.Anonymous(this=node.name)  # reserved words: never a column
            node.replace(call)
            return self.expr(call, scope)
        if node.name == "tableoid":
            # a system column: PostgreSQL reserves the name
            found = _table_oid(scope, table)
            if found is not None:
                self.column_reads.setdefault(found.this, set()).add("tableoid")
                node.replace(found)
                return found, SqlType(t.OID)
        located = scope.locate(node.name, table)
        if located is None and table is None and node.name in self.param_names:
            parameter = exp.Parameter(this=exp.Literal.number(self.param_names[node.name]))
            node.replace(parameter)
            return self.expr(parameter, scope)
        if located is None:
            hidden = scope.invisible(node.name, table)
            if hidden is not None:
                raise hidden
            if table is not None and scope.source(table) is None:
                raise errors.UndefinedTable(f'missing FROM-clause entry for table "{table}"')
            shown = f"{table}.{node.name}" if table else node.name
            raise errors.UndefinedColumn(f'column "{shown}" does not exist',
                                         position=source_position(node.this))
        source, found = located
        self.note_read(source, found)
        computed = source.computed.get(found.name)
        if computed is not None:
            replacement = computed.copy()
            node.replace(replacement)
            return replacement, found.type
        if source.packed:
            index = node.meta.get(COLUMN_POSITION) if table is not None else None
            if index is None:
                index = next(i for i, column in enumerate(source.columns) if column is found)
            value = packed_value(source.alias, index, source.columns[index].type)
            node.replace(value)
            return value, source.columns[index].type
        node.set("db", None)
        node.set("catalog", None)
        node.this.set("quoted", True)
        if table is None and not scope.joined_later(source, node.name):
            # Qualified, so sources the translation adds (json_each...) never
            # make a name ambiguous for SQLite.
            table = source.alias
        if table:
            node.set("table", exp.to_identifier(table, quoted=True))
        if found.scaled is not None:
            scaled = ScaledNumeric(this=node.copy(), scale=found.scaled)
            node.replace(scaled)
            return scaled, found.type
        return node, found.type

    def note_read(self, source: Source, column: ColumnInfo) -> None:
        """``column`` of ``source`` is read: a column of a relation counts
        (under its own name, whatever alias the statement gives it)."""
        relation = self.catalog.relation_by_oid(source.relation_oid)
        if relation is not None:
            name = relation.columns[column.column_number - 1].name if (
                column.column_number) else column.name
            self.column_reads.setdefault(relation.oid, set()).add(name)

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
        if is_unknown_literal(bare) and target.oid in REG_TYPES:
            replacement = StorageLiteral(this=self._reg_literal(bare.this, target))
            inner.replace(replacement)
        elif target.oid in REG_TYPES and (
            (isinstance(bare, exp.Parameter) and source.is_unknown) or is_string(source)
        ):
            # A name known only when the statement runs: a parameter, a column.
            replacement = exp.Anonymous(this="sqlext_reg_in", expressions=[
                self.coerce(inner, TEXT) if source.is_unknown else inner,
                exp.Literal.number(target.oid)])
        elif is_unknown_literal(bare) or (
            isinstance(bare, exp.Parameter) and source.is_unknown
        ):
            replacement = self.coerce(inner, target)
            if target.oid == t.NUMERIC and target.typmod >= 0:
                replacement = numeric_rules.to_numeric(replacement, NUMERIC, target.typmod)
        elif source.oid in REG_TYPES and is_string(target):
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
        left = self._unpadded(left, left_type, right_type)
        right = self._unpadded(right, right_type, left_type)
        target = numeric_rules.comparison_type(left_type, right_type)
        if target is not None:
            left = self.conform(left, left_type, target)
            right = self.conform(right, right_type, target)
        if not isinstance(node, exp.NullSafeEQ | exp.NullSafeNEQ):
            numeric_rules.compare_raw(left, right)
        return node, BOOL

    def _unpadded(self, node: exp.Expression, node_type: SqlType,
                  other_type: SqlType) -> exp.Expression:
        """A char(n) value compared with another string type is compared as
        text, without its padding (PostgreSQL casts it to text)."""
        if node_type.oid != t.BPCHAR or other_type.oid == t.BPCHAR or other_type.is_unknown \
                or not is_string(other_type):
            return node
        converted = self.convert(node.copy(), node_type, TEXT)
        node.replace(converted)
        return converted

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
        if array_type.is_unknown:
            # '{1,2}' is an array of the left side's type, as in PostgreSQL.
            array_type = SqlType(t.array_of(TEXT.oid if left_type.is_unknown else left_type.oid)
                                 or t.array_of(t.TEXT))
            array = self.coerce(array, array_type)
        elif not t.element_of(array_type.oid):
            raise errors.WrongObjectType("op ANY/ALL (array) requires array on right side")
        element = SqlType(t.element_of(array_type.oid) or t.TEXT)
        if left_type.is_unknown:
            self.coerce(left, element)
        if array_type.oid in (t.INT2VECTOR, t.OIDVECTOR):
            array = vector_as_array(array)
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

    def condition(self, node: exp.Expression, scope: Scope) -> None:
        """A WHERE, HAVING or JOIN ON condition: an unknown there (``WHERE
        $1``) is boolean, as in PostgreSQL."""
        translated, condition_type = self.expr(node, scope)
        if condition_type.is_unknown:
            self.coerce(translated, BOOL)

    def _logical(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        for child in list(node.iter_expressions()):
            child_node, child_type = self.expr(child, scope)
            if child_type.is_unknown:
                self.coerce(child_node, BOOL)
        return node, BOOL

    def _like(self, node: exp.Binary, scope: Scope) -> tuple[exp.Expression, SqlType]:
        left, left_type = self.expr(node.this, scope)
        right, right_type = self.expr(node.expression, scope)
        self.coerce(left, TEXT) if left_type.is_unknown else None
        self.coerce(right, TEXT) if right_type.is_unknown else None
        like: exp.Expression = node
        if isinstance(node, exp.ILike):
            like = exp.Like(this=exp.Lower(this=left.copy()),
                            expression=exp.Lower(this=right.copy()))
            node.replace(like)
        if isinstance(like.parent, exp.Escape):
            return like, BOOL
        # PostgreSQL's LIKE escapes with a backslash unless told otherwise;
        # SQLite's has no escape character unless given one
        escaped = exp.Escape(this=like.copy(), expression=exp.Literal.string("\\"))
        like.replace(escaped)
        return escaped, BOOL

    def _escape(self, node: exp.Escape, scope: Scope) -> tuple[exp.Expression, SqlType]:
        if isinstance(node.this, exp.SimilarTo):
            return self._similar_to(node, scope)
        self._like(node.this, scope) if isinstance(node.this, exp.Like | exp.ILike) else None
        escape, escape_type = self.expr(node.expression, scope)
        if escape_type.is_unknown:
            self.coerce(escape, TEXT)
        return node, BOOL

    def _similar_to(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        """``value SIMILAR TO pattern [ESCAPE e]`` (``node``: the SimilarTo or
        the Escape around it): a call of sqlext_similar_to; the escape is a
        backslash unless one is given."""
        similar = node.this if isinstance(node, exp.Escape) else node
        escape = node.expression if isinstance(node, exp.Escape) else exp.Literal.string("\\")
        operands = []
        for operand in (similar.this, similar.expression, escape):
            translated, operand_type = self.expr(operand, scope)
            if operand_type.is_unknown:
                translated = self.coerce(translated, TEXT)
            operands.append(translated.copy())
        call = exp.Anonymous(this="sqlext_similar_to", expressions=operands)
        node.replace(call)
        return call, BOOL

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
        """``a OPERATOR(pg_catalog.=) b``: the operator named (and qualified),
        as psql and pg_dump write them in catalog queries."""
        operator = str(node.args.get("operator", "")).split(".")[-1].strip()
        if operator in _REGEX_OPERATORS:
            return self._regex(node, scope, operator)
        binary = _NAMED_OPERATORS.get(operator)
        if binary is None:
            raise errors.UndefinedFunction(f"operator does not exist: {operator}")
        replacement = binary(this=node.this, expression=node.expression)
        node.replace(replacement)
        return self.expr(replacement, scope)

    def _not(self, node: exp.Not, scope: Scope) -> tuple[exp.Expression, SqlType]:
        inner, inner_type = self.expr(node.this, scope)
        if inner_type.is_unknown:
            self.coerce(inner, BOOL)
        return node, BOOL

    def _is(self, node: exp.Is, scope: Scope) -> tuple[exp.Expression, SqlType]:
        if not isinstance(node.expression, exp.Boolean | exp.Null):
            return self.expr(_is_first(node), scope)
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
        if any(t.NUMERIC in (target.oid, found.oid) for found in item_types):
            target = common_type([target, *item_types])
            self.conform(left, left_type, target)
        else:
            self.coerce(left, target)
        for item, item_type in zip(list(node.expressions), item_types, strict=True):
            self.conform(item, item_type, target)
        return node, BOOL

    def _between(self, node: exp.Between, scope: Scope) -> tuple[exp.Expression, SqlType]:
        parts = [node.this, node.args["low"], node.args["high"]]
        part_types = [self.expr(part, scope)[1] for part in parts]
        target = common_type(part_types)
        for part, part_type in zip(parts, part_types, strict=True):
            self.conform(part, part_type, TEXT if target.is_unknown else target)
        return node, BOOL

    def _arithmetic(self, node: exp.Binary, scope: Scope) -> tuple[exp.Expression, SqlType]:
        left, left_type = self.expr(node.this, scope)
        right, right_type = self.expr(node.expression, scope)
        if left_type.oid in DATETIME_OIDS or right_type.oid in DATETIME_OIDS:
            return self._datetime_arithmetic(node, left, left_type, right, right_type)
        symbol = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/"}.get(type(node), "%")
        if left_type.is_unknown and right_type.is_unknown and (
                is_unknown_literal(left) or is_unknown_literal(right)):
            # '1' + '2': PostgreSQL cannot choose among the + operators.
            raise errors.AmbiguousFunction(f"operator is not unique: unknown {symbol} unknown",
                                    hint="Could not choose a best candidate operator. You "
                                         "might need to add explicit type casts.")
        if left_type.is_unknown and right_type.is_unknown:
            left_type = right_type = NUMERIC
        if left_type.is_unknown:
            self.coerce(left, right_type)
            left_type = right_type
        if right_type.is_unknown:
            self.coerce(right, left_type)
            right_type = left_type
        if isinstance(node, exp.Mod) and {left_type.oid, right_type.oid} & {t.FLOAT4, t.FLOAT8}:
            raise errors.no_operator(
                f"{t.format_type(left_type.oid)} % {t.format_type(right_type.oid)}")
        if not (is_numeric(left_type) and is_numeric(right_type)) and not (
                isinstance(node, exp.Sub) and left_type.oid in (t.JSON, t.JSONB)):
            raise errors.no_operator(
                f"{t.format_type(left_type.oid)} {symbol} {t.format_type(right_type.oid)}")
        result = arithmetic_type(left_type, right_type)
        if result.oid == t.NUMERIC:
            call = numeric_rules.operator(symbol, node.this.copy(), node.expression.copy())
            node.replace(call)
            return call, result
        if result.oid in (t.FLOAT4, t.FLOAT8):
            # numeric meeting a float is computed as a float, as in PostgreSQL
            self.conform(left, left_type, result)
            self.conform(right, right_type, result)
        integer = result.oid in _INT_TYPES
        if (isinstance(node, exp.Div | exp.Mod) and not _nonzero_constant(node.expression)) or (
                isinstance(node, exp.Mod) and not integer):
            # SQLite's % works on integers only (5 % 2.5 would be 1).
            function = "sqlext_div" if isinstance(node, exp.Div) else "sqlext_mod"
            call = exp.Anonymous(this=function, expressions=[
                node.this.copy(), node.expression.copy(), exp.Literal.number(int(integer))])
            node.replace(call)
            return self._in_range(call, result), result
        return self._in_range(node, result), result

    @staticmethod
    def _in_range(node: exp.Expression, result: SqlType) -> exp.Expression:
        """Integer arithmetic whose result must fit its type, or 22003 as in
        PostgreSQL (SQLite computes in 64 bits and turns an overflow of those
        into a float). % never overflows."""
        if result.oid not in _INT_TYPES or isinstance(node, exp.Mod):
            return node
        checked = _overflow_checked(node, result)
        node.replace(checked)
        return checked

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
        if isinstance(node.this, exp.Literal) and not node.this.is_string and (
                node.this.this.isdigit()):
            # PostgreSQL's grammar folds the sign into the constant, so
            # -9223372036854775808 is a bigint and -2147483648 an integer.
            literal = exp.Literal(this=f"-{node.this.this}", is_string=False)
            node.replace(literal)
            return self._literal(literal, scope)
        inner, inner_type = self.expr(node.this, scope)
        if isinstance(inner, exp.Literal) and not inner.is_string:
            return node, inner_type
        if inner_type.is_unknown:  # -'1', -NULL
            raise errors.ambiguous_operator("- unknown", source_position(node))
        if not is_numeric(inner_type) and inner_type.oid != t.INTERVAL:
            raise errors.no_operator(f"- {t.format_type(inner_type.oid)}")
        if inner_type.oid == t.INTERVAL:
            call = exp.Anonymous(this="sqlext_datetime_arith", expressions=[
                exp.Literal.string("*"), inner.copy(), exp.Literal.number(t.INTERVAL),
                exp.Literal.number(-1), exp.Literal.number(t.INT4)])
            node.replace(call)
            return call, INTERVAL
        if inner_type.oid == t.NUMERIC:
            negated = numeric_rules.negated(inner.copy())
            node.replace(negated)
            return negated, NUMERIC
        return self._in_range(node, inner_type), inner_type

    def _concat(self, node: exp.DPipe, scope: Scope) -> tuple[exp.Expression, SqlType]:
        left, left_type = self.expr(node.this, scope)
        right, right_type = self.expr(node.expression, scope)
        if t.element_of(left_type.oid) or t.element_of(right_type.oid):
            return self._array_concat(node, left, left_type, right, right_type)
        if {left_type.oid, right_type.oid} - {t.UNKNOWN} == {t.BYTEA}:
            return self._bytea_concat(node, ((left, left_type), (right, right_type)))
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

    def _bytea_concat(self, node: exp.DPipe,
                      parts: tuple[tuple[exp.Expression, SqlType], ...]) -> tuple[
            exp.Expression, SqlType]:
        """bytea || bytea: SQLite's || makes text of the bytes, CAST gives
        them back as a blob (unchanged, NULs included)."""
        for part, part_type in parts:
            if part_type.is_unknown:
                self.coerce(part, BYTEA)
        blob = exp.Cast(this=node.copy(), to=exp.DataType.build("BLOB", dialect="sqlite"))
        node.replace(blob)
        return blob, BYTEA

    def _array_concat(self, node: exp.DPipe, left: exp.Expression, left_type: SqlType,
                      right: exp.Expression, right_type: SqlType) -> tuple[
                          exp.Expression, SqlType]:
        """array || array, array || element, element || array."""
        array_type = left_type if t.element_of(left_type.oid) else right_type
        element = SqlType(t.element_of(array_type.oid))
        resolved: list[SqlType] = []
        for part, part_type in ((left, left_type), (right, right_type)):
            if part_type.is_unknown:
                # PostgreSQL resolves anyarray || unknown (and || NULL) as
                # array || array.
                as_array = is_unknown_literal(part) or isinstance(part, exp.Null)
                part_type = array_type if as_array else element
                self.coerce(part, part_type)
            resolved.append(part_type)
        common = _common_element(*(SqlType(t.element_of(r.oid) or r.oid) for r in resolved))
        if common is None:
            raise errors.no_operator(
                f"{t.format_type(left_type.oid)} || {t.format_type(right_type.oid)}")
        call = exp.Anonymous(this="sqlext_array_cat", expressions=[
            node.this.copy(), node.expression.copy(),
            exp.Literal.number(int(bool(t.element_of(resolved[0].oid)) or (
                _is_array_literal(node.this)))),
            exp.Literal.number(int(bool(t.element_of(resolved[1].oid)) or (
                _is_array_literal(node.expression))))])
        node.replace(call)
        if common.oid == element.oid:
            return call, array_type
        return call, SqlType(t.array_of(common.oid))

    def _json_access(self, node: exp.Expression, scope: Scope) -> tuple[
            exp.Expression, SqlType]:
        """-> and ->> (key or index), #> and #>> (path) on json and jsonb."""
        document, document_type = self.expr(node.this, scope)
        if document_type.is_unknown:
            self.coerce(document, SqlType(t.JSONB))
            document_type = SqlType(t.JSONB)
        selector = node.expression
        function = "sqlext_json_get"
        if isinstance(selector, exp.JSONPath):
            path: exp.Expression = exp.Literal.string(_sqlite_json_path(selector))
        elif isinstance(node, exp.JSONBExtract | exp.JSONBExtractScalar):
            function = "sqlext_json_extract"  # #>, #>>: a text[] path
            path, path_type = self.expr(selector, scope)
            if path_type.is_unknown:
                path = self.coerce(path, _TEXT_ARRAY)
            elif path_type != _TEXT_ARRAY:
                operator = "#>>" if isinstance(node, exp.JSONBExtractScalar) else "#>"
                raise errors.no_operator(f"{t.format_type(document_type.oid)} {operator} "
                                         f"{t.format_type(path_type.oid)}")
        else:
            path, path_type = self.expr(selector, scope)
            if path_type.is_unknown:
                self.coerce(path, TEXT)
        scalar = isinstance(node, exp.JSONExtractScalar | exp.JSONBExtractScalar)
        call = exp.Anonymous(this=function, expressions=[
            document.copy(), path.copy(), exp.Literal.number(int(scalar)),
            exp.Literal.number(int(document_type.oid == t.JSONB))])
        node.replace(call)
        return call, TEXT if scalar else SqlType(document_type.oid)

    def _containment(self, node: exp.Expression, scope: Scope) -> tuple[
            exp.Expression, SqlType]:
        """@> and <@ on jsonb and arrays; ? (key exists) on jsonb."""
        left, left_type = self.expr(node.this, scope)
        right, right_type = self.expr(node.expression, scope)
        operand = left_type if not left_type.is_unknown else right_type
        if operand.is_unknown:
            operand = SqlType(t.JSONB)
        if isinstance(node, exp.JSONBContainsTopKey):
            self.coerce(right, TEXT)
            call = exp.Anonymous(this="sqlext_json_has_key", expressions=[
                left.copy(), right.copy()])
        else:
            for part, part_type in ((left, left_type), (right, right_type)):
                if part_type.is_unknown:
                    self.coerce(part, operand)
            outer, inner = (left, right) if isinstance(node, exp.ArrayContainsAll) else (
                right, left)
            call = exp.Anonymous(this="sqlext_json_contains", expressions=[
                outer.copy(), inner.copy()])
        node.replace(call)
        return call, BOOL

    def _bitwise(self, node: exp.Binary, scope: Scope) -> tuple[exp.Expression, SqlType]:
        types = self._children(node, scope)
        if any(found.oid in (t.INET, t.CIDR) for found in types):
            return self._containment_of_networks(node, types)
        for child in list(node.iter_expressions()):
            self.coerce(child, INT8)
        return node, arithmetic_type(*(types + types)[:2])

    def _containment_of_networks(self, node: exp.Binary, types: list[SqlType]
                                 ) -> tuple[exp.Expression, SqlType]:
        """inet << inet (is contained by) and inet >> inet (contains); the
        other operators of inet are not supported."""
        symbol = _BITWISE_SYMBOLS[type(node)]
        if any(found.oid not in (t.INET, t.CIDR, t.UNKNOWN) for found in types):
            shown = f" {symbol} ".join(t.format_type(found.oid) for found in types)
            raise errors.no_operator(shown)
        if symbol not in ("<<", ">>"):
            raise errors.FeatureNotSupported(f"operator {symbol} of inet is not supported")
        inner, outer = (self.coerce(operand, SqlType(t.INET))
                        for operand in (node.this, node.expression))
        if symbol == ">>":
            inner, outer = outer, inner
        call = exp.Anonymous(this="sqlext_network_within",
                             expressions=[inner.copy(), outer.copy()])
        node.replace(call)
        return call, BOOL

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
        check_matchable(result_types, "CASE")
        target = common_type(result_types)
        if target.is_unknown:
            target = TEXT
        for result, result_type in zip(results, result_types, strict=True):
            self.conform(result, result_type, target)
        return node, target

    def _variadic_common(self, node: exp.Expression, scope: Scope) -> tuple[
            exp.Expression, SqlType]:
        children = list(node.iter_expressions())
        found = [self.expr(child, scope)[1] for child in children]
        check_matchable(found, node.key.upper())
        target = common_type(found)
        target = TEXT if target.is_unknown else target
        for child, child_type in zip(list(node.iter_expressions()), found, strict=True):
            self.conform(child, child_type, target)
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
        numeric = t.NUMERIC in (left_type.oid, right_type.oid) and not (
            {left_type.oid, right_type.oid} & {t.FLOAT4, t.FLOAT8})
        target = NUMERIC if numeric else FLOAT8
        for part, part_type in ((left, left_type), (right, right_type)):
            self.conform(part, part_type, target)
        if numeric:
            call: exp.Expression = numeric_rules.operator("^", node.this.copy(),
                                                          node.expression.copy())
        else:
            call = exp.Anonymous(this="power", expressions=[node.this.copy(),
                                                            node.expression.copy()])
        node.replace(call)
        return call, target

    def is_set_returning(self, node: exp.Expression) -> bool:
        """Whether ``node`` calls a set-returning function (the set-returning
        rules know them)."""
        return False

    def _at_most_one_row(self, query: exp.Expression) -> bool:
        """Whether a query can return no second row, so a scalar subquery of
        it needs no check: LIMIT 0 or 1, no FROM and no set-returning function,
        or an aggregate without GROUP BY."""
        if not isinstance(query, exp.Select):
            return False
        limit = query.args.get("limit")
        if limit is not None:
            count = limit.expression
            if isinstance(count, exp.Literal) and not count.is_string and count.this in ("0", "1"):
                return True
        if query.args.get("from_") is None:
            return not any(isinstance(found, exp.Unnest | exp.Explode)
                           or self.is_set_returning(found) for found in query.find_all(exp.Func))
        return query.args.get("group") is None and any(
            found.find_ancestor(exp.Window, exp.Select) is query
            for projection in query.expressions for found in projection.find_all(exp.AggFunc))

    def _subquery(self, node: exp.Subquery, scope: Scope) -> tuple[exp.Expression, SqlType]:
        single = self._at_most_one_row(node.this)
        columns = self.query(node.this, scope)
        if len(columns) != 1:
            raise errors.SqlSyntaxError("subquery must return only one column")
        if single:
            return node, columns[0].type
        # SQLite would take the first row; PostgreSQL fails on a second one.
        # Natively: count at most two rows, and min() of one row is that row.
        value = exp.column(columns[0].name, quoted=True)
        first_two = exp.select("*").from_(exp.Subquery(
            this=node.this.copy(), alias=exp.TableAlias(this=exp.to_identifier("_rows")))
        ).limit(2)
        replacement = exp.Subquery(this=exp.select(exp.Case(
            ifs=[exp.If(this=exp.GT(this=exp.Count(this=exp.Star()),
                                    expression=exp.Literal.number(1)),
                        true=exp.Anonymous(this="sqlext_more_than_one_row"))],
            default=exp.Min(this=value))).from_(exp.Subquery(
                this=first_two, alias=exp.TableAlias(this=exp.to_identifier("_first_two")))))
        node.replace(replacement)
        return replacement, columns[0].type

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
                this="json_group_array", expressions=[json_element(
                    exp.column(name, quoted=True), element)])).from_(
                    exp.Subquery(this=items[0].copy(), alias=exp.TableAlias(
                        this=exp.to_identifier("_array")))))
            node.replace(replacement)
            return replacement, SqlType(t.array_of(element.oid) or t.array_of(t.TEXT))
        found = [self.expr(item, scope)[1] for item in items]
        check_matchable(found, "ARRAY")
        element = common_type(found)
        element = TEXT if element.is_unknown else element
        for item, item_type in zip(list(node.expressions), found, strict=True):
            self.conform(item, item_type, element)
        replacement = exp.Anonymous(this="json_array", expressions=[
            json_element(item.copy(), element) for item in node.expressions])
        node.replace(replacement)
        return replacement, SqlType(t.array_of(element.oid) or t.array_of(t.TEXT))

    def _bracket(self, node: exp.Bracket, scope: Scope) -> tuple[exp.Expression, SqlType]:
        array, array_type = self.expr(node.this, scope)
        if len(node.expressions) != 1 or isinstance(node.expressions[0], exp.Slice):
            raise errors.FeatureNotSupported("array slices are not supported")
        if array_type.oid == t.NAME:
            return self._name_character(node, array, scope)
        vector = array_type.oid in (t.INT2VECTOR, t.OIDVECTOR)
        if not (vector or t.element_of(array_type.oid) or array_type.oid in (t.JSON, t.JSONB)):
            raise errors.DatatypeMismatch(
                f"cannot subscript type {t.format_type(array_type.oid)} because it does not "
                "support subscripting")
        index, index_type = self.expr(node.expressions[0], scope)
        if index_type.is_unknown:
            self.coerce(index, INT4)
        element = SqlType(t.element_of(array_type.oid) or t.TEXT)
        position: exp.Expression = exp.Paren(this=node.expressions[0].copy())
        # sqlglot makes constant subscripts 0-based already (arrays start at 1);
        # int2vector and oidvector start at 0.
        if vector:
            array = vector_as_array(array)
        if position.this.is_int == vector:
            position = exp.Paren(this=(exp.Add if vector else exp.Sub)(
                this=position, expression=exp.Literal.number(1)))
        # A subscript below the first is NULL, as in PostgreSQL (a negative
        # JSON path index is an error); nullif(max(p, -1), -1) reads p once.
        position = exp.Nullif(this=exp.Anonymous(this="max", expressions=[
            position, exp.Literal.number(-1)]), expression=exp.Literal.number(-1))
        path = exp.DPipe(this=exp.DPipe(this=exp.Literal.string("$["), expression=position),
                         expression=exp.Literal.string("]"))
        replacement = exp.Anonymous(this="json_extract", expressions=[array.copy(), path])
        node.replace(replacement)
        return replacement, element

    def _name_character(self, node: exp.Bracket, name: exp.Expression,
                        scope: Scope) -> tuple[exp.Expression, SqlType]:
        """``name[i]``: a name is a fixed array of 64 "char" numbered from 0
        (its unused bytes are empty characters; beyond them, NULL)."""
        if len(node.expressions) != 1 or isinstance(node.expressions[0], exp.Slice):
            raise errors.FeatureNotSupported("slices of name values are not supported")
        index, index_type = self.expr(node.expressions[0], scope)
        if index_type.is_unknown:
            self.coerce(index, INT4)
        position: exp.Expression = exp.Paren(this=node.expressions[0].copy())
        if position.this.is_int:  # sqlglot made a constant subscript 0-based: undo it
            position = exp.Paren(this=exp.Add(this=position, expression=exp.Literal.number(1)))
        replacement = exp.Case(ifs=[exp.If(
            this=exp.Between(this=position, low=exp.Literal.number(0),
                             high=exp.Literal.number(NAMEDATALEN - 1)),
            true=exp.Substring(this=name.copy(), start=exp.Add(
                this=position.copy(), expression=exp.Literal.number(1)),
                length=exp.Literal.number(1)))])
        node.replace(replacement)
        return replacement, SqlType(t.CHAR)

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

    @abstractmethod
    def query(self, node: exp.Expression, parent: Scope | None = None) -> list[ColumnInfo]:
        """Translate a query in place; returns its result columns."""

    HANDLERS: ClassVar[dict[type, Handler]] = {
        exp.Literal: _literal,
        exp.RawString: _dollar_quoted,
        exp.ByteString: _byte_string,
        exp.Null: _null,
        exp.Boolean: _boolean,
        StorageLiteral: _storage_literal,
        exp.Parameter: _parameter,
        exp.Placeholder: _parameter,
        exp.Column: _column,
        exp.Alias: _alias,
        exp.Paren: _paren,
        exp.Collate: _collate,
        exp.Cast: _cast,
        exp.TryCast: _cast,
        exp.And: _logical,
        exp.Or: _logical,
        exp.Not: _not,
        exp.Is: _is,
        exp.In: _in,
        exp.Between: _between,
        exp.Like: _like,
        exp.ILike: _like,
        exp.Escape: _escape,
        exp.SimilarTo: _similar_to,
        exp.RegexpLike: _regexp_like,
        exp.RegexpILike: _regexp_like,
        exp.Operator: _operator,
        exp.Neg: _negative,
        exp.DPipe: _concat,
        exp.Case: _case,
        exp.Coalesce: _variadic_common,
        exp.Subquery: _subquery,
        exp.Exists: _exists,
        exp.Array: _array,
        exp.Bracket: _bracket,
        exp.Interval: _interval,
        exp.Tuple: _tuple,
        exp.Dot: _dot,
        **dict.fromkeys((exp.JSONExtract, exp.JSONExtractScalar, exp.JSONBExtract,
                         exp.JSONBExtractScalar), _json_access),
        **dict.fromkeys((exp.ArrayContainsAll, exp.ArrayContainedBy, exp.JSONBContainsTopKey),
                        _containment),
        exp.Pow: _power,
        **dict.fromkeys(_COMPARISONS, _comparison),
        **dict.fromkeys(_ARITHMETIC, _arithmetic),
        **dict.fromkeys((exp.BitwiseAnd, exp.BitwiseOr, exp.BitwiseXor,
                         exp.BitwiseLeftShift, exp.BitwiseRightShift), _bitwise),
    }
    """The rule for each expression class (subclasses add theirs)."""
def is_unknown_literal(node: exp.Expression) -> bool:
    return isinstance(node, exp.Literal) and node.is_string


def _is_array_literal(node: exp.Expression) -> bool:
    return isinstance(node, StorageLiteral) and isinstance(node.value, str) and (
        node.value.startswith("["))


def _json_key(key: str) -> str:
    return key if key.isidentifier() else '"' + key.replace('"', '\\"') + '"'


def _sqlite_json_path(path: exp.JSONPath) -> str:
    """sqlglot's parsed path of -> / ->> as a SQLite JSON path."""
    text = "$"
    for part in path.expressions:
        if isinstance(part, exp.JSONPathKey):
            text += "." + _json_key(str(part.this))
        elif isinstance(part, exp.JSONPathSubscript):
            text += f"[{part.this}]"
    return text


def _table_oid(scope: Scope, table: str | None) -> exp.Expression | None:
    """The ``tableoid`` system column: the OID of the table a row comes from."""
    if table is not None:
        source = scope.source(table)
    else:
        tables = [candidate for candidate in scope.sources if candidate.relation_oid]
        if len(tables) > 1:
            raise errors.AmbiguousColumn('column reference "tableoid" is ambiguous')
        source = tables[0] if tables else None
    if source is None or not source.relation_oid:
        return None
    return StorageLiteral(this=source.relation_oid)


def vector_as_array(node: exp.Expression) -> exp.Expression:
    """An int2vector/oidvector (stored as PostgreSQL prints it, '1 2 3') as the
    JSON array other arrays are stored as."""
    return exp.Concat(expressions=[
        exp.Literal.string("["),
        exp.Anonymous(this="replace", expressions=[
            exp.Anonymous(this="trim", expressions=[node.copy()]),
            exp.Literal.string(" "), exp.Literal.string(",")]),
        exp.Literal.string("]")])


def reg_name(node: exp.Expression, source: SqlType) -> exp.Expression:
    """The name a regclass/regtype/... value stands for (its text output)."""
    return exp.Anonymous(this="sqlext_reg_name", expressions=[
        node, exp.Literal.number(source.oid)])


def _number_literal(node: exp.Expression) -> str | None:
    """The text of a (possibly negated) number literal."""
    if isinstance(node, exp.Literal) and not node.is_string:
        return str(node.this)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and (
        not node.this.is_string
    ):
        return f"-{node.this.this}"
    return None


def _is_first(node: exp.Is) -> exp.Expression:
    """sqlglot reads ``x IS TRUE + y`` as ``x IS (TRUE + y)``; PostgreSQL,
    as ``(x IS TRUE) + y``: the IS test goes to the leftmost operand."""
    rotated = node.expression.copy()
    leftmost = rotated
    while isinstance(leftmost, exp.Binary):
        leftmost = leftmost.this
    if not isinstance(leftmost, exp.Boolean | exp.Null) or leftmost is rotated:
        raise errors.SqlSyntaxError("syntax error at or near \"IS\"")
    leftmost.replace(exp.Is(this=node.this.copy(), expression=leftmost.copy()))
    node.replace(rotated)
    return rotated


def unalias(node: exp.Expression) -> exp.Expression:
    return node.this if isinstance(node, exp.Alias) else node


def json_element(item: exp.Expression, element: SqlType) -> exp.Expression:
    """An array element as SQLite's JSON functions may take it: bytea in
    the text form arrays keep it in (JSON holds no BLOBs), numbers as JSON
    text (SQLite writes infinities as Inf, which is not JSON)."""
    if element.oid == t.BYTEA:
        return exp.Anonymous(this="sqlext_bytea_json", expressions=[item])
    if element.oid in (t.FLOAT4, t.FLOAT8, t.NUMERIC):
        return exp.Anonymous(this="json", expressions=[
            exp.Anonymous(this="sqlext_json_number", expressions=[item])])
    return item


def _common_element(left: SqlType, right: SqlType) -> SqlType | None:
    """The element type of array || array / element: one type, numbers of
    any kind, or strings (other mixtures are refused rather than stored
    under the wrong type)."""
    if left.oid == right.oid:
        return left
    if is_numeric(left) and is_numeric(right):
        return common_type([left, right])
    if is_string(left) and is_string(right):
        return TEXT
    return None


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
    raise errors.no_operator(
        f"{t.format_type(left.oid)} {operator} {t.format_type(right.oid)}")


def _plain(node: exp.Expression) -> bool:
    """A column, parameter or literal: evaluating it twice costs nothing and
    gives the same value."""
    return isinstance(node, exp.Column | exp.Parameter | exp.Literal | StorageLiteral)


_ROW_LEVEL: Final = (exp.Column, exp.Identifier, exp.Literal, exp.Parameter, StorageLiteral,
                     exp.Null, exp.Paren, exp.Neg, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod,
                     exp.Cast, exp.DataType, exp.Case, exp.If, exp.Coalesce)


def _row_level(node: exp.Expression) -> bool:
    """Whether ``node`` is computed from the current row alone (subqueries
    are their own scope): no aggregate or window function of the query it
    is in, so it may move into a subquery of that query."""
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, exp.Query | exp.Subquery):
            continue
        if not isinstance(current, _ROW_LEVEL):
            return False
        pending.extend(current.iter_expressions())
    return True


_NAMED_OPERATORS: Final[dict[str, type[exp.Binary]]] = {
    "=": exp.EQ, "<>": exp.NEQ, "!=": exp.NEQ, "<": exp.LT, ">": exp.GT, "<=": exp.LTE,
    ">=": exp.GTE, "+": exp.Add, "-": exp.Sub, "*": exp.Mul, "/": exp.Div, "%": exp.Mod,
    "||": exp.DPipe, "~~": exp.Like, "~~*": exp.ILike}
"""Operators OPERATOR(schema.op) may name besides the regular expression ones."""
NAMEDATALEN: Final = 64
"""The bytes of a name value (PostgreSQL's NAMEDATALEN)."""
_CHEAP_TWICE: Final = 40
"""Nodes an integer result may have and still be computed twice (once to
check its range, once for its value) rather than once in Python."""


def _overflow_checked(node: exp.Expression, result: SqlType) -> exp.Expression:
    """``node`` if its value fits ``result``, else PostgreSQL's 22003.

    SQLite evaluates the check natively and calls Python only for a value
    out of range (or NULL), which passes NULL and rejects the rest. A bigint
    result is checked by SQLite's type: its 64-bit overflow yields a float.
    A large expression is checked once, in Python, not evaluated twice per
    nesting level."""
    slow = exp.Anonymous(this="sqlext_integer_result", expressions=[
        node.copy(), exp.Literal.number(result.oid)])
    if sum(1 for _ in node.walk()) > _CHEAP_TWICE:
        return slow
    if result.oid == t.INT8:
        fits: exp.Expression = exp.EQ(this=exp.Anonymous(this="typeof", expressions=[
            node.copy()]), expression=exp.Literal.string("integer"))
    else:
        fits = _fits(node, result)
    return exp.Case(ifs=[exp.If(this=fits, true=node.copy())], default=slow)


def _fits(node: exp.Expression, target: SqlType) -> exp.Expression:
    low, high = INT_RANGES[target.oid]
    return exp.Between(this=node.copy(), low=exp.Literal.number(low),
                       high=exp.Literal.number(high))


def _narrowed_once(node: exp.Expression, source: SqlType, target: SqlType) -> exp.Expression:
    """An integer narrowed without Python for every row, ``node`` computed
    once: ``(SELECT CASE WHEN v BETWEEN lo AND hi THEN v ELSE <convert v> END
    FROM (SELECT node AS v))`` (a correlated subquery SQLite evaluates per row;
    statements only: a column default or CHECK takes no subquery)."""
    value = exp.column(_ONCE, quoted=True)
    computed = exp.select(exp.alias_(node.copy(), _ONCE, quoted=True))
    checked = exp.select(_checked(_fits(value, target), value, source, target)).from_(
        exp.Subquery(this=computed, alias=exp.TableAlias(this=exp.to_identifier(_ONCE))))
    return exp.Subquery(this=checked)


_ONCE: Final = "sqlext_once"

_BITWISE_SYMBOLS: Final = {exp.BitwiseAnd: "&", exp.BitwiseOr: "|", exp.BitwiseXor: "#",
                           exp.BitwiseLeftShift: "<<", exp.BitwiseRightShift: ">>"}


def _converted(node: exp.Expression, source: SqlType, target: SqlType) -> exp.Expression:
    """``node`` through the conversion function SQLite calls for every row."""
    return exp.Anonymous(this="sqlext_convert", expressions=[
        node, exp.Literal.number(source.oid), exp.Literal.number(source.typmod),
        exp.Literal.number(target.oid), exp.Literal.number(target.typmod)])


def _checked(fits: exp.Expression, node: exp.Expression, source: SqlType,
             target: SqlType) -> exp.Expression:
    """``node`` as it is when ``fits`` holds; otherwise the conversion function
    (which fits the value or raises PostgreSQL's error). SQLite calls Python
    only for values that need it, not for every row."""
    if target.oid in _INT_TYPES:
        slow = _converted(node.copy(), source, target)
    else:
        slow = exp.Anonymous(this="sqlext_assign_char", expressions=[
            node.copy(), exp.Literal.number(target.oid), exp.Literal.number(target.typmod)])
    return exp.Case(ifs=[exp.If(this=fits, true=node.copy())], default=slow)
