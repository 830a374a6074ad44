"""jsonb_path_exists, jsonb_path_match, jsonb_path_query (set-returning),
jsonb_path_query_array and jsonb_path_query_first: a jsonpath evaluated
over a jsonb value (``executor.values.jsonpath_exec``), with the optional
``vars`` (an object whose members ``$name`` stands for) and ``silent``
(suppress the errors PostgreSQL lets it suppress: the function then
answers with what was found before, or NULL).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.sqltypes import BOOL, SqlType
from executor.codecs.jsonpath import parse_jsonpath
from executor.codecs.jsontypes import jsonb_text, parse_jsonb
from executor.functions.declare import Declarations, Overload
from executor.values.jsonpath_exec import PathError, evaluate

FUNCTIONS = Declarations()

_JSONB: Final = SqlType(t.JSONB)
_JSONPATH: Final = SqlType(t.JSONPATH)
_NOTHING: Final = object()


def _signature(result: SqlType) -> Overload:
    return Overload((_JSONB, _JSONPATH, _JSONB, BOOL), result,
                    names=("target", "path", "vars", "silent"), defaults=("{}", 0))


def _items(target: str, path: str, variables: str) -> Iterator[Any]:
    found = parse_jsonb(variables)
    if not isinstance(found, dict):
        raise errors.InvalidParameterValue(
            '"vars" argument is not an object',
            detail='Jsonpath parameters should be encoded as key-value pairs of "vars" object.')
    return evaluate(parse_jsonpath(path), parse_jsonb(target), found)


def _collected(items: Iterator[Any], silent: Any) -> list[Any]:
    """Every item; after an error, if ``silent``, those found before it."""
    found: list[Any] = []
    try:
        found.extend(items)
    except PathError as exc:
        if not silent:
            raise exc.error from None
    return found


@FUNCTIONS.overloaded("jsonb_path_exists", _signature(BOOL))
def _jsonb_path_exists(target: Any, path: Any, variables: Any, silent: Any) -> Any:
    if None in (target, path, variables, silent):
        return None
    items = _items(target, path, variables)
    try:
        if parse_jsonpath(path).strict:  # every item: an error anywhere counts
            return int(bool(list(items)))
        return int(next(items, _NOTHING) is not _NOTHING)
    except PathError as exc:
        if silent:
            return None
        raise exc.error from None


@FUNCTIONS.overloaded("jsonb_path_match", _signature(BOOL))
def _jsonb_path_match(target: Any, path: Any, variables: Any, silent: Any) -> Any:
    if None in (target, path, variables, silent):
        return None
    found = _collected(_items(target, path, variables), silent)
    if len(found) == 1 and (found[0] is None or isinstance(found[0], bool)):
        return None if found[0] is None else int(found[0])
    if not silent:
        raise errors.SingletonSqlJsonItemRequired("single boolean result is expected")
    return None


@FUNCTIONS.overloaded("jsonb_path_query", _signature(_JSONB), set_returning=True)
def _jsonb_path_query(target: Any, path: Any, variables: Any, silent: Any) -> Any:
    if None in (target, path, variables, silent):
        return None
    found = _collected(_items(target, path, variables), silent)
    return json.dumps([jsonb_text(item) for item in found], ensure_ascii=False)


@FUNCTIONS.overloaded("jsonb_path_query_array", _signature(_JSONB))
def _jsonb_path_query_array(target: Any, path: Any, variables: Any, silent: Any) -> Any:
    if None in (target, path, variables, silent):
        return None
    return jsonb_text(_collected(_items(target, path, variables), silent))


@FUNCTIONS.overloaded("jsonb_path_query_first", _signature(_JSONB))
def _jsonb_path_query_first(target: Any, path: Any, variables: Any, silent: Any) -> Any:
    if None in (target, path, variables, silent):
        return None
    found = _collected(_items(target, path, variables), silent)
    return jsonb_text(found[0]) if found else None
