"""The SQLite programs that keep a materialized view up to date.

Incremental views (``incremental``), after DBToaster: the view's *state*
table holds one row per group with everything its aggregates need (row
count, sums with their non-NULL counts, current MIN/MAX, distinct count),
and the view clients read is a SQLite view over it (AVG = sum / count,
HAVING, expressions over aggregates). SQLite triggers on every base
relation turn each row change into a delta of the state, in the changing
statement's transaction:

* one base relation: the row's own group is updated (an UPDATE, an INSERT
  when the group is new, a DELETE when its count reaches zero);
* a join: every base relation also keeps a *map*, its rows (those passing
  its own filter) grouped by the columns the view needs from it, with counts
  and pre-computed sums. A change to one relation is joined with the other
  relations' maps, never with their rows, so it touches only the groups it
  affects (DBToaster's higher-order deltas);
* MIN, MAX and COUNT(DISTINCT) keep the multiset of their argument's values
  per group (a *value set*), so a delete of the current minimum finds the
  next one by an index lookup, without rescanning the base.

Other queries (``recomputed``) are stored in a table that is recomputed in
full when it is read after one of the tables it depends on changed: triggers
on those tables set the view's stale flag in ``sqlext_matview_stale``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from sqlglot import exp

from catalog import types as t
from catalog.matviews import Matview
from executor.matview_maintenance import STALE_TABLE
from sqlext.matview.shape import (
    SUMMABLE_KINDS,
    VALUE_SET_KINDS,
    Aggregate,
    Shape,
    StateRef,
    aliases_in,
)
from sqlext.matview.statements import Additive, call, merge, on_row, row_upsert, shown, sql, where
from sqlext.sql.sqlite_dialect import not_a_position, sqlite_literal
from storage.sqlite import quoted

COUNT: Final = "n"
"""State column: the rows of the group (the multiplicity of a plain row)."""
MAP_COUNT: Final = "sqlext_n"
VALUE: Final = "v"
VALUE_COUNT: Final = "m"


@dataclass(frozen=True, slots=True)
class Program:
    create: tuple[str, ...]
    """SQLite statements that make the view's storage and triggers."""
    matview: Matview


