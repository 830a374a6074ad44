"""to_char() of numbers: PostgreSQL's number templates ('FM9,999.00', 'S999',
'9.99EEEE', 'RN') as formatting.c's NUM_processor prints them.

The template is read into a description (digits before and after the decimal
point, where zero padding starts, the sign's kind and place, fill mode...),
the number is printed as the digits that description asks for, then the
processor walks the template again, writing digits, spaces, signs and the
template's other text. The locale is C's: the decimal point is '.', the
group separator ',', the currency symbol a space.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Final

from catalog import errors

_KEYWORDS: Final = (
    ",", ".", "0", "9", "B", "C", "D", "EEEE", "FM", "G", "L", "MI", "PL", "PR", "RN", "SG", "SP",
    "S", "TH", "V", "b", "c", "d", "eeee", "fm", "g", "l", "mi", "pl", "pr", "rn", "sg", "sp",
    "s", "th", "v",
)
"""formatting.c's NUM_keywords, in its search order."""
_ROMAN: Final = (("M", 1000), ("CM", 900), ("D", 500), ("CD", 400), ("C", 100), ("XC", 90),
                 ("L", 50), ("XL", 40), ("X", 10), ("IX", 9), ("V", 5), ("IV", 4), ("I", 1))
_DOUBLE_DIGITS: Final = 15
_REAL_DIGITS: Final = 6


@dataclass(slots=True)
class Description:
    """NUMDesc: what a number template asks for."""

    nodes: tuple[tuple[str | None, str], ...]
    """(keyword in upper case, as written) or (None, literal text)."""
    pre: int = 0
    post: int = 0
    zero_start: int = 0
    zero_end: int = 0
    decimal: bool = False
    zero: bool = False
    fill: bool = False
    local_sign: str = ""
    """'pre' or 'post' for S."""
    pre_local_sign: int = 0
    bracket: bool = False
    minus: bool = False
    plus: bool = False
    roman: bool = False
    multi: int = 0
    multiplying: bool = False
    eeee: bool = False


def _syntax(message: str) -> errors.SqlError:
    return errors.SqlSyntaxError(message)


@functools.lru_cache(maxsize=256)
def _parse(template: str) -> tuple[tuple[str | None, str], ...]:
    nodes: list[tuple[str | None, str]] = []
    position = 0
    while position < len(template):
        keyword = next((k for k in _KEYWORDS if template.startswith(k, position)), None)
        if keyword is not None:
            nodes.append((keyword.upper(), keyword))
            position += len(keyword)
            continue
        if template[position] == '"':
            position += 1
            while position < len(template) and template[position] != '"':
                if template[position] == "\\" and position + 1 < len(template):
                    position += 1
                nodes.append((None, template[position]))
                position += 1
            position += 1
            continue
        if template[position] == "\\" and template[position + 1:position + 2] == '"':
            position += 1
        nodes.append((None, template[position]))
        position += 1
    return tuple(nodes)


def describe(template: str) -> Description:
    """NUMDesc_prepare: a fresh description of a template (to_char changes it)."""
    num = Description(_parse(template))
    for keyword, _ in num.nodes:
        match keyword:
            case "9":
                if num.bracket:
                    raise _syntax('"9" must be ahead of "PR"')
                if num.multiplying:
                    num.multi += 1
                elif num.decimal:
                    num.post += 1
                else:
                    num.pre += 1
            case "0":
                if num.bracket:
                    raise _syntax('"0" must be ahead of "PR"')
                if not num.zero and not num.decimal:
                    num.zero = True
                    num.zero_start = num.pre + 1
                if num.decimal:
                    num.post += 1
                else:
                    num.pre += 1
                num.zero_end = num.pre + num.post
            case "D" | ".":
                if num.decimal:
                    raise _syntax("multiple decimal points")
                if num.multiplying:
                    raise _syntax('cannot use "V" and decimal point together')
                num.decimal = True
            case "FM":
                num.fill = True
            case "S":
                if num.local_sign:
                    raise _syntax('cannot use "S" twice')
                if num.plus or num.minus or num.bracket:
                    raise _syntax('cannot use "S" and "PL"/"MI"/"SG"/"PR" together')
                if not num.decimal:
                    num.local_sign, num.pre_local_sign = "pre", num.pre
                else:
                    num.local_sign = "post"
            case "MI" | "PL" | "SG":
                if num.local_sign:
                    raise _syntax(f'cannot use "S" and "{keyword}" together')
                num.minus = num.minus or keyword in ("MI", "SG")
                num.plus = num.plus or keyword in ("PL", "SG")
            case "PR":
                if num.local_sign or num.plus or num.minus:
                    raise _syntax('cannot use "PR" and "S"/"PL"/"MI"/"SG" together')
                num.bracket = True
            case "RN":
                num.roman = True
            case "V":
                if num.decimal:
                    raise _syntax('cannot use "V" and decimal point together')
                num.multiplying = True
            case "EEEE":
                if num.eeee:
                    raise _syntax('cannot use "EEEE" twice')
                if num.fill or num.local_sign or num.bracket or num.minus or num.plus or (
                        num.roman or num.multiplying):
                    raise _syntax('"EEEE" is incompatible with other formats')
                num.eeee = True
    return num


