"""Durability: the command log's records, group commit, checkpoints, recovery.

``records`` defines every command-log record (writer and reader share it),
``journal`` turns commits into records, ``checkpoint`` takes snapshots
without stopping the stream, ``recovery`` brings a data directory back,
``service`` runs them for one data directory, ``engine_state`` is what a
snapshot keeps besides the tables, ``views`` the storage system views.

May import: the ``sqlext`` subpackages before it, ``executor``, ``catalog``,
``storage``.
"""
