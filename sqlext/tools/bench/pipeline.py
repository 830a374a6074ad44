"""A client that keeps many statements in flight (libpq pipeline mode),
one transaction and one Sync per row, as a streaming source does."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import psycopg
from psycopg import pq

PIPELINE_DEPTH: Final = 200
"""Statements a pipelined client keeps in flight."""


def send_pipelined(conn: psycopg.Connection, query: bytes,
                   rows: Iterable[Sequence[object]]) -> None:
    """Run ``query`` once per row of parameters (sent as text), each in its
    own transaction, with up to PIPELINE_DEPTH of them in flight."""
    pgconn = conn.pgconn
    pgconn.enter_pipeline_mode()
    in_flight = 0
    try:
        for row in rows:
            pgconn.send_query_params(query, [str(value).encode() for value in row])
            pgconn.pipeline_sync()
            in_flight += 1
            if in_flight >= PIPELINE_DEPTH:
                await_sync(pgconn)
                in_flight -= 1
        while in_flight:
            await_sync(pgconn)
            in_flight -= 1
    finally:
        pgconn.exit_pipeline_mode()


def await_sync(pgconn: pq.abc.PGconn) -> None:
    """The results of the oldest statement in flight and its Sync."""
    while True:
        result = pgconn.get_result()
        if result is None:
            continue
        if result.status == pq.ExecStatus.PIPELINE_SYNC:
            return
        if result.status not in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
            raise RuntimeError(result.get_error_message())
