"""Statements to what the executor runs: plans and schema-change specs.

``compiler.compile_statement`` is the one entry point, cached per statement
text, parameter types, catalog version and session settings;
``table_ddl``, ``role_ddl`` and ``dataflow_ddl`` turn DDL trees into the
executor's specs; ``python_procedures`` holds LANGUAGE python bodies.

May import: ``sqlext.sql``, ``sqlext.translate``, ``sqlext.matview``,
``executor``, ``catalog``, ``wire.auth`` (password verifiers).
"""
