"""Stability measures: CV, relative MAD, maxSpread across runs, and the KLD similarity probability.

All are scale-free (invariant under multiplying the data by a positive
constant) and need a positive location; they raise ``ValueError`` otherwise.
Fork-structured input is pooled (all iterations of all forks), which is how
Laaber et al. (FSE 2020, §3.7) compute CV over the union of measurements.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchwarden.stats.forks import ForkData, as_sample

KLD_POINTS = 1000
KLD_FENCE_FACTOR = 1.5
KDE_TRUNCATION = 5.0
"""Smile's KernelDensity sums only kernels within ±5 bandwidths of the point (exact zeros beyond)."""


def cv(data: ForkData, ddof: int = 1) -> float:
    """Coefficient of variation ``s / x̄`` of all values (``ddof=1``: sample standard deviation).

    Laaber et al. FSE 2020 §3.7 (criterion 1).  Constant data gives 0.0.
    Raises ``ValueError`` for fewer than ``ddof + 1`` values or a
    non-positive mean.
    """
    values = as_sample(data, "data")
    if values.size <= ddof:
        raise ValueError(f"data: CV needs more than {ddof} values, got {values.size}")
    mean = values.mean()
    if not mean > 0:
        raise ValueError(f"data: mean is {mean!r}; CV needs a positive mean")
    return float(values.std(ddof=ddof) / mean)


def relative_mad(data: ForkData, scale: float = 1.0) -> float:
    """Relative median absolute deviation ``scale · median(|x − m|) / m`` with ``m = median(x)``.

    A robust CV (Hampel 1974).  ``scale=1`` (default) is the raw MAD;
    ``scale=1.4826`` makes it consistent with the standard deviation for
    normal data.  Raises ``ValueError`` for a non-positive median.
    """
    values = as_sample(data, "data")
    median = np.median(values)
    if not median > 0:
        raise ValueError(f"data: median is {median!r}; relative MAD needs a positive median")
    return float(scale * np.median(np.abs(values - median)) / median)


def max_spread(run_means: Sequence[float] | np.ndarray) -> float:
    """maxSpread = max over run pairs of ``|M̄_r1 − M̄_r2| / M̄`` = ``(max − min) / mean`` of the run means.

    Laaber & Leitner (MSR 2018, Eq. 1; digest seed-003 §2.1): variability
    *between* identical runs, a lower bound on the detectable change.  M̄ is
    the mean of the run means.  Raises ``ValueError`` for fewer than 2 runs,
    non-finite values or a non-positive mean.
    """
    means = as_sample(run_means, "run_means")
    if means.size < 2:
        raise ValueError(f"run_means: maxSpread needs at least 2 runs, got {means.size}")
    overall = means.mean()
    if not overall > 0:
        raise ValueError(f"run_means: mean is {overall!r}; maxSpread needs a positive mean")
    return float(np.ptp(means) / overall)


# --- KLD similarity ------------------------------------------------------------------------------


def _fences(values: np.ndarray) -> tuple[float, float]:
    """Quartile fences ``[max(0, Q1 − 1.5·IQR), Q3 + 1.5·IQR]``.

    Quartiles as commons-math ``DescriptiveStatistics.getPercentile``
    (default estimation: position p·(n+1), Hyndman & Fan type 6, which numpy
    calls ``"weibull"``), as in the reference code.
    """
    q1, q3 = np.percentile(values, [25.0, 75.0], method="weibull")
    iqr = q3 - q1
    return max(0.0, q1 - KLD_FENCE_FACTOR * iqr), q3 + KLD_FENCE_FACTOR * iqr


