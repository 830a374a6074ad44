"""pg_catalog and information_schema as data: system tables refilled from
the catalog after every schema change (``tables``, ``information_schema``)
and live views refilled before a statement reads them (``live``), their rows
written by column name (``rows``).

May import: the executor's core modules, ``executor.codecs``,
``executor.values``, ``executor.streaming``, ``catalog``, ``storage``.
"""
