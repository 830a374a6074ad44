"""Turning SQLite's errors into PostgreSQL's.

SQLite names the failed constraint by its columns ("UNIQUE constraint
failed: t.a, t.b") or, for CHECK, by constraint name; the catalog knows which
PostgreSQL constraint that is, so clients get PostgreSQL's SQLSTATE and
message ('duplicate key value violates unique constraint "t_pkey"').
"""

from __future__ import annotations

from catalog import errors
from catalog.schema import Catalog, Relation
from storage import sqlite


def _relation(catalog: Catalog, physical: str) -> Relation | None:
    for relation in catalog.relations.values():
        if relation.physical == physical and relation.kind == "r":
            return relation
    return None


def _unique(catalog: Catalog, detail: str) -> errors.SqlError:
    # detail: "t.a, t.b"
    qualified = [part.strip() for part in detail.split(",")]
    table = qualified[0].rsplit(".", 1)[0] if qualified else ""
    columns = tuple(part.rsplit(".", 1)[-1] for part in qualified)
    relation = _relation(catalog, table)
    name = f"{table}_{'_'.join(columns)}_key"
    if relation is not None:
        for constraint in relation.constraints:
            if constraint.kind in ("p", "u") and constraint.columns == columns:
                name = constraint.name
                break
        else:
            for index in catalog.indexes_of(relation):
                if index.unique and index.index_columns == columns:
                    name = index.name
                    break
    return errors.UniqueViolation(
        f'duplicate key value violates unique constraint "{name}"',
        detail=f"Key ({', '.join(columns)}) already exists.",
        **_names(relation, constraint=name),
    )


def _names(relation: Relation | None, **names: str) -> dict[str, str]:
    """The error fields naming the table (and column or constraint) an
    integrity error is about, as PostgreSQL sends them."""
    if relation is None:
        return {}
    return {"schema": relation.schema, "table": relation.name, **names}


def _not_null(catalog: Catalog, detail: str) -> errors.SqlError:
    table, _, column = detail.strip().rpartition(".")
    relation = _relation(catalog, table)
    shown = relation.name if relation else table
    return errors.NotNullViolation(
        f'null value in column "{column}" of relation "{shown}" violates not-null constraint',
        **_names(relation, column=column),
    )


def _check(catalog: Catalog, name: str, target: str | None) -> errors.SqlError:
    owner = next((relation for relation in catalog.relations.values()
                  if any(c.name == name and c.kind == "c" for c in relation.constraints)), None)
    relation_name = owner.name if owner else target or "?"
    return errors.CheckViolation(
        f'new row for relation "{relation_name}" violates check constraint "{name}"',
        **_names(owner, constraint=name),
    )


def _foreign_key(catalog: Catalog, target: str | None, verb: str | None) -> errors.SqlError:
    if target is not None:
        relation = catalog.relations.get(("public", target)) or _relation(catalog, target)
        if relation is not None and verb != "DELETE":
            for constraint in relation.constraints:
                if constraint.kind == "f":
                    return errors.ForeignKeyViolation(
                        f'insert or update on table "{relation.name}" violates foreign key '
                        f'constraint "{constraint.name}"',
                        **_names(relation, constraint=constraint.name),
                    )
        if relation is not None:
            for other in catalog.relations.values():
                for constraint in other.constraints:
                    if constraint.kind == "f" and constraint.ref_table == (
                        relation.schema, relation.name
                    ):
                        # PostgreSQL names the referencing table.
                        return errors.ForeignKeyViolation(
                            f'update or delete on table "{relation.name}" violates foreign '
                            f'key constraint "{constraint.name}" on table "{other.name}"',
                            **_names(other, constraint=constraint.name),
                        )
    return errors.ForeignKeyViolation("foreign key constraint violated")


def translate(
    exc: sqlite.Error, catalog: Catalog, target: str | None = None, verb: str | None = None
) -> errors.SqlError:
    """The PostgreSQL error for a SQLite error raised by a statement."""
    message = str(exc)
    name = sqlite.error_name(exc)
    if name == "SQLITE_CONSTRAINT_UNIQUE" or name == "SQLITE_CONSTRAINT_PRIMARYKEY":
        return _unique(catalog, message.partition(":")[2])
    if name == "SQLITE_CONSTRAINT_NOTNULL":
        return _not_null(catalog, message.partition(":")[2])
    if name == "SQLITE_CONSTRAINT_CHECK":
        return _check(catalog, message.partition(":")[2].strip(), target)
    if name == "SQLITE_CONSTRAINT_FOREIGNKEY" or "FOREIGN KEY constraint failed" in message:
        # DROP TABLE reports it with the plain SQLITE_CONSTRAINT code.
        return _foreign_key(catalog, target, verb)
    if name == "SQLITE_INTERRUPT":
        return errors.QueryCanceled("canceling statement due to user request")
    if name == "SQLITE_TOOBIG":
        return errors.ProgramLimitExceeded(message)
    if name == "SQLITE_NOMEM":
        return errors.SqlError("out of memory")
    if "no such table" in message:
        return errors.UndefinedTable(message.replace("no such table", "relation does not exist"))
    if "no such column" in message:
        return errors.UndefinedColumn(message.replace("no such column", "column does not exist"))
    if "no such function" in message:
        return errors.UndefinedFunction(
            message.replace("no such function", "function does not exist")
        )
    if "row value misused" in message:
        return errors.FeatureNotSupported("row values are not supported here")
    if "incomplete input" in message:
        return errors.SqlSyntaxError("syntax error at end of input")
    if "argument of ntile must be" in message:
        return errors.InvalidArgumentForNtileFunction("argument of ntile must be greater than zero")
    if "argument to nth_value must be" in message:
        return errors.InvalidArgumentForNthValueFunction(
            "argument of nth_value must be greater than zero")
    if message.startswith("error in view") and "after rename" in message:
        # A plain view names the column or table: SQLite cannot rewrite it.
        view = message.removeprefix("error in view ").partition(" after rename")[0]
        return errors.FeatureNotSupported(
            f"cannot rename a column or table that view {view} uses",
            hint="Drop the view, rename, then create the view again.")
    if "prohibited in" in message:
        # "subqueries prohibited in CHECK constraints": what PostgreSQL allows
        # there and SQLite does not.
        return errors.FeatureNotSupported(f"not supported by the storage engine: {message}")
    if "syntax error" in message or "near" in message:
        return errors.FeatureNotSupported(f"statement not supported by the storage engine: "
                                          f"{message}")
    if "ON CONFLICT clause does not match" in message:
        return errors.InvalidColumnReference(
            "there is no unique or exclusion constraint matching the ON CONFLICT specification")
    if "misuse of aggregate" in message:
        return errors.GroupingError(f"aggregate function calls are not allowed here ({message})")
    if "misuse of window function" in message:
        return errors.WindowingError(f"window functions are not allowed here ({message})")
    if "integer overflow" in message:
        return errors.NumericValueOutOfRange("integer out of range")
    return errors.InternalError(f"storage engine error: {message}")
