"""Coefficient of variation (CV) criterion: variance type, Laaber et al. FSE 2020 §4 criterion 1 (seed-002 §3.7)."""

from __future__ import annotations

import numpy as np

from benchwarden import stats
from benchwarden.runner.criteria.base import Snapshot, StabilityKind


class CvCriterion:
    """CV ``s / x̄`` (sample standard deviation, n−1) of every value in the snapshot, all forks pooled.

    Undefined (None) with fewer than two values.  Cheap: one pass over the
    pooled values.  The window's spread is compared with the threshold
    (study default 0.01: the CV may move by at most one percentage point
    within the window).
    """

    name = "cv"
    kind = StabilityKind.VARIANCE

    def value(self, previous: Snapshot | None, current: Snapshot) -> float | None:
        pooled = np.concatenate(list(current))
        if pooled.size < 2:
            return None
        return stats.cv(pooled)
