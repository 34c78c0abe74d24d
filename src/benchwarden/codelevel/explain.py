"""Root cause to the method: which functions' own time changed between two versions of a benchmark.

Input: the call trees (:mod:`.profiles`) of profiled fork pairs of both versions. For every call-tree node the
value per fork is its **self time per benchmark operation** (its own time, without the profiled functions it
calls, divided by the calls of the benchmark function), and the node is judged like a benchmark
(:func:`benchwarden.compare.verdict.judge`: Welch/paired t on log fork values, Hodges–Lehmann estimate, rank-test
guard, the compare's ``min_change`` as the threshold), on the explanation's own pairs; and judged again on its
**share** of the fork's benchmark time (significance only), which cancels the fork's machine factor: a fork run in a
slow stretch is slow in every node alike. A node present in every fork of one version and in none of the other is
*new* or *gone* (a renamed or replaced function).

The **causes** of a slower benchmark are its nodes whose self time or share got slower, and its new nodes, ranked by how
many nanoseconds per operation they added; of a faster one, the nodes that got faster or went away, by the time
they saved. Self time, not inclusive: a slowed function makes every caller's inclusive time slower, but only its
own self time (the cause's callers keep theirs), so ranking by self time puts the function that changed first,
its callers after it only if they changed too. Peass ranks by the same idea on Kieker's call trees (Reichelt et
al.; ../shared/research/seed-001-reichelt-peass.md §4), with a t test per node.

**Too short to trust.** The probe adds ``traced_call_ns`` per profiled call (measured in every fork); Horký
(seed-000 §5) found probe accuracy collapses for methods under ~10–20 µs. A node whose mean time per call is below
:data:`TRUST_CALLS` probe costs is flagged ``short``: its times carry the probe's cost, and its change may be the
probe's, not the code's (docs/code-level.md has the measured accuracy by duration).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import numpy as np

from benchwarden.codelevel.profiles import CallPath, CallTree
from benchwarden.compare.verdict import Verdict, judge
from benchwarden.stats import Interval

#: a node is trusted when one call lasts at least this many probe costs (probe ≤ 5 % of the call)
TRUST_CALLS = 20
#: a cause accounts for at least this share of the benchmark's change per operation
MIN_SHARE = 0.01
#: confidence of the per-node interval (one fixed look on the explanation's pairs)
DEFAULT_CONFIDENCE = 0.99
#: the "unchanged" claim's confidence per node
EQUIVALENCE_CONFIDENCE = 0.9
#: looks of a sequential explanation (:func:`explain_sequential`): pairs are added while no cause is named
DEFAULT_LOOKS = 3


class NodeVerdict(str, enum.Enum):
    """What happened to one call-tree node's self time between the versions."""

    SLOWER = "slower"
    FASTER = "faster"
    UNCHANGED = "unchanged"
    INCONCLUSIVE = "inconclusive"
    NEW = "new"  # in every candidate fork, in no base fork
    GONE = "gone"  # in every base fork, in no candidate fork
    IRREGULAR = "irregular"  # in some forks of a version only: not judged


_FROM_VERDICT = {Verdict.SLOWER: NodeVerdict.SLOWER, Verdict.FASTER: NodeVerdict.FASTER,
                 Verdict.UNCHANGED: NodeVerdict.UNCHANGED, Verdict.INCONCLUSIVE: NodeVerdict.INCONCLUSIVE}


