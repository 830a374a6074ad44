"""The statements of a procedure or EE-trigger body, parsed once they are
known to be statements a body may run."""

from __future__ import annotations

from sqlglot import exp

from catalog import errors
from sqlext.sql import nodes as x
from sqlext.sql.parse import parse

BODY_STATEMENTS = (exp.Query, exp.Insert, exp.Update, exp.Delete, x.Call, x.Notify)


def body_statements(body: str, what: str) -> tuple[exp.Expression, ...]:
    """The statements of a procedure or EE-trigger body."""
    statements = parse(body).statements
    for statement in statements:
        if not isinstance(statement, BODY_STATEMENTS):
            verb = statement.key.upper()
            raise errors.FeatureNotSupported(
                f"{verb} is not allowed in {what}",
                hint="Procedures and triggers run SELECT, INSERT, UPDATE, DELETE, CALL and "
                     "NOTIFY.")
    return statements
