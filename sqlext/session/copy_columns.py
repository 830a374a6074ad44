"""The lines of a large chunk of COPY ... TO, made column by column with
Arrow's kernels: the same escaping (text) and quoting (CSV) as
``copy_stdio.format_rows`` does value by value, then the fields joined
with the delimiter; binary rows come from ``wire.bulk``.

Importing this module imports pyarrow: ``copy_out`` does so with the first
large chunk.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from sqlext.session.copy_stdio import CopyFormat, forced_quotes
from wire import bulk


def chunk(columns: Sequence[pa.Array], rows: int, fmt: CopyFormat, names: list[str],
          first: bytes, framed: bool) -> bytes:
    """The chunk's lines (``first`` before the first one), as CopyData
    messages or as plain bytes."""
    end = b""
    if fmt.binary:
        lines = bulk.field_rows(columns, rows)
    else:
        end = b"\n"
        forced = forced_quotes(names, fmt)
        alone = len(columns) == 1
        fields = [_csv_field(bulk.as_bytes(column), fmt, force, alone) if fmt.csv
                  else _text_field(bulk.as_bytes(column), fmt)
                  for column, force in zip(columns, forced, strict=True)]
        lines = pc.binary_join_element_wise(*fields, _bytes(fmt.delimiter)) if fields else (
            pa.array([b""] * rows, pa.binary()))
    if first:
        lines = pc.binary_join_element_wise(
            pa.array([first] + [b""] * (rows - 1), pa.binary()), lines, _bytes(""))
    if framed:
        return bulk.framed(b"d", lines, end)
    return bulk.concatenated(pc.binary_join_element_wise(lines, end, b"") if end else lines)


def _bytes(text: str) -> pa.Scalar:
    return pa.scalar(text.encode(), pa.binary())


def _any_of(characters: str) -> str:
    """An RE2 character class of single-byte ``characters``."""
    return "[" + "".join(f"\\x{{{ord(c):02x}}}" for c in characters) + "]"


def _text_field(values: pa.Array, fmt: CopyFormat) -> pa.Array:
    """``_escape_text`` of each value; NULL as the NULL string."""
    delimiter = fmt.delimiter
    specials = "\\\n\r\t" + ("" if delimiter == "\t" else delimiter)
    if pc.any(pc.match_substring_regex(values, _any_of(specials))).as_py():
        for special, escaped in (("\\", "\\\\"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"),
                                 *(() if delimiter == "\t" else ((delimiter, "\\" + delimiter),))):
            values = pc.replace_substring(values, special.encode(), escaped.encode())
    return values.fill_null(_bytes(fmt.null))


def _csv_field(values: pa.Array, fmt: CopyFormat, force: bool, alone: bool) -> pa.Array:
    """``_csv_field`` of each value; NULL as the NULL string, unquoted."""
    quote, escape = fmt.quote, fmt.escape
    needs = pa.scalar(True) if force else pc.or_(
        pc.match_substring_regex(values, _any_of(fmt.delimiter + quote + "\n\r")),
        pc.is_in(values, pa.array([fmt.null, *(["\\."] if alone else [])], pa.binary())))
    if not force and not pc.any(needs).as_py():
        return values.fill_null(_bytes(fmt.null))
    doubled = values if escape == quote else pc.replace_substring(
        values, escape.encode(), (escape * 2).encode())
    doubled = pc.replace_substring(doubled, quote.encode(), (escape + quote).encode())
    quoted = pc.binary_join_element_wise(_bytes(quote), doubled, _bytes(quote), _bytes(""))
    return pc.if_else(needs, quoted, values).fill_null(_bytes(fmt.null))
