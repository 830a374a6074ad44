"""LISTEN and UNLISTEN in transaction blocks against PostgreSQL 15: the same
sessions doing the same things on both must receive the same notifications.

A session reads notifications only between transactions, on the channels
it listens to by then: what is committed while it is in a block that
UNLISTENs a channel never reaches it, what is committed on a channel it
LISTENs to in the block does (it was listening to something already), and
LISTEN and UNLISTEN that are rolled back change nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import psycopg
import pytest

from sqlext.tools.peer import PostgresPeer
from tests.fixtures.notifications import WAIT_S
from tests.fixtures.servers import ServerProcess

Scenario = Callable[[psycopg.Connection, psycopg.Connection, Callable[[str], str]], None]
"""(listener, notifier, channel name by letter) -> None."""


def _unlisten_in_a_block(listener: psycopg.Connection, notifier: psycopg.Connection,
                         c: Callable[[str], str]) -> None:
    listener.execute(f"LISTEN {c('a')}; LISTEN {c('b')}")
    listener.execute("BEGIN")
    listener.execute(f"UNLISTEN {c('a')}")
    notifier.execute(f"NOTIFY {c('a')}, 'during the block'")
    notifier.execute(f"NOTIFY {c('b')}, 'during the block, still listened'")
    listener.execute("SELECT 1")
    listener.execute("COMMIT")
    notifier.execute(f"NOTIFY {c('a')}, 'after the block'")


def _unlisten_in_a_block_that_writes(listener: psycopg.Connection,
                                     notifier: psycopg.Connection,
                                     c: Callable[[str], str]) -> None:
    listener.execute("CREATE TABLE IF NOT EXISTS written (n int)")
    listener.execute(f"LISTEN {c('a')}; LISTEN {c('b')}")
    listener.execute("BEGIN")
    listener.execute(f"UNLISTEN {c('a')}")
    listener.execute("INSERT INTO written VALUES (1)")
    notifier.execute(f"NOTIFY {c('a')}, 'during the block'")
    listener.execute(f"NOTIFY {c('a')}, 'its own, in the block'")
    listener.execute("COMMIT")
    notifier.execute(f"NOTIFY {c('a')}, 'after the block'")


def _unlisten_all_in_a_block(listener: psycopg.Connection, notifier: psycopg.Connection,
                             c: Callable[[str], str]) -> None:
    listener.execute(f"LISTEN {c('a')}; LISTEN {c('b')}")
    listener.execute("BEGIN; UNLISTEN *")
    notifier.execute(f"NOTIFY {c('b')}, 'during the block'")
    listener.execute("COMMIT")
    notifier.execute(f"NOTIFY {c('a')}, 'after the block'")


def _rolled_back(listener: psycopg.Connection, notifier: psycopg.Connection,
                 c: Callable[[str], str]) -> None:
    listener.execute(f"LISTEN {c('b')}")
    listener.execute("BEGIN")
    listener.execute(f"LISTEN {c('a')}")
    notifier.execute(f"NOTIFY {c('a')}, 'during a LISTEN rolled back'")
    listener.execute("ROLLBACK")
    notifier.execute(f"NOTIFY {c('a')}, 'after a LISTEN rolled back'")
    listener.execute("BEGIN")
    listener.execute(f"UNLISTEN {c('b')}")
    notifier.execute(f"NOTIFY {c('b')}, 'during an UNLISTEN rolled back'")
    listener.execute("ROLLBACK")
    notifier.execute(f"NOTIFY {c('b')}, 'after an UNLISTEN rolled back'")
    listener.execute("BEGIN")
    listener.execute("SAVEPOINT s")
    listener.execute(f"UNLISTEN {c('b')}")
    listener.execute("ROLLBACK TO SAVEPOINT s")
    listener.execute("COMMIT")
    notifier.execute(f"NOTIFY {c('b')}, 'after an UNLISTEN rolled back to its savepoint'")


def _listen_in_a_block(listener: psycopg.Connection, notifier: psycopg.Connection,
                       c: Callable[[str], str]) -> None:
    listener.execute(f"LISTEN {c('b')}")
    listener.execute("BEGIN")
    listener.execute(f"LISTEN {c('a')}")
    notifier.execute(f"NOTIFY {c('a')}, 'during the block'")
    listener.execute("COMMIT")
    notifier.execute(f"NOTIFY {c('a')}, 'after the block'")
    listener.execute("BEGIN")
    listener.execute(f"UNLISTEN {c('a')}")
    listener.execute(f"LISTEN {c('a')}")
    notifier.execute(f"NOTIFY {c('a')}, 'during UNLISTEN then LISTEN'")
    listener.execute("COMMIT")


SCENARIOS: dict[str, Scenario] = {
    "UNLISTEN in a block": _unlisten_in_a_block,
    "UNLISTEN in a block that writes": _unlisten_in_a_block_that_writes,
    "UNLISTEN * in a block": _unlisten_all_in_a_block,
    "LISTEN and UNLISTEN rolled back": _rolled_back,
    "LISTEN in a block": _listen_in_a_block,
}


def _received(dsn: str, scenario: Scenario) -> list[tuple[str, str]]:
    """What the listener gets, as (channel letter, payload), until a
    sentinel sent last on a channel of its own."""
    suffix = uuid.uuid4().hex[:12]  # channels are server-wide

    def channel(letter: str) -> str:
        return f"{letter}_{suffix}"

    with psycopg.connect(dsn, autocommit=True) as listener, \
            psycopg.connect(dsn, autocommit=True) as notifier:
        scenario(listener, notifier, channel)
        listener.execute(f"LISTEN {channel('end')}")
        notifier.execute(f"NOTIFY {channel('end')}, 'sentinel'")
        got: list[tuple[str, str]] = []
        for note in listener.notifies(timeout=WAIT_S):
            got.append((note.channel.removesuffix(f"_{suffix}"), note.payload))
            if note.payload == "sentinel":
                break
        return got


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_a_session_reads_what_postgres_would(name: str, server: ServerProcess,
                                             postgres_peer: PostgresPeer) -> None:
    expected = _received(postgres_peer.dsn, SCENARIOS[name])
    assert expected[-1] == ("end", "sentinel")
    assert _received(server.dsn, SCENARIOS[name]) == expected
