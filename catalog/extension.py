"""The extension ``sqlext``: how pg_catalog presents the dataflow to tools
that know only PostgreSQL's objects (pg_dump above all).

Once a database has a stream, window, procedure or trigger (or after
``CREATE EXTENSION sqlext``), pg_extension has a row ``sqlext`` living in
the schema ``sqlext``, and the dataflow objects pg_dump would otherwise dump
as something they are not (a stream as a table) are its members (pg_depend
rows of deptype 'e'). pg_dump skips an extension's members; it writes
``CREATE EXTENSION IF NOT EXISTS sqlext`` instead, and the rows of the
extension's configuration table ``sqlext.dataflow`` (pg_extension.extconfig):
the statements that rebuild the dataflow, which sqlext runs when they are
inserted back. ``catalog.extension_members`` says which objects belong to it.

Pure data, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from catalog.pickling import restore_fields

EXTENSION_NAME: Final = "sqlext"
EXTENSION_SCHEMA: Final = "sqlext"
"""The extension's schema (not relocatable: CREATE EXTENSION names no other)."""
CONFIG_TABLE: Final = "dataflow"
"""The relation whose rows are the dataflow's statements: (position, definition)."""


@dataclass(frozen=True, slots=True)
class Extension:
    oid: int
    version: str
    """The sqlext version that made it (pg_extension.extversion)."""
    table_oid: int
    """The OID of ``sqlext.dataflow``."""
    owns_schema: bool
    """The schema was made with the extension (and is a member of it); a
    schema ``sqlext`` that was there before stays the user's."""

    def __setstate__(self, state: tuple[object, ...]) -> None:
        restore_fields(self, state)
