"""One client session, as the wire layer's ``Session``.

``engine_session.EngineSession`` drives the executor for one connection
(transactions, the extended protocol, statement execution); what it needs of
the engine is the ``SessionHost`` protocol. ``portals`` holds prepared
statements and portals, ``utilities`` the statements a session handles
itself, ``copy_stdio`` and ``copy_files`` COPY, ``activity`` what
pg_stat_activity shows.

May import: the ``sqlext`` subpackages before it, ``executor``, ``catalog``,
``storage``, ``wire.backend`` and ``wire.messages``.
"""
