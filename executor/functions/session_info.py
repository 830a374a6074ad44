"""Session and system information: who and where the session is, its
settings, and the transaction's clock.

Times come from the statement context, so a transaction sees one now() and a
replay of the command log sees the times it recorded.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.roles import check_role_name
from catalog.sqltypes import BOOL, INT4, INT8, NAME, TEXT, TIMESTAMP, TIMESTAMPTZ, SqlType
from executor.functions.declare import Declarations, Function, Runtime
from executor.values import conversions

FUNCTIONS = Declarations()

NAME_ARRAY: Final = SqlType(t.array_of(t.NAME))


@FUNCTIONS.runtime("version", TEXT, max_args=0)
def _version(runtime: Runtime) -> Function:
    return lambda: runtime.version


@FUNCTIONS.runtime("current_database", NAME, max_args=0, names=("current_catalog",))
def _current_database(runtime: Runtime) -> Function:
    return lambda: runtime.context().database


@FUNCTIONS.runtime("current_schema", NAME, max_args=0)
def _current_schema(runtime: Runtime) -> Function:
    def current_schema() -> Any:
        context = runtime.context()
        return next((s for s in context.search_path if s in context.catalog.schemas), None)
    return current_schema


@FUNCTIONS.runtime("current_schemas", NAME_ARRAY, BOOL, min_args=1, max_args=1)
def _current_schemas(runtime: Runtime) -> Function:
    def current_schemas(include_implicit: Any) -> str:
        context = runtime.context()
        present = [s for s in context.search_path if s in context.catalog.schemas]
        if include_implicit:
            present = ["pg_catalog", *present]
        return json.dumps(present)
    return current_schemas


@FUNCTIONS.runtime("current_user", NAME, max_args=0, names=("user", "current_role"))
def _current_user(runtime: Runtime) -> Function:
    return lambda: check_role_name(runtime.context().user)


@FUNCTIONS.runtime("session_user", NAME, max_args=0)
def _session_user(runtime: Runtime) -> Function:
    return lambda: check_role_name(runtime.context().session_user)


@FUNCTIONS.runtime("current_setting", TEXT, TEXT, BOOL, min_args=1, max_args=2)
def _current_setting(runtime: Runtime) -> Function:
    def setting(name: Any, missing_ok: Any = 0) -> Any:
        value = runtime.context().setting(str(name))
        if value is None and not missing_ok:
            raise errors.UndefinedObject(f'unrecognized configuration parameter "{name}"')
        return value
    return setting


@FUNCTIONS.runtime("set_config", TEXT, TEXT, TEXT, BOOL, min_args=3, max_args=3,
                   changes_engine=True)
def _set_config(runtime: Runtime) -> Function:
    def set_config(name: Any, value: Any, is_local: Any) -> Any:
        if name is None:
            raise errors.NullValueNotAllowed("SET requires parameter name")
        change = runtime.context().change_setting
        if change is None:
            raise errors.FeatureNotSupported(
                "set_config() is not supported inside a dataflow procedure")
        return change(str(name), None if value is None else str(value), bool(is_local))
    return set_config


@FUNCTIONS.internal("sqlext_settings", 0, runtime=True)
def _settings(runtime: Runtime) -> Function:
    """The session's settings as a JSON object (pg_settings reads them)."""
    return lambda: json.dumps(dict(runtime.context().settings))


@FUNCTIONS.runtime("pg_backend_pid", INT4, max_args=0, sqlite="sqlext_backend_pid")
def _backend_pid(runtime: Runtime) -> Function:
    return lambda: runtime.context().process_id


@FUNCTIONS.runtime("pg_reload_conf", BOOL, max_args=0, sqlite="sqlext_reload_conf",
                   changes_engine=True)
def _reload_conf(runtime: Runtime) -> Function:
    def reload_conf() -> int:
        context = runtime.context()
        if not context.catalog.is_superuser(context.user):
            raise errors.InsufficientPrivilege("permission denied for function pg_reload_conf")
        return int(runtime.reload_config())
    return reload_conf


@FUNCTIONS.scalar("pg_is_in_recovery", BOOL, max_args=0, sqlite="sqlext_false")
def _false() -> int:
    """Clients ask; the server accepts connections only once recovery is over."""
    return 0


@FUNCTIONS.runtime("txid_current", INT8, max_args=0)
def _txid_current(runtime: Runtime) -> Function:
    return lambda: runtime.executor.transaction_id()


@FUNCTIONS.runtime("gen_random_uuid", SqlType(t.UUID), max_args=0)
def _gen_random_uuid(runtime: Runtime) -> Function:
    """From the transaction's seeded generator, so a replay makes the same."""
    return lambda: str(uuid.UUID(int=runtime.executor.random().getrandbits(128), version=4))


# --- the clock ------------------------------------------------------------------------

@FUNCTIONS.runtime("now", TIMESTAMPTZ, max_args=0, names=("transaction_timestamp",))
def _now(runtime: Runtime) -> Function:
    return lambda: conversions.storage_timestamp(runtime.context().transaction_start)


@FUNCTIONS.runtime("statement_timestamp", TIMESTAMPTZ, max_args=0)
def _statement_timestamp(runtime: Runtime) -> Function:
    return lambda: conversions.storage_timestamp(runtime.context().statement_start)


@FUNCTIONS.runtime("clock_timestamp", TIMESTAMPTZ, max_args=0)
def _clock_timestamp(runtime: Runtime) -> Function:
    return lambda: conversions.storage_timestamp(runtime.executor.clock())


def _session_now(runtime: Runtime, target: int) -> Function:
    """The transaction's start in the session's time zone, as ``target``."""

    def now() -> Any:
        start = conversions.storage_timestamp(runtime.context().transaction_start)
        return conversions.convert(start, t.TIMESTAMPTZ, -1, target, -1,
                                   runtime.codec_settings())
    return now


@FUNCTIONS.runtime("localtimestamp", TIMESTAMP, max_args=0)
def _localtimestamp(runtime: Runtime) -> Function:
    return _session_now(runtime, t.TIMESTAMP)


@FUNCTIONS.internal("sqlext_current_date", 0, runtime=True)
def _current_date(runtime: Runtime) -> Function:
    """CURRENT_DATE."""
    return _session_now(runtime, t.DATE)


@FUNCTIONS.internal("sqlext_current_time", 0, runtime=True)
def _current_time(runtime: Runtime) -> Function:
    """CURRENT_TIME, LOCALTIME."""
    return _session_now(runtime, t.TIME)
