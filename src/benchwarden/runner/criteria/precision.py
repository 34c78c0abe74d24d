"""The ``precision`` criterion: stop adding forks once more forks would not move the mean beyond a tolerance.

After each fork: the *t* interval of the mean of the log fork means,
``mean ± t_{n−1, (1+c)/2} · s / √n`` (the fork is the independent unit, as in
the verdict's interval, docs/statistics.md), and its relative half-width
``exp(half-width) − 1``.  Stable iff that is at most the tolerance (the
threshold, default ±5 % at c = 90 %).  It scales with the benchmark's own
noise: forks that agree stop at ``forks.min``; forks that differ run until
the interval is narrow enough or ``forks.max``.  Nothing to say about warmup.

Quiet by luck is not quiet.  With two forks ``s`` rests on one degree of
freedom: two fork means of a very noisy benchmark land within 1.6 % of each
other a few times in a hundred, and a bare *t* interval would call that
precise.  A fork mean's variance is at least its iterations' share,
``Var(mean of fork) = σ_f² + σ_i²/m ≥ σ_i²/m`` (the nested random-effects
model: between-fork σ_f², within-fork σ_i², m iterations per fork; Kalibera
& Jones, "Rigorous benchmarking in reasonable time", ISMM 2013, §3), and
σ_i² is estimated from every iteration (pooled within-fork variance, n·(m−1)
degrees of freedom), far more reliably than σ_f² from n fork means.  So the
spread used is ``max(s_between², CV_within²/m)`` (on the log scale, by the
delta method): forks that agree by chance while their iterations scatter
widely still need forks.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

import numpy as np

from benchwarden.runner.criteria.base import CheckState


@lru_cache(maxsize=64)
def _t_quantile(confidence: float, df: int) -> float:
    from scipy.stats import t

    return float(t.ppf(0.5 + confidence / 2.0, df))


def within_fork_variance(forks_ns: Sequence[Sequence[float]]) -> float:
    """The iterations' share of a log fork mean's variance, ``CV_within² / m`` (0 when no fork has 2 iterations).

    By the delta method ``Var(log x̄) ≈ Var(x̄)/μ² = CV²/m``.  ``CV_within²``
    pools the forks' squared coefficients of variation weighted by their
    degrees of freedom ``m_k − 1``; ``1/m`` is the mean of the forks' ``1/m_k``.
    """
    weighted, df, inverse_m = 0.0, 0, 0.0
    for fork in forks_ns:
        values = np.asarray(fork, dtype=float)
        if values.size >= 2:
            weighted += float(np.var(values, ddof=1)) / float(np.mean(values)) ** 2 * (values.size - 1)
            df += values.size - 1
        inverse_m += 1.0 / max(values.size, 1)
    if df == 0:
        return 0.0
    return weighted / df * inverse_m / len(forks_ns)


def relative_half_width(forks_ns: Sequence[Sequence[float]], confidence: float) -> float:
    """``exp(t_{n−1} · s / √n) − 1`` of the log fork means, ``s² = max(s_between², CV_within²/m)`` (n >= 2 forks).

    See the module docstring for the floor ``CV_within²/m``; 0 for identical
    forks of identical iterations.
    """
    means = np.log([np.mean(f) for f in forks_ns])
    n = means.size
    if n < 2:
        raise ValueError("a half-width needs at least 2 forks")
    variance = max(float(np.var(means, ddof=1)), within_fork_variance(forks_ns))
    return math.expm1(_t_quantile(confidence, n - 1) * math.sqrt(variance / n))


class PrecisionCriterion:
    name = "precision"

    def __init__(self, tolerance: float = 0.02, confidence: float = 0.95):
        if not tolerance > 0:
            raise ValueError(f"tolerance must be > 0, got {tolerance}")
        self.tolerance = tolerance
        self.confidence = confidence

    def warmup(self, values: Sequence[float]) -> None:
        return None

    def measurement(self, warmup: Sequence[float], measurement: Sequence[float]) -> None:
        return None

    def forks(self, forks_ns: Sequence[Sequence[float]]) -> CheckState:
        n = len(forks_ns)
        if n < 2:
            return CheckState(self.name, None, {}, "needs 2 forks")
        width = relative_half_width(forks_ns, self.confidence)
        stable = width <= self.tolerance
        return CheckState(self.name, stable, {"precision": width},
                          f"half-width ±{width:.2%} {'<=' if stable else '>'} ±{self.tolerance:.2%} "
                          f"({self.confidence:.0%} interval of the mean of {n} forks)")

    def learn(self, fork: int, warmup: Sequence[float], measurement: Sequence[float]) -> None:
        return None

    def warmup_floor(self, fork: int, warmup_max: int) -> tuple[int, str]:
        return 0, ""
