"""Two-sample significance tests: Mann-Whitney U and Welch's t, on fork means or on all iterations.

Both delegate the arithmetic to ``scipy.stats`` and add the choice of the
*unit of analysis*:

``on="fork-means"`` (default)
    One value per fork (the fork's mean), as Peass does (Reichelt et al.,
    digest seed-001 §2.4: sample size = number of VMs).  Forks are the
    independent units; iterations inside a fork share the fork's state
    (JIT decisions, memory layout), so treating them as independent
    overstates the evidence (Horký §2.5.3; Kalibera & Jones 2013).
``on="all"``
    Every iteration of every fork pooled (Horký's quick interpretation,
    §2.5.2; benchstat).  With per-fork offsets its false-positive rate in an
    A/A comparison is far above α — measured in docs/statistics.md — so
    results carry a warning when either side has more than one fork.

``alternative`` is stated for the first sample relative to the second:
``"less"`` tests whether ``a`` tends to be smaller than ``b``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import stats

from benchwarden.stats.forks import ForkData, as_forks
from benchwarden.stats.results import TestResult

ALTERNATIVES = ("two-sided", "less", "greater")
UNITS = ("fork-means", "all")


def analysis_values(data: ForkData, on: str, name: str) -> tuple[np.ndarray, int]:
    """The values a test runs on (fork means or all iterations) and the number of forks."""
    if on not in UNITS:
        raise ValueError(f"on must be one of {', '.join(UNITS)}; got {on!r}")
    forks = as_forks(data, name)
    if on == "fork-means":
        return np.array([fork.mean() for fork in forks]), len(forks)
    return np.concatenate(forks), len(forks)


def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {', '.join(ALTERNATIVES)}; got {alternative!r}")


def _pooling_warning(on: str, forks_a: int, forks_b: int) -> list[str]:
    if on == "all" and max(forks_a, forks_b) > 1:
        return ["iterations of one fork are not independent: p-values on all iterations overstate significance"]
    return []


def _scipy_notes(caught: list[warnings.WarningMessage]) -> list[str]:
    """scipy's runtime warnings (e.g. precision loss on nearly identical data) become result warnings."""
    return [f"scipy: {record.message}" for record in caught]


def mann_whitney(
    a: ForkData, b: ForkData, alternative: str = "two-sided", on: str = "fork-means"
) -> TestResult:
    """Mann-Whitney U (Wilcoxon rank-sum) test via ``scipy.stats.mannwhitneyu`` (``method="auto"``).

    ``statistic`` is U of ``a``: the number of pairs (a_i, b_j) with
    a_i > b_j plus half the ties (Mann & Whitney 1947).  scipy uses the exact
    null distribution for small samples without ties, else the normal
    approximation with tie and continuity corrections.

    Small samples: the smallest attainable exact two-sided p-value is
    ``2 / C(n_a + n_b, n_a)`` (e.g. 0.33 for 2 vs 2 forks, 0.0079 for 5 vs
    5); when it exceeds 0.01 a warning says so.  Degenerate input (all values
    equal) gives ``p_value = 1.0`` with a warning.
    """
    _check_alternative(alternative)
    x, forks_a = analysis_values(a, on, "a")
    y, forks_b = analysis_values(b, on, "b")
    notes = _pooling_warning(on, forks_a, forks_b)
    smallest = _smallest_exact_p(x.size, y.size, alternative)
    if smallest > 0.01:
        notes.append(f"with {x.size} vs {y.size} values the smallest attainable p-value is {smallest:.3g}")
    if np.ptp(np.concatenate([x, y])) == 0:
        u_statistic = 0.5 * x.size * y.size
        notes.append("all values are equal: no evidence of a difference")
        return TestResult("mann-whitney", u_statistic, 1.0, alternative, on, x.size, y.size, None, tuple(notes))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = stats.mannwhitneyu(x, y, alternative=alternative, method="auto")
    notes += _scipy_notes(caught)
    return TestResult(
        "mann-whitney", float(result.statistic), float(result.pvalue), alternative, on, x.size, y.size, None,
        tuple(notes),
    )


def _smallest_exact_p(n_a: int, n_b: int, alternative: str) -> float:
    arrangements = math.comb(n_a + n_b, n_a)
    return min(1.0, (2.0 if alternative == "two-sided" else 1.0) / arrangements)


def welch(a: ForkData, b: ForkData, alternative: str = "two-sided", on: str = "fork-means") -> TestResult:
    """Welch's unequal-variance t-test via ``scipy.stats.ttest_ind(equal_var=False)``.

    ``t = (ā − b̄) / sqrt(s_a²/n_a + s_b²/n_b)`` with Welch-Satterthwaite
    ``ν = (s_a²/n_a + s_b²/n_b)² / (s_a⁴/(n_a²(n_a−1)) + s_b⁴/(n_b²(n_b−1)))``
    (Welch 1947; Horký thesis appendix, digest seed-000 §2.5.2).  Horký's
    relation "a ≤ b holds" is ``welch(a, b, "greater").p_value >= α``.

    Degenerate input degrades to "no evidence": fewer than 2 values on a
    side, or zero variance on both sides, gives ``statistic = nan``,
    ``p_value = 1.0`` and a warning.
    """
    _check_alternative(alternative)
    x, forks_a = analysis_values(a, on, "a")
    y, forks_b = analysis_values(b, on, "b")
    notes = _pooling_warning(on, forks_a, forks_b)
    if min(x.size, y.size) < 2:
        notes.append(f"Welch's t needs at least 2 values per sample (got {x.size} and {y.size}): no evidence")
        return TestResult("welch", math.nan, 1.0, alternative, on, x.size, y.size, None, tuple(notes))
    if np.ptp(x) == 0 and np.ptp(y) == 0:
        notes.append("both samples have zero variance: Welch's t is undefined; no evidence")
        return TestResult("welch", math.nan, 1.0, alternative, on, x.size, y.size, None, tuple(notes))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = stats.ttest_ind(x, y, equal_var=False, alternative=alternative)
    notes += _scipy_notes(caught)
    return TestResult(
        "welch", float(result.statistic), float(result.pvalue), alternative, on, x.size, y.size, float(result.df),
        tuple(notes),
    )
