"""Materialized views as the catalog keeps them: how each is maintained.

Pure data, like the rest of the catalog. The SQL is generated once, when
the view is created (``sqlext.matview.programs``), and kept here so that REFRESH
and DROP run exactly what CREATE built, and so that EXPLAIN can show it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Matview:
    incremental: bool
    """True: SQLite triggers on the base relations apply each row change to
    the view's state in the changing transaction. False: the view is
    recomputed in full when it is read after a base relation changed."""
    sources: tuple[tuple[str, str], ...]
    """(schema, name) of every relation the query reads (DROP checks them)."""
    watched: tuple[str, ...]
    """Storage names of the tables whose changes change the view's result
    (its base tables, or those of the materialized views it reads)."""
    plan: tuple[str, ...]
    """The maintenance plan, one line per row of EXPLAIN MATERIALIZED VIEW."""
    populate: tuple[str, ...]
    """SQLite statements that compute the view from scratch into its empty state."""
    clear: tuple[str, ...]
    """SQLite statements that empty its state."""
    drop: tuple[str, ...]
    """SQLite statements that remove everything CREATE made."""
    reason: str | None = None
    """Why the view is not maintained incrementally."""
