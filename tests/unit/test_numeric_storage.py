"""numeric's storage forms: keys give back the value and its display scale,
and their byte order (under RTRIM, which ignores the scale's padding) is
PostgreSQL's numeric order; scaled integers give back their value."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from executor.codecs import numeric_storage as storage
from storage.sqlite import Database

_RANDOM = random.Random(20261126)
SPECIALS = [storage.NAN, storage.INFINITY, storage.NEGATIVE_INFINITY]
CURATED = [*SPECIALS, Decimal("0"), Decimal("0.00"), Decimal("-0.0"), Decimal("1500"),
           Decimal("1.5E+3"), Decimal("-1500"), Decimal("0.05"), Decimal("-0.050"),
           Decimal("1.10"), Decimal("1.1"), Decimal("9" * 40), Decimal("-0." + "0" * 30 + "1")]
SAMPLES = CURATED + [
    Decimal(_RANDOM.randint(-10**digits, 10**digits)).scaleb(-_RANDOM.randint(0, 30))
    for digits in range(1, 41) for _ in range(60)]


def _order(value: Decimal) -> tuple[int, Decimal]:
    """PostgreSQL's order: NaN above everything, equal values equal."""
    return (1, Decimal(0)) if value.is_nan() else (0, value)


def _shown(value: Decimal) -> str:
    """How numeric_out prints it: the display scale, no negative zero."""
    return format(value.copy_abs() if value.is_zero() else value, "f")


@pytest.mark.parametrize("value", CURATED, ids=str)
def test_a_key_gives_back_the_value_and_its_scale(value: Decimal) -> None:
    back = storage.value(storage.key(value))
    if value.is_nan():
        assert back.is_nan()
    else:
        assert back == value and _shown(back) == _shown(value)


def test_random_values_round_trip_with_their_scale() -> None:
    for value in SAMPLES[len(CURATED):]:
        back = storage.value(storage.key(value))
        assert back == value and _shown(back) == _shown(value), value


def test_sqlite_orders_and_groups_keys_as_numbers() -> None:
    connection = Database()
    connection.execute(f"CREATE TABLE t (k TEXT COLLATE {storage.COLLATION}, n INT)")
    connection.executemany("INSERT INTO t VALUES (?, ?)",
                           [(storage.key(v), i) for i, v in enumerate(SAMPLES)])
    ordered = [SAMPLES[n] for (n,) in connection.execute("SELECT n FROM t ORDER BY k, n")]
    assert [_order(v) for v in ordered] == sorted(_order(v) for v in SAMPLES)
    distinct = connection.execute("SELECT count(DISTINCT k) FROM t").fetchone()[0]
    assert distinct == len({_order(v) for v in SAMPLES})
    # 1.10 = 1.1 and each keeps its scale
    equal = connection.execute("SELECT ? = ? COLLATE RTRIM", (
        storage.key(Decimal("1.10")), storage.key(Decimal("1.1")))).fetchone()[0]
    assert equal == 1


def test_scaled_integers_stand_for_their_values() -> None:
    assert storage.from_scaled(150, 2) == Decimal("1.50")
    assert str(storage.from_scaled(-5, 3)) == "-0.005"
    assert storage.scaled(Decimal("-12.30"), 2) == -1230
    assert storage.scaled(storage.NAN, 2) == storage.NAN_STORED
    assert storage.from_scaled(storage.NAN_STORED, 2).is_nan()
    assert storage.scaled_scale(655366) == 2  # numeric(10,2)
    assert storage.scaled_scale(((19 << 16) | 2) + 4) is None  # numeric(19,2): keys
