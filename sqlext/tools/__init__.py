"""The ``sqlext`` command line and what it runs besides the server.

``cli`` is the entry point; ``script`` / ``script_runner`` apply SQL
scripts (``sqlext run``); ``status_command`` and ``graph_command`` look at a
running server; ``client_options`` are psql's connection options;
``processes`` starts servers as processes, ``peer`` a PostgreSQL 15 cluster
to compare with; ``logs`` configures the server log; ``bench`` the
benchmarks.

May import: everything.
"""
