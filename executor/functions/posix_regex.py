"""PostgreSQL's regular expressions run by Python's ``re``.

PostgreSQL's advanced regular expressions (AREs, with the flags its regexp
functions take) and SQL's SIMILAR TO patterns are rewritten into Python
patterns where the two differ: ``\\m``, ``\\M``, ``\\y`` and ``\\Y`` are word
boundaries, ``\\b`` is a backspace, ``$`` matches only at the very end, ``.``
matches newlines unless a newline-sensitive flag says otherwise, POSIX
classes (``[[:alpha:]]``) become the characters they stand for, embedded
options (``(?i)``) and the ``***=`` / ``***:`` directors are applied, and
anything PostgreSQL rejects is error 2201B.

One difference remains: Python picks the first alternative that matches
where PostgreSQL picks the longest (POSIX) match.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Final

from catalog import errors

_CLASS_TESTS: Final[dict[str, Callable[[str], bool]]] = {
    "alpha": str.isalpha,
    "upper": str.isupper,
    "lower": str.islower,
    "digit": lambda c: "0" <= c <= "9",
    "alnum": lambda c: c.isalpha() or "0" <= c <= "9",
    "xdigit": lambda c: c in "0123456789abcdefABCDEF",
    "space": str.isspace,
    "blank": lambda c: c in " \t",
    "punct": lambda c: c.isprintable() and not (c.isalnum() or c.isspace()),
    "cntrl": lambda c: ord(c) < 32 or 127 <= ord(c) < 160,
    "print": lambda c: c.isprintable(),
    "graph": lambda c: c.isprintable() and not c.isspace(),
    "word": lambda c: c.isalnum() or c == "_",
}
"""PostgreSQL's character classes (its ``pg_wc_is*`` in a UTF-8 database,
whose digits are ASCII only)."""

_ESCAPES: Final = {
    "m": r"\b(?=\w)", "M": r"\b(?<=\w)", "y": r"\b", "Y": r"\B", "A": r"\A", "Z": r"\Z",
    "d": "[0-9]", "D": "[^0-9]", "s": r"\s", "S": r"\S", "w": r"\w", "W": r"\W",
}
"""Escapes that stand for a class or a position (outside brackets)."""

_CHARACTER_ESCAPES: Final = {"a": "\a", "b": "\b", "B": "\\", "e": "\x1b", "f": "\f",
                             "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_BRACKET_CLASSES: Final = {"d": "0-9", "s": r"\s", "w": r"\w"}


@dataclass(frozen=True, slots=True)
class Options:
    """How a pattern is read: PostgreSQL's regex flags."""

    icase: bool = False
    newline_stop: bool = False
    """``.`` and negated brackets do not match a newline (flags n, p)."""
    newline_anchor: bool = False
    """``^`` and ``$`` match at line breaks too (flags n, w)."""
    expanded: bool = False
    """Whitespace and # comments are ignored (flag x)."""
    syntax: str = "advanced"
    """advanced, extended (flag e) or literal (flag q)."""


def parse_flags(flags: str | None, function: str, allow_global: bool) -> tuple[Options, bool]:
    """A regexp function's flags: the options, and whether ``g`` was given
    (22023 for a function that takes no ``g``)."""
    options, is_global = _apply_flags(Options(), flags or "", embedded=False)
    if is_global and not allow_global:
        hint = ("Use the regexp_matches function instead." if function == "regexp_match"
                else None)
        raise errors.InvalidParameterValue(
            f'{function}() does not support the "global" option', hint=hint)
    return options, is_global


def _apply_flags(options: Options, flags: str, embedded: bool) -> tuple[Options, bool]:
    is_global = False
    for flag in flags:
        if flag == "g" and not embedded:
            is_global = True
        elif flag == "b":
            raise errors.FeatureNotSupported("basic regular expressions are not supported")
        elif flag in _FLAG_EFFECTS:
            options = _FLAG_EFFECTS[flag](options)
        elif embedded:
            raise errors.InvalidRegularExpression(
                "invalid regular expression: invalid embedded option")
        else:
            raise errors.InvalidParameterValue(f'invalid regular expression option: "{flag}"')
    return options, is_global