def kde_bandwidth(values: np.ndarray) -> float:
    """Smile 1.5 ``KernelDensity`` rule of thumb: ``1.06 · min(s, IQR/1.34) · n^(−1/5)``.

    ``s`` is the sample standard deviation (n−1) and the IQR is taken as
    Smile does, ``x[⌊3n/4⌋] − x[⌊n/4⌋]`` of the sorted sample.  Where that is 0
    (more than half the values tied) Smile would fail; we fall back to
    ``1.06 · s · n^(−1/5)``, and return 0 for a constant sample.
    """
    ordered = np.sort(values)
    n = ordered.size
    sd = float(ordered.std(ddof=1)) if n > 1 else 0.0
    iqr = float(ordered[(n * 3) // 4] - ordered[n // 4])
    spread = min(sd, iqr / 1.34) if iqr > 0 else sd
    return 1.06 * spread / n**0.2


def _kde(values: np.ndarray, grid: np.ndarray, bandwidth: float) -> np.ndarray:
    """Gaussian KDE at the grid points, kernels truncated at ±5 bandwidths as in Smile.

    A zero bandwidth (constant sample) is replaced by the grid step, so a
    point mass becomes a narrow bump instead of an undefined density.
    """
    density = np.zeros(grid.size)
    chunk = max(1, (1 << 16) // grid.size)
    for start in range(0, values.size, chunk):
        z = (grid[:, None] - values[None, start : start + chunk]) / bandwidth
        kernel = np.exp(-0.5 * z * z)
        # A grid point exactly 5 bandwidths from a value is common with lattice data (integers): the slack
        # keeps such points on the same side of the cut whatever the last-ulp rounding, so scaling the data
        # cannot flip a density between 0 and exp(-12.5) (which changes KL by ~1%).
        kernel[np.abs(z) >= KDE_TRUNCATION * (1 + 1e-9)] = 0.0
        density += kernel.sum(axis=1)
    return density / (values.size * bandwidth * np.sqrt(2.0 * np.pi))


def _kl(p: np.ndarray, q: np.ndarray, step: float) -> float:
    """``Σ p·ln(p/q)·Δ`` over points where both densities are non-zero; +inf if there are none."""
    both = (p > 0) & (q > 0)
    if not both.any():
        return float("inf")
    return float(np.sum(p[both] * np.log(p[both] / q[both])) * step)


def kld_similarity(p_sample: ForkData, q_sample: ForkData, n_points: int = KLD_POINTS) -> float:
    """Probability that two samples come from similar distributions (He et al. FSE 2019, via Laaber et al. 2020).

    Follows the reference implementation (sealuzh/jmh ``Divergence.java``,
    digest seed-002 §3.9 [C]) step by step:

    1. range = union of both samples' quartile fences ``[max(0, Q1 − 1.5·IQR),
       Q3 + 1.5·IQR]``; if it is a single point (relative width ≤ 1e-12: values
       a few ulps apart carry no distributional information), return 1.0;
    2. ``n_points`` equally spaced grid points on it (step Δ);
    3. Gaussian KDE of each *whole* sample (the fences only bound the grid),
       bandwidth :func:`kde_bandwidth`, kernels truncated at ±5 bandwidths;
    4. ``KL(P‖Q) = Σ p·ln(p/q)·Δ`` over grid points where both densities are
       non-zero (+inf if none);
    5. ``p = 2^(−KL(P‖Q)) · 2^(−KL(Q‖P))`` (natural log inside, base 2 outside).

    Returns a float in [0, 1]; symmetric in its arguments.  Our only
    extension: where Smile's bandwidth is 0 we use the fallbacks of
    :func:`kde_bandwidth`/:func:`_kde` instead of failing.
    """
    if int(n_points) != n_points or n_points < 2:
        raise ValueError(f"n_points must be an integer >= 2, got {n_points!r}")
    p_values = as_sample(p_sample, "p_sample")
    q_values = as_sample(q_sample, "q_sample")
    p_low, p_high = _fences(p_values)
    q_low, q_high = _fences(q_values)
    low, high = min(p_low, q_low), max(p_high, q_high)
    if high - low <= 1e-12 * max(abs(low), abs(high)):  # a single point, up to floating-point precision
        return 1.0
    grid = np.linspace(low, high, int(n_points))
    step = (high - low) / (n_points - 1)
    p_density = _kde(p_values, grid, kde_bandwidth(p_values) or step)
    q_density = _kde(q_values, grid, kde_bandwidth(q_values) or step)
    return float(2.0 ** -_kl(p_density, q_density, step) * 2.0 ** -_kl(q_density, p_density, step))
