"""Stop policies: when does a fork's warmup end, and when are there enough forks?

A policy is a pure function of the samples so far (two checkpoints, as in
Laaber et al. 2020, Algorithm 1 — see docs/architecture.md):

* ``warmup_decision(bounds, warmup_ns)`` after each warmup iteration of a fork
  (``warmup_ns`` holds this fork's warmup values only: the state resets with
  every fork);
* ``measurement_decision(bounds, warmup_ns, measurement_ns)`` after a fork's
  measurement iterations: keep them (stop), or relabel them as warmup and
  measure again (the level moved; only while ``warmup.max`` leaves room);
* ``fork_decision(bounds, forks_ns, warmups_ns)`` after each completed fork
  (``forks_ns``: measurement values of every completed fork; warmup never
  counts towards the results, but ``warmups_ns`` lets a policy learn from
  whole forks).

Both return a :class:`~benchwarden.model.StopDecision` that the runner stores
for transparency.  The runner enforces the bounds itself as well, so a
policy can never make a benchmark exceed its static budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, Sequence

from benchwarden.model import StopDecision

if TYPE_CHECKING:
    from benchwarden.config import RunSettings


@dataclass(frozen=True)
class Bounds:
    """⟨wi_min, wi_max, mi, f_min, f_max⟩: warmup iterations per fork, measurement iterations per fork, forks."""

    warmup_min: int
    warmup_max: int
    iterations: int
    forks_min: int
    forks_max: int

    def __post_init__(self) -> None:
        if not (0 <= self.warmup_min <= self.warmup_max):
            raise ValueError(f"need 0 <= warmup_min <= warmup_max, got {self.warmup_min}, {self.warmup_max}")
        if self.iterations < 1:
            raise ValueError("need at least one measurement iteration")
        if not (1 <= self.forks_min <= self.forks_max):
            raise ValueError(f"need 1 <= forks_min <= forks_max, got {self.forks_min}, {self.forks_max}")

    @property
    def max_iterations_per_fork(self) -> int:
        return self.warmup_max + self.iterations


class StopPolicy(Protocol):
    name: str

    def warmup_decision(self, bounds: Bounds, warmup_ns: Sequence[float]) -> StopDecision: ...

    def measurement_decision(self, bounds: Bounds, warmup_ns: Sequence[float],
                             measurement_ns: Sequence[float]) -> StopDecision: ...

    def fork_decision(self, bounds: Bounds, forks_ns: Sequence[Sequence[float]],
                      warmups_ns: Sequence[Sequence[float]] | None = None) -> StopDecision: ...


class StaticPolicy:
    """A fixed JMH-style configuration: always ``warmup_max`` warmup iterations and ``forks_max`` forks."""

    name = "static"

    def warmup_decision(self, bounds: Bounds, warmup_ns: Sequence[float]) -> StopDecision:
        done = len(warmup_ns) >= bounds.warmup_max
        return StopDecision(stop=done, reason="static")

    def measurement_decision(self, bounds: Bounds, warmup_ns: Sequence[float],
                             measurement_ns: Sequence[float]) -> StopDecision:
        return StopDecision(stop=True, reason="measured")

    def fork_decision(self, bounds: Bounds, forks_ns: Sequence[Sequence[float]],
                      warmups_ns: Sequence[Sequence[float]] | None = None) -> StopDecision:
        done = len(forks_ns) >= bounds.forks_max
        return StopDecision(stop=done, reason="static")


POLICIES = ("dynamic", "static")


def make_policy(spec: "str | RunSettings") -> StopPolicy:
    """A fresh policy (one per benchmark: policies may memoise per-benchmark state).

    ``spec`` is a policy name (the dynamic policy then uses the default
    criteria) or a benchmark's resolved :class:`~benchwarden.config.RunSettings`
    (its ``stop`` and ``criteria``).  ValueError for an unknown name.
    """
    if isinstance(spec, str):
        name, criteria = spec, None
    else:
        name, criteria = spec.stop, spec.criteria
    if name == "static":
        return StaticPolicy()
    if name == "dynamic":
        from benchwarden.runner.dynamic import DynamicPolicy  # dynamic imports Bounds from here

        return DynamicPolicy(criteria) if criteria is not None else DynamicPolicy()
    raise ValueError(f"unknown stop policy {name!r}; expected one of: {', '.join(POLICIES)}")
