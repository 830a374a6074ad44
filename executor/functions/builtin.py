"""SQL functions SQLite calls on our behalf (names start with ``sqlext_``).

They implement PostgreSQL behaviour SQLite lacks: errors where PostgreSQL
raises them (division by zero, bad casts), session information, regular
expressions, sequences. A failing function records its PostgreSQL error in
the statement context before raising, so the client sees the right SQLSTATE.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import struct
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from catalog import errors
from catalog import types as t
from executor import codecs
from executor.core import Executor
from executor.functions.catalog_info import catalog_functions
from executor.functions.json_arrays import json_functions
from executor.functions.session_signals import BackendControl, backend_functions
from executor.functions.streams import stream_functions
from executor.streaming.scheduler import Scheduler
from executor.values import conversions
from storage.sqlite import Database


class FunctionFailed(Exception):
    """Raised into SQLite after the real error was parked in the context."""


def _guard(executor: Executor, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def call(*args: Any) -> Any:
        try:
            return function(*args)
        except errors.SqlError as exc:
            executor.context.fail(exc)
            raise FunctionFailed(exc.message) from exc
        except Exception as exc:
            # A bug: say where, rather than SQLite's "user-defined function
            # raised exception".
            error = errors.InternalError(
                f"{function.__name__}{args!r} failed: {type(exc).__name__}: {exc}")
            executor.context.fail(error)
            raise FunctionFailed(error.message) from exc
    return call


def _div(left: Any, right: Any, integer: int) -> Any:
    if left is None or right is None:
        return None
    if _is_nan(left) or _is_nan(right):
        return "NaN"
    if right == 0:
        raise errors.DivisionByZero("division by zero")
    if integer:
        quotient = abs(left) // abs(right)
        return quotient if (left >= 0) == (right >= 0) else -quotient
    return _stored(left / right)


def _mod(left: Any, right: Any, integer: int = 1) -> Any:
    if left is None or right is None:
        return None
    if _is_nan(left) or _is_nan(right):
        return "NaN"
    if right == 0:
        raise errors.DivisionByZero("division by zero")
    if isinstance(left, float) and math.isinf(left):
        return "NaN"  # as PostgreSQL's numeric: Infinity % x
    if isinstance(right, float) and math.isinf(right):
        return left
    if not integer or isinstance(left, float) or isinstance(right, float):
        return _stored(math.fmod(left, right))
    return int(math.fmod(left, right))


def _is_nan(value: Any) -> bool:
    """NaN as stored: the text 'NaN' (SQLite has no NaN; a float NaN would
    become NULL)."""
    return value == "NaN" or (isinstance(value, float) and math.isnan(value))


def _stored(value: float) -> Any:
    """A float result as stored (inf / inf and fmod(inf, x) are NaN)."""
    return "NaN" if math.isnan(value) else value


def _out_of_range(left_oid: int, right_oid: int) -> errors.SqlError:
    """The error of date/time arithmetic whose result has no representation."""
    if t.INTERVAL == left_oid == right_oid:
        return errors.DatetimeFieldOverflow("interval out of range")
    kind = "date" if t.DATE in (left_oid, right_oid) and t.INTERVAL not in (
        left_oid, right_oid) else "timestamp"
    return errors.DatetimeFieldOverflow(f"{kind} out of range")


def _bytea_json(value: Any) -> Any:
    """A bytea value as arrays hold it in JSON (SQLite's JSON has no BLOBs)."""
    return None if value is None else "\\x" + bytes(value).hex()


_GROWING_FIELDS = frozenset({"epoch", "julian", "year", "isoyear", "decade", "century",
                             "millennium", "millennia"})


def _json_number(value: Any) -> str:
    """A number as the JSON text arrays keep it in: infinities as 1e999,
    NaN as the string "NaN"."""
    if value is None:
        return "null"
    if _is_nan(value):
        return '"NaN"'
    if isinstance(value, float) and math.isinf(value):
        return "1e999" if value > 0 else "-1e999"
    return repr(value) if isinstance(value, float) else json.dumps(value)


def _row_count(value: Any, clause: str) -> Any:
    """A LIMIT or OFFSET count: NULL is none, a negative one is an error
    (SQLite would take it as none)."""
    if value is None:
        return -1 if clause == "LIMIT" else 0
    if _is_nan(value) or value < 0:
        if clause == "LIMIT":
            raise errors.InvalidRowCountInLimitClause("LIMIT must not be negative")
        raise errors.InvalidRowCountInResultOffsetClause("OFFSET must not be negative")
    if value == math.inf:
        raise errors.NumericValueOutOfRange("bigint out of range")
    return math.floor(value + 0.5)  # 1.5 rows: 2, as PostgreSQL rounds


def _series_step(step: Any) -> Any:
    if step == 0:
        raise errors.InvalidParameterValue("step size cannot equal zero")
    return step


_POSIX_CLASSES = {
    "[:alpha:]": "a-zA-Z", "[:digit:]": "0-9", "[:alnum:]": "a-zA-Z0-9",
    "[:upper:]": "A-Z", "[:lower:]": "a-z", "[:space:]": r"\s", "[:punct:]": r"!-/:-@\[-`{-~",
    "[:xdigit:]": "0-9A-Fa-f", "[:word:]": r"\w",
}


@functools.lru_cache(maxsize=512)
def _regex(pattern: str, insensitive: bool) -> re.Pattern[str]:
    translated = pattern
    for posix, python in _POSIX_CLASSES.items():
        translated = translated.replace(posix, python)
    try:
        return re.compile(translated, re.IGNORECASE if insensitive else 0)
    except re.error as exc:
        raise errors.InvalidRegularExpression(
            f"invalid regular expression: {exc}") from None


def _regex_match(value: Any, pattern: Any, insensitive: int) -> Any:
    if value is None or pattern is None:
        return None
    return 1 if _regex(str(pattern), bool(insensitive)).search(str(value)) else 0


def _regexp_replace(value: Any, pattern: Any, replacement: Any, flags: Any = "") -> Any:
    if value is None or pattern is None or replacement is None:
        return None
    flags = flags or ""
    compiled = _regex(str(pattern), "i" in flags)
    template = str(replacement)
    return compiled.sub(lambda match: _expand(template, match), str(value),
                        count=0 if "g" in flags else 1)


def _expand(template: str, match: re.Match[str]) -> str:
    r"""PostgreSQL's replacement text: \1 to \9 are groups, \& the match,
    \\ a backslash; any other backslash stays as it is."""
    out: list[str] = []
    index = 0
    while index < len(template):
        char = template[index]
        following = template[index + 1] if index + 1 < len(template) else ""
        if char == "\\" and following and following in "123456789&\\":
            if following == "&":
                out.append(match.group(0))
            elif following == "\\":
                out.append("\\")
            elif int(following) <= (match.re.groups or 0):
                out.append(match.group(int(following)) or "")
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _concat(*values: Any) -> str:
    return "".join(str(v) for v in values if v is not None)


def _concat_ws(separator: Any, *values: Any) -> Any:
    if separator is None:
        return None
    return str(separator).join(str(v) for v in values if v is not None)


def _pad(left: bool) -> Callable[..., Any]:
    def pad(value: Any, length: Any, fill: Any = " ") -> Any:
        if value is None or length is None or fill is None:
            return None
        if _is_nan(length) or length in (math.inf, -math.inf):
            raise errors.NumericValueOutOfRange("integer out of range")
        text, length = str(value), int(length)
        if length <= len(text):
            return text[:max(length, 0)]
        if not fill:
            return text
        padding = (str(fill) * length)[: length - len(text)]
        return padding + text if left else text + padding
    return pad


def _left(value: Any, count: Any) -> Any:
    if value is None or count is None:
        return None
    return str(value)[:int(count)]


def _right(value: Any, count: Any) -> Any:
    if value is None or count is None:
        return None
    count = int(count)
    text = str(value)
    return text[-count:] if count > 0 else text[-count:] if count < 0 else ""


def _split_part(value: Any, delimiter: Any, field: Any) -> Any:
    if value is None or delimiter is None or field is None:
        return None
    if field == 0:
        raise errors.InvalidParameterValue("field position must not be zero")
    parts = str(value).split(str(delimiter)) if delimiter else [str(value)]
    index = field - 1 if field > 0 else len(parts) + field
    return parts[index] if 0 <= index < len(parts) else ""


def _chr(code: Any) -> Any:
    """chr(): a character of UTF-8, PostgreSQL's errors for the rest (SQLite's
    char() makes surrogates, which no client can decode, and NULs)."""
    if code is None:
        return None
    if code < 0:
        raise errors.InvalidParameterValue("character number must be positive")
    if code == 0:
        raise errors.ProgramLimitExceeded("null character not permitted")
    if code > 0x10FFFF:
        raise errors.ProgramLimitExceeded(f"requested character too large for encoding: {code}")
    if 0xD800 <= code <= 0xDFFF:
        raise errors.ProgramLimitExceeded(f"requested character not valid for encoding: {code}")
    return chr(code)


def _initcap(value: Any) -> Any:
    if value is None:
        return None
    return re.sub(r"[A-Za-z0-9]+", lambda m: m.group(0)[0].upper() + m.group(0)[1:].lower(),
                  str(value))


def _round(value: Any, places: Any = 0) -> Any:
    if value is None or places is None:
        return None
    if _unscalable(value, places):
        return value
    factor = 10.0 ** int(places)
    rounded = math.floor(abs(value) * factor + 0.5) / factor
    result = math.copysign(rounded, value)
    return int(result) if isinstance(value, int) else result


def _trunc(value: Any, places: Any = 0) -> Any:
    if value is None or places is None:
        return None
    if _unscalable(value, places):
        return value
    factor = 10.0 ** int(places)
    return math.trunc(value * factor) / factor


def _unscalable(value: Any, places: Any) -> bool:
    """NaN, infinities, and places beyond a double's range (where rounding
    changes nothing, or the scaled value overflows): the value stays."""
    if isinstance(value, str) or (isinstance(value, float) and not math.isfinite(value)):
        return True
    return not -300 <= int(places) <= 300 or not math.isfinite(abs(value) * 10.0 ** int(places))


def _extreme(pick: Callable[..., Any]) -> Callable[..., Any]:
    def choose(*values: Any) -> Any:
        present = [v for v in values if v is not None]
        if not present:
            return None
        if any(isinstance(v, int | float) for v in present):
            # Numbers: NaN (stored as the text 'NaN') is above all others.
            return pick(present, key=_nan_last)
        return pick(present)
    return choose


def _nan_last(value: Any) -> tuple[int, Any]:
    return (1, 0) if _is_nan(value) else (0, value)


def _quote_ident(value: Any) -> Any:
    if value is None:
        return None
    text = str(value)
    if re.fullmatch(r"[a-z_][a-z0-9_$]*", text):
        return text
    return '"' + text.replace('"', '""') + '"'


def _quote_literal(value: Any) -> Any:
    if value is None:
        return None
    text = str(value).replace("'", "''")
    if "\\" in text:
        return "E'" + text.replace("\\", "\\\\") + "'"
    return "'" + text + "'"


def _json_array(value: Any) -> list[Any] | None:
    if value is None:
        return None
    try:
        parsed = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        parsed = None
    if not isinstance(parsed, list):
        raise errors.DatatypeMismatch("argument is not an array")
    return parsed


def _array_to_string(array: Any, separator: Any, null_text: Any = None) -> Any:
    items = _json_array(array)
    if items is None or separator is None:
        return None
    shown = [str(v) if v is not None else null_text for v in items]
    return str(separator).join(v for v in shown if v is not None)


def _array_upper(array: Any, dimension: Any) -> Any:
    items = _json_array(array)
    if items is None or dimension != 1 or not items:
        return None
    return len(items)


def _array_lower(array: Any, dimension: Any) -> Any:
    items = _json_array(array)
    if items is None or dimension != 1 or not items:
        return None
    return 1


def _cardinality(array: Any) -> Any:
    items = _json_array(array)
    return None if items is None else len(items)


class _NumericSum:
    """sum() of numeric values: exact decimal addition (SQLite would add the
    stored floats and accumulate binary rounding errors)."""

    def __init__(self) -> None:
        self.total: Decimal | None = None
        self.special: Any = None
        self.count = 0

    def step(self, value: Any) -> None:
        if value is None:
            return
        self.count += 1
        if _special(value):
            self.special = value if self.special is None else self.special
            return
        exact = _exact(value)
        self.total = exact if self.total is None else self.total + exact

    def finalize(self) -> Any:
        if self.special is not None:
            return self.special
        return None if self.total is None else _number(self.total)


class _NumericAvg(_NumericSum):
    def finalize(self) -> Any:
        if self.special is not None:
            return self.special
        return None if self.total is None else _number(self.total / self.count)


def _special(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, float) and not math.isfinite(value))


