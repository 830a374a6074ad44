"""The parser of the sqlext dialect: sqlglot's PostgreSQL parser plus the
statements it does not parse the way PostgreSQL does (session and
transaction control, cursors, prepared statements, COPY, CALL, roles and
privileges) and the dataflow statements (CREATE/DROP STREAM, WINDOW,
TRIGGER, PROCEDURE).

Utility statements are recognised by their first word (``UTILITY_PARSERS``),
dataflow statements by their verb and object kind (``DATAFLOW_PARSERS``),
before sqlglot's own statement parsing; everything else is PostgreSQL as
sqlglot understands it. Nothing falls back to an unparsed ``Command``: the
parse entry point (``sqlext.sql.parse``) rejects those.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, NoReturn, TypeVar, cast

from sqlglot import exp
from sqlglot.parsers.postgres import PostgresParser
from sqlglot.tokens import Token, TokenType

from catalog import errors
from catalog.acl import PRIVILEGE_LETTERS, PUBLIC_GRANTEE
from catalog.roles import CURRENT_USER, SESSION_USER
from sqlext.sql import nodes as x
from sqlext.sql.object_statements import ObjectStatementParser
from sqlext.sql.tokenizer import atomic_body_end

_ISOLATION_LEVELS = {
    ("SERIALIZABLE",): "serializable",
    ("REPEATABLE", "READ"): "repeatable read",
    ("READ", "COMMITTED"): "read committed",
    ("READ", "UNCOMMITTED"): "read uncommitted",
}

_COPY_WORD_OPTIONS = {"BINARY": ("format", "binary"), "CSV": ("format", "csv"),
                      "HEADER": ("header", "true"), "FREEZE": ("freeze", "true")}
_COPY_VALUE_OPTIONS = {"DELIMITER": "delimiter", "NULL": "null", "QUOTE": "quote",
                       "ESCAPE": "escape", "ENCODING": "encoding"}


_UNSUPPORTED_STATEMENTS = frozenset({
    "DO",
    "REINDEX", "CLUSTER", "LOAD", "SECURITY", "REASSIGN", "IMPORT", "MERGE",
})

_ROLE_FLAGS = {"SUPERUSER": "superuser", "LOGIN": "login", "CREATEROLE": "createrole",
               "CREATEDB": "createdb"}
_ROLE_DEFAULTS = frozenset({"INHERIT", "NOREPLICATION", "NOBYPASSRLS"})
"""Role options that state what is true of every sqlext role anyway."""
_ROLE_UNSUPPORTED = frozenset({"NOINHERIT", "REPLICATION", "BYPASSRLS", "VALID", "SYSID"})
_ROLE_MEMBERS = {"IN": "in_role", "ROLE": "role", "USER": "role", "ADMIN": "admin"}
"""CREATE ROLE's options that grant memberships: IN ROLE|GROUP (the roles
it joins), ROLE|USER (its members), ADMIN (members WITH ADMIN OPTION)."""
_PRIVILEGE_WORDS = frozenset(PRIVILEGE_LETTERS)

_STRING_CONSTANTS = frozenset({TokenType.STRING, TokenType.BYTE_STRING,
                               TokenType.HEREDOC_STRING})
"""'...', E'...' (escapes decoded by the tokenizer) and $$...$$."""

_TRIGGER_EVENTS = frozenset({"INSERT", "SLIDE"})
_UNSUPPORTED_TRIGGER_EVENTS = frozenset({"UPDATE", "DELETE", "TRUNCATE"})

_EXPLAIN_OPTIONS = frozenset({"analyze", "verbose", "costs", "settings", "generic_plan",
                              "buffers", "wal", "timing", "summary"})
"""PostgreSQL's EXPLAIN options other than FORMAT."""
_DATAFLOW_FORMATS = frozenset({"text", "json", "dot"})

E = TypeVar("E", bound=exp.Expr)



