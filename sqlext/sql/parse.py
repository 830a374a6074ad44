"""Parsing SQL text into statement trees, once per distinct text.

Errors become PostgreSQL errors: 42601 with the 1-based character position
of the offending token (psql draws its ``^`` there). Statements sqlglot
cannot parse properly (``exp.Command`` fallbacks, bare expressions) are
refused rather than passed on to SQLite. The semicolons inside a procedure's
``BEGIN ATOMIC ... END`` body do not end the statement.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from typing import Final

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.tokens import Token, TokenType

from catalog import errors
from sqlext.sql import nodes as x
from sqlext.sql.dialect import SqlExt
from sqlext.sql.parser import SqlExtParser
from sqlext.sql.tokenizer import atomic_body_end

# sqlglot logs a warning for every Command fallback; we raise instead.
logging.getLogger("sqlglot").setLevel(logging.ERROR)

_DIALECT: Final = SqlExt()
CACHE_SIZE: Final = 2048

STATEMENT_TYPES: Final = (
    exp.Query, exp.Values, exp.Insert, exp.Update, exp.Delete, exp.Create, exp.Drop, exp.Alter,
    exp.TruncateTable, x.UtilityStatement, x.DataflowDdl, x.RefreshMatview, x.RoleDdl,
    x.ObjectDdl,
)

_CREATE_PROCEDURE: Final = (
    (TokenType.CREATE, TokenType.PROCEDURE),
    (TokenType.CREATE, TokenType.OR, TokenType.REPLACE, TokenType.PROCEDURE),
)


class Parsed:
    """The statements of one SQL text (possibly none: an empty query)."""

    __slots__ = ("statements", "text")

    def __init__(self, text: str, statements: tuple[exp.Expression, ...]) -> None:
        self.text = text
        self.statements = statements


_cache: OrderedDict[str, Parsed] = OrderedDict()


def _tokens(sql: str) -> list[Token]:
    try:
        return _DIALECT.tokenize(sql)
    except TokenError as exc:
        message = str(exc)
        if "Missing" in message or "Error tokenizing" in message:
            raise errors.SqlSyntaxError("unterminated quoted string", position=None) from exc
        raise errors.SqlSyntaxError(f"syntax error: {message}") from exc


def _opens_atomic_body(tokens: list[Token], start: int, index: int) -> bool:
    """Whether ``tokens[index]`` is the ATOMIC of ``BEGIN ATOMIC`` in a CREATE
    PROCEDURE statement that starts at ``tokens[start]``."""
    token = tokens[index]
    if not (token.token_type == TokenType.VAR and token.text.upper() == "ATOMIC"
            and index > start and tokens[index - 1].token_type == TokenType.BEGIN):
        return False
    return any(tuple(t.token_type for t in tokens[start:start + len(prefix)]) == prefix
               for prefix in _CREATE_PROCEDURE)


def _join_atomic_bodies(tokens: list[Token]) -> list[Token]:
    """``tokens`` without the semicolons inside BEGIN ATOMIC bodies.

    sqlglot splits the token list into statements at every semicolon before
    parsing; the dialect takes a body's text from the source, not from its
    tokens, so dropping these semicolons keeps the procedure one statement."""
    kept: list[Token] = []
    start = index = 0
    while index < len(tokens):
        token = tokens[index]
        kept.append(token)
        index += 1
        if token.token_type == TokenType.SEMICOLON:
            start = index
        elif _opens_atomic_body(tokens, start, index - 1):
            end = atomic_body_end(tokens, index)
            if end is not None:
                kept.extend(t for t in tokens[index:end] if t.token_type != TokenType.SEMICOLON)
                index = end
    return kept


def _syntax_error(sql: str, token: Token | None) -> errors.SqlError:
    if token is None or not token.text or token.start >= len(sql.rstrip()):
        return errors.SqlSyntaxError("syntax error at end of input",
                                     position=len(sql.rstrip()) + 1)
    return _syntax_error_at(sql, token.start, token.end + 1)


def _syntax_error_at(sql: str, start: int, end: int) -> errors.SqlError:
    """A syntax error at ``sql[start:end]``; a parameter is named whole
    (``$1``, not its ``$`` or its number), as PostgreSQL's lexer sees it."""
    parameter = _PARAMETER.search(sql, max(start - 1, 0))
    if parameter is not None and parameter.start() <= start < parameter.end():
        start, end = parameter.span()
    return errors.SqlSyntaxError(f'syntax error at or near "{sql[start:end]}"',
                                 position=start + 1)


