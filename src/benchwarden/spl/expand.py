"""Expansion: from a parsed program to concrete comparisons between benchmark instances.

Expansion resolves aliases, ``SELF``/``THIS``, benchmark references (against what the adapters
list, at the revision each term names), arguments (positional or named, literal or a quantifier
variable), and unrolls quantifiers over their finite sets.  Each relation becomes a
:class:`ExpandedRelation` between two *sides*, each ``scale · instance + offset`` or a constant; each
assertion becomes a tree of :class:`Atom`, :class:`AllOf`, :class:`AnyOf` and :class:`NotOf`.

It is pure given a :class:`Catalog` (what each revision lists), so it is tested without any
harness.  Every problem is an :class:`~benchwarden.spl.lexer.SplError` pointing at the line and
column of the term, argument or expression concerned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Protocol, Sequence, Union

from benchwarden.errors import BenchwardenError
from benchwarden.model import BenchmarkId
from benchwarden.spl.ast import (
    SELF,
    AliasDef,
    And,
    Arg,
    Assertion,
    BinOp,
    Duration,
    Expr,
    Formula,
    Literal,
    Not,
    Number,
    Or,
    Program,
    Quantifier,
    Relation,
    Span,
    Term,
    VarRef,
    literal_text,
)
from benchwarden.spl.interpretations import INTERPRETATIONS, Linear
from benchwarden.spl.lexer import SplError
from benchwarden.spl.references import Resolved, UnknownReference, resolve, value_matches

#: options a ``using`` clause accepts, with their valid ranges
USING_OPTIONS = {"alpha": (0.0, 0.5), "margin": (0.0, 1.0)}


class Catalog(Protocol):
    """What the expansion needs to know about the suites: the benchmarks listed at a revision.

    ``revision`` is None for the working tree.  Implementations may build and list lazily; they
    raise BenchwardenError when a revision cannot be checked out or built.
    """

    @property
    def suites(self) -> Sequence[str]: ...

    def listing(self, revision: str | None) -> Sequence[BenchmarkId]: ...


@dataclass(frozen=True)
class StaticCatalog:
    """A catalog from fixed listings (tests, and runs whose listings are already known)."""

    listings: Mapping[str | None, Sequence[BenchmarkId]]
    suites: Sequence[str] = ()

    def listing(self, revision: str | None) -> Sequence[BenchmarkId]:
        if revision in self.listings:
            return self.listings[revision]
        return self.listings.get(None, ())


@dataclass(frozen=True, order=True)
class Instance:
    """One benchmark x parameters at one revision (None: the working tree): one thing to measure."""

    benchmark: BenchmarkId
    revision: str | None = None

    @property
    def label(self) -> str:
        at = f"@{self.revision}" if self.revision is not None else ""
        return f"{self.benchmark}{at}"


@dataclass(frozen=True)
class SideSpec:
    """``transform(instance)``, or ``transform(constant_ns)`` when ``instance`` is None."""

    instance: Instance | None
    transform: Linear = Linear()
    constant_ns: float = 0.0

    def text(self) -> str:
        core = self.instance.label if self.instance is not None else format_ns(self.constant_ns)
        t = self.transform
        if t.scale != 1.0:
            core = f"{_num(t.scale)} * {core}"
        if t.offset_ns > 0:
            core = f"{core} + {format_ns(t.offset_ns)}"
        elif t.offset_ns < 0:
            core = f"{core} - {format_ns(-t.offset_ns)}"
        return core


@dataclass(frozen=True)
class ExpandedRelation:
    """One atomic comparison after expansion; ``span`` is the relation it came from."""

    left: SideSpec
    op: str
    right: SideSpec
    span: Span

    @property
    def text(self) -> str:
        return f"{self.left.text()} {self.op} {self.right.text()}"

    @property
    def instances(self) -> tuple[Instance, ...]:
        return tuple(s.instance for s in (self.left, self.right) if s.instance is not None)


@dataclass(frozen=True)
class Atom:
    comparison: ExpandedRelation


@dataclass(frozen=True)
class AllOf:
    """Conjunction: ``and``, or a ``for`` quantifier (``label`` says which, e.g. ``for s in {100, 1000}``)."""

    children: tuple["Node", ...]
    label: str = "and"


@dataclass(frozen=True)
class AnyOf:
    children: tuple["Node", ...]
    label: str = "or"


@dataclass(frozen=True)
class NotOf:
    child: "Node"


Node = Union[Atom, AllOf, AnyOf, NotOf]


@dataclass(frozen=True)
class Options:
    """Per-assertion settings from a ``using`` clause; None means "the global setting"."""

    interpretation: str | None = None
    alpha: float | None = None
    margin: float | None = None


@dataclass(frozen=True)
class ExpandedAssertion:
    """An assertion ready to evaluate: where it came from, its text, its options and its expansion."""

    name: str
    text: str
    span: Span
    options: Options
    tree: Node
    comparisons: tuple[ExpandedRelation, ...] = field(default=())

    @property
    def instances(self) -> tuple[Instance, ...]:
        seen: dict[Instance, None] = {}
        for c in self.comparisons:
            for i in c.instances:
                seen.setdefault(i, None)
        return tuple(seen)


def format_ns(value_ns: float) -> str:
    """A duration for display and SPL text: ``2ms``, ``1.5us``, ``850ns``."""
    for unit, factor in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(value_ns) >= factor:
            return f"{_num(value_ns / factor)}{unit}"
    return f"{_num(value_ns)}ns"


def _num(value: float) -> str:
    return f"{value:.6g}"


# -- expansion ------------------------------------------------------------------------------------------

@dataclass
class _Context:
    program: Program
    catalog: Catalog
    aliases: dict[str, AliasDef]
    self_ref: str | None

    def error(self, span: Span, message: str) -> SplError:
        return SplError(span.source, span.line, span.column, message, self.program.text or None)


def expand_program(program: Program, catalog: Catalog, self_ref: str | None = None) -> list[ExpandedAssertion]:
    """Expand every assertion of ``program``; ``self_ref`` (``suite:name``) is what SELF/THIS mean.

    Aliases must be defined before use and only once.  Raises SplError (or BenchwardenError from the
    catalog when a revision cannot be built).
    """
    ctx = _Context(program, catalog, {}, self_ref)
    out: list[ExpandedAssertion] = []
    for statement in program.statements:
        if isinstance(statement, AliasDef):
            _define_alias(ctx, statement)
        else:
            out.append(_expand_assertion(ctx, statement))
    return out


def _define_alias(ctx: _Context, alias: AliasDef) -> None:
    if alias.name in ctx.aliases:
        first = ctx.aliases[alias.name].span
        raise ctx.error(alias.span, f"alias '{alias.name}' is already defined at line {first.line}")
    if alias.target.ref in ctx.aliases and not alias.target.quoted:
        raise ctx.error(alias.target.span, f"an alias cannot refer to another alias ('{alias.target.ref}')")
    for arg in alias.target.args or ():
        if isinstance(arg.value, VarRef):
            raise ctx.error(arg.value.span, f"an alias fixes literal values only; '{arg.value.name}' is not a "
                                            f"value here (write \"{arg.value.name}\" for a string)")
    ctx.aliases[alias.name] = alias


def _expand_assertion(ctx: _Context, assertion: Assertion) -> ExpandedAssertion:
    options = _options(ctx, assertion)
    comparisons: list[ExpandedRelation] = []
    tree = _expand_formula(ctx, assertion.formula, {}, comparisons)
    name = f"{assertion.span.source}:{assertion.span.line}"
    return ExpandedAssertion(name, assertion.text, assertion.span, options, tree, tuple(comparisons))


def _options(ctx: _Context, assertion: Assertion) -> Options:
    using = assertion.using
    if using is None:
        return Options()
    if using.interpretation not in INTERPRETATIONS:
        raise ctx.error(using.span, f"unknown interpretation '{using.interpretation}'; "
                                    f"expected one of: {', '.join(INTERPRETATIONS)}")
    values: dict[str, float] = {}
    for key, value in using.options:
        if key not in USING_OPTIONS:
            raise ctx.error(using.span, f"unknown option '{key}' in 'using'; expected: {', '.join(USING_OPTIONS)}")
        low, high = USING_OPTIONS[key]
        if not (low < value <= high) and not (key == "margin" and value == 0.0):
            raise ctx.error(using.span, f"option '{key}' must be in ({low}, {high}], got {value}")
        values[key] = value
    return Options(using.interpretation, values.get("alpha"), values.get("margin"))


def _expand_formula(ctx: _Context, f: Formula, env: dict[str, Literal], out: list[ExpandedRelation]) -> Node:
    if isinstance(f, Relation):
        comparison = _comparison(ctx, f, env)
        out.append(comparison)
        return Atom(comparison)
    if isinstance(f, Not):
        return NotOf(_expand_formula(ctx, f.operand, env, out))
    if isinstance(f, And):
        return AllOf(tuple(_expand_formula(ctx, o, env, out) for o in f.operands), "and")
    if isinstance(f, Or):
        return AnyOf(tuple(_expand_formula(ctx, o, env, out) for o in f.operands), "or")
    return _expand_quantifier(ctx, f, env, out)


def _expand_quantifier(ctx: _Context, q: Quantifier, env: dict[str, Literal], out: list[ExpandedRelation]) -> Node:
    if q.var in env:
        raise ctx.error(q.span, f"variable '{q.var}' is already bound by an enclosing quantifier")
    if q.var in ctx.aliases:
        raise ctx.error(q.span, f"variable '{q.var}' has the name of an alias")
    children = []
    for value in q.values:
        children.append(_expand_formula(ctx, q.body, {**env, q.var: value}, out))
    values = ", ".join(literal_text(v.value) for v in q.values)
    label = f"{q.kind} {q.var} in {{{values}}}"
    return AllOf(tuple(children), label) if q.kind == "for" else AnyOf(tuple(children), label)


# -- sides --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Lin:
    """A linear form during expansion: ``scale·term + offset``; ``timed`` says whether it is a time."""

    scale: float
    term: Instance | None
    offset_ns: float
    timed: bool


def _comparison(ctx: _Context, rel: Relation, env: dict[str, Literal]) -> ExpandedRelation:
    left, right = _side(ctx, rel.left, env), _side(ctx, rel.right, env)
    if left.instance is None and right.instance is None:
        raise ctx.error(rel.span, "this relation compares no benchmark: at least one side needs a benchmark term")
    return ExpandedRelation(left, rel.op, right, rel.span)


def _side(ctx: _Context, expr: Expr, env: dict[str, Literal]) -> SideSpec:
    lin = _linear(ctx, expr, env)
    if not lin.timed:
        raise ctx.error(_span(expr), "a bare number is not a time: compare with a benchmark or a duration "
                                     "such as 5ms")
    if lin.term is None:
        return SideSpec(None, Linear(), lin.offset_ns)
    if lin.scale <= 0:
        raise ctx.error(_span(expr), f"the scale factor of a benchmark must be positive, got {_num(lin.scale)}")
    return SideSpec(lin.term, Linear(lin.scale, lin.offset_ns))


def _span(expr: Expr) -> Span:
    return expr.span


def _linear(ctx: _Context, expr: Expr, env: dict[str, Literal]) -> _Lin:
    if isinstance(expr, Number):
        return _Lin(0.0, None, expr.value, False)
    if isinstance(expr, Duration):
        return _Lin(0.0, None, expr.ns, True)
    if isinstance(expr, Term):
        return _Lin(1.0, _instance(ctx, expr, env), 0.0, True)
    left, right = _linear(ctx, expr.left, env), _linear(ctx, expr.right, env)
    if expr.op == "*":
        return _multiply(ctx, expr, left, right)
    return _add(ctx, expr, left, right, -1.0 if expr.op == "-" else 1.0)


def _multiply(ctx: _Context, expr: BinOp, left: _Lin, right: _Lin) -> _Lin:
    if left.timed and right.timed:
        what = "two benchmarks" if left.term and right.term else "two times"
        raise ctx.error(expr.span, f"cannot multiply {what}: a side must be linear (k * benchmark + duration)")
    factor, timed = (right, left) if not right.timed else (left, right)
    k = factor.offset_ns
    return _Lin(timed.scale * k, timed.term, timed.offset_ns * k, timed.timed)


def _add(ctx: _Context, expr: BinOp, left: _Lin, right: _Lin, sign: float) -> _Lin:
    if left.timed != right.timed:
        raise ctx.error(expr.span, f"cannot {'add' if sign > 0 else 'subtract'} a bare number and a time: "
                                   "write a duration such as 2ms")
    if left.term is not None and right.term is not None:
        raise ctx.error(expr.span, "a side may contain only one benchmark; compare the benchmarks separately")
    if right.term is not None and sign < 0:
        raise ctx.error(expr.span, "a benchmark cannot be subtracted (its scale factor must be positive)")
    term = left.term or right.term
    scale = left.scale if left.term is not None else right.scale
    return _Lin(scale, term, left.offset_ns + sign * right.offset_ns, left.timed)


# -- terms --------------------------------------------------------------------------------------------

def _instance(ctx: _Context, term: Term, env: dict[str, Literal]) -> Instance:
    ref, revision, args = term.ref, term.revision, tuple(term.args or ())
    if not term.quoted and ref in env:
        raise ctx.error(term.span, f"'{ref}' is a quantifier variable, not a benchmark")
    if not term.quoted and ref in ctx.aliases:
        alias = ctx.aliases[ref].target
        if revision is not None and alias.revision is not None:
            raise ctx.error(term.span, f"alias '{ref}' already fixes the revision @{alias.revision}")
        ref, revision, args = alias.ref, revision or alias.revision, tuple(alias.args or ()) + args
        quoted = alias.quoted
    else:
        quoted = term.quoted
    if ref == SELF and not quoted:
        if ctx.self_ref is None:
            raise ctx.error(term.span, "SELF/THIS mean the annotated benchmark and are only allowed in @SPL "
                                       "annotations")
        ref = ctx.self_ref
    try:
        listing = ctx.catalog.listing(revision)
    except BenchwardenError as exc:
        if revision is None:
            raise
        raise ctx.error(term.span, f"revision '{revision}': {exc}") from None
    try:
        resolved = resolve(ref, listing, ctx.catalog.suites)
    except UnknownReference as exc:
        at = f" at {revision}" if revision is not None else ""
        raise ctx.error(term.span, f"{exc}{at}") from None
    return Instance(_bind(ctx, term, resolved, args, env), revision)


def _arg_value(ctx: _Context, arg: Arg, env: dict[str, Literal]) -> int | float | str:
    if isinstance(arg.value, Literal):
        return arg.value.value
    bound = env.get(arg.value.name)
    if bound is None:
        raise ctx.error(arg.value.span, f"unknown variable '{arg.value.name}' (for a string value write "
                                        f"\"{arg.value.name}\")")
    return bound.value


def _bind(ctx: _Context, term: Term, resolved: Resolved, args: tuple[Arg, ...],
          env: dict[str, Literal]) -> BenchmarkId:
    """The one listed variant selected by the arguments; every parameter must end up with one value."""
    names = resolved.param_names
    chosen: dict[str, str] = {}
    position = 0
    for arg in args:
        given = _arg_value(ctx, arg, env)
        if arg.name is None:
            if position >= len(names):
                raise ctx.error(arg.span, f"too many arguments: {_what(resolved)} takes "
                                          f"{len(names)} parameter(s){_listing(names)}")
            param = names[position]
            position += 1
        else:
            param = arg.name
            if param not in names:
                raise ctx.error(arg.span, f"{_what(resolved)} has no parameter '{param}'{_listing(names)}")
        if param in chosen:
            raise ctx.error(arg.span, f"parameter '{param}' is given twice")
        values = resolved.values_of(param)
        match = [v for v in values if value_matches(v, given)]
        if not match:
            raise ctx.error(arg.span, f"{literal_text(given)} is not a value of parameter '{param}' of "
                                      f"{_what(resolved)}; listed values: {', '.join(values)}")
        chosen[param] = match[0]
    for param in names:
        if param not in chosen:
            values = resolved.values_of(param)
            if len(values) != 1:
                raise ctx.error(term.span, f"{_what(resolved)} needs a value for parameter '{param}' "
                                           f"(one of {', '.join(values)})")
            chosen[param] = values[0]
    wanted = {**dict(resolved.fixed), **chosen}
    for variant in resolved.variants:
        if dict(variant.params) == wanted:
            return variant
    shown = ",".join(f"{k}={v}" for k, v in wanted.items())
    raise ctx.error(term.span, f"{_what(resolved)} was not listed with parameters [{shown}] (the harness "
                               "lists only the combinations it can run)")


def _what(resolved: Resolved) -> str:
    return f"{resolved.suite}:{resolved.name}"


def _listing(names: Sequence[str]) -> str:
    return f" ({', '.join(names)})" if names else " (none)"
