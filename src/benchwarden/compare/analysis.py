"""From measured forks to a :class:`BenchmarkComparison`: the look at a given number of fork pairs.

Shared by the live session (:mod:`.schedule`), by confirmation runs and by the
analysis of two stored runs (``compare --runs``), so a comparison re-analysed
later from the store gives the same verdict it gave live (the analysis is
deterministic: no resampling).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from benchwarden.compare.metrics import judge_metrics, primary_count_verdict
from benchwarden.compare.result import BenchmarkComparison, Look
from benchwarden.compare.sequential import SequentialDesign
from benchwarden.compare.settings import CompareSettings
from benchwarden.compare.verdict import Judgement, Verdict, judge
from benchwarden.metrics.catalog import PRIMARY, Rule
from benchwarden.model import Benchmark, ForkResult, ForkStatus, StopDecision
from benchwarden.stats import machine_spread
from benchwarden.stats.results import MachineSpread

#: level of the test that the change differs between machines (reported as a warning, never a verdict)
MACHINES_ALPHA = 0.01


def complete_matrix(forks: Sequence[ForkResult]) -> list[list[float]]:
    """Measurement values (ns/op) of every complete fork with measurements, in fork order."""
    return [list(f.measurement_ns) for f in forks if f.status is ForkStatus.COMPLETE and f.measurement]


def judge_look(key: str, base: Sequence[Sequence[float]], candidate: Sequence[Sequence[float]],
               levels: tuple[float, float], settings: CompareSettings, paired: bool = True,
               metric: str = "time") -> Judgement:
    """Judge the data so far at the given ``(change, equivalence)`` levels (the design's for this look).

    A count as the primary metric (instructions) is decided by the exact rule when its forks agree within
    the metric's tolerance (:func:`benchwarden.compare.metrics.primary_count_verdict`); the intervals of the
    time verdict stay beside it for the record.
    """
    threshold = settings.min_change_for(key)
    judgement = judge(base, candidate, change_confidence=levels[0], equivalence_confidence=levels[1],
                      threshold=threshold, paired=paired, rank_alpha=settings.rank_alpha)
    count = PRIMARY.get(metric)
    if count is None or count.rule is not Rule.EXACT:
        return judgement
    exact = primary_count_verdict(base, candidate, tolerance=settings.tolerances.get(metric, count.tolerance),
                                  threshold=threshold)
    if exact is None:
        return dataclasses.replace(judgement, warnings=(*judgement.warnings, f"{metric} vary between forks by more "
                                   "than their tolerance: judged as a measured quantity"))
    verdict, note = exact
    return dataclasses.replace(judgement, verdict=verdict, warnings=(note,),
                               pairs_needed=None if verdict is not Verdict.INCONCLUSIVE else judgement.pairs_needed)


def as_look(pairs: int, judgement: Judgement) -> Look:
    r, e = judgement.ratio, judgement.equivalence
    return Look(pairs=pairs, confidence=r.confidence, ratio=r.point, low=r.low, high=r.high,
                p_value=judgement.rank_p, threshold=judgement.threshold, verdict=judgement.verdict,
                equivalence_confidence=e.confidence, equivalence_low=e.low, equivalence_high=e.high,
                mde=judgement.mde)


def stop_decision(look: Look, design: SequentialDesign) -> StopDecision:
    """The look as a stored checkpoint: stop when settled or at the design's last look."""
    settled = look.verdict is not Verdict.INCONCLUSIVE
    final = look.pairs >= design.max_pairs
    reason = f"settled-{look.verdict.value}" if settled else ("maximum-reached" if final else "not-settled")
    warning = None if settled or not final else \
        f"not settled within {design.max_pairs} fork pairs: the verdict is inconclusive"
    # None where a look computed no such figure
    values: dict[str, Any] = {"ratio": look.ratio, "low": look.low, "high": look.high, "confidence": look.confidence,
              "equivalence_confidence": look.equivalence_confidence,
              "equivalence_low": look.equivalence_low, "equivalence_high": look.equivalence_high,
              "p_value": look.p_value, "threshold": look.threshold, "mde": look.mde}
    return StopDecision(stop=settled or final, reason=reason, values=values, warning=warning)


def compare_forks(benchmark: Benchmark, base_forks: Sequence[ForkResult], candidate_forks: Sequence[ForkResult],
                  design: SequentialDesign, settings: CompareSettings, *, looks: Sequence[Look] = (),
                  order: Sequence[str] = (), message: str | None = None, error: bool = False,
                  skipped: bool = False, paired: bool = True) -> BenchmarkComparison:
    """The benchmark's comparison from its forks; the final look is (re)computed from the data.

    The final look's levels are the design's levels for the number of complete pairs (a fixed-sample
    analysis — two ordinary stored runs — uses a design whose only look is that number, unpaired).
    """
    key = benchmark.id.key
    base = complete_matrix(base_forks)
    candidate = complete_matrix(candidate_forks)
    time_s = sum(f.duration_s for f in (*base_forks, *candidate_forks))
    common: dict[str, Any] = dict(
        suite=benchmark.id.suite, key=key, mode=benchmark.mode, unit=benchmark.unit,
        direction=benchmark.direction, min_change=settings.min_change_for(key), time_s=time_s,
        base_ns=tuple(tuple(f) for f in base), candidate_ns=tuple(tuple(f) for f in candidate),
        looks=tuple(looks), order=tuple(order), message=message, paired=paired, metric=benchmark.metric)
    if skipped:
        return BenchmarkComparison(verdict=Verdict.SKIPPED, **common)
    if error:
        return BenchmarkComparison(verdict=Verdict.ERROR, **common)
    pairs = min(len(base), len(candidate))
    levels = design.look_confidences(min(max(pairs, design.min_pairs), design.max_pairs))
    metrics = judge_metrics(base_forks, candidate_forks, levels=levels, threshold=settings.min_change_for(key),
                            tolerances=settings.tolerances, paired=paired)
    if pairs < 2:
        return BenchmarkComparison(verdict=Verdict.INCONCLUSIVE, metrics=metrics, **{**common, "message": message or
                                   f"only {pairs} complete fork pair(s): at least 2 are needed to compare"})
    judgement = judge_look(key, base, candidate, levels, settings, paired, metric=benchmark.metric)
    final_looks = tuple(looks) if looks and looks[-1].pairs == pairs else (*looks, as_look(pairs, judgement))
    warnings = list(judgement.warnings)
    if pairs < design.min_pairs:
        warnings.append(f"only {pairs} fork pairs (the design looks from {design.min_pairs})")
    machines = pair_machines(base_forks, candidate_forks) if paired else None
    if machines is not None and machines.differ(MACHINES_ALPHA):
        each = ", ".join(f"{m} ×{c:.3f}" for m, c in zip(machines.machines, machines.centers))
        warnings.append(f"the change differs between the {len(machines.machines)} machines the pairs ran on "
                        f"({each}; p = {machines.p_value:.2g}): the verdict holds for these machines together")
    r, e = judgement.ratio, judgement.equivalence
    return BenchmarkComparison(
        verdict=judgement.verdict, ratio=r.point, ci_low=r.low, ci_high=r.high, confidence=r.confidence,
        p_value=judgement.rank_p, threshold=judgement.threshold, mean_ratio=judgement.mean_ratio,
        equivalence_low=e.low, equivalence_high=e.high, equivalence_confidence=e.confidence,
        mde=judgement.mde, pairs_needed=judgement.pairs_needed,
        outliers=tuple(o.describe() for o in judgement.analysis.outliers),
        warnings=tuple(dict.fromkeys(warnings)), metrics=metrics, machines=machines,
        **{**common, "looks": final_looks})


def pair_machines(base_forks: Sequence[ForkResult], candidate_forks: Sequence[ForkResult]) -> MachineSpread | None:
    """The machine level of the pairs' time ratios (candidate fork mean / base fork mean), when the pairs ran on
    two or more machines (a cluster: each pair's forks share a worker, blocking by machine); else None.

    The machine's own level cancels in a pair's ratio, so this measures whether the *change* differs between
    machines (:func:`benchwarden.stats.machine_spread`)."""
    base = [f for f in base_forks if f.status is ForkStatus.COMPLETE and f.measurement]
    candidate = [f for f in candidate_forks if f.status is ForkStatus.COMPLETE and f.measurement]
    labels = [b.machine_name for b in base]
    if len(base) != len(candidate) or len(set(labels)) < 2 or any(c.machine_name != m
                                                                    for c, m in zip(candidate, labels)):
        return None
    ratios = [sum(c.measurement_ns) / len(c.measurement) / (sum(b.measurement_ns) / len(b.measurement))
              for b, c in zip(base, candidate)]
    if not all(r > 0 and r == r and r != float("inf") for r in ratios):
        return None
    return machine_spread(ratios, labels)
