"""Advisory locks. sqlext runs one transaction at a time on one executor,
so a lock that makes another session wait could never be granted while the
session holding it waits for the executor: pg_advisory_lock and its family
are not provided (42883). pg_advisory_unlock_all() is, with its exact
meaning for a session that can hold no advisory lock: it releases none.
Connection pools (asyncpg's) call it whenever a connection is given back."""

from __future__ import annotations

from catalog import types as t
from catalog.sqltypes import SqlType
from executor.functions.declare import Declarations

FUNCTIONS = Declarations()


@FUNCTIONS.scalar("pg_advisory_unlock_all", SqlType(t.VOID), max_args=0)
def _unlock_all() -> str:
    return ""  # void: prints as nothing, and is not NULL
