"""The verdict for one benchmark: faster / slower / unchanged / inconclusive, and why.

Inputs are the two versions' fork-structured measurements in ns/op (lower is better for every
benchmark: throughput was inverted on the way in, so a JMH ``thrpt`` benchmark that lost ops/s has a
time ratio above 1 and is "slower").  The rule (docs/compare.md, "The verdict"):

* The **threshold** ``t`` is what the user calls a relevant change (``min_change``, default 3 %; per
  benchmark with ``[compare] thresholds``).  It is never raised by noise: noise decides how many fork
  pairs a verdict needs (:mod:`.sequential`), not what counts as a change.  The equivalence band is
  ``(1/(1+t), 1+t)``, symmetric on the log scale (the same band in ns/op and in ops/s).
* The ratio is analysed on robust fork summaries on the log scale, as pairs when the forks ran in
  pairs (:func:`benchwarden.stats.analyse_ratio`): a t interval that cannot explode, outlying forks
  left out by the generalized ESD test and named, the Hodges–Lehmann ratio as the point estimate.
* Two intervals per look, from the two sequences of repeated confidence intervals of the design: the
  **change** interval at ``confidence`` (default 99.5 % simultaneous over all looks) for claims of a
  change, the **equivalence** interval at ``equivalence_confidence`` (default 95 %) for claims of
  none.  A false "slower" costs a team a red build and its trust in the gate, so it is held to the
  stricter level (measured A/A rate ≤ 1 % in every simulated noise shape; docs/performance.md).
* **slower**: the change interval lies wholly above 1, the robust estimate is at least ``1 + t``,
  and the rank test on the same units (outliers left out alike) does not object (guard: its exact p-value reaches
  ``rank_alpha``, or, with too few units for that, its smallest attainable value — every pair in the
  same direction); **faster**: the mirror image; **unchanged**: the equivalence interval lies wholly
  inside the band — a claim that must be earned with enough pairs, not a default;
  **inconclusive**: anything else, reported with the **minimal detectable change** at this budget
  (the smallest change this many pairs would find with 80 % power) and an estimate of the pairs
  that would settle it.

A failed computation degrades to "inconclusive" with the reason in ``warnings``, never to "slower"
(STYLE.md §8).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import special
from scipy import stats as scistats

from benchwarden import stats
from benchwarden.stats import Interval, LogRatio

DEFAULT_MIN_CHANGE = 0.03
DEFAULT_RANK_ALPHA = 0.05
DEFAULT_POWER = 0.8
"""The power at which the minimal detectable change is stated."""

MAX_PAIRS_ESTIMATE = 10_000


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

# Vectorised codes of :func:`classify_log` (simulations judge many comparisons at once with it).
INCONCLUSIVE, SLOWER, FASTER, UNCHANGED = 0, 1, 2, 3
CODES = {INCONCLUSIVE: Verdict.INCONCLUSIVE, SLOWER: Verdict.SLOWER, FASTER: Verdict.FASTER,
         UNCHANGED: Verdict.UNCHANGED}


def equivalence_band(threshold: float) -> tuple[float, float]:
    """``(1/(1+t), 1+t)``: symmetric on the log scale, so inverting the unit (ops/s) maps it onto itself."""
    return 1.0 / (1.0 + threshold), 1.0 + threshold


def classify_log(change_low, change_high, equivalence_low, equivalence_high, estimate, guard_ok,
                 threshold: float) -> np.ndarray:
    """The decision rule on the log scale; every argument but ``threshold`` may be an array (broadcast).

    ``change_*``: bounds of the change interval of log(ratio); ``equivalence_*``: the equivalence
    interval; ``estimate``: the robust log-ratio estimate; ``guard_ok``: the rank test does not object.
    Returns codes (``SLOWER``, ``FASTER``, ``UNCHANGED``, ``INCONCLUSIVE``).
    """
    edge = math.log1p(threshold)
    unchanged = (np.asarray(equivalence_low) >= -edge) & (np.asarray(equivalence_high) <= edge)
    estimate = np.asarray(estimate)
    slower = (np.asarray(change_low) > 0) & (estimate >= edge) & guard_ok & ~unchanged
    faster = (np.asarray(change_high) < 0) & (estimate <= -edge) & guard_ok & ~unchanged
    return np.select([unchanged, slower, faster], [UNCHANGED, SLOWER, FASTER], INCONCLUSIVE)


def minimal_detectable_change(se: float, df: float, confidence: float, threshold: float,
                              power: float = DEFAULT_POWER) -> float:
    """Smallest relative change the rule would call with probability ``power`` at this precision.

    ``exp((t_{df,1−α/2} + t_{df,power})·se) − 1`` (the usual power approximation for a t interval,
    e.g. Cohen 1988; Reichelt et al., seed-001 §3.3, with t instead of z quantiles), and never below
    the threshold, which the estimate must reach anyway.  ``inf`` when no spread can be estimated.
    """
    if not math.isfinite(se) or df <= 0:
        return math.inf
    q = float(scistats.t.ppf(1 - (1 - confidence) / 2, df) + scistats.t.ppf(power, df))
    return max(threshold, math.expm1(q * se))


def pairs_to_settle(estimate_log: float, spread: float, change_confidence: float, equivalence_confidence: float,
                    threshold: float, power: float = DEFAULT_POWER) -> int | None:
    """Rough number of units (pairs) at which a look would likely settle the verdict, if the estimate held.

    Inside the band: the equivalence interval must fit between the estimate and the nearer edge,
    ``n ≈ ((z_e + z_pow)·s / (log(1+t) − |δ|))²``; at or beyond the edge: the change interval must
    clear 0, ``n ≈ ((z_c + z_pow)·s / |δ|)²`` (normal quantiles: a planning figure, not a promise).
    None when it would exceed 10,000 or nothing can be said (no spread, estimate at the edge).
    """
    if not (math.isfinite(spread) and math.isfinite(estimate_log)) or spread <= 0:
        return None
    edge = math.log1p(threshold)
    z_power = float(special.ndtri(power))
    if abs(estimate_log) < edge:
        z, margin = float(special.ndtri(1 - (1 - equivalence_confidence) / 2)), edge - abs(estimate_log)
    else:
        z, margin = float(special.ndtri(1 - (1 - change_confidence) / 2)), abs(estimate_log)
    if margin <= 0:
        return None
    needed = math.ceil(((z + z_power) * spread / margin) ** 2)
    return needed if needed <= MAX_PAIRS_ESTIMATE else None


@dataclass(frozen=True)
class Judgement:
    """One look at a benchmark: the verdict and everything it was decided from.

    ``ratio``: the change interval of candidate/base in ns/op (> 1 = slower), ``point`` = the robust
    (Hodges–Lehmann) estimate; ``equivalence``: the interval the "unchanged" claim was tested with.
    ``mde``: minimal detectable change of this look (relative, ≥ threshold); ``pairs_needed``: rough
    number of pairs that would settle an unsettled verdict (None when settled or beyond 10,000).
    """

    verdict: Verdict
    ratio: Interval
    equivalence: Interval
    analysis: LogRatio
    rank_p: float
    threshold: float
    rank_alpha: float
    mde: float
    pairs_needed: int | None = None
    warnings: tuple[str, ...] = ()

    @property
    def band(self) -> tuple[float, float]:
        return equivalence_band(self.threshold)

    @property
    def settled(self) -> bool:
        return self.verdict in (Verdict.FASTER, Verdict.SLOWER, Verdict.UNCHANGED)

    @property
    def mean_ratio(self) -> float:
        return self.analysis.mean_ratio


@dataclass(frozen=True)
class Decision:
    """The rule applied to one or many looks (arrays over leading axes, log scale).

    ``codes``: ``SLOWER``/``FASTER``/``UNCHANGED``/``INCONCLUSIVE``; ``change``/``equivalence``: the
    interval bounds (log ratio); ``guard_ok``: the rank test did not object.
    """

    codes: np.ndarray
    change: tuple[np.ndarray, np.ndarray]
    equivalence: tuple[np.ndarray, np.ndarray]
    estimate: np.ndarray
    rank_p: np.ndarray
    guard_ok: np.ndarray


def decide(result: stats.logratio.RatioStatistics, rank: tuple[np.ndarray, np.ndarray], *, change_confidence: float,
           equivalence_confidence: float, threshold: float, rank_alpha: float = DEFAULT_RANK_ALPHA) -> Decision:
    """Classify looks from their ratio statistics and rank tests (the module docstring's rule)."""
    change = result.statistic.bounds(change_confidence)
    equivalence = result.statistic.bounds(equivalence_confidence)
    rank_p, smallest = rank
    guard_ok = rank_p <= np.maximum(rank_alpha, smallest) + 1e-12
    codes = classify_log(*change, *equivalence, result.estimate, guard_ok, threshold)
    return Decision(codes, change, equivalence, result.estimate, rank_p, guard_ok)


def judge_batch(y_base: np.ndarray, y_cand: np.ndarray, *, paired: bool, change_confidence: float,
                equivalence_confidence: float, threshold: float, rank_alpha: float = DEFAULT_RANK_ALPHA) -> Decision:
    """:func:`judge` for many looks at once, on log fork summaries (last axis: forks).  Simulations use it;
    it runs the same functions as :func:`judge` (:func:`benchwarden.stats.logratio.ratio_statistics`,
    :func:`~benchwarden.stats.logratio.rank_p`, :func:`decide`)."""
    result = stats.logratio.ratio_statistics(y_base, y_cand, paired=paired)
    rank = stats.logratio.rank_p(y_base, y_cand, paired=paired, drop_base=result.drop_base,
                                 drop_cand=result.drop_cand)
    return decide(result, rank, change_confidence=change_confidence, equivalence_confidence=equivalence_confidence,
                  threshold=threshold, rank_alpha=rank_alpha)


def judge(base: ForkMatrix, candidate: ForkMatrix, *, change_confidence: float, equivalence_confidence: float,
          threshold: float = DEFAULT_MIN_CHANGE, paired: bool = True, rank_alpha: float = DEFAULT_RANK_ALPHA,
          power: float = DEFAULT_POWER) -> Judgement:
    """Judge one look.  ``base``/``candidate``: ns/op per complete fork (pair ``k`` = fork ``k`` of each
    when ``paired``); the confidences are this look's levels from the sequential design.

    Raises ValueError for empty or non-finite data (the caller has complete forks only).
    """
    analysis = stats.analyse_ratio(base, candidate, paired=paired)
    result = stats.logratio.ratio_statistics(analysis.y_base, analysis.y_cand, paired=paired)
    rank = stats.logratio.rank_p(analysis.y_base, analysis.y_cand, paired=paired, drop_base=result.drop_base,
                                 drop_cand=result.drop_cand)
    decision = decide(result, rank, change_confidence=change_confidence,
                      equivalence_confidence=equivalence_confidence, threshold=threshold, rank_alpha=rank_alpha)
    verdict = CODES[int(decision.codes)]
    change = analysis.interval(change_confidence)
    equivalence = analysis.interval(equivalence_confidence)
    rank_p = float(decision.rank_p)
    statistic = analysis.statistic
    mde = minimal_detectable_change(float(statistic.se), float(statistic.df), change_confidence, threshold, power)
    needed = None if verdict is not Verdict.INCONCLUSIVE else pairs_to_settle(
        math.log(analysis.estimate), analysis.spread, change_confidence, equivalence_confidence, threshold, power)
    notes = list(analysis.warnings)
    notes += _explain(verdict, change, equivalence, analysis, threshold, rank_p, bool(decision.guard_ok), mde,
                      needed)
    return Judgement(verdict, change, equivalence, analysis, rank_p, threshold, rank_alpha, mde, needed,
                     tuple(dict.fromkeys(notes)))


def _explain(verdict: Verdict, change: Interval, equivalence: Interval, analysis: LogRatio, threshold: float,
             rank_p: float, guard_ok: bool, mde: float, needed: int | None) -> list[str]:
    if verdict is not Verdict.INCONCLUSIVE:
        if verdict is Verdict.UNCHANGED and (change.low > 1 or change.high < 1):
            return [f"a real but small change ({analysis.estimate - 1:+.1%}) within the ±{threshold:.1%} threshold"]
        return []
    notes = []
    band_low, band_high = equivalence_band(threshold)
    significant = change.low > 1 or change.high < 1
    if significant and not guard_ok:
        notes.append(f"the interval excludes 1 but the rank test on the same {'pairs' if analysis.paired else 'forks'} "
                     f"objects (p = {rank_p:.3g})")
    elif significant:
        notes.append(f"a significant change of {analysis.estimate - 1:+.1%}, smaller than the ±{threshold:.1%} "
                     "threshold so far; more pairs would tell whether it stays within it")
    else:
        notes.append(f"the interval [{equivalence.low:.4f}, {equivalence.high:.4f}] is wider than the "
                     f"±{threshold:.1%} band allows for 'unchanged'")
    if math.isfinite(mde):
        settle = f"; about {needed} pairs would settle it" if needed else \
            "; settling it would take more than 10,000 pairs" if math.isfinite(analysis.spread) else ""
        notes.append(f"with these {'pairs' if analysis.paired else 'forks'} only changes of {mde:.1%} or more "
                     f"could be detected (80 % power){settle}")
    return notes
