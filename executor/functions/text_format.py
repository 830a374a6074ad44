"""format(): PostgreSQL's printf of strings (varlena.c's text_format).

A specifier is ``%[position$][-...][width|*[position$]]type``: the type is
s (the value as text), I (an identifier, quoted if need be) or L (a
literal, NULL unquoted); ``%%`` is a percent sign. Values come printed by
their types' output functions (format's parameters are "any"); integers
come as SQLite's ints, which print the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, NamedTuple

from catalog import errors
from catalog import types as t
from catalog.introspection import quote_identifier
from catalog.sqltypes import TEXT
from executor import codecs
from executor.functions.declare import Declarations
from executor.functions.string_functions import quote_literal
from executor.values.conversions import INT_RANGES

FUNCTIONS = Declarations()

_HINT: Final = 'For a single "%" use "%%".'
_INT4_MIN, _INT4_MAX = INT_RANGES[t.INT4]
_READ_INT4: Final = codecs.text_decoder(t.INT4)


@FUNCTIONS.scalar("format", TEXT, TEXT, min_args=1, any_args=1)
def _format(template: Any, *values: Any) -> Any:
    return None if template is None else text_format(str(template), values)


class _Specifier(NamedTuple):
    position: int
    """The value's argument number (from 1); 0: the next one."""
    width_position: int | None
    """Where the width is an argument (``*``): its number; 0: the next one."""
    width: int
    left: bool


def text_format(template: str, values: Sequence[Any]) -> str:
    """``template`` with its specifiers replaced by ``values``."""
    out: list[str] = []
    following = 0  # the next value's index
    index = 0
    while index < len(template):
        character = template[index]
        index += 1
        if character != "%":
            out.append(character)
            continue
        _check_more(template, index)
        if template[index] == "%":
            out.append("%")
            index += 1
            continue
        specifier, index = _specifier(template, index)
        conversion = template[index]
        index += 1
        if conversion not in "sIL":
            raise errors.InvalidParameterValue(
                f'unrecognized format() type specifier "{conversion}"', hint=_HINT)
        width, left = specifier.width, specifier.left
        if specifier.width_position is not None:
            following = specifier.width_position - 1 if specifier.width_position else following
            width = _width(_value(values, following))
            following += 1
        following = specifier.position - 1 if specifier.position else following
        shown = _converted(conversion, _value(values, following))
        following += 1
        out.append(_padded(shown, width, left))
    return "".join(out)


def _check_more(template: str, index: int) -> None:
    """ADVANCE_PARSE_POINTER: a specifier must not end the template."""
    if index >= len(template):
        raise errors.InvalidParameterValue("unterminated format() type specifier", hint=_HINT)


def _digits(template: str, index: int) -> tuple[int | None, int]:
    """A number where ``index`` is (None if no digit is), and what follows."""
    number = None
    while template[index] in "0123456789":
        number = (number or 0) * 10 + int(template[index])
        if number > _INT4_MAX:
            raise errors.NumericValueOutOfRange("number is out of range")
        index += 1
        _check_more(template, index)
    return number, index


def _argument_number(number: int) -> int:
    if number == 0:
        raise errors.InvalidParameterValue(
            "format specifies argument 0, but arguments are numbered from 1")
    return number


def _specifier(template: str, index: int) -> tuple[_Specifier, int]:
    """text_format_parse_format: what follows a '%' up to its type."""
    position, width_position, width, left = 0, None, 0, False
    number, index = _digits(template, index)
    if number is not None:
        if template[index] != "$":
            return _Specifier(0, None, number, False), index
        position = _argument_number(number)
        index += 1
        _check_more(template, index)
    while template[index] == "-":
        left = True
        index += 1
        _check_more(template, index)
    if template[index] == "*":
        index += 1
        _check_more(template, index)
        number, index = _digits(template, index)
        width_position = 0
        if number is not None:
            if template[index] != "$":
                raise errors.InvalidParameterValue(
                    'width argument position must be ended by "$"')
            width_position = _argument_number(number)
            index += 1
            _check_more(template, index)
    else:
        number, index = _digits(template, index)
        width = number or 0
    return _Specifier(position, width_position, width, left), index


def _value(values: Sequence[Any], index: int) -> Any:
    if index >= len(values):
        raise errors.InvalidParameterValue("too few arguments for format()")
    return values[index]


def _width(value: Any) -> int:
    """A width given as an argument: NULL is none; other than an integer,
    its text is read as an integer (with int4's errors)."""
    if value is None:
        return 0
    if isinstance(value, int) and _INT4_MIN <= value <= _INT4_MAX:
        return value
    width = _READ_INT4(str(value))
    assert isinstance(width, int)
    return width


def _converted(conversion: str, value: Any) -> str:
    if value is None:
        if conversion == "I":
            raise errors.NullValueNotAllowed(
                "null values cannot be formatted as an SQL identifier")
        return "NULL" if conversion == "L" else ""
    text = str(value)
    if conversion == "I":
        return quote_identifier(text)
    return quote_literal(text) if conversion == "L" else text


def _padded(text: str, width: int, left: bool) -> str:
    """text_format_append_string: a negative width pads on the right too."""
    if width < 0:
        if width <= _INT4_MIN:
            raise errors.NumericValueOutOfRange("number is out of range")
        width, left = -width, True
    return text.ljust(width) if left else text.rjust(width)
