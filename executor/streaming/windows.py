"""Windows: tuples of a stream, staged and slid by count (ROWS) or by the
values of a column (RANGE).

Storage. A window is a table with its stream's columns, ``batch_id`` and
two hidden columns: ``sqlext_seq`` (arrival order; AUTOINCREMENT, so never
reused) and ``sqlext_visible`` (1 visible, 0 staged, 2 just arrived). A
SQLite trigger on the stream copies every inserted row into the window, so
arrivals commit, roll back and survive savepoints exactly like the stream's
own rows. After each INSERT statement the engine places the arrivals
(``Windows.place``): in arrival order each becomes visible or staged, and
when a slide's worth has arrived the window slides and its AFTER SLIDE
triggers run, one slide at a time, in the same transaction.

The counters of each window (visible, staged, the RANGE boundary, slides)
live in memory: changes are undone with the transaction
(``executor.core.UndoLog``) and snapshots keep them (``state``). A ROWS
window without PARTITION BY costs no statement per arrival: its trigger
stores arrivals as staged, the INSERT's row count says how many arrived,
and a slide is one DELETE of the oldest tuples and one UPDATE making the
staged ones visible. The other kinds read their arrivals (their partition
or RANGE column decides) and mark each.

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
from executor.core import UndoLog
from executor.values.conversions import timestamp_from_micros, timestamp_micros
from storage.sqlite import Database, quoted

LEGACY_STATE_TABLE: Final = "sqlext_window_state"
"""Where snapshots of state version 1 kept the counters."""
SEQ: Final = "sqlext_seq"
VISIBLE: Final = "sqlext_visible"
_STAGED, _SHOWN, _ARRIVED = 0, 1, 2


def create_storage(database: Database, window: Relation, stream: Relation) -> None:
    """The window's table and the trigger on its stream that feeds it."""
    columns = [quoted(c.name) + " " + t.storage_declaration(c.type_oid, c.typmod)
               for c in window.columns]
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
        f"({', '.join('NEW.' + n for n in names)}, "
        f"{_STAGED if _counted(window.window) else _ARRIVED}); END")


def drop_storage(database: Database, window: Relation) -> None:
    database.execute(f"DROP TRIGGER IF EXISTS {quoted(window.physical + '__feed')}")
    database.execute(f"DROP TABLE {quoted(window.physical)}")


def _counted(spec: WindowSpec | None) -> bool:
    """A window whose arrivals are placed by counting them (see the module
    docstring)."""
    return spec is not None and spec.rows and not spec.partition


@dataclass(slots=True)
class _State:
    visible: int = 0
    staged: int = 0
    boundary: int | None = None
    slides: int = 0


StateKey = tuple[int, Any]
"""(window OID, partition value or None)."""
WindowsState = dict[StateKey, tuple[int, int, int | None, int]]
"""What a snapshot keeps: the counters of every window (and partition)."""