class SqlExtParser(ObjectStatementParser):
    UTILITY_PARSERS: ClassVar[dict[str, Callable[[SqlExtParser], exp.Expr]]] = {}
    DATAFLOW_PARSERS: ClassVar[
        dict[tuple[str, str], Callable[[SqlExtParser], exp.Expr | None]]
    ] = {}
    """By (verb, object kind); a parser returning None leaves the statement to sqlglot."""

    # Every name(args) call stays an ``exp.Anonymous`` with its PostgreSQL name
    # and argument order; executor.functions gives each one its meaning. Only
    # calls with special syntax keep their own parsers.
    FUNCTIONS: ClassVar[dict[str, Callable[..., exp.Expr]]] = {}
    FUNCTION_PARSERS: ClassVar[dict[str, Callable[..., exp.Expr]]] = {
        name: PostgresParser.FUNCTION_PARSERS[name]
        for name in ("CAST", "TRY_CAST", "EXTRACT", "POSITION", "SUBSTRING", "TRIM",
                     "OVERLAY", "STRING_AGG")
    }

    NO_PAREN_FUNCTION_PARSERS: ClassVar[dict[str, Callable[..., exp.Expr]]] = {
        **PostgresParser.NO_PAREN_FUNCTION_PARSERS,
        # x op ALL (array) and SOME, like ANY (sqlglot reads ALL (array) as a call)
        "ALL": lambda self: self.expression(exp.All(this=self._parse_bitwise())),
        "SOME": lambda self: self.expression(exp.Any(this=self._parse_bitwise())),
    }

    UNARY_PARSERS: ClassVar[dict[TokenType, Callable[..., exp.Expr]]] = {
        **PostgresParser.UNARY_PARSERS,
        TokenType.DASH: lambda self: self._parse_negative(),
    }

    # PostgreSQL has no lambdas: in f(doc -> 'key') the arrow is json's ->
    # operator, not "x -> body". => stays (named arguments).
    LAMBDAS: ClassVar[dict[TokenType, Callable[..., exp.Expr]]] = {
        token: parse for token, parse in PostgresParser.LAMBDAS.items()
        if token != TokenType.ARROW
    }

    error_token: Token | None = None
    """The token a syntax error was found at (for the error position)."""

    def raise_error(self, message: str, token: Token | None = None) -> None:
        failing = token or self._curr or self._prev
        if failing and self.error_token is None:
            self.error_token = failing
        if token:
            super().raise_error(message, token)
        else:
            super().raise_error(message)

    def _parse_statement(self) -> exp.Expr | None:
        current = self._curr
        if current and current.token_type not in (
            TokenType.STRING, TokenType.IDENTIFIER, TokenType.L_PAREN
        ):
            handler = self.UTILITY_PARSERS.get(current.text.upper())
            if handler is not None:
                self._advance()
                return handler(self)
            if current.text.upper() in _UNSUPPORTED_STATEMENTS:
                self._unsupported(f"{current.text.upper()} is not supported", current)
            if current.token_type == TokenType.VAR:
                self.raise_error("Not a statement", current)
            if current.token_type in (TokenType.CREATE, TokenType.DROP, TokenType.ALTER):
                statement = self._parse_dataflow_statement()
                if statement is not None:
                    return statement
        return super()._parse_statement()

    def _parse_dataflow_statement(self) -> exp.Expr | None:
        """CREATE/DROP/ALTER of a stream, window, trigger or procedure; None,
        having consumed nothing, for the other objects (sqlglot parses those)."""
        start = self._index
        verb = self._word()
        replace = verb == "CREATE" and self._match_pair(TokenType.OR, TokenType.REPLACE)
        kind = self._curr
        handler = self.DATAFLOW_PARSERS.get((verb or "", kind.text.upper()))
        if handler is not None and kind.token_type not in self.TEXT_MATCH_EXCLUDED_TOKENS:
            if replace and kind.token_type != TokenType.PROCEDURE:
                self._unsupported(f"CREATE OR REPLACE {kind.text.upper()} is not supported",
                                  kind)
            self._advance()
            statement = handler(self)
            if statement is not None:
                if replace:
                    statement.set("replace", True)
                return statement
        self._retreat(start)
        return None

    def _parse_substring(self) -> exp.Substring:
        """``substring(s SIMILAR pattern ESCAPE escape)`` as well: PostgreSQL
        makes it the same call as ``substring(s FROM pattern FOR escape)``."""
        index = self._index
        value = self._parse_bitwise()
        if value is not None and self._match_text_seq("SIMILAR"):
            pattern = self._parse_bitwise()
            if not self._match(TokenType.ESCAPE):
                self.raise_error("Expecting ESCAPE")
            escape = self._parse_bitwise()
            return self.expression(exp.Substring(this=value, start=pattern, length=escape))
        self._retreat(index)
        return super()._parse_substring()

    # --- helpers --------------------------------------------------------------

    @staticmethod
    def _unsupported(message: str, token: Token) -> NoReturn:
        raise errors.FeatureNotSupported(message, position=token.start + 1)

    def _required(self, node: E | None, what: str) -> E:
        """``node``, or a syntax error saying that ``what`` was expected."""
        if node is None:
            self.raise_error(f"Expected {what}")
        return cast(E, node)

    def _expect(self, *words: str) -> None:
        """Consume ``words`` or fail with a syntax error."""
        if not self._match_text_seq(*words):
            self.raise_error(f"Expected {' '.join(words)}")

    def _identifier(self) -> str:
        """A simple (unqualified) name, folded to lower case unless quoted."""
        token = self._curr
        identifier = self._parse_id_var(any_token=False)
        if not isinstance(identifier, exp.Identifier):  # nothing, or a parameter ($1)
            self.raise_error("Expected a name", token)
        name = cast(exp.Identifier, identifier)
        return name.name if name.quoted else name.name.lower()

    def _parse_type_size(self) -> exp.DataTypeParam | None:
        """A type modifier may be negative: numeric(5,-2) rounds to hundreds."""
        if self._match(TokenType.DASH):
            if not self._match(TokenType.NUMBER):
                self.raise_error("Expected a number")
            negative = exp.Literal(this=f"-{self._prev.text}", is_string=False)
            return self.expression(exp.DataTypeParam(this=negative))
        return super()._parse_type_size()

    def _parse_types(self, check_func: bool = False, schema: bool = False,
                     allow_identifiers: bool = True,
                     with_collation: bool = False) -> exp.Expr | None:
        """sqlglot returns ``oid``, ``regtype`` and the other object
        identifier types before it reads an array suffix: ``oid[]`` is read
        here (each ``[]`` or ``[n]`` one dimension, as PostgreSQL ignores n)."""
        this = super()._parse_types(check_func=check_func, schema=schema,
                                    allow_identifiers=allow_identifiers,
                                    with_collation=with_collation)
        if not isinstance(this, exp.ObjectIdentifier):
            return this
        while self._match(TokenType.L_BRACKET):
            self._match(TokenType.NUMBER)
            if not self._match(TokenType.R_BRACKET):
                self.raise_error("Expecting ]")
            this = exp.DataType(this=exp.DType.ARRAY, expressions=[this], nested=True)
        return this

    def _parse_negative(self) -> exp.Expr:
        """Unary minus, with the position of its operator (for errors)."""
        token = self._prev
        return self.expression(exp.Neg(this=self._parse_unary())).update_positions(token)

    def _parse_parameter(self) -> exp.Parameter:
        """``$n``, with its position: sqlglot takes a parameter wherever it
        takes a name, and ``sqlext.sql.parse`` reports one standing for a
        name as the syntax error PostgreSQL makes of it."""
        token = self._prev
        return super()._parse_parameter().update_positions(token)

    def _object_name(self) -> exp.Expr:
        """A possibly schema-qualified object name (an ``exp.Table``)."""
        return self._required(self._parse_table_parts(schema=True), "a name")

    def _word(self) -> str | None:
        """The next token as an upper-case word (and consume it)."""
        if not self._curr:
            return None
        self._advance()
        return self._prev.text.upper()

    def _peek_word(self) -> str:
        return self._curr.text.upper() if self._curr else ""

    def _name(self) -> str:
        """An identifier (quoted names keep their case, others are folded)."""
        token = self._curr
        if not token:
            self.raise_error("Expected a name")
            return ""
        self._advance()
        if token.token_type == TokenType.IDENTIFIER:
            return token.text
        if token.token_type == TokenType.STRING:
            return token.text
        return token.text.lower()

    def _setting_value(self) -> str:
        token = self._curr
        if not token:
            self.raise_error("Expected a value")
            return ""
        self._advance()
        if token.token_type == TokenType.DASH and self._curr:
            self._advance()
            return "-" + self._prev.text
        if token.token_type in (TokenType.STRING, TokenType.IDENTIFIER, TokenType.NUMBER):
            return token.text
        return token.text.lower()

    def _transaction_modes(self) -> tuple[str | None, bool | None]:
        isolation: str | None = None
        read_only: bool | None = None
        while self._curr:
            if self._match(TokenType.COMMA):
                continue
            if self._match_text_seq("ISOLATION", "LEVEL"):
                for words, level in _ISOLATION_LEVELS.items():
                    if self._match_text_seq(*words):
                        isolation = level
                        break
                else:
                    self.raise_error("Expected an isolation level")
            elif self._match_text_seq("READ", "ONLY"):
                read_only = True
            elif self._match_text_seq("READ", "WRITE"):
                read_only = False
            elif self._match_text_seq("NOT", "DEFERRABLE") or self._match_text_seq("DEFERRABLE"):
                pass
            else:
                self.raise_error("Unexpected transaction mode")
                break
        return isolation, read_only

    # --- statements -----------------------------------------------------------

    def _parse_show_statement(self) -> exp.Expr:
        words = []
        while self._curr:
            words.append(self._name())
        # SHOW TIME ZONE is timezone; a dotted name ("sqlext.partition") stays dotted
        name = "_".join(words).replace("_._", ".")
        name = {"time_zone": "timezone", "transaction_isolation_level": "transaction_isolation",
                "session_authorization": "session_authorization"}.get(name, name)
        if not name:
            self.raise_error("Expected a parameter name")
        return x.Show(this=name)

    def _parse_set_statement(self) -> exp.Expr:
        local = False
        if self._match_text_seq("SESSION", "CHARACTERISTICS", "AS", "TRANSACTION"):
            isolation, read_only = self._transaction_modes()
            return x.SetTransaction(session=True, isolation=isolation, read_only=read_only)
        if self._match_text_seq("LOCAL"):
            local = True
        if self._match_text_seq("SESSION", "AUTHORIZATION"):
            name = "session_authorization"
            if self._match(TokenType.DEFAULT):
                return x.SetVariable(this=name, expressions=[], local=local)
            return x.SetVariable(this=name, expressions=[exp.Literal.string(
                self._setting_value())], local=local)
        if not local:
            self._match_text_seq("SESSION")
        index = self._index
        if self._match_text_seq("ROLE") and self._curr and not (
                self._curr.token_type == TokenType.EQ or self._peek_word() == "TO"):
            # SET ROLE name | NONE: the role setting, without TO
            return x.SetVariable(this="role", expressions=[exp.Literal.string(
                self._setting_value())], local=local)
        self._retreat(index)
        if self._match_text_seq("TRANSACTION"):
            if self._match_text_seq("SNAPSHOT"):
                if not self._match(TokenType.STRING):
                    self.raise_error("Expected a snapshot identifier")
                return x.SetTransaction(session=False, snapshot=self._prev.text)
            isolation, read_only = self._transaction_modes()
            return x.SetTransaction(session=False, isolation=isolation, read_only=read_only)
        if self._match_text_seq("TIME", "ZONE"):
            name = "timezone"
        elif self._match_text_seq("NAMES"):
            name = "client_encoding"
        else:
            name = self._name()
            while self._match(TokenType.DOT):
                name += "." + self._name()
            if not (self._match(TokenType.EQ) or self._match_text_seq("TO")):
                self.raise_error("Expected TO or =")
        values: list[exp.Expr] = []
        if self._match(TokenType.DEFAULT) or (
            name == "timezone" and self._match_text_seq("LOCAL")
        ):
            return x.SetVariable(this=name, expressions=[], local=local)
        values.append(exp.Literal.string(self._setting_value()))
        while self._match(TokenType.COMMA):
            values.append(exp.Literal.string(self._setting_value()))
        return x.SetVariable(this=name, expressions=values, local=local)

    def _parse_reset_statement(self) -> exp.Expr:
        if self._match_text_seq("TIME", "ZONE"):
            return x.Reset(this="timezone")
        if self._match_text_seq("SESSION", "AUTHORIZATION"):
            return x.Reset(this="session_authorization")
        return x.Reset(this=self._name())

    def _parse_begin_statement(self) -> exp.Expr:
        self._match_text_seq("WORK") or self._match_text_seq("TRANSACTION")
        isolation, read_only = self._transaction_modes()
        return x.Begin(isolation=isolation, read_only=read_only)

    def _parse_start_statement(self) -> exp.Expr:
        if not self._match_text_seq("TRANSACTION"):
            self.raise_error("Expected TRANSACTION")
        isolation, read_only = self._transaction_modes()
        return x.Begin(isolation=isolation, read_only=read_only)

    def _chain(self) -> bool:
        if self._match_text_seq("AND", "NO", "CHAIN"):
            return False
        return bool(self._match_text_seq("AND", "CHAIN"))

    def _parse_commit_statement(self) -> exp.Expr:
        if self._match_text_seq("PREPARED"):
            return x.FinishPrepared(this=self._string(), commit=True)
        self._match_text_seq("WORK") or self._match_text_seq("TRANSACTION")
        return x.CommitTransaction(chain=self._chain())

    def _parse_rollback_statement(self) -> exp.Expr:
        if self._match_text_seq("PREPARED"):
            return x.FinishPrepared(this=self._string(), commit=False)
        self._match_text_seq("WORK") or self._match_text_seq("TRANSACTION")
        if self._match_text_seq("TO"):
            self._match_text_seq("SAVEPOINT")
            return x.RollbackToSavepoint(this=self._name())
        return x.RollbackTransaction(chain=self._chain())

    def _parse_savepoint_statement(self) -> exp.Expr:
        return x.Savepoint(this=self._name())

    def _parse_release_statement(self) -> exp.Expr:
        self._match_text_seq("SAVEPOINT")
        return x.ReleaseSavepoint(this=self._name())

    def _parse_declare_statement(self) -> exp.Expr:
        name = self._name()
        binary = hold = scroll = False
        while self._curr and self._peek_word() != "CURSOR":
            word = self._word()
            if word == "BINARY":
                binary = True
            elif word == "SCROLL":
                scroll = True
            elif word == "NO" and self._match_text_seq("SCROLL"):
                scroll = False
            elif word not in ("INSENSITIVE", "ASENSITIVE"):
                self.raise_error("Unexpected cursor option", self._prev)
        if not self._match_text_seq("CURSOR"):
            self.raise_error("Expected CURSOR")
        if self._match_text_seq("WITH", "HOLD"):
            hold = True
        else:
            self._match_text_seq("WITHOUT", "HOLD")
        if not self._match(TokenType.FOR):
            self.raise_error("Expected FOR")
        query = self._parse_select()
        if query is None:
            self.raise_error("Expected a query")
        return x.DeclareCursor(this=name, expression=query, binary=binary, hold=hold,
                               scroll=scroll)

    def _fetch_count(self) -> int | None:
        """FETCH/MOVE count: None means ALL."""
        if self._match(TokenType.ALL):
            return None
        negative = self._match(TokenType.DASH)
        if self._match(TokenType.NUMBER):
            value = int(self._prev.text)
            return -value if negative else value
        return 1

    def _parse_fetch_like(self, move: bool) -> exp.Expr:
        direction = "forward"
        count: int | None = 1
        word = self._peek_word()
        if word in ("NEXT", "PRIOR", "FIRST", "LAST"):
            self._advance()
            direction = word.lower()
        elif word in ("FORWARD", "BACKWARD"):
            self._advance()
            direction = word.lower()
            if self._peek_word() not in ("FROM", "IN") and self._curr and (
                self._curr.token_type in (TokenType.NUMBER, TokenType.ALL, TokenType.DASH)
            ):
                count = self._fetch_count()
        elif word in ("ABSOLUTE", "RELATIVE"):
            self._advance()
            direction = word.lower()
            count = self._fetch_count()
        elif self._curr and self._curr.token_type in (
            TokenType.NUMBER, TokenType.ALL, TokenType.DASH
        ):
            count = self._fetch_count()
        self._match_text_seq("FROM") or self._match_text_seq("IN")
        return x.Fetch(this=self._name(), count=count, move=move, direction=direction)

    def _parse_fetch_statement(self) -> exp.Expr:
        return self._parse_fetch_like(move=False)

    def _parse_move_statement(self) -> exp.Expr:
        return self._parse_fetch_like(move=True)

    def _parse_close_statement(self) -> exp.Expr:
        if self._match(TokenType.ALL):
            return x.CloseCursor(this=None)
        return x.CloseCursor(this=self._name())

    def _parse_discard_statement(self) -> exp.Expr:
        return x.Discard(this=self._name())

    def _parse_prepare_statement(self) -> exp.Expr:
        if self._peek_word() == "TRANSACTION" and self._next and (
                self._next.token_type == TokenType.STRING):
            self._advance()
            return x.PrepareTransaction(this=self._string())
        name = self._name()
        types: list[exp.Expr] = []
        if self._match(TokenType.L_PAREN):
            types = self._parse_csv(self._parse_types)  # type: ignore[arg-type]
            self._match_r_paren()
        if not self._match(TokenType.ALIAS):
            self.raise_error("Expected AS")
        statement = self._parse_statement()
        return x.Prepare(this=name, types=types, expression=statement)

    def _parse_execute_statement(self) -> exp.Expr:
        name = self._name()
        args: list[exp.Expr] = []
        if self._match(TokenType.L_PAREN):
            args = self._parse_csv(self._parse_assignment)  # type: ignore[arg-type]
            self._match_r_paren()
        return x.ExecutePrepared(this=name, expressions=args)

    def _parse_deallocate_statement(self) -> exp.Expr:
        self._match_text_seq("PREPARE")
        if self._match(TokenType.ALL):
            return x.Deallocate(this=None)
        return x.Deallocate(this=self._name())

    def _parse_maintenance_statement(self) -> exp.Expr:
        verb = self._prev.text.upper()
        while self._curr:
            self._advance()
        return x.Maintenance(this=verb)

    def _parse_listen_statement(self) -> exp.Expr:
        return x.Listen(this=self._identifier())

    def _parse_unlisten_statement(self) -> exp.Expr:
        if self._match(TokenType.STAR):
            return x.Unlisten(this=None)
        return x.Unlisten(this=self._identifier())

    def _parse_notify_statement(self) -> exp.Expr:
        channel = self._identifier()
        payload: str | None = None
        if self._match(TokenType.COMMA):
            if not self._match_set(_STRING_CONSTANTS):
                self.raise_error("Expected a string literal")
            payload = self._prev.text
        return x.Notify(this=channel, payload=payload)

    def _parse_copy_statement(self) -> exp.Expr:
        if self._match(TokenType.L_PAREN):
            source: exp.Expr | None = self._parse_statement()
            self._match_r_paren()
            columns: list[str] = []
        else:
            parts = [self._name()]
            while self._match(TokenType.DOT):
                parts.append(self._name())
            source = exp.table_(parts[-1], db=parts[-2] if len(parts) > 1 else None,
                                quoted=True)
            columns = []
            if self._match(TokenType.L_PAREN):
                columns.append(self._name())
                while self._match(TokenType.COMMA):
                    columns.append(self._name())
                self._match_r_paren()
        if self._match(TokenType.FROM):
            to = False
        elif self._match_text_seq("TO"):
            to = True
        else:
            self.raise_error("Expected FROM or TO")
            to = False
        if self._match_text_seq("STDIN") or self._match_text_seq("STDOUT"):
            target: str | None = None
        elif self._match(TokenType.STRING):
            target = self._prev.text
        else:
            self.raise_error("Expected STDIN, STDOUT or a file name")
            target = None
        options = self._copy_options()
        where = self._parse_where()
        if where is not None and to:
            self._unsupported("WHERE clause not allowed with COPY TO", self._prev)
        if where is not None and where.find(exp.Query):
            self._unsupported("cannot use subquery in COPY FROM WHERE condition", self._prev)
        return x.CopyStatement(this=source, columns=columns, to=to, target=target,
                               options=options, where=where)

    def _copy_options(self) -> dict[str, object]:
        options: dict[str, object] = {}
        self._match(TokenType.WITH)
        if self._match(TokenType.L_PAREN):
            while True:
                key = self._name().lower()
                value: object = "true"
                if self._curr and self._curr.token_type not in (
                    TokenType.COMMA, TokenType.R_PAREN
                ):
                    if self._match(TokenType.L_PAREN):
                        names = [self._name()]
                        while self._match(TokenType.COMMA):
                            names.append(self._name())
                        self._match_r_paren()
                        value = names
                    elif self._match(TokenType.STAR):
                        value = "*"
                    else:
                        value = self._setting_value()
                options[key] = value
                if not self._match(TokenType.COMMA):
                    break
            self._match_r_paren()
            return options
        while self._curr and self._curr.token_type != TokenType.WHERE:
            word = self._word() or ""
            if word in _COPY_WORD_OPTIONS:
                key, value = _COPY_WORD_OPTIONS[word]
                options[key] = value
            elif word in _COPY_VALUE_OPTIONS:
                self._match(TokenType.ALIAS)
                options[_COPY_VALUE_OPTIONS[word]] = self._setting_value()
            elif word == "FORCE":
                negated = self._match_text_seq("NOT", "NULL")
                if not negated and not self._match_text_seq("QUOTE"):
                    self.raise_error("Expected QUOTE or NOT NULL")
                names = [self._name()]
                while self._match(TokenType.COMMA):
                    names.append(self._name())
                options["force_not_null" if negated else "force_quote"] = names
            else:
                self.raise_error("Unexpected COPY option", self._prev)
        return options

    # --- dataflow statements ----------------------------------------------------

    def _parse_create_stream(self) -> exp.Expr:
        exists = self._parse_exists(not_=True)
        schema = self._parse_schema(this=self._object_name())
        if not isinstance(schema, exp.Schema):
            self.raise_error("Expected a column list")
        partition = self._parse_partitioned_by() if self._match(TokenType.PARTITION_BY) else None
        return x.CreateStream(this=schema, partition=partition, options=self._stream_options(),
                              exists=exists)

    def _stream_options(self) -> dict[str, str]:
        """WITH (name [= value], ...); a name alone means 'true', as in PostgreSQL."""
        options: dict[str, str] = {}
        if not self._match(TokenType.WITH):
            return options
        self._match_l_paren()
        while True:
            key = self._identifier()
            options[key] = self._setting_value() if self._match(TokenType.EQ) else "true"
            if not self._match(TokenType.COMMA):
                break
        self._match_r_paren()
        return options

    def _parse_create_window(self) -> exp.Expr:
        name = self._object_name()
        self._expect("ON")
        stream = self._object_name()
        rows = self._match(TokenType.ROWS)
        if not rows and not self._match(TokenType.RANGE):
            self.raise_error("Expected ROWS or RANGE")
        size = self._required(self._parse_bitwise(), "a window size")
        slide = (self._required(self._parse_bitwise(), "a slide")
                 if self._match_text_seq("SLIDE") else None)
        partition = None
        if self._match(TokenType.PARTITION_BY):
            if not rows:
                self.raise_error("PARTITION BY is only valid for ROWS windows", self._prev)
            partition = self._identifier()
        column = None
        if not rows:
            self._expect("ON")
            column = self._identifier()
        return x.CreateWindow(this=name, stream=stream, rows=rows, size=size, slide=slide,
                              column=column, partition=partition)

    def _parse_create_procedure(self) -> exp.Expr:
        name = self._object_name()
        self._match_l_paren()
        params = self._procedure_params()
        language: str | None = None
        body: str | None = None
        atomic = False
        # LANGUAGE may come before or after the body, as in PostgreSQL.
        while True:
            if language is None and self._match_text_seq("LANGUAGE"):
                language = self._identifier()
            elif body is None and self._match(TokenType.ALIAS):
                body = self._quoted_body()
            elif body is None and self._match_text_seq("BEGIN", "ATOMIC"):
                body = self._atomic_body()
                atomic = True
            else:
                break
        if body is None:
            self.raise_error("Expected AS or BEGIN ATOMIC")
        if atomic and language not in (None, "sql"):
            raise errors.InvalidFunctionDefinition(
                "inline SQL function body only valid for language SQL")
        if language is None and not atomic:
            raise errors.InvalidFunctionDefinition("no language specified")
        return x.CreateProcedure(this=name, expressions=params, language=language or "sql",
                                 body=body, atomic=atomic)

    def _closed_list(self, item: Callable[[], E | None], what: str) -> list[E]:
        """The items of a list after its opening parenthesis, and the closing
        parenthesis: no items, or ``what`` at each comma."""
        if self._match(TokenType.R_PAREN):
            return []
        items = self._parse_csv(lambda: self._required(item(), what))
        self._match_r_paren()
        return items

    def _procedure_params(self) -> list[exp.Expr]:
        return self._closed_list(self._procedure_param, "a parameter")

    def _procedure_param(self) -> exp.Expr:
        mode = self._curr
        if self._match_texts(("OUT", "INOUT", "VARIADIC")):
            self._unsupported(f"{mode.text.upper()} parameters are not supported", mode)
        self._match(TokenType.IN)
        # "[name] type": a type alone is followed by the end of the parameter,
        # otherwise what was read as a (user-defined) type was the name.
        start = self._index
        name: str | None = None
        kind = self._parse_types()
        if self._curr.token_type not in (TokenType.COMMA, TokenType.R_PAREN, TokenType.DEFAULT,
                                         TokenType.EQ):
            self._retreat(start)
            name = self._identifier()
            kind = self._parse_types()
        default = (self._parse_assignment()
                   if self._match(TokenType.DEFAULT) or self._match(TokenType.EQ) else None)
        return x.ProcedureParam(this=name, kind=self._required(kind, "a type"), default=default)

    def _quoted_body(self) -> str:
        """The statements of a procedure or trigger as a string literal."""
        if not self._match_set((TokenType.STRING, TokenType.HEREDOC_STRING)):
            self.raise_error("Expected a string")
        return self._prev.text

    def _atomic_body(self) -> str:
        """The source text between ATOMIC and the END that closes the body
        (consumed here), without the surrounding whitespace. sqlext.sql.parse keeps
        the semicolons inside from splitting the statement."""
        atomic = self._prev
        end = atomic_body_end(self._tokens, self._index)
        if end is None:
            self._advance(self._tokens_size - self._index)
            self.raise_error("Expected END")
            return ""
        self._advance(end + 1 - self._index)
        return self.sql[atomic.end + 1:self._prev.start].strip()

    def _parse_create_trigger(self) -> exp.Expr:
        name = self._identifier()
        timing = self._curr
        if self._match_texts(("BEFORE", "INSTEAD")):
            self._unsupported(f"{timing.text.upper()} triggers are not supported", timing)
        self._expect("AFTER")
        event = self._curr
        if self._match_texts(_UNSUPPORTED_TRIGGER_EVENTS):
            self._unsupported(f"{event.text.upper()} triggers are not supported", event)
        if not self._match_texts(_TRIGGER_EVENTS):
            self.raise_error("Expected INSERT or SLIDE")
        if self._curr.token_type == TokenType.OR:
            self._unsupported("triggers on several events are not supported", self._curr)
        self._expect("ON")
        target = self._object_name()
        if self._match_text_seq("FOR"):
            self._match_text_seq("EACH")
            level = self._curr
            if self._match(TokenType.ROW):
                self._unsupported("FOR EACH ROW triggers are not supported", level)
            self._expect("STATEMENT")
        trigger = x.CreateTrigger(this=name, event=event.text.lower(), target=target)
        if self._match(TokenType.EXECUTE):
            if not self._match_set((TokenType.PROCEDURE, TokenType.FUNCTION)):
                self.raise_error("Expected PROCEDURE or FUNCTION")
            trigger.set("procedure", self._object_name())
            self._match_l_paren()
            if self._curr and self._curr.token_type != TokenType.R_PAREN:
                self._unsupported("trigger procedure arguments are not supported", self._curr)
            self._match_r_paren()
        elif self._match(TokenType.ALIAS):
            trigger.set("body", self._quoted_body())
        else:
            self.raise_error("Expected EXECUTE PROCEDURE or AS")
        return trigger

    def _parse_drop_dataflow(self) -> exp.Expr:
        kind = self._prev.text.lower()
        exists = self._parse_exists()

        def target() -> exp.Expr:
            name = self._object_name()
            # Accepted and ignored: procedure names are not overloaded and
            # trigger names are unique, so neither is needed to find the object.
            if kind == "procedure" and self._match(TokenType.L_PAREN):
                self._procedure_params()
            elif kind == "trigger" and self._match(TokenType.ON):
                self._object_name()
            return name

        names = self._parse_csv(target)
        cascade = self._match_text_seq("CASCADE")
        if not cascade:
            self._match_text_seq("RESTRICT")
        return x.DropDataflow(kind=kind, expressions=names, exists=exists, cascade=cascade)

    def _parse_alter_procedure(self) -> exp.Expr | None:
        name = self._object_name()
        return x.ResumeProcedure(this=name) if self._match_text_seq("RESUME") else None

    def _parse_refresh_statement(self) -> exp.Expr:
        self._expect("MATERIALIZED", "VIEW")
        self._match_text_seq("CONCURRENTLY")
        name = self._object_name()
        if self._match_text_seq("WITH", "NO", "DATA"):
            self._unsupported("WITH NO DATA is not supported", self._prev)
        self._match_text_seq("WITH", "DATA")
        return x.RefreshMatview(this=name)

    def _parse_explain_statement(self) -> exp.Expr:
        start = self._prev
        options = self._explain_options() if self._match(TokenType.L_PAREN) else []
        if self._match_text_seq("DATAFLOW"):
            return self._explain_dataflow(options)
        if options or not self._match_text_seq("MATERIALIZED", "VIEW"):
            self._unsupported("EXPLAIN is supported for dataflows and materialized views only",
                              start)
        return x.ExplainMatview(this=self._object_name())

    def _explain_options(self) -> list[tuple[Token, str | None]]:
        """``(name [value], ...)`` after EXPLAIN: each option's name token and value."""
        options: list[tuple[Token, str | None]] = []
        while True:
            token = self._curr
            if not token or token.token_type in (TokenType.COMMA, TokenType.R_PAREN):
                self.raise_error("Expected an EXPLAIN option")
                return options
            self._advance()
            value = None
            if self._curr and self._curr.token_type not in (TokenType.COMMA,
                                                            TokenType.R_PAREN):
                value = self._setting_value()
            options.append((token, value))
            if not self._match(TokenType.COMMA):
                break
        if not self._match(TokenType.R_PAREN):
            self.raise_error("Expected )")
        return options

    def _explain_dataflow(self, options: list[tuple[Token, str | None]]) -> exp.Expr:
        output = "text"
        for token, value in options:
            name = token.text.lower()
            if name in _EXPLAIN_OPTIONS:
                self._unsupported(f"EXPLAIN option {name.upper()} is not supported for "
                                  "dataflows", token)
            if name != "format":
                raise errors.SqlSyntaxError(f'unrecognized EXPLAIN option "{name}"',
                                            position=token.start + 1)
            if value is None:
                raise errors.SqlSyntaxError("format requires a parameter",
                                            position=token.start + 1)
            if value.lower() not in _DATAFLOW_FORMATS:
                raise errors.InvalidParameterValue(
                    f'unrecognized value for EXPLAIN option "format": "{value}"',
                    hint="EXPLAIN DATAFLOW shows the graph as TEXT, JSON or DOT.",
                    position=token.start + 1)
            output = value.lower()
        statement = x.ExplainDataflow(format=output)
        if self._curr and self._curr.token_type != TokenType.SEMICOLON:
            statement.set("this", self._object_name())
            if self._match(TokenType.L_PAREN):
                if not self._match(TokenType.R_PAREN):
                    self.raise_error("Expected )")
                statement.set("procedure", True)
        return statement

    # --- roles and privileges -----------------------------------------------------

    def _parse_create_role(self) -> exp.Expr:
        user = self._prev.text.upper() == "USER"
        name = self._role_id()
        return x.CreateRole(this=name, options=self._role_options(creating=True), user=user)

    def _parse_alter_role(self) -> exp.Expr:
        start = self._index
        name = self._role_spec()
        if self._match_text_seq("RENAME", "TO"):
            self._retreat(start)
            name = self._role_id()
            self._expect("RENAME", "TO")
            return x.AlterRole(this=name, rename=self._role_id())
        return x.AlterRole(this=name, options=self._role_options())

    def _role_id(self) -> str:
        """A role's name where CURRENT_USER and the like may not stand."""
        token = self._curr
        if token and token.token_type != TokenType.IDENTIFIER and token.text.upper() in (
                "CURRENT_USER", "SESSION_USER", "CURRENT_ROLE"):
            raise errors.ReservedName(f"{token.text.upper()} cannot be used as a role name here",
                                      position=token.start + 1)
        return self._name()

    def _parse_drop_role(self) -> exp.Expr:
        exists = self._parse_exists()
        names = self._parse_csv(self._name)
        return x.DropRole(expressions=names, exists=exists)

    def _role_options(self, creating: bool = False) -> dict[str, object]:
        options: dict[str, object] = {}
        self._match(TokenType.WITH)
        while self._curr:
            token = self._curr
            word = self._word() or ""
            if word in _ROLE_FLAGS:
                options[_ROLE_FLAGS[word]] = True
            elif word.startswith("NO") and word[2:] in _ROLE_FLAGS:
                options[_ROLE_FLAGS[word[2:]]] = False
            elif word in _ROLE_DEFAULTS:
                continue
            elif word in ("PASSWORD", "ENCRYPTED"):
                if word == "ENCRYPTED":
                    self._expect("PASSWORD")
                options["password"] = None if self._match(TokenType.NULL) else self._string()
            elif word == "CONNECTION":
                self._expect("LIMIT")
                options["connection_limit"] = self._integer()
            elif creating and word in _ROLE_MEMBERS:
                if word == "IN" and not (self._match_text_seq("ROLE")
                                         or self._match_text_seq("GROUP")):
                    self.raise_error("Expected ROLE", token)
                options[_ROLE_MEMBERS[word]] = self._parse_csv(self._role_id)
            elif word in _ROLE_UNSUPPORTED:
                self._unsupported(f"role option {word} is not supported", token)
            else:
                self.raise_error(f"Unrecognized role option {token.text}", token)
        return options

    def _string(self) -> str:
        token = self._curr
        if not token or token.token_type != TokenType.STRING:
            self.raise_error("Expected a string")
            return ""
        self._advance()
        return token.text

    def _integer(self) -> int:
        negative = self._match(TokenType.DASH)
        token = self._curr
        if not token or token.token_type != TokenType.NUMBER or not token.text.isdigit():
            self.raise_error("Expected an integer")
            return 0
        self._advance()
        return -int(token.text) if negative else int(token.text)

    def _parse_grant_statement(self) -> exp.Expr:
        return self._grant(revoke=False, option=False)

    def _parse_revoke_statement(self) -> exp.Expr:
        if self._match_text_seq("GRANT", "OPTION", "FOR"):
            return self._grant(revoke=True, option=True)
        if self._match_text_seq("ADMIN", "OPTION", "FOR"):
            return self._grant(revoke=True, option=True, roles=True)
        return self._grant(revoke=True, option=False)

    def _grant(self, revoke: bool, option: bool, roles: bool = False) -> exp.Expr:
        """GRANT and REVOKE: of privileges (... ON objects) or of roles."""
        items = self._privilege_list()
        if roles or not self._match_text_seq("ON"):
            return self._grant_roles(items, revoke, option)
        grant = x.GrantPrivileges(privileges=[(name, columns) for _, name, columns in items],
                                  revoke=revoke, option=option)
        kind_token = self._curr
        if self._match_set((TokenType.PROCEDURE, TokenType.FUNCTION)) or self._match_text_seq(
                "ROUTINE"):
            grant.set("kind", "procedure")
        elif self._match_text_seq("SCHEMA"):
            grant.set("kind", "schema")
        else:
            grant.set("kind", "table")
            self._match_set((TokenType.TABLE,)) or self._match_text_seq("STREAM")
        if grant.args["kind"] != "schema" and self._match(TokenType.ALL):
            word = self._word()
            if word not in ("TABLES", "PROCEDURES", "FUNCTIONS", "ROUTINES"):
                self.raise_error("Expected TABLES or PROCEDURES")
            grant.set("kind", "table" if word == "TABLES" else "procedure")
            self._expect("IN", "SCHEMA")
            grant.set("schemas", self._parse_csv(self._name))
        elif grant.args["kind"] == "schema":
            grant.set("expressions", self._parse_csv(self._name))
        else:
            if kind_token and kind_token.text.upper() in ("DATABASE", "SEQUENCE"):
                self._unsupported(f"privileges on a {kind_token.text.lower()} are not "
                                  "supported", kind_token)
            grant.set("expressions", self._parse_csv(self._grant_object))
        self._expect("FROM" if revoke else "TO")
        grant.set("grantees", self._parse_csv(self._role_spec))
        if not revoke and self._match_text_seq("WITH", "GRANT", "OPTION"):
            grant.set("option", True)
        grant.set("granted_by", self._granted_by())
        if revoke:
            grant.set("cascade", self._drop_behavior())
        return grant

    def _privilege_list(self) -> list[tuple[Token, str, list[str] | None]]:
        """ALL [PRIVILEGES] or names, each with its column list (the names
        may turn out to be roles'): (token, name, columns) triples."""
        items: list[tuple[Token, str, list[str] | None]] = []
        while True:
            token = self._curr
            if token is None:
                self.raise_error("Expected a privilege or a role")
                return items
            if self._match(TokenType.ALL):
                self._match_text_seq("PRIVILEGES")
                name = "ALL"
            else:
                name = self._name()
                if token.token_type != TokenType.IDENTIFIER:
                    name = name.upper() if token.text.upper() in _PRIVILEGE_WORDS else name
            columns = self._closed_list(self._name, "a column") if self._match(
                TokenType.L_PAREN) else None
            items.append((token, name, columns))
            if name == "ALL" or not self._match(TokenType.COMMA):
                return items

    def _grant_roles(self, items: list[tuple[Token, str, list[str] | None]], revoke: bool,
                     admin: bool) -> exp.Expr:
        for token, name, columns in items:
            if name == "ALL":
                self.raise_error("Expected ON", token)
            if columns is not None:
                raise errors.InvalidGrantOperation(
                    "column names cannot be included in GRANT/REVOKE ROLE")
        self._expect("FROM" if revoke else "TO")
        grant = x.GrantRoles(expressions=[_role_name(token, name) for token, name, _ in items],
                             grantees=self._parse_csv(self._role_spec), revoke=revoke,
                             admin=admin)
        if not revoke and self._match_text_seq("WITH", "ADMIN", "OPTION"):
            grant.set("admin", True)
        grant.set("granted_by", self._granted_by())
        if revoke:
            self._drop_behavior()
        return grant

    def _granted_by(self) -> str | None:
        return self._role_spec() if self._match_text_seq("GRANTED", "BY") else None

    def _drop_behavior(self) -> bool:
        """[CASCADE | RESTRICT]: whether CASCADE."""
        if self._match_text_seq("CASCADE"):
            return True
        self._match_text_seq("RESTRICT")
        return False

    def _grant_object(self) -> exp.Expr:
        name = self._object_name()
        if self._match(TokenType.L_PAREN):  # a procedure's argument types: not needed
            self._procedure_params()
        return name

    def _role_spec(self) -> str:
        """A role, PUBLIC, CURRENT_USER, SESSION_USER or CURRENT_ROLE
        (``catalog.roles`` spells the last three)."""
        token = self._curr
        if token and token.token_type in (TokenType.CURRENT_USER, TokenType.SESSION_USER):
            self._advance()
            return SESSION_USER if token.token_type == TokenType.SESSION_USER else CURRENT_USER
        if token and token.token_type != TokenType.IDENTIFIER and token.text.upper() in (
                "CURRENT_ROLE", "CURRENT_USER", "SESSION_USER"):
            self._advance()
            return SESSION_USER if token.text.upper() == "SESSION_USER" else CURRENT_USER
        name = self._name()
        return PUBLIC_GRANTEE if name == "public" else name

    def _parse_call_statement(self) -> exp.Expr:
        name = self._object_name()
        self._match_l_paren()
        args = self._closed_list(self._parse_assignment, "an argument")
        return x.Call(this=name, expressions=args)


