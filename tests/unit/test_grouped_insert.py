"""The SQL and the bound values of a group of rows inserted at once."""

from __future__ import annotations

from executor.grouped_insert import group_size, grouped_sql, groups
from executor.plans import ValuesRow

ROW = ValuesRow('INSERT INTO "t" AS "t" ("a", "b") VALUES ', (2, 1))


def test_each_row_of_a_group_numbers_its_parameters_on() -> None:
    assert grouped_sql(ROW, 3, 2) == 'INSERT INTO "t" AS "t" ("a", "b") VALUES (?2, ?1), (?5, ?4)'


def test_a_group_binds_no_more_than_sqlite_allows() -> None:
    assert group_size(3, 32766) == 100
    assert group_size(400, 32766) == 81
    assert group_size(999, 999) == 1


class Columns:
    def __init__(self, columns: list[list[object]]) -> None:
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns[0])


def test_rows_and_columns_give_the_same_groups() -> None:
    rows = [(n, f"v{n}", n * 2) for n in range(7)]
    as_rows = [(values, list(group)) for values, group in groups(rows, 3, 2)]
    as_columns = [(values, list(group)) for values, group in groups(
        Columns([[row[i] for row in rows] for i in range(3)]), 3, 2)]
    assert [values for values, _ in as_columns] == [
        [0, "v0", 1, "v1", 2, "v2"], [3, "v3", 4, "v4", 5, "v5"], []]
    assert [values for values, _ in as_rows] == [values for values, _ in as_columns]
    assert [group for _, group in as_columns][-1] == [(6, "v6")]
    assert [group for _, group in as_rows][-1] == [(6, "v6", 12)]


def test_the_last_group_takes_the_rows_left() -> None:
    rows = [(n, n) for n in range(5)]
    assert [values for values, _ in groups(rows, 3, 2)] == [[0, 0, 1, 1, 2, 2], [3, 3, 4, 4]]
    assert [values for values, _ in groups(Columns([[0, 1, 2, 3, 4]] * 2), 3, 2)] == [
        [0, 0, 1, 1, 2, 2], [3, 3, 4, 4]]
