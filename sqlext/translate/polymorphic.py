"""Polymorphic parameters (anyelement, anyarray, anynonarray, anycompatible,
anycompatiblearray): the concrete types a call's arguments give them, as
PostgreSQL's check_generic_type_consistency and
enforce_generic_type_consistency (parse_coerce.c) decide.

The anyelement family must agree on one type exactly (an array argument
giving its element type); the anycompatible family takes the common type of
its arguments (array arguments giving their element types), each of which
must reach it by an implicit cast. Untyped arguments take the type decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from catalog import errors
from catalog import types as t
from catalog.sqltypes import SqlType
from executor.functions.declare import Overload
from sqlext.translate.implicit_casts import common_type, reaches

_ELEMENTS: Final = frozenset({t.ANYELEMENT, t.ANYNONARRAY})
_ARRAYS: Final = frozenset({t.ANYARRAY})
_COMPATIBLE: Final = frozenset({t.ANYCOMPATIBLE})
_COMPATIBLE_ARRAYS: Final = frozenset({t.ANYCOMPATIBLEARRAY})
POLYMORPHIC: Final = _ELEMENTS | _ARRAYS | _COMPATIBLE | _COMPATIBLE_ARRAYS


def resolve(overload: Overload, given: Sequence[SqlType | None]) -> Overload | None:
    """``overload`` with its polymorphic parameters and result made the
    types the arguments (``given``: each parameter's argument type, None for
    a default) decide, None when the arguments do not fit it; an overload
    without polymorphic parameters as it is."""
    if not any(param.oid in POLYMORPHIC for param in overload.params):
        return overload
    pairs = [(param.oid, found) for param, found in zip(overload.params, given, strict=True)
             if found is not None and not found.is_unknown]
    element = _element_family(pairs)
    if element is None:
        return None
    compatible = _compatible_family(pairs)
    if compatible is None:
        return None
    oids = {param.oid for param in (*overload.params, overload.result)}
    if element == 0 and oids & (_ELEMENTS | _ARRAYS):
        raise errors.DatatypeMismatch(
            "could not determine polymorphic type because input has type unknown")
    decided = {t.ANYELEMENT: element, t.ANYNONARRAY: element, t.ANYCOMPATIBLE: compatible}
    arrays = {t.ANYARRAY: element, t.ANYCOMPATIBLEARRAY: compatible}

    def made(param: SqlType) -> SqlType:
        if param.oid in arrays:
            return SqlType(_array_of(arrays[param.oid]))
        return SqlType(decided[param.oid]) if param.oid in decided else param

    return Overload(tuple(made(param) for param in overload.params), made(overload.result),
                    overload.names, overload.defaults)


def _element_family(pairs: list[tuple[int, SqlType]]) -> int | None:
    """The type the anyelement family's known arguments agree on (0: none
    is known), or None when they disagree."""
    found: set[int] = set()
    for param, argument in pairs:
        if param in _ARRAYS:
            element = t.array_element(argument.oid)
            if not element:
                return None
            found.add(element)
        elif param in _ELEMENTS:
            if param == t.ANYNONARRAY and t.array_element(argument.oid):
                return None
            found.add(argument.oid)
    if len(found) > 1:
        return None
    return found.pop() if found else 0


def _compatible_family(pairs: list[tuple[int, SqlType]]) -> int | None:
    """The common type of the anycompatible family's known arguments (text
    if none is known), or None when they have none."""
    types: list[SqlType] = []
    for param, argument in pairs:
        if param in _COMPATIBLE_ARRAYS:
            element = t.array_element(argument.oid)
            if not element:
                return None
            types.append(SqlType(element))
        elif param in _COMPATIBLE:
            types.append(SqlType(argument.oid))
    common = common_type(types)
    if common is None or not all(reaches(found, common) for found in types):
        return None
    return common.oid


def _array_of(element: int) -> int:
    """The array type of a decided element type."""
    array = t.array_of(element)
    if not array or t.array_element(element):
        raise errors.UndefinedObject(
            f"could not find array type for data type {t.format_type(element)}")
    return array