_PARAMETER: Final = re.compile(r"\$\d+")

_NAME_HOLDERS: Final = (exp.Table, exp.TableAlias, exp.ColumnDef, exp.ColumnConstraint,
                        exp.Column, exp.Index, exp.Schema)
"""Nodes whose arguments are all names."""
_NAME_ARGUMENTS: Final = frozenset({(exp.Alias, "alias"), (exp.Dot, "expression"),
                                    (exp.Window, "alias"), (exp.Join, "using"),
                                    (exp.RenameColumn, "this"), (exp.RenameColumn, "to")})
"""Arguments that are names in nodes whose other arguments are expressions."""


def _names_something(parameter: exp.Expression) -> bool:
    """Whether a parameter stands where the statement needs a name: the
    grammar takes parameters in expressions only."""
    parent = parameter.parent
    if parent is None:
        return False
    if isinstance(parent, _NAME_HOLDERS) or (type(parent), parameter.arg_key) in _NAME_ARGUMENTS:
        return True
    # UPDATE ... SET $1 = ...; ON CONFLICT ($1) ... DO UPDATE SET $1 = ...
    target = parent.arg_key in ("expressions", "conflict_keys") and parameter.arg_key == "this"
    return target and isinstance(parent, exp.EQ | exp.Ordered) and isinstance(
        parent.parent, exp.Update | exp.OnConflict)


def _check_names(statement: exp.Expression, sql: str) -> None:
    for parameter in statement.find_all(exp.Parameter):
        start = parameter.meta.get("start") if parameter.meta else None
        if start is not None and _names_something(parameter):
            raise _syntax_error_at(sql, start, start + 1)


def _statement_token(tokens: list[Token], statement: exp.Expression) -> Token | None:
    """The first token of ``statement`` (for positions in multi-statement text)."""
    start = statement.meta.get("start") if statement.meta else None
    for token in tokens:
        if start is None or token.start >= start:
            return token
    return None


def _check(statement: exp.Expression, sql: str, tokens: list[Token]) -> exp.Expression:
    if isinstance(statement, STATEMENT_TYPES):
        _check_names(statement, sql)
        return statement
    token = _statement_token(tokens, statement)
    if isinstance(statement, exp.Condition | exp.Alias):
        raise _syntax_error(sql, token)
    verb = str(statement.this).upper() if isinstance(statement, exp.Command) else (
        token.text.upper() if token else type(statement).__name__.upper()
    )
    raise errors.FeatureNotSupported(
        f"{verb} is not supported", position=token.start + 1 if token else None
    )


def parse(sql: str) -> Parsed:
    """Parse ``sql`` (cached by its exact text). The returned trees are shared:
    copy them before changing anything."""
    cached = _cache.get(sql)
    if cached is not None:
        _cache.move_to_end(sql)
        return cached
    tokens = _join_atomic_bodies(_tokens(sql))
    if sum(t.token_type == TokenType.L_PAREN for t in tokens) > sum(
            t.token_type == TokenType.R_PAREN for t in tokens):
        raise _syntax_error(sql, None)  # sqlglot lets "f(x" through
    parser = SqlExtParser(dialect=_DIALECT)
    try:
        trees = parser.parse(tokens, sql)
    except ParseError as exc:
        raise _syntax_error(sql, parser.error_token) from exc
    # PostgreSQL folds unquoted identifiers to lower case.
    statements = tuple(normalize_identifiers(_check(tree, sql, tokens), dialect="postgres")
                       for tree in trees if tree is not None)
    parsed = Parsed(sql, statements)
    _cache[sql] = parsed
    if len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    return parsed


def statement_texts(sql: str) -> list[tuple[int, str]]:
    """The statements of ``sql`` as their own texts, each with the offset it
    starts at: split at the semicolons that end statements (not those in
    strings, dollar-quoted bodies or BEGIN ATOMIC bodies). For clients that
    send a script one statement at a time, as psql does."""
    found: list[tuple[int, str]] = []
    start: int | None = None
    for token in _join_atomic_bodies(_tokens(sql)):
        if token.token_type == TokenType.SEMICOLON:
            if start is not None:
                found.append((start, sql[start:token.start].strip()))
            start = None
        elif start is None:
            start = token.start
    if start is not None:
        found.append((start, sql[start:].strip()))
    return found


def parse_expression(text: str) -> exp.Expression:
    """A stored expression (a default, a CHECK) as a fresh tree."""
    return parse(f"SELECT {text}").statements[0].expressions[0].copy()
