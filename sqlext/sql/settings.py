"""Session settings (SET / SHOW / RESET / current_setting()).

Each known parameter has a default, a validator that normalises the value
the way PostgreSQL shows it, and a flag saying whether clients are told
about changes with a ParameterStatus message (GUC_REPORT in PostgreSQL).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from catalog import errors

SERVER_VERSION: Final = "15.18 (sqlext 0.1)"
SERVER_VERSION_NUM: Final = "150018"


@dataclass(frozen=True, slots=True)
class Parameter:
    default: str
    check: Callable[[str], str]
    reported: bool = False
    description: str = ""
    read_only: bool = False


def _any(value: str) -> str:
    return value


def _integer(low: int, high: int) -> Callable[[str], str]:
    def check(value: str) -> str:
        try:
            number = int(value)
        except ValueError:
            raise errors.InvalidParameterValue(
                f'invalid value for parameter: "{value}"',
                hint="It must be an integer.") from None
        if not low <= number <= high:
            raise errors.InvalidParameterValue(
                f"{number} is outside the valid range for parameter ({low} .. {high})")
        return str(number)
    return check


_DURATION = re.compile(r"^\s*(-?\d+)\s*(ms|s|min|h|d)?\s*$", re.IGNORECASE)
_DURATION_MS = {"ms": 1, "s": 1000, "min": 60_000, "h": 3_600_000, "d": 86_400_000}


def duration_ms(value: str) -> int:
    match = _DURATION.match(value)
    if match is None:
        raise errors.InvalidParameterValue(f'invalid value for parameter: "{value}"',
                                           hint='Valid units are "ms", "s", "min", "h" and "d".')
    return int(match.group(1)) * _DURATION_MS[(match.group(2) or "ms").lower()]


def _duration(value: str) -> str:
    milliseconds = duration_ms(value)
    if milliseconds < 0:
        raise errors.InvalidParameterValue("a timeout must not be negative")
    return str(milliseconds)


def _boolean(value: str) -> str:
    lowered = value.strip().lower()
    if lowered in ("on", "true", "yes", "1", "t", "y"):
        return "on"
    if lowered in ("off", "false", "no", "0", "f", "n"):
        return "off"
    raise errors.InvalidParameterValue(f'parameter requires a Boolean value, not "{value}"')


def _only(*allowed: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        for candidate in allowed:
            if value.strip().lower() == candidate.lower():
                return candidate
        raise errors.InvalidParameterValue(
            f'invalid value for parameter: "{value}"',
            hint=f"Available values: {', '.join(allowed)}.")
    return check


def _encoding(value: str) -> str:
    if value.strip().upper().replace("-", "") in ("UTF8", "UNICODE"):
        return "UTF8"
    raise errors.FeatureNotSupported(f'conversion to encoding "{value}" is not supported',
                                     hint="sqlext only speaks UTF8.")


def _datestyle(value: str) -> str:
    parts = [p.strip().upper() for p in value.split(",")]
    order = "MDY"
    for part in parts:
        if part in ("MDY", "DMY", "YMD", "US", "EUROPEAN", "NONEURO", "NONEUROPEAN"):
            order = {"US": "MDY", "NONEURO": "MDY", "NONEUROPEAN": "MDY",
                     "EUROPEAN": "DMY"}.get(part, part)
        elif part not in ("ISO", ""):
            raise errors.FeatureNotSupported(f'DateStyle "{value}" is not supported',
                                             hint="sqlext prints dates in ISO style only.")
    return f"ISO, {order}"


def check_timezone(value: str) -> str:
    name = value.strip()
    if name.upper() in ("UTC", "GMT", "Z"):
        return name.upper() if name.upper() != "Z" else "UTC"
    if re.fullmatch(r"[+-]?\d{1,2}(:\d{2})?", name):
        return name
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise errors.InvalidParameterValue(
            f'invalid value for parameter "TimeZone": "{value}"') from None
    return name


def _search_path(value: str) -> str:
    return ", ".join(part.strip() for part in value.split(",") if part.strip())


def _isolation(value: str) -> str:
    return _only("read uncommitted", "read committed", "repeatable read",
                 "serializable")(value)


PARAMETERS: Final[dict[str, Parameter]] = {
    "application_name": Parameter("", _any, reported=True),
    "client_encoding": Parameter("UTF8", _encoding, reported=True),
    "datestyle": Parameter("ISO, MDY", _datestyle, reported=True),
    "default_transaction_read_only": Parameter("off", _boolean, reported=True),
    "in_hot_standby": Parameter("off", _boolean, reported=True, read_only=True),
    "integer_datetimes": Parameter("on", _boolean, reported=True, read_only=True),
    "intervalstyle": Parameter("postgres", _only("postgres"), reported=True),
    "is_superuser": Parameter("on", _boolean, reported=True, read_only=True),
    "server_encoding": Parameter("UTF8", _any, reported=True, read_only=True),
    "server_version": Parameter(SERVER_VERSION, _any, reported=True, read_only=True),
    "session_authorization": Parameter("postgres", _any, reported=True, read_only=True),
    "role": Parameter("none", _any, read_only=True),
    "standard_conforming_strings": Parameter("on", _only("on"), reported=True),
    "timezone": Parameter("Etc/UTC", check_timezone, reported=True),
    "server_version_num": Parameter(SERVER_VERSION_NUM, _any, read_only=True),
    "extra_float_digits": Parameter("1", _integer(-15, 3)),
    "search_path": Parameter('"$user", public', _search_path),
    "statement_timeout": Parameter("0", _duration),
    "password_encryption": Parameter("scram-sha-256", _only("scram-sha-256", "md5")),
    "lock_timeout": Parameter("0", _duration),
    "idle_in_transaction_session_timeout": Parameter("60000", _duration),
    "transaction_isolation": Parameter("read committed", _isolation),
    "default_transaction_isolation": Parameter("read committed", _isolation),
    "transaction_read_only": Parameter("off", _boolean),
    "bytea_output": Parameter("hex", _only("hex")),
    "max_identifier_length": Parameter("63", _any, read_only=True),
    "max_index_keys": Parameter("32", _any, read_only=True),
    "lc_collate": Parameter("C.UTF-8", _any, read_only=True),
    "lc_ctype": Parameter("C.UTF-8", _any, read_only=True),
    "lc_messages": Parameter("C.UTF-8", _any),
    "lc_monetary": Parameter("C.UTF-8", _any),
    "lc_numeric": Parameter("C.UTF-8", _any),
    "lc_time": Parameter("C.UTF-8", _any),
    "client_min_messages": Parameter("notice", _only("debug5", "debug4", "debug3", "debug2",
                                                     "debug1", "log", "notice", "warning",
                                                     "error")),
    "max_connections": Parameter("100", _any, read_only=True),
    "sqlext.partition": Parameter("0/1", _any, read_only=True, description=(
        "The partition of its cluster this node serves, I/N.")),
    "max_prepared_transactions": Parameter("0", _any, read_only=True),
    "block_size": Parameter("8192", _any, read_only=True),
    "synchronous_commit": Parameter("on", _any),
    "jit": Parameter("off", _boolean),
    "row_security": Parameter("on", _boolean),
    "work_mem": Parameter("4MB", _any),
    "default_table_access_method": Parameter("heap", _only("heap")),
    "timezone_abbreviations": Parameter("Default", _any),
    "default_tablespace": Parameter("", _any),
    "check_function_bodies": Parameter("on", _boolean),
    "xmloption": Parameter("content", _any),
    "enable_seqscan": Parameter("on", _boolean),
    "synchronize_seqscans": Parameter("on", _boolean),
}

DISPLAY_NAMES: Final = {"datestyle": "DateStyle", "intervalstyle": "IntervalStyle",
                        "timezone": "TimeZone"}
STARTUP_REPORT_ORDER: Final = (
    "application_name", "client_encoding", "datestyle", "default_transaction_read_only",
    "in_hot_standby", "integer_datetimes", "intervalstyle", "is_superuser", "server_encoding",
    "server_version", "session_authorization", "standard_conforming_strings", "timezone",
)


def canonical_name(name: str) -> str:
    return name.strip().lower()


def display_name(name: str) -> str:
    return DISPLAY_NAMES.get(name, name)


def lookup(name: str) -> Parameter | None:
    return PARAMETERS.get(canonical_name(name))


def unknown(name: str) -> errors.SqlError:
    return errors.UndefinedObject(f'unrecognized configuration parameter "{name}"')


def validate(name: str, value: str) -> str:
    """The normalised value for SET name = value (custom "a.b" names pass)."""
    parameter = lookup(name)
    if parameter is None:
        if "." in name:
            return value
        raise unknown(name)
    if parameter.read_only:
        raise errors.CantChangeRuntimeParam(f'parameter "{name}" cannot be changed')
    return parameter.check(value)
