"""The sqlext SQL dialect: sqlglot's PostgreSQL dialect with our tokenizer,
parser and generator (``tokenizer``, ``parser``, ``generator``), registered
with sqlglot as ``sqlext``."""

from __future__ import annotations

from sqlglot.dialects.postgres import Postgres

from sqlext.sql.generator import SqlExtGenerator
from sqlext.sql.parser import SqlExtParser
from sqlext.sql.tokenizer import SqlExtTokenizer


class SqlExt(Postgres):
    """Registered with sqlglot under the name ``sqlext``."""

    Tokenizer = SqlExtTokenizer
    Parser = SqlExtParser
    Generator = SqlExtGenerator