@dataclass(frozen=True)
class NodeChange:
    """One node of the call-tree diff. Times are ns per benchmark operation, means over forks; ``calls`` are
    per operation. ``ratio``: the interval of candidate/base self time (None unless present on both sides)."""

    path: CallPath
    verdict: NodeVerdict
    base_self_ns: float
    candidate_self_ns: float
    base_inclusive_ns: float
    candidate_inclusive_ns: float
    base_calls: float
    candidate_calls: float
    per_call_ns: float  # mean inclusive time of one call (the longer of the two versions')
    short: bool  # per_call_ns < TRUST_CALLS x the probe's cost per call
    ratio: Interval | None = None
    share_verdict: NodeVerdict | None = None  # the same judgement on its share of the fork's benchmark time

    @property
    def name(self) -> str:
        return self.path[-1]

    @property
    def depth(self) -> int:
        return len(self.path) - 1

    @property
    def self_delta_ns(self) -> float:
        return self.candidate_self_ns - self.base_self_ns

    @property
    def inclusive_delta_ns(self) -> float:
        return self.candidate_inclusive_ns - self.base_inclusive_ns

    def to_dict(self) -> dict[str, Any]:
        return {"path": list(self.path), "verdict": self.verdict.value, "base_self_ns": self.base_self_ns,
                "candidate_self_ns": self.candidate_self_ns, "self_delta_ns": self.self_delta_ns,
                "base_inclusive_ns": self.base_inclusive_ns, "candidate_inclusive_ns": self.candidate_inclusive_ns,
                "base_calls": self.base_calls, "candidate_calls": self.candidate_calls,
                "per_call_ns": self.per_call_ns, "short": self.short,
                "share_verdict": None if self.share_verdict is None else self.share_verdict.value,
                "ratio": None if self.ratio is None else {"low": self.ratio.low, "high": self.ratio.high,
                                                          "estimate": self.ratio.point,
                                                          "confidence": self.ratio.confidence}}


@dataclass(frozen=True)
class Explanation:
    """Why one benchmark changed: the call-tree diff of its profiled pairs and the ranked causes.

    ``benchmark``: ``suite:key``; ``verdict``: the benchmark's own verdict (what is explained); ``pairs``: profiled
    fork pairs; ``base_ns``/``candidate_ns``: the root's inclusive time per operation under the probe;
    ``nodes``: every node, in tree order (a parent before its children, children by inclusive time);
    ``causes``: paths of the nodes that explain the change, most time first; ``probe_ns``: the probe's median
    cost per profiled call; ``machine_time_s``: the profiled forks' wall time.
    """

    benchmark: str
    verdict: Verdict
    pairs: int
    base_ns: float
    candidate_ns: float
    nodes: tuple[NodeChange, ...]
    causes: tuple[CallPath, ...]
    probe_ns: float
    machine_time_s: float = 0.0
    error: str | None = None
    warnings: tuple[str, ...] = field(default=())
    folded: tuple[str, ...] = ()  # functions left unprobed as too short: their time is their callers' own
    sampled: bool = False  # from a sampling profiler (Go): no probe, no call counts below the benchmark function

    def node(self, path: CallPath) -> NodeChange:
        return next(n for n in self.nodes if n.path == path)

    @property
    def explained_ns(self) -> float:
        """The benchmark's change per operation that its causes account for (their self-time deltas)."""
        return sum(self.node(p).self_delta_ns for p in self.causes)

    def to_dict(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "verdict": self.verdict.value, "pairs": self.pairs,
                "base_ns": self.base_ns, "candidate_ns": self.candidate_ns, "probe_ns": self.probe_ns,
                "machine_time_s": self.machine_time_s, "error": self.error, "warnings": list(self.warnings),
                "causes": [list(p) for p in self.causes], "nodes": [n.to_dict() for n in self.nodes],
                "folded": list(self.folded), "sampled": self.sampled}


def failed_explanation(benchmark: str, verdict: Verdict, error: str, machine_time_s: float = 0.0) -> Explanation:
    return Explanation(benchmark, verdict, 0, math.nan, math.nan, (), (), math.nan, machine_time_s, error)


