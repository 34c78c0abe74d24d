"""Relative confidence-interval width (RCIW) criterion: variance type, Laaber et al. FSE 2020 §4 criterion 2.

seed-002 §3.8: the width of a 99 % bootstrap interval of the mean divided by
the mean, from 1,000 hierarchical resamples (forks, then iterations).  The
reference implementation shelled out to the ``pa`` tool at every checkpoint
(up to 11 % overhead); here it is :func:`benchwarden.stats.rciw`, in process.
"""

from __future__ import annotations

import numpy as np

from benchwarden import stats
from benchwarden.runner.criteria.base import Snapshot, StabilityKind

RCIW_SEED = 0
"""Every snapshot is resampled with the same seed (common random numbers): successive values then differ by the
data added, not by fresh Monte-Carlo noise, and a replay reproduces a live run's values exactly."""


class RciwCriterion:
    """RCIW of the snapshot's mean: percentile interval at ``confidence`` from ``resamples`` hierarchical resamples.

    A warmup snapshot is one fork, so the bootstrap resamples its iterations;
    a fork snapshot resamples forks, then iterations.  Undefined (None) with
    fewer than two values in total.
    """

    name = "rciw"
    kind = StabilityKind.VARIANCE

    def __init__(self, confidence: float = 0.99, resamples: int = 1000):
        self.confidence = confidence
        self.resamples = resamples

    def value(self, previous: Snapshot | None, current: Snapshot) -> float | None:
        forks = [np.asarray(f, dtype=float) for f in current]
        if sum(f.size for f in forks) < 2:
            return None
        return stats.rciw(forks, confidence=self.confidence, n_resamples=self.resamples, seed=RCIW_SEED)
