"""setseed(): after it, a session's random numbers are the same on every
run, and the command log redoes them exactly.

PostgreSQL's own generator draws other numbers (differential tests check
setseed's result and errors); what must hold is that a seeded session is
repeatable, in and outside transactions, and that recovery, which redoes
each transaction with its recorded seed, stores the values it stored.
"""

from __future__ import annotations

import signal
from pathlib import Path

import psycopg

from tests.fixtures.servers import ServerProcess, own_schema, start_server


def _draws(connection: psycopg.Connection) -> list[object]:
    """Random numbers a seeded session draws: autocommit statements, then
    a transaction that seeds again after it wrote."""
    connection.execute("SELECT setseed(0.5)")
    drawn: list[object] = list(connection.execute("SELECT random(), random()").fetchone() or ())
    drawn.append(connection.execute("SELECT setseed(-0.25), random()").fetchone())
    connection.execute("CREATE TABLE IF NOT EXISTS seeded (n int, x float8)")
    with connection.transaction():
        connection.execute("INSERT INTO seeded VALUES (0, 0)")
        drawn.append(connection.execute("SELECT setseed(-0.25), random()").fetchone())
        drawn.append(connection.execute("SELECT random()").fetchone())
    return drawn


def test_a_seeded_session_draws_the_same_numbers(server: ServerProcess) -> None:
    with own_schema(server, "seed_a") as first, own_schema(server, "seed_b") as second:
        drawn = _draws(first)
        assert _draws(second) == drawn
        assert len(set(map(str, drawn))) == len(drawn) - 1  # only the repeated seed repeats
        assert drawn[2] == drawn[3]
        first.execute("SELECT setseed(0.75)")
        assert first.execute("SELECT random()").fetchone() != (drawn[0],)


def _store_seeded(connection: psycopg.Connection) -> list[tuple[object, ...]]:
    """Rows of random numbers written after setseed(), in autocommit and in
    a transaction that seeds after its first write."""
    connection.execute("CREATE TABLE luck (n int, x float8)")
    connection.execute("SELECT setseed(0.3)")
    connection.execute("INSERT INTO luck VALUES (1, random())")
    connection.execute("INSERT INTO luck SELECT g, random() FROM generate_series(2, 3) g")
    with connection.transaction():
        connection.execute("INSERT INTO luck VALUES (4, 0)")
        connection.execute("SELECT setseed(-0.7)")
        connection.execute("INSERT INTO luck VALUES (5, random())")
    return connection.execute("SELECT * FROM luck ORDER BY n").fetchall()


def test_seeded_values_are_redone_by_recovery(tmp_path: Path) -> None:
    reference = start_server("--in-memory")
    try:
        with reference.connect(autocommit=True) as connection:
            expected = _store_seeded(connection)
    finally:
        reference.stop()
    server = start_server("--data-dir", str(tmp_path))
    try:
        with server.connect(autocommit=True) as connection:
            assert _store_seeded(connection) == expected
        server.stop(signal.SIGKILL)
        server = start_server("--data-dir", str(tmp_path))
        with server.connect(autocommit=True) as connection:
            assert connection.execute("SELECT * FROM luck ORDER BY n").fetchall() == expected
    finally:
        server.stop()
