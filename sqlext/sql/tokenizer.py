"""The tokenizer of the sqlext dialect: PostgreSQL's, with ``$1`` parameters
told from dollar-quoted strings and nothing swallowed as a "command"."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from sqlglot.dialects.postgres import Postgres
from sqlglot.tokenizer_core import TokenizerCore
from sqlglot.tokens import Token, TokenType


def atomic_body_end(tokens: Sequence[Token], start: int) -> int | None:
    """The index of the END closing a ``BEGIN ATOMIC`` body that starts at
    ``tokens[start]``: the first END outside ``CASE ... END`` that is followed
    by a semicolon or by nothing. None when the body is not closed."""
    depth = 0
    for index in range(start, len(tokens)):
        token_type = tokens[index].token_type
        if token_type == TokenType.CASE:
            depth += 1
        elif token_type == TokenType.END:
            last = index + 1 == len(tokens)
            if depth == 0 and (last or tokens[index + 1].token_type == TokenType.SEMICOLON):
                return index
            depth = max(depth - 1, 0)
    return None


class _TokenizerCore(TokenizerCore):
    """sqlglot reads ``$1,$2`` (as pgjdbc writes parameters) as a dollar-quoted
    string tagged ``1,``. PostgreSQL's tags follow the rules of unquoted
    identifiers, so a ``$`` followed by anything but a letter, ``_`` or a
    second ``$`` does not open a string: it starts a parameter."""

    __slots__ = ()

    def _scan_string(self, start: str) -> bool:
        if start == "$" and not (self._peek == "$" or self._peek == "_"
                                 or self._peek.isalpha()):
            self._add(self.heredoc_string_alternative)
            return True
        return super()._scan_string(start)


class SqlExtTokenizer(Postgres.Tokenizer):
    # sqlglot swallows the rest of a statement after a "command" keyword into
    # one string; we parse those statements ourselves, so nothing is swallowed.
    COMMANDS: ClassVar[set[TokenType]] = set()

    def _init_core(self) -> TokenizerCore:
        core = super()._init_core()
        core.__class__ = _TokenizerCore
        return core
