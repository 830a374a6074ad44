"""The PostgreSQL wire protocol, v3: message codecs, framing, the per-connection
state machine, authentication, TLS and the asyncio adapter.

Knows bytes and sessions, never SQL meaning: it talks to a ``Backend``
(``backend``) that the server wires in. May import nothing of ours outside
``wire``.
"""
