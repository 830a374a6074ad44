"""Snapshots of older state versions load as the catalog keeps objects now
(sqlext/durability/engine_state.py)."""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import Iterator
from dataclasses import fields

import pytest

from catalog import types as t
from catalog.dataflow import StreamOptions
from catalog.schema import Catalog, Column, Relation, Sequence
from catalog.system import system_relations
from executor.core import Executor
from executor.streaming.scheduler import Scheduler
from executor.streaming.windows import Windows
from sqlext.durability import engine_state
from storage.sqlite import Database


@pytest.fixture
def engine() -> Iterator[tuple[Executor, Scheduler]]:
    loop = asyncio.new_event_loop()
    database = Database()
    executor = Executor(database, Catalog().with_relations(system_relations()),
                        loop.create_future)
    scheduler = Scheduler(executor, lambda *_: None, lambda: None,
                          Windows(executor.database, executor.undo))
    yield executor, scheduler
    database.close()
    loop.close()


def _version_4(relation: Relation) -> Relation:
    """``relation`` as a version 4 snapshot loads now: it kept no condition
    or row type, and its comment where the condition is now kept."""
    kept = [getattr(relation, f.name) for f in fields(Relation)
            if f.name not in ("predicate", "row_type")]
    loaded = Relation.__new__(Relation)
    loaded.__setstate__(tuple(kept))
    return loaded


def _snapshot(engine: tuple[Executor, Scheduler], version: int,
              relations: list[Relation], sequences: list[Sequence]) -> bytes:
    executor, scheduler = engine
    state = pickle.loads(engine_state.capture(executor, scheduler, 7))
    state["version"] = version
    state["catalog"] |= {"relations": relations, "sequences": sequences, "next_oid": 16400}
    return pickle.dumps(state)


def test_a_version_4_snapshot_keeps_its_comments_and_names_its_sequences(
        engine: tuple[Executor, Scheduler]) -> None:
    sequence = Sequence(16384, "public", "t_id_seq", owned_by=("t", "id"))
    table = Relation(16385, "public", "t", "r", "t", (
        Column("id", t.INT4, not_null=True, default="nextval('16384'::regclass)"),),
        comment="the table")
    index = Relation(16386, "public", "t_i", "i", "t_i", definition="CREATE INDEX t_i ON "
                     "public.t USING btree (id)", index_table="t", index_columns=("id",),
                     comment="the index")
    data = _snapshot(engine, 4, [_version_4(table), _version_4(index)], [sequence])
    executor, scheduler = engine
    assert engine_state.restore(executor, scheduler, data) == 7
    relations = executor.catalog.relations
    loaded_index = relations["public", "t_i"]
    assert (loaded_index.comment, loaded_index.predicate) == ("the index", None)
    loaded_table = relations["public", "t"]
    assert loaded_table.comment == "the table"
    assert loaded_table.columns[0].default == "nextval('public.t_id_seq'::regclass)"


def test_the_current_version_keeps_conditions_row_types_and_comments(
        engine: tuple[Executor, Scheduler]) -> None:
    index = Relation(16386, "public", "t_i", "i", "t_i", predicate="(id > 0)",
                     comment="the index")
    table = Relation(16385, "public", "t", "r", "t", (Column("id", t.INT4),), row_type=16388,
                     comment="the table")
    data = _snapshot(engine, engine_state.STATE_VERSION, [table, index], [])
    executor, scheduler = engine
    engine_state.restore(executor, scheduler, data)
    assert executor.catalog.relations["public", "t_i"] == index
    assert executor.catalog.relations["public", "t"] == table


def test_stream_readers_round_trip_and_older_snapshots_have_none(
        engine: tuple[Executor, Scheduler]) -> None:
    executor, scheduler = engine
    stream = Relation(16385, "public", "s", "r", "s", (Column("n", t.INT4),),
                      stream=StreamOptions())
    executor.catalog = executor.catalog.with_relations([stream])
    executor.readers.restore({16385: {"spark": 7, "audit": 3}, 16999: {"dropped": 1}})
    current = engine_state.capture(executor, scheduler, 9)
    older = pickle.loads(current)
    del older["readers"]
    older["version"] = 5
    executor.readers.restore({})
    assert engine_state.restore(executor, scheduler, current) == 9
    assert (executor.readers.of(16385), executor.readers.of(16999)) == (
        {"spark": 7, "audit": 3}, {})
    assert executor.readers.floor(16385) == 3
    engine_state.restore(executor, scheduler, pickle.dumps(older))
    assert executor.readers.of(16385) == {}
