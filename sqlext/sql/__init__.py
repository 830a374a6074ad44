"""The SQL surface: text to statement trees and back.

``dialect`` is sqlglot's PostgreSQL dialect extended with sqlext's
statements, in three stages (``tokenizer``, ``parser``, ``generator``),
``nodes`` the statement nodes sqlglot lacks, ``parse`` the one
entry point (cached per text), ``sqlite_dialect`` prints translated trees as
SQLite SQL, ``settings`` the run-time parameters (SET / SHOW).

May import: ``catalog``.
"""
