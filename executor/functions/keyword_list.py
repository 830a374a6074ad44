"""pg_get_keywords(): PostgreSQL's key words (``catalog.keywords``) as rows;
pgjdbc's DatabaseMetaData.getSQLKeywords() and psql's tab completion read them."""

from __future__ import annotations

import functools
import json

from catalog.keywords import CATEGORIES, KEYWORDS
from executor.functions.declare import Declarations

FUNCTIONS = Declarations()


@FUNCTIONS.internal("sqlext_pg_get_keywords", 0)
@functools.cache
def _keywords() -> str:
    """The rows as a JSON array of objects (the translator reads their fields)."""
    return json.dumps([
        {"word": word, "catcode": code, "barelabel": bare, "catdesc": CATEGORIES[code],
         "baredesc": "can be bare label" if bare else "requires AS"}
        for word, code, bare in KEYWORDS])
