"""to_number(): reading a number through a template, as PostgreSQL 15's
formatting.c does (NUM_processor reading, NUM_numpart_from_char).

The template is described as for to_char (``number_template.describe``);
the processor then walks it over the text: a 9, 0, D or '.' reads a digit,
the decimal point or a sign next to the number; a ',' or G skips a comma;
MI, PL and SG read a sign; L, TH and other text skip characters. What was
read becomes numeric_in's input, with the template's digits as the
precision and the fraction digits read as the scale. The locale is C's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Final

from catalog import errors
from executor.values import numeric_math
from executor.values.number_template import Description, describe

_DIGITS: Final = frozenset("0123456789")
_DATA: Final = frozenset("0123456789.,+-")
"""What NUM_eat_non_data_chars stops at."""


@dataclass(slots=True)
class _Reader:
    """NUMProc's state while reading."""

    num: Description
    text: str
    position: int = 0
    sign: str = " "
    digits: list[str] = field(default_factory=list)
    read_pre: int = 0
    read_post: int = 0
    read_point: bool = False

    def at_end(self) -> bool:
        return self.position >= len(self.text)

    def current(self) -> str:
        return self.text[self.position]

    def skip_non_data(self, count: int) -> None:
        """NUM_eat_non_data_chars: up to ``count`` characters that cannot
        be part of the number."""
        for _ in range(count):
            if self.at_end() or self.current() in _DATA:
                return
            self.position += 1

    def number_part(self, keyword: str) -> None:
        """NUM_numpart_from_char: a 9, 0, D or '.' of the template."""
        if self.at_end():
            return
        if self.current() == " ":
            self.position += 1
            if self.at_end():
                return
        num = self.num
        if self.sign == " " and keyword in ("9", "0") and self.read_pre + self.read_post == 0:
            self._sign_before()
            if self.at_end():
                return
        read = False
        character = self.current()
        if character in _DIGITS:
            if self.read_point and self.read_post == num.post:
                return
            self.digits.append(character)
            if self.read_point:
                self.read_post += 1
            else:
                self.read_pre += 1
            read = True
        elif num.decimal and not self.read_point and character == ".":
            self.digits.append(".")
            self.read_point = read = True
        if self.at_end():
            return
        if self.sign == " " and self.read_pre + self.read_post > 0:
            self._sign_after(read)

    def _sign_before(self) -> None:
        character = self.current()
        if self.num.local_sign == "pre":
            if character in "-+":
                self.sign = character
                self.position += 1
        elif character == "-" or (self.num.bracket and character == "<"):
            self.sign = "-"
            self.position += 1
        elif character == "+":
            self.sign = "+"
            self.position += 1

    def _sign_after(self, read: bool) -> None:
        """A sign right behind the number: S's where it is anchored to the
        last digit read, MI's, PL's or SG's where the template cannot say
        where the number ends (FM9.999999MI reading '5.01-')."""
        num = self.num
        following = self.text[self.position + 1:self.position + 2]
        if num.local_sign:
            if read and following in ("-", "+"):
                self.position += 1
                self.sign = following
        elif not read and (num.plus or num.minus) and self.current() in "-+":
            self.sign = self.current()

    def number(self) -> str:
        if self.digits and self.digits[-1] == ".":
            self.digits.pop()
        return self.sign + "".join(self.digits)


def to_number(text: str, template: str) -> Decimal | None:
    """numeric_to_number: ``text`` read through ``template`` (None for an
    empty template)."""
    if not template:
        return None
    num = describe(template)
    if num.eeee:
        raise errors.FeatureNotSupported('"EEEE" not supported for input')
    if num.roman:
        raise errors.FeatureNotSupported('"RN" not supported for input')
    reader = _Reader(num, text)
    for keyword, _ in num.nodes:
        if reader.at_end():
            break
        if keyword is None:  # other text: one character, whatever it is
            reader.position += 1
            continue
        if keyword in ("9", "0", "D", "."):
            reader.number_part(keyword)
        elif not _matched(reader, keyword):
            continue
        reader.position += 1
    value = numeric_math.from_text(reader.number())
    value = numeric_math.apply_typmod(value, num.pre + num.multi + reader.read_post,
                                      reader.read_post)
    if num.multiplying:
        value = numeric_math.mul(value, numeric_math.power(Decimal(10), Decimal(-num.multi)))
    return value


def _matched(reader: _Reader, keyword: str) -> bool:
    """A template keyword other than a digit's: whether it took the
    current character (else it skipped what it skips, or nothing)."""
    num = reader.num
    if keyword in (",", "G"):
        return not num.fill and reader.current() == ","
    if keyword == "L":
        reader.skip_non_data(1)  # C's currency symbol is one character
    elif keyword == "TH":
        if not num.decimal:
            reader.skip_non_data(2)
    elif keyword in ("MI", "PL", "SG"):
        wanted = {"MI": "-", "PL": "+", "SG": "-+"}[keyword]
        if reader.current() in wanted:
            reader.sign = reader.current()
            return True
        reader.skip_non_data(1)
    return False
