"""Parsing the statements pg_dump writes and reads besides CREATE TABLE and
COPY: LOCK TABLE, COMMENT ON, ALTER ... OWNER TO, ALTER SEQUENCE ... OWNED
BY, ALTER TABLE ... ADD GENERATED AS IDENTITY, CREATE EXTENSION, the WITH
[NO] DATA of CREATE MATERIALIZED VIEW and INSERT's OVERRIDING SYSTEM VALUE.

``ObjectStatementParser`` sits between sqlglot's PostgreSQL parser and the
dialect's (``sqlext.sql.parser``), which registers these methods in its
tables. An ALTER that is none of these leaves the tokens untouched
(returns None), for sqlglot's own ALTER TABLE parsing.
"""

from __future__ import annotations

from typing import Final

from sqlglot import exp
from sqlglot.parsers.postgres import PostgresParser
from sqlglot.tokens import TokenType

from catalog import errors
from sqlext.sql import nodes as x

LOCK_MODES: Final = ("ACCESS SHARE", "ROW SHARE", "ROW EXCLUSIVE", "SHARE UPDATE EXCLUSIVE",
                     "SHARE ROW EXCLUSIVE", "SHARE", "EXCLUSIVE", "ACCESS EXCLUSIVE")
"""PostgreSQL's table lock modes, longest spellings first where one starts another."""

OVERRIDING: Final = "overriding_system_value"
"""The ``meta`` key of an INSERT target followed by OVERRIDING SYSTEM VALUE:
values for GENERATED ALWAYS identity columns are taken."""
_COMMENT_KINDS: Final = ("TABLE", "VIEW", "INDEX", "SEQUENCE", "COLUMN", "SCHEMA", "EXTENSION")
_OWNED_KINDS: Final = ("TABLE", "VIEW", "SEQUENCE", "INDEX", "SCHEMA")


