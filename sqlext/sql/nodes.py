"""Statement nodes sqlglot does not have (or parses too loosely for us):
session and transaction control, cursors, prepared statements, COPY.

Each node is registered in the dialect generator's TRANSFORMS so that
``node.sql(dialect="sqlext")`` prints canonical PostgreSQL text.
"""

from __future__ import annotations

from sqlglot import exp


class UtilityStatement(exp.Expression):
    """Base of our statement nodes."""


class Show(UtilityStatement):
    arg_types = {"this": True}


class SetVariable(UtilityStatement):
    """SET [LOCAL] name = value[, ...] | DEFAULT (``values`` empty for DEFAULT)."""

    arg_types = {"this": True, "expressions": False, "local": False}


class SetTransaction(UtilityStatement):
    """SET TRANSACTION ... / SET SESSION CHARACTERISTICS AS TRANSACTION ... /
    SET TRANSACTION SNAPSHOT 'id' (``snapshot``)."""

    arg_types = {"session": False, "isolation": False, "read_only": False, "snapshot": False}


class Reset(UtilityStatement):
    arg_types = {"this": True}


class Begin(UtilityStatement):
    arg_types = {"isolation": False, "read_only": False}


class CommitTransaction(UtilityStatement):
    arg_types = {"chain": False}


class RollbackTransaction(UtilityStatement):
    arg_types = {"chain": False}


class PrepareTransaction(UtilityStatement):
    """PREPARE TRANSACTION 'gid' (two-phase commit; ``this`` is the gid)."""

    arg_types = {"this": True}


class FinishPrepared(UtilityStatement):
    """COMMIT PREPARED 'gid' / ROLLBACK PREPARED 'gid'."""

    arg_types = {"this": True, "commit": True}


class Savepoint(UtilityStatement):
    arg_types = {"this": True}


class ReleaseSavepoint(UtilityStatement):
    arg_types = {"this": True}


class RollbackToSavepoint(UtilityStatement):
    arg_types = {"this": True}


class DeclareCursor(UtilityStatement):
    arg_types = {"this": True, "expression": True, "binary": False, "hold": False,
                 "scroll": False}


class Fetch(UtilityStatement):
    """FETCH / MOVE. ``count`` None means ALL; negative counts go backwards."""

    arg_types = {"this": True, "count": False, "move": False, "direction": False}


class CloseCursor(UtilityStatement):
    """CLOSE name | CLOSE ALL (``this`` None)."""

    arg_types = {"this": False}


class Discard(UtilityStatement):
    arg_types = {"this": True}


class Prepare(UtilityStatement):
    arg_types = {"this": True, "types": False, "expression": True}


class ExecutePrepared(UtilityStatement):
    arg_types = {"this": True, "expressions": False}


class Deallocate(UtilityStatement):
    """DEALLOCATE name | DEALLOCATE ALL (``this`` None)."""

    arg_types = {"this": False}


class CopyStatement(UtilityStatement):
    """COPY table [(columns)] | (query)  FROM|TO  STDIN|STDOUT|'file' [options]
    [WHERE condition] (FROM only)."""

    arg_types = {"this": True, "columns": False, "to": False, "target": False,
                 "options": False, "where": False}


class Maintenance(UtilityStatement):
    """VACUUM / ANALYZE: accepted and ignored (SQLite needs neither)."""

    arg_types = {"this": True}


class Listen(UtilityStatement):
    """LISTEN channel (``this``: the name, folded unless quoted)."""

    arg_types = {"this": True}


class Unlisten(UtilityStatement):
    """UNLISTEN channel | UNLISTEN * (``this`` None)."""

    arg_types = {"this": False}


class Notify(UtilityStatement):
    """NOTIFY channel [, 'payload'] (``payload`` None without one)."""

    arg_types = {"this": True, "payload": False}


# --- dataflow statements (streams, windows, procedures, triggers) -------------------


class DataflowDdl(exp.Expression):
    """Base of the schema changes that define dataflows."""


class CreateStream(DataflowDdl):
    """CREATE STREAM [IF NOT EXISTS] name (columns and constraints as in CREATE
    TABLE) [PARTITION BY HASH (column)] [WITH (option = 'value', ...)];
    ``this`` is an ``exp.Schema``, ``partition`` an ``exp.PartitionedByProperty``
    (as CREATE TABLE has it) and ``options`` a dict (empty without WITH) of
    option names, folded unless quoted, to string values (an option without
    a value is 'true')."""

    arg_types = {"this": True, "partition": False, "options": False, "exists": False}