_FLAG_EFFECTS: Final[dict[str, Callable[[Options], Options]]] = {
    "c": lambda o: replace(o, icase=False),
    "i": lambda o: replace(o, icase=True),
    "e": lambda o: replace(o, syntax="extended"),
    "q": lambda o: replace(o, syntax="literal"),
    "n": lambda o: replace(o, newline_stop=True, newline_anchor=True),
    "m": lambda o: replace(o, newline_stop=True, newline_anchor=True),
    "s": lambda o: replace(o, newline_stop=False, newline_anchor=False),
    "p": lambda o: replace(o, newline_stop=True, newline_anchor=False),
    "w": lambda o: replace(o, newline_stop=False, newline_anchor=True),
    "x": lambda o: replace(o, expanded=True),
    "t": lambda o: replace(o, expanded=False),
}


_EMBEDDED_OPTIONS: Final = re.compile(r"\(\?([a-zA-Z]*)\)")
"""``(?flags)`` at the start of an ARE."""


def _invalid(reason: str) -> errors.InvalidRegularExpression:
    return errors.InvalidRegularExpression(f"invalid regular expression: {reason}")


@functools.lru_cache(maxsize=512)
def compile_regex(pattern: str, options: Options = Options()) -> re.Pattern[str]:
    """A PostgreSQL regular expression as a compiled Python pattern."""
    if options.syntax != "literal":
        if pattern.startswith("***="):
            options, pattern = replace(options, syntax="literal"), pattern[4:]
        elif pattern.startswith("***:"):
            options, pattern = replace(options, syntax="advanced"), pattern[4:]
    embedded = _EMBEDDED_OPTIONS.match(pattern) if options.syntax == "advanced" else None
    if embedded is not None:
        options, _ = _apply_flags(options, embedded.group(1), embedded=True)
        pattern = pattern[embedded.end():]
    if options.syntax == "literal":
        python = re.escape(pattern)
    else:
        python = _Translation(pattern, options).run()
    python_flags = re.IGNORECASE if options.icase else 0
    if not options.newline_stop:
        python_flags |= re.DOTALL
    if options.newline_anchor:
        python_flags |= re.MULTILINE
    if options.expanded and options.syntax != "literal":
        python_flags |= re.VERBOSE
    try:
        return re.compile(python, python_flags)
    except re.error as exc:
        raise _invalid(exc.msg) from None
    except RecursionError:
        raise errors.ProgramLimitExceeded(
            "invalid regular expression: regular expression is too complex") from None


