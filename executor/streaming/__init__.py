"""The streaming side of the executor: the scheduler of transaction
executions, windows, notify streams, and the observed state of the dataflow.

May import: the executor's core modules, ``executor.values``,
``executor.ddl``, ``catalog``, ``storage``.
"""
