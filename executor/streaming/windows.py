"""Windows: tuples of a stream, staged and slid by count (ROWS) or by the
values of a column (RANGE).

Storage. A window is a table with its stream's columns, ``batch_id`` and
two hidden columns: ``sqlext_seq`` (arrival order; AUTOINCREMENT, so never
reused) and ``sqlext_visible`` (1 visible, 0 staged, 2 just arrived). A
SQLite trigger on the stream copies every inserted row into the window as
"just arrived", so arrivals commit, roll back and survive savepoints exactly
like the stream's own rows. After each INSERT statement the engine places
the arrivals (``Windows.place``): in arrival order each becomes visible or
staged, and when a slide's worth has arrived the window slides and its
AFTER SLIDE triggers run, one slide at a time, in the same transaction.
Per-window counters live in ``sqlext_window_state`` for the same reason.

Rules (chosen explicitly; see docs/sql.md):

* ROWS n SLIDE m: until the window first holds n tuples, each arrival is
  visible at once; the arrival that fills it is a slide. Afterwards
  arrivals are staged; when m are staged the window slides: the newest n of
  visible and staged tuples are visible, the rest leave. With PARTITION BY
  each value of the column has its own window.
* RANGE n SLIDE m ON c: slides happen at multiples of m. After a slide at
  boundary E the visible tuples are those with E - n <= c < E; tuples with
  c >= E are staged; an arrival with c >= E + m slides the window to the
  largest multiple of m not above c. Until the first slide every arrival is
  visible. A late arrival (c < E) is visible if it still falls in the
  window and is dropped otherwise; a NULL c is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from catalog import errors
from catalog import types as t
from catalog.dataflow import BATCH_ID, WindowSpec
from catalog.schema import Relation
from executor.values.conversions import timestamp_from_micros, timestamp_micros
from storage.sqlite import Database, quoted

STATE_TABLE: Final = "sqlext_window_state"
SEQ: Final = "sqlext_seq"
VISIBLE: Final = "sqlext_visible"
_STAGED, _SHOWN, _ARRIVED = 0, 1, 2


def create_storage(database: Database, window: Relation, stream: Relation) -> None:
    """The window's table and the trigger on its stream that feeds it."""
    columns = [quoted(c.name) + " " + t.TYPES[c.type_oid].storage for c in window.columns]
    database.execute(f"CREATE TABLE IF NOT EXISTS {STATE_TABLE} (window_oid INTEGER NOT NULL, "
                     "part, visible INTEGER NOT NULL, staged INTEGER NOT NULL, "
                     "boundary INTEGER, slides INTEGER NOT NULL)")
    database.execute(
        f"CREATE TABLE {quoted(window.physical)} ({', '.join(columns)}, "
        f"{quoted(BATCH_ID)} INTEGER, {SEQ} INTEGER PRIMARY KEY AUTOINCREMENT, "
        f"{VISIBLE} INTEGER NOT NULL)")
    database.execute(f"CREATE INDEX {quoted(window.physical + '__visible')} ON "
                     f"{quoted(window.physical)} ({VISIBLE}, {SEQ})")
    names = [quoted(c.name) for c in window.columns] + [quoted(BATCH_ID)]
    database.execute(
        f"CREATE TRIGGER {quoted(window.physical + '__feed')} AFTER INSERT ON "
        f"{quoted(stream.physical)} BEGIN INSERT INTO {quoted(window.physical)} "
        f"({', '.join(names)}, {VISIBLE}) VALUES "
        f"({', '.join('NEW.' + n for n in names)}, {_ARRIVED}); END")


def drop_storage(database: Database, window: Relation) -> None:
    database.execute(f"DROP TRIGGER IF EXISTS {quoted(window.physical + '__feed')}")
    database.execute(f"DROP TABLE {quoted(window.physical)}")
    database.execute(f"DELETE FROM {STATE_TABLE} WHERE window_oid = ?", (window.oid,))


def counts(database: Database, window: Relation) -> tuple[int, int, int]:
    """The window's visible and staged tuples now, and how often it slid."""
    visible, staged = database.execute(
        f"SELECT coalesce(sum({VISIBLE} = {_SHOWN}), 0), coalesce(sum({VISIBLE} = {_STAGED}), 0) "
        f"FROM {quoted(window.physical)}").fetchone()
    slides = database.execute(f"SELECT coalesce(sum(slides), 0) FROM {STATE_TABLE} "
                              "WHERE window_oid = ?", (window.oid,)).fetchone()[0]
    return visible, staged, slides


@dataclass
class _State:
    visible: int = 0
    staged: int = 0
    boundary: int | None = None
    slides: int = 0
    stored: bool = False