class _Translation:
    """One pass over an ARE (or ERE) producing the Python pattern."""

    def __init__(self, pattern: str, options: Options) -> None:
        self.pattern = pattern
        self.options = options
        self.position = 0
        self.out: list[str] = []

    def run(self) -> str:
        pattern = self.pattern
        while self.position < len(pattern):
            char = pattern[self.position]
            self.position += 1
            if char == "\\":
                self.out.append(self._escape())
            elif char == "[":
                self.out.append(self._bracket())
            elif char == "$":
                self.out.append("$" if self.options.newline_anchor else r"\Z")
            elif char == "(" and pattern.startswith("?", self.position):
                self.out.append(self._group_prefix())
            elif char == "{" and not pattern[self.position:self.position + 1].isdigit():
                self.out.append(r"\{")  # not a bound: a brace (PostgreSQL reads it so)
            else:
                self.out.append(char)
        return "".join(self.out)

    def _next(self) -> str:
        if self.position >= len(self.pattern):
            raise _invalid("invalid escape \\ sequence")
        char = self.pattern[self.position]
        self.position += 1
        return char

    def _escape(self) -> str:
        char = self._next()
        if self.options.syntax == "extended":
            return re.escape(char)  # in an ERE a backslash only quotes
        if char in _ESCAPES:
            return _ESCAPES[char]
        literal = self._character_escape(char)
        if literal is not None:
            return re.escape(literal)
        if char.isdigit():
            return "\\" + char  # a back reference (or \0..., octal)
        if char.isalnum():
            raise _invalid("invalid escape \\ sequence")
        return re.escape(char)

    def _character_escape(self, char: str) -> str | None:
        """The character ``\\char`` (and what follows it) stands for, if any."""
        if char in _CHARACTER_ESCAPES:
            return _CHARACTER_ESCAPES[char]
        if char == "c":
            return chr(ord(self._next()) & 0x1F)
        if char in "uUx":
            most = {"u": 4, "U": 8, "x": sys.maxsize}[char]
            digits = re.match(r"[0-9a-fA-F]*", self.pattern[self.position:])
            text = digits.group(0)[:most] if digits else ""
            if not text or (char != "x" and len(text) != most):
                raise _invalid("invalid escape \\ sequence")
            self.position += len(text)
            try:
                return chr(int(text, 16))
            except (ValueError, OverflowError):
                raise _invalid("invalid escape \\ sequence") from None
        return None

    def _group_prefix(self) -> str:
        """``(?`` starts a non-capturing group, a lookaround or a comment;
        anything else (Python's named groups...) PostgreSQL refuses."""
        rest = self.pattern[self.position:]
        for prefix in ("?:", "?=", "?!", "?<=", "?<!", "?#"):
            if rest.startswith(prefix):
                self.position += len(prefix)
                return "(" + prefix
        raise _invalid("invalid embedded option")

    def _bracket(self) -> str:
        """A bracket expression, from after its ``[`` to its ``]``."""
        pattern = self.pattern
        negated = pattern.startswith("^", self.position)
        if negated:
            self.position += 1
        body: list[str] = []
        first = True
        while True:
            if self.position >= len(pattern):
                raise _invalid("brackets [] not balanced")
            if pattern[self.position] == "]" and not first:
                self.position += 1
                break
            first = False
            low, is_class = self._bracket_item()
            if is_class or not pattern.startswith("-", self.position) or pattern.startswith(
                    "-]", self.position):
                body.append(low if is_class else _class_char(low))
                continue
            self.position += 1
            high, high_is_class = self._bracket_item()
            if high_is_class or ord(high) < ord(low):
                raise _invalid("invalid character range")
            body.append(_class_char(low) + "-" + _class_char(high))
        if negated and self.options.newline_stop:
            body.append(r"\n")
        inner = "".join(body)
        if not inner:
            return r"(?s:.)" if negated else "(?!)"
        return "[" + ("^" if negated else "") + inner + "]"

    def _bracket_item(self) -> tuple[str, bool]:
        """One character of a bracket expression, or a class (the inside of
        a Python class, and True: no range starts or ends at it)."""
        pattern = self.pattern
        if self.position >= len(pattern):
            raise _invalid("brackets [] not balanced")
        char = pattern[self.position]
        self.position += 1
        if char == "[" and pattern[self.position:self.position + 1] in (":", ".", "="):
            kind = pattern[self.position]
            end = pattern.find(kind + "]", self.position + 1)
            if end < 0:
                raise _invalid("brackets [] not balanced")
            name = pattern[self.position + 1:end]
            self.position = end + 2
            if kind == ":":
                if name not in _CLASS_TESTS:
                    raise _invalid("invalid character class")
                return class_body(name), True
            if len(name) != 1:
                raise _invalid("invalid collating element")
            return name, False
        if char != "\\" or self.options.syntax != "advanced":
            return char, False
        escaped = self._next()
        if escaped in _BRACKET_CLASSES:
            return _BRACKET_CLASSES[escaped], True
        literal = self._character_escape(escaped)
        if literal is not None:
            return literal, False
        if escaped.isalnum():
            raise _invalid("invalid escape \\ sequence")
        return escaped, False


def _class_char(char: str) -> str:
    """A character inside a Python character class, escaped if it means
    anything there (Python warns about ``[``, ``&&``, ``~~`` and ``||``)."""
    if char in "\\]^-[&~|":
        return "\\" + char
    if char == "\n":
        return r"\n"
    return char