class IncrementalProgram:
    """Builds the program of one incremental view."""

    def __init__(self, shape: Shape, select: exp.Select, physical: str, shown_name: str,
                 names: list[str]) -> None:
        self.shape = shape
        self.select = select
        self.physical = physical
        self.shown_name = shown_name
        self.names = names
        self.state = f"{physical}__state"
        self.joined = len(shape.sources) > 1
        self.presummed = {index: self._presummed_in(a) for index, a in
                          enumerate(shape.aggregates)}

    # --- names and columns ------------------------------------------------------------

    def _map(self, index: int) -> str:
        return f"{self.physical}__map{index}"

    def _values(self, index: int) -> str:
        return f"{self.physical}__values{index}"

    @property
    def _keys(self) -> list[str]:
        return [f"k{index}" for index in range(len(self.shape.keys))]

    def _value_sets(self) -> list[tuple[int, Aggregate]]:
        return [(j, a) for j, a in enumerate(self.shape.aggregates) if a.kind in VALUE_SET_KINDS]

    def _presummed_in(self, aggregate: Aggregate) -> str | None:
        """The source whose map pre-sums ``aggregate`` (its argument reads that
        source alone), if any."""
        if not self.joined or aggregate.kind not in SUMMABLE_KINDS or aggregate.argument is None:
            return None
        named = aliases_in(aggregate.argument) & {s.alias for s in self.shape.sources}
        return next(iter(named)) if len(named) == 1 else None

    def _map_columns(self, alias: str) -> list[str]:
        """The columns of ``alias`` its map groups by: those the joins, the
        keys and the not pre-summed aggregate arguments read (join columns
        first, for the index)."""
        shape = self.shape
        ordered: list[str] = []
        nodes = [*shape.joins, *shape.keys, *(
            a.argument for j, a in enumerate(shape.aggregates)
            if a.argument is not None and self.presummed[j] is None)]
        for node in nodes:
            for column in node.find_all(exp.Column):
                if column.table == alias and column.name not in ordered:
                    ordered.append(column.name)
        return ordered

    @staticmethod
    def _state_columns(j: int, aggregate: Aggregate) -> list[str]:
        return {"count_star": [], "count": [f"c{j}"], "min": [f"v{j}"], "max": [f"v{j}"],
                "count_distinct": [f"d{j}"]}.get(aggregate.kind, [f"s{j}", f"c{j}"])

    @staticmethod
    def _numeric(aggregate: Aggregate) -> bool:
        return aggregate.kind in ("numeric_sum", "numeric_avg")

    def _additives(self, j: int, aggregate: Aggregate, value: str, prefix: str = ""
                   ) -> list[Additive]:
        """How one row with argument ``value`` adds to aggregate ``j``'s columns."""
        present = Additive(f"{prefix}c{j}", f"({value} IS NOT NULL)")
        if aggregate.kind == "count":
            return [present]
        if aggregate.kind in SUMMABLE_KINDS:
            total = (Additive(f"{prefix}s{j}", value, numeric=True) if self._numeric(aggregate)
                     else Additive(f"{prefix}s{j}", f"coalesce({value}, 0)"))
            return [total, present]
        return []

    def _unset(self) -> list[tuple[str, str]]:
        """A new group's value-set columns, before its value set fills them."""
        return [(c, "0" if c.startswith("d") else "NULL")
                for j, a in self._value_sets() for c in self._state_columns(j, a)]

    # --- the whole program --------------------------------------------------------------

    def build(self, sources: tuple[tuple[str, str], ...]) -> Program:
        create = [*self._state_table(), *self._map_tables()]
        for index in range(len(self.shape.sources)):
            create.extend(self._source_triggers(index))
        create.append(self._view())
        dropped_sets = [f"DROP TABLE IF EXISTS {quoted(self._values(j))}"
                        for j, _ in self._value_sets()]
        maps = [self._map(index) for index in range(len(self.shape.sources))] if (
            self.joined) else []
        drop = [f"DROP VIEW IF EXISTS {quoted(self.physical)}",
                f"DROP TABLE IF EXISTS {quoted(self.state)}", *dropped_sets]
        drop += [f"DROP TABLE IF EXISTS {quoted(name)}" for name in maps]
        for index in range(len(self.shape.sources)):
            drop += [f"DROP TRIGGER IF EXISTS {quoted(name)}"
                     for name in self._trigger_names(index)]
        # The value sets are made by each (re)computation and get their
        # triggers once filled: deleting or inserting their rows one by one
        # would run those triggers for every row. The state table stays (the
        # views that read this one watch it with triggers of their own).
        clear = [f"DELETE FROM {quoted(self.state)}", *dropped_sets,
                 *self._value_set_tables()]
        clear += [f"DELETE FROM {quoted(name)}" for name in maps]
        populate = [self._populate_map(index, source.alias)
                    for index, source in enumerate(self.shape.sources) if self.joined]
        populate += [self._populate_values(j, a) for j, a in self._value_sets()]
        populate += [self._populate_state(), *self._value_set_triggers()]
        return Program(tuple(create), Matview(
            True, sources, (self.state,), tuple(self._plan()), tuple(populate), tuple(clear),
            tuple(drop)))

    # --- storage --------------------------------------------------------------------

    def _state_table(self) -> list[str]:
        state = quoted(self.state)
        columns = [self._declared(k, key) for k, key in zip(self._keys, self.shape.keys,
                                                             strict=True)]
        columns += [quoted(COUNT)] + [quoted(c) for j, a in enumerate(self.shape.aggregates)
                                      for c in self._state_columns(j, a)]
        out = [f"CREATE TABLE {state} ({', '.join(columns)})"]
        if self.shape.grouped:
            out.append(f"CREATE INDEX {quoted(self.state + '__key')} ON {state} "
                       f"({', '.join(quoted(k) for k in self._keys)})")
            out.append(self._empty_index(self.state, COUNT))
        return out

    def _value_set_tables(self) -> list[str]:
        out = []
        for j, aggregate in self._value_sets():
            assert aggregate.argument is not None
            table = quoted(self._values(j))
            columns = [self._declared(k, key) for k, key in zip(self._keys, self.shape.keys,
                                                                 strict=True)]
            columns += [self._declared(VALUE, aggregate.argument), quoted(VALUE_COUNT)]
            out.append(f"CREATE TABLE {table} ({', '.join(columns)})")
            out.append(f"CREATE INDEX {quoted(self._values(j) + '__key')} ON {table} "
                       f"({', '.join(quoted(c) for c in [*self._keys, VALUE])})")
            out.append(self._empty_index(self._values(j), VALUE_COUNT))
        return out

    def _map_tables(self) -> list[str]:
        if not self.joined:
            return []
        out = []
        for index, source in enumerate(self.shape.sources):
            grouping = self._map_columns(source.alias)
            table = quoted(self._map(index))
            columns = [self._declared(c, exp.column(c, table=source.alias))
                       for c in grouping] + [quoted(MAP_COUNT)] + [
                quoted(a.column) for j, agg in enumerate(self.shape.aggregates)
                if self.presummed[j] == source.alias
                for a in self._additives(j, agg, "", prefix="sqlext_")]
            out.append(f"CREATE TABLE {table} ({', '.join(columns)})")
            if grouping:
                out.append(f"CREATE INDEX {quoted(self._map(index) + '__key')} ON {table} "
                           f"({', '.join(quoted(c) for c in grouping)})")
            out.append(self._empty_index(self._map(index), MAP_COUNT))
        return out

    def _declared(self, name: str, expression: exp.Expression) -> str:
        """A column holding the values of ``expression``, with the affinity of
        the base column it reads: lookups by values of that column (joins,
        WHERE key = ...) then use the index."""
        if isinstance(expression, exp.Column):
            source = next((s for s in self.shape.sources if s.alias == expression.table), None)
            column = next((c for c in source.relation.columns if c.name == expression.name),
                          None) if source is not None else None
            if column is not None:
                return (f"{quoted(name)} "
                        f"{t.storage_declaration(column.type_oid, column.typmod)}").rstrip()
        return quoted(name)

    @staticmethod
    def _empty_index(table: str, count: str) -> str:
        """Groups whose count reached zero are found (and deleted) by this index."""
        return (f"CREATE INDEX {quoted(table + '__empty')} ON {quoted(table)} ({quoted(count)}) "
                f"WHERE {quoted(count)} = 0")

    def _view(self) -> str:
        shape = self.shape

        def final(node: exp.Expression) -> exp.Expression:
            for ref in list(node.find_all(StateRef)):
                replacement = self._final(ref)
                if ref is node:
                    return replacement
                ref.replace(replacement)
            return node

        projections = [exp.alias_(final(output.copy()), name, quoted=True)
                       for output, name in zip(shape.outputs, self.names, strict=True)]
        query = exp.Select(expressions=projections, from_=exp.From(
            this=exp.Table(this=exp.to_identifier(self.state, quoted=True))))
        if shape.having is not None:
            query.set("where", exp.Where(this=final(shape.having.copy())))
        body = sql(query)
        if shape.expand:
            state = quoted(self.state)
            copies = (f"WITH RECURSIVE sqlext_copies(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
                      f"FROM sqlext_copies WHERE i < (SELECT max({COUNT}) FROM {state})) ")
            body = copies + body + f" JOIN sqlext_copies ON sqlext_copies.i <= {state}.{COUNT}"
        return f"CREATE VIEW {quoted(self.physical)} AS {body}"

    def _final(self, ref: StateRef) -> exp.Expression:
        index = int(ref.args["index"])
        if ref.this == "k":
            return exp.column(f"k{index}", quoted=True)
        kind = self.shape.aggregates[index].kind
        total, present = exp.column(f"s{index}", quoted=True), exp.column(f"c{index}",
                                                                          quoted=True)
        if kind == "count_star":
            return exp.column(COUNT, quoted=True)
        if kind == "count":
            return present
        if kind in ("sum", "numeric_sum"):
            return exp.Case(ifs=[exp.If(this=exp.GT(this=present, expression=exp.Literal.number(0)),
                                        true=total)])
        if kind == "avg":
            return call("sqlext_average", total, present)
        if kind == "numeric_avg":
            return call("sqlext_numeric_quotient", total, present)
        if kind == "count_distinct":
            return exp.column(f"d{index}", quoted=True)
        return exp.column(f"v{index}", quoted=True)

    # --- value sets (MIN, MAX, COUNT(DISTINCT)) ------------------------------------------

    def _value_set_triggers(self) -> list[str]:
        out = []
        state = quoted(self.state)
        for j, aggregate in self._value_sets():
            table = quoted(self._values(j))

            def match(row: str, target: str) -> list[str]:
                return [f"{target}.{quoted(k)} IS {row}.{quoted(k)}" for k in self._keys]

            if aggregate.kind == "count_distinct":
                column = quoted(f"d{j}")
                on_insert = f"UPDATE {state} SET {column} = {column} + 1" + where(
                    match("NEW", state))
                on_delete = f"UPDATE {state} SET {column} = {column} - 1" + where(
                    match("OLD", state))
            else:
                column = quoted(f"v{j}")
                better = "<" if aggregate.kind == "min" else ">"
                on_insert = (f"UPDATE {state} SET {column} = NEW.{VALUE}" + where(
                    [*match("NEW", state),
                     f"({column} IS NULL OR NEW.{VALUE} {better} {column})"]))
                next_value = (f"(SELECT {aggregate.kind}({VALUE}) FROM {table}"
                              f"{where(match('OLD', table))})")
                on_delete = (f"UPDATE {state} SET {column} = {next_value}" + where(
                    [*match("OLD", state), f"{column} IS OLD.{VALUE}"]))
            for event, body in (("INSERT", on_insert), ("DELETE", on_delete)):
                name = quoted(f"{self._values(j)}__{event.lower()}")
                out.append(f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {body}; END")
        return out

    # --- triggers on the base relations ---------------------------------------------------

    def _trigger_names(self, index: int) -> list[str]:
        return [f"{self.physical}__{index}_{event}"
                for event in ("insert", "delete", "update_old", "update_new")]

    def _source_triggers(self, index: int) -> list[str]:
        source = self.shape.sources[index]
        base = quoted(source.relation.physical)
        used = sorted(self.shape.columns_used[source.alias])
        names = self._trigger_names(index)
        events = [(names[0], "INSERT", "NEW", 1), (names[1], "DELETE", "OLD", -1)]
        if used:
            of = f"UPDATE OF {', '.join(quoted(c) for c in used)}"
            events += [(names[2], of, "OLD", -1), (names[3], of, "NEW", 1)]
        out = []
        for name, event, row, sign in events:
            when = ""
            if source.condition is not None:
                when = f" WHEN {sql(on_row(source.condition, source.alias, row))}"
            body = "; ".join(self._delta(index, row, sign))
            out.append(f"CREATE TRIGGER {quoted(name)} AFTER {event} ON {base}{when} "
                       f"BEGIN {body}; END")
        return out

    def _delta(self, index: int, row: str, sign: int) -> list[str]:
        """What one row change of source ``index`` does (``row``: NEW or OLD)."""
        changes, cleanup = (self._joined_delta(index, row, sign) if self.joined
                            else self._row_delta(row, sign))
        if self.joined:
            source = self.shape.sources[index]
            grouping = self._map_columns(source.alias)
            additives = [Additive(MAP_COUNT, "1")] + [
                a for j, agg in enumerate(self.shape.aggregates)
                if self.presummed[j] == source.alias
                for a in self._additives(j, agg, sql(on_row(agg.argument, source.alias, row)),
                                         prefix="sqlext_")]
            keys = [(c, f"{row}.{quoted(c)}") for c in grouping]
            map_changes, map_cleanup = row_upsert(self._map(index), keys, additives, sign,
                                                   count=MAP_COUNT)
            changes += map_changes
            cleanup += map_cleanup
        return changes + cleanup

    def _row_delta(self, row: str, sign: int) -> tuple[list[str], list[str]]:
        """One base relation: the row's own group changes."""
        alias = self.shape.sources[0].alias

        def row_sql(node: exp.Expression) -> str:
            return sql(on_row(node, alias, row))

        keys = list(zip(self._keys, [row_sql(k) for k in self.shape.keys], strict=True))
        additives = [Additive(COUNT, "1")]
        for j, aggregate in enumerate(self.shape.aggregates):
            if aggregate.argument is not None and aggregate.kind not in VALUE_SET_KINDS:
                additives += self._additives(j, aggregate, row_sql(aggregate.argument))
        changes, cleanup = row_upsert(self.state, keys, additives, sign, count=COUNT,
                                       grouped=self.shape.grouped, extras=self._unset())
        value_cleanup: list[str] = []
        for j, aggregate in self._value_sets():
            assert aggregate.argument is not None
            value = row_sql(aggregate.argument)
            set_changes, set_cleanup = row_upsert(
                self._values(j), [*keys, (VALUE, value)], [Additive(VALUE_COUNT, "1")], sign,
                count=VALUE_COUNT, guard=f"{value} IS NOT NULL")
            changes += set_changes
            value_cleanup += set_cleanup
        return changes, value_cleanup + cleanup

    def _joined_delta(self, index: int, row: str, sign: int) -> tuple[list[str], list[str]]:
        """A join: the row joined with the other sources' maps."""
        shape = self.shape
        source = shape.sources[index]
        used = sorted(shape.columns_used[source.alias])
        row_columns = ", ".join(f"{row}.{quoted(c)} AS {quoted(c)}" for c in used)
        tables = [f"(SELECT {row_columns or 'NULL AS sqlext_none'}) AS {quoted(source.alias)}"]
        tables += [f"{quoted(self._map(i))} AS {quoted(s.alias)}"
                   for i, s in enumerate(shape.sources) if i != index]
        joins = [sql(j) for j in shape.joins]

        def weight(*excluded: str) -> str:
            return " * ".join([str(sign)] + [
                f"{quoted(s.alias)}.{MAP_COUNT}" for s in shape.sources
                if s.alias != source.alias and s.alias not in excluded])

        keys = [f"{sql(k)} AS {quoted(name)}" for k, name in zip(shape.keys, self._keys,
                                                                  strict=True)]
        group = ", ".join(sql(not_a_position(k.copy())) for k in shape.keys) or "NULL"
        columns = [f"sum({weight()}) AS {COUNT}"]
        additive: list[tuple[str, bool]] = [(COUNT, False)]
        for j, aggregate in enumerate(shape.aggregates):
            if aggregate.kind in VALUE_SET_KINDS or aggregate.argument is None:
                continue
            numeric = self._numeric(aggregate)
            owner = self.presummed[j]
            if owner is not None and owner != source.alias:
                parts = [(f"{quoted(owner)}.sqlext_{a.column}", a.column)
                         for a in self._additives(j, aggregate, "")]
                scaled = [(_times(value, weight(owner), numeric and column.startswith("s")),
                           column) for value, column in parts]
            else:
                value = sql(aggregate.argument)
                scaled = [(_times(a.value, weight(), numeric and a.column.startswith("s")),
                           a.column) for a in self._additives(j, aggregate, value)]
            for expression, column in scaled:
                total = "sqlext_numeric_sum" if numeric and column.startswith("s") else "sum"
                columns.append(f"{total}({expression}) AS {quoted(column)}")
                additive.append((column, numeric and column.startswith("s")))
        delta = (f"SELECT {', '.join(keys + columns)} FROM {', '.join(tables)}"
                 f"{where(joins)} GROUP BY {group}")
        changes, cleanup = merge(self.state, self._keys, additive, delta, sign, COUNT,
                                  grouped=shape.grouped, extras=self._unset())
        value_cleanup: list[str] = []
        for j, aggregate in self._value_sets():
            assert aggregate.argument is not None
            value = sql(aggregate.argument)
            values_delta = (
                f"SELECT {', '.join(keys)}{', ' if keys else ''}{value} AS {VALUE}, "
                f"sum({weight()}) AS {VALUE_COUNT} FROM {', '.join(tables)}"
                f"{where([*joins, f'{value} IS NOT NULL'])} GROUP BY "
                f"{', '.join([sql(not_a_position(k.copy())) for k in shape.keys] + [value])}")
            set_changes, set_cleanup = merge(self._values(j), [*self._keys, VALUE],
                                              [(VALUE_COUNT, False)], values_delta, sign,
                                              VALUE_COUNT)
            changes += set_changes
            value_cleanup += set_cleanup
        return changes, value_cleanup + cleanup

    # --- computing from scratch -------------------------------------------------------

    def _from_scratch(self, projections: list[exp.Expression], group: list[exp.Expression],
                      extra: exp.Expression | None = None) -> str:
        """The view's own FROM and WHERE with other projections and grouping."""
        query = self.select.copy()
        for clause in ("having", "order", "distinct"):
            query.set(clause, None)
        query.set("expressions", projections)
        query.set("group", exp.Group(expressions=[not_a_position(g.copy()) for g in group])
                  if group else None)
        if extra is not None:
            query = query.where(extra, copy=False)
        return sql(query)

    def _populate_state(self) -> str:
        shape = self.shape
        projections = [exp.alias_(k.copy(), name, quoted=True)
                       for k, name in zip(shape.keys, self._keys, strict=True)]
        projections.append(exp.alias_(call("count", exp.Star()), COUNT, quoted=True))
        columns = [*self._keys, COUNT]
        for j, aggregate in enumerate(shape.aggregates):
            argument = aggregate.argument.copy() if aggregate.argument is not None else None
            for column in self._state_columns(j, aggregate):
                assert argument is not None
                columns.append(column)
                projections.append(exp.alias_(self._aggregate_of(aggregate, column,
                                                                 argument.copy()),
                                              column, quoted=True))
        select = self._from_scratch(projections, shape.keys)
        return f"INSERT INTO {quoted(self.state)} ({', '.join(map(quoted, columns))}) {select}"

    def _aggregate_of(self, aggregate: Aggregate, column: str,
                      argument: exp.Expression) -> exp.Expression:
        """A state column computed over the base rows."""
        if column.startswith("c"):
            return call("count", argument)
        if column.startswith("d"):
            return call("count", exp.Distinct(expressions=[argument]))
        if column.startswith("v"):
            return call(aggregate.kind, argument)
        total = "sqlext_numeric_sum" if self._numeric(aggregate) else "sum"
        return call("coalesce", call(total, argument), exp.Literal.number(0))

    def _populate_values(self, j: int, aggregate: Aggregate) -> str:
        assert aggregate.argument is not None
        value = aggregate.argument
        projections = [exp.alias_(k.copy(), name, quoted=True)
                       for k, name in zip(self.shape.keys, self._keys, strict=True)]
        projections += [exp.alias_(value.copy(), VALUE, quoted=True),
                        exp.alias_(call("count", exp.Star()), VALUE_COUNT, quoted=True)]
        select = self._from_scratch(projections, [*self.shape.keys, value],
                                    exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())))
        columns = [*self._keys, VALUE, VALUE_COUNT]
        return f"INSERT INTO {quoted(self._values(j))} ({', '.join(map(quoted, columns))}) {select}"

    def _populate_map(self, index: int, alias: str) -> str:
        source = self.shape.sources[index]
        grouping = [exp.column(c, table=alias, quoted=True) for c in self._map_columns(alias)]
        projections = [exp.alias_(c, c.name, quoted=True) for c in grouping]
        projections.append(exp.alias_(call("count", exp.Star()), MAP_COUNT, quoted=True))
        columns = [c.name for c in grouping] + [MAP_COUNT]
        for j, aggregate in enumerate(self.shape.aggregates):
            if self.presummed[j] != alias:
                continue
            assert aggregate.argument is not None
            for column in self._state_columns(j, aggregate):
                columns.append(f"sqlext_{column}")
                projections.append(exp.alias_(
                    self._aggregate_of(aggregate, column, aggregate.argument.copy()),
                    f"sqlext_{column}", quoted=True))
        query = exp.Select(expressions=projections, from_=exp.From(this=exp.Table(
            this=exp.to_identifier(source.relation.physical, quoted=True),
            alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))))
        if source.condition is not None:
            query.set("where", exp.Where(this=source.condition.copy()))
        query.set("group", exp.Group(expressions=grouping or [exp.Null()]))
        return (f"INSERT INTO {quoted(self._map(index))} ({', '.join(map(quoted, columns))}) "
                f"{sql(query)}")

    # --- EXPLAIN ----------------------------------------------------------------------

    def _plan(self) -> list[str]:
        shape = self.shape
        aggregates = ", ".join(shown(a.call) for a in shape.aggregates) or "count(*)"
        if shape.expand:
            grouping = "one row per distinct row, with its count"
        elif shape.grouped:
            grouping = f"one row per group ({', '.join(shown(k) for k in shape.keys)})"
        else:
            grouping = "a single row"
        lines = [f"Materialized view {self.shown_name}: maintained incrementally",
                 f"  State {self.state}: {grouping}: {aggregates}"]
        if shape.having is not None:
            lines.append("  HAVING applied when read")
        for j, aggregate in self._value_sets():
            lines.append(f"  Value set {self._values(j)}: count of each value of "
                         f"{shown(aggregate.argument or exp.Null())} per group, "
                         f"for {shown(aggregate.call)}")
        for index, source in enumerate(shape.sources):
            lines.append(f"  On {source.relation.name} AS {source.alias}: "
                         "AFTER INSERT, DELETE"
                         + (", UPDATE OF " + ", ".join(sorted(shape.columns_used[source.alias]))
                            if shape.columns_used[source.alias] else ""))
            if source.condition is not None:
                lines.append(f"    only rows where {shown(source.condition)}")
            if self.joined:
                others = [self._map(i) for i in range(len(shape.sources)) if i != index]
                lines.append(f"    delta: the row joined with {', '.join(others)} on "
                             + " AND ".join(shown(j) for j in shape.joins))
                presummed = [shown(a.call) for j, a in enumerate(shape.aggregates)
                             if self.presummed[j] == source.alias]
                columns = ", ".join(self._map_columns(source.alias)) or "nothing"
                lines.append(f"    map {self._map(index)}: rows grouped by ({columns}) "
                             f"with count(*){''.join(', ' + p for p in presummed)}")
            else:
                lines.append("    delta: the row's own group")
        return lines


