"""Judging the metrics beside the primary one: allocations, CPU time, peak RSS, ... (docs/metrics.md).

Every metric a harness reported for both versions of a benchmark (the secondary labels of their
measurement iterations, mapped by :mod:`benchwarden.metrics.catalog`) is judged by the rule that fits it:

* **exact** (allocations and allocated bytes per operation, instructions, Python's traced memory): the
  metric's value is one number per fork (the median of its iterations, so one odd iteration cannot
  move it).  When neither version's forks differ from each other by more than the metric's
  ``tolerance``, the versions are compared directly: **worse** when every candidate fork is above every
  base fork by more than the tolerance, **better** for the mirror image, **unchanged** otherwise.  A
  deterministic count needs no statistics — one fork per version would do; with two or more the
  determinism is checked rather than assumed.  A count that varies between the forks of one version by
  more than its tolerance (Go's instructions when garbage collection runs a different number of times)
  is **separated** when, with at least 3 forks per version, every candidate fork lies beyond every base
  fork by more than twice that spread (worse/better; under A/A with 3 forks per side this happens in
  0.10–0.15 % of draws for normal, t₃ and lognormal noise, ``benchmarks/history_rules_simulation.py``); otherwise it
  is judged as **noisy**, with the count's tolerance as the change that matters, and the result says so.
* **noisy** (CPU time, wall time, peak RSS, CPU user/sys, a harness's other figures): the time
  verdict's own rule, :func:`benchwarden.compare.verdict.judge`, on the metric's fork-structured
  values (paired as the forks ran), at the levels of the comparison's final look and with the
  benchmark's ``min_change`` as threshold.  The sequential design's repeated intervals cover at every
  look simultaneously, so judging a second metric at the look where the first one stopped keeps its
  error rate (Jennison & Turnbull 2000, ch. 9).
* **shown**: reported, never judged (see the catalog for why).

Verdicts are **worse** / **better** / **unchanged** / **inconclusive** for judged metrics, **shown**
for the others and **missing** when only one version reported the metric.  Higher-is-better metrics
are inverted before judging, so "worse" always means worse.  A metric becomes a CI gate with
``[compare] fail_on`` (:attr:`benchwarden.compare.result.Comparison.gate`).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from benchwarden.compare.verdict import Verdict, judge
from benchwarden.metrics.catalog import Metric, Rule, metric_for
from benchwarden.model import Direction, ForkResult, ForkStatus


class MetricVerdict(str, enum.Enum):
    WORSE = "worse"
    BETTER = "better"
    UNCHANGED = "unchanged"
    INCONCLUSIVE = "inconclusive"
    SHOWN = "shown"  # not judged (derived from time, or not per operation)
    MISSING = "missing"  # reported by one version only


SEPARATION_FORKS = 3
"""Fewest forks per version for the separation rule (with 2, A/A separates by twice the spread in 3-4 %)."""
SEPARATION_FACTOR = 2.0

_FROM_TIME = {Verdict.SLOWER: MetricVerdict.WORSE, Verdict.FASTER: MetricVerdict.BETTER,
              Verdict.UNCHANGED: MetricVerdict.UNCHANGED, Verdict.INCONCLUSIVE: MetricVerdict.INCONCLUSIVE}


@dataclass(frozen=True)
class MetricComparison:
    """One metric of one benchmark, both versions.

    ``base``/``candidate``: the typical value of each version in the metric's own unit (median of the
    fork values), None when that version did not report it.  ``ratio``: candidate / base of those
    (None when undefined, e.g. 0 → 0).  ``low``/``high``: the change interval of the ratio (noisy
    rule only).  ``rule``: the rule that decided (``exact`` falls back to ``noisy`` when the metric
    varies between forks).  ``tolerance`` (exact) or ``threshold`` (noisy): what counted as equal.
    ``spread``: largest relative difference between the forks of one version.  ``forks``: fork
    values per version, for reports.  ``note``: why, in words.
    """

    name: str
    label: str
    unit: str
    direction: Direction
    rule: Rule
    verdict: MetricVerdict
    base: float | None = None
    candidate: float | None = None
    ratio: float | None = None
    low: float | None = None
    high: float | None = None
    tolerance: float | None = None
    threshold: float | None = None
    spread: float | None = None
    base_forks: tuple[float, ...] = ()
    candidate_forks: tuple[float, ...] = ()
    note: str | None = None

    def display_change(self) -> float | None:
        """Relative change of the typical value in the metric's unit (+0.05 = 5 % more)."""
        if self.base is None or self.candidate is None or self.base == 0:
            return None
        return self.candidate / self.base - 1.0

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "label": self.label, "unit": self.unit, "direction": self.direction.value,
                "rule": self.rule.value, "verdict": self.verdict.value, "base": self.base,
                "candidate": self.candidate, "ratio": self.ratio, "low": self.low, "high": self.high,
                "tolerance": self.tolerance, "threshold": self.threshold, "spread": self.spread,
                "base_forks": list(self.base_forks), "candidate_forks": list(self.candidate_forks),
                "note": self.note}


