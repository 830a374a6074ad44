"""Storage values in other forms: casts and date/time arithmetic
(``conversions``), JSON text (``json_text``) and Arrow arrays (``arrow``); and
numeric's arithmetic as PostgreSQL computes it (``numeric_math``, with the
aggregates in ``numeric_aggregates``).

May import: ``executor.codecs``, ``catalog``.
"""