class CreateWindow(DataflowDdl):
    """CREATE WINDOW name ON stream ROWS n [SLIDE m] [PARTITION BY column]
    | CREATE WINDOW name ON stream RANGE n [SLIDE m] ON column.

    ``this`` and ``stream`` are ``exp.Table``; ``rows`` is True for ROWS;
    ``size`` and ``slide`` are expressions (integer literals, or INTERVAL
    literals for RANGE windows on timestamps); ``slide`` None means 1;
    ``column`` is the RANGE column and ``partition`` the PARTITION BY column
    (names, folded to lower case unless quoted)."""

    arg_types = {"this": True, "stream": True, "rows": True, "size": True, "slide": False,
                 "column": False, "partition": False}


class ProcedureParam(exp.Expression):
    """[IN] [name] type [DEFAULT expr | = expr]; ``this`` is the name (str,
    folded unless quoted) or None, ``kind`` an ``exp.DataType``."""

    arg_types = {"this": False, "kind": True, "default": False}


class CreateProcedure(DataflowDdl):
    """CREATE [OR REPLACE] PROCEDURE name ([params]) LANGUAGE lang AS 'body'
    | ... BEGIN ATOMIC statements END. ``body`` is the source text of the
    statements (between the quotes, or between BEGIN ATOMIC and END without
    the surrounding whitespace); ``atomic`` says which form was used;
    ``language`` is the lower-case name ("sql" when BEGIN ATOMIC has none)."""

    arg_types = {"this": True, "expressions": False, "language": True, "body": True,
                 "atomic": False, "replace": False}


class CreateTrigger(DataflowDdl):
    """CREATE TRIGGER name AFTER INSERT|SLIDE ON relation
    (EXECUTE PROCEDURE|FUNCTION proc() | AS 'statements').

    ``this`` is the trigger name (str, folded unless quoted); ``event`` is
    "insert" or "slide"; ``target`` an ``exp.Table``; exactly one
    of ``procedure`` (an ``exp.Table``: a PE trigger) and ``body`` (SQL text: an
    EE trigger) is set."""

    arg_types = {"this": True, "event": True, "target": True, "procedure": False,
                 "body": False}


class DropDataflow(DataflowDdl):
    """DROP STREAM|WINDOW|TRIGGER|PROCEDURE [IF EXISTS] name[, ...]
    [CASCADE|RESTRICT]; ``kind`` is the lower-case object kind, ``expressions``
    the names as ``exp.Table``."""

    arg_types = {"kind": True, "expressions": True, "exists": False, "cascade": False}


class Call(UtilityStatement):
    """CALL name(args); ``this`` is an ``exp.Table``, ``expressions`` the
    argument expressions."""

    arg_types = {"this": True, "expressions": False}


class ExplainMatview(UtilityStatement):
    """EXPLAIN MATERIALIZED VIEW name: how the view is kept up to date."""

    arg_types = {"this": True}


class ExplainDataflow(UtilityStatement):
    """EXPLAIN [(FORMAT TEXT|JSON|DOT)] DATAFLOW [name | name()]: the dataflow
    graph (the part reachable from ``this``, an ``exp.Table``, when given)
    with live counts; ``format`` is "text", "json" or "dot"; ``procedure``
    is True for ``name()`` (a procedure, not a relation)."""

    arg_types = {"this": False, "format": True, "procedure": False}


class RefreshMatview(exp.Expression):
    """REFRESH MATERIALIZED VIEW [CONCURRENTLY] name: a schema statement
    (compiled like DDL, logged like one)."""

    arg_types = {"this": True}


class ResumeProcedure(UtilityStatement):
    """ALTER PROCEDURE name RESUME: a procedure stopped by a failed batch
    runs again from that batch."""

    arg_types = {"this": True}


# --- roles and privileges -----------------------------------------------------------


class RoleDdl(exp.Expression):
    """Base of the statements about roles and privileges (schema statements:
    compiled like DDL, logged like one)."""


class CreateRole(RoleDdl):
    """CREATE ROLE|USER name [[WITH] option ...]; ``options`` maps option
    names (superuser, login, createrole, createdb: bools; password: the string
    or None; connection_limit: int; in_role, role, admin: role names) to
    values; ``user`` is True for CREATE USER (LOGIN by default)."""

    arg_types = {"this": True, "options": True, "user": False}


