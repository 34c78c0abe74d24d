"""The dynamic stop policy: end warmup, and stop adding forks, once the chosen stability criteria all agree.

Laaber et al. (FSE 2020, Algorithm 1; digest seed-002 §3): two checkpoints —

* after each warmup iteration of a fork (from ``warmup.min`` on): is this
  fork in a steady state?  Its warmup values only; the state restarts with
  every fork (a fresh process);
* after each fork (from ``forks.min`` on): are the pooled *measurement*
  values of all forks so far stable?  Warmup never counts.

Stop only when **every** chosen criterion is stable (the paper's future-work
combination, §9).  At a bound without stability the phase ends anyway and
the decision carries a warning.  The runner enforces the bounds as well, so
no benchmark exceeds ``forks.max × (warmup.max + iterations)`` iterations.

Each decision records, per criterion, the latest stability value (key =
criterion name) and, once its window is complete, the window statistic
(``"<name>.spread"`` or ``"<name>.mean"``) — the values the threshold was
compared with.  Criteria are computed in the runner process while the
harness keeps running the next iteration; each checkpoint costs one
criterion evaluation per criterion (see :class:`.criteria.base.WindowTrack`).
"""

from __future__ import annotations

import time
from typing import Sequence

from benchwarden.config import DEFAULT_CRITERIA, CriterionSettings
from benchwarden.model import StopDecision
from benchwarden.runner.criteria import WindowState, WindowTrack, make_criterion
from benchwarden.runner.policy import Bounds


class DynamicPolicy:
    """Stop when all ``criteria`` are stable (see the module docstring).  One instance per benchmark.

    ``compute_s`` accumulates the time spent computing criteria (the
    overhead measured by ``benchmarks/dynamic_vs_static.py`` and replay).
    """

    name = "dynamic"

    def __init__(self, criteria: Sequence[CriterionSettings] = DEFAULT_CRITERIA):
        if not criteria:
            raise ValueError("the dynamic policy needs at least one criterion")
        self.criteria = tuple(criteria)
        self._warmup = [WindowTrack(make_criterion(c), c.window, c.threshold, "warmup") for c in self.criteria]
        self._forks = [WindowTrack(make_criterion(c), c.fork_window, c.threshold, "fork") for c in self.criteria]
        self.compute_s = 0.0
        self.checkpoints = 0

    def warmup_decision(self, bounds: Bounds, warmup_ns: Sequence[float]) -> StopDecision:
        """After warmup iteration ``len(warmup_ns)`` of a fork: end warmup if this fork's warmup values are stable."""
        states = self._evaluate(self._warmup, warmup_ns)
        return decide(states, len(warmup_ns), bounds.warmup_min, bounds.warmup_max, "warmup", "iterations")

    def fork_decision(self, bounds: Bounds, forks_ns: Sequence[Sequence[float]]) -> StopDecision:
        """After fork ``len(forks_ns)``: run no more forks if the pooled measurement values are stable."""
        states = self._evaluate(self._forks, forks_ns)
        return decide(states, len(forks_ns), bounds.forks_min, bounds.forks_max, "results", "forks")

    def _evaluate(self, tracks: list[WindowTrack], data) -> list[WindowState]:  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return [track.update(data) for track in tracks]
        finally:
            self.compute_s += time.perf_counter() - start
            self.checkpoints += 1


def decision_values(states: Sequence[WindowState]) -> dict[str, float]:
    """Criterion name -> latest value, and ``name.spread``/``name.mean`` -> window statistic when complete."""
    values: dict[str, float] = {}
    for s in states:
        if s.latest is not None:
            values[s.criterion] = float(s.latest)
        if s.statistic is not None:
            values[f"{s.criterion}.{s.statistic_name}"] = float(s.statistic)
    return values


def decide(states: Sequence[WindowState], done: int, minimum: int, maximum: int, what: str,
           unit: str) -> StopDecision:
    """One checkpoint's decision from the criteria windows (pure).

    ``done`` units (iterations or forks) have run; below ``minimum`` nothing
    is decided; all windows stable -> stop ("stable"); when ``minimum`` equals
    ``maximum`` the count is fixed and the phase ends there ("fixed", no
    warning); otherwise at ``maximum`` the phase ends with reason
    "maximum-reached" and a warning that names the criteria that were not
    stable.
    """
    values = decision_values(states)
    if done < minimum:
        return StopDecision(stop=False, reason="below-minimum", values=values)
    if all(s.stable for s in states):
        return StopDecision(stop=True, reason="stable", values=values)
    if minimum >= maximum and done >= maximum:  # the user fixed the count (e.g. --forks 3): nothing to warn about
        return StopDecision(stop=True, reason="fixed", values=values)
    incomplete = any(s.stable is None for s in states)
    if done >= maximum:
        why = "; ".join(s.describe() for s in states if not s.stable)
        return StopDecision(stop=True, reason="maximum-reached", values=values,
                            warning=f"{what} did not become stable within {maximum} {unit} ({why})")
    return StopDecision(stop=False, reason="window-incomplete" if incomplete else "not-stable", values=values)
