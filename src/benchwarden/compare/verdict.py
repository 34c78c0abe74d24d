"""The verdict for one benchmark: faster / slower / unchanged / inconclusive, and why.

Inputs are the two versions' fork-structured measurements in ns/op (lower is
better, for every benchmark: throughput was inverted on the way in, so the
rule is direction-aware by construction — a JMH ``thrpt`` benchmark that
lost ops/s has a time ratio above 1 and is "slower").

The rule (docs/compare.md, "Verdict"):

1. ``ratio`` = mean(candidate) / mean(base), means of fork means; its
   interval is the studentized hierarchical bootstrap CI
   (:func:`benchwarden.stats.ci_ratio_of_means`) at the level the sequential
   design assigns to this look.
2. The practical threshold ``t = max(min_change, noise floor)``: the noise
   floor is the benchmark's own fork-to-fork variation (twice a robust
   relative standard deviation of fork means within each version), so a
   benchmark whose forks differ by 8 % from one another is not called slower
   for a 5 % change.  The equivalence band is ``[1/(1+t), 1+t]``, symmetric on the
   log scale, so the same band results whether a benchmark is read in ns/op
   or in ops/s.
3. **slower**: the interval lies wholly above the band *and* the
   Mann-Whitney test on fork means agrees (p < ``rank_alpha``; the peers'
   rule — Laaber & Leitner 2018 §3.6, Peass — is a rank test on per-process
   values);
   **faster**: wholly below the band, rank test agreeing;
   **unchanged**: wholly inside the band (equivalence, as in TOST);
   **inconclusive**: anything else — the interval straddles an edge of the
   band, or interval and rank test disagree.
   A verdict is *settled* when it is not inconclusive; the sequential design
   stops a benchmark at the first settled look.

A failed computation degrades to "inconclusive" with the reason in
``warnings``, never to "slower" (STYLE.md §8).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from benchwarden import stats
from benchwarden.stats import Interval, TestResult

DEFAULT_MIN_CHANGE = 0.02
DEFAULT_RANK_ALPHA = 0.05
NOISE_FLOOR_SDS = 2.0  # the noise floor in (robust) standard deviations of fork means (see noise_floor)
MAD_TO_SD = 1.4826  # median absolute deviation -> standard deviation for normal data


class Verdict(str, enum.Enum):
    FASTER = "faster"
    SLOWER = "slower"
    UNCHANGED = "unchanged"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"  # a fork failed: the benchmark could not be compared
    SKIPPED = "skipped"  # the harness declines the benchmark (asv NotImplementedError), nothing to compare

    @property
    def is_change(self) -> bool:
        return self in (Verdict.FASTER, Verdict.SLOWER)


ForkMatrix = Sequence[Sequence[float]]


@dataclass(frozen=True)
class Judgement:
    """One look at a benchmark: the verdict and everything it was decided from.

    ``ratio``: interval of mean(candidate)/mean(base) in ns/op (> 1 = slower).
    ``threshold``: the practical threshold actually used, ``max(min_change, noise_floor)``.
    ``band``: the equivalence band ``(1/(1+threshold), 1+threshold)`` on the ratio.
    """

    verdict: Verdict
    ratio: Interval
    rank_test: TestResult
    threshold: float
    noise_floor: float
    min_change: float
    rank_alpha: float
    warnings: tuple[str, ...] = ()

    @property
    def band(self) -> tuple[float, float]:
        return equivalence_band(self.threshold)

    @property
    def settled(self) -> bool:
        return self.verdict in (Verdict.FASTER, Verdict.SLOWER, Verdict.UNCHANGED)


def noise_floor(base: ForkMatrix, candidate: ForkMatrix) -> float:
    """The benchmark's own noise floor: ``NOISE_FLOOR_SDS`` x a robust relative SD of fork means.

    Each fork mean is taken relative to its version's median fork mean, ``r = m_vf / median_v − 1``
    (within versions, so a real difference between the versions does not raise it); the spread is
    the normal-consistent median absolute deviation of all r pooled, ``σ = 1.4826 · median |r|``
    (Hampel 1974) — robust, so one fork disturbed by the machine (measured on the examples: a first
    fork 60 % slow) does not lift the threshold of an otherwise stable benchmark to 30 %.  0 with one
    fork per side.  The floor is 2σ: about 95 % of single forks of an unchanged version lie within
    ±2σ of its centre, so a change smaller than that is within the benchmark's fork-to-fork noise.
    This is the fork-level analogue of the maxSpread-derived threshold of Laaber & Leitner (MSR 2018,
    seed-003 §3.6).  Why 2σ and not σ: with the threshold at σ an "unchanged" verdict needs the
    interval's half-width ``z·σ·√(2/n)`` below σ, i.e. n > 2z² ≈ 12 fork pairs at the sequential
    levels, so A/A comparisons of a moderately noisy benchmark would never settle; at 2σ, n > z²/2 ≈ 3.
    """
    deviations: list[float] = []
    for forks in (base, candidate):
        means = np.array([float(np.mean(f)) for f in forks])
        if means.size >= 2:
            deviations.extend(np.abs(means / np.median(means) - 1.0))
    if not deviations:
        return 0.0
    return NOISE_FLOOR_SDS * MAD_TO_SD * float(np.median(deviations))


def practical_threshold(min_change: float, floor: float) -> float:
    """``max(min_change, floor)``: the smallest relative change worth reporting for this benchmark."""
    return max(min_change, floor)


def equivalence_band(threshold: float) -> tuple[float, float]:
    """``(1/(1+t), 1+t)``: symmetric on the log scale, so inverting the unit (ops/s) maps it onto itself."""
    return 1.0 / (1.0 + threshold), 1.0 + threshold


def classify(low: float, high: float, p_value: float, band: tuple[float, float], rank_alpha: float) -> Verdict:
    """The decision rule on an interval ``[low, high]`` of the time ratio and a rank-test p-value."""
    band_low, band_high = band
    if band_low <= low and high <= band_high:
        return Verdict.UNCHANGED
    significant = p_value < rank_alpha
    if low > band_high and significant:
        return Verdict.SLOWER
    if high < band_low and significant:
        return Verdict.FASTER
    return Verdict.INCONCLUSIVE


def judge(base: ForkMatrix, candidate: ForkMatrix, confidence: float, *, min_change: float = DEFAULT_MIN_CHANGE,
          rank_alpha: float = DEFAULT_RANK_ALPHA, use_noise_floor: bool = True, n_resamples: int = 10_000,
          seed: int | None = 0, method: str = stats.DEFAULT_METHOD) -> Judgement:
    """Judge one look: ``base``/``candidate`` are ns/op per complete fork; ``confidence`` is this look's level.

    Raises ValueError for empty or non-finite data (the caller has complete forks only).
    """
    interval = stats.ci_ratio_of_means(base, candidate, confidence=confidence, n_resamples=n_resamples,
                                       seed=seed, method=method)
    rank = stats.mann_whitney(base, candidate, on="fork-means")
    floor = noise_floor(base, candidate) if use_noise_floor else 0.0
    threshold = practical_threshold(min_change, floor)
    # With tied fork means scipy falls back to the normal approximation, which can report p below the
    # smallest p-value the exact test can attain (0.1 for 3 vs 3): never let a rank test agree on fewer
    # forks than an exact test could.
    rule_p = max(rank.p_value, _smallest_p(rank.n_a, rank.n_b))
    verdict = classify(interval.low, interval.high, rule_p, equivalence_band(threshold), rank_alpha)
    notes = list(interval.warnings) + [w for w in rank.warnings if "smallest attainable" not in w]
    if _smallest_p(rank.n_a, rank.n_b) >= rank_alpha:
        notes.append(f"with {rank.n_a} vs {rank.n_b} forks the rank test cannot reach p < {rank_alpha:g}: "
                     "no verdict of slower or faster is possible yet")
    notes += _explain(verdict, interval, rank, threshold, floor, min_change, rank_alpha)
    return Judgement(verdict, interval, rank, threshold, floor, min_change, rank_alpha, tuple(dict.fromkeys(notes)))


def _smallest_p(n_a: int, n_b: int) -> float:
    """Smallest two-sided exact Mann-Whitney p-value for n_a vs n_b values: 2 / C(n_a + n_b, n_a)."""
    return min(1.0, 2.0 / math.comb(n_a + n_b, n_a))


def _explain(verdict: Verdict, interval: Interval, rank: TestResult, threshold: float, floor: float,
             min_change: float, rank_alpha: float) -> list[str]:
    notes = []
    if floor > min_change:
        notes.append(f"noise floor {floor:.1%} (fork-to-fork variation) raised the threshold above "
                     f"the configured {min_change:.1%}")
    if verdict is not Verdict.INCONCLUSIVE:
        return notes
    band_low, band_high = equivalence_band(threshold)
    beyond = interval.low > band_high or interval.high < band_low
    if beyond:
        notes.append(f"the interval lies outside the ±{threshold:.1%} band but the rank test on fork means "
                     f"does not agree (p = {rank.p_value:.3g} ≥ {rank_alpha:g})")
    else:
        notes.append(f"the interval [{interval.low:.4f}, {interval.high:.4f}] straddles an edge of the "
                     f"±{threshold:.1%} band: more forks would settle it")
    return notes