class Windows:
    """Places arrivals in windows."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def place(self, window: Relation, on_slide: Callable[[Relation], None]) -> None:
        """Place the window's arrivals; ``on_slide`` runs its AFTER SLIDE
        triggers after each slide (the window already in its new state)."""
        spec = window.window
        assert spec is not None
        table = quoted(window.physical)
        key = quoted(spec.partition) if spec.partition else (
            quoted(spec.column) if spec.column else "NULL")
        arrivals = self.database.execute(
            f"SELECT {SEQ}, {key} FROM {table} WHERE {VISIBLE} = {_ARRIVED} "
            f"ORDER BY {SEQ}").fetchall()
        states: dict[Any, _State] = {}
        for seq, value in arrivals:
            part = value if spec.partition else None
            state = states.get(part)
            if state is None:
                state = states[part] = self._load(window.oid, part)
            if spec.rows:
                slid = self._place_row(window, spec, state, seq, part)
            else:
                slid = self._place_range(window, spec, state, seq, value)
            if slid:
                state.slides += 1
                on_slide(window)
        for part, state in states.items():
            self._save(window.oid, part, state)

    # --- ROWS -------------------------------------------------------------------------

    def _place_row(self, window: Relation, spec: WindowSpec, state: _State, seq: int,
                   part: Any) -> bool:
        """Place one arrival; True when the window slid."""
        if state.staged == 0 and state.visible < spec.size:
            self._mark(window, seq, _SHOWN)
            state.visible += 1
            return state.visible == spec.size
        self._mark(window, seq, _STAGED)
        state.staged += 1
        if state.staged < spec.slide:
            return False
        table = quoted(window.physical)
        where = f"{VISIBLE} IN ({_STAGED}, {_SHOWN})" + (
            f" AND {quoted(spec.partition)} IS ?" if spec.partition else "")
        args: tuple[Any, ...] = (part,) if spec.partition else ()
        leaving = state.visible + state.staged - spec.size
        if leaving > 0:
            self.database.execute(
                f"DELETE FROM {table} WHERE {SEQ} IN (SELECT {SEQ} FROM {table} WHERE {where} "
                f"ORDER BY {SEQ} LIMIT ?)", (*args, leaving))
        self.database.execute(f"UPDATE {table} SET {VISIBLE} = {_SHOWN} WHERE {where}", args)
        state.visible = min(spec.size, state.visible + state.staged)
        state.staged = 0
        return True

    # --- RANGE ------------------------------------------------------------------------

    def _place_range(self, window: Relation, spec: WindowSpec, state: _State, seq: int,
                     value: Any) -> bool:
        """Place one arrival; True when the window slid."""
        if value is None:
            self._drop(window, seq)
            return False
        position = _position(value, spec.column_type)
        if state.boundary is None:
            state.boundary = _boundary(window, spec, position, value)
        end = state.boundary
        if position < end + spec.slide:
            if state.slides == 0 or end - spec.size <= position < end:
                self._mark(window, seq, _SHOWN)
            elif position >= end:
                self._mark(window, seq, _STAGED)
            else:
                self._drop(window, seq)
            return False
        end = state.boundary = _boundary(window, spec, position, value)
        table = quoted(window.physical)
        column = quoted(spec.column or "")
        first = _value(end - spec.size, spec.column_type)
        last = _value(end, spec.column_type)
        self.database.execute(
            f"DELETE FROM {table} WHERE {VISIBLE} IN ({_STAGED}, {_SHOWN}) AND {column} < ?",
            (first,))
        self.database.execute(
            f"UPDATE {table} SET {VISIBLE} = {_SHOWN} WHERE {VISIBLE} = {_STAGED} "
            f"AND {column} < ?", (last,))
        self._mark(window, seq, _STAGED)
        return True

    # --- helpers ----------------------------------------------------------------------

    def _mark(self, window: Relation, seq: int, visible: int) -> None:
        self.database.execute(
            f"UPDATE {quoted(window.physical)} SET {VISIBLE} = ? WHERE {SEQ} = ?",
            (visible, seq))

    def _drop(self, window: Relation, seq: int) -> None:
        self.database.execute(f"DELETE FROM {quoted(window.physical)} WHERE {SEQ} = ?", (seq,))

    def _load(self, oid: int, part: Any) -> _State:
        found = self.database.execute(
            f"SELECT visible, staged, boundary, slides FROM {STATE_TABLE} "
            "WHERE window_oid = ? AND part IS ?", (oid, part)).fetchone()
        if found is None:
            return _State()
        return _State(found[0], found[1], found[2], found[3], stored=True)

    def _save(self, oid: int, part: Any, state: _State) -> None:
        values = (state.visible, state.staged, state.boundary, state.slides, oid, part)
        if state.stored:
            self.database.execute(
                f"UPDATE {STATE_TABLE} SET visible = ?, staged = ?, boundary = ?, slides = ? "
                "WHERE window_oid = ? AND part IS ?", values)
        else:
            self.database.execute(
                f"INSERT INTO {STATE_TABLE} (visible, staged, boundary, slides, window_oid, "
                "part) VALUES (?, ?, ?, ?, ?, ?)", values)


_INT8_MIN, _INT8_MAX = -(2**63), 2**63 - 1


def _boundary(window: Relation, spec: WindowSpec, position: int, value: Any) -> int:
    """Where the window ends once ``position`` arrived: the multiple of the
    slide at or below it. Its extent (``size`` below that) must be a value
    of the column; near the ends of bigint or of the timestamp range it is
    not, and the row is refused."""
    end = position // spec.slide * spec.slide
    try:
        if end - spec.size < _INT8_MIN or end > _INT8_MAX:
            raise OverflowError
        _value(end - spec.size, spec.column_type)
        _value(end, spec.column_type)
    except (OverflowError, ValueError):
        raise errors.NumericValueOutOfRange(
            f"value {value} of column {spec.column} is too close to the end of its type's "
            f"range for window {window.name}: its extent would leave the range") from None
    return end


def _position(value: Any, oid: int) -> int:
    """A RANGE column's value as a number: integers as they are, timestamps
    in microseconds."""
    if oid in (t.INT2, t.INT4, t.INT8):
        return int(value)
    return timestamp_micros(value, oid)


def _value(position: int, oid: int) -> Any:
    if oid in (t.INT2, t.INT4, t.INT8):
        return position
    return timestamp_from_micros(position, oid)