@functools.cache
def class_body(name: str) -> str:
    """The characters of a POSIX class as the inside of a Python class."""
    test = _CLASS_TESTS[name]
    ranges: list[str] = []
    start = -1
    for code in range(sys.maxunicode + 2):
        inside = code <= sys.maxunicode and not 0xD800 <= code <= 0xDFFF and test(chr(code))
        if inside and start < 0:
            start = code
        elif not inside and start >= 0:
            low, high = _class_char(chr(start)), _class_char(chr(code - 1))
            ranges.append(low if start == code - 1 else f"{low}-{high}")
            start = -1
    return "".join(ranges)


# --- SIMILAR TO -----------------------------------------------------------------------


_ESCAPE_HINT: Final = "Escape string must be empty or one character."
_BOUND: Final = re.compile(r"\{\d+(?:,\d*)?\}")


@functools.lru_cache(maxsize=256)
def compile_similar(pattern: str, escape: str | None) -> re.Pattern[str]:
    r"""A SIMILAR TO pattern (``%``, ``_``, ``|``, ``*``, ``+``, ``?``,
    ``{m,n}``, ``()``, ``[]``) as a Python pattern matching whole strings,
    translated as PostgreSQL's ``similar_escape()`` does. ``escape"`` pairs
    split it into up to three parts, as for ``substring(s SIMILAR p ESCAPE
    e)``: the middle one is group 1 and the first matches as little as it
    can (PostgreSQL's ``{1,1}?``, here lazy quantifiers)."""
    if escape is not None and len(escape) > 1:
        raise errors.InvalidEscapeSequence("invalid escape string", hint=_ESCAPE_HINT)
    parts: list[list[tuple[str, bool]]] = [[]]
    """Per part, its tokens: (Python text, whether it is a quantifier)."""
    position, in_class = 0, False
    while position < len(pattern):
        char = pattern[position]
        position += 1
        out = parts[-1]
        bound = _BOUND.match(pattern, position - 1)
        if escape and char == escape:
            escaped = pattern[position:position + 1]
            position += 1
            if escaped == '"' and not in_class:
                if len(parts) == 3:
                    raise errors.InvalidEscapeSequence(
                        "SQL regular expression may not contain more than two "
                        "escape-double-quote separators")
                parts.append([])
            else:
                out.append(("\\" + escaped if escaped.isalnum() else re.escape(escaped), False))
        elif in_class:
            out.append(("\\" + char if char in "\\[&~|" else char, False))
            in_class = char != "]"
        elif char == "[":
            in_class = True
            caret = pattern.startswith("^", position)
            position += caret
            out.append(("[^" if caret else "[", False))
        elif char == "%":
            out.extend(((".", False), ("*", True)))
        elif bound is not None:
            out.append((bound.group(0), True))
            position = bound.end()
        elif char in "*+?":
            out.append((char, True))
        else:
            out.append(({"_": ".", "(": "(?:"}.get(char) or (
                re.escape(char) if char in "\\.^${" else char), False))
    texts = ["".join(text + ("?" if quantifier and index == 0 and len(parts) > 1 else "")
                     for text, quantifier in part) for index, part in enumerate(parts)]
    python = "^(?:" + texts[0] + ")" + "".join(
        form.format(text) for form, text in zip(("({})", "(?:{})"), texts[1:], strict=False))
    try:
        return re.compile(python + r"\Z", re.DOTALL)
    except re.error as exc:
        raise _invalid(exc.msg) from None


# --- matching -------------------------------------------------------------------------


def find_all(pattern: re.Pattern[str], text: str, start: int = 0,
             skip_degenerate: bool = False) -> Iterator[re.Match[str]]:
    """Successive matches from ``start``, as PostgreSQL's ``g`` flag finds
    them: after an empty match the search moves on by one character;
    ``skip_degenerate`` (regexp_split_*) leaves out empty matches at either
    end of the string or right after the previous match."""
    previous_end = 0
    while start <= len(text):
        match = pattern.search(text, start)
        if match is None:
            return
        if not skip_degenerate or (match.start() < len(text) and match.end() > previous_end):
            yield match
        previous_end = match.end()
        start = match.end() + (1 if match.start() == match.end() else 0)
