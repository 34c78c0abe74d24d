"""The ``level`` criterion: warmup is over only when the level has stopped moving (docs/dynamic.md).

The study's criteria (CV, RCIW, KLD) ask whether a *spread* has stopped
changing; a steadily drifting or wandering series can satisfy them at the
first checkpoint (issue 13).  ``level`` asks of the warmup iterations the
question that matters for the measurement: is the level flat?

* **Warmup checkpoint** (each warmup iteration, from ``2 × window``): the last
  ``window`` iterations and the ``window`` before them, on the log scale,
  show neither a monotone trend (Mann-Kendall) nor serial dependence (rank
  von Neumann, which sees a random walk, a drift or a step between the two
  halves); level iff both p-values exceed α (the criterion's threshold).
  A larger α is stricter: it demands stronger absence of pattern.
* **Measurement checkpoint** (after a fork's measurement iterations): the
  same tests over the second half of the warmup plus the measurement — a
  longer stretch, so more power.  If the level moved, the measurement was
  taken too early: the runner relabels it as warmup and measures again
  (within ``warmup.max``).
* **Fork checkpoint**: the fork means show no trend (Mann-Kendall on the log
  fork means at α = 0.05, from 4 forks — fewer cannot show one).
* **Scout fork** (``scout = true``): fork 1 runs the whole warmup bound; the
  earliest point after which its series is level (and which leaves at least
  half of it) becomes the other forks' warmup minimum.  This is the only way
  to see a step that comes after a flat stretch — no online check can.

Tests: :func:`benchwarden.stats.trend.mann_kendall`,
:func:`benchwarden.stats.trend.rank_von_neumann`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from benchwarden.runner.criteria.base import CheckState
from benchwarden.stats.trend import mann_kendall, rank_von_neumann

FORK_TREND_ALPHA = 0.05
"""Significance of the fork-mean trend test (few forks: a perfectly monotone 4 forks has p = 0.04)."""
FORK_TREND_MIN = 4
MIN_SEGMENT = 4
"""Fewest values the two tests judge (the rank von Neumann ratio needs four)."""


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
        self.scouted = False

    def judge(self, values: Sequence[float] | np.ndarray, what: str) -> CheckState:
        """Both tests on ``values`` (ns/op, in order)."""
        logs = np.log(np.asarray(values, dtype=float))
        trend = mann_kendall(logs)
        serial = rank_von_neumann(logs)
        stable = trend.p_value > self.alpha and serial > self.alpha
        values_ = {"level.trend_p": trend.p_value, "level.serial_p": serial, "level.slope": trend.slope}
        op = ">" if stable else "not both >"
        return CheckState(self.name, stable, values_,
                          f"{what} of {logs.size}: trend p {trend.p_value:.3g}, serial p {serial:.3g} "
                          f"({op} {self.alpha:g})")

    def warmup(self, values: Sequence[float]) -> CheckState:
        need = 2 * self.window
        if len(values) < need:
            return CheckState(self.name, None, {}, f"window {len(values)} of {need} iterations")
        return self.judge(list(values)[-need:], "last iterations")

    def measurement(self, warmup: Sequence[float], measurement: Sequence[float]) -> CheckState | None:
        start = max(0, min(len(warmup) - 2 * self.window, len(warmup) // 2))
        segment = [*list(warmup)[start:], *measurement]
        if len(segment) < 2 * self.window:  # too short to judge (e.g. no warmup and 2 iterations)
            return None
        return self.judge(segment, "warmup tail and measurement")

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
        self.learned = settled_from([*warmup, *measurement], len(warmup), self.judge)
        return self.learned is not None

    def warmup_floor(self, fork: int, warmup_max: int) -> tuple[int, str]:
        if not self.scout:
            return 0, ""
        if fork == 1:
            return warmup_max, "scout"
        if self.learned is None:
            return warmup_max, "scout-unsettled"
        return min(self.learned, warmup_max), "learned-minimum"


def settled_from(series: Sequence[float], warmup: int, judge) -> int | None:
    """The earliest ``e <= min(warmup, len/2)`` after which ``series[e:]`` is level (``judge``), or None."""
    for e in range(0, min(warmup, len(series) // 2) + 1):
        if len(series) - e >= MIN_SEGMENT and judge(series[e:], "scout fork").stable:
            return e
    return None