def _exact(value: int | float) -> Decimal:
    return Decimal(value) if isinstance(value, int) else Decimal(repr(value))


def _numeric_add(total: Any, value: Any, sign: int) -> Any:
    """A materialized view's numeric sum plus (sign 1) or minus (-1) a value,
    exactly, as sum() adds. NaN and infinities are sticky: once in, the
    total stays that value."""
    if value is None:
        return total
    if _special(total):
        return total
    if _special(value):
        return value if sign > 0 else total
    return _number(_exact(total or 0) + sign * _exact(value))


def _numeric_quotient(total: Any, count: Any) -> Any:
    """avg() of numeric values kept as a sum and a count."""
    if not count:
        return None
    if _special(total):
        return total
    return _number(_exact(total) / count)


def _average(total: Any, count: Any) -> Any:
    """avg() of other values kept as a sum and a count (SQLite's avg is a double)."""
    return float(total) / count if count else None


def _number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() and abs(value) < 2**63 else float(
        value)


class _Deviation:
    """stddev/variance aggregates (Welford's algorithm)."""

    population = False
    root = True

    def __init__(self) -> None:
        self.count = 0
        self.mean = 0.0
        self.m2 = 0.0

    def step(self, value: Any) -> None:
        if value is None or isinstance(value, str):
            return
        self.count += 1
        delta = value - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (value - self.mean)

    def finalize(self) -> Any:
        divisor = self.count if self.population else self.count - 1
        if divisor <= 0:
            return None
        variance = self.m2 / divisor
        return math.sqrt(variance) if self.root else variance