def explain(benchmark: str, verdict: Verdict, base: Sequence[CallTree], candidate: Sequence[CallTree], *,
            min_change: float, confidence: float = DEFAULT_CONFIDENCE, machine_time_s: float = 0.0,
            folded: tuple[str, ...] = ()) -> Explanation:
    """The call-tree diff of ``base`` against ``candidate`` (fork ``k`` of each = pair ``k``), module docstring.

    Raises ValueError for fewer than two forks per version or different roots.
    """
    if len(base) < 2 or len(candidate) < 2:
        raise ValueError(f"explaining needs at least 2 profiled forks per version, got {len(base)} and "
                         f"{len(candidate)}")
    roots = {t.root for t in (*base, *candidate)}
    if len(roots) != 1:
        raise ValueError(f"the profiles have different benchmark functions: {sorted(roots)}")
    paired = len(base) == len(candidate)
    probe = float(np.median([t.traced_call_ns for t in (*base, *candidate)]))
    paths = _tree_order(base, candidate)
    nodes = tuple(_node(path, base, candidate, paired, min_change, confidence, probe) for path in paths)
    root = paths[0]
    base_ns = float(np.mean([t.per_op(root, "inclusive_ns") for t in base]))
    candidate_ns = float(np.mean([t.per_op(root, "inclusive_ns") for t in candidate]))
    causes = rank_causes(nodes, slower=verdict is not Verdict.FASTER, change_ns=candidate_ns - base_ns)
    warnings = []
    if not paired:
        warnings.append(f"{len(base)} base and {len(candidate)} candidate profiles: judged unpaired")
    return Explanation(benchmark, verdict, min(len(base), len(candidate)), base_ns, candidate_ns, nodes, causes,
                       probe, machine_time_s, None, tuple(warnings), folded,
                       sampled=any(t.sampled for t in (*base, *candidate)))


def explain_sequential(benchmark: str, verdict: Verdict, draw: Callable[[int], tuple[CallTree, CallTree]], *,
                       pairs: int, looks: int = DEFAULT_LOOKS, min_change: float,
                       confidence: float = DEFAULT_CONFIDENCE, folded: tuple[str, ...] = ()) -> Explanation:
    """:func:`explain` on ``pairs`` pairs, then on ``pairs`` more while it names no cause, ``looks`` times at most.

    ``draw(k)`` gives pair ``k`` (1-based) as ``(base, candidate)``. Noise costs pairs, not the answer: on a
    loaded machine six profiled pairs often leave every node's interval wide, and a fixed sample then says "no
    cause" where more pairs would name it. Each look judges every node at ``1 − (1 − confidence) / looks``
    (Bonferroni over the looks), so a node whose time did not change is named at some look with probability at
    most ``1 − confidence``, as with one look. Stops at the first look that names a cause.
    """
    if pairs < 2 or looks < 1:
        raise ValueError(f"a sequential explanation needs at least 2 pairs per look and 1 look, got {pairs} and "
                         f"{looks}")
    per_look = 1 - (1 - confidence) / looks
    base: list[CallTree] = []
    candidate: list[CallTree] = []
    for look in range(1, looks + 1):
        while len(base) < look * pairs:
            b, c = draw(len(base) + 1)
            base.append(b)
            candidate.append(c)
        e = explain(benchmark, verdict, base, candidate, min_change=min_change, confidence=per_look, folded=folded)
        if e.causes or look == looks:
            if look == 1:
                return e
            note = (f"no cause at {(look - 1) * pairs} pairs: profiled {len(base)}" +
                    ("" if e.causes else f", the most {looks} looks allow"))
            return replace(e, warnings=(*e.warnings, note))
    raise AssertionError("unreachable")


def rank_causes(nodes: Sequence[NodeChange], *, slower: bool, change_ns: float) -> tuple[CallPath, ...]:
    """Paths of the nodes that explain a slower (``slower``) or faster benchmark, most time first.

    A node's own time must have changed in the benchmark's direction (judged so, or new / gone) by at least
    :data:`MIN_SHARE` of the benchmark's change per operation ``change_ns``: smaller ones stay in the tree.
    """
    floor = MIN_SHARE * abs(change_ns)
    if slower:
        chosen = [n for n in nodes if (n.verdict in (NodeVerdict.SLOWER, NodeVerdict.NEW)
                                       or n.share_verdict is NodeVerdict.SLOWER) and n.self_delta_ns > floor]
        chosen.sort(key=lambda n: -n.self_delta_ns)
    else:
        chosen = [n for n in nodes if (n.verdict in (NodeVerdict.FASTER, NodeVerdict.GONE)
                                       or n.share_verdict is NodeVerdict.FASTER) and n.self_delta_ns < -floor]
        chosen.sort(key=lambda n: n.self_delta_ns)
    return tuple(n.path for n in chosen)