class Windows:
    """Places arrivals in windows; holds their counters."""

    def __init__(self, database: Database, undo: UndoLog) -> None:
        self.database = database
        self.undo = undo
        self._states: dict[StateKey, _State] = {}

    def counts(self, window: Relation) -> tuple[int, int, int]:
        """The window's visible and staged tuples now, and how often it slid."""
        visible, staged = self.database.execute(
            f"SELECT coalesce(sum({VISIBLE} = {_SHOWN}), 0), "
            f"coalesce(sum({VISIBLE} <> {_SHOWN}), 0) FROM {quoted(window.physical)}").fetchone()
        slides = sum(state.slides for (oid, _), state in self._states.items()
                     if oid == window.oid)
        return visible, staged, slides

    # --- snapshots --------------------------------------------------------------------

    def state(self, window_oids: set[int]) -> WindowsState:
        """The counters of these windows (the others were dropped)."""
        return {key: (s.visible, s.staged, s.boundary, s.slides)
                for key, s in self._states.items() if key[0] in window_oids}

    def restore(self, state: WindowsState | None) -> None:
        """Counters from a snapshot; None: one of state version 1, which kept
        them in a table."""
        if state is None:
            state = {}
            if self.database.execute("SELECT 1 FROM sqlite_master WHERE name = ?",
                                     (LEGACY_STATE_TABLE,)).fetchone():
                for oid, part, *counters in self.database.execute(
                        f"SELECT window_oid, part, visible, staged, boundary, slides "
                        f"FROM {LEGACY_STATE_TABLE}"):
                    state[(oid, part)] = tuple(counters)  # type: ignore[assignment]
        self._states = {key: _State(*counters) for key, counters in state.items()}

    # --- placing arrivals -------------------------------------------------------------

    def place(self, window: Relation, arrived: int,
              on_slide: Callable[[Relation], None]) -> None:
        """Place the window's ``arrived`` new tuples; ``on_slide`` runs its
        AFTER SLIDE triggers after each slide (the window already in its new
        state)."""
        spec = window.window
        assert spec is not None
        if _counted(spec):
            self._place_counted(window, spec, arrived, on_slide)
            return
        table = quoted(window.physical)
        key = quoted(spec.partition) if spec.partition else (
            quoted(spec.column) if spec.column else "NULL")
        arrivals = self.database.execute(
            f"SELECT {SEQ}, {key} FROM {table} WHERE {VISIBLE} = {_ARRIVED} "
            f"ORDER BY {SEQ}").fetchall()
        for seq, value in arrivals:
            part = value if spec.partition else None
            state = self._changing(window.oid, part)
            if spec.rows:
                slid = self._place_row(window, spec, state, seq, part)
            else:
                slid = self._place_range(window, spec, state, seq, value)
            if slid:
                state.slides += 1
                on_slide(window)

    def _changing(self, oid: int, part: Any) -> _State:
        """The counters of a window (partition), about to change: the open
        transaction's rollback puts back what they are now."""
        key = (oid, part)
        state = self._states.get(key)
        if state is None:
            state = self._states[key] = _State()
            self.undo.push(lambda: self._states.pop(key, None))
        else:
            self.undo.push(lambda saved=(state.visible, state.staged, state.boundary,
                                         state.slides): self._put_back(state, saved))
        return state

    @staticmethod
    def _put_back(state: _State, saved: tuple[int, int, int | None, int]) -> None:
        state.visible, state.staged, state.boundary, state.slides = saved

    # --- ROWS without PARTITION BY: counted -------------------------------------------

    def _place_counted(self, window: Relation, spec: WindowSpec, arrived: int,
                       on_slide: Callable[[Relation], None]) -> None:
        """The ``arrived`` tuples are the newest of the table, stored staged,
        with consecutive sequence numbers."""
        if arrived <= 0:
            return
        state = self._changing(window.oid, None)
        placed = 0
        newest: int | None = None

        def seq_of(position: int) -> int | None:
            """The sequence number of this statement's arrival ``position``
            (1-based), or None for the last one (no bound needed)."""
            nonlocal newest
            if position == arrived:
                return None
            if newest is None:
                newest = self.database.execute(
                    f"SELECT max({SEQ}) FROM {quoted(window.physical)}").fetchone()[0]
            return newest - arrived + position

        if state.staged == 0 and state.visible < spec.size:
            shown = min(arrived, spec.size - state.visible)
            self._show(window, seq_of(shown))
            state.visible += shown
            placed = shown
            if state.visible == spec.size:
                state.slides += 1
                on_slide(window)
        while arrived - placed >= spec.slide - state.staged:
            placed += spec.slide - state.staged
            bound = seq_of(placed)
            leaving = state.visible + spec.slide - spec.size
            if leaving > 0:
                self._drop_oldest(window, leaving, bound)
            self._show(window, bound)
            state.visible = min(spec.size, state.visible + spec.slide)
            state.staged = 0
            state.slides += 1
            on_slide(window)
        state.staged += arrived - placed

    def _drop_oldest(self, window: Relation, count: int, bound: int | None) -> None:
        """The ``count`` oldest tuples (up to sequence number ``bound``) leave."""
        table = quoted(window.physical)
        if bound is None:
            self.database.execute(f"DELETE FROM {table} WHERE {SEQ} IN (SELECT {SEQ} FROM "
                                  f"{table} ORDER BY {SEQ} LIMIT ?)", (count,))
        else:
            self.database.execute(f"DELETE FROM {table} WHERE {SEQ} IN (SELECT {SEQ} FROM "
                                  f"{table} WHERE {SEQ} <= ? ORDER BY {SEQ} LIMIT ?)",
                                  (bound, count))

    def _show(self, window: Relation, bound: int | None) -> None:
        """Staged tuples (up to sequence number ``bound``) become visible."""
        update = (f"UPDATE {quoted(window.physical)} SET {VISIBLE} = {_SHOWN} "
                  f"WHERE {VISIBLE} IN ({_STAGED}, {_ARRIVED})")
        if bound is None:
            self.database.execute(update)
        else:
            self.database.execute(f"{update} AND {SEQ} <= ?", (bound,))

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
