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
* :func:`kpss_level` — Kwiatkowski, Phillips, Schmidt & Shin (1992), "Testing
  the null hypothesis of stationarity against the alternative of a unit
  root", J. Econometrics 54:159–178: the null is a *level-stationary* series,
  autocorrelation allowed (the long-run variance is the Newey–West estimate
  with Bartlett weights), the alternative a wandering level (random walk) —
  a step or a drift makes it reject as well.  Statistic
  ``η = Σ S_t² / (n² σ̂²_LR)`` with ``S_t`` the partial sums of the demeaned
  series; lags ``⌊4 (n/100)^¼⌋`` (Schwert's ``l4``, the paper's own choice),
  or the long-run variance of a given AR(1) model.
  Its limit is the Cramér–von Mises ω² law (the integral of a squared
  Brownian bridge), so the p-value is interpolated in Anderson & Darling's
  (1952) quantiles of it (KPSS's Table 1 is the same law, simulated).  The
  tests compare statistic and p-value with :func:`statsmodels.tsa.stattools.kpss`.
* :func:`mann_kendall_ar1` and :func:`rank_von_neumann_ar1` — the two rank
  tests when the null is not independence but a stationary Gaussian AR(1)
  with coefficient φ (any monotone transform of it: the statistics are
  ranks): benchmark iterations are serially correlated even when their level
  is steady (OpenJDK JMH's jmh-core-benchmarks, quiet: median lag-1 0.56,
  decaying to ~0 by lag 5; docs/dynamic.md), and against independence both
  tests reject such a steady series half the time.  Mann-Kendall's variance
  gets Hamed & Rao's correction; the von Neumann ratio's null is simulated
  (seeded, cached).  :func:`ar1_from_differences` estimates φ in a way that
  a drift or a step cannot pass off as memory, and that a random walk —
  strong serial dependence with little φ — cannot either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
from scipy.signal import lfilter


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


def _mann_kendall_parts(data: np.ndarray) -> tuple[float, float, float, float]:
    """τ-b, S, the tie-corrected null variance of S, and the Theil-Sen slope (data not constant)."""
    n = data.size
    i, j = np.triu_indices(n, 1)
    differences = data[j] - data[i]
    s = float(np.sign(differences).sum())
    _, counts = np.unique(data, return_counts=True)
    ties = counts[counts > 1].astype(float)
    variance = (n * (n - 1) * (2 * n + 5) - float(np.sum(ties * (ties - 1) * (2 * ties + 5)))) / 18.0
    pairs = n * (n - 1) / 2.0
    tau = s / np.sqrt(pairs * (pairs - float(np.sum(ties * (ties - 1) / 2.0))))  # τ-b (positions have no ties)
    slope = float(np.median(differences / (j - i)))
    return float(tau), s, variance, slope


def mann_kendall(values: Sequence[float] | np.ndarray) -> TrendTest:
    """Mann-Kendall test of a monotone trend in ``values`` (in order), two-sided.

    Constant data has no trend: τ = 0, p = 1, slope 0 (scipy would return
    NaN).  Raises ``ValueError`` for fewer than 3 values or non-finite values.
    """
    return mann_kendall_ar1(values, 0.0)


def mann_kendall_ar1(values: Sequence[float] | np.ndarray, phi: float) -> TrendTest:
    """Mann-Kendall test whose null is a stationary AR(1) with coefficient ``phi`` rather than independence.

    Var(S) is multiplied by Hamed & Rao's (1998, J. Hydrology 204:182–196,
    eq. 18) factor ``1 + 2/(n(n−1)(n−2)) Σ_{k=1}^{n−1} (n−k)(n−k−1)(n−k−2) ρ_s(k)``
    with the rank autocorrelations of the model, ``ρ_s(k) = (6/π) arcsin(φ^k / 2)``
    (Spearman's ρ of a bivariate normal with correlation φ^k; Kendall & Stuart)
    instead of Hamed & Rao's sample estimates, which are too noisy on the
    30–60 values the scout has.  ``phi = 0`` is :func:`mann_kendall`.
    Raises ``ValueError`` for |φ| >= 1 and as :func:`mann_kendall`.
    """
    if not -1.0 < phi < 1.0:
        raise ValueError(f"phi must be in (-1, 1), got {phi}")
    data = _values(values, "values", 3)
    n = data.size
    if np.ptp(data) == 0:
        return TrendTest(0.0, 1.0, 0.0, n)
    tau, s, variance, slope = _mann_kendall_parts(data)
    if phi != 0.0:
        k = np.arange(1, n - 2, dtype=float)  # the terms for k >= n − 2 vanish
        rho_s = (6.0 / math.pi) * np.arcsin(phi ** k / 2.0)
        variance *= 1.0 + 2.0 / (n * (n - 1.0) * (n - 2.0)) * float(np.sum((n - k) * (n - k - 1) * (n - k - 2) * rho_s))
    p_value = math.erfc(abs(s) / math.sqrt(2.0 * max(variance, 1e-300)))  # = 2·Φ(−|z|)
    return TrendTest(tau, min(1.0, p_value), slope, n)


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


WINSOR = 3.0
"""With an AR(1) model, :func:`kpss_level` clips values beyond this many robust s.d. from the median (Huber-type
winsorising): heavy-tailed iterations (a GC pause) must not pass for a moving level."""

# Upper-tail quantiles of the Cramér–von Mises ω² limit law (Anderson & Darling 1952, Table 1), the KPSS level
# statistic's limit: (P(ω² > z), z).  scipy's private ``_cdf_cvm_inf`` reproduces them to 5 decimals.
_OMEGA2_TAIL = np.array([(0.5, 0.11888), (0.25, 0.20939), (0.2, 0.24124), (0.15, 0.28406), (0.1, 0.34730),
                         (0.05, 0.46136), (0.025, 0.58061), (0.01, 0.74346), (0.001, 1.16204)])


@dataclass(frozen=True)
class StationarityTest:
    """Result of :func:`kpss_level`: the statistic, its p-value (clipped to [0.001, 0.5]) and the lags used."""

    statistic: float
    p_value: float
    lags: int
    n: int


def kpss_level(values: Sequence[float] | np.ndarray, lags: int | None = None,
               phi: float | None = None) -> StationarityTest:
    """KPSS test of level stationarity (null) against a wandering level; see the module docstring.

    The long-run variance is Newey–West's (Bartlett weights, ``lags``), or,
    given ``phi``, the AR(1) model's ``γ_0 (1 + φ)/(1 − φ)`` ("recoloured";
    Sul, Phillips & Choi 2005) with ``γ_0`` taken from a robust scale of the
    *first differences*, ``Var(Δx) = 2 γ_0 (1 − φ)``, their s.d. estimated as
    1.4826 · MAD.  With the 30–60 values of a scout fork, Bartlett with few
    lags under-estimates the long-run variance of a series with memory (size
    26 % at nominal 10 % for φ = 0.6, n = 50); and a variance of the values
    themselves would include the very step or walk under test (a clean step
    in the middle then never exceeds η ≈ n/12 · (1 − φ)/(1 + φ)).  The
    differences see a step as one outlier, which the MAD ignores.  The
    values are then winsorised at ``WINSOR`` such s.d. around their median,
    so that heavy-tailed outliers do not make the partial sums wander (a
    step keeps ``WINSOR`` s.d. of its height: still far beyond the noise).

    The p-value is interpolated linearly in log p between the tabulated
    quantiles and clipped to [0.001, 0.5] (statsmodels clips to [0.01, 0.1]).
    Constant data is stationary: statistic 0, p = 0.5.  Raises ``ValueError``
    for fewer than 4 or non-finite values, or lags outside [0, n − 1].
    """
    data = _values(values, "values", 4)
    n = data.size
    if lags is None:
        lags = 0 if phi is not None else int(4 * (n / 100.0) ** 0.25)
    if not 0 <= lags < n:
        raise ValueError(f"lags must be in [0, {n - 1}], got {lags}")
    if phi is not None and not -1.0 < phi < 1.0:
        raise ValueError(f"phi must be in (-1, 1), got {phi}")
    if np.ptp(data) == 0:
        return StationarityTest(0.0, 0.5, lags, n)
    if phi is not None:
        differences = np.diff(data)
        scale = 1.4826 * float(np.median(np.abs(differences - np.median(differences))))
        if scale == 0.0:  # more than half the differences equal: fall back to their plain spread
            scale = float(np.std(differences))
        sd = scale / math.sqrt(2.0 * (1.0 - phi))  # the values' own s.d. under the AR(1)
        centre = float(np.median(data))
        data = np.clip(data, centre - WINSOR * sd, centre + WINSOR * sd)
        long_run = sd * sd * (1.0 + phi) / (1.0 - phi)
    x = data - data.mean()
    if phi is None:
        gamma0 = float(x @ x) / n
        long_run = gamma0 + 2.0 * sum((1.0 - k / (lags + 1.0)) * float(x[k:] @ x[:-k]) / n
                                      for k in range(1, lags + 1))
    partial = np.cumsum(x)
    statistic = float(partial @ partial) / (n * n * long_run) if long_run > 0 else math.inf
    tail, quantile = _OMEGA2_TAIL[:, 0], _OMEGA2_TAIL[:, 1]
    p_value = float(np.exp(np.interp(statistic, quantile, np.log(tail))))  # clipped at the table's ends
    return StationarityTest(statistic, p_value, lags, n)


def lag1_autocorrelation(values: Sequence[float] | np.ndarray) -> float:
    """Lag-1 autocorrelation of ``values``, bias-corrected for an AR(1): ``r + (1 + 3r)/n`` (Marriott & Pope 1954).

    ``r = Σ x_t x_{t−1} / Σ x_t²`` on the centred values (Box & Jenkins; the
    same as ``statsmodels.tsa.stattools.acf(x, nlags=1)[1]``); the correction
    removes the O(1/n) downward bias of ``r``.  Clipped to [−1, 1]; constant
    values give 0.  Raises ``ValueError`` for fewer than 4 or non-finite values.
    """
    data = _values(values, "values", 4)
    if np.ptp(data) == 0:
        return 0.0
    x = data - data.mean()
    r = float(x[1:] @ x[:-1]) / float(x @ x)
    return float(np.clip(r + (1.0 + 3.0 * r) / data.size, -1.0, 1.0))


def ar1_from_differences(values: Sequence[float] | np.ndarray) -> float:
    """The AR(1) coefficient φ of ``values`` estimated from the ranks of their first differences.

    For a stationary Gaussian AR(1), ``corr(Δx_t, Δx_{t−1}) = −(1 − φ)/2``
    (from ``γ_k = φ^k γ_0``), so ``φ = 1 + 2 ρ_Δ``.  ``ρ_Δ`` is estimated
    robustly: the lag-1 autocorrelation ``r_s`` of the *ranks* of the
    differences, mapped to a Pearson correlation by ``2 sin(π r_s / 6)``
    (the bivariate normal relation; Kendall & Stuart).  Differences are
    untouched by a linear drift, and ranks keep the one large difference a
    step makes from dominating (with raw differences a step alone pushes φ̂
    to 1); a random walk with noise does not pass for strong memory.  Clipped
    to [−1, 1]; constant values give 0.  Raises ``ValueError`` for fewer
    than 4 or non-finite values.
    """
    data = _values(values, "values", 4)
    ranks = _average_ranks(np.diff(data))
    centred = ranks - ranks.mean()
    denominator = float(centred @ centred)
    if denominator == 0.0:
        return 0.0
    r_s = float(centred[1:] @ centred[:-1]) / denominator
    return float(np.clip(1.0 + 4.0 * math.sin(math.pi * r_s / 6.0), -1.0, 1.0))


def _rank_ratio(ranks: np.ndarray) -> np.ndarray:
    """The rank von Neumann ratio ``Σ (R_{i+1} − R_i)² / Σ (R_i − R̄)²`` along the last axis."""
    centred = ranks - ranks.mean(axis=-1, keepdims=True)
    return (np.diff(ranks, axis=-1) ** 2).sum(axis=-1) / (centred ** 2).sum(axis=-1)


@lru_cache(maxsize=1024)
def _rank_von_neumann_null(n: int, phi: float, replicates: int, seed: int) -> np.ndarray:
    """Sorted rank von Neumann ratios of ``replicates`` simulated stationary Gaussian AR(1) series of length ``n``."""
    rng = np.random.default_rng(seed)
    shocks = rng.standard_normal((replicates, n))
    shocks[:, 0] /= math.sqrt(1.0 - phi * phi)  # stationary start: x_1 ~ N(0, 1/(1 − φ²))
    series = lfilter([1.0], [1.0, -phi], shocks, axis=1)
    ratios = _rank_ratio(series.argsort(axis=1).argsort(axis=1).astype(float))  # continuous: no ties
    ratios.sort()
    ratios.flags.writeable = False
    return ratios


def rank_von_neumann_ar1(values: Sequence[float] | np.ndarray, phi: float, replicates: int = 2000,
                         seed: int = 0) -> float:
    """:func:`rank_von_neumann` whose null is a stationary AR(1) with coefficient ``phi`` rather than independence.

    One-sided p-value ``(1 + #{simulated ratio <= observed}) / (1 + replicates)``
    (Davison & Hinkley 1997, eq. 4.11): the null distribution is simulated
    once per (n, φ, replicates, seed) — ``x_t = φ x_{t−1} + e_t`` with a
    stationary start, ``numpy.random.default_rng(seed)``, vectorised — and
    cached, a parametric bootstrap of the AR(1) model (Bühlmann 1997's
    sieve with one lag).  The ratio depends on ranks only, so the null holds
    for any monotone transform of a Gaussian AR(1).  ``phi = 0`` is Bartels'
    normal approximation (:func:`rank_von_neumann`).  Raises ``ValueError``
    for |φ| >= 1, fewer than 100 replicates, and as :func:`rank_von_neumann`.
    """
    if not -1.0 < phi < 1.0:
        raise ValueError(f"phi must be in (-1, 1), got {phi}")
    if replicates < 100:
        raise ValueError(f"replicates must be >= 100, got {replicates}")
    if phi == 0.0:
        return rank_von_neumann(values)
    data = _values(values, "values", 4)
    ranks = _average_ranks(data)
    if np.ptp(ranks) == 0:
        return 1.0
    ratio = float(_rank_ratio(ranks))
    null = _rank_von_neumann_null(data.size, float(phi), replicates, seed)
    return (1.0 + float(np.searchsorted(null, ratio * (1 + 1e-12), side="right"))) / (1.0 + replicates)