def _tree_order(base: Sequence[CallTree], candidate: Sequence[CallTree]) -> list[CallPath]:
    """Every path of either version, depth first, siblings by their larger mean inclusive time per operation."""
    trees = (*base, *candidate)
    paths = {p for t in trees for p in t.nodes}
    weight = {p: max(np.mean([t.per_op(p, "inclusive_ns") for t in side]) for side in (base, candidate))
              for p in paths}
    children: dict[CallPath, list[CallPath]] = {}
    for p in paths:
        if len(p) > 1:
            children.setdefault(p[:-1], []).append(p)
    ordered: list[CallPath] = []
    stack = [min(paths, key=len)]
    while stack:
        p = stack.pop()
        ordered.append(p)
        stack += sorted(children.get(p, ()), key=lambda c: (weight[c], c))  # heaviest popped first
    return ordered


def _node(path: CallPath, base: Sequence[CallTree], candidate: Sequence[CallTree], paired: bool,
          min_change: float, confidence: float, probe_ns: float) -> NodeChange:
    b_self = np.array([t.per_op(path, "self_ns") for t in base])
    c_self = np.array([t.per_op(path, "self_ns") for t in candidate])
    b_in = [path in t.nodes for t in base]
    c_in = [path in t.nodes for t in candidate]
    calls = {side: float(np.mean([t.per_op(path, "calls") for t in trees]))
             for side, trees in (("base", base), ("candidate", candidate))}
    per_call = max(_per_call(path, trees) for trees in (base, candidate))
    ratio = share_verdict = None
    if all(b_in) and all(c_in):
        if (b_self > 0).all() and (c_self > 0).all():
            judgement = judge([[v] for v in b_self], [[v] for v in c_self], change_confidence=confidence,
                              equivalence_confidence=EQUIVALENCE_CONFIDENCE, threshold=min_change, paired=paired)
            verdict, ratio = _FROM_VERDICT[judgement.verdict], judgement.ratio
            root = path[:1]
            b_share = b_self / np.array([t.per_op(root, "inclusive_ns") for t in base])
            c_share = c_self / np.array([t.per_op(root, "inclusive_ns") for t in candidate])
            share_verdict = _FROM_VERDICT[judge([[v] for v in b_share], [[v] for v in c_share],
                                                change_confidence=confidence,
                                                equivalence_confidence=EQUIVALENCE_CONFIDENCE, threshold=0.0,
                                                paired=paired).verdict]
        else:
            verdict = NodeVerdict.INCONCLUSIVE  # a self time of zero in some fork: below the clock's resolution
    elif all(c_in) and not any(b_in):
        verdict = NodeVerdict.NEW
    elif all(b_in) and not any(c_in):
        verdict = NodeVerdict.GONE
    else:
        verdict = NodeVerdict.IRREGULAR
    return NodeChange(path, verdict, float(b_self.mean()), float(c_self.mean()),
                      float(np.mean([t.per_op(path, "inclusive_ns") for t in base])),
                      float(np.mean([t.per_op(path, "inclusive_ns") for t in candidate])),
                      calls["base"], calls["candidate"], per_call, per_call < TRUST_CALLS * probe_ns, ratio,
                      share_verdict)


def _per_call(path: CallPath, trees: Sequence[CallTree]) -> float:
    calls = sum(t.nodes[path].calls for t in trees if path in t.nodes)
    inclusive = sum(t.nodes[path].inclusive_ns for t in trees if path in t.nodes)
    return inclusive / calls if calls else 0.0
