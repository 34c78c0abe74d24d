"""Syntax tree of Stochastic Performance Logic (SPL) programs: frozen dataclasses, with source spans.

A program is a sequence of statements: alias definitions (``old := Bench.tokenize@v1.0``) and
assertions (formulas).  Formulas combine relations between performance expressions with
``and``/``or``/``not`` and finite quantifiers.  The grammar is in docs/spl.md; the parser is
:mod:`benchwarden.spl.parser`.  Nodes carry a :class:`Span` so that later stages (expansion,
evaluation) can point at the line and column of what they complain about.

:func:`to_text` prints a node back as SPL; parsing its output gives the same tree (spans aside),
which the parser tests check with hypothesis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union


@dataclass(frozen=True)
class Span:
    """Where a node starts in its source: 1-based line and column (columns count characters)."""

    source: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.source}:{self.line}:{self.column}"


# -- values and terms --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Literal:
    """A parameter value written in the program: a number (int or float) or a string."""

    value: int | float | str
    span: Span


@dataclass(frozen=True)
class VarRef:
    """A quantifier variable used as an argument (``tokenize(s)``)."""

    name: str
    span: Span


ArgValue = Union[Literal, VarRef]


@dataclass(frozen=True)
class Arg:
    """One argument of a term: positional (``name`` None) or named (``size=100``)."""

    name: str | None
    value: ArgValue
    span: Span


SELF = "SELF"
"""The reference of the annotated benchmark in an ``@SPL`` formula; ``THIS`` is read as the same."""


@dataclass(frozen=True)
class Term:
    """A performance term: a benchmark reference or alias, an optional revision, optional arguments.

    ``ref``: the name as written (``TokenizeBench.tokenize``, ``wordstat:BenchmarkX/sub``, an alias
    name, or :data:`SELF`).  ``args`` is None when no parentheses were written, () for ``x()``.
    ``quoted``: the reference was written in backticks (never an alias or keyword).
    """

    ref: str
    revision: str | None
    args: tuple[Arg, ...] | None
    span: Span
    quoted: bool = False


@dataclass(frozen=True)
class Number:
    """A dimensionless constant (a scale factor such as ``1.05``)."""

    value: float
    span: Span


@dataclass(frozen=True)
class Duration:
    """A time constant such as ``2ms``; ``ns`` is its value in nanoseconds, ``text`` as written."""

    ns: float
    text: str
    span: Span


@dataclass(frozen=True)
class BinOp:
    """``left op right`` with op one of ``+ - *`` (sides of a relation must end up linear in one term)."""

    op: str
    left: "Expr"
    right: "Expr"
    span: Span


Expr = Union[Term, Number, Duration, BinOp]


# -- formulas -----------------------------------------------------------------------------------------

RELATIONS = ("<=", ">=", "<", ">", "=")


@dataclass(frozen=True)
class Relation:
    """``left op right`` between two performance expressions; op is one of :data:`RELATIONS`."""

    left: Expr
    op: str
    right: Expr
    span: Span


@dataclass(frozen=True)
class Not:
    operand: "Formula"
    span: Span


@dataclass(frozen=True)
class And:
    operands: tuple["Formula", ...]
    span: Span


@dataclass(frozen=True)
class Or:
    operands: tuple["Formula", ...]
    span: Span


@dataclass(frozen=True)
class Quantifier:
    """``for var in {values} body`` (``kind`` "for": all) or ``exists var in {values} body`` (any)."""

    kind: str
    var: str
    values: tuple[Literal, ...]
    body: "Formula"
    span: Span


Formula = Union[Relation, Not, And, Or, Quantifier]


# -- statements ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AliasDef:
    """``name := term``: a benchmark (with optional revision and fixed arguments) under a short name."""

    name: str
    target: Term
    span: Span


@dataclass(frozen=True)
class Using:
    """``using parametric(alpha=0.01, margin=0.05):`` before an assertion: its interpretation and options."""

    interpretation: str
    options: tuple[tuple[str, float], ...]
    span: Span


@dataclass(frozen=True)
class Assertion:
    """One assertion: a formula, the options it was given, and its text as written (for reports)."""

    formula: Formula
    using: Using | None
    span: Span
    text: str


Statement = Union[AliasDef, Assertion]


@dataclass(frozen=True)
class Program:
    """A parsed source (an ``.spl`` file, a config entry or an annotation value)."""

    source: str
    statements: tuple[Statement, ...]
    text: str = field(default="", compare=False, repr=False)  # the source text, for error snippets

    @property
    def aliases(self) -> tuple[AliasDef, ...]:
        return tuple(s for s in self.statements if isinstance(s, AliasDef))

    @property
    def assertions(self) -> tuple[Assertion, ...]:
        return tuple(s for s in self.statements if isinstance(s, Assertion))


# -- printing -----------------------------------------------------------------------------------------

_PRECEDENCE = {"or": 1, "and": 2, "not": 3, "atom": 4}
_EXPR_PRECEDENCE = {"+": 1, "-": 1, "*": 2}


def literal_text(value: int | float | str) -> str:
    """A value as SPL source: numbers as Python prints them, strings double-quoted with escapes."""
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        return f'"{escaped}"'
    return repr(value)


def _term_text(term: Term) -> str:
    ref = f"`{term.ref}`" if term.quoted else term.ref
    text = ref + (f"@{term.revision}" if term.revision is not None else "")
    if term.args is not None:
        parts = []
        for arg in term.args:
            value = arg.value.name if isinstance(arg.value, VarRef) else literal_text(arg.value.value)
            parts.append(f"{arg.name}={value}" if arg.name else value)
        text += "(" + ", ".join(parts) + ")"
    return text


def _expr_text(expr: Expr, parent: int = 0, right_side: bool = False) -> str:
    if isinstance(expr, Term):
        return _term_text(expr)
    if isinstance(expr, Number):
        return str(int(expr.value)) if expr.value.is_integer() and abs(expr.value) < 1e15 else repr(expr.value)
    if isinstance(expr, Duration):
        return expr.text
    prec = _EXPR_PRECEDENCE[expr.op]
    text = f"{_expr_text(expr.left, prec)} {expr.op} {_expr_text(expr.right, prec, True)}"
    # left-associative: a right operand of equal precedence needs parentheses ("a - (b - c)")
    if prec < parent or (right_side and prec == parent):
        return f"({text})"
    return text


def _formula_text(f: Formula, parent: int = 0) -> str:
    if isinstance(f, Relation):
        text, prec = f"{_expr_text(f.left)} {f.op} {_expr_text(f.right)}", _PRECEDENCE["atom"]
    elif isinstance(f, Not):
        text, prec = f"not {_formula_text(f.operand, _PRECEDENCE['not'])}", _PRECEDENCE["not"]
    elif isinstance(f, And):
        prec = _PRECEDENCE["and"]
        text = " and ".join(_formula_text(o, prec + 1) for o in f.operands)
    elif isinstance(f, Or):
        prec = _PRECEDENCE["or"]
        text = " or ".join(_formula_text(o, prec + 1) for o in f.operands)
    else:
        values = ", ".join(literal_text(v.value) for v in f.values)
        text, prec = f"{f.kind} {f.var} in {{{values}}} {_formula_text(f.body)}", 0
    return f"({text})" if prec < parent else text


def to_text(node: Formula | Expr | Term | AliasDef | Assertion | Program) -> str:
    """SPL source for a node; parsing it yields an equal tree (spans aside)."""
    if isinstance(node, Program):
        return "\n".join(to_text(s) for s in node.statements)
    if isinstance(node, AliasDef):
        return f"{node.name} := {_term_text(node.target)}"
    if isinstance(node, Assertion):
        prefix = ""
        if node.using is not None:
            opts = ", ".join(f"{k}={v!r}" for k, v in node.using.options)
            prefix = f"using {node.using.interpretation}" + (f"({opts})" if opts else "") + ": "
        return prefix + _formula_text(node.formula)
    if isinstance(node, (Relation, Not, And, Or, Quantifier)):
        return _formula_text(node)
    return _expr_text(node)
