"""Storage values in other forms: casts and date/time arithmetic
(``conversions``), JSON text (``json_text``) and Arrow arrays (``arrow``).

May import: ``executor.codecs``, ``catalog``.
"""
