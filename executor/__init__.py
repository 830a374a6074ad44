"""The executor: one serial executor owns every state change.

The core modules stay flat: ``core`` (the serial executor), ``context``
(what SQL functions see of the running statement), ``plans`` (what the layer
above hands over), ``batches`` (stream batch ids), ``notifications``,
``matview_maintenance`` and ``error_translation`` (SQLite's errors as
PostgreSQL's). Subpackages: ``codecs`` (wire formats per type family),
``values`` (casts, JSON text, Arrow), ``ddl`` (applying schema changes),
``streaming`` (scheduler, windows, notify streams), ``functions`` (every
SQL function, declared once), ``pg_catalog`` (system tables as data).

May import: ``catalog``, ``storage``.
"""
