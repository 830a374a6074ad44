"""PostgreSQL statement trees to SQLite statement trees, with PostgreSQL types.

``translator.Translator`` is assembled from layers: ``expression_rules``
(operators, casts, literals), ``function_rules`` (function calls),
``sources`` (FROM items), with ``scope`` for name resolution, ``naming`` for
result column names, ``composite`` for record values, ``dml`` for INSERT,
UPDATE and DELETE and ``type_names`` for types written in SQL.

May import: ``sqlext.sql``, ``executor`` (function declarations, value
codecs), ``catalog``.
"""
