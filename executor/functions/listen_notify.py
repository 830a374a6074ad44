"""pg_notify() and pg_listening_channels(): notifications as functions."""

from __future__ import annotations

import json
from typing import Any

from catalog import types as t
from catalog.sqltypes import TEXT, SqlType
from executor.functions.declare import Declarations, Function, Runtime

FUNCTIONS = Declarations()


@FUNCTIONS.runtime("pg_notify", SqlType(t.VOID), TEXT, TEXT, min_args=2, max_args=2,
                   sqlite="sqlext_notify", changes_engine=True)
def _notify(runtime: Runtime) -> Function:
    def notify(channel: Any, payload: Any) -> str:
        runtime.executor.notify(None if channel is None else str(channel),
                                None if payload is None else str(payload))
        return ""  # void: prints as nothing, and is not NULL
    return notify


@FUNCTIONS.internal("sqlext_listening_channels", 0, runtime=True)
def _listening_channels(runtime: Runtime) -> Function:
    """The session's channels as a text[] (pg_listening_channels() unnests it)."""
    return lambda: json.dumps(runtime.listening(runtime.context().process_id))
