"""Tokens of SPL source, with line and column, and the syntax error every stage of the front end raises.

Lexical rules (docs/spl.md, "Lexical structure"):

* whitespace and newlines separate tokens and are otherwise insignificant, except that a term's
  argument list must start on the line of its name (so a parenthesised statement on the next line
  is never read as arguments);
* ``#`` starts a comment to the end of the line, unless it is glued between two name characters
  (``java.util.Arrays#sort`` is a name, as in the thesis' listings);
* a *name* is letters, digits, ``_`` and ``$``, joined by ``.``, ``#`` or ``/`` with no spaces
  (``wordstat.bench.TokenizeBench.tokenize``, ``BenchmarkParse/json``), optionally prefixed by a suite
  name and a colon (``wordstat:TopKBench.topK``); anything else goes in backticks
  (```wordstat-cli:top```, ```BenchmarkTokenize/size=100```);
* after ``@`` comes a revision: any run of characters up to whitespace or one of ``()[]{},;#<>=*+``
  (``HEAD``, ``HEAD~1``, ``v2.0.0``, ``6a49ef6``, ``release/2.0``), or a quoted string;
* numbers are decimal in ASCII digits (``12``, ``1.05``, ``.5``, ``1e3``); a number glued to a unit is a
  duration (``2ms``, ``1.5us``, ``3s``);
* strings are in double or single quotes with ``\\`` escapes (``\\n \\t \\\\ \\" \\'``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from benchwarden.errors import BenchwardenError

#: nanoseconds per duration unit accepted in SPL sources
DURATION_UNITS_NS: dict[str, float] = {"ns": 1.0, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}

KEYWORDS = frozenset({"and", "or", "not", "for", "exists", "in", "using", "SELF", "THIS"})

_NAME_START = re.compile(r"[A-Za-z_$]")
_SEGMENT = re.compile(r"[A-Za-z0-9_$]+")
_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DIGITS = frozenset("0123456789")  # ASCII only: str.isdigit() is also true of '²' and '٣', which are not SPL numbers
_UNIT = re.compile(r"[A-Za-zµμ]+")
_REVISION = re.compile(r"[^\s()\[\]{},;#<>=*+\"'`]+")
_OPERATORS = (":=", "<=", ">=", "==", "<", ">", "=", "*", "+", "-", "(", ")", "{", "}", ",", ";", ":", "@")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'"}


class SplError(BenchwardenError):
    """A problem in an SPL source at a known place: names the source, 1-based line and column, and what
    was expected.  The message ends with the offending line and a caret under the column (when the text
    is known), so the CLI can print it as is."""

    def __init__(self, source: str, line: int, column: int, message: str, text: str | None = None):
        self.source = source
        self.line = line
        self.column = column
        self.detail = message
        snippet = ""
        if text is not None:
            lines = text.splitlines()
            if 1 <= line <= len(lines):
                shown = lines[line - 1].expandtabs(1)
                snippet = f"\n    {shown}\n    {' ' * (column - 1)}^"
        super().__init__(f"{source}:{line}:{column}: {message}{snippet}")


class SplSyntaxError(SplError):
    """The source cannot be parsed (lexer and parser)."""


@dataclass(frozen=True)
class Token:
    """One token. ``kind``: ``name``, ``qref``, ``keyword``, ``number``, ``duration``, ``string``,
    ``revision``, ``op`` or ``eof``.  ``value``: the number, the duration in ns, the unescaped string,
    or the text.  ``newline_before``: a line break separates it from the previous token."""

    kind: str
    text: str
    value: object
    line: int
    column: int
    newline_before: bool = False

    def describe(self) -> str:
        """How an error message names the token: ``'and'``, ``end of input``, ``number 12``."""
        if self.kind == "eof":
            return "end of input"
        if self.kind in ("number", "duration"):
            return f"{self.kind} {self.text}"
        if self.kind == "string":
            return f"string {self.text}"
        return f"'{self.text}'"


class Lexer:
    """Turns one source text into tokens; :meth:`tokens` raises SplSyntaxError on the first bad character."""

    def __init__(self, text: str, source: str = "<input>"):
        self.text = text
        self.source = source
        self.pos = 0
        self.line = 1
        self.line_start = 0
        self.newline_seen = False
        self.after_at = False
        self.last_end = (1, 1)  # line and column just after the previous token (where "end of input" is)

    def error(self, message: str, pos: int | None = None) -> SplSyntaxError:
        p = self.pos if pos is None else pos
        line = self.text.count("\n", 0, p) + 1
        column = p - (self.text.rfind("\n", 0, p) + 1) + 1
        return SplSyntaxError(self.source, line, column, message, self.text)

    def tokens(self) -> list[Token]:
        out: list[Token] = []
        while True:
            tok = self._next()
            out.append(tok)
            if tok.kind == "eof":
                return out

    # -- scanning ------------------------------------------------------------------------------------

    def _column(self, pos: int) -> int:
        return pos - self.line_start + 1

    def _skip_space_and_comments(self) -> None:
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch == "\n":
                self.pos += 1
                self.line += 1
                self.line_start = self.pos
                self.newline_seen = True
            elif ch.isspace():
                self.pos += 1
            elif ch == "#":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            else:
                return

    def _make(self, kind: str, start: int, value: object) -> Token:
        tok = Token(kind, self.text[start:self.pos], value, self.line, self._column(start), self.newline_seen)
        self.newline_seen = False
        self.last_end = (self.line, self._column(self.pos))
        return tok

    def _next(self) -> Token:
        self._skip_space_and_comments()
        start = self.pos
        if start >= len(self.text):  # "end of input" is reported just after the last token, where text is missing
            line, column = self.last_end
            return Token("eof", "", None, line, column, self.newline_seen)
        if self.after_at:
            self.after_at = False
            return self._revision(start)
        ch = self.text[start]
        if ch in "\"'":
            return self._string(start)
        if ch == "`":
            return self._quoted_ref(start)
        if ch in _DIGITS or (ch == "." and self.text[start + 1:start + 2] in _DIGITS):
            return self._number(start)
        if _NAME_START.match(ch):
            return self._name(start)
        for op in _OPERATORS:
            if self.text.startswith(op, start):
                self.pos += len(op)
                if op == "@":
                    self.after_at = True
                return self._make("op", start, "=" if op == "==" else op)
        raise self.error(f"unexpected character {ch!r}")

    def _revision(self, start: int) -> Token:
        ch = self.text[start]
        if ch in "\"'":
            tok = self._string(start)
            return Token("revision", tok.text, tok.value, tok.line, tok.column, tok.newline_before)
        m = _REVISION.match(self.text, start)
        if not m:
            raise self.error("expected a revision after '@' (a commit, a tag, a branch or HEAD)")
        self.pos = m.end()
        return self._make("revision", start, m.group())

    def _string(self, start: int) -> Token:
        quote = self.text[start]
        chars: list[str] = []
        pos = start + 1
        while True:
            if pos >= len(self.text) or self.text[pos] == "\n":
                raise self.error("unterminated string: the closing quote is missing", start)
            ch = self.text[pos]
            if ch == quote:
                self.pos = pos + 1
                return self._make("string", start, "".join(chars))
            if ch == "\\":
                nxt = self.text[pos + 1:pos + 2]
                if nxt not in _ESCAPES:
                    raise self.error(f"unknown escape '\\{nxt}' in string (known: \\n \\t \\\\ \\\" \\')", pos)
                chars.append(_ESCAPES[nxt])
                pos += 2
            else:
                chars.append(ch)
                pos += 1

    def _quoted_ref(self, start: int) -> Token:
        end = self.text.find("`", start + 1)
        newline = self.text.find("\n", start + 1)
        if end < 0 or (0 <= newline < end):
            raise self.error("unterminated `reference`: the closing backtick is missing", start)
        if end == start + 1:
            raise self.error("empty `` reference", start)
        self.pos = end + 1
        return self._make("qref", start, self.text[start + 1:end])

    def _number(self, start: int) -> Token:
        m = _NUMBER.match(self.text, start)
        if m is None:  # pragma: no cover - the caller saw an ASCII digit, which always starts a number
            raise self.error("expected a number")
        self.pos = m.end()
        number = float(m.group())
        if not math.isfinite(number):
            raise self.error(f"number too large: {m.group()[:20]}{'...' if len(m.group()) > 20 else ''}", start)
        unit = _UNIT.match(self.text, self.pos)
        if unit:
            if unit.group() not in DURATION_UNITS_NS:
                raise self.error(f"unknown time unit {unit.group()!r} after {m.group()} "
                                 f"(known: {', '.join(k for k in DURATION_UNITS_NS if k.isascii())})", self.pos)
            self.pos = unit.end()
            return self._make("duration", start, number * DURATION_UNITS_NS[unit.group()])
        if self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] in "_$"):
            raise self.error(f"a number cannot be followed by {self.text[self.pos]!r}", self.pos)
        value: float | int = int(m.group()) if set(m.group()) <= _DIGITS else number
        return self._make("number", start, value)

    def _name(self, start: int) -> Token:
        text = self.text
        pos = _SEGMENT.match(text, start).end()  # type: ignore[union-attr]
        # a suite qualifier "suite:name" (the colon glued on both sides; ":=" is never a qualifier)
        if text[pos:pos + 1] == ":" and pos + 1 < len(text) and _NAME_START.match(text[pos + 1]):
            pos = _SEGMENT.match(text, pos + 1).end()  # type: ignore[union-attr]
        while pos + 1 < len(text) and text[pos] in ".#/" and _SEGMENT.match(text, pos + 1):
            pos = _SEGMENT.match(text, pos + 1).end()  # type: ignore[union-attr]
        self.pos = pos
        word = text[start:pos]
        kind = "keyword" if word in KEYWORDS else "name"
        return self._make(kind, start, word)


def tokenize(text: str, source: str = "<input>") -> list[Token]:
    """All tokens of ``text`` (ending with an ``eof`` token). Raises SplSyntaxError."""
    return Lexer(text, source).tokens()
