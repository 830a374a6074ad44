"""Materialized views that are never stale.

``create`` compiles CREATE MATERIALIZED VIEW: ``shape`` analyses the
translated query, ``programs`` generates the SQLite triggers and statements
that keep the view up to date (built from ``statements``), or the program
that recomputes it when it cannot be maintained incrementally.

May import: ``sqlext.sql``, ``sqlext.translate``, ``executor``, ``catalog``.
"""
