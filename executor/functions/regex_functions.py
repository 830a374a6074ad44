"""Regular expressions: the ``~`` operators, the regexp_* functions,
``substring(s FROM pattern)`` and SIMILAR TO, as PostgreSQL 15 has them
(patterns are run through ``posix_regex``).

Arrays come back in their storage form (JSON text); regexp_matches and
regexp_split_to_table return all their rows at once as a JSON array, which
the translator expands (``FunctionDef.set_returning``).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable
from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.sqltypes import BOOL, INT4, TEXT, SqlType
from executor.functions.declare import Declarations
from executor.functions.posix_regex import (
    Options,
    compile_regex,
    compile_similar,
    find_all,
    parse_flags,
)

FUNCTIONS = Declarations()

TEXT_ARRAY: Final = SqlType(t.array_of(t.TEXT))


def _json(values: Iterable[Any]) -> str:
    """An array (or array of arrays) in its storage form."""
    return json.dumps(list(values), ensure_ascii=False, separators=(",", ":"))


def _check(name: str, value: int, lowest: int) -> None:
    if value < lowest:
        raise errors.InvalidParameterValue(f'invalid value for parameter "{name}": {value}')


def _pattern(pattern: Any, flags: Any, function: str,
             allow_global: bool = False) -> tuple[re.Pattern[str], bool]:
    options, is_global = parse_flags(flags, function, allow_global)
    return compile_regex(str(pattern), options), is_global


def _groups(match: re.Match[str]) -> list[str | None]:
    """What regexp_match(es) return for a match: its groups, or the whole
    match when the pattern has none."""
    return list(match.groups()) if match.re.groups else [match.group(0)]


@FUNCTIONS.internal("sqlext_regex_match", 3)
def _regex_match(value: Any, pattern: Any, insensitive: int) -> Any:
    """The ~ and ~* operators (and their negations)."""
    if value is None or pattern is None:
        return None
    compiled = compile_regex(str(pattern), Options(icase=bool(insensitive)))
    return 1 if compiled.search(str(value)) else 0


@FUNCTIONS.scalar("regexp_like", BOOL, TEXT, TEXT, TEXT, min_args=2, max_args=3)
def _regexp_like(value: Any, pattern: Any, flags: Any = "") -> Any:
    if value is None or pattern is None or flags is None:
        return None
    compiled, _ = _pattern(pattern, flags, "regexp_like")
    return 1 if compiled.search(str(value)) else 0


@FUNCTIONS.scalar("regexp_match", TEXT_ARRAY, TEXT, TEXT, TEXT, min_args=2, max_args=3)
def _regexp_match(value: Any, pattern: Any, flags: Any = "") -> Any:
    if value is None or pattern is None or flags is None:
        return None
    compiled, _ = _pattern(pattern, flags, "regexp_match")
    match = compiled.search(str(value))
    return None if match is None else _json(_groups(match))


@FUNCTIONS.scalar("regexp_matches", TEXT_ARRAY, TEXT, TEXT, TEXT, min_args=2, max_args=3,
                  set_returning=True)
def _regexp_matches(value: Any, pattern: Any, flags: Any = "") -> Any:
    """Every match (``g``) or the first, each as a text[]."""
    if value is None or pattern is None or flags is None:
        return None
    compiled, is_global = _pattern(pattern, flags, "regexp_matches", allow_global=True)
    matches = find_all(compiled, str(value))
    found = matches if is_global else itertools.islice(matches, 1)
    return _json(_groups(match) for match in found)


def _split(value: Any, pattern: Any, flags: Any, function: str) -> Any:
    if value is None or pattern is None or flags is None:
        return None
    compiled, _ = _pattern(pattern, flags, function)
    text = str(value)
    pieces, start = [], 0
    for match in find_all(compiled, text, skip_degenerate=True):
        pieces.append(text[start:match.start()])
        start = match.end()
    pieces.append(text[start:])
    return _json(pieces)


@FUNCTIONS.scalar("regexp_split_to_array", TEXT_ARRAY, TEXT, TEXT, TEXT, min_args=2,
                  max_args=3)
def _regexp_split_to_array(value: Any, pattern: Any, flags: Any = "") -> Any:
    return _split(value, pattern, flags, "regexp_split_to_array")


@FUNCTIONS.scalar("regexp_split_to_table", TEXT, TEXT, TEXT, TEXT, min_args=2, max_args=3,
                  set_returning=True)
def _regexp_split_to_table(value: Any, pattern: Any, flags: Any = "") -> Any:
    return _split(value, pattern, flags, "regexp_split_to_table")


@FUNCTIONS.scalar("regexp_replace", TEXT, TEXT, TEXT, TEXT, TEXT, INT4, TEXT, min_args=3,
                  max_args=6)
def _regexp_replace(value: Any, pattern: Any, replacement: Any, *rest: Any) -> Any:
    """regexp_replace(s, p, r [, flags]) and, PostgreSQL 15's,
    regexp_replace(s, p, r, start [, N [, flags]]): the N'th match from
    ``start`` (all of them for N = 0 or the g flag without N)."""
    if value is None or pattern is None or replacement is None or None in rest:
        return None
    start, occurrence, flags = 1, None, ""
    if len(rest) == 1 and isinstance(rest[0], str):
        flags = rest[0]
    elif rest:
        start = int(rest[0])
        occurrence = rest[1] if len(rest) > 1 else None
        flags = rest[2] if len(rest) > 2 else ""
    compiled, is_global = _pattern(pattern, flags, "regexp_replace", allow_global=True)
    _check("start", start, 1)
    if occurrence is not None:
        _check("n", occurrence, 0)
    wanted = occurrence if occurrence is not None else 0 if is_global else 1
    text, template = str(value), str(replacement)
    out: list[str] = []
    copied = 0
    for count, match in enumerate(find_all(compiled, text, start - 1), start=1):
        if wanted and count < wanted:
            continue
        out.extend((text[copied:match.start()], _expand(template, match)))
        copied = match.end()
        if wanted:
            break
    out.append(text[copied:])
    return "".join(out)


def _expand(template: str, match: re.Match[str]) -> str:
    r"""PostgreSQL's replacement text: \1 to \9 are groups, \& the match,
    \\ a backslash; any other backslash stays as it is."""
    out: list[str] = []
    index = 0
    while index < len(template):
        char = template[index]
        following = template[index + 1] if index + 1 < len(template) else ""
        if char == "\\" and following and following in "123456789&\\":
            if following == "&":
                out.append(match.group(0))
            elif following == "\\":
                out.append("\\")
            elif int(following) <= (match.re.groups or 0):
                out.append(match.group(int(following)) or "")
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


@FUNCTIONS.scalar("regexp_count", INT4, TEXT, TEXT, INT4, TEXT, min_args=2, max_args=4)
def _regexp_count(value: Any, pattern: Any, start: Any = 1, flags: Any = "") -> Any:
    if value is None or pattern is None or start is None or flags is None:
        return None
    _check("start", start, 1)
    compiled, _ = _pattern(pattern, flags, "regexp_count")
    return sum(1 for _ in find_all(compiled, str(value), start - 1))


def _nth_match(value: Any, pattern: Any, start: int, occurrence: int, flags: Any,
               subexpression: int, function: str) -> tuple[re.Match[str] | None, int]:
    """The ``occurrence``'th match from ``start`` (or None), and which of its
    groups the caller wants (None when the pattern has no such group)."""
    _check("start", start, 1)
    _check("n", occurrence, 1)
    _check("subexpr", subexpression, 0)
    compiled, _ = _pattern(pattern, flags, function)
    if subexpression > compiled.groups:
        return None, subexpression
    for count, match in enumerate(find_all(compiled, str(value), start - 1), start=1):
        if count == occurrence:
            return match, subexpression
    return None, subexpression


@FUNCTIONS.scalar("regexp_instr", INT4, TEXT, TEXT, INT4, INT4, INT4, TEXT, INT4, min_args=2,
                  max_args=7)
def _regexp_instr(value: Any, pattern: Any, start: Any = 1, occurrence: Any = 1,
                  end_option: Any = 0, flags: Any = "", subexpression: Any = 0) -> Any:
    """Where the match (``end_option`` 1: the character after it) is, 1-based;
    0 when there is none."""
    if None in (value, pattern, start, occurrence, end_option, flags, subexpression):
        return None
    if end_option not in (0, 1):
        raise errors.InvalidParameterValue(
            f'invalid value for parameter "endoption": {end_option}')
    match, group = _nth_match(value, pattern, start, occurrence, flags, subexpression,
                              "regexp_instr")
    if match is None or match.start(group) < 0:
        return 0
    return (match.end(group) if end_option else match.start(group)) + 1


@FUNCTIONS.scalar("regexp_substr", TEXT, TEXT, TEXT, INT4, INT4, TEXT, INT4, min_args=2,
                  max_args=6)
def _regexp_substr(value: Any, pattern: Any, start: Any = 1, occurrence: Any = 1,
                   flags: Any = "", subexpression: Any = 0) -> Any:
    if None in (value, pattern, start, occurrence, flags, subexpression):
        return None
    match, group = _nth_match(value, pattern, start, occurrence, flags, subexpression,
                              "regexp_substr")
    return None if match is None else match.group(group)


@FUNCTIONS.internal("sqlext_substring_regex", 2)
def _substring_regex(value: Any, pattern: Any) -> Any:
    """substring(s FROM pattern): the first parenthesised group's text, or
    the whole match when there is none."""
    if value is None or pattern is None:
        return None
    match = compile_regex(str(pattern)).search(str(value))
    if match is None:
        return None
    return match.group(1) if match.re.groups else match.group(0)


@FUNCTIONS.internal("sqlext_substring_similar", 3)
def _substring_similar(value: Any, pattern: Any, escape: Any) -> Any:
    """substring(s SIMILAR pattern ESCAPE e): the text between the escaped
    double quotes (all of it without them), when the whole string matches."""
    if value is None or pattern is None or escape is None:
        return None
    match = compile_similar(str(pattern), str(escape)).match(str(value))
    if match is None:
        return None
    return match.group(1) if match.re.groups else match.group(0)


@FUNCTIONS.internal("sqlext_similar_to", 3)
def _similar_to(value: Any, pattern: Any, escape: Any) -> Any:
    if value is None or pattern is None or escape is None:
        return None
    return 1 if compile_similar(str(pattern), str(escape)).match(str(value)) else 0
