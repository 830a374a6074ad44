"""The server: the engine as the wire layer sees it, and ``sqlext serve``.

``engine.Engine`` composes executor, scheduler, dataflow runtime,
durability and sessions and is the wire layer's ``Backend``; ``sessions``
keeps the sessions by process id (pg_stat_activity, pg_cancel_backend);
``hba`` the authentication rules; ``notify_hub`` LISTEN / NOTIFY delivery;
``dashboard`` the web page; ``serve`` builds and runs all of it.

May import: every package; only ``sqlext.tools`` imports it.
"""