# --- collecting the values --------------------------------------------------------------------------


def metric_matrices(forks: Sequence[ForkResult]) -> dict[str, list[list[float]]]:
    """Secondary label -> measurement values per complete fork (forks missing the label are left out)."""
    complete = [f for f in forks if f.status is ForkStatus.COMPLETE and f.measurement]
    labels = list(dict.fromkeys(label for f in complete for it in f.measurement for label in it.secondary))
    matrices: dict[str, list[list[float]]] = {}
    for label in labels:
        rows = [[float(it.secondary[label]) for it in f.measurement if label in it.secondary] for f in complete]
        rows = [r for r in rows if r and all(math.isfinite(v) for v in r)]
        if rows:
            matrices[label] = rows
    return matrices


def fork_values(rows: Sequence[Sequence[float]]) -> np.ndarray:
    """One value per fork: the median of its iterations."""
    return np.array([float(np.median(r)) for r in rows])


# --- the rules ----------------------------------------------------------------------------------------


def relative_spread(values: np.ndarray) -> float:
    """``(max − min) / min`` of non-negative values; 0 for identical values, ``inf`` when 0 meets a positive."""
    low, high = float(np.min(values)), float(np.max(values))
    if high == low:
        return 0.0
    return math.inf if low <= 0 else high / low - 1.0


def exact_verdict(base: np.ndarray, candidate: np.ndarray, tolerance: float) -> MetricVerdict:
    """The exact rule on lower-is-better fork values (assumes each side's spread is within ``tolerance``).

    WORSE when ``min(candidate) > max(base)·(1 + tolerance)``, BETTER when
    ``max(candidate)·(1 + tolerance) < min(base)``, else UNCHANGED.  Zero is a value like any other:
    0 → 1 allocation is worse at any tolerance.
    """
    if float(candidate.min()) > float(base.max()) * (1.0 + tolerance):
        return MetricVerdict.WORSE
    if float(candidate.max()) * (1.0 + tolerance) < float(base.min()):
        return MetricVerdict.BETTER
    return MetricVerdict.UNCHANGED


def separation_verdict(base: np.ndarray, candidate: np.ndarray) -> MetricVerdict:
    """For a count whose forks vary: :func:`exact_verdict` with twice the larger relative spread of the two
    versions as the tolerance, given at least :data:`SEPARATION_FORKS` forks per version (else UNCHANGED:
    no claim).  Lower-is-better values."""
    if min(base.size, candidate.size) < SEPARATION_FORKS:
        return MetricVerdict.UNCHANGED
    spread = max(relative_spread(base), relative_spread(candidate))
    if not math.isfinite(spread):
        return MetricVerdict.UNCHANGED
    return exact_verdict(base, candidate, SEPARATION_FACTOR * spread)


