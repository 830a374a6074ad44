"""json and jsonb constructors: to_json, json_build_object, row_to_json,
json_agg and friends, and jsonb's set-returning functions.

Storage values do not carry their type, so a value becomes JSON through
``sqlext_json_build`` with a layout naming its type (``JsonLayout``); json
and jsonb values are JSON text already. A table name standing for its row
(``row_to_json(t)``, ``json_agg(t)``) becomes the row built from its
columns. jsonb_array_elements, jsonb_each and jsonb_object_keys read
``json_each(sqlext_jsonb_rows(function, document))``, in FROM (where they
may use columns of earlier FROM items) and in the select list.
"""

from __future__ import annotations

from typing import ClassVar, Final

from sqlglot import exp

from catalog import errors
from catalog import types as t
from catalog.sqltypes import INT8, TEXT, SqlType
from executor.functions.json_constructors import JsonLayout
from executor.functions.registry import FUNCTIONS
from sqlext.translate.composite import record_fields, record_type
from sqlext.translate.expression_rules import Handler
from sqlext.translate.function_rules import FunctionRules, SpecialForm
from sqlext.translate.lateral import element_rows
from sqlext.translate.scope import ColumnInfo, Scope, Source

JSON: Final = SqlType(t.JSON)
JSONB: Final = SqlType(t.JSONB)
ROW: Final = SqlType(t.RECORD)
"""The type of a whole-row reference (a table name standing for its row)."""

_ROW_COLUMNS: Final[dict[str, tuple[tuple[str | None, SqlType], ...]]] = {
    "jsonb_array_elements": (("value", JSONB),),
    "jsonb_array_elements_text": (("value", TEXT),),
    "jsonb_each": (("key", TEXT), ("value", JSONB)),
    "jsonb_each_text": (("key", TEXT), ("value", TEXT)),
    "jsonb_object_keys": ((None, TEXT),),
    "json_array_elements": (("value", JSON),),
    "json_array_elements_text": (("value", TEXT),),
    "json_each": (("key", TEXT), ("value", JSON)),
    "json_each_text": (("key", TEXT), ("value", TEXT)),
    "json_object_keys": ((None, TEXT),),
    "pg_options_to_table": (("option_name", TEXT), ("option_value", TEXT)),
}
"""The result columns of json's and jsonb's set-returning functions (None:
named after the function or its alias), and of pg_options_to_table, which reads
an options array (``name=value`` texts, stored as a JSON array) the same way."""
_ROW_ARGUMENT: Final = {"pg_options_to_table": SqlType(t.array_of(t.TEXT) or t.TEXT)}
"""The argument types of those that take neither json nor jsonb."""


def _unknown() -> errors.SqlError:
    return errors.DatatypeMismatch(
        "could not determine polymorphic type because input has type unknown")


def _layout_type(sql_type: SqlType) -> tuple[int, int]:
    """A value's type as a layout gives it (the typmod it prints with): rows
    are json already."""
    return (t.JSON, -1) if sql_type.oid == t.RECORD else (sql_type.oid, sql_type.typmod)


