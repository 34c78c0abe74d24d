"""Tests for a level that has not settled: a monotone trend (Mann-Kendall) and serial dependence (rank von Neumann).

Both are rank tests, so they are unaffected by monotone transformations (ns/op
or its logarithm give the same answer) and robust to the heavy right tails of
benchmark timings.  They are what the dynamic stop policy's ``level`` criterion
asks of a warmup window (docs/dynamic.md): a steady state shows neither a
trend nor the serial dependence of a wandering level.

* :func:`mann_kendall` — Mann (1945), Kendall (1975): the statistic
  ``S = Σ_{i<j} sign(x_j − x_i)``, its tie-corrected null variance
  ``[n(n−1)(2n+5) − Σ t(t−1)(2t+5)] / 18`` and the two-sided normal p-value,
  with the Theil-Sen slope (median of the pairwise slopes; Sen 1968) as the
  size of the trend.  This is exactly :func:`scipy.stats.kendalltau` with
  ``method="asymptotic"`` against the positions, and
  :func:`scipy.stats.theilslopes` (the tests compare them); computed here
  with numpy because scipy's call costs ~1.5 ms — a checkpoint runs after
  every warmup iteration and must stay well under 1 % of a 100-ms iteration.
* :func:`rank_von_neumann` — Bartels (1982), "The rank version of von
  Neumann's ratio test for randomness", JASA 77(377):40–46.  The ratio
  ``RVN = Σ (R_i − R_{i+1})² / Σ (R_i − R̄)²`` of the ranks is 2 in
  expectation for exchangeable data and small when neighbours resemble each
  other — a random walk, a drift, a step.  One-sided p-value from Bartels'
  normal approximation, mean 2 and variance
  ``4(n − 2)(5n² − 2n − 9) / (5n(n + 1)(n − 1)²)`` (good from n ≈ 10; the
  R package *randtests* uses the same for n > 100 and a beta approximation
  below, which differs in the third decimal for n = 10).  scipy and
  statsmodels have no rank version; the test is five lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass(frozen=True)
class TrendTest:
    """Result of :func:`mann_kendall`: τ, its two-sided p-value, and the Theil-Sen slope per position."""

    tau: float
    p_value: float
    slope: float
    n: int


def _values(values: Sequence[float] | np.ndarray, name: str, minimum: int) -> np.ndarray:
    data = np.asarray(values, dtype=float)
    if data.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence, got shape {data.shape}")
    if data.size < minimum:
        raise ValueError(f"{name}: needs at least {minimum} values, got {data.size}")
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name}: values must be finite")
    return data


def mann_kendall(values: Sequence[float] | np.ndarray) -> TrendTest:
    """Mann-Kendall test of a monotone trend in ``values`` (in order), two-sided.

    Constant data has no trend: τ = 0, p = 1, slope 0 (scipy would return
    NaN).  Raises ``ValueError`` for fewer than 3 values or non-finite values.
    """
    data = _values(values, "values", 3)
    n = data.size
    if np.ptp(data) == 0:
        return TrendTest(0.0, 1.0, 0.0, n)
    i, j = np.triu_indices(n, 1)
    differences = data[j] - data[i]
    s = float(np.sign(differences).sum())
    _, counts = np.unique(data, return_counts=True)
    ties = counts[counts > 1].astype(float)
    variance = (n * (n - 1) * (2 * n + 5) - float(np.sum(ties * (ties - 1) * (2 * ties + 5)))) / 18.0
    pairs = n * (n - 1) / 2.0
    tau = s / np.sqrt(pairs * (pairs - float(np.sum(ties * (ties - 1) / 2.0))))  # τ-b (positions have no ties)
    p_value = math.erfc(abs(s) / math.sqrt(2.0 * variance))  # = 2·Φ(−|z|)
    slope = float(np.median(differences / (j - i)))
    return TrendTest(float(tau), min(1.0, p_value), slope, n)


def _average_ranks(data: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties averaged (as :func:`scipy.stats.rankdata`, without its per-call overhead)."""
    _, inverse, counts = np.unique(data, return_inverse=True, return_counts=True)
    average = np.cumsum(counts) - (counts - 1) / 2.0
    return average[inverse]


def rank_von_neumann(values: Sequence[float] | np.ndarray) -> float:
    """One-sided p-value of Bartels' rank von Neumann test against positive serial dependence.

    Small when neighbouring values resemble each other more than exchangeable
    data would (trend, random walk, steps).  Ties get average ranks and the
    ratio uses the actual rank spread.  Constant data gives 1.0.  Raises
    ``ValueError`` for fewer than 4 values or non-finite values.
    """
    data = _values(values, "values", 4)
    ranks = _average_ranks(data)
    spread = float(np.sum((ranks - ranks.mean()) ** 2))
    if spread == 0.0:
        return 1.0
    n = data.size
    ratio = float(np.sum(np.diff(ranks) ** 2)) / spread
    variance = 4.0 * (n - 2) * (5 * n * n - 2 * n - 9) / (5.0 * n * (n + 1) * (n - 1) ** 2)
    return 0.5 * math.erfc(-(ratio - 2.0) / math.sqrt(2.0 * variance))  # = Φ(z)
