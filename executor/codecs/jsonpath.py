"""jsonpath: SQL/JSON path expressions, read into a tree and printed as
PostgreSQL prints them (``$."a"[*]?(@ > 1)``), which is how they are stored.

The part of the language sqlext evaluates: ``lax``/``strict``, ``$``, ``@``,
``$name`` variables, member accessors (``.key``, ``."key"``, ``.*``), array
accessors (``[*]``, ``[1, 2 to 3, last]``), filters ``?(...)`` with ``==``,
``!=``/``<>``, ``<``, ``<=``, ``>``, ``>=``, ``&&``, ``||``, ``!(...)``,
``exists(...)``, ``(...) is unknown``, and string, number, ``true``,
``false`` and ``null`` literals. Arithmetic, item methods (``.size()``...),
``.**``, ``like_regex`` and ``starts with`` are refused with 0A000.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Final

from catalog import types
from catalog.errors import (
    FeatureNotSupported,
    InternalError,
    InvalidTextRepresentation,
    SqlSyntaxError,
)
from executor.codecs.base import Codec, decode_utf8, plain, short_data
from executor.codecs.numeric import numeric_text, parse_decimal
from executor.codecs.strings import text_out

_VERSION: Final = 1
_NUMBER: Final = re.compile(r"(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_OTHER: Final = re.compile(r"[^?%$.\[\]{}()|&!=<>@#,*:\-+/\\\" \t\n\r\f]+")
_OPERATORS: Final = ("==", "!=", "<>", "<=", ">=", "&&", "||", "**", "<", ">", "!", "$", "@",
                     ".", "[", "]", "(", ")", ",", "?", "*", "+", "-", "/", "%", "{", "}", ":",
                     "#", "=", "|", "&", "\\")
_COMPARISONS: Final = {"==": "==", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">",
                       ">=": ">="}
_ESCAPES: Final = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_UNSUPPORTED_WORDS: Final = {"like_regex": "like_regex", "starts": "starts with"}


# --- the tree -----------------------------------------------------------------------------

class Node:
    """A part of a path expression."""


@dataclass(frozen=True, slots=True)
class Root(Node):
    """``$``: the document."""


@dataclass(frozen=True, slots=True)
class Current(Node):
    """``@``: the item a filter looks at."""


@dataclass(frozen=True, slots=True)
class Last(Node):
    """``last``: the last position of the array a subscript applies to."""


@dataclass(frozen=True, slots=True)
class Variable(Node):
    name: str


@dataclass(frozen=True, slots=True)
class Literal(Node):
    value: Decimal | str | bool | None


@dataclass(frozen=True, slots=True)
class Key(Node):
    name: str


@dataclass(frozen=True, slots=True)
class AnyKey(Node):
    """``.*``"""


@dataclass(frozen=True, slots=True)
class AnyIndex(Node):
    """``[*]``"""


@dataclass(frozen=True, slots=True)
class Subscripts(Node):
    ranges: tuple[tuple[Node, Node | None], ...]
    """Each subscript: a position, or ``from to to``."""


@dataclass(frozen=True, slots=True)
class Filter(Node):
    predicate: Node


@dataclass(frozen=True, slots=True)
class Chain(Node):
    """A value and the accessors applied to it in turn."""

    start: Node
    steps: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Compare(Node):
    operator: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Logical(Node):
    operator: str
    """``&&`` or ``||``."""
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Not(Node):
    operand: Node


@dataclass(frozen=True, slots=True)
class IsUnknown(Node):
    operand: Node


@dataclass(frozen=True, slots=True)
class Exists(Node):
    path: Node


PREDICATES: Final = (Compare, Logical, Not, IsUnknown, Exists)


@dataclass(frozen=True, slots=True)
class JsonPath:
    strict: bool
    expression: Node


# --- reading ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    """"op", "string", "number", "word", "variable" or "end"."""
    text: str
    """As written (what a syntax error quotes)."""
    value: str = ""
    """A string's or a quoted variable's characters."""


def _syntax_error(token: _Token) -> SqlSyntaxError:
    if token.kind == "end":
        return SqlSyntaxError("syntax error at end of jsonpath input")
    return SqlSyntaxError(f'syntax error at or near "{token.text}" of jsonpath input')


def _string(text: str, start: int) -> tuple[str, int]:
    """The characters of the quoted string at ``start`` and the position after it."""
    out: list[str] = []
    position = start + 1
    while position < len(text):
        char = text[position]
        if char == '"':
            return "".join(out), position + 1
        if char != "\\":
            out.append(char)
            position += 1
            continue
        escaped = text[position + 1:position + 2]
        if escaped == "u":
            digits = text[position + 2:position + 6]
            if not re.fullmatch(r"[0-9A-Fa-f]{4}", digits):
                raise SqlSyntaxError("invalid Unicode escape sequence at or near "
                                     f'"{text[position:position + 6]}" of jsonpath input')
            out.append(chr(int(digits, 16)))
            position += 6
            continue
        if escaped == "":
            break
        out.append(_ESCAPES.get(escaped, escaped))
        position += 2
    raise SqlSyntaxError("unexpected end of quoted string at end of jsonpath input")


def _tokens(text: str) -> list[_Token]:
    found: list[_Token] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char in " \t\n\r\f":
            position += 1
        elif char == '"':
            value, end = _string(text, position)
            found.append(_Token("string", text[position:end], value))
            position = end
        elif char == "$" and text[position + 1:position + 2] == '"':
            value, end = _string(text, position + 1)
            found.append(_Token("variable", text[position:end], value))
            position = end
        elif char == "$" and (word := _OTHER.match(text, position + 1)):
            found.append(_Token("variable", text[position:word.end()], word[0]))
            position = word.end()
        elif (number := _NUMBER.match(text, position)) and (
                char.isdigit() or text[position + 1:position + 2].isdigit()):
            junk = _OTHER.match(text, number.end())
            if junk is not None:
                raise SqlSyntaxError("trailing junk after numeric literal at or near "
                                     f'"{text[position:junk.end()]}" of jsonpath input')
            found.append(_Token("number", number[0]))
            position = number.end()
        elif (word := _OTHER.match(text, position)) is not None:
            found.append(_Token("word", word[0]))
            position = word.end()
        else:
            operator = next(op for op in _OPERATORS if text.startswith(op, position))
            found.append(_Token("op", operator))
            position += len(operator)
    found.append(_Token("end", ""))
    return found


def _unsupported(what: str) -> FeatureNotSupported:
    return FeatureNotSupported(
        f"{what} in jsonpath is not supported",
        hint="sqlext evaluates member and array accessors, filters with comparisons, "
             "&&, ||, !, exists and is unknown.")


class _Parser:
    """Recursive descent over the tokens of one path."""

    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.position = 0
        self.filters = 0
        self.subscripts = 0
        self.current_at_root = False
        self.last_outside = False

    @property
    def token(self) -> _Token:
        return self.tokens[self.position]

    def _next(self) -> _Token:
        token = self.token
        self.position += 1
        return token

    def _is(self, text: str) -> bool:
        return self.token.kind == "op" and self.token.text == text

    def _is_word(self, word: str) -> bool:
        return self.token.kind == "word" and self.token.text.lower() == word

    def _expect(self, text: str) -> None:
        if not self._is(text):
            raise _syntax_error(self.token)
        self.position += 1

    def path(self) -> JsonPath:
        strict = False
        if self._is_word("strict") or self._is_word("lax"):
            strict = self._next().text.lower() == "strict"
        expression = self._or()
        if self.token.kind != "end":
            raise _syntax_error(self.token)
        if self.current_at_root:
            raise SqlSyntaxError("@ is not allowed in root expressions")
        if self.last_outside:
            raise SqlSyntaxError("LAST is allowed only in array subscripts")
        return JsonPath(strict, expression)

    def _predicate(self, node: Node) -> Node:
        """``node``, which must be a predicate here."""
        if not isinstance(node, PREDICATES):
            raise _syntax_error(self.token)
        return node

    def _or(self) -> Node:
        left = self._and()
        while self._is("||"):
            self._predicate(left)
            self.position += 1
            left = Logical("||", left, self._predicate(self._and()))
        return left

    def _and(self) -> Node:
        left = self._unary()
        while self._is("&&"):
            self._predicate(left)
            self.position += 1
            left = Logical("&&", left, self._predicate(self._unary()))
        return left

    def _unary(self) -> Node:
        if not self._is("!"):
            return self._comparison()
        self.position += 1
        if self._is_word("exists"):
            return Not(self._exists())
        self._expect("(")
        operand = self._predicate(self._or())
        self._expect(")")
        return Not(operand)

    def _exists(self) -> Node:
        self.position += 1
        self._expect("(")
        path = self._expression()
        self._expect(")")
        return Exists(path)

    def _comparison(self) -> Node:
        if self._is_word("exists") and self.tokens[self.position + 1].text == "(":
            return self._exists()
        left = self._expression()
        if isinstance(left, PREDICATES):
            return left
        if self.token.kind == "op" and self.token.text in _COMPARISONS:
            operator = _COMPARISONS[self._next().text]
            right = self._expression()
            if isinstance(right, PREDICATES):
                raise _syntax_error(self.token)
            return Compare(operator, left, right)
        word = self.token.text.lower() if self.token.kind == "word" else ""
        if word in _UNSUPPORTED_WORDS:
            raise _unsupported(_UNSUPPORTED_WORDS[word])
        return left

    def _expression(self) -> Node:
        """A value: a signed literal or an accessor chain."""
        if self._is("+") or self._is("-"):
            sign = self._next().text
            operand = self._expression()
            if not (isinstance(operand, Literal) and isinstance(operand.value, Decimal)):
                raise _unsupported("arithmetic")
            return Literal(-operand.value if sign == "-" else operand.value)
        value = self._chain()
        if self.token.kind == "op" and self.token.text in "+-*/%":
            raise _unsupported("arithmetic")
        return value

    def _chain(self) -> Node:
        start = self._primary()
        if isinstance(start, PREDICATES):
            if self._is_word("is"):
                self.position += 1
                if not self._is_word("unknown"):
                    raise _syntax_error(self.token)
                self.position += 1
                return IsUnknown(start)
            return start
        steps: list[Node] = []
        if isinstance(start, Chain):
            start, steps = start.start, list(start.steps)
        while True:
            step = self._accessor()
            if step is None:
                break
            steps.append(step)
        return Chain(start, tuple(steps)) if steps else start

    def _primary(self) -> Node:
        token = self._next()
        word = token.text.lower() if token.kind == "word" else ""
        if token.kind == "op" and token.text == "$":
            return Root()
        if token.kind == "op" and token.text == "@":
            self.current_at_root = self.current_at_root or not self.filters
            return Current()
        if token.kind == "variable":
            return Variable(token.value)
        if token.kind == "string":
            return Literal(token.value)
        if token.kind == "number":
            return Literal(parse_decimal(token.text))
        if word in ("true", "false"):
            return Literal(word == "true")
        if word == "null":
            return Literal(None)
        if word == "last":
            self.last_outside = self.last_outside or not self.subscripts
            return Last()
        if token.kind == "op" and token.text == "(":
            inner = self._or()
            self._expect(")")
            return inner
        self.position -= 1
        raise _syntax_error(token)

    def _accessor(self) -> Node | None:
        if self._is("."):
            self.position += 1
            return self._member()
        if self._is("["):
            self.position += 1
            return self._subscripts()
        if self._is("?"):
            self.position += 1
            self._expect("(")
            self.filters += 1
            predicate = self._predicate(self._or())
            self.filters -= 1
            self._expect(")")
            return Filter(predicate)
        return None

    def _member(self) -> Node:
        token = self._next()
        if token.kind == "op" and token.text == "*":
            return AnyKey()
        if token.kind == "op" and token.text == "**":
            raise _unsupported("the .** accessor")
        if token.kind not in ("word", "string"):
            self.position -= 1
            raise _syntax_error(token)
        if self._is("("):
            raise _unsupported(f"the item method .{token.text}()")
        return Key(token.value if token.kind == "string" else token.text)

    def _subscripts(self) -> Node:
        if self._is("*"):
            self.position += 1
            self._expect("]")
            return AnyIndex()
        self.subscripts += 1
        ranges: list[tuple[Node, Node | None]] = []
        while True:
            first = self._subscript()
            last = None
            if self._is_word("to"):
                self.position += 1
                last = self._subscript()
            ranges.append((first, last))
            if not self._is(","):
                break
            self.position += 1
        self.subscripts -= 1
        self._expect("]")
        return Subscripts(tuple(ranges))

    def _subscript(self) -> Node:
        value = self._expression()
        if isinstance(value, PREDICATES):
            raise _syntax_error(self.token)
        return value


@functools.lru_cache(maxsize=256)
def parse_jsonpath(text: str) -> JsonPath:
    """A path read from its text (PostgreSQL's errors for a malformed one,
    0A000 for what sqlext does not evaluate)."""
    if not text.strip(" \t\n\r\f"):
        raise InvalidTextRepresentation(f'invalid input syntax for type jsonpath: "{text}"')
    return _Parser(text).path()


# --- printing -----------------------------------------------------------------------------

def _priority(node: Node) -> int:
    if isinstance(node, Logical):
        return 0 if node.operator == "||" else 1
    return 2 if isinstance(node, Compare) else 6


def _printed(node: Node, brackets: bool = False) -> str:
    if isinstance(node, Compare | Logical):
        inner = " ".join((_printed(node.left, _priority(node.left) <= _priority(node)),
                          node.operator,
                          _printed(node.right, _priority(node.right) <= _priority(node))))
        return f"({inner})" if brackets else inner
    if isinstance(node, Not):
        return f"!({_printed(node.operand)})"
    if isinstance(node, IsUnknown):
        return f"({_printed(node.operand)}) is unknown"
    if isinstance(node, Exists):
        return f"exists ({_printed(node.path)})"
    if isinstance(node, Chain):
        start = _printed(node.start)
        if isinstance(node.start, Literal) and isinstance(node.start.value, Decimal):
            start = f"({start})"
        return start + "".join(map(_printed, node.steps))
    return _printed_item(node)


def _printed_item(node: Node) -> str:
    if isinstance(node, Root):
        return "$"
    if isinstance(node, Current):
        return "@"
    if isinstance(node, Last):
        return "last"
    if isinstance(node, Variable):
        return "$" + _quoted(node.name)
    if isinstance(node, Key):
        return "." + _quoted(node.name)
    if isinstance(node, AnyKey):
        return ".*"
    if isinstance(node, AnyIndex):
        return "[*]"
    if isinstance(node, Filter):
        return f"?({_printed(node.predicate)})"
    if isinstance(node, Subscripts):
        return "[" + ",".join(_printed(first) + ("" if last is None else " to " + _printed(last))
                              for first, last in node.ranges) + "]"
    assert isinstance(node, Literal)
    value = node.value
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    return numeric_text(value) if isinstance(value, Decimal) else _quoted(value)


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def jsonpath_text(path: JsonPath) -> str:
    """What PostgreSQL prints for a path (jsonpath_out)."""
    return ("strict " if path.strict else "") + _printed(path.expression, brackets=True)


# --- the codec ----------------------------------------------------------------------------

def _jsonpath_in(text: str) -> str:
    return jsonpath_text(parse_jsonpath(text))


def _binary_in(data: bytes) -> str:
    if not data:
        raise short_data()
    if data[0] != _VERSION:
        raise InternalError(f"unsupported jsonpath version number: {data[0]}")
    return _jsonpath_in(decode_utf8(data[1:]))


def _binary_out(value: object) -> bytes:
    return bytes((_VERSION,)) + text_out(value)


CODECS: Final[dict[int, Codec]] = {
    types.JSONPATH: plain(_jsonpath_in, text_out, _binary_in, _binary_out),
}