class ObjectStatementParser(PostgresParser):
    """The statements above; the dialect's parser supplies ``_role_spec``."""

    def _role_spec(self) -> str:
        """A role specification (the dialect's parser reads these)."""
        raise NotImplementedError

    def _qualified_name(self) -> exp.Table:
        name = self._parse_table_parts(schema=True)
        if not isinstance(name, exp.Table) or not name.name:
            self.raise_error("Expected a name")
        return name

    def _string_or_null(self) -> str | None:
        if self._match(TokenType.NULL):
            return None
        if not self._match_set((TokenType.STRING, TokenType.HEREDOC_STRING)):
            self.raise_error("Expected a string literal or NULL")
        return self._prev.text

    def _parse_ddl_select(self) -> exp.Expr | None:
        """The query of CREATE ... AS, and the WITH [NO] DATA that may end a
        materialized view's (pg_dump writes WITH NO DATA, then REFRESH):
        sqlext makes and keeps every materialized view populated either way."""
        query = super()._parse_ddl_select()
        index = self._index
        if self._match(TokenType.WITH):
            self._match_text_seq("NO")
            if not self._match_text_seq("DATA") or (self._curr and self._curr.token_type not in (
                    TokenType.SEMICOLON, TokenType.SENTINEL)):
                self._retreat(index)
        return query

    def _parse_insert_table(self) -> exp.Expr | None:
        """INSERT's target, and the OVERRIDING SYSTEM VALUE that may follow
        its column list (kept in the target's ``meta``: ``OVERRIDING``)."""
        target = super()._parse_insert_table()
        token = self._curr
        if target is not None and self._match_text_seq("OVERRIDING"):
            if self._match_text_seq("USER", "VALUE"):
                raise errors.FeatureNotSupported(
                    "OVERRIDING USER VALUE is not supported",
                    position=token.start + 1 if token is not None else None)
            if not self._match_text_seq("SYSTEM", "VALUE"):
                self.raise_error("Expected SYSTEM VALUE")
            target.meta[OVERRIDING] = True
        return target

    def _parse_lock_statement(self) -> exp.Expr:
        self._match(TokenType.TABLE)
        tables: list[exp.Table] = []
        while True:
            self._match(TokenType.ONLY)
            tables.append(self._qualified_name())
            self._match(TokenType.STAR)
            if not self._match(TokenType.COMMA):
                break
        mode = "ACCESS EXCLUSIVE"
        if self._match(TokenType.IN):
            for candidate in LOCK_MODES:
                if self._match_text_seq(*candidate.split()):
                    mode = candidate
                    break
            else:
                self.raise_error("Expected a lock mode")
            if not self._match_text_seq("MODE"):
                self.raise_error("Expected MODE")
        nowait = self._match_text_seq("NOWAIT")
        return x.LockTable(expressions=tables, mode=mode, nowait=nowait)

    def _parse_comment_statement(self) -> exp.Expr:
        if not self._match(TokenType.ON):
            self.raise_error("Expected ON")
        token = self._curr
        if self._match_text_seq("MATERIALIZED", "VIEW"):
            kind = "materialized view"
        elif token is not None and token.text.upper() in _COMMENT_KINDS:
            self._advance()
            kind = token.text.lower()
        else:
            shown = token.text.upper() if token is not None else ""
            raise errors.FeatureNotSupported(
                f"COMMENT ON {shown} is not supported",
                position=token.start + 1 if token is not None else None)
        column: str | None = None
        if kind in ("schema", "extension"):
            target = exp.Table(this=exp.to_identifier(self._identifier_text()))
        else:
            target = self._qualified_name()
            if kind == "column":
                if not target.db:
                    self.raise_error("column name must be qualified")
                column = target.name
                target = exp.Table(this=target.args["db"], db=target.args.get("catalog"))
        if not self._match(TokenType.IS):
            self.raise_error("Expected IS")
        return x.CommentOn(kind=kind, this=target, column=column, text=self._string_or_null())

    def _identifier_text(self) -> str:
        """A simple name, folded to lower case unless quoted."""
        identifier = self._parse_id_var(any_token=False)
        if not isinstance(identifier, exp.Identifier):
            self.raise_error("Expected a name")
            return ""
        return identifier.name if identifier.quoted else identifier.name.lower()

    def _parse_alter_object(self) -> exp.Expr | None:
        """ALTER TABLE|VIEW|SEQUENCE|INDEX|SCHEMA|MATERIALIZED VIEW name
        OWNER TO, ALTER SEQUENCE ... OWNED BY, ALTER TABLE ... ADD GENERATED
        AS IDENTITY; None for any other ALTER (the caller rewinds)."""
        kind = self._prev.text.upper()
        if kind == "MATERIALIZED":
            if not self._match(TokenType.VIEW):
                return None
            kind = "MATERIALIZED VIEW"
        self._match_text_seq("IF", "EXISTS")
        self._match(TokenType.ONLY)
        if kind == "SCHEMA":
            name = exp.Table(this=exp.to_identifier(self._identifier_text()))
        else:
            name = self._qualified_name()
        if self._match_text_seq("OWNER", "TO"):
            return x.AlterOwner(kind=kind.lower(), this=name, owner=self._role_spec())
        if kind == "SEQUENCE" and self._match_text_seq("OWNED", "BY"):
            if self._match_text_seq("NONE"):
                return x.AlterSequenceOwner(this=name, column=None)
            owner = self._qualified_name()
            column = exp.Column(this=owner.this, table=owner.args.get("db"),
                                db=owner.args.get("catalog"))
            return x.AlterSequenceOwner(this=name, column=column)
        if kind == "TABLE" and self._curr is not None and self._curr.token_type == (
                TokenType.ALTER):
            return self._parse_add_identity(name)
        return None

    def _parse_add_identity(self, table: exp.Table) -> exp.Expr | None:
        self._advance()
        self._match(TokenType.COLUMN)
        column = self._identifier_text()
        if not self._match_text_seq("ADD", "GENERATED"):
            return None
        always = self._match_text_seq("ALWAYS")
        if not always and not self._match_text_seq("BY", "DEFAULT"):
            self.raise_error("Expected ALWAYS or BY DEFAULT")
        if not self._match_text_seq("AS", "IDENTITY"):
            self.raise_error("Expected AS IDENTITY")
        node = x.AddIdentity(this=table, column=column, always=always)
        if self._match(TokenType.L_PAREN):
            while not self._match(TokenType.R_PAREN):
                self._identity_option(node)
        return node

    def _identity_option(self, node: x.AddIdentity) -> None:
        """One sequence option of ADD GENERATED AS IDENTITY (...): those that
        state PostgreSQL's defaults are accepted, others are 0A000."""
        token = self._curr
        if token is None:
            self.raise_error("Expected )")
            return
        if self._match_text_seq("SEQUENCE", "NAME"):
            node.set("sequence", self._qualified_name())
        elif self._match_text_seq("START"):
            self._match(TokenType.WITH)
            node.set("start", self._signed_number())
        elif self._match_text_seq("INCREMENT"):
            self._match_text_seq("BY")
            node.set("increment", self._signed_number())
        elif self._match_text_seq("NO", "MINVALUE") or self._match_text_seq(
                "NO", "MAXVALUE") or self._match_text_seq("NO", "CYCLE"):
            pass
        elif self._match_text_seq("CACHE"):
            if self._signed_number() != 1:
                raise errors.FeatureNotSupported("sequence caches are not supported",
                                                 position=token.start + 1)
        else:
            raise errors.FeatureNotSupported(
                f"sequence option {token.text.upper()} is not supported",
                position=token.start + 1)

    def _signed_number(self) -> int:
        negative = self._match(TokenType.DASH)
        if not self._match(TokenType.NUMBER):
            self.raise_error("Expected a number")
        return -int(self._prev.text) if negative else int(self._prev.text)

    def _parse_create_extension(self) -> exp.Expr:
        exists = self._match_text_seq("IF", "NOT", "EXISTS")
        name = self._identifier_text()
        self._match(TokenType.WITH)
        node = x.CreateExtension(this=name, exists=exists)
        while self._curr is not None:
            if self._match(TokenType.SCHEMA):
                node.set("schema", self._identifier_text())
            elif self._match_text_seq("VERSION"):
                if self._match_set((TokenType.STRING, TokenType.IDENTIFIER, TokenType.VAR)):
                    node.set("version", self._prev.text)
                else:
                    self.raise_error("Expected a version")
            elif self._match_text_seq("CASCADE"):
                node.set("cascade", True)
            else:
                break
        return node
