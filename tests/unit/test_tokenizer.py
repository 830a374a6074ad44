"""The dialect's tokenizer: parameters against dollar-quoted strings."""

from __future__ import annotations

import pytest
from sqlglot import exp

from sqlext.sql.parse import parse


@pytest.mark.parametrize("sql", [
    "SELECT $1,$2",
    'INSERT INTO t ("a","b") VALUES ($1,$2)',
    "SELECT ($1,$2,$3)",
])
def test_parameters_without_spaces_are_parameters(sql: str) -> None:
    """pgjdbc writes ``VALUES ($1,$2)``: ``$1,$`` is not a string tagged ``1,``."""
    (statement,) = parse(sql).statements
    numbers = [p.name for p in statement.find_all(exp.Parameter)]
    assert numbers == [str(n) for n in range(1, len(numbers) + 1)] and len(numbers) >= 2


@pytest.mark.parametrize(("sql", "text"), [
    ("SELECT $$a,$1$$", "a,$1"),
    ("SELECT $tag$x$y$tag$", "x$y"),
    ("SELECT $_t1$q$_t1$", "q"),
])
def test_dollar_quoted_strings_still_are_strings(sql: str, text: str) -> None:
    (statement,) = parse(sql).statements
    assert statement.selects[0].name == text
