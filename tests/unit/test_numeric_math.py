"""executor.values.numeric_math and numeric_aggregates without a server.

The expected outcomes are PostgreSQL 15's, frozen in numeric_math_expected.json
by scripts/freeze_numeric_cases.py from the cases of
tests/fixtures/numeric_cases.py (long results as length and SHA-256);
tests/conformance/test_numeric_math_vs_postgres.py keeps asking a live
PostgreSQL with random cases. Besides those: the canonical form of values (the
exponent is minus the dscale, the specials are the module's singletons),
PostgreSQL's sort order, and aggregates whose frame empties and refills.
"""

from __future__ import annotations

import json
from decimal import Decimal
from functools import cmp_to_key
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catalog import errors
from executor.values import numeric_aggregates as aggregates
from executor.values import numeric_math as nm
from tests.fixtures.numeric_cases import AggregateCase, Case, frozen

EXPECTED = json.loads(Path(__file__).with_name("numeric_math_expected.json").read_text())
N = nm.from_text


def _case_id(entry: list) -> str:
    op, numbers, ints, _ = entry
    return f"{op}({', '.join([*numbers, *map(str, ints)])})"[:80]


@pytest.mark.parametrize("entry", EXPECTED["cases"], ids=_case_id)
def test_matches_postgres(entry: list) -> None:
    op, numbers, ints, expected = entry
    assert frozen(Case(op, tuple(numbers), tuple(ints)).run()) == expected


@pytest.mark.parametrize("entry", EXPECTED["aggregates"],
                         ids=lambda entry: f"{entry[0]}|{entry[2]}|{','.join(entry[1])}"[:80])
def test_aggregate_matches_postgres(entry: list) -> None:
    function, values, preceding, expected = entry
    outcomes = AggregateCase(function, tuple(values), preceding).run()
    assert [frozen(outcome) for outcome in outcomes] == expected


@pytest.mark.parametrize("text, digits", [("1.5e3", 0), ("1.50", 2), ("-0.000", 3), ("1e-7", 7),
                                           ("12.345e1", 2), ("0e5", 0)])
def test_exponent_is_minus_the_dscale(text: str, digits: int) -> None:
    value = N(text)
    assert value.as_tuple().exponent == -digits
    assert nm.scale(value) == digits
    assert not value.is_signed() or value < 0


def test_results_keep_the_canonical_form() -> None:
    assert nm.mul(N("-2.5"), N("0.00")).as_tuple() == (0, (0,), -3)  # no negative zero
    assert nm.round(N("-0.4")).as_tuple() == (0, (0,), 0)
    assert nm.ceil(N("-0.5")).as_tuple() == (0, (0,), 0)
    assert nm.mod(N("-4"), N("2")).as_tuple() == (0, (0,), 0)
    assert nm.round(N("1234.5"), -2).as_tuple() == (0, (1, 2, 0, 0), 0)
    assert nm.div(N("10"), N("4")).as_tuple().exponent == -16


def test_specials_are_the_module_singletons() -> None:
    nan, inf, ninf, one = N("nan"), N("inf"), N("-infinity"), N("1")
    assert nan is nm.NAN and inf is nm.POS_INF and ninf is nm.NEG_INF
    assert nm.add(inf, ninf) is nm.NAN
    assert nm.mul(inf, nm.ZERO) is nm.NAN
    assert nm.sub(one, inf) is nm.NEG_INF
    assert nm.negate(ninf) is nm.POS_INF
    assert nm.absolute(ninf) is nm.POS_INF
    assert nm.power(nan, N("2")) is nm.NAN
    assert nm.div(inf, N("-2")) is nm.NEG_INF
    groups = {nm.NAN: "nan"}
    assert groups[nm.sqrt(nan)] == "nan"  # found again as a key although NaN != NaN


def test_sort_order_is_postgres() -> None:
    values = ["NaN", "1.10", "-Infinity", "0", "1.1", "Infinity", "-0.00", "1e-20", "-1e20", "NaN",
              "2", "-2.5", "1.099999999999999999999"]
    # SELECT array_agg(x::text ORDER BY x) FROM unnest(values::numeric[]) x, on PostgreSQL 15
    expected = ["-Infinity", "-100000000000000000000", "-2.5", "0", "0", "0.00000000000000000001",
                "1.099999999999999999999", "1.1", "1.1", "2", "Infinity", "NaN", "NaN"]
    by_key = sorted(map(N, values), key=nm.sort_key)
    by_compare = sorted(map(N, values), key=cmp_to_key(nm.compare))
    for ordered in (by_key, by_compare):
        assert [nm.to_text(nm.trim_scale(value)) for value in ordered] == expected
    assert nm.compare(N("1.10"), N("1.1")) == 0
    assert nm.compare(N("NaN"), N("NaN")) == 0
    assert nm.compare(N("NaN"), N("Infinity")) == 1


def test_errors_are_the_catalog_classes() -> None:
    with pytest.raises(errors.DivisionByZero):
        nm.div(N("1"), N("0.0"))
    with pytest.raises(errors.InvalidArgumentForLogarithm):
        nm.ln(N("-1"))
    with pytest.raises(errors.InvalidArgumentForPowerFunction):
        nm.power(N("-2"), N("0.5"))
    with pytest.raises(errors.InvalidArgumentForWidthBucketFunction):
        nm.width_bucket(N("1"), N("0"), N("2"), 0)
    with pytest.raises(errors.NumericValueOutOfRange):
        nm.mul(N("1e70000"), N("1e70000"))
    with pytest.raises(errors.InvalidTextRepresentation):
        N("1.2.3")


def test_aggregate_frame_that_empties_takes_the_scale_of_its_new_values() -> None:
    total, average = aggregates.NumericSum(), aggregates.NumericAvg()
    for state in (total, average):
        state.step(N("1.50"))
        state.inverse(N("1.50"))
        assert state.finish() is None
        state.step(N("3"))
    assert nm.to_text(total.finish()) == "3"
    assert nm.to_text(average.finish()) == "3.0000000000000000"


def test_aggregate_counts_specials_apart() -> None:
    state = aggregates.VarPop()
    for text in ("1.5", "Infinity", "2.5"):
        state.step(N(text))
    assert state.finish() is nm.NAN
    state.inverse(N("Infinity"))
    assert nm.to_text(state.finish()) == "0.25000000000000000000"


def _in_range(value: Decimal) -> bool:
    return value.adjusted() < 1000 and len(format(value, "f").partition(".")[2]) < 1000


decimals = st.decimals(allow_nan=False, allow_infinity=False).filter(_in_range)


@given(decimals)
def test_text_round_trip(value: Decimal) -> None:
    canonical = N(format(value, "f"))
    assert N(nm.to_text(canonical)).as_tuple() == canonical.as_tuple()
    assert canonical == value


@given(decimals, decimals)
def test_add_sub_and_mul_are_exact(a: Decimal, b: Decimal) -> None:
    x, y = N(format(a, "f")), N(format(b, "f"))
    for result, exact in ((nm.add(x, y), nm.UNBOUNDED.add(x, y)),
                          (nm.sub(x, y), nm.UNBOUNDED.subtract(x, y)),
                          (nm.mul(x, y), nm.UNBOUNDED.multiply(x, y))):
        assert result == exact
        assert nm.scale(result) == nm.scale(exact)
        assert not result.is_signed() or result < 0