def _roman(number: int) -> str:
    if not 1 <= number <= 3999:
        return "#" * 15
    pieces = []
    for numeral, value in _ROMAN:
        count, number = divmod(number, value)
        pieces.append(numeral * count)
    return "".join(pieces)


def _exponent(value: float, post: int) -> str:
    text = f"{value:+.{post}e}"
    return " " + text[1:] if text[0] == "+" else text


def to_char(value: int | float | Decimal, template: str, kind: str) -> str:
    """to_char(number, template); ``kind``: 'int', 'real', 'double' or 'numeric'."""
    num = describe(template)
    if not num.nodes:
        return ""
    spaces = 0
    if num.roman:
        number = _roman(int(value) if kind == "int" else int(Decimal(str(value)).to_integral_value(
            ROUND_HALF_UP) if kind == "numeric" else round(value)))
        return _process(num, number, 0, "+")
    if num.eeee:
        return _exponent(float(value), num.post)
    if num.multiplying:
        value = value * 10 ** num.multi if kind == "int" else value * (10.0 ** num.multi)
        num.pre += num.multi
    if kind == "int":
        digits = str(abs(int(value)))
        sign = "-" if value < 0 else "+"
        whole = len(digits)
        if num.post:
            digits += "." + "0" * num.post
    else:
        if kind in ("real", "double"):
            limit = _REAL_DIGITS if kind == "real" else _DOUBLE_DIGITS
            whole = len(f"{abs(float(value)):.0f}")
            num.post = 0 if whole >= limit else min(num.post, limit - whole)
            text = f"{float(value):.{num.post}f}"
        else:
            rounded = Decimal(str(value)).quantize(Decimal(1).scaleb(-num.post), ROUND_HALF_UP)
            text = f"{rounded:f}"
        sign = "-" if text.startswith("-") else "+"
        digits = text.lstrip("-")
        whole = digits.index(".") if "." in digits else len(digits)
    if whole < num.pre:
        spaces = num.pre - whole
    elif whole > num.pre:
        digits = "#" * num.pre + "." + "#" * num.post
    return _process(num, digits, spaces, sign)


