"""Evaluating expanded assertions on measurements: pure, given the data of every instance.

For each atomic comparison the assertion's interpretation computes a three-valued verdict
(:mod:`benchwarden.spl.interpretations`); the expansion tree combines them with Kleene's connectives
(:mod:`benchwarden.spl.logic`).  The level used at each *look* is ``alpha / looks``: a check may look
at the same comparison once per measuring round, and a Bonferroni split over the planned looks keeps
the chance of a wrong decision at or below α however many rounds actually run (docs/spl.md,
"Measuring more").
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace
from typing import Callable, Mapping

import numpy as np

from benchwarden.spl.expand import AllOf, Atom, ExpandedAssertion, ExpandedRelation, Instance, Node, NotOf, SideSpec
from benchwarden.spl.interpretations import Linear, RelationStats, SideData, compare
from benchwarden.spl.logic import Truth, v_all, v_any, v_not
from benchwarden.spl.settings import CheckSettings


@dataclass(frozen=True)
class InstanceData:
    """What is known about one instance: its forks (ns/op per iteration), history, and any failure."""

    forks: tuple[tuple[float, ...], ...] = ()
    history: tuple[tuple[float, int], ...] = ()
    failure: str | None = None


@dataclass(frozen=True)
class RelationResult:
    comparison: ExpandedRelation
    verdict: Truth
    stats: RelationStats | None = None
    note: str | None = None  # why there are no statistics (a benchmark failed or has no data)


@dataclass(frozen=True)
class NodeResult:
    """One node of the evaluated expansion: its label (``and``, ``for s in {…}``, ``not``, or the
    comparison text), its verdict, and its children (or its comparison, for a leaf)."""

    label: str
    verdict: Truth
    children: tuple["NodeResult", ...] = ()
    comparison: RelationResult | None = None


@dataclass(frozen=True)
class AssertionResult:
    assertion: ExpandedAssertion
    interpretation: str
    alpha: float  # nominal, per comparison
    alpha_per_look: float
    margin: float
    verdict: Truth
    root: NodeResult
    comparisons: tuple[RelationResult, ...]

    def undecided_instances(self) -> tuple[Instance, ...]:
        """Instances of the comparisons that are still undecided (what measuring more could settle)."""
        seen: dict[Instance, None] = {}
        for c in self.comparisons:
            if c.verdict is Truth.UNDECIDED:
                for i in c.comparison.instances:
                    seen.setdefault(i, None)
        return tuple(seen)


DataLookup = Callable[[Instance], InstanceData]


def evaluate(assertion: ExpandedAssertion, data: DataLookup | Mapping[Instance, InstanceData],
             settings: CheckSettings, same: Callable[[Instance, Instance], bool] | None = None) -> AssertionResult:
    """Evaluate one assertion on the data; the assertion's ``using`` options override ``settings``.

    ``same(a, b)``: whether two instances are one and the same measurement (e.g. ``X`` and ``X@HEAD``
    on a clean tree); such a comparison is *paired* (see :func:`_compare`).  Default: equal instances.
    """
    lookup = data.__getitem__ if isinstance(data, Mapping) else data
    same = same or (lambda a, b: a == b)
    opts = assertion.options
    interpretation = opts.interpretation or settings.interpretation
    alpha = opts.alpha if opts.alpha is not None else settings.alpha
    margin = opts.margin if opts.margin is not None else settings.margin
    per_look = alpha / settings.looks
    cache: dict[ExpandedRelation, RelationResult] = {}

    def leaf(comparison: ExpandedRelation) -> RelationResult:
        if comparison not in cache:
            cache[comparison] = _compare(comparison, lookup, interpretation, per_look, margin, settings, same)
        return cache[comparison]

    root = _walk(assertion.tree, leaf)
    results = tuple(leaf(c) for c in assertion.comparisons)
    return AssertionResult(assertion, interpretation, alpha, per_look, margin, root.verdict, root, results)


def _walk(node: Node, leaf: Callable[[ExpandedRelation], RelationResult]) -> NodeResult:
    if isinstance(node, Atom):
        result = leaf(node.comparison)
        return NodeResult(node.comparison.text, result.verdict, (), result)
    if isinstance(node, NotOf):
        child = _walk(node.child, leaf)
        return NodeResult("not", v_not(child.verdict), (child,))
    children = tuple(_walk(c, leaf) for c in node.children)
    combine = v_all if isinstance(node, AllOf) else v_any
    return NodeResult(node.label, combine(c.verdict for c in children), children)


def _side(spec: SideSpec, lookup: DataLookup) -> tuple[SideData | None, str | None]:
    if spec.instance is None:
        return SideData.constant(spec.constant_ns, spec.transform), None
    data = lookup(spec.instance)
    if not data.forks:
        why = data.failure or "no measurements"
        return None, f"{spec.instance.label}: {why}"
    return SideData.measured(data.forks, spec.transform, data.history), None


def _paired(comparison: ExpandedRelation) -> ExpandedRelation:
    """``t_l(X) op t_r(X)`` on one sample is ``(t_l − t_r)(X) op 0``: the difference of the transformations
    applied to every observation, against the constant 0.  With equal scales it is exact (no variance),
    which is the thesis' axiom 4 (generalised reflexivity: t_l ≤ t_r implies P ≤ P in every interpretation)."""
    lt, rt = comparison.left.transform, comparison.right.transform
    left = SideSpec(comparison.left.instance, Linear(lt.scale - rt.scale, lt.offset_ns - rt.offset_ns))
    return ExpandedRelation(left, comparison.op, SideSpec(None, Linear(), 0.0), comparison.span)


def _compare(comparison: ExpandedRelation, lookup: DataLookup, interpretation: str, alpha: float, margin: float,
             settings: CheckSettings, same: Callable[[Instance, Instance], bool]) -> RelationResult:
    evaluated = comparison
    l_inst, r_inst = comparison.left.instance, comparison.right.instance
    if l_inst is not None and r_inst is not None and same(l_inst, r_inst):
        evaluated = _paired(comparison)
    left, why_left = _side(evaluated.left, lookup)
    right, why_right = _side(evaluated.right, lookup)
    if left is None or right is None:
        return RelationResult(comparison, Truth.UNDECIDED, None, why_left or why_right)
    seed = np.random.default_rng([settings.seed, zlib.crc32(comparison.text.encode())])
    stats = compare(interpretation, comparison.op, left, right, alpha, margin, lenient=settings.lenient,
                    n_resamples=settings.resamples, seed=seed)
    if evaluated is not comparison:
        mean = float(np.mean([np.mean(f) for f in lookup(l_inst).forks]))  # type: ignore[arg-type]
        stats = replace(stats, left_mean_ns=comparison.left.transform.apply(mean),
                        right_mean_ns=comparison.right.transform.apply(mean),
                        warnings=(*stats.warnings, "both sides are the same measurement: compared as a paired "
                                                   "difference"))
    return RelationResult(comparison, stats.verdict, stats)
