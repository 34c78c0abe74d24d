"""Outlier rules returning boolean masks (True = outlier). Available, but off by default for verdicts.

Removing outliers from performance data removes real behaviour (GC pauses,
JIT deoptimisation) as often as measurement glitches; Reichelt et al. found
Z-score removal "does not significantly improve" detection (digest seed-001
§2.4), so callers opt in.  Each function takes a flat 1-D sequence (apply it
per fork, or to fork means) and never modifies its input.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchwarden.stats.forks import as_sample


def outliers_tenfold_median(values: Sequence[float] | np.ndarray, factor: float = 10.0) -> np.ndarray:
    """Mask of values more than ``factor`` × the median, or below median / ``factor``.

    The "order of magnitude" rule of Laaber et al. (FSE 2020, L206; reference
    code ``OUTLIER_FACTOR = 10`` also drops values below median/10).  Needs a
    positive median (ns/op); raises ``ValueError`` otherwise.
    """
    if not factor > 1:
        raise ValueError(f"factor must be > 1, got {factor!r}")
    data = as_sample(values, "values")
    median = np.median(data)
    if not median > 0:
        raise ValueError(f"values: median is {median!r}; the tenfold rule needs a positive median")
    return (data > factor * median) | (data < median / factor)


def outliers_iqr(values: Sequence[float] | np.ndarray, k: float = 1.5) -> np.ndarray:
    """Mask of values outside Tukey's fences ``[Q1 − k·IQR, Q3 + k·IQR]`` (Tukey 1977).

    Quartiles by numpy's default linear interpolation (Hyndman & Fan type 7).
    Constant data has IQR 0 and no outliers; with IQR 0 but some differing
    values, every differing value is flagged.
    """
    if not k >= 0:
        raise ValueError(f"k must be non-negative, got {k!r}")
    data = as_sample(values, "values")
    q1, q3 = np.percentile(data, [25.0, 75.0])
    iqr = q3 - q1
    return (data < q1 - k * iqr) | (data > q3 + k * iqr)


def outliers_zscore(values: Sequence[float] | np.ndarray, threshold: float = 3.29) -> np.ndarray:
    """Mask of values with ``|x − x̄| / s > threshold`` (s: sample standard deviation, ddof=1).

    3.29 is the two-sided 99.9 % normal quantile, the Peass rule (Reichelt et
    al., digest seed-001 §2.4).  Note that with n values no |Z| can exceed
    ``(n−1)/sqrt(n)`` (Shiffler 1988), so the rule cannot fire for n ≤ 12 at
    3.29.  Fewer than 2 values or constant data: no outliers.
    """
    if not threshold > 0:
        raise ValueError(f"threshold must be positive, got {threshold!r}")
    data = as_sample(values, "values")
    if data.size < 2:
        return np.zeros(data.size, dtype=bool)
    sd = data.std(ddof=1)
    if sd == 0:
        return np.zeros(data.size, dtype=bool)
    return np.abs(data - data.mean()) / sd > threshold
