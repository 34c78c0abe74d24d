"""The ``precision`` criterion: stop adding forks once more forks would not move the mean beyond a tolerance.

After each fork: the *t* interval of the mean of the log fork means,
``mean ± t_{n−1, (1+c)/2} · s / √n`` (the fork is the independent unit, as in
the verdict's interval, docs/statistics.md), and its relative half-width
``exp(half-width) − 1``.  Stable iff that is at most the tolerance (the
threshold, default 2 % at c = 95 %).  It scales with the benchmark's own
noise: forks that agree stop at ``forks.min``; forks that differ run until
the interval is narrow enough or ``forks.max``.  With two forks the *t*
quantile is 12.7, so stopping at two needs fork means within ~0.3 % of each
other — "quiet by luck" costs little.  Nothing to say about warmup.
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


def relative_half_width(forks_ns: Sequence[Sequence[float]], confidence: float) -> float:
    """``exp(t · s / √n) − 1`` of the log fork means (n >= 2 forks); 0 for identical fork means."""
    means = np.log([np.mean(f) for f in forks_ns])
    n = means.size
    if n < 2:
        raise ValueError("a half-width needs at least 2 forks")
    sd = float(np.std(means, ddof=1))
    return math.expm1(_t_quantile(confidence, n - 1) * sd / math.sqrt(n))


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
