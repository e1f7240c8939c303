"""Terminals of the MLIR grammar and a cursor that scans them.

The terminals are compiled ``re`` patterns; the hot loop of the parser matches them
directly at the cursor, which is what makes the parser fast enough for large modules
(one regex per terminal, no backtracking over the text).  No pyparsing here: it loads
only for the cold grammars that use it (attr_syntax's convolution dimension numbers,
type_syntax's ``!quant.uniform``), so parsing a plain program does not pay its import.
"""

from __future__ import annotations

import bisect
import re

from .errors import ParseError, SourcePos

# ---- terminals (MLIR's lexical grammar, docs: mlir.llvm.org/docs/LangRef) ------------
_WS = re.compile(r"(?:[ \t\r\n\f\v]+|//[^\n]*)+")  # whitespace and comments
# SSA value use or definition: `%name`, `%0`, `%x#1` (the `#n` is a use of a result).
_VALUE_ID = re.compile(r"%(?:[0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)(?:#[0-9]+)?")
_VALUE_DEF = re.compile(r"%(?:[0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)(?::([0-9]+))?")
_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$.\-]*")
_KEYWORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_SYMBOL = re.compile(r'@(?:[A-Za-z_$.\-][A-Za-z0-9_$.\-]*|"(?:[^"\\\n]|\\.)*")')
_CARET_ID = re.compile(r"\^[A-Za-z0-9_$.\-]+")  # block label
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_INTEGER = re.compile(r"[-+]?(?:0x[0-9A-Fa-f]+|[0-9]+)(?![0-9A-Za-z_.])")
_FLOAT = re.compile(r"[-+]?[0-9]+(?:\.[0-9]*(?:[eE][-+]?[0-9]+)?|[eE][-+]?[0-9]+)")
_HASH_ID = re.compile(r"#[A-Za-z_][A-Za-z0-9_$.\-]*")  # attribute alias or dialect attr
_BANG_ID = re.compile(r"![A-Za-z_][A-Za-z0-9_$.\-]*")  # type alias or dialect type
# Whole fast-path tensor type: `tensor<4x?xf32>`, `tensor<2xcomplex<f32>>` (no other
# nesting inside).
SIMPLE_ELEMENT = r"(?:[a-z][A-Za-z0-9]*|complex<f(?:32|64)>)"
_SIMPLE_TENSOR = re.compile(rf"tensor<((?:(?:[0-9]+|\?)x)*)({SIMPLE_ELEMENT})>")
_WS_START = frozenset(" \t\r\n\f\v/")
_ESCAPE = re.compile(r"\\(?:([0-9A-Fa-f]{2})|(.))", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def unescape_string(body: str) -> str:
    """The value of a string literal's body (between the quotes): ``\\"`` ``\\\\`` ``\\n``
    ``\\t`` and ``\\XX`` (a hex byte).  An MLIR string is a byte string: the text's
    characters as UTF-8 plus the escaped bytes, held as ``bytes.decode("utf-8",
    "surrogateescape")`` (a byte that is not valid UTF-8 is a lone surrogate), so that
    ``"\\C3\\A9"`` and a literal e-acute are the same string and print the same way."""
    if "\\" not in body:
        if not body.isascii():
            body.encode("utf-8", "surrogateescape")  # a stray surrogate: ValueError
        return body
    out = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(body):
        out += body[pos : m.start()].encode("utf-8", "surrogateescape")
        if m.group(1) is not None:
            out.append(int(m.group(1), 16))
        else:
            c = m.group(2)
            if c not in _SIMPLE_ESCAPES:
                raise ValueError(f"unknown escape sequence '\\{c}' in string")
            out += _SIMPLE_ESCAPES[c].encode()
        pos = m.end()
    out += body[pos:].encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "surrogateescape")


def _line_starts(text: str) -> list[int]:
    """Offsets at which the lines of ``text`` start (str.find is memchr: fast over the
    long lines of hex blobs)."""
    starts = [0]
    append = starts.append
    find = text.find
    i = find("\n")
    while i >= 0:
        append(i + 1)
        i = find("\n", i + 1)
    return starts