class JsonRules(FunctionRules):
    """Translates the json constructors and jsonb's set-returning functions."""

    def json_argument(self, arg: exp.Expression, scope: Scope, polymorphic: bool
                      ) -> tuple[exp.Expression, SqlType]:
        """Translate an argument that becomes JSON: a table name stands for
        its row (type record, a json object). An unknown-typed literal is
        text, or an error for ``polymorphic`` (anyelement) parameters; a
        parameter nothing else types is text, as everywhere."""
        row = self._row_value(arg, scope)
        if row is not None:
            return row, ROW
        translated, arg_type = self.expr(arg, scope)
        fields = record_fields(arg_type)
        if fields:  # a record a function returns
            return self._record_json(translated, fields), ROW
        if arg_type.is_unknown:
            if polymorphic and not isinstance(translated, exp.Parameter):
                raise _unknown()
            self.coerce(translated, TEXT)
            arg_type = TEXT
        return translated, arg_type

    @staticmethod
    def json_text(value: exp.Expression, value_type: SqlType) -> exp.Expression:
        """The JSON text of a (translated) value, as to_json() writes it."""
        if value_type.oid in (t.JSON, t.JSONB, t.RECORD):
            return value.copy()
        return _build(JsonLayout("value", (_layout_type(value_type),)), [value])

    @staticmethod
    def json_key(value: exp.Expression, value_type: SqlType) -> exp.Expression:
        """An object key: a JSON string (an error for arrays, rows, json)."""
        return _build(JsonLayout("key", (_layout_type(value_type),)), [value])

    def json_aggregate_inputs(self, name: str, args: list[tuple[exp.Expression, SqlType]]
                              ) -> tuple[list[exp.Expression], SqlType]:
        """What the SQLite aggregate of json aggregate ``name`` takes for the
        (translated) arguments, and the aggregate's type."""
        binary = name.startswith("jsonb")
        if name.endswith("object_agg"):
            (key, key_type), (value, value_type) = args
            return [self.json_key(key, key_type), self.json_text(value, value_type)], (
                JSONB if binary else JSON)
        (value, value_type), = args
        if binary:
            return [self.json_text(value, value_type)], JSONB
        structured = value_type.oid == t.RECORD or bool(t.element_of(value_type.oid))
        return [exp.Literal.number(int(structured)), self.json_text(value, value_type)], JSON

    def _whole_row(self, arg: exp.Expression, scope: Scope) -> Source | None:
        """The FROM item a table name (or ``t.*``) stands for as a value."""
        if not isinstance(arg, exp.Column):
            return None
        if isinstance(arg.this, exp.Star):
            return scope.source(arg.table) if arg.table else None
        if arg.table or scope.resolve(arg.name) is not None:
            return None
        return scope.source(arg.name)

    def _row_value(self, arg: exp.Expression, scope: Scope, pretty: bool = False
                   ) -> exp.Expression | None:
        """A row as a json object (``pretty``: a line per field), put in the
        place of ``arg``: a table name standing for its row, or a row
        constructor (``ROW(a, b)``, ``(a, b)``: fields f1, f2...)."""
        source = self._whole_row(arg, scope)
        if source is not None:
            row = self._row_json(source, scope, pretty)
        elif isinstance(arg, exp.Tuple) or (
                isinstance(arg, exp.Anonymous) and arg.name.lower() == "row"):
            values: list[exp.Expression] = []
            types: list[tuple[int, int]] = []
            for item in list(arg.expressions):
                value, value_type = self.json_argument(item, scope, polymorphic=False)
                values.append(value)
                types.append(_layout_type(value_type))
            row = _build(JsonLayout("row", tuple(types), names=tuple(
                f"f{position}" for position in range(1, len(values) + 1)), pretty=pretty),
                values)
        else:
            return None
        arg.replace(row)
        return row

    @staticmethod
    def _record_json(record: exp.Expression, fields: tuple[tuple[str, SqlType], ...],
                     pretty: bool = False) -> exp.Expression:
        """A record value (a JSON object of storage values) as a json object."""
        replacement = _build(JsonLayout("record", tuple(_layout_type(field) for _, field in fields),
                                        names=tuple(name for name, _ in fields), pretty=pretty),
                             [record])
        record.replace(replacement)
        return replacement

    def _row_json(self, source: Source, scope: Scope, pretty: bool = False) -> exp.Expression:
        """A row of ``source`` as a json object (``pretty``: a line per field)."""
        values: list[exp.Expression] = []
        types: list[tuple[int, int]] = []
        for column in source.columns:
            value, value_type = self.expr(exp.column(column.name, source.alias, quoted=True),
                                          scope)
            values.append(value)
            types.append(_layout_type(value_type))
        return _build(JsonLayout("row", tuple(types), names=tuple(c.name for c in source.columns),
                                 pretty=pretty), values)

    def _to_json(self, node: exp.Anonymous, name: str, scope: Scope
                 ) -> tuple[exp.Expression, SqlType] | None:
        """to_json(x), to_jsonb(x)."""
        if len(node.expressions) != 1:
            return None
        value, value_type = self.json_argument(node.expressions[0], scope, polymorphic=True)
        binary = name == "to_jsonb"
        replacement = _build(JsonLayout("value", (_layout_type(value_type),), binary),
                             [value])
        node.replace(replacement)
        return replacement, JSONB if binary else JSON

    def _row_to_json(self, node: exp.Anonymous, name: str, scope: Scope
                     ) -> tuple[exp.Expression, SqlType] | None:
        """row_to_json(t [, pretty]): a table name standing for its row."""
        args = list(node.expressions)
        if not 1 <= len(args) <= 2:
            return None
        pretty = args[1] if len(args) == 2 else exp.false()
        if not isinstance(pretty, exp.Boolean):
            raise errors.FeatureNotSupported(
                "row_to_json() takes its pretty argument as a constant (true or false)")
        replacement = self._row_value(args[0], scope, bool(pretty.this))
        if replacement is None:
            value, found = self.expr(args[0], scope)
            fields = record_fields(found)
            if not fields:
                shown = ", ".join(["record" if found.oid == t.RECORD else t.format_type(
                    TEXT.oid if found.is_unknown else found.oid)] + ["boolean"] * (len(args) - 1))
                raise errors.no_function(f"row_to_json({shown})")
            replacement = self._record_json(value, fields, bool(pretty.this))
        node.replace(replacement)
        return replacement, JSON

    def _populate_record(self, node: exp.Anonymous, name: str, scope: Scope
                         ) -> tuple[exp.Expression, SqlType] | None:
        """json_populate_record and friends need row types of tables."""
        raise errors.FeatureNotSupported(
            f"{name}() is not supported: sqlext has no composite types (the row types of "
            "tables)",
            hint="Read the fields with ->> and cast them, or use json_each_text().")

    def _build_call(self, node: exp.Anonymous, name: str, scope: Scope
                    ) -> tuple[exp.Expression, SqlType] | None:
        """json_build_object, json_build_array and their jsonb forms."""
        values: list[exp.Expression] = []
        types: list[tuple[int, int]] = []
        for arg in list(node.expressions):
            value, value_type = self.json_argument(arg, scope, polymorphic=False)
            values.append(value)
            types.append(_layout_type(value_type))
        binary = name.startswith("jsonb")
        shape = "object" if name.endswith("object") else "array"
        replacement = _build(JsonLayout(shape, tuple(types), binary), values)
        node.replace(replacement)
        return replacement, JSONB if binary else JSON

    def _json_aggregate(self, node: exp.Anonymous, name: str, scope: Scope
                        ) -> tuple[exp.Expression, SqlType] | None:
        """json_agg(x) and friends without ORDER BY or DISTINCT inside."""
        args = list(node.expressions)
        if len(args) != (2 if name.endswith("object_agg") else 1):
            return None
        translated = [self.json_argument(arg, scope, polymorphic=len(args) == 1)
                      for arg in args]
        inputs, result = self.json_aggregate_inputs(name, translated)
        replacement = exp.Anonymous(this=FUNCTIONS[name].target, expressions=inputs)
        node.replace(replacement)
        return replacement, result

    def json_document(self, name: str, arg: exp.Expression, scope: Scope) -> exp.Expression:
        """The json, jsonb (or options array) argument of a set-returning
        function, as ``sqlext_jsonb_rows`` rows."""
        wanted = _ROW_ARGUMENT.get(name) or (JSONB if name.startswith("jsonb") else JSON)
        document, document_type = self.expr(arg, scope)
        if document_type.is_unknown:
            document = self.coerce(document, wanted)
        elif document_type.oid != wanted.oid:
            raise errors.no_function(f"{name}({t.format_type(document_type.oid)})")
        return exp.Anonymous(this="sqlext_jsonb_rows", expressions=[
            exp.Literal.string(name), document.copy()])

    def json_rows(self, call: exp.Anonymous, scope: Scope) -> tuple[exp.Select, SqlType]:
        """The rows of jsonb_array_elements(...), jsonb_each(...)... as
        ``v``, ``n``: the value, or for several columns a record of them."""
        name = call.name.lower().rpartition(".")[2]
        columns = _ROW_COLUMNS[name]
        if len(call.expressions) != 1:
            raise errors.no_function(f"{name}({', '.join('unknown' for _ in call.expressions)})")
        rows = element_rows(self.json_document(name, call.expressions[0], scope))
        if len(columns) == 1:
            return rows, columns[0][1]
        value = rows.expressions[0]
        value.set("this", exp.Anonymous(this="json_object", expressions=[
            part for position, (column, _) in enumerate(columns) for part in (
                exp.Literal.string(str(column)), exp.Anonymous(this="json_extract", expressions=[
                    value.this.copy(), exp.Literal.string(f"$[{position}]")]))]))
        return rows, record_type(tuple((str(column), column_type)
                                       for column, column_type in columns))

    def json_rows_source(self, item: exp.Table, call: exp.Anonymous, alias: str | None,
                         alias_columns: list[str], scope: Scope) -> Source:
        """jsonb_array_elements(...) and friends in FROM."""
        name = call.name.lower().rpartition(".")[2]
        if len(call.expressions) != 1:
            raise errors.no_function(f"{name}({', '.join('unknown' for _ in call.expressions)})")
        rows = self.json_document(name, call.expressions[0], scope)
        visible = alias or name
        # In parentheses: a computed column is no column of the FROM item.
        reference = exp.Paren(this=exp.column("value", visible, quoted=True))
        single = len(_ROW_COLUMNS[name]) == 1
        produced: list[tuple[str, SqlType, exp.Expression]] = [
            (column or visible, column_type, reference if single else exp.Anonymous(
                this="json_extract", expressions=[reference.this.copy(),
                                                  exp.Literal.string(f"$[{position}]")]))
            for position, (column, column_type) in enumerate(_ROW_COLUMNS[name])]
        if item.args.get("ordinality"):
            produced.append(("ordinality", INT8, exp.Add(
                this=exp.column("key", visible, quoted=True), expression=exp.Literal.number(1))))
        if len(alias_columns) > len(produced):
            raise errors.InvalidColumnReference(
                f'table "{visible}" has {len(produced)} columns available but '
                f"{len(alias_columns)} columns specified")
        names = alias_columns + [column for column, _, _ in produced[len(alias_columns):]]
        item.set("this", exp.Anonymous(this="json_each", expressions=[rows]))
        item.set("ordinality", None)
        item.set("alias", exp.TableAlias(this=exp.to_identifier(visible, quoted=True)))
        source = Source(visible, [ColumnInfo(column, column_type) for column, (_, column_type, _)
                                  in zip(names, produced, strict=True)],
                        computed={column: expression for column, (_, _, expression)
                                  in zip(names, produced, strict=True)})
        scope.add(source)
        return source

    def _path_operator(self, node: exp.Expression, scope: Scope) -> tuple[exp.Expression,
                                                                          SqlType]:
        """jsonb @? jsonpath and jsonb @@ jsonpath: jsonb_path_exists and
        jsonb_path_match with errors suppressed (silent)."""
        exists = isinstance(node, exp.JSONBPathExists)
        operator = "@?" if exists else "@@"
        document, path = (node.this, node.expression) if exists else (
            node.expressions[0], node.this)
        _, document_type = self.expr(document, scope)
        if not exists and document_type.oid != t.JSONB:
            raise errors.FeatureNotSupported("the @@ operator is supported on jsonb only (text "
                                             "search is not)")
        _, path_type = self.expr(path, scope)
        if {document_type.oid, path_type.oid} - {t.JSONB, t.JSONPATH, t.UNKNOWN}:
            raise errors.no_operator(f"{t.format_type(document_type.oid)} {operator} "
                                     f"{t.format_type(path_type.oid)}")
        call = exp.Anonymous(this="jsonb_path_exists" if exists else "jsonb_path_match",
                             expressions=[node.this if exists else node.expressions[0],
                                          node.expression if exists else node.this,
                                          exp.Literal.string("{}"), exp.true()])
        node.replace(call)
        return self.call(call, call.name, scope)

    HANDLERS: ClassVar[dict[type, Handler]] = {
        **FunctionRules.HANDLERS,
        exp.JSONBPathExists: _path_operator,
        exp.MatchAgainst: _path_operator,
    }

    SPECIAL_FORMS: ClassVar[dict[str, SpecialForm]] = {
        **FunctionRules.SPECIAL_FORMS,
        "to_json": _to_json,
        "to_jsonb": _to_json,
        "row_to_json": _row_to_json,
        **dict.fromkeys((f"{prefix}_populate_{shape}" for prefix in ("json", "jsonb")
                         for shape in ("record", "recordset")), _populate_record),
        **dict.fromkeys(("json_build_object", "jsonb_build_object", "json_build_array",
                         "jsonb_build_array"), _build_call),
        **dict.fromkeys(("json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg"),
                        _json_aggregate),
    }


def _build(layout: JsonLayout, values: list[exp.Expression]) -> exp.Expression:
    return exp.Anonymous(this="sqlext_json_build", expressions=[
        exp.Literal.string(layout.text()), *(value.copy() for value in values)])
