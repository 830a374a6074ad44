"""numeric aggregates with PostgreSQL 15's results: sum, avg and the variance family.

Each class is an aggregate state over canonical numeric values (see
``numeric_math``): ``step(value)`` adds a non-NULL value, ``inverse(value)``
removes one added before (moving-window frames, where PostgreSQL uses the
inverse transition too), ``finish()`` gives the result or None for SQL NULL.
The classes take no constructor arguments, as sqlite3's aggregate API wants.

As in numeric.c's NumericAggState, NaN and the infinities are counted apart
from the exact running sums, and the result's scale comes from the largest
dscale among the values currently aggregated: numeric.c gives up the inverse
transition when the last value of that dscale leaves and recomputes the frame,
which has the same result as the count of values per dscale kept here.
"""

from __future__ import annotations

from decimal import Decimal

from executor.values import numeric_math as nm

_ADD = nm.UNBOUNDED.add
_SUB = nm.UNBOUNDED.subtract
_MUL = nm.UNBOUNDED.multiply


class _Scales:
    """How many aggregated values have each dscale (same_quantum: no parsing)."""

    __slots__ = ("_counts", "_samples")

    def __init__(self) -> None:
        self._samples: list[Decimal] = []
        self._counts: list[int] = []

    def add(self, value: Decimal) -> None:
        for index, sample in enumerate(self._samples):
            if sample.same_quantum(value):
                self._counts[index] += 1
                return
        self._samples.append(value)
        self._counts.append(1)

    def remove(self, value: Decimal) -> None:
        for index, sample in enumerate(self._samples):
            if sample.same_quantum(value):
                self._counts[index] -= 1
                if not self._counts[index]:
                    del self._samples[index], self._counts[index]
                return

    def largest(self) -> int:
        return max((nm.scale(sample) or 0 for sample in self._samples), default=0)


class NumericSum:
    """sum(numeric): exact, dscale the largest of the values."""

    __slots__ = ("count", "nans", "negative_infinities", "positive_infinities", "scales",
                 "total")

    def __init__(self) -> None:
        self.count = 0
        self.nans = 0
        self.positive_infinities = 0
        self.negative_infinities = 0
        self.total = nm.ZERO
        self.scales = _Scales()

    def step(self, value: Decimal) -> None:
        if value.is_finite():
            self.count += 1
            self.total = _ADD(self.total, value)
            self.scales.add(value)
            self._step_finite(value)
        else:
            self._count_special(value, 1)

    def inverse(self, value: Decimal) -> None:
        if value.is_finite():
            self.count -= 1
            self.total = _SUB(self.total, value)
            self.scales.remove(value)
            self._inverse_finite(value)
        else:
            self._count_special(value, -1)

    def _step_finite(self, value: Decimal) -> None:
        """What a subclass keeps besides the count and the sum."""

    def _inverse_finite(self, value: Decimal) -> None:
        """Undoes ``_step_finite``."""

    def _count_special(self, value: Decimal, delta: int) -> None:
        if value.is_nan():
            self.nans += delta
        elif value.is_signed():
            self.negative_infinities += delta
        else:
            self.positive_infinities += delta

    def _total_count(self) -> int:
        return self.count + self.nans + self.positive_infinities + self.negative_infinities

    def _special_result(self) -> Decimal | None:
        """NaN if any NaN or both infinities were aggregated, else the infinity."""
        if self.nans or (self.positive_infinities and self.negative_infinities):
            return nm.NAN
        if self.positive_infinities:
            return nm.POS_INF
        if self.negative_infinities:
            return nm.NEG_INF
        return None

    def _sum(self) -> Decimal:
        """The exact sum at the dscale of the values aggregated now (the running
        sum keeps the scale of values already removed)."""
        return nm.round(self.total, self.scales.largest())

    def finish(self) -> Decimal | None:
        if not self._total_count():
            return None
        special = self._special_result()
        return self._sum() if special is None else special


class NumericAvg(NumericSum):
    """avg(numeric) (and avg of integers): the sum divided by the count with
    the / operator's scale."""

    __slots__ = ()

    def finish(self) -> Decimal | None:
        if not self._total_count():
            return None
        special = self._special_result()
        return nm.div(self._sum(), Decimal(self.count)) if special is None else special


class _Variance(NumericSum):
    """The variance family: numeric_math.variance of the count and the sums."""

    __slots__ = ("squares",)
    sample = True
    root = False

    def __init__(self) -> None:
        super().__init__()
        self.squares = nm.ZERO

    def _step_finite(self, value: Decimal) -> None:
        self.squares = _ADD(self.squares, _MUL(value, value))

    def _inverse_finite(self, value: Decimal) -> None:
        self.squares = _SUB(self.squares, _MUL(value, value))

    def finish(self) -> Decimal | None:
        total_count = self._total_count()
        if total_count <= (1 if self.sample else 0):
            return None
        if self.nans or self.positive_infinities or self.negative_infinities:
            return nm.NAN  # as for float8, an infinite input gives NaN
        return nm.variance(self.count, self.total, self.squares, self.scales.largest(),
                           sample=self.sample, root=self.root)


class VarSamp(_Variance):
    """var_samp(numeric) and variance(numeric)."""

    __slots__ = ()


class VarPop(_Variance):
    """var_pop(numeric)."""

    __slots__ = ()
    sample = False


class StddevSamp(_Variance):
    """stddev_samp(numeric) and stddev(numeric)."""

    __slots__ = ()
    root = True


class StddevPop(_Variance):
    """stddev_pop(numeric)."""

    __slots__ = ()
    sample = False
    root = True