class Cursor:
    """A position in a text, with MLIR-aware whitespace skipping and error reporting."""

    __slots__ = ("text", "pos", "filename", "line_offset", "_line_starts", "n")

    def __init__(self, text: str, filename: str, line_offset: int = 0):
        self.text = text
        self.pos = 0
        self.n = len(text)
        self.filename = filename
        self.line_offset = line_offset
        self._line_starts: list[int] | None = None

    # ---- positions -------------------------------------------------------------------
    def location(self, pos: int | None = None) -> SourcePos:
        if pos is None:
            pos = self.pos
        starts = self._line_starts
        if starts is None:
            starts = _line_starts(self.text)
            self._line_starts = starts
        i = bisect.bisect_right(starts, pos) - 1
        return SourcePos(self.filename, i + 1 + self.line_offset, pos - starts[i] + 1)

    def source_line(self, pos: int) -> str:
        start = self.text.rfind("\n", 0, pos) + 1
        end = self.text.find("\n", pos)
        return self.text[start : end if end >= 0 else self.n]

    def error(self, message: str, pos: int | None = None) -> ParseError:
        if pos is None:
            pos = self.pos
        pos = min(max(pos, 0), self.n)
        return ParseError(message, self.location(pos), source_line=self.source_line(pos))

    def wrong_token_pos(self) -> int:
        """Where an ``expected X`` error about the next token is reported: MLIR's
        ``Parser::emitWrongTokenError`` (mlir/lib/AsmParser/Parser.cpp).  A token that
        starts its line (after blanks) was due at the end of the previous line, so the
        error stands there: blank lines are backed over, and so is a ``//`` comment
        ending the previous line (any ``//`` on it counts, as in MLIR); at the end of
        input the token is the last character; with nothing before the token on any
        line, the token's own position."""
        text = self.text
        pos = self.skip()
        if pos >= self.n:
            pos = max(self.n - 1, 0)
        end = pos
        while True:
            while end > 0 and text[end - 1] in " \t":
                end -= 1
            if end == 0:
                return pos
            if text[end - 1] not in "\n\r":
                return end
            end -= 1  # the line break: the error goes at the end of that line
            line_start = max(text.rfind("\n", 0, end), text.rfind("\r", 0, end)) + 1
            comment = text.find("//", line_start, end)
            if comment >= 0:
                end = comment

    def expected(self, what: str) -> ParseError:
        """``expected WHAT, found X`` about the next token (punctuation, an SSA value,
        an operation, a type, an attribute: what MLIR parses with ``parseToken`` or
        reports with ``emitWrongTokenError``), at ``wrong_token_pos``.  Keywords and
        names (MLIR's ``parseKeyword``, custom parsers' ``emitError`` at the current
        location) are reported where the next token starts, with ``error``."""
        return self.error(f"expected {what}, found {self.describe()}", self.wrong_token_pos())

    def describe(self) -> str:
        """What stands at the cursor, for error messages."""
        if self.pos >= self.n:
            return "end of input"
        m = re.compile(r"[A-Za-z0-9_%@#!^.$\-]+|\S").match(self.text, self.pos)
        return f"'{m.group(0)[:40]}'" if m else "whitespace"

    # ---- scanning --------------------------------------------------------------------
    def skip(self) -> int:
        pos = self.pos
        if pos < self.n and self.text[pos] not in _WS_START:
            return pos
        m = _WS.match(self.text, pos)
        if m:
            self.pos = m.end()
        return self.pos

    def at_end(self) -> bool:
        return self.skip() >= self.n

    def peek(self) -> str:
        """The next non-blank character ('' at the end)."""
        p = self.skip()
        return self.text[p] if p < self.n else ""

    def startswith(self, s: str) -> bool:
        self.skip()
        return self.text.startswith(s, self.pos)

    def accept(self, s: str) -> bool:
        """Consume the punctuation ``s`` if it comes next."""
        self.skip()
        if self.text.startswith(s, self.pos):
            self.pos += len(s)
            return True
        return False

    def expect(self, s: str, what: str | None = None) -> None:
        self.skip()
        if self.text.startswith(s, self.pos):
            self.pos += len(s)
            return
        raise self.expected(f"'{s}'{' ' + what if what else ''}")

    def accept_keyword(self, word: str) -> bool:
        self.skip()
        m = _KEYWORD.match(self.text, self.pos)
        if m and m.group(0) == word:
            self.pos = m.end()
            return True
        return False

    def expect_keyword(self, word: str) -> None:
        if not self.accept_keyword(word):
            raise self.error(f"expected '{word}', found {self.describe()}")

    def match(self, pattern: re.Pattern) -> re.Match | None:
        self.skip()
        m = pattern.match(self.text, self.pos)
        if m:
            self.pos = m.end()
        return m

    def expect_match(self, pattern: re.Pattern, what: str) -> re.Match:
        m = self.match(pattern)
        if m is None:
            raise self.expected(what)
        return m

    def keyword(self) -> str | None:
        m = self.match(_KEYWORD)
        return m.group(0) if m else None

    def bare_id(self) -> str | None:
        m = self.match(_BARE_ID)
        return m.group(0) if m else None

    def string(self) -> str | None:
        """A string literal's unescaped value, or None if none comes next."""
        self.skip()
        m = _STRING.match(self.text, self.pos)
        if m is None:
            if self.text.startswith('"', self.pos):
                raise self.error("unterminated string literal")
            return None
        try:
            value = unescape_string(m.group(0)[1:-1])
        except ValueError as e:
            raise self.error(str(e)) from None
        self.pos = m.end()
        return value

    def balanced(self, open_: str, close: str) -> str:
        """Consume a balanced ``open_ ... close`` group (strings respected); return its text."""
        self.skip()
        start = self.pos
        text = self.text
        if not text.startswith(open_, start):
            raise self.expected(f"'{open_}'")
        pairs = {"<": ">", "(": ")", "[": "]", "{": "}"}
        stack: list[str] = []
        i = start
        n = self.n
        while i < n:
            c = text[i]
            if c == '"':
                m = _STRING.match(text, i)
                if m is None:
                    raise self.error("unterminated string literal", i)
                i = m.end()
                continue
            if c in pairs:
                stack.append(pairs[c])
                if len(stack) > 1000:
                    raise self.error("nesting too deep", i)
            elif c in ">)]}":
                if c == ">" and i > 0 and text[i - 1] == "-":
                    i += 1  # `->` inside an opaque attribute
                    continue
                if not stack or stack[-1] != c:
                    raise self.error(f"unbalanced '{c}'", i)
                stack.pop()
                if not stack:
                    self.pos = i + 1
                    return text[start : i + 1]
            i += 1
        raise self.error(f"unterminated '{open_}'", start)


VALUE_ID_RE = _VALUE_ID
VALUE_DEF_RE = _VALUE_DEF
BARE_ID_RE = _BARE_ID
KEYWORD_RE = _KEYWORD
SYMBOL_RE = _SYMBOL
CARET_ID_RE = _CARET_ID
STRING_RE = _STRING
INTEGER_RE = _INTEGER
FLOAT_RE = _FLOAT
HASH_ID_RE = _HASH_ID
BANG_ID_RE = _BANG_ID
SIMPLE_TENSOR_RE = _SIMPLE_TENSOR
