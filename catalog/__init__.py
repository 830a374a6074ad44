"""The catalog: schema objects, the dataflow, roles, types and errors.

Pure data: immutable values, no I/O. May import nothing of ours outside
``catalog``.
"""
