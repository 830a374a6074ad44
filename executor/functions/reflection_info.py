"""Catalog information functions that ORM and migration tools call when they
reflect a schema (SQLAlchemy's Inspector, Alembic's autogenerate), beside
those psql and JDBC call (``catalog_info``)."""

from __future__ import annotations

from typing import Any

from catalog.sqltypes import BOOL, OID
from catalog.system import COLLATIONS
from executor.functions.declare import Declarations

FUNCTIONS = Declarations()


@FUNCTIONS.scalar("pg_collation_is_visible", BOOL, OID, min_args=1, max_args=1)
def _collation_is_visible(oid: Any) -> int | None:
    """Every collation lives in pg_catalog, which every search path begins
    with, so each is visible; NULL for an OID that is no collation."""
    if oid is None:
        return None
    return 1 if int(oid) in COLLATIONS else None
