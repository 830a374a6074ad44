"""sqlext above the executor: the SQL dialect and the composition of the engine.

Subpackages, each importing only the ones before it (and ``wire``,
``executor``, ``catalog``, ``storage``)::

    sql ← translate ← matview ← compile ← dataflow ← session ← durability ← server ← spark ← tools

* ``sql``: SQL text to statement trees and back (the dialect, our nodes,
  SQLite's printer, run-time parameters).
* ``translate``: PostgreSQL statement trees to SQLite trees, with types.
* ``matview``: materialized views maintained incrementally.
* ``compile``: statements to executable plans and schema-change specs, cached.
* ``dataflow``: running procedures and EE triggers; the dataflow graph.
* ``session``: one client session (transactions, portals, COPY, utilities).
* ``durability``: command log records, the journal, checkpoints, recovery.
* ``server``: the engine as the wire layer sees it, and ``sqlext serve``.
* ``spark``: the Spark data source, a client over the wire: it imports
  none of the engine, and only the benchmarks import it.
* ``tools``: the command line, client tools and benchmarks.

``version`` and ``progress`` import nothing of ours and serve every layer.
"""
