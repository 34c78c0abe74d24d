"""The ``level`` criterion: warmup is over only when the level has stopped moving (docs/dynamic.md).

The study's criteria (CV, RCIW, KLD) ask whether a *spread* has stopped
changing; a steadily drifting or wandering series can satisfy them at the
first checkpoint (issue 13).  ``level`` asks of the warmup iterations the
question that matters for the measurement: is the level flat?

* **Scout fork** (``scout = true``): fork 1 runs the whole warmup bound; the
  earliest point after which its series is level (and which leaves at least
  half of it) becomes the other forks' warmup minimum.  This is the only way
  to see a step that comes after a flat stretch — no online check can.  On
  these 30–60 values "level" means: KPSS does not reject level stationarity
  and Mann-Kendall sees no trend, both with the variance an AR(1) with the
  stretch's own φ (estimated from differences) gives (both p > α).  Both tolerate a steady level
  with serially correlated noise — what real JMH iterations show — and
  reject a drift, a step or a random walk.  The scout also *learns* φ of the
  settled stretch (capped at ``PHI_MAX``): the noise's memory, which the
  online checks then expect.
* **Warmup checkpoint** (each warmup iteration, from ``2 × window``): the last
  ``window`` iterations and the ``window`` before them, on the log scale,
  show neither a monotone trend (Mann-Kendall) nor serial dependence (rank
  von Neumann, which sees a random walk, a drift or a step between the two
  halves) beyond what an AR(1) with the learned φ shows (φ = 0 — independent
  noise — until a scout has learned otherwise); level iff both p-values
  exceed α (the criterion's threshold).  A larger α is stricter: it demands
  stronger absence of pattern.
* **Measurement checkpoint** (after a fork's measurement iterations): the
  same tests over the second half of the warmup plus the measurement — a
  longer stretch, so more power.  If the level moved, the measurement was
  taken too early: the runner relabels it as warmup and measures again
  (within ``warmup.max``).
* **Fork checkpoint**: the fork means show no trend (Mann-Kendall on the log
  fork means at α = 0.05, from 4 forks — fewer cannot show one; forks are
  separate processes, so independent).

Tests: :mod:`benchwarden.stats.trend`.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from benchwarden.runner.criteria.base import CheckState
from benchwarden.stats.trend import (
    ar1_from_differences,
    kpss_level,
    lag1_autocorrelation,
    mann_kendall,
    mann_kendall_ar1,
    rank_von_neumann_ar1,
)

FORK_TREND_ALPHA = 0.05
"""Significance of the fork-mean trend test (few forks: a perfectly monotone 4 forks has p = 0.04)."""
FORK_TREND_MIN = 4
MIN_SEGMENT = 4
"""Fewest values the two tests judge (the rank von Neumann ratio needs four)."""
PHI_STEP = 0.05
"""The learned φ is rounded to this grid (up to a step less memory than measured): nulls are cached per grid point."""
PHI_MAX = 0.8
"""The most memory a steady level may show: a φ above it is not told apart from a random walk on 30–60 values."""
SCOUT_ALPHA = 0.2
"""The scout's tests demand p > max(α, this): its search over start points gives a wandering level many chances
to pass one of them (simulation, docs/dynamic.md: at 0.1, 25 % of random-walk forks were declared stable; at 0.2, 16 %)."""


class LevelCriterion:
    """See the module docstring.  One instance per benchmark (the scout's finding is kept)."""

    name = "level"

    def __init__(self, alpha: float = 0.2, window: int = 5, scout: bool = False):
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {alpha}")
        if window < 2:
            raise ValueError(f"window must be >= 2, got {window}")
        self.alpha = alpha
        self.window = window
        self.scout = scout
        self.learned: int | None = None  # the scout's warmup end; None: not learned or never settled
        self.phi = 0.0  # the AR(1) coefficient the scout learned (0: independent noise)
        self.scouted = False
        self.too_short = False  # the scout's series was too short to judge: it makes no claim

    def judge(self, values: Sequence[float] | np.ndarray, what: str) -> CheckState:
        """Both online tests on ``values`` (ns/op, in order), against an AR(1) null with the learned φ."""
        logs = np.log(np.asarray(values, dtype=float))
        trend = mann_kendall_ar1(logs, self.phi)
        trend_p, serial = trend.p_value, rank_von_neumann_ar1(logs, self.phi)
        stable = trend_p > self.alpha and serial > self.alpha
        values_ = {"level.trend_p": trend_p, "level.serial_p": serial, "level.slope": trend.slope}
        op = ">" if stable else "not both >"
        memory = f", φ {self.phi:g}" if self.phi > 0.0 else ""
        return CheckState(self.name, stable, values_,
                          f"{what} of {logs.size}{memory}: trend p {trend_p:.3g}, serial p {serial:.3g} "
                          f"({op} {self.alpha:g})")

    def judge_long(self, values: Sequence[float] | np.ndarray, what: str, phi: float,
                   alpha: float | None = None) -> CheckState:
        """Three tests on a long stretch, for an AR(1) with ``phi``: trend, serial dependence, level stationarity (KPSS)."""
        alpha = self.alpha if alpha is None else alpha
        logs = np.log(np.asarray(values, dtype=float))
        trend = mann_kendall_ar1(logs, phi)
        serial = rank_von_neumann_ar1(logs, phi)
        stationarity = kpss_level(logs, phi=phi)
        stable = min(trend.p_value, serial, stationarity.p_value) > alpha
        values_ = {"level.trend_p": trend.p_value, "level.serial_p": serial, "level.kpss_p": stationarity.p_value,
                   "level.phi": phi}
        op = ">" if stable else "not all >"
        return CheckState(self.name, stable, values_,
                          f"{what} of {logs.size}, φ {phi:.2f}: trend p {trend.p_value:.3g}, serial p {serial:.3g}, "
                          f"KPSS p {stationarity.p_value:.3g} ({op} {alpha:g})")

    @staticmethod
    def memory(logs: np.ndarray) -> float:
        """φ of a stretch: the smaller of two estimates, in [0, ``PHI_MAX``].

        The lag-1 autocorrelation is precise on a steady stretch but inflated
        by a walk, a step or a drift; the estimate from the differences' ranks
        is untouched by those but noisy (s.d. 0.25 on 30 values).  A φ too
        large hides a moving level, so each estimate guards the other's failure.
        """
        return float(np.clip(min(ar1_from_differences(logs), lag1_autocorrelation(logs)), 0.0, PHI_MAX))

    @classmethod
    def learned_memory(cls, logs: np.ndarray) -> float:
        """:meth:`memory` floored to the ``PHI_STEP`` grid: the φ a scout hands on (nulls are cached per grid point)."""
        return math.floor(cls.memory(logs) / PHI_STEP + 1e-9) * PHI_STEP

    def warmup(self, values: Sequence[float]) -> CheckState:
        need = 2 * self.window
        if len(values) < need:
            return CheckState(self.name, None, {}, f"window {len(values)} of {need} iterations")
        return self.judge(list(values)[-need:], "last iterations")

    def measurement(self, warmup: Sequence[float], measurement: Sequence[float]) -> CheckState | None:
        start = max(0, min(len(warmup) - 2 * self.window, len(warmup) // 2))
        segment = [*list(warmup)[start:], *measurement]
        if len(segment) < max(2 * self.window, MIN_SEGMENT):  # too short to judge (e.g. no warmup and 2 iterations)
            return None
        return self.judge_long(segment, "warmup tail and measurement", self.phi)

    def forks(self, forks_ns: Sequence[Sequence[float]]) -> CheckState:
        if len(forks_ns) < FORK_TREND_MIN:
            return CheckState(self.name, True, {}, f"{len(forks_ns)} forks: too few for a fork trend test")
        means = np.log([np.mean(f) for f in forks_ns])
        trend = mann_kendall(means)
        stable = trend.p_value > FORK_TREND_ALPHA
        return CheckState(self.name, stable, {"level.fork_trend_p": trend.p_value},
                          f"fork means trend p {trend.p_value:.3g} ({'>' if stable else '<='} {FORK_TREND_ALPHA:g})")

    def learn(self, fork: int, warmup: Sequence[float], measurement: Sequence[float]) -> bool | None:
        """The scout fork: where did it settle?  False if it never did (None: nothing learned)."""
        if not self.scout or fork != 1 or self.scouted:
            return None
        self.scouted = True
        series = [*warmup, *measurement]
        if len(series) < 2 * self.window:  # shorter than one online check's stretch: nothing to learn, no claim
            self.too_short = True
            return None
        # the memory is estimated once, on the scout's second half — the stretch most likely settled — not on each
        # candidate stretch: a warmup curve or a step inside a stretch would pass itself off as memory there
        half = np.log(np.asarray(series[len(series) // 2:], dtype=float))
        phi = self.learned_memory(half) if half.size >= MIN_SEGMENT else 0.0
        alpha = max(self.alpha, SCOUT_ALPHA)
        self.learned = settled_from(series, len(warmup), lambda values, what: self.judge_long(values, what, phi, alpha),
                                    shortest=2 * self.window)
        if self.learned is None:
            return False
        self.phi = phi
        return True

    def warmup_floor(self, fork: int, warmup_max: int) -> tuple[int, str]:
        if not self.scout:
            return 0, ""
        if fork == 1:
            return warmup_max, "scout"
        if self.too_short:
            return 0, ""
        if self.learned is None:
            return warmup_max, "scout-unsettled"
        return min(self.learned, warmup_max), "learned-minimum"


def settled_from(series: Sequence[float], warmup: int, judge, shortest: int = MIN_SEGMENT) -> int | None:
    """The earliest ``e <= min(warmup, len/2)`` after which ``series[e:]`` (at least ``shortest`` long) is level, or None."""
    for e in range(0, min(warmup, len(series) // 2) + 1):
        if len(series) - e >= max(shortest, MIN_SEGMENT) and judge(series[e:], "scout fork").stable:
            return e
    return None