class _StddevSamp(_Deviation):
    pass


class _StddevPop(_Deviation):
    population = True


class _VarSamp(_Deviation):
    root = False


class _VarPop(_Deviation):
    population = True
    root = False


def register_functions(database: Database, executor: Executor, scheduler: Scheduler,
                       version: str, reload_config: Callable[[], bool],
                       backends: BackendControl,
                       listening: Callable[[int], list[str]]) -> None:
    """Register every ``sqlext_*`` function on the executor's database;
    ``version`` is what version() returns, ``reload_config`` what
    pg_reload_conf() does, ``backends`` what pg_cancel_backend() and
    pg_terminate_backend() signal, ``listening`` the channels a session
    (by process id) listens on."""
    context = lambda: executor.context  # noqa: E731 - read at call time

    def reload_conf() -> int:
        if not context().catalog.is_superuser(context().user):
            raise errors.InsufficientPrivilege("permission denied for function pg_reload_conf")
        return int(reload_config())

    def setting(name: Any, missing_ok: Any = 0) -> Any:
        value = context().setting(str(name))
        if value is None and not missing_ok:
            raise errors.UndefinedObject(f'unrecognized configuration parameter "{name}"')
        return value

    def current_schemas(include_implicit: Any) -> str:
        schemas = list(context().search_path)
        present = [s for s in schemas if s in context().catalog.schemas]
        if include_implicit:
            present = ["pg_catalog", *present]
        return json.dumps(present)

    def settings() -> codecs.Settings:
        return codecs.Settings(timezone=context().setting("timezone") or "UTC",
                               extra_float_digits=3)

    def convert(value: Any, source: int, source_typmod: int, target: int,
                typmod: int) -> Any:
        if value is None:
            return None
        return conversions.convert(value, source, source_typmod, target, typmod, settings())

    def session_now(target: int) -> Any:
        """The transaction's start in the session's time zone, as ``target``."""
        now = conversions.storage_timestamp(context().transaction_start)
        return conversions.convert(now, t.TIMESTAMPTZ, -1, target, -1, settings())

    def assign_char(value: Any, oid: int, typmod: int) -> Any:
        if value is None:
            return None
        return codecs.text_decoder(oid, typmod)(str(value))

    def datetime_arith(operator: str, left: Any, left_oid: int, right: Any,
                       right_oid: int) -> Any:
        if left is None or right is None:
            return None
        try:
            return conversions.datetime_arithmetic(operator, left, left_oid, right, right_oid)
        except (ValueError, OverflowError, struct.error):
            # Python's datetime stops at years 1 and 9999, packing at 32 bits.
            raise _out_of_range(left_oid, right_oid) from None

    def extract(field: str, value: Any, oid: int) -> Any:
        if value is None:
            return None
        if value in ("infinity", "-infinity"):
            # As PostgreSQL 15: infinite for the fields that grow with time.
            if field.rstrip("s") in _GROWING_FIELDS:
                return float("-inf") if value.startswith("-") else float("inf")
            return None
        try:
            return conversions.extract(field, value, oid)
        except (ValueError, OverflowError):
            # Dates past year 9999, which Python's datetime cannot hold.
            raise errors.DatetimeFieldOverflow(
                f"{t.format_type(oid)} out of range for extract") from None

    def reg_name(value: Any, oid: int) -> Any:
        if value is None:
            return None
        if oid == t.REGPROC or isinstance(value, str):
            return str(value)
        if int(value) == 0:
            return "-"  # as PostgreSQL prints InvalidOid
        catalog = context().catalog
        if oid == t.REGTYPE:
            return t.format_type(int(value)) if int(value) in t.TYPES else str(value)
        if oid == t.REGNAMESPACE:
            return next((n for n, o in catalog.schemas.items() if o == value), str(value))
        relation = catalog.relation_by_oid(int(value))
        if relation is not None:
            return relation.name
        sequence = next((s for s in catalog.sequences.values() if s.oid == value), None)
        return sequence.name if sequence is not None else str(value)

    def notify(channel: Any, payload: Any) -> str:
        executor.notify(None if channel is None else str(channel),
                        None if payload is None else str(payload))
        return ""  # void: prints as nothing, and is not NULL

    def nextval(name: Any) -> Any:
        return executor.nextval(str(name), context())

    def currval(name: Any) -> Any:
        return executor.currval(str(name), context())

    def setval(name: Any, value: Any, called: Any = 1) -> Any:
        return executor.setval(str(name), int(value), bool(called), context())

    scalar: dict[str, tuple[int, Callable[..., Any]]] = {
        "sqlext_version": (0, lambda: version),
        "sqlext_current_database": (0, lambda: context().database),
        "sqlext_current_schema": (0, lambda: next(
            (s for s in context().search_path if s in context().catalog.schemas), None)),
        "sqlext_current_schemas": (1, current_schemas),
        "sqlext_current_user": (0, lambda: context().user),
        "sqlext_current_setting": (-1, setting),
        "sqlext_backend_pid": (0, lambda: context().process_id),
        "sqlext_reload_conf": (0, reload_conf),
        "sqlext_now": (0, lambda: conversions.storage_timestamp(context().transaction_start)),
        "sqlext_statement_timestamp": (0, lambda: conversions.storage_timestamp(
            context().statement_start)),
        "sqlext_clock_timestamp": (0, lambda: conversions.storage_timestamp(
            executor.clock())),
        "sqlext_localtimestamp": (0, lambda: session_now(t.TIMESTAMP)),
        "sqlext_current_date": (0, lambda: session_now(t.DATE)),
        "sqlext_current_time": (0, lambda: session_now(t.TIME)),
        "sqlext_false": (0, lambda: 0),
        "sqlext_txid_current": (0, lambda: executor.transaction_id()),
        "sqlext_gen_random_uuid": (0, lambda: str(uuid.UUID(
            int=executor.random().getrandbits(128), version=4))),
        "sqlext_octet_length": (1, lambda v: None if v is None else len(
            v if isinstance(v, bytes) else str(v).encode())),
        "sqlext_concat": (-1, _concat),
        "sqlext_concat_ws": (-1, _concat_ws),
        "sqlext_left": (2, _left),
        "sqlext_right": (2, _right),
        "sqlext_repeat": (2, lambda v, n: None if v is None or n is None
                          else str(v) * max(int(n), 0)),
        "sqlext_lpad": (-1, _pad(left=True)),
        "sqlext_rpad": (-1, _pad(left=False)),
        "sqlext_split_part": (3, _split_part),
        "sqlext_reverse": (1, lambda v: None if v is None else str(v)[::-1]),
        "sqlext_initcap": (1, _initcap),
        "sqlext_chr": (1, _chr),
        "sqlext_md5": (1, lambda v: None if v is None else hashlib.md5(
            v if isinstance(v, bytes) else str(v).encode()).hexdigest()),
        "sqlext_starts_with": (2, lambda a, b: None if a is None or b is None
                               else int(str(a).startswith(str(b)))),
        "sqlext_regexp_replace": (-1, _regexp_replace),
        "sqlext_regex_match": (3, _regex_match),
        "sqlext_quote_ident": (1, _quote_ident),
        "sqlext_quote_literal": (1, _quote_literal),
        "sqlext_round": (-1, _round),
        "sqlext_trunc": (-1, _trunc),
        "sqlext_div": (3, _div),
        "sqlext_mod": (-1, _mod),
        "sqlext_row_count": (2, _row_count),
        "sqlext_series_step": (1, _series_step),
        "sqlext_bytea_json": (1, _bytea_json),
        "sqlext_json_number": (1, _json_number),
        "sqlext_random": (0, lambda: executor.random().random()),
        "sqlext_greatest": (-1, _extreme(max)),
        "sqlext_least": (-1, _extreme(min)),
        "sqlext_array_to_string": (-1, _array_to_string),
        "sqlext_array_upper": (2, _array_upper),
        "sqlext_array_lower": (2, _array_lower),
        "sqlext_cardinality": (1, _cardinality),
        "sqlext_convert": (5, convert),
        "sqlext_assign_char": (3, assign_char),
        "sqlext_datetime_arith": (5, datetime_arith),
        "sqlext_extract": (3, extract),
        "sqlext_nextval": (1, nextval),
        "sqlext_reg_name": (2, reg_name),
        "sqlext_currval": (1, currval),
        "sqlext_setval": (-1, setval),
        "sqlext_numeric_add": (3, _numeric_add),
        "sqlext_numeric_quotient": (2, _numeric_quotient),
        "sqlext_average": (2, _average),
        "sqlext_notify": (2, notify),
        "sqlext_listening_channels": (0, lambda: json.dumps(listening(
            context().process_id))),
    }
    scalar.update(catalog_functions(context))
    scalar.update(json_functions())
    scalar.update(stream_functions(executor, scheduler))
    scalar.update(backend_functions(backends))
    for name, (arg_count, function) in scalar.items():
        database.create_function(name, arg_count, _guard(executor, function))
    for name, aggregate in (("sqlext_numeric_sum", _NumericSum),
                            ("sqlext_numeric_avg", _NumericAvg),
                            ("sqlext_stddev_samp", _StddevSamp),
                            ("sqlext_stddev_pop", _StddevPop),
                            ("sqlext_var_samp", _VarSamp), ("sqlext_var_pop", _VarPop)):
        database.create_aggregate(name, 1, aggregate)

