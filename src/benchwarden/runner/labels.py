"""The fork state machine: label each streamed iteration warmup or measurement, asking the stop policy.

One implementation for the live runner (:func:`benchwarden.runner.engine.run_fork`,
items are :class:`~benchwarden.model.IterationResult`) and for replay
(:func:`benchwarden.replay.simulate`, items are recorded ns/op values), so a
replay decides exactly what a live run would have decided.

States: **warmup** — after each iteration (from ``warmup.min``) the policy's
``warmup_decision``; at ``warmup.max`` warmup ends regardless (with a
warning). **measurement** — ``iterations`` values, then the policy's
``measurement_decision``: keep them (done), or — when the policy saw the level
move and ``warmup.max`` leaves room for another full measurement — relabel
them as warmup and go back to warmup. **done** — the caller stops the fork.
A fork therefore never runs more than ``warmup.max + iterations`` iterations.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Generic, Sequence, TypeVar

from benchwarden.model import MEASUREMENT_CHECKPOINT_REASONS, Phase, StopDecision
from benchwarden.runner.policy import Bounds, StopPolicy

T = TypeVar("T")

MEASUREMENT_REASONS = MEASUREMENT_CHECKPOINT_REASONS


def warmup_checkpoints(decisions: Sequence[StopDecision]) -> list[StopDecision]:
    """A fork's warmup checkpoints only (its stored decisions also hold the measurement checkpoints)."""
    return [d for d in decisions if d.reason not in MEASUREMENT_REASONS]


def last_warmup_checkpoint(decisions: Sequence[StopDecision]) -> StopDecision | None:
    """The checkpoint that ended (or last continued) a fork's warmup, or None."""
    found = warmup_checkpoints(decisions)
    return found[-1] if found else None


class ForkLabels(Generic[T]):
    """Feed items with :meth:`add` until :attr:`done`; read :attr:`warmup`, :attr:`measurement`, :attr:`decisions`."""

    def __init__(self, policy: StopPolicy, bounds: Bounds, value: Callable[[T], float]):
        self.policy = policy
        self.bounds = bounds
        self.value = value
        self.warmup: list[T] = []
        self.measurement: list[T] = []
        self.decisions: list[StopDecision] = []
        self.phase = Phase.WARMUP if bounds.warmup_max > 0 else Phase.MEASUREMENT
        self.done = False
        self.remeasured = 0  # measurements relabelled as warmup

    def add(self, item: T) -> tuple[Phase, int]:
        """Label ``item``; returns its phase and its number within that phase (1-based)."""
        if self.done:
            raise RuntimeError("the fork is done; no more iterations")
        if self.phase is Phase.WARMUP:
            self.warmup.append(item)
            number = len(self.warmup)
            decision = self._warmup_checkpoint()
            self.decisions.append(decision)
            if decision.stop:
                self.phase = Phase.MEASUREMENT
            return Phase.WARMUP, number
        self.measurement.append(item)
        number = len(self.measurement)
        if number >= self.bounds.iterations:
            decision = self._measurement_checkpoint()
            self.decisions.append(decision)
            if decision.stop:
                self.done = True
            else:
                self.warmup.extend(self.measurement)
                self.measurement = []
                self.phase = Phase.WARMUP
                self.remeasured += 1
                if len(self.warmup) >= self.bounds.warmup_max:  # relabelled up to the bound: warmup is over
                    self.decisions.append(StopDecision(
                        stop=True, reason="maximum-reached",
                        warning=f"warmup did not become stable within {self.bounds.warmup_max} iterations "
                                f"(the level moved during the last measurement)"))
                    self.phase = Phase.MEASUREMENT
        return Phase.MEASUREMENT, number

    def _values(self, items: list[T]) -> list[float]:
        return [self.value(it) for it in items]

    def _warmup_checkpoint(self) -> StopDecision:
        """Ask the policy, but never before wi_min and never past wi_max (the runner enforces the bounds)."""
        n, bounds = len(self.warmup), self.bounds
        if n < bounds.warmup_min:
            return StopDecision(stop=False, reason="below-minimum")
        decision = self.policy.warmup_decision(bounds, self._values(self.warmup))
        if not decision.stop and n >= bounds.warmup_max:
            return replace(decision, stop=True, reason="maximum-reached",
                           warning=decision.warning or f"warmup did not become stable within {bounds.warmup_max} "
                                                       f"iterations")
        return decision

    def _measurement_checkpoint(self) -> StopDecision:
        decision = self.policy.measurement_decision(self.bounds, self._values(self.warmup),
                                                    self._values(self.measurement))
        if not decision.stop and len(self.warmup) + len(self.measurement) > self.bounds.warmup_max:
            return replace(decision, stop=True, reason="level-changed-at-bound",
                           warning=decision.warning or "the level moved during the measurement; no room to measure "
                                                       "again")
        return decision
