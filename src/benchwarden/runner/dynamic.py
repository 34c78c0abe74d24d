"""The dynamic stop policy: end warmup, and stop adding forks, once the chosen criteria all agree.

Laaber et al. (FSE 2020, Algorithm 1; digest seed-002 §3) decide at two
checkpoints; benchwarden adds a third (docs/dynamic.md):

* after each warmup iteration of a fork (from ``warmup.min`` on): is this
  fork in a steady state?  Its warmup values only; the state restarts with
  every fork (a fresh process);
* after the fork's measurement iterations: does the measurement confirm it?
  If a criterion sees the level move (``level``), the measurement was taken
  too early: the runner relabels it as warmup and measures again, within
  ``warmup.max`` (the study never looked back);
* after each fork (from ``forks.min`` on): are the pooled *measurement*
  values of all forks so far stable?  Warmup never counts.  If no fork so
  far settled (every warmup ran to ``warmup.max`` without a steady state),
  the benchmark stops at ``forks.min`` with a warning: more forks would only
  average a moving level.

Stop only when **every** chosen criterion agrees (a criterion with nothing to
say at a checkpoint, e.g. ``precision`` about warmup, agrees).  At a bound
without stability the phase ends anyway and the decision carries a warning.
The runner enforces the bounds as well, so no benchmark exceeds
``forks.max × (warmup.max + iterations)`` iterations.

Each decision records the criteria's values (``cv``, ``cv.spread``,
``level.trend_p``, ``precision`` ...).  Criteria are computed in the runner
process while the harness keeps running the next iteration.
"""

from __future__ import annotations

import time
from typing import Sequence

from benchwarden.config import DEFAULT_CRITERIA, CriterionSettings
from benchwarden.model import StopDecision
from benchwarden.runner.criteria import make_stop_criterion
from benchwarden.runner.criteria.base import State
from benchwarden.runner.policy import Bounds


