"""Storage: the embedded SQLite database (``sqlite``, the only module that
imports sqlite3), the command log's segment files, snapshots, COPY's files
and the data directory lock.

May import nothing of ours outside ``storage``.
"""
