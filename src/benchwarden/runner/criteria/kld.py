"""Kullback-Leibler-divergence (KLD) criterion: probability type, Laaber et al. FSE 2020 §4 criterion 3.

After He et al. (FSE 2019) as implemented in the reference code (seed-002
§3.9): the value of snapshot ``x`` is the probability that the pooled values
before and after adding unit ``x`` come from the same distribution
(:func:`benchwarden.stats.kld_similarity`: 1,000 grid points between the
quartile fences, Gaussian kernel densities, ``2^−KL(P‖Q) · 2^−KL(Q‖P)``).
"""

from __future__ import annotations

import numpy as np

from benchwarden import stats
from benchwarden.runner.criteria.base import Snapshot, StabilityKind


class KldCriterion:
    """Similarity probability of snapshot ``x−1`` and snapshot ``x`` (all forks pooled); None for the first snapshot.

    The reference code compared 1,000-value resamples of invocation samples;
    our units are iteration means (at most a few hundred per snapshot), so the
    pooled values are compared as they are — resampling would only add noise.
    The 1.5·IQR fences bound the density grid only, as in the reference code.
    """

    name = "kld"
    kind = StabilityKind.PROBABILITY

    def __init__(self, points: int = 1000):
        self.points = points

    def value(self, previous: Snapshot | None, current: Snapshot) -> float | None:
        if previous is None:
            return None
        before = np.concatenate(list(previous))
        after = np.concatenate(list(current))
        return stats.kld_similarity(before, after, n_points=self.points)
