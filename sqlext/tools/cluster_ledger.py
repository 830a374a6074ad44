"""Which scripts a node has: ``sqlext_cluster.applied_scripts``, one row per
script ``sqlext run --cluster`` applied there, keyed by the SHA-256 of the
script's text. The row is claimed in the transaction that applies the
script, so it exists exactly when the script's changes do: it commits,
rolls back, replays from the command log and recovers from a snapshot with
them. A run of the same script finds it and skips the node."""

from __future__ import annotations

from typing import Final

import psycopg

SCHEMA: Final = "sqlext_cluster"
TABLE: Final = "applied_scripts"
LEDGER: Final = f"{SCHEMA}.{TABLE}"
_FOUND: Final = ("SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
                 "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relname = %s")
_CREATE: Final = (
    f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}",
    f"CREATE TABLE IF NOT EXISTS {LEDGER} (digest text PRIMARY KEY, script text NOT NULL, "
    "applied_at timestamptz NOT NULL DEFAULT now())",
)


def claim(connection: psycopg.Connection, digest: str, script: str) -> str | None:
    """Inside the applying transaction: None if the script is new on this
    node (its row is in now), else when it was applied (as text). The ledger
    is made the first time; a read first, so a node that has one runs no DDL
    for it."""
    if connection.execute(_FOUND, (SCHEMA, TABLE)).fetchone() is None:
        for statement in _CREATE:
            connection.execute(statement)
    claimed = connection.execute(f"INSERT INTO {LEDGER} (digest, script) VALUES (%s, %s) "
                                 "ON CONFLICT DO NOTHING", (digest, script))
    if claimed.rowcount == 1:
        return None
    row = connection.execute(f"SELECT applied_at::text FROM {LEDGER} WHERE digest = %s",
                             (digest,)).fetchone()
    assert row is not None
    return str(row[0])
