"""The dataflow as the engine runs and shows it.

``runtime`` runs procedure bodies and EE triggers (for CALL and for the
scheduler's transaction executions); ``graph`` is what feeds what;
``render`` and ``explain`` show it with live counts (EXPLAIN DATAFLOW,
``sqlext graph``, the dashboard).

May import: ``sqlext.sql``, ``sqlext.translate``, ``sqlext.compile``,
``executor``, ``catalog``, ``storage``.
"""
