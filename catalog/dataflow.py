"""Dataflow objects: stream options, stored procedures and triggers.

Pure data like the rest of the catalog. A stream is a ``Relation`` whose
``stream`` field is set (it is stored and listed like a table); procedures
and triggers live in their own maps of the ``Catalog``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from catalog import acl as acls
from catalog.acl import Acl
from catalog.pickling import restore_fields

BATCH_ID: Final = "batch_id"
"""The pseudo-column every stream has: the batch a tuple belongs to."""


DEFAULT_KEEP_BATCHES: Final = 1000
"""How many of its newest batches a notify stream keeps unless told."""


@dataclass(frozen=True, slots=True)
class StreamOptions:
    batch_column: str | None = None
    """The column that carries client-assigned batch ids (None: the
    engine numbers batches itself)."""
    notify: str | None = None
    """The channel every committed batch is announced on (None: none)."""
    keep_batches: int = 0
    """A notify stream keeps its newest this many batches (and any older
    one a procedure has yet to run on) for clients catching up; 0 for
    other streams, whose batches go once consumed."""

    def __setstate__(self, state: tuple[object, ...]) -> None:
        restore_fields(self, state)


@dataclass(frozen=True, slots=True)
class WindowSpec:
    """A window on a stream: ROWS (tuple counts) or RANGE (values of an
    integer or timestamp column; sizes then in microseconds)."""

    stream: tuple[str, str]
    rows: bool
    size: int
    slide: int
    column: str | None = None
    """RANGE: the column whose values place tuples in windows."""
    column_type: int = 0
    partition: str | None = None
    """ROWS: each value of this column has a window of its own."""


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str | None
    type_oid: int
    typmod: int = -1
    default: str | None = None
    """The default as PostgreSQL SQL text."""


@dataclass(frozen=True, slots=True)
class Procedure:
    oid: int
    schema: str
    name: str
    params: tuple[Parameter, ...]
    language: str
    """'sql' or 'python'."""
    body: str
    """The source of the statements (SQL) or the function body (Python)."""
    owner: str = "postgres"
    acl: Acl | None = None
    """EXECUTE granted (None: the owner and PUBLIC, see ``catalog.acl``)."""

    def __setstate__(self, state: tuple[object, ...]) -> None:
        restore_fields(self, state)
        object.__setattr__(self, "acl", acls.upgraded(self.acl, self.owner, "procedure"))

    @property
    def required_params(self) -> int:
        return sum(1 for p in self.params if p.default is None)


@dataclass(frozen=True, slots=True)
class Trigger:
    oid: int
    schema: str
    name: str
    event: str
    """'insert' or 'slide'."""
    target: tuple[str, str]
    """(schema, name) of the stream, table or window it fires on."""
    procedure: tuple[str, str] | None = None
    """PE trigger: the procedure started for each committed batch."""
    body: str | None = None
    """EE trigger: statements run inside the inserting transaction."""
