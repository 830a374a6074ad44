"""SQL functions SQLite calls on sqlext's behalf.

Every PostgreSQL function sqlext knows is declared once: its signature (for
the translator), its flags and its implementation (registered on the
database by ``register``).

May import: the executor's core modules, ``executor.codecs``,
``executor.values``, ``executor.streaming``, ``executor.pg_catalog``,
``catalog``, ``storage``.
"""
