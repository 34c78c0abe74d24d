"""Effect sizes: Cliff's δ, Vargha-Delaney A, and direction-aware relative change of means or medians.

Rank-based effect sizes answer "how often is one version faster than the
other", independent of scale and robust to outliers; the relative change
answers "by how much".  Both are reported next to a significance test, never
instead of one.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from benchwarden.stats.forks import ForkData, as_forks
from benchwarden.stats.results import RelativeChange
from benchwarden.stats.significance import analysis_values

STATISTICS = ("mean", "median")

CLIFF_THRESHOLDS = ((0.147, "negligible"), (0.33, "small"), (0.474, "medium"))
"""|δ| bounds of Romano et al. (2006, "Appropriate statistics for ordinal level data"); above: "large"."""


def _u_statistic(x: np.ndarray, y: np.ndarray) -> float:
    """U of ``x``: #{x_i > y_j} + ½·#{x_i = y_j}, from mid-ranks of the pooled sample (O(n log n))."""
    ranks = stats.rankdata(np.concatenate([x, y]))
    return float(ranks[: x.size].sum() - x.size * (x.size + 1) / 2)


def vargha_delaney_a(a: ForkData, b: ForkData, on: str = "all") -> float:
    """Vargha-Delaney A = P(a > b) + ½·P(a = b), in [0, 1]; 0.5 means no tendency.

    Formula: ``A = U_a / (n_a·n_b)`` (Vargha & Delaney 2000, Eq. 3).
    ``on`` selects all iterations (default) or fork means.  Any non-empty
    input has a defined value (one value per side gives 0, ½ or 1).
    """
    x, _ = analysis_values(a, on, "a")
    y, _ = analysis_values(b, on, "b")
    return _u_statistic(x, y) / (x.size * y.size)


def cliffs_delta(a: ForkData, b: ForkData, on: str = "all") -> float:
    """Cliff's δ = P(a > b) − P(a < b), in [−1, 1]; positive when ``a`` tends to be larger.

    Formula: ``δ = 2A − 1 = 2·U_a/(n_a·n_b) − 1`` (Cliff 1993).  For times,
    δ(candidate, base) > 0 means the candidate tends to be slower.
    """
    return 2.0 * vargha_delaney_a(a, b, on) - 1.0


def cliffs_delta_magnitude(delta: float) -> str:
    """"negligible" | "small" | "medium" | "large" for |δ| (thresholds :data:`CLIFF_THRESHOLDS`)."""
    size = abs(delta)
    for bound, label in CLIFF_THRESHOLDS:
        if size < bound:
            return label
    return "large"


def _location(data: ForkData, statistic: str, name: str) -> float:
    forks = as_forks(data, name)
    if statistic == "mean":
        return float(np.mean([fork.mean() for fork in forks]))
    return float(np.median(np.concatenate(forks)))


def relative_change(
    base: ForkData, cand: ForkData, statistic: str = "mean", higher_is_better: bool = False
) -> RelativeChange:
    """Relative change of the mean (of fork means) or of the median (of all iterations), base → candidate.

    ``ratio = stat(cand)/stat(base)``, ``relative = ratio − 1``,
    ``improvement = relative`` if higher is better (throughput, ops/s) else
    ``−relative`` (time, ns/op).  Invariant under a common positive scale
    factor.  Raises ``ValueError`` when the base statistic is not positive.
    """
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {', '.join(STATISTICS)}; got {statistic!r}")
    base_value = _location(base, statistic, "base")
    cand_value = _location(cand, statistic, "candidate")
    if not base_value > 0:
        raise ValueError(f"base: {statistic} is {base_value!r}; a relative change needs a positive base")
    ratio = cand_value / base_value
    relative = ratio - 1.0
    notes = () if cand_value > 0 else (f"candidate {statistic} is not positive",)
    return RelativeChange(ratio, relative, relative if higher_is_better else -relative, statistic, higher_is_better, notes)
