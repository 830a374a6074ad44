"""Exactly-once writes: every Spark task's rows go in under a key that
names them (the target, the write or streaming query, the micro-batch epoch
and the task's partition), claimed in the same transaction as the rows.

A key names the relation by OID (a table dropped and made again under
the same name is a new target) and, for people reading the ledger, by name.
The keys are rows of ``sqlext_spark.writes`` in the user's database, so
they commit, roll back, replay from the command log and recover from a
snapshot exactly as the rows they guard do. A task whose key is already
there was done before (a retried task, a re-run of the same write, a
micro-batch Spark runs again after a restart): its rows are skipped, not
written twice.
"""

from __future__ import annotations

from typing import Final

import psycopg

from sqlext.spark.catalog_lookup import Relation

SCHEMA: Final = "sqlext_spark"
EPOCH_DONE: Final = -1
"""The partition of the key a streaming query's driver adds when every
task of a micro-batch has written: a re-run of that epoch writes nothing."""
_CREATE: Final = (
    f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}",
    f"CREATE TABLE IF NOT EXISTS {SCHEMA}.writes (relation oid NOT NULL, writer text NOT NULL, "
    "epoch int8 NOT NULL, part int4 NOT NULL, target text NOT NULL, row_count int8, "
    "written_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (relation, writer, epoch, part))",
)


def prepare(connection: psycopg.Connection) -> None:
    """Make the ledger if the database has none yet (done on the driver;
    a read first, so a write job runs no DDL once the ledger exists)."""
    found = connection.execute(f"SELECT to_regclass('{SCHEMA}.writes')").fetchone()
    if found is not None and found[0] is not None:
        return
    for statement in _CREATE:
        connection.execute(statement)


def claim(connection: psycopg.Connection, target: Relation, writer: str, epoch: int,
          part: int) -> bool:
    """Inside the writing transaction: True if the key is new (the rows are
    to be written), False if it was written before."""
    cursor = connection.execute(
        f"INSERT INTO {SCHEMA}.writes (relation, writer, epoch, part, target) "
        "VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
        (target.oid, writer, epoch, part, target.label))
    return cursor.rowcount == 1


def written(connection: psycopg.Connection, target: Relation, writer: str, epoch: int,
            part: int, rows: int) -> None:
    connection.execute(f"UPDATE {SCHEMA}.writes SET row_count = %s WHERE relation = %s AND "
                       "writer = %s AND epoch = %s AND part = %s",
                       (rows, target.oid, writer, epoch, part))


def done(connection: psycopg.Connection, target: Relation, writer: str, epoch: int,
         part: int) -> bool:
    """Whether the key, or its whole epoch, was written before (a read: the
    claim in the writing transaction is what decides)."""
    row = connection.execute(f"SELECT 1 FROM {SCHEMA}.writes WHERE relation = %s AND writer = %s "
                             "AND epoch = %s AND part IN (%s, %s)",
                             (target.oid, writer, epoch, part, EPOCH_DONE)).fetchone()
    return row is not None


def finish_epoch(connection: psycopg.Connection, target: Relation, writer: str, epoch: int) -> None:
    """A micro-batch is complete: mark it, and forget the keys of earlier
    epochs (Spark's own commit log has them: it never runs them again)."""
    with connection.transaction():
        claim(connection, target, writer, epoch, EPOCH_DONE)
        connection.execute(f"DELETE FROM {SCHEMA}.writes WHERE relation = %s AND writer = %s "
                           "AND epoch < %s", (target.oid, writer, epoch))


def forget(connection: psycopg.Connection, target: Relation, writer: str) -> None:
    """An overwrite starts the write over: its earlier keys no longer hold."""
    connection.execute(f"DELETE FROM {SCHEMA}.writes WHERE relation = %s AND writer = %s",
                       (target.oid, writer))