class DynamicPolicy:
    """Stop when all ``criteria`` agree (see the module docstring).  One instance per benchmark.

    ``compute_s`` accumulates the time spent computing criteria (the
    overhead measured by the benchmarks and by replay); ``checkpoints``
    counts the decisions.
    """

    name = "dynamic"

    def __init__(self, criteria: Sequence[CriterionSettings] = DEFAULT_CRITERIA):
        if not criteria:
            raise ValueError("the dynamic policy needs at least one criterion")
        self.criteria = tuple(criteria)
        self.checks = [make_stop_criterion(c) for c in self.criteria]
        self.forks_seen = 0  # forks learned from: the next warmup belongs to fork forks_seen + 1
        self.unsettled: list[bool] = []  # per fork: did its warmup end at the bound without a steady state?
        self._fork_unsettled = False
        self.compute_s = 0.0
        self.checkpoints = 0

    def warmup_decision(self, bounds: Bounds, warmup_ns: Sequence[float]) -> StopDecision:
        """After warmup iteration ``len(warmup_ns)`` of the next fork: end warmup if this fork is level."""
        start = time.perf_counter()
        try:
            n = len(warmup_ns)
            floor, why = max((c.warmup_floor(self.forks_seen + 1, bounds.warmup_max) for c in self.checks),
                             default=(0, ""))
            if n < floor:
                return StopDecision(stop=False, reason=why)
            if why == "scout":
                return StopDecision(stop=True, reason="scout")
            states = [s for c in self.checks if (s := c.warmup(warmup_ns)) is not None]
            decision = decide(states, n, bounds.warmup_min, bounds.warmup_max, "warmup", "iterations")
            # held at the bound because the scout never settled: this fork is no evidence of a steady state
            self._fork_unsettled = decision.reason == "maximum-reached" or why == "scout-unsettled"
            return decision
        finally:
            self._count(start)

    def measurement_decision(self, bounds: Bounds, warmup_ns: Sequence[float],
                             measurement_ns: Sequence[float]) -> StopDecision:
        """After a fork's measurement: keep it ("measured"), or measure again ("level-changed") while room is left."""
        start = time.perf_counter()
        try:
            states = [s for c in self.checks if (s := c.measurement(warmup_ns, measurement_ns)) is not None]
            values = decision_values(states)
            if all(s.stable for s in states):
                decision = StopDecision(stop=True, reason="measured", values=values)
            elif len(warmup_ns) + len(measurement_ns) <= bounds.warmup_max:
                return StopDecision(stop=False, reason="level-changed", values=values)
            else:
                self._fork_unsettled = True
                why = "; ".join(s.describe() for s in states if not s.stable)
                decision = StopDecision(stop=True, reason="level-changed-at-bound", values=values,
                                        warning=f"the level moved during the measurement and warmup.max = "
                                                f"{bounds.warmup_max} leaves no room to measure again ({why})")
            self._learn(self.forks_seen, warmup_ns, measurement_ns)  # the fork is complete: learn from it
            return decision
        finally:
            self._count(start)

    def fork_decision(self, bounds: Bounds, forks_ns: Sequence[Sequence[float]],
                      warmups_ns: Sequence[Sequence[float]] | None = None) -> StopDecision:
        """After fork ``len(forks_ns)``: run no more forks if the pooled measurement values are stable.

        ``warmups_ns`` (each fork's warmup values) lets criteria learn from
        whole forks (``level``'s scout); every fork is learned from once.
        """
        start = time.perf_counter()
        try:
            if warmups_ns is not None:  # forks not seen live (a resumed run): learn from them now
                for k in range(self.forks_seen, len(forks_ns)):
                    self._learn(k, warmups_ns[k], forks_ns[k])
            self.forks_seen = max(self.forks_seen, len(forks_ns))
            while len(self.unsettled) < len(forks_ns):
                self.unsettled.append(self._fork_unsettled)
            self._fork_unsettled = False
            states = [s for c in self.checks if (s := c.forks(forks_ns)) is not None]
            decision = decide(states, len(forks_ns), bounds.forks_min, bounds.forks_max, "results", "forks")
            if len(forks_ns) >= bounds.forks_min and self._all_unsettled():
                return StopDecision(stop=True, reason="unsettled", values=decision.values,
                                    warning=f"no fork reached a steady state within warmup.max = "
                                            f"{bounds.warmup_max}: more forks would only average a moving level")
            return decision
        finally:
            self._count(start)

    def _learn(self, k: int, warmup_ns: Sequence[float], measurement_ns: Sequence[float]) -> None:
        """Fork ``k + 1`` is complete: let the criteria learn from it (once), and count it."""
        if k < self.forks_seen:
            return
        settled = [c.learn(k + 1, warmup_ns, measurement_ns) for c in self.checks]
        if any(s is False for s in settled):
            self._fork_unsettled = True
        self.forks_seen = k + 1

    def _all_unsettled(self) -> bool:
        """No fork settled; with a scout, judged on the forks after it (the scout's own verdict is its learning)."""
        scouted = any(getattr(c, "scout", False) for c in self.checks)
        forks = self.unsettled[1:] if scouted and len(self.unsettled) > 1 else self.unsettled
        return bool(forks) and all(forks)

    def _count(self, start: float) -> None:
        self.compute_s += time.perf_counter() - start
        self.checkpoints += 1


def decision_values(states: Sequence[State]) -> dict[str, float]:
    """Every criterion's values at one checkpoint (``cv``, ``cv.spread``, ``level.trend_p`` ...)."""
    values: dict[str, float] = {}
    for s in states:
        values.update(s.as_values())
    return values


def decide(states: Sequence[State], done: int, minimum: int, maximum: int, what: str,
           unit: str) -> StopDecision:
    """One checkpoint's decision from the criteria's verdicts (pure).

    ``done`` units (iterations or forks) have run; below ``minimum`` nothing
    is decided; all criteria stable -> stop ("stable"); when ``minimum`` equals
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
