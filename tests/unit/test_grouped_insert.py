"""The SQL and the bound values of a group of rows inserted at once."""

from __future__ import annotations

from executor.grouped_insert import group_size, grouped_sql, groups
from executor.plans import ValuesRow

ROW = ValuesRow('INSERT INTO "t" AS "t" ("a", "b") VALUES ', (2, 1))


def test_each_row_of_a_group_numbers_its_parameters_on() -> None:
    assert grouped_sql(ROW, 3, 2) == 'INSERT INTO "t" AS "t" ("a", "b") VALUES (?2, ?1), (?5, ?4)'


def test_a_group_binds_no_more_than_sqlite_allows_in_a_power_of_two() -> None:
    assert group_size(3, 32766) == 256
    assert group_size(400, 32766) == 64
    assert group_size(999, 999) == 1


class Columns:
    def __init__(self, columns: list[list[object]]) -> None:
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns[0])


def _groups(rows: list[tuple[object, ...]], largest: int, bindings: int, as_columns: bool
            ) -> list[tuple[list[object], list[tuple[object, ...]]]]:
    given = Columns([[row[i] for row in rows] for i in range(len(rows[0]))]) if (
        as_columns) else rows
    return [(values, list(group)) for values, group in groups(given, largest, bindings)]


def test_rows_go_in_powers_of_two_then_one_by_one() -> None:
    rows = [(n, f"v{n}", n * 2) for n in range(29)]
    for as_columns in (False, True):
        found = _groups(rows, 16, 2, as_columns)
        assert [len(group) for _, group in found] == [16, 8, 5]
        assert found[0][0][:4] == [0, "v0", 1, "v1"] and len(found[0][0]) == 32
        assert found[1][0] == [value for n in range(16, 24) for value in (n, f"v{n}")]
        assert found[2][0] == []
        assert found[2][1] == [row[:2] for row in rows[24:]]  # bound: the first 2 values