@dataclass(slots=True)
class _Processor:
    """NUM_processor's state while writing (to_char only)."""

    num: Description
    number: str
    spaces: int
    sign: str
    out: list[str] = field(default_factory=list)
    position: int = 0
    """Into ``number``."""
    current: int = 0
    count: int = 0
    sign_written: bool = False
    digits_begun: bool = False
    last_relevant: int | None = None

    def predecimal_space(self) -> bool:
        return (not self.num.zero and self.position == 0 and self.number[:1] == "0"
                and self.num.post != 0)

    def last_is_point(self) -> bool:
        return self.last_relevant is not None and self.number[self.last_relevant] == "."

    def write_sign(self) -> None:
        num = self.num
        if self.sign_written or not (
                self.current >= self.spaces or (num.zero and num.zero_start == self.current)):
            return
        if self.predecimal_space() and not self.last_is_point():
            return
        if num.local_sign:
            if num.local_sign == "pre":
                self.out.append(self.sign)
                self.sign_written = True
        elif num.bracket:
            self.out.append(" " if self.sign == "+" else "<")
            self.sign_written = True
        elif self.sign == "+":
            if not num.fill:
                self.out.append(" ")
            self.sign_written = True
        else:
            self.out.append("-")
            self.sign_written = True

    def digit(self, keyword: str) -> None:
        """NUM_numpart_to_char: a 9, 0, D or '.' of the template."""
        num = self.num
        self.write_sign()
        if self.current < self.spaces and (num.zero_start > self.current or not num.zero):
            if not num.fill:
                self.out.append(" ")
        elif num.zero and self.current < self.spaces and num.zero_start <= self.current:
            self.out.append("0")
            self.digits_begun = True
        else:
            character = self.number[self.position:self.position + 1]
            if character == ".":
                if not self.last_is_point() or num.fill:
                    self.out.append(".")
            elif self.last_relevant is not None and self.position > self.last_relevant and (
                    keyword != "0"):
                pass
            elif self.predecimal_space():
                if not num.fill:
                    self.out.append(" ")
                elif self.last_is_point():
                    self.out.append("0")
            else:
                self.out.append(character)
                self.digits_begun = True
            if character:
                self.position += 1
        end = self.count + (1 if self.spaces else 0) + (1 if num.decimal else 0)
        if self.last_relevant is not None and self.last_relevant == self.position:
            end = self.current
        if self.current + 1 == end:
            if self.sign_written and num.bracket:
                self.out.append(" " if self.sign == "+" else ">")
            elif num.local_sign == "post":
                self.out.append(self.sign)
        self.current += 1


def _last_relevant(number: str) -> int | None:
    point = number.find(".")
    if point < 0:
        return None
    found = point
    for index in range(point + 1, len(number)):
        if number[index] != "0":
            found = index
    return found


def _process(num: Description, number: str, spaces: int, sign: str) -> str:
    if num.zero_start:
        num.zero_start -= 1
    if num.roman:
        num = Description(num.nodes, fill=num.fill, roman=True)
        spaces, sign = 0, "+"
    state = _Processor(num, number, spaces, sign)
    if num.plus or num.minus:
        state.sign_written = not (num.plus and not num.minus)
    else:
        if sign != "-" and num.fill:
            num.bracket = False
        state.sign_written = sign == "+" and num.fill and not num.local_sign
        if num.local_sign == "pre" and num.pre == num.pre_local_sign:
            num.local_sign = "post"
    state.count = num.post + num.pre - 1
    if num.fill and num.decimal:
        state.last_relevant = _last_relevant(number)
        if state.last_relevant is not None and num.zero_end > spaces:
            last_zero = min(len(number) - 1, num.zero_end - spaces)
            state.last_relevant = max(state.last_relevant, last_zero)
    if not state.sign_written and spaces == 0:
        state.count += 1
    out = state.out
    for keyword, text in num.nodes:
        if keyword is None:
            out.append(text)
            continue
        match keyword:
            case "9" | "0" | "D" | ".":
                if not num.roman:
                    state.digit(keyword)
            case "," | "G":
                if state.digits_begun:
                    out.append(",")
                elif not num.fill:
                    out.append(" ")
            case "L":
                out.append(" ")
            case "RN":
                shown = number.lower() if text == "rn" else number
                out.append(shown if num.fill else shown.rjust(15))
            case "TH":
                if not (num.roman or number[:1] == "#" or sign == "-" or num.decimal):
                    out.append(_ordinal(number, text))
            case "MI":
                if sign == "-":
                    out.append("-")
                elif not num.fill:
                    out.append(" ")
            case "PL":
                if sign == "+":
                    out.append("+")
                elif not num.fill:
                    out.append(" ")
            case "SG":
                out.append(sign)
    return "".join(out)


def _ordinal(number: str, keyword_text: str) -> str:
    last = "0" if len(number) > 1 and number[-2] == "1" else number[-1:]
    suffix = {"1": "st", "2": "nd", "3": "rd"}.get(last, "th")
    return suffix.upper() if keyword_text == "TH" else suffix
