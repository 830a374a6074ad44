"""Evaluating a jsonpath (``executor.codecs.jsonpath``) over a jsonb value,
with PostgreSQL's rules (jsonpath_exec.c).

Items are parsed jsonb values (``parse_jsonb``: numbers are ``Decimal``).
In lax mode arrays are unwrapped where a member accessor or a filter meets
them, a non-array is wrapped where an array accessor meets it, and
structural errors (a missing key, an accessor applied to the wrong kind of
item, a subscript out of bounds) yield nothing; in strict mode they are
errors. Predicates are three-valued (true, false, unknown: JSON null when
returned); an error inside a comparison makes it unknown.

Items come out one by one (generators), so an error stops the evaluation
after the items found before it, as in PostgreSQL.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from catalog import errors
from executor.codecs.jsonpath import (
    AnyIndex,
    AnyKey,
    Chain,
    Compare,
    Current,
    Exists,
    Filter,
    IsUnknown,
    JsonPath,
    Key,
    Last,
    Literal,
    Logical,
    Node,
    Not,
    Root,
    Subscripts,
    Variable,
)

UNKNOWN: Final = None
"""A predicate that is neither true nor false."""
Truth = bool | None
_NOTHING: Final = object()

_ORDER: Final[dict[str, Callable[[int, int], bool]]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge}


class PathError(Exception):
    """An error the ``silent`` argument suppresses (PostgreSQL's
    RETURN_ERROR): its ``error`` is raised otherwise."""

    def __init__(self, error: errors.SqlError) -> None:
        super().__init__(error.message)
        self.error = error


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, Decimal):
        return "number"
    return "string" if isinstance(value, str) else "object" if isinstance(
        value, dict) else "array"


@dataclass(frozen=True, slots=True)
class _Context:
    root: Any
    variables: dict[str, Any]
    strict: bool


def evaluate(path: JsonPath, document: Any, variables: dict[str, Any]) -> Iterator[Any]:
    """The items ``path`` finds in ``document`` (raises ``PathError``)."""
    return _items(_Context(document, variables, path.strict), path.expression, document, None)


def _items(context: _Context, node: Node, current: Any, last: int | None) -> Iterator[Any]:
    if isinstance(node, Chain):
        yield from _steps(context, node.steps, _items(context, node.start, current, last),
                          current, last)
    elif isinstance(node, Root):
        yield context.root
    elif isinstance(node, Current):
        yield current
    elif isinstance(node, Literal):
        yield node.value
    elif isinstance(node, Last):
        assert last is not None
        yield Decimal(last)
    elif isinstance(node, Variable):
        if node.name not in context.variables:
            raise errors.UndefinedObject(f'could not find jsonpath variable "{node.name}"')
        yield context.variables[node.name]
    else:
        truth = _truth(context, node, current)
        yield truth  # unknown is JSON null


def _steps(context: _Context, steps: tuple[Node, ...], items: Iterator[Any], current: Any,
           last: int | None) -> Iterator[Any]:
    if not steps:
        yield from items
        return
    for item in items:
        yield from _steps(context, steps[1:], _step(context, steps[0], item, current),
                          current, last)


def _structural(context: _Context, error: errors.SqlError) -> Iterator[Any]:
    """Nothing in lax mode; the error in strict mode."""
    if context.strict:
        raise PathError(error)
    return iter(())


def _step(context: _Context, step: Node, item: Any, current: Any) -> Iterator[Any]:
    unwrap = not context.strict and isinstance(item, list)
    if isinstance(step, Key | AnyKey | Filter) and unwrap:
        for element in item:
            yield from _accessed(context, step, element)
        return
    yield from _accessed(context, step, item)


def _accessed(context: _Context, step: Node, item: Any) -> Iterator[Any]:
    if isinstance(step, Key):
        if isinstance(item, dict):
            if step.name in item:
                yield item[step.name]
            else:
                yield from _structural(context, errors.SqlJsonMemberNotFound(
                    f'JSON object does not contain key "{step.name}"'))
        else:
            yield from _structural(context, errors.SqlJsonMemberNotFound(
                "jsonpath member accessor can only be applied to an object"))
    elif isinstance(step, AnyKey):
        if isinstance(item, dict):
            yield from item.values()
        else:
            yield from _structural(context, errors.SqlJsonObjectNotFound(
                "jsonpath wildcard member accessor can only be applied to an object"))
    elif isinstance(step, AnyIndex):
        if isinstance(item, list):
            yield from item
        elif context.strict:
            raise PathError(errors.SqlJsonArrayNotFound(
                "jsonpath wildcard array accessor can only be applied to an array"))
        else:
            yield item
    elif isinstance(step, Subscripts):
        yield from _subscripted(context, step, item)
    else:
        assert isinstance(step, Filter)
        if _truth(context, step.predicate, item) is True:
            yield item


def _subscripted(context: _Context, step: Subscripts, item: Any) -> Iterator[Any]:
    if not isinstance(item, list) and context.strict:
        raise PathError(errors.SqlJsonArrayNotFound(
            "jsonpath array accessor can only be applied to an array"))
    elements = item if isinstance(item, list) else [item]
    for first, last in step.ranges:
        start = _position(context, first, item, len(elements) - 1)
        end = start if last is None else _position(context, last, item, len(elements) - 1)
        if start < 0 or start > end or end >= len(elements):
            if context.strict:
                raise PathError(errors.InvalidSqlJsonSubscript(
                    "jsonpath array subscript is out of bounds"))
            start, end = max(start, 0), min(end, len(elements) - 1)
        yield from elements[start:end + 1]


def _position(context: _Context, node: Node, item: Any, last: int) -> int:
    found = list(_items(context, node, item, last))
    if len(found) != 1 or _kind(found[0]) != "number":
        raise PathError(errors.InvalidSqlJsonSubscript(
            "jsonpath array subscript is not a single numeric value"))
    return int(found[0])


def _truth(context: _Context, node: Node, current: Any) -> Truth:
    if isinstance(node, Logical):
        left = _truth(context, node.left, current)
        if left is (node.operator == "||"):
            return left
        right = _truth(context, node.right, current)
        return left if right is (node.operator == "&&") else right
    if isinstance(node, Not):
        found = _truth(context, node.operand, current)
        return None if found is None else not found
    if isinstance(node, IsUnknown):
        return _truth(context, node.operand, current) is None
    if isinstance(node, Exists):
        try:
            items = _items(context, node.path, current, None)
            if context.strict:
                return bool(list(items))  # every item: an error makes it unknown
            return next(items, _NOTHING) is not _NOTHING
        except PathError:
            return UNKNOWN
    assert isinstance(node, Compare)
    return _compare(context, node, current)


def _operand(context: _Context, node: Node, current: Any) -> Iterator[Any]:
    """A comparison's operand: in lax mode arrays among its items are unwrapped."""
    for item in _items(context, node, current, None):
        if not context.strict and isinstance(item, list):
            yield from item
        else:
            yield item


def _compare(context: _Context, node: Compare, current: Any) -> Truth:
    try:
        left = list(_operand(context, node.left, current))
        right = list(_operand(context, node.right, current))
    except PathError:
        return UNKNOWN
    found = unknown = False
    for one in left:
        for other in right:
            result = _compared(node.operator, one, other)
            if result is None:
                if context.strict:
                    return UNKNOWN
                unknown = True
            elif result:
                if not context.strict:
                    return True
                found = True
    return True if found else UNKNOWN if unknown else False


def _compared(operator_name: str, left: Any, right: Any) -> Truth:
    kinds = _kind(left), _kind(right)
    if kinds[0] != kinds[1]:
        if "null" in kinds:
            return operator_name == "!="
        return UNKNOWN
    if kinds[0] in ("object", "array"):
        return UNKNOWN
    order = 0 if kinds[0] == "null" else (left > right) - (left < right)
    return _ORDER[operator_name](order, 0)
