"""Schema changes: the specs the compiler builds and how each is applied.

``tables`` (tables, streams, indexes, views, sequences, ALTER, DROP),
``dataflow`` (windows, procedures, triggers), ``roles`` (roles and
privileges), ``schemas`` (DROP SCHEMA), ``privileges`` (who may change what),
``dispatch`` (applying any spec as a role).

May import: the executor's core modules, ``executor.streaming.windows``,
``catalog``, ``storage``.
"""
