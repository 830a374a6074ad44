"""Cursor and two-phase commit statements print as PostgreSQL text that
parses back to the same statement."""

from __future__ import annotations

import pytest

from sqlext.sql.parse import parse

TEXTS = [
    "DECLARE c SCROLL CURSOR WITH HOLD FOR SELECT 1",
    "DECLARE c BINARY CURSOR FOR SELECT 1",
    "FETCH NEXT FROM c", "FETCH PRIOR FROM c", "FETCH FIRST FROM c", "FETCH LAST FROM c",
    "FETCH FORWARD 3 FROM c", "FETCH FORWARD ALL FROM c", "FETCH BACKWARD 0 FROM c",
    "MOVE ABSOLUTE -2 FROM c", "MOVE RELATIVE 0 FROM c", "FETCH BACKWARD ALL FROM c",
    "PREPARE TRANSACTION 'it''s'", "COMMIT PREPARED 'g'", "ROLLBACK PREPARED 'g'",
]


@pytest.mark.parametrize("text", TEXTS)
def test_canonical_text_parses_back(text: str) -> None:
    (statement,) = parse(text).statements
    printed = statement.sql(dialect="sqlext")
    (again,) = parse(printed).statements
    assert repr(again) == repr(statement)
    assert printed == text