def judge_metric(metric: Metric, label: str, base_rows: Sequence[Sequence[float]] | None,
                 candidate_rows: Sequence[Sequence[float]] | None, *, levels: tuple[float, float],
                 threshold: float, tolerance: float | None = None, paired: bool = True) -> MetricComparison:
    """Judge one metric of one benchmark (module docstring).  ``levels``: (change, equivalence) confidence
    of the comparison's final look; ``threshold``: the benchmark's min_change (noisy rule);
    ``tolerance``: overrides the metric's own (exact rule)."""
    common: dict[str, Any] = dict(name=metric.name, label=label, unit=metric.unit, direction=metric.direction)
    if not base_rows or not candidate_rows:
        present = "candidate" if candidate_rows else "base"
        rows = candidate_rows or base_rows or []
        value = float(np.median(fork_values(rows))) if rows else None
        return MetricComparison(**common, rule=metric.rule, verdict=MetricVerdict.MISSING,
                                base=value if present == "base" else None,
                                candidate=value if present == "candidate" else None,
                                note=f"reported by the {present} only")
    b_raw, c_raw = fork_values(base_rows), fork_values(candidate_rows)
    b_typ, c_typ = float(np.median(b_raw)), float(np.median(c_raw))
    ratio = c_typ / b_typ if b_typ else None
    common.update(base=b_typ, candidate=c_typ, ratio=ratio, base_forks=tuple(b_raw), candidate_forks=tuple(c_raw))
    if metric.rule is Rule.SHOWN:
        return MetricComparison(**common, rule=Rule.SHOWN, verdict=MetricVerdict.SHOWN, note=metric.why_shown)
    b = np.array([metric.lower_is_better(v) for v in b_raw])
    c = np.array([metric.lower_is_better(v) for v in c_raw])
    tol = metric.tolerance if tolerance is None else tolerance
    spread = max(relative_spread(b), relative_spread(c))
    if metric.rule is Rule.EXACT and (b.min() < 0 or c.min() < 0):
        return MetricComparison(**common, rule=Rule.EXACT, verdict=MetricVerdict.INCONCLUSIVE, tolerance=tol,
                                note="negative values: not a count")
    if metric.rule is Rule.EXACT and spread <= tol:
        verdict = exact_verdict(b, c, tol)
        notes = []
        if min(b.size, c.size) < 2:
            notes.append("one fork per version: determinism assumed, not checked")
        if verdict is MetricVerdict.UNCHANGED and b_typ != c_typ:
            notes.append(f"a difference within the ±{tol:.1%} tolerance")
        return MetricComparison(**common, rule=Rule.EXACT, verdict=verdict, tolerance=tol, spread=spread,
                                note="; ".join(notes) or None)
    fallback = None
    if metric.rule is Rule.EXACT:
        varies = f"varies by {_percent(spread)} between forks of one version, more than its ±{tol:.1%} tolerance"
        verdict = separation_verdict(b, c)
        if verdict is not MetricVerdict.UNCHANGED:
            return MetricComparison(**common, rule=Rule.EXACT, verdict=verdict, tolerance=tol, spread=spread,
                                    note=f"{varies}; the versions are apart by more than twice that")
        fallback = f"{varies}: judged as a measured quantity, with ±{tol:.1%} as the change that matters"
        threshold = tol
    return _noisy(metric, common, base_rows, candidate_rows, levels, threshold, paired, spread, fallback)


def _noisy(metric: Metric, common: dict[str, Any], base_rows: Sequence[Sequence[float]],
           candidate_rows: Sequence[Sequence[float]], levels: tuple[float, float], threshold: float, paired: bool,
           spread: float, fallback: str | None) -> MetricComparison:
    base = [[metric.lower_is_better(v) for v in row] for row in base_rows]
    candidate = [[metric.lower_is_better(v) for v in row] for row in candidate_rows]
    notes = [fallback] if fallback else []
    pairs = min(len(base), len(candidate)) if paired else min(len(base), len(candidate))
    if pairs < 2:
        notes.append(f"only {pairs} fork(s) per version: at least 2 are needed to judge a measured quantity")
        return MetricComparison(**common, rule=Rule.NOISY, verdict=MetricVerdict.INCONCLUSIVE, threshold=threshold,
                                spread=spread, note="; ".join(notes))
    try:
        judgement = judge(base, candidate, change_confidence=levels[0], equivalence_confidence=levels[1],
                          threshold=threshold, paired=paired)
    except ValueError as exc:  # zero or non-positive values: no ratio on the log scale
        notes.append(f"cannot be judged as a ratio: {exc}")
        return MetricComparison(**common, rule=Rule.NOISY, verdict=MetricVerdict.INCONCLUSIVE, threshold=threshold,
                                spread=spread, note="; ".join(notes))
    interval = judgement.ratio
    low, high = interval.low, interval.high
    if metric.direction is Direction.HIGHER_IS_BETTER:  # judged on inverted values: back to the metric's own
        low, high = (1.0 / high if high else math.inf), (1.0 / low if low else math.inf)
    notes += [w for w in judgement.warnings if "pairs would settle" not in w]
    return MetricComparison(**common, rule=Rule.NOISY, verdict=_FROM_TIME[judgement.verdict], low=low, high=high,
                            threshold=threshold, spread=spread, note="; ".join(notes) or None)


