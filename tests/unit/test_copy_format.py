"""COPY's text, CSV and binary formats, parsed and printed as PostgreSQL does."""

from __future__ import annotations

import pytest

from catalog import errors
from sqlext.session.copy_binary import BinaryRows, copy_out_chunks
from sqlext.session.copy_fields import FieldReader
from sqlext.session.copy_stdio import CsvParser, copy_format, format_rows


def test_text_format_escapes_and_nulls() -> None:
    reader = FieldReader("\t", "\\N", 3)
    assert reader.fields(b"1\t\\N\tA\\tB\\\\C\\nD\\x41\\101") == [
        b"1", None, b"A\tB\\C\nDAA"]


def test_text_format_with_delimiter_and_null_string() -> None:
    reader = FieldReader("|", "NULL", 4)
    assert reader.fields(b"a|NULL||b") == [b"a", None, b"", b"b"]


def test_csv_quoted_empty_is_a_string_unquoted_empty_is_null() -> None:
    parser = CsvParser(copy_format({"format": "csv"}))
    records, rest = parser.records('1,"",\n2,"a ""b"", c",x\n', final=True)
    assert rest == ""
    assert records == [[("1", False), ("", True), ("", False)],
                       [("2", False), ('a "b", c', True), ("x", False)]]


def test_csv_field_split_across_chunks_waits_for_the_rest() -> None:
    parser = CsvParser(copy_format({"format": "csv"}))
    records, rest = parser.records('1,"multi\nli', final=False)
    assert records == [] and rest == '1,"multi\nli'
    records, rest = parser.records(rest + 'ne"\n', final=True)
    assert records == [[("1", False), ("multi\nline", True)]]


def test_csv_escape_character() -> None:
    parser = CsvParser(copy_format({"format": "csv", "escape": "\\"}))
    records, _ = parser.records('"a\\"b"\n', final=True)
    assert records == [[('a"b', True)]]


def test_unterminated_quote_is_an_error() -> None:
    parser = CsvParser(copy_format({"format": "csv"}))
    with pytest.raises(errors.BadCopyFileFormat, match="unterminated CSV quoted field"):
        parser.records('"never ends', final=True)


def test_output_formats() -> None:
    rows = [[b"1", None, b"tab\there"], [b"2", b"", b'q"uote, comma']]
    text = b"".join(format_rows(iter(rows), ["a", "b", "c"], copy_format({})))
    assert text == b"1\t\\N\ttab\\there\n2\t\tq\"uote, comma\n"
    csv = b"".join(format_rows(iter(rows), ["a", "b", "c"],
                               copy_format({"format": "csv", "header": "true"})))
    assert csv == b'a,b,c\n1,,tab\there\n2,"","q""uote, comma"\n'


def test_unsupported_options() -> None:
    with pytest.raises(errors.SqlSyntaxError, match="DELIMITER in BINARY mode"):
        copy_format({"format": "binary", "delimiter": ","})
    with pytest.raises(errors.FeatureNotSupported, match="quote available only in CSV mode"):
        copy_format({"quote": "'"})
    with pytest.raises(errors.FeatureNotSupported, match="single one-byte character"):
        copy_format({"delimiter": "ab"})


ROWS: list[list[bytes | None]] = [[b"\x00\x00\x00\x01", None], [b"", b"text"]]


def test_binary_rows_split_anywhere_come_back_whole() -> None:
    """CopyData messages may cut the binary stream at any byte."""
    data = b"".join(copy_out_chunks(ROWS))
    parser = BinaryRows(2)
    found = [row for byte in range(len(data)) for row in _rows(parser, data[byte:byte + 1])]
    assert found + _rows(parser, b"", final=True) == ROWS
    assert parser.ended


def _rows(parser: BinaryRows, data: bytes, final: bool = False) -> list[list[bytes | None]]:
    fields, count = parser.rows(data, final)
    width = parser.width
    assert len(fields) == count * width
    return [fields[row * width:(row + 1) * width] for row in range(count)]


def test_binary_rows_without_trailer_end_with_the_data() -> None:
    data = b"".join(copy_out_chunks(ROWS))[:-2]
    parser = BinaryRows(2)
    assert _rows(parser, data) == ROWS
    assert _rows(parser, b"", final=True) == []
    with pytest.raises(errors.BadCopyFileFormat, match="unexpected EOF"):
        BinaryRows(2).rows(data[:-1], final=True)


SIZED: list[list[bytes | None]] = [
    [b"\x00\x00\x00\x01", b"text", b"\x3f\xf8" + bytes(6)],
    [None, b"", b"\x3f\xf8" + bytes(6)],
    [b"\x00\x00\x00\x02", None, None],
    [b"\x00\x02", "non-ASCII \u00e9".encode(), bytes(8)],
    [b"\x00\x00\x00\x03", b"x" * 300, b"\x01" * 9],
]


@pytest.mark.parametrize("step", [1, 7, 64, 10_000])
def test_binary_rows_of_expected_sizes_read_as_field_by_field(step: int) -> None:
    """Rows read a run of fields at a time (an int4, a text, a float8) are
    the rows read field by field, with NULLs and fields of other sizes
    among them, whatever the CopyData boundaries."""
    data = b"".join(copy_out_chunks(SIZED))
    parser = BinaryRows(3, [4, None, 8])
    found = [row for start in range(0, len(data), step)
             for row in _rows(parser, data[start:start + step])]
    assert found + _rows(parser, b"", final=True) == SIZED
    assert parser.ended
    with pytest.raises(errors.BadCopyFileFormat, match="row field count is 3, expected 2"):
        BinaryRows(2, [4, 8]).rows(data, final=True)
