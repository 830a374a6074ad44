"""Choosing among a function's signatures as PostgreSQL does
(func_select_candidate, "Type Conversion: Functions" in its manual), for the
functions declared with overloads.

The candidates are the signatures whose parameters the arguments reach: by
their own type, an implicit cast, or, for untyped literals and parameters,
any type. Among several, those with the most exactly matching arguments win,
then those taking the most preferred types where a cast is needed; untyped
arguments then take the string category if a candidate offers it, else the
one category all candidates agree on (preferring its preferred type); last,
untyped arguments are read as the type all typed ones share. Polymorphic
parameters take the types the arguments decide (``polymorphic``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from catalog import errors
from catalog import types as t
from catalog.sqltypes import SqlType
from executor.functions.declare import Overload
from sqlext.translate.implicit_casts import reaches
from sqlext.translate.polymorphic import resolve


class Argument(NamedTuple):
    type: SqlType
    name: str | None = None
    """Set for a named argument (``days => 3``)."""


class Chosen(NamedTuple):
    overload: Overload
    sources: tuple[int | None, ...]
    """For each parameter, the argument it gets (None: its default)."""


def _arrange(overload: Overload, arguments: Sequence[Argument]) -> tuple[int | None, ...] | None:
    """Which argument each parameter gets, or None if the call cannot match."""
    params = len(overload.params)
    sources: list[int | None] = [None] * params
    for index, argument in enumerate(arguments):
        if argument.name is None:
            if index >= params:
                return None
            sources[index] = index
            continue
        if argument.name not in overload.names:
            return None
        position = overload.names.index(argument.name)
        if sources[position] is not None:
            return None
        sources[position] = index
    first_default = params - len(overload.defaults)
    if any(source is None for source in sources[:first_default]):
        return None
    return tuple(sources)


def _spread(overload: Overload, count: int) -> Overload:
    """A variadic signature with its last parameter repeated for ``count``
    arguments (as it is without them)."""
    extra = count - len(overload.params)
    if not overload.variadic or extra < 0:
        return overload
    return Overload(overload.params + overload.params[-1:] * extra, overload.result,
                    overload.names, overload.defaults)


def _describe(name: str, arguments: Sequence[Argument]) -> str:
    shown = [("" if a.name is None else f"{a.name} => ") + t.format_type(a.type.oid)
             for a in arguments]
    return f"{name}({', '.join(shown)})"


def choose(name: str, overloads: Sequence[Overload], arguments: Sequence[Argument]) -> Chosen:
    """The signature a call of ``name`` with these arguments runs, or
    PostgreSQL's error: 42883 when none fits, 42725 when several do."""
    candidates = []
    for declared in overloads:
        overload = _spread(declared, len(arguments))
        sources = _arrange(overload, arguments)
        concrete = None if sources is None else resolve(overload, [
            None if source is None else arguments[source].type for source in sources])
        if sources is not None and concrete is not None and all(
                source is None or reaches(arguments[source].type, param)
                for source, param in zip(sources, concrete.params, strict=True)):
            candidates.append(Chosen(concrete, sources))
    if not candidates:
        raise errors.no_function(_describe(name, arguments))
    for narrow in (_most_exact, _most_preferred, _unknown_categories, _like_the_known):
        if len(candidates) == 1:
            return candidates[0]
        candidates = narrow(candidates, arguments)
    if len(candidates) == 1:
        return candidates[0]
    raise errors.AmbiguousFunction(
        f"function {_describe(name, arguments)} is not unique",
        hint="Could not choose a best candidate function. You might need to add explicit "
             "type casts.")


def _pairs(chosen: Chosen, arguments: Sequence[Argument]) -> list[tuple[SqlType, SqlType]]:
    """(argument type, parameter type) of each argument given."""
    return [(arguments[source].type, param)
            for source, param in zip(chosen.sources, chosen.overload.params, strict=True)
            if source is not None]


def _keep_best(candidates: list[Chosen], scores: list[int]) -> list[Chosen]:
    best = max(scores)
    return [c for c, score in zip(candidates, scores, strict=True) if score == best]


def _most_exact(candidates: list[Chosen], arguments: Sequence[Argument]) -> list[Chosen]:
    return _keep_best(candidates, [
        sum(1 for arg, param in _pairs(c, arguments) if not arg.is_unknown and arg.oid == param.oid)
        for c in candidates])


def _preferred(sql_type: SqlType) -> bool:
    found = t.TYPES.get(sql_type.oid)
    return found is not None and found.preferred


def _most_preferred(candidates: list[Chosen], arguments: Sequence[Argument]) -> list[Chosen]:
    return _keep_best(candidates, [
        sum(1 for arg, param in _pairs(c, arguments)
            if not arg.is_unknown and arg.oid != param.oid and _preferred(param))
        for c in candidates])


def _unknown_categories(candidates: list[Chosen], arguments: Sequence[Argument]
                        ) -> list[Chosen]:
    """Untyped arguments: the string category if offered, else the only one."""
    wanted: dict[int, tuple[str, bool]] = {}
    for index, argument in enumerate(arguments):
        if not argument.type.is_unknown:
            continue
        params = [c.overload.params[c.sources.index(index)] for c in candidates]
        categories = {param.category for param in params}
        if "S" in categories:
            category = "S"
        elif len(categories) == 1:
            category = categories.pop()
        else:
            return candidates  # no category agreed: ambiguous unless the last rule decides
        wanted[index] = category, any(_preferred(p) for p in params if p.category == category)
    kept = [c for c in candidates if all(
        param.category == wanted[index][0] and (_preferred(param) or not wanted[index][1])
        for index in wanted for param in [c.overload.params[c.sources.index(index)]])]
    return kept or candidates


def _like_the_known(candidates: list[Chosen], arguments: Sequence[Argument]) -> list[Chosen]:
    """Untyped arguments next to typed ones that all share a type: that type."""
    known = {a.type.oid for a in arguments if not a.type.is_unknown}
    if len(known) != 1 or not any(a.type.is_unknown for a in arguments):
        return candidates
    shared = SqlType(known.pop())
    kept = [c for c in candidates if all(
        reaches(shared, c.overload.params[c.sources.index(index)])
        for index, argument in enumerate(arguments) if argument.type.is_unknown)]
    return kept or candidates