def _role_name(token: Token, name: str) -> str:
    """A name read by ``_privilege_list`` taken as a role's."""
    return name if token.token_type in (TokenType.IDENTIFIER, TokenType.STRING) else name.lower()


SqlExtParser.UTILITY_PARSERS = {
    "SHOW": SqlExtParser._parse_show_statement,
    "SET": SqlExtParser._parse_set_statement,
    "RESET": SqlExtParser._parse_reset_statement,
    "BEGIN": SqlExtParser._parse_begin_statement,
    "START": SqlExtParser._parse_start_statement,
    "COMMIT": SqlExtParser._parse_commit_statement,
    "END": SqlExtParser._parse_commit_statement,
    "ROLLBACK": SqlExtParser._parse_rollback_statement,
    "ABORT": SqlExtParser._parse_rollback_statement,
    "SAVEPOINT": SqlExtParser._parse_savepoint_statement,
    "RELEASE": SqlExtParser._parse_release_statement,
    "DECLARE": SqlExtParser._parse_declare_statement,
    "FETCH": SqlExtParser._parse_fetch_statement,
    "MOVE": SqlExtParser._parse_move_statement,
    "CLOSE": SqlExtParser._parse_close_statement,
    "DISCARD": SqlExtParser._parse_discard_statement,
    "PREPARE": SqlExtParser._parse_prepare_statement,
    "EXECUTE": SqlExtParser._parse_execute_statement,
    "DEALLOCATE": SqlExtParser._parse_deallocate_statement,
    "COPY": SqlExtParser._parse_copy_statement,
    "LISTEN": SqlExtParser._parse_listen_statement,
    "UNLISTEN": SqlExtParser._parse_unlisten_statement,
    "NOTIFY": SqlExtParser._parse_notify_statement,
    "VACUUM": SqlExtParser._parse_maintenance_statement,
    "ANALYZE": SqlExtParser._parse_maintenance_statement,
    "CHECKPOINT": SqlExtParser._parse_maintenance_statement,
    "CALL": SqlExtParser._parse_call_statement,
    "REFRESH": SqlExtParser._parse_refresh_statement,
    "EXPLAIN": SqlExtParser._parse_explain_statement,
    "GRANT": SqlExtParser._parse_grant_statement,
    "REVOKE": SqlExtParser._parse_revoke_statement,
    "LOCK": SqlExtParser._parse_lock_statement,
    "COMMENT": SqlExtParser._parse_comment_statement,
}

SqlExtParser.DATAFLOW_PARSERS = {
    ("CREATE", "STREAM"): SqlExtParser._parse_create_stream,
    ("CREATE", "WINDOW"): SqlExtParser._parse_create_window,
    ("CREATE", "PROCEDURE"): SqlExtParser._parse_create_procedure,
    ("CREATE", "TRIGGER"): SqlExtParser._parse_create_trigger,
    **{("DROP", kind): SqlExtParser._parse_drop_dataflow
       for kind in ("STREAM", "WINDOW", "PROCEDURE", "TRIGGER")},
    ("ALTER", "PROCEDURE"): SqlExtParser._parse_alter_procedure,
    **{("CREATE", kind): SqlExtParser._parse_create_role for kind in ("ROLE", "USER")},
    **{("ALTER", kind): SqlExtParser._parse_alter_role for kind in ("ROLE", "USER")},
    **{("DROP", kind): SqlExtParser._parse_drop_role for kind in ("ROLE", "USER")},
    **{("ALTER", kind): SqlExtParser._parse_alter_object
       for kind in ("TABLE", "VIEW", "SEQUENCE", "INDEX", "SCHEMA", "MATERIALIZED")},
    ("CREATE", "EXTENSION"): SqlExtParser._parse_create_extension,
}