def _percent(x: float) -> str:
    return "an unbounded factor" if not math.isfinite(x) else f"{x:.1%}"


# --- one benchmark --------------------------------------------------------------------------------------


def judge_metrics(base_forks: Sequence[ForkResult], candidate_forks: Sequence[ForkResult], *,
                  levels: tuple[float, float], threshold: float, tolerances: Mapping[str, float] | None = None,
                  paired: bool = True) -> tuple[MetricComparison, ...]:
    """Every secondary metric either version reported, judged, in the order the harness reported them."""
    base = metric_matrices(base_forks)
    candidate = metric_matrices(candidate_forks)
    tolerances = tolerances or {}
    results = []
    for label in dict.fromkeys([*base, *candidate]):
        metric = metric_for(label)
        results.append(judge_metric(metric, label, base.get(label), candidate.get(label), levels=levels,
                                    threshold=threshold, tolerance=tolerances.get(metric.name), paired=paired))
    return tuple(results)



# --- a count as the primary metric ---------------------------------------------------------------------


def primary_count_verdict(base: Sequence[Sequence[float]], candidate: Sequence[Sequence[float]], *,
                          tolerance: float, threshold: float) -> tuple[Verdict, str] | None:
    """The exact rule for a count that is the primary metric (``metric = "instructions"``), with the threshold.

    Fork values are the medians of their iterations.  None when a version's forks differ by more than
    ``tolerance`` (the caller keeps the time verdict's).  Else, with ``r`` = candidate / base of the
    typical values and the band ``(1/(1+t), 1+t)``:

    * **slower** when every candidate fork is above every base fork by more than the tolerance and
      ``r ≥ 1 + t``; **faster** the mirror image;
    * **unchanged** when every candidate fork is within the band of every base fork (a real difference
      smaller than the threshold included, as for time);
    * **inconclusive** otherwise: a change at the edge of the band.
    """
    b, c = fork_values(base), fork_values(candidate)
    if min(b.size, c.size) < 1 or b.min() <= 0 or c.min() <= 0:
        return None
    spread = max(relative_spread(b), relative_spread(c))
    if spread > tolerance:
        return None
    ratio = float(np.median(c) / np.median(b))
    edge = 1.0 + threshold
    separated = exact_verdict(b, c, tolerance)
    if separated is MetricVerdict.WORSE and ratio >= edge:
        return Verdict.SLOWER, f"every fork {ratio - 1:+.2%} (exact rule: forks within ±{tolerance:.1%})"
    if separated is MetricVerdict.BETTER and ratio <= 1.0 / edge:
        return Verdict.FASTER, f"every fork {ratio - 1:+.2%} (exact rule: forks within ±{tolerance:.1%})"
    if float(c.max() / b.min()) <= edge and float(c.min() / b.max()) >= 1.0 / edge:
        note = f"{ratio - 1:+.2%}, within the ±{threshold:.1%} threshold (exact rule)"
        return Verdict.UNCHANGED, note
    return Verdict.INCONCLUSIVE, (f"{ratio - 1:+.2%}: at the edge of the ±{threshold:.1%} threshold "
                                  "(exact rule)")
