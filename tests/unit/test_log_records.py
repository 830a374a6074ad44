"""The command log's records: every kind survives encode/decode, and what a
server cannot read is refused with the reason, never a bare ValueError."""

from __future__ import annotations

import marshal

import pytest

from sqlext.durability import records

STATEMENT = records.Statement("INSERT INTO t VALUES ($1, $2)", 0, (23, 0), (1, "x"), 0,
                              1_700_000_000_000_001, 1_700_000_000_000_002,
                              ((("public", "s"), 4),), 1)
EXAMPLES: list[records.Record] = [
    records.Transaction(1_700_000_000_000_003, 42, ((16400, 7),),
                        (STATEMENT, STATEMENT._replace(params=((1, 2), ("a", None)), many=2)),
                        ((("public", "s"), 5),)),
    records.TaskRun(1_700_000_000_000_004, 43, "public", "validate", 16400, 7,
                    1_700_000_000_000_000, ((("public", "s"), None),), ((16401, 7),)),
    records.Environment(1, "postgres", "sqlext", (("timezone", "UTC"),)),
    records.Sequences(((("public", "s"), 9),)),
]


@pytest.mark.parametrize("record", EXAMPLES, ids=lambda record: type(record).__name__)
def test_every_kind_round_trips(record: records.Record) -> None:
    decoded = records.decode(records.encode(record), records.LAYOUT_VERSION)
    assert decoded == record and type(decoded) is type(record)
    if isinstance(decoded, records.Transaction):
        assert all(isinstance(s, records.Statement) for s in decoded.statements)


def test_layout_one_is_the_tuples_earlier_servers_wrote() -> None:
    """Logs written before the records were typed, with a many-row
    statement's values a row at a time, replay unchanged."""
    transaction = EXAMPLES[0]
    assert isinstance(transaction, records.Transaction)
    rows_of_values = ((1, "a"), (2, None))
    statements = (tuple(STATEMENT._replace(many=False)),
                  tuple(STATEMENT._replace(params=rows_of_values, many=True)))
    written = marshal.dumps((1, *transaction[:3], statements, transaction.sequences), 4)
    assert records.decode(written, 1) == transaction


def test_an_unknown_layout_is_refused_by_version() -> None:
    with pytest.raises(records.RecordError,
                       match="record layout version 3; this server reads versions 1, 2"):
        records.decode(records.encode(EXAMPLES[2]), 3)


@pytest.mark.parametrize(("payload", "reason"), [
    (b"\xff\x00garbage", "undecodable record"),
    (marshal.dumps([1, 2]), "not a command log record"),
    (marshal.dumps((9, 1, 2)), "unknown record kind 9"),
    (marshal.dumps((3, 1, "postgres")), "Environment record of the wrong shape"),
])
def test_what_is_no_record_says_why(payload: bytes, reason: str) -> None:
    with pytest.raises(records.RecordError, match=reason):
        records.decode(payload, records.LAYOUT_VERSION)