class AlterRole(RoleDdl):
    """ALTER ROLE|USER name [[WITH] option ...] | ... RENAME TO new;
    ``options`` as for ``CreateRole``, ``rename`` the new name."""

    arg_types = {"this": True, "options": False, "rename": False}


class DropRole(RoleDdl):
    """DROP ROLE|USER [IF EXISTS] name [, ...]; ``expressions`` are names."""

    arg_types = {"expressions": True, "exists": False}


class GrantPrivileges(RoleDdl):
    """GRANT privileges ON objects TO roles [WITH GRANT OPTION] | REVOKE
    [GRANT OPTION FOR] privileges ON objects FROM roles [CASCADE].
    ``privileges`` are (upper-case name, column names or None) pairs, the
    name ALL for ALL [PRIVILEGES]; ``kind`` is 'table', 'procedure' or
    'schema'; ``expressions`` the objects as ``exp.Table`` (schemas by name),
    or ``schemas`` the schema names of ALL TABLES|PROCEDURES IN SCHEMA;
    ``grantees`` and ``granted_by`` are role specifications
    (``catalog.roles.role_spec``); ``option`` is WITH GRANT OPTION or GRANT
    OPTION FOR."""

    arg_types = {"privileges": True, "kind": True, "expressions": False, "schemas": False,
                 "grantees": True, "revoke": False, "option": False, "cascade": False,
                 "granted_by": False}


class GrantRoles(RoleDdl):
    """GRANT roles TO members [WITH ADMIN OPTION] | REVOKE [ADMIN OPTION FOR]
    roles FROM members; ``expressions`` are the granted roles' names,
    ``grantees`` and ``granted_by`` role specifications."""

    arg_types = {"expressions": True, "grantees": True, "revoke": False, "admin": False,
                 "granted_by": False}


# --- what pg_dump writes besides tables: locks, owners, comments, identity columns,
# sequence ownership, the sqlext extension --------------------------------------------


class LockTable(UtilityStatement):
    """LOCK [TABLE] [ONLY] name [, ...] [IN mode MODE] [NOWAIT]; ``expressions``
    the tables (``exp.Table``), ``mode`` the lock mode as PostgreSQL names it
    (``ACCESS EXCLUSIVE`` without IN ... MODE)."""

    arg_types = {"expressions": True, "mode": True, "nowait": False}


class ObjectDdl(exp.Expression):
    """Base of the schema statements about existing objects of any kind
    (compiled like DDL, logged like one)."""


class CommentOn(ObjectDdl):
    """COMMENT ON kind name IS 'text' | NULL. ``kind`` is the lower-case
    object kind ("table", "column", "schema", ...); ``this`` the object (an
    ``exp.Table``; for a column the table, ``column`` the column's name;
    for a schema or an extension ``exp.Table`` with only a name); ``text``
    None for NULL (the comment goes)."""

    arg_types = {"kind": True, "this": True, "column": False, "text": False}


class AlterOwner(ObjectDdl):
    """ALTER kind name OWNER TO role; ``kind`` lower case ("table",
    "sequence", "view", "materialized view", "index", "schema"), ``owner`` a
    role specification (``catalog.roles.role_spec``)."""

    arg_types = {"kind": True, "this": True, "owner": True}


class AlterSequenceOwner(ObjectDdl):
    """ALTER SEQUENCE name OWNED BY table.column | NONE; ``column`` an
    ``exp.Column`` (its table possibly schema-qualified), None for NONE."""

    arg_types = {"this": True, "column": False}


class AddIdentity(ObjectDdl):
    """ALTER TABLE name ALTER [COLUMN] column ADD GENERATED {ALWAYS | BY
    DEFAULT} AS IDENTITY [(sequence options)]; ``always`` says which,
    ``sequence`` the SEQUENCE NAME given (an ``exp.Table``) or None,
    ``start`` and ``increment`` the numbers given or None."""

    arg_types = {"this": True, "column": True, "always": True, "sequence": False,
                 "start": False, "increment": False}


class CreateExtension(ObjectDdl):
    """CREATE EXTENSION [IF NOT EXISTS] name [WITH] [SCHEMA schema] [VERSION
    version] [CASCADE]; names folded unless quoted."""

    arg_types = {"this": True, "exists": False, "schema": False, "version": False,
                 "cascade": False}
