"""PostgreSQL errors, one class per SQLSTATE the engine raises.

Every error a client can cause is one of these, so the wire layer can send an
ErrorResponse with the right code. Codes and names follow PostgreSQL's
``src/backend/utils/errcodes.txt``; ``lookup(code)`` finds a class by code.
"""

from __future__ import annotations

from typing import ClassVar


class SqlError(Exception):
    """Base of all errors reported to clients; ``sqlstate`` is the SQLSTATE.
    ``routine`` names PostgreSQL's routine where a client tells errors apart
    by it (asyncpg's InvalidCachedStatementError)."""

    sqlstate: ClassVar[str] = "XX000"
    _by_code: ClassVar[dict[str, type[SqlError]]] = {}

    def __init__(
        self,
        message: str,
        *,
        detail: str | None = None,
        hint: str | None = None,
        position: int | None = None,
        severity: str = "ERROR",
        schema: str | None = None,
        table: str | None = None,
        column: str | None = None,
        constraint: str | None = None,
        routine: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail
        self.hint = hint
        self.position = position
        self.severity = severity
        # The object the error is about, as PostgreSQL names it for
        # constraint violations (clients read e.g. the constraint's name).
        self.schema = schema
        self.table = table
        self.column = column
        self.constraint = constraint
        self.routine = routine

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        SqlError._by_code.setdefault(cls.sqlstate, cls)


def lookup(sqlstate: str) -> type[SqlError]:
    """The error class for a SQLSTATE (``SqlError`` itself when unknown)."""
    return SqlError._by_code.get(sqlstate, SqlError)


class InternalError(SqlError):
    sqlstate = "XX000"


# Class 08: connection exception
class ProtocolViolation(SqlError):
    sqlstate = "08P01"


# Class 0A: feature not supported
class FeatureNotSupported(SqlError):
    sqlstate = "0A000"


# Class 21: cardinality violation
class CardinalityViolation(SqlError):
    sqlstate = "21000"


# Class 22: data exception
class DataException(SqlError):
    sqlstate = "22000"


class StringDataRightTruncation(DataException):
    sqlstate = "22001"


class NullValueNotAllowed(DataException):
    sqlstate = "22004"


class NumericValueOutOfRange(DataException):
    sqlstate = "22003"


class InvalidDatetimeFormat(DataException):
    sqlstate = "22007"


class DatetimeFieldOverflow(DataException):
    sqlstate = "22008"


class DivisionByZero(DataException):
    sqlstate = "22012"


class InvalidTimeZoneDisplacementValue(DataException):
    sqlstate = "22009"


class IntervalFieldOverflow(DataException):
    sqlstate = "22015"


class UntranslatableCharacter(DataException):
    sqlstate = "22P05"


class InvalidParameterValue(DataException):
    sqlstate = "22023"


class SubstringError(DataException):
    sqlstate = "22011"


class InvalidEscapeSequence(DataException):
    sqlstate = "22025"


class InvalidRegularExpression(DataException):
    sqlstate = "2201B"


class InvalidArgumentForLogarithm(DataException):
    sqlstate = "2201E"


class InvalidArgumentForPowerFunction(DataException):
    sqlstate = "2201F"


class InvalidArgumentForWidthBucketFunction(DataException):
    sqlstate = "2201G"


class CharacterNotInRepertoire(DataException):
    sqlstate = "22021"


class InvalidBinaryRepresentation(DataException):
    sqlstate = "22P03"


class BadCopyFileFormat(DataException):
    sqlstate = "22P04"


class InvalidTextRepresentation(DataException):
    sqlstate = "22P02"


class ArraySubscriptError(DataException):
    sqlstate = "2202E"


class InvalidRowCountInLimitClause(DataException):
    sqlstate = "2201W"


class InvalidRowCountInResultOffsetClause(DataException):
    sqlstate = "2201X"


class InvalidArgumentForNtileFunction(DataException):
    sqlstate = "22014"


class InvalidArgumentForNthValueFunction(DataException):
    sqlstate = "22016"


class InvalidSqlJsonSubscript(DataException):
    sqlstate = "22033"


class SingletonSqlJsonItemRequired(DataException):
    sqlstate = "22038"


class SqlJsonArrayNotFound(DataException):
    sqlstate = "22039"


class SqlJsonMemberNotFound(DataException):
    sqlstate = "2203A"


class SqlJsonObjectNotFound(DataException):
    sqlstate = "2203C"


# Class 23: integrity constraint violation
class IntegrityConstraintViolation(SqlError):
    sqlstate = "23000"


class NotNullViolation(IntegrityConstraintViolation):
    sqlstate = "23502"


class ForeignKeyViolation(IntegrityConstraintViolation):
    sqlstate = "23503"


class UniqueViolation(IntegrityConstraintViolation):
    sqlstate = "23505"


class CheckViolation(IntegrityConstraintViolation):
    sqlstate = "23514"


# Class 01 / 25: warnings and invalid transaction state
class NoActiveSqlTransaction(SqlError):
    sqlstate = "25P01"



class ActiveSqlTransaction(SqlError):
    sqlstate = "25001"


class ReadOnlySqlTransaction(SqlError):
    sqlstate = "25006"


class InFailedSqlTransaction(SqlError):
    sqlstate = "25P02"


class IdleInTransactionSessionTimeout(SqlError):
    sqlstate = "25P03"


# Class 26 / 34: unknown prepared statement or cursor
class InvalidSqlStatementName(SqlError):
    sqlstate = "26000"


class InvalidCursorName(SqlError):
    sqlstate = "34000"


# Class 28: invalid authorization specification
class InvalidAuthorizationSpecification(SqlError):
    sqlstate = "28000"


class InvalidPassword(SqlError):
    sqlstate = "28P01"


# Class 3B / 3D / 3F
class InvalidSavepointSpecification(SqlError):
    sqlstate = "3B001"


class InvalidCatalogName(SqlError):
    sqlstate = "3D000"


class InvalidSchemaName(SqlError):
    sqlstate = "3F000"


# Class 40: transaction rollback
class SerializationFailure(SqlError):
    sqlstate = "40001"


# Class 42: syntax error or access rule violation
class SqlSyntaxError(SqlError):
    sqlstate = "42601"


class NameTooLong(SqlError):
    sqlstate = "42622"


class ReservedName(SqlError):
    sqlstate = "42939"


class GeneratedAlways(SqlError):
    sqlstate = "428C9"


class InvalidGrantOperation(SqlError):
    sqlstate = "0LP01"


class InsufficientPrivilege(SqlError):
    sqlstate = "42501"


class UndefinedColumn(SqlError):
    sqlstate = "42703"


class UndefinedFunction(SqlError):
    sqlstate = "42883"


_CASTS_HINT = "You might need to add explicit type casts."


def no_operator(signature: str) -> UndefinedFunction:
    """PostgreSQL's error for an operator no argument types match, such as
    ``bool + int4``."""
    return UndefinedFunction(
        f"operator does not exist: {signature}",
        hint=f"No operator matches the given name and argument types. {_CASTS_HINT}")


def ambiguous_operator(signature: str, position: int | None = None) -> AmbiguousFunction:
    """PostgreSQL's error for an operator whose argument types leave several
    candidates, such as ``- unknown``."""
    return AmbiguousFunction(
        f"operator is not unique: {signature}",
        hint=f"Could not choose a best candidate operator. {_CASTS_HINT}", position=position)


def no_function(signature: str) -> UndefinedFunction:
    """PostgreSQL's error for a function no argument types match, such as
    ``unnest(integer)``."""
    return UndefinedFunction(
        f"function {signature} does not exist",
        hint=f"No function matches the given name and argument types. {_CASTS_HINT}")


class UndefinedTable(SqlError):
    sqlstate = "42P01"


class UndefinedParameter(SqlError):
    sqlstate = "42P02"


class UndefinedObject(SqlError):
    sqlstate = "42704"


class DuplicateColumn(SqlError):
    sqlstate = "42701"


class DuplicateCursor(SqlError):
    sqlstate = "42P03"


class DuplicatePreparedStatement(SqlError):
    sqlstate = "42P05"


class DuplicateTable(SqlError):
    sqlstate = "42P07"


class DuplicateObject(SqlError):
    sqlstate = "42710"


class DuplicateSchema(SqlError):
    sqlstate = "42P06"


class DuplicateFunction(SqlError):
    sqlstate = "42723"


class InvalidFunctionDefinition(SqlError):
    sqlstate = "42P13"


class AmbiguousColumn(SqlError):
    sqlstate = "42702"


class CannotCoerce(SqlError):
    sqlstate = "42846"


class InvalidName(SqlError):
    sqlstate = "42602"


class DatatypeMismatch(SqlError):
    sqlstate = "42804"


class IndeterminateDatatype(SqlError):
    sqlstate = "42P18"


class WindowingError(SqlError):
    """A window function where PostgreSQL allows none (GROUP BY, WHERE)."""

    sqlstate = "42P20"


class AmbiguousFunction(SqlError):
    sqlstate = "42725"


class GroupingError(SqlError):
    sqlstate = "42803"


class WrongObjectType(SqlError):
    sqlstate = "42809"


class InvalidColumnReference(SqlError):
    sqlstate = "42P10"


class InvalidTableDefinition(SqlError):
    sqlstate = "42P16"


class InvalidForeignKey(SqlError):
    sqlstate = "42830"


class DependentObjectsStillExist(SqlError):
    sqlstate = "2BP01"


# Class 53 / 54: insufficient resources, program limit exceeded
class InsufficientResources(SqlError):
    sqlstate = "53000"


class TooManyConnections(SqlError):
    sqlstate = "53300"


class ProgramLimitExceeded(SqlError):
    sqlstate = "54000"


class ConfigurationLimitExceeded(SqlError):
    sqlstate = "53400"


# Class 55: object not in prerequisite state
class ObjectNotInPrerequisiteState(SqlError):
    sqlstate = "55000"


class CantChangeRuntimeParam(SqlError):
    sqlstate = "55P02"


class ObjectInUse(SqlError):
    sqlstate = "55006"


class LockNotAvailable(SqlError):
    sqlstate = "55P03"


# Class 57: operator intervention
class RaiseException(SqlError):
    """P0001: an error a procedure raised itself."""

    sqlstate = "P0001"


class QueryCanceled(SqlError):
    sqlstate = "57014"


class AdminShutdown(SqlError):
    sqlstate = "57P01"


# Class 58: system error
class UndefinedFile(SqlError):
    sqlstate = "58P01"


class IoError(SqlError):
    sqlstate = "58030"
