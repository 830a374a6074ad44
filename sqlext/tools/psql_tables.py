"""Results printed as psql prints them (its aligned format): the values'
PostgreSQL text forms, centred headers, numbers to the right, no trailing
blanks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, TextIO

import psycopg

RIGHT_ALIGNED: Final = frozenset((20, 21, 23, 26, 28, 29, 700, 701, 790, 1700, 5069))
"""The type OIDs psql aligns to the right: int8, int2, int4, oid, xid, cid,
float4, float8, money, numeric, xid8 (``column_type_alignment`` in psql)."""


@dataclass(frozen=True, slots=True)
class Table:
    names: list[str]
    rows: list[list[str]]
    """Each value's text form ("" for NULL, as psql shows it)."""
    right: list[bool]
    """Per column: aligned to the right (a number)."""

    @classmethod
    def of(cls, cursor: psycopg.Cursor[Any]) -> Table:
        """The result ``cursor`` holds, as the server sent it."""
        result = cursor.pgresult
        assert result is not None and cursor.description is not None
        return cls([column.name for column in cursor.description],
                   [["" if (value := result.get_value(row, column)) is None else value.decode()
                     for column in range(result.nfields)] for row in range(result.ntuples)],
                   [result.ftype(column) in RIGHT_ALIGNED for column in range(result.nfields)])

    def print(self, out: TextIO) -> None:
        widths = [max([len(name), *(len(row[i]) for row in self.rows)])
                  for i, name in enumerate(self.names)]
        print(" " + " | ".join(_centred(name, width)
                               for name, width in zip(self.names, widths, strict=True)) + " ",
              file=out)
        print("-" + "-+-".join("-" * width for width in widths) + "-", file=out)
        for row in self.rows:
            cells = [value.rjust(width) if self.right[i] else value.ljust(width)
                     for i, (value, width) in enumerate(zip(row, widths, strict=True))]
            print((" " + " | ".join(cells)).rstrip(), file=out)
        print(f"({len(self.rows)} row{'' if len(self.rows) == 1 else 's'})\n", file=out)


def print_table(cursor: psycopg.Cursor[Any], out: TextIO) -> None:
    Table.of(cursor).print(out)


def _centred(name: str, width: int) -> str:
    """As psql centres a header: an odd blank goes to the right."""
    left = (width - len(name)) // 2
    return " " * left + name + " " * (width - len(name) - left)
