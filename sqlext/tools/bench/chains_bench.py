"""Chains of procedures and of triggers, after S-Store's Figures 6 and 7:
the engine moving each batch along a dataflow, against a client doing the
same steps itself.

* ``pe-chain``: a chain of 1..10 procedures. With PE triggers, each
  procedure is started by the stream the one before writes and the client
  only inserts into the first stream (pipelined: a streaming source does
  not wait). Client-driven, the client CALLs each procedure in turn and waits
  for each to commit before the next, because the next step may only run on
  a committed result; it carries the batch's values from call to call.
* ``ee-chain``: a chain of 1..9 EE triggers inside one transaction. With
  triggers, one INSERT fires the chain; client-driven, the client sends the
  same INSERTs itself in one transaction (BEGIN, one INSERT per stage,
  COMMIT), each waiting for its reply.

Both run in memory, so the figures show the dataflow's scheduling and not
the disk; ``sqlext bench recovery`` measures the chains with the log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import psycopg

from sqlext.tools.bench.harness import Measured, Variant, timed_run
from sqlext.tools.bench.pipeline import send_pipelined

PE_LENGTHS: Final = (1, 2, 4, 6, 8, 10)
EE_LENGTHS: Final = (1, 3, 6, 9)
BATCHES: Final = 1000


def chain_script(length: int) -> str:
    """``length`` procedures, each PE-triggered by the stream the one before
    writes; the last writes a table."""
    lines = ["CREATE TABLE chain_done (id int, payload text);"]
    lines += [f"CREATE STREAM chain_{i} (id int NOT NULL, payload text);"
              for i in range(length)]
    for step in range(1, length + 1):
        target = "chain_done" if step == length else f"chain_{step}"
        lines.append(f"CREATE PROCEDURE step_{step}() LANGUAGE sql AS $$ INSERT INTO {target} "
                     f"SELECT id, payload FROM chain_{step - 1}; $$;")
        lines.append(f"CREATE TRIGGER start_{step} AFTER INSERT ON chain_{step - 1} "
                     f"EXECUTE PROCEDURE step_{step}();")
    return "\n".join(lines)


def client_chain_script(length: int) -> str:
    """The same steps as procedures the client calls: each writes its
    output into a table."""
    lines = ["CREATE TABLE chain_done (id int, payload text);"]
    for step in range(1, length + 1):
        target = "chain_done" if step == length else f"chain_{step}"
        if step < length:
            lines.append(f"CREATE TABLE {target} (id int NOT NULL, payload text);")
        lines.append(f"CREATE PROCEDURE step_{step}(p_id int, p_payload text) LANGUAGE sql "
                     f"AS $$ INSERT INTO {target} VALUES (p_id, p_payload); $$;")
    return "\n".join(lines)


def ee_chain_script(length: int) -> str:
    """Streams ee_0..ee_{length-1}, each with an EE trigger that copies its
    new rows into the next; the last trigger writes the table ee_done."""
    lines = ["CREATE TABLE ee_done (id int, payload text);"]
    lines += [f"CREATE STREAM ee_{i} (id int NOT NULL, payload text);" for i in range(length)]
    for step in range(1, length + 1):
        target = "ee_done" if step == length else f"ee_{step}"
        lines.append(f"CREATE TRIGGER forward_{step} AFTER INSERT ON ee_{step - 1} AS $$ "
                     f"INSERT INTO {target} SELECT id, payload FROM ee_{step - 1}; $$;")
    return "\n".join(lines)


def client_ee_script(length: int) -> str:
    lines = ["CREATE TABLE ee_done (id int, payload text);"]
    lines += [f"CREATE TABLE ee_{i} (id int NOT NULL, payload text);" for i in range(length)]
    return "\n".join(lines)


Runner = Callable[[int, int], Callable[[str], Measured]]
"""(chain length, batches) -> a variant's run."""


def feed_chain(conn: psycopg.Connection, batches: int) -> None:
    """One batch per transaction into chain_0, pipelined, then wait until
    every batch went through the chain."""
    send_pipelined(conn, b"INSERT INTO chain_0 VALUES ($1, 'payload')",
                   ((batch,) for batch in range(batches)))
    conn.execute("SELECT sqlext_drain(600)")


def _script(text: str) -> Callable[[psycopg.Connection], object]:
    return lambda conn: conn.execute(text)


def _rows_of(table: str) -> Callable[[psycopg.Connection], object]:
    return lambda conn: conn.execute(f"SELECT count(*), sum(id) FROM {table}").fetchone()


def _pe_triggers(length: int, batches: int) -> Callable[[str], Measured]:
    return timed_run(_script(chain_script(length)), lambda conn: feed_chain(conn, batches),
                     batches, _rows_of("chain_done"))


def _pe_client(length: int, batches: int) -> Callable[[str], Measured]:
    calls = [f"CALL step_{step}(%s, %s)" for step in range(1, length + 1)]

    def work(conn: psycopg.Connection) -> None:
        for batch in range(batches):
            for call in calls:
                conn.execute(call, (batch, "payload"), prepare=True)
    return timed_run(_script(client_chain_script(length)), work, batches,
                     _rows_of("chain_done"))


def _ee_triggers(length: int, batches: int) -> Callable[[str], Measured]:
    def work(conn: psycopg.Connection) -> None:
        for batch in range(batches):
            conn.execute("INSERT INTO ee_0 VALUES (%s, 'payload')", (batch,), prepare=True)
    return timed_run(_script(ee_chain_script(length)), work, batches, _rows_of("ee_done"))


def _ee_client(length: int, batches: int) -> Callable[[str], Measured]:
    inserts = [f"INSERT INTO ee_{step} VALUES (%s, 'payload')" for step in range(length)]
    inserts.append("INSERT INTO ee_done VALUES (%s, 'payload')")

    def work(conn: psycopg.Connection) -> None:
        for batch in range(batches):
            with conn.transaction():
                for insert in inserts:
                    conn.execute(insert, (batch,), prepare=True)
    return timed_run(_script(client_ee_script(length)), work, batches, _rows_of("ee_done"))


def _versus(length: int, kind: str, with_triggers: Runner, client_driven: Runner,
            batches: int) -> list[Variant]:
    """The chain with triggers, compared with the same chain client-driven;
    both must end with the same rows."""
    same = f"{kind} chain of {length}"
    client = Variant(f"chain of {length}, client-driven", "sqlext",
                     client_driven(length, batches), agrees_with=same)
    return [Variant(f"chain of {length}, {kind} triggers", "sqlext",
                    with_triggers(length, batches), versus=client.label, agrees_with=same),
            client]


def pe_variants(lengths: tuple[int, ...] = PE_LENGTHS, batches: int = BATCHES) -> list[Variant]:
    return [v for length in lengths
            for v in _versus(length, "PE", _pe_triggers, _pe_client, batches)]


def ee_variants(lengths: tuple[int, ...] = EE_LENGTHS, batches: int = BATCHES) -> list[Variant]:
    return [v for length in lengths
            for v in _versus(length, "EE", _ee_triggers, _ee_client, batches)]
