"""Records (composite values, held as JSON objects) as PostgreSQL prints
them: ``(a,1)``, each field in its type's text form, quoted where record_out
quotes it, nothing for NULL. The translator gives the fields' names and
types (``RecordLayout``) with each call."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, Final

from executor import codecs
from executor.functions.declare import Declarations, Function, Runtime

FUNCTIONS = Declarations()

_NEEDS_QUOTES: Final = frozenset('"\\(),')


def record_layout(fields: list[tuple[str, int, int]]) -> str:
    """The layout argument of ``sqlext_record_text``: each field's name,
    type OID and typmod."""
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False)


def _quoted(text: str) -> str:
    if text and not any(char in _NEEDS_QUOTES or char.isspace() for char in text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '""') + '"'


@functools.lru_cache(maxsize=256)
def _writer(layout: str, settings: codecs.Settings) -> Callable[[str], str]:
    fields = [(name, codecs.text_encoder(oid, typmod, settings))
              for name, oid, typmod in json.loads(layout)]

    def write(record: str) -> str:
        values = json.loads(record)
        return "(" + ",".join("" if values.get(name) is None else _quoted(
            encode(values[name]).decode()) for name, encode in fields) + ")"
    return write


@FUNCTIONS.internal("sqlext_record_text", 2, runtime=True)
def _record_text(runtime: Runtime) -> Function:
    def text(record: Any, layout: str) -> Any:
        return None if record is None else _writer(layout, runtime.codec_settings())(record)
    return text
