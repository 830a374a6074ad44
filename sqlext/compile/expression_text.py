"""Expressions the catalog keeps (column defaults, partial index predicates)
as PostgreSQL prints them from its parse tree (pg_get_expr, ruleutils.c):
constants in their type's output form and labelled with their type
(``'x'::text``, ``'-1'::integer``, ``true``), operators in parentheses,
implicit casts of operands shown (``(i)::numeric``), ``IN`` as ``= ANY
(ARRAY[...])``, relation names as ``'schema.name'::regclass``.

The types come from translating the expression: ``TypedExpression``
translates a copy with a translator that notes each node's type, so the
text shows the types sqlext computes with. A construct this module does not
know is printed as written (``docs/sql.md`` says so). The text is valid SQL
that means the same, so the catalog keeps it as the expression itself; a
relation name is kept qualified and shown unqualified where the reader's
search path finds it (``executor.functions.catalog_info``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Final

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.introspection import QUOTED, quote_identifier
from catalog.schema import Catalog
from catalog.sqltypes import BOOL, SqlType
from executor import codecs
from executor.codecs import Settings
from executor.functions.catalog_info import reg_input, relation_name
from executor.functions.registry import FUNCTIONS
from sqlext.sql.sqlite_dialect import to_sqlite
from sqlext.translate.expression_rules import is_unknown_literal
from sqlext.translate.scope import Scope
from sqlext.translate.translator import Translator

_TYPE: Final = "sqlext_type"
_COERCED: Final = "sqlext_coerced"
_REPLACEMENT: Final = "sqlext_replacement"

_INTEGERS: Final = (t.INT8, t.INT4, t.INT2)
_FLOATS: Final = (t.FLOAT8, t.FLOAT4)
_NUMBERS: Final = (t.FLOAT8, t.FLOAT4, t.NUMERIC, *_INTEGERS)
"""Number types, the one an operator without a cross-type form converts
two different ones to first (as PostgreSQL's operator resolution picks)."""

_COMPARISONS: Final[dict[type[exp.Expression], str]] = {
    exp.EQ: "=", exp.NEQ: "<>", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}
_ARITHMETIC: Final[dict[type[exp.Expression], str]] = {
    exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/"}
_OTHER_OPERATORS: Final[dict[type[exp.Expression], str]] = {
    exp.Mod: "%", exp.Pow: "^", exp.DPipe: "||", exp.Like: "~~", exp.ILike: "~~*",
    exp.RegexpLike: "~", exp.RegexpILike: "~*"}
_INDENT: Final = 4
_SPACES_BEFORE_BREAK: Final = re.compile(r" +\n")
_NEGATED: Final = {"~~": "!~~", "~~*": "!~~*", "~": "!~", "~*": "!~*"}
_TEXT_OPERATORS: Final = frozenset({"~~", "~~*", "~", "~*"})
_KEYWORD_FUNCTIONS: Final[dict[type[exp.Expression], str]] = {
    exp.CurrentTimestamp: "CURRENT_TIMESTAMP", exp.CurrentDate: "CURRENT_DATE",
    exp.CurrentTime: "CURRENT_TIME", exp.Localtimestamp: "LOCALTIMESTAMP",
    exp.Localtime: "LOCALTIME", exp.CurrentUser: "CURRENT_USER",
    exp.SessionUser: "SESSION_USER", exp.CurrentSchema: "CURRENT_SCHEMA",
    exp.CurrentCatalog: "CURRENT_CATALOG"}
_UPPER_CASE_CALLS: Final = frozenset({
    "coalesce", "nullif", "greatest", "least", "current_timestamp", "current_time",
    "localtimestamp", "localtime"})
"""Calls PostgreSQL prints as the SQL syntax they are (COALESCE(...))."""
_REGCLASS_ARGUMENT: Final = frozenset({"nextval", "currval", "setval"})
"""Functions whose first parameter PostgreSQL declares regclass (sqlext takes
the relation's name as text)."""
_ANY_ARGUMENTS: Final = {
    "json_build_object": 0, "jsonb_build_object": 0, "json_build_array": 0,
    "jsonb_build_array": 0, "concat": 0, "concat_ws": 1, "format": 1, "num_nulls": 0,
    "num_nonnulls": 0}
"""Functions whose arguments from this position on PostgreSQL declares
"any": an untyped literal there stays untyped (printed without a type)."""


class _TypeRecorder(Translator):
    """A translator that notes on each node the type it found, and on each
    literal the type its context gave it."""

    def expr(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression, SqlType]:
        translated, found = super().expr(node, scope)
        node.meta[_TYPE] = found
        if translated is not node:
            node.meta[_REPLACEMENT] = translated
        return translated, found

    def coerce(self, node: exp.Expression, target: SqlType, scope: Scope | None = None,
               assignment: bool = False, stored: bool = False) -> exp.Expression:
        inner = node
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if is_unknown_literal(inner) or isinstance(inner, exp.Null):
            inner.meta[_COERCED] = target
        return super().coerce(node, target, scope, assignment, stored)


class TypedExpression:
    """An expression translated with the types of its parts noted: what
    SQLite runs (``default`` or ``condition``), then what PostgreSQL prints
    (``text``)."""

    def __init__(self, expression: exp.Expression, catalog: Catalog,
                 search_path: tuple[str, ...], settings: Settings) -> None:
        self.written = expression.copy()
        self._holder = exp.Paren(this=expression.copy())
        self._pairs = dict(zip((id(n) for n in self.written.walk()), self._holder.this.walk(),
                               strict=True))
        self._catalog = catalog
        self._search_path = search_path
        self.settings = settings
        """The writing session's: a constant is read as it would read it."""
        self._translator = _TypeRecorder(catalog, search_path, [], settings)

    def default(self, target: SqlType, column: str) -> str:
        """Translate it as the default of a column of type ``target``: the SQLite SQL."""
        _, found = self._translator.expr(self._holder.this, Scope())
        return to_sqlite(self._translator.assign(self._holder.this, found, target, column))

    def condition(self, scope: Scope) -> str:
        """Translate it as a condition on the rows of the one table in
        ``scope``: the SQLite SQL (its columns unqualified)."""
        _, found = self._translator.expr(self._holder.this, scope)
        if found.is_unknown:
            self._translator.coerce(self._holder.this, BOOL)
        elif found.oid != t.BOOL:
            raise errors.DatatypeMismatch(
                f"argument of WHERE must be type boolean, not type {t.format_type(found.oid)}")
        for column in self._holder.find_all(exp.Column):
            column.set("table", None)
        return to_sqlite(self._holder.this)

    def type_of(self, node: exp.Expression) -> SqlType | None:
        """The type of a node of ``written``, once translated."""
        twin = self._pairs.get(id(node))
        if twin is None:
            return None
        found: SqlType | None = twin.meta.get(_TYPE)
        for candidate in (twin, twin.meta.get(_REPLACEMENT)):
            if candidate is not None and _COERCED in candidate.meta:
                found = candidate.meta[_COERCED]
                break
        return found

    def text(self) -> str:
        """The expression as pg_get_expr prints it (relations named in full)."""
        return _Printer(self, self._class_name).render(self.written)

    def _class_name(self, text: str) -> str:
        """A relation's name as a regclass constant keeps it: qualified."""
        oid = reg_input(self._catalog, self._search_path, None, text, t.REGCLASS)
        return relation_name(self._catalog, int(oid)) or text


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _label(sql_type: SqlType, typmod: int = -1) -> str:
    return "::" + t.format_type(sql_type.oid, typmod, typmod_given=True)


def _number_type(text: str) -> SqlType:
    """A numeric constant's type, as PostgreSQL's lexer gives it (and keeps
    when the grammar negates it)."""
    if text.removeprefix("-").isdigit():
        value = int(text)
        return SqlType(t.INT4 if -2**31 <= value < 2**31 else t.INT8 if -2**63 <= value < 2**63
                       else t.NUMERIC)
    return SqlType(t.NUMERIC)


def _folded_number(node: exp.Expression) -> str | None:
    """The text of a number constant, negated any number of times and in
    parentheses or not: PostgreSQL's grammar makes ``-(-(5))`` one constant."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string:
        return str(node.this)
    inner = _folded_number(node.this) if isinstance(node, exp.Neg) else None
    if inner is None:
        return None
    return inner[1:] if inner.startswith("-") else "-" + inner


def _text_like(sql_type: SqlType | None) -> SqlType | None:
    """varchar has no operators of its own: they are text's."""
    return SqlType(t.TEXT) if sql_type is not None and sql_type.oid == t.VARCHAR else sql_type


def _float_if_number(sql_type: SqlType) -> SqlType:
    return SqlType(t.FLOAT8) if sql_type.oid in _NUMBERS else sql_type


def _operand_types(operator: str, left: SqlType | None, right: SqlType | None
                   ) -> tuple[SqlType | None, SqlType | None]:
    """The types an operator takes for operands of these types (None: an
    untyped literal, which takes the other's type): numbers meeting numbers
    of another kind are converted where PostgreSQL has no cross-type
    operator (``(i)::numeric``), varchar works as text."""
    if operator == "||":
        # text || anynonarray: an untyped operand is text
        return _text_like(left) or SqlType(t.TEXT), _text_like(right) or SqlType(t.TEXT)
    if operator in _TEXT_OPERATORS or operator in _COMPARISONS.values():
        left, right = _text_like(left), _text_like(right)
    if left is None or right is None:
        return left or right, right or left
    numbers = left.oid in _NUMBERS and right.oid in _NUMBERS
    if operator == "^" and numbers:
        common = t.NUMERIC if t.NUMERIC in (left.oid, right.oid) else t.FLOAT8
        return SqlType(common), SqlType(common)
    if operator in ("*", "/") and t.INTERVAL in (left.oid, right.oid):
        # interval * float8: the number is converted
        return _float_if_number(left), _float_if_number(right)
    if not numbers or left.oid == right.oid:
        return left, right
    cross = operator in _COMPARISONS.values() or operator in _ARITHMETIC.values()
    if cross and any(left.oid in kind and right.oid in kind for kind in (_INTEGERS, _FLOATS)):
        return left, right
    common = next(oid for oid in _NUMBERS if oid in (left.oid, right.oid))
    return SqlType(common), SqlType(common)


class _Printer:
    """ruleutils.c's get_rule_expr over the parts sqlext knows."""

    def __init__(self, typed: TypedExpression, resolve_class: Callable[[str], str]) -> None:
        self.typed = typed
        self.resolve_class = resolve_class
        self.indent = 0

    def render(self, node: exp.Expression) -> str:
        """The whole expression: no spaces before a line break outside
        constants (a keyword that starts a line takes them away)."""
        shown = self.text(node)
        parts, end = [], 0
        for constant in QUOTED.finditer(shown):
            parts += [_SPACES_BEFORE_BREAK.sub("\n", shown[end:constant.start()]),
                      constant.group(0)]
            end = constant.end()
        return "".join([*parts, _SPACES_BEFORE_BREAK.sub("\n", shown[end:])])

    def text(self, node: exp.Expression) -> str:
        while isinstance(node, exp.Paren):
            node = node.this
        printer = self.PRINTERS.get(type(node))
        if printer is not None:
            return printer(self, node)
        if type(node) in _KEYWORD_FUNCTIONS:
            return _KEYWORD_FUNCTIONS[type(node)]
        return node.sql(dialect="postgres", normalize_functions=False)

    def typed_as(self, node: exp.Expression, wanted: SqlType | None) -> str:
        """An operand of a type the operator takes: an untyped literal is a
        constant of it, another value of another type is cast (implicitly,
        but PostgreSQL shows it)."""
        inner = node
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if wanted is not None and _is_string(inner):
            return self.constant(inner.this, wanted)
        shown = self.text(inner)
        found = self.typed.type_of(inner)
        if wanted is None or found is None or found.oid in (t.UNKNOWN, wanted.oid):
            return shown
        return f"({shown}){_label(wanted)}"

    def constant(self, text: str, sql_type: SqlType | None, typmod: int = -1,
                 labelled: bool = True) -> str:
        """A constant of ``sql_type`` written ``text`` (get_const_expr);
        ``labelled``: with its type where PostgreSQL shows it."""
        if sql_type is None or sql_type.oid == t.UNKNOWN:
            return _quoted(text)
        label = _label(sql_type, typmod) if labelled else ""
        if sql_type.oid == t.REGCLASS:
            return _quoted(self.resolve_class(text)) + label
        # read in the writer's time zone, kept in UTC (the same instant)
        shown = codecs.text_encoder(sql_type.oid, typmod)(
            codecs.text_decoder(sql_type.oid, typmod, self.typed.settings)(text)).decode()
        if sql_type.oid == t.BOOL:
            return "true" if shown == "t" else "false"
        if sql_type.oid == t.INT4 and not shown.startswith("-"):
            return shown
        if sql_type.oid == t.NUMERIC and shown[:1].isdigit() and "." in shown:
            return shown + (label if typmod >= 0 else "")
        return _quoted(shown) + label

    def _literal(self, node: exp.Literal) -> str:
        if node.is_string:
            return self.constant(node.this, self.typed.type_of(node))
        return self.constant(node.this, _number_type(node.this))

    def _string(self, node: exp.ByteString | exp.RawString) -> str:
        """E'...' and $$...$$: string constants."""
        return self.constant(node.this, self.typed.type_of(node))

    def _boolean(self, node: exp.Boolean) -> str:
        return "true" if node.this else "false"

    def _null(self, node: exp.Null) -> str:
        found = self.typed.type_of(node)
        return "NULL" if found is None or found.oid == t.UNKNOWN else "NULL" + _label(found)

    def _column(self, node: exp.Column) -> str:
        return quote_identifier(node.name)

    def _negative(self, node: exp.Neg) -> str:
        number = _folded_number(node)
        if number is not None:
            return self.constant(number, _number_type(number))
        return f"(- {self.text(node.this)})"

    def _operator(self, node: exp.Binary, operator: str, negated: bool = False) -> str:
        left, right = node.this, node.expression
        wanted = _operand_types(operator, *(self._operand_type(side) for side in (left, right)))
        shown = _NEGATED[operator] if negated else operator
        return f"({self.typed_as(left, wanted[0])} {shown} {self.typed_as(right, wanted[1])})"

    def _operand_type(self, node: exp.Expression) -> SqlType | None:
        """An operand's own type (None for an untyped literal: the other
        operand decides)."""
        while isinstance(node, exp.Paren):
            node = node.this
        if is_unknown_literal(node):
            return None
        if isinstance(node, exp.Literal):
            return _number_type(node.this)
        found = self.typed.type_of(node)
        return None if found is None or found.oid == t.UNKNOWN else found

    def _binary(self, node: exp.Binary) -> str:
        operator = {**_COMPARISONS, **_ARITHMETIC, **_OTHER_OPERATORS}[type(node)]
        if isinstance(node.expression, exp.Any | exp.All):
            return self._quantified(node, operator)
        return self._operator(node, operator)

    def _quantified(self, node: exp.Binary, operator: str) -> str:
        quantified = node.expression
        word = "ALL" if isinstance(quantified, exp.All) else "ANY"
        array = quantified.this
        while isinstance(array, exp.Paren):
            array = array.this
        element = self.typed.type_of(array)
        element_type = SqlType(t.element_of(element.oid)) if element and t.element_of(
            element.oid) else None
        wanted = _operand_types(operator, self._operand_type(node.this), element_type)
        return (f"({self.typed_as(node.this, wanted[0])} {operator} {word} "
                f"({self.text(array)}))")

    def _logical(self, node: exp.Connector) -> str:
        word = "AND" if isinstance(node, exp.And) else "OR"
        return "(" + f" {word} ".join(self.text(part) for part in _chain(node)) + ")"

    def _not(self, node: exp.Not) -> str:
        inner = node.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if isinstance(inner, exp.In):
            return self._in(inner, negated=True)
        if isinstance(inner, exp.Between):
            low = exp.LT(this=inner.this, expression=inner.args["low"])
            high = exp.GT(this=inner.this, expression=inner.args["high"])
            return f"({self._operator(low, '<')} OR {self._operator(high, '>')})"
        for kind, operator in _OTHER_OPERATORS.items():
            if isinstance(inner, kind) and operator in _NEGATED:
                return self._operator(inner, operator, negated=True)
        return f"(NOT {self.text(inner)})"

    def _is(self, node: exp.Is) -> str:
        target = node.expression
        what = "NULL" if isinstance(target, exp.Null) else self.text(target).upper()
        return f"({self.text(node.this)} IS {'NOT ' if node.args.get('negate') else ''}{what})"

    def _between(self, node: exp.Between) -> str:
        low = exp.GTE(this=node.this, expression=node.args["low"])
        high = exp.LTE(this=node.this, expression=node.args["high"])
        return f"({self._operator(low, '>=')} AND {self._operator(high, '<=')})"

    def _in(self, node: exp.In, negated: bool = False) -> str:
        if node.args.get("query") is not None:
            return node.sql(dialect="postgres")
        items = node.expressions
        if len(items) == 1:
            # one value: a plain comparison
            kind = exp.NEQ if negated else exp.EQ
            return self._operator(kind(this=node.this, expression=items[0]),
                                  "<>" if negated else "=")
        found = [self._operand_type(item) for item in items]
        element = next((f for f in found if f is not None), self._operand_type(node.this))
        wanted = _operand_types("=", self._operand_type(node.this), element)
        array = "ARRAY[" + ", ".join(self.typed_as(item, element) for item in items) + "]"
        if element is not None and wanted[1] is not None and element.oid != wanted[1].oid:
            array = f"({array}){_label(SqlType(t.array_of(wanted[1].oid) or t.TEXT))}"
        operator, word = ("<>", "ALL") if negated else ("=", "ANY")
        return f"({self.typed_as(node.this, wanted[0])} {operator} {word} ({array}))"

    def _cast(self, node: exp.Cast) -> str:
        """get_coercion_expr: a constant of the type itself (an untyped one,
        a number of it) shows the cast after its bare value, anything else
        in parentheses; a number cast to its own type, without a typmod,
        shows no cast (PostgreSQL keeps the constant alone)."""
        target = self.typed.type_of(node)
        inner = node.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if target is None:
            return node.sql(dialect="postgres")
        label = _label(target, target.typmod)
        if _is_string(inner):
            return self.constant(inner.this, target, labelled=False) + label
        if isinstance(inner, exp.Null) or (isinstance(inner, exp.Array)
                                           and not inner.expressions):
            return ("NULL" if isinstance(inner, exp.Null) else "ARRAY[]") + label
        number = _folded_number(inner)
        if number is not None and _number_type(number).oid == target.oid:
            if target.typmod < 0:
                return self.constant(number, target)  # a cast to its own type: none
            return self.constant(number, target, labelled=False) + label
        return f"({self.text(inner)}){label}"

    def _array(self, node: exp.Array) -> str:
        found = self.typed.type_of(node)
        element = SqlType(t.element_of(found.oid)) if found and t.element_of(found.oid) else None
        return "ARRAY[" + ", ".join(self.typed_as(item, element)
                                    for item in node.expressions) + "]"

    def _case(self, node: exp.Case) -> str:
        """Each keyword on a line of its own, the branches indented (as
        pg_get_expr's PRETTYFLAG_INDENT does)."""
        found = self.typed.type_of(node)
        subject = node.this
        margin = "\n" + " " * self.indent
        shown = margin + "CASE" + (f" {self.text(subject)}" if subject is not None else "")
        self.indent += _INDENT
        for branch in node.args.get("ifs") or []:
            shown += (f"{margin}{' ' * _INDENT}WHEN {self.text(branch.this)} THEN "
                      f"{self.typed_as(branch.args['true'], found)}")
        default = node.args.get("default")
        otherwise = self.typed_as(default, found) if default is not None else "NULL" + (
            _label(found) if found is not None else "")
        shown += f"{margin}{' ' * _INDENT}ELSE {otherwise}"
        self.indent -= _INDENT
        return shown + margin + "END"

    def _interval(self, node: exp.Interval) -> str:
        unit = node.args.get("unit")
        written = node.this.this if isinstance(node.this, exp.Literal) else None
        if written is None:
            return node.sql(dialect="postgres")
        return self.constant(f"{written} {unit.name}" if unit else written, SqlType(t.INTERVAL))

    def _substring(self, node: exp.Substring) -> str:
        start, length = node.args.get("start"), node.args.get("length")
        return (f"SUBSTRING({self.typed_as(node.this, _text_like(self.typed.type_of(node.this)))}"
                + (f" FROM {self.text(start)}" if start is not None else "")
                + (f" FOR {self.text(length)}" if length is not None else "") + ")")

    def _call(self, node: exp.Anonymous) -> str:
        name = str(node.this).lower()
        args = list(node.expressions)
        definition = FUNCTIONS.get(name)
        shown = []
        for index, arg in enumerate(args):
            if index == 0 and name in _REGCLASS_ARGUMENT:
                regclass = SqlType(t.REGCLASS)
                shown.append(self.constant(arg.this, regclass) if is_unknown_literal(arg)
                             else self.typed_as(arg, regclass))
                continue
            if index >= _ANY_ARGUMENTS.get(name, len(args)) and _is_string(arg):
                shown.append(_quoted(arg.this))
                continue
            declared = definition.arg_type(index) if definition is not None else None
            # a text parameter shows the cast of a varchar argument
            text = declared is not None and declared.oid == t.TEXT
            shown.append(self.typed_as(arg, declared) if text else self.text(arg))
        printed = name.upper() if name in _UPPER_CASE_CALLS else quote_identifier(name)
        return f"{printed}({', '.join(shown)})"

    PRINTERS: ClassVar[dict[type, Callable[[_Printer, Any], str]]] = {
        exp.Literal: _literal,
        exp.ByteString: _string,
        exp.RawString: _string,
        exp.Boolean: _boolean,
        exp.Null: _null,
        exp.Column: _column,
        exp.Neg: _negative,
        exp.And: _logical,
        exp.Or: _logical,
        exp.Not: _not,
        exp.Is: _is,
        exp.Between: _between,
        exp.In: _in,
        exp.Cast: _cast,
        exp.Array: _array,
        exp.Case: _case,
        exp.Interval: _interval,
        exp.Substring: _substring,
        exp.Anonymous: _call,
        **dict.fromkeys((*_COMPARISONS, *_ARITHMETIC, *_OTHER_OPERATORS), _binary),
    }


def _is_string(node: exp.Expression) -> bool:
    """An untyped string constant: '...', E'...' or $$...$$."""
    return is_unknown_literal(node) or isinstance(node, exp.ByteString | exp.RawString)


def _chain(node: exp.Connector) -> Iterator[exp.Expression]:
    """The operands of ``a AND b AND c``: PostgreSQL's grammar adds each
    right operand to the AND on its left, making one AND of them all."""
    left = node.this
    while isinstance(left, exp.Paren):
        left = left.this
    if type(left) is type(node):
        yield from _chain(left)
    else:
        yield left
    yield node.expression
