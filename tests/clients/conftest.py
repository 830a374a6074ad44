"""The client tools users already point at PostgreSQL (SQLAlchemy, Alembic,
asyncpg, pg_dump, pandas, psycopg2, node-postgres, JDBC tools), run for real
against sqlext and, where a comparison means something, against a real
PostgreSQL 15 started once for the whole test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sqlext.tools.peer import PostgresPeer


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresPeer]:
    """A throwaway PostgreSQL 15 (user postgres, database postgres)."""
    with PostgresPeer() as peer:
        yield peer
