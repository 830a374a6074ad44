"""Column-wise output with Arrow: the vocabulary of the column encoders.

A column encoder turns the values of one result column in a chunk of rows
into an Arrow array of their wire forms (the bytes as string or binary, or
a fixed-width number that ``wire.bulk`` sends in network byte order), so
that the work runs in Arrow's kernels instead of one Python call per value. Each type family module
specialises the common storage forms of its types (ints as int64, text as
string...) and leaves everything else to its per-value encoder, which stays
the reference: ``patched`` sends the values a kernel cannot print exactly
through it, ``each`` a whole column.

pyarrow is imported when a column encoder first runs (``arrow.pa``,
``arrow.pc``): its import (~0.15 s) is paid by servers that send large
results, not by every process that imports the codecs.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, Final

from executor.codecs.base import ColumnEncoder, Encoder


class _Arrow:
    """pyarrow and pyarrow.compute, imported on first use."""

    @functools.cached_property
    def pa(self) -> ModuleType:
        return importlib.import_module("pyarrow")

    @functools.cached_property
    def pc(self) -> ModuleType:
        return importlib.import_module("pyarrow.compute")


arrow: Final = _Arrow()


def each(encoder: Encoder) -> ColumnEncoder:
    """The column encoder of a per-value one: every type's default, and the
    fallback of a specialised one that meets a value it does not expect."""

    def encode(values: Sequence[Any]) -> Any:
        return arrow.pa.array([None if value is None else encoder(value) for value in values],
                              arrow.pa.binary())

    return encode


def inferred(values: Sequence[Any], type_id: str) -> Any | None:
    """The values as an Arrow array if Arrow infers the type named
    ``type_id`` ('int64', 'double', 'string') from them, else None: a 3.0
    among ints, or bytes among str, is never converted silently. A column
    of NULLs only gives None too."""
    pa = arrow.pa
    try:
        column = pa.array(values)
    except (pa.ArrowException, OverflowError, ValueError, TypeError):
        return None
    return column if str(column.type) == type_id else None


def when_inferred(type_id: str, kernel: Callable[[Any, Sequence[Any]], Any],
                  per_value: Encoder) -> ColumnEncoder:
    """The column encoder that gives ``kernel`` the values as an Arrow array
    (and as they are) when Arrow infers the type named ``type_id`` from
    them, and encodes them through ``per_value`` otherwise."""
    whole_column = each(per_value)

    def encode(values: Sequence[Any]) -> Any:
        column = inferred(values, type_id)
        return whole_column(values) if column is None else kernel(column, values)

    return encode


def patched(printed: Any, exact: Any, values: Sequence[Any], encoder: Encoder) -> Any:
    """``printed`` where ``exact`` is true (or null), the per-value
    ``encoder``'s output at the other values that are not NULL: the values
    a kernel does not print as PostgreSQL does."""
    pa, pc = arrow.pa, arrow.pc
    if pc.all(exact).as_py() is not False:
        return printed
    wrong = [not fine and value is not None
             for value, fine in zip(values, exact.fill_null(True).to_pylist(), strict=True)]
    fixed = [encoder(value) for value, bad in zip(values, wrong, strict=True) if bad]
    return pc.replace_with_mask(printed.cast(pa.binary()), pa.array(wrong, pa.bool_()),
                                pa.array(fixed, pa.binary()))