def _times(value: str, weight: str, numeric: bool) -> str:
    """A row's value counted ``weight`` times (numeric values are keys:
    multiplied exactly, not as SQLite reads the text)."""
    return f"sqlext_numeric_op('*', {value}, {weight})" if numeric else f"{value} * {weight}"


def recomputed_program(query: str, physical: str, shown_name: str,
                       columns: list[tuple[str, int]], watched: tuple[str, ...],
                       sources: tuple[tuple[str, str], ...], reason: str) -> Program:
    """A view recomputed in full when read after a watched table changed."""
    table = quoted(physical)
    key = sqlite_literal(physical)
    stale = f"UPDATE {STALE_TABLE} SET stale = {{}} WHERE matview = {key}"
    definitions = ", ".join(f"{quoted(name)} {t.storage_declaration(oid)}".rstrip()
                            for name, oid in columns)
    create = [f"CREATE TABLE IF NOT EXISTS {STALE_TABLE} (matview TEXT PRIMARY KEY, "
              "stale INTEGER NOT NULL)",
              f"INSERT INTO {STALE_TABLE} VALUES ({key}, 0)",
              f"CREATE TABLE {table} ({definitions})"]
    triggers: list[str] = []
    for number, watched_table in enumerate(watched):
        for event in ("INSERT", "DELETE", "UPDATE"):
            name = f"{physical}__watch{number}_{event.lower()}"
            triggers.append(name)
            create.append(f"CREATE TRIGGER {quoted(name)} AFTER {event} ON "
                          f"{quoted(watched_table)} BEGIN {stale.format(1)}; END")
    names = ", ".join(quoted(name) for name, _ in columns)
    drop = [f"DROP TRIGGER IF EXISTS {quoted(name)}" for name in triggers] + [
        f"DROP TABLE IF EXISTS {table}", f"DELETE FROM {STALE_TABLE} WHERE matview = {key}"]
    plan = [f"Materialized view {shown_name}: recomputed in full ({reason})",
            "  when read after a change to: " + ", ".join(watched)]
    return Program(tuple(create), Matview(
        False, sources, watched, tuple(plan),
        (f"INSERT INTO {table} ({names}) {query}", stale.format(0)),
        (f"DELETE FROM {table}",), tuple(drop), reason))

