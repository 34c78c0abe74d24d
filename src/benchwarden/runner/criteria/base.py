"""The stability-criterion protocol, the two stability functions, and the incremental window of stability values.

Laaber et al. (FSE 2020, §4; digest seed-002 §3.4–3.6) split a stopping rule
into three parts, and so do we:

* a **criterion** maps a *snapshot* — the pooled data after unit ``x``
  (warmup iteration ``x`` of this fork, or fork ``x`` of this benchmark) — to a
  stability value (:meth:`Criterion.value`);
* a **window** keeps the values of the last ``w`` snapshots (Eq. 1 and 2: the
  value at snapshot ``x`` is computed over the union of units ``1..x``);
* a **stability function** decides from the window and a threshold ``t``:
  variance type (CV, RCIW) ``max(V) − min(V) ≤ t``; probability type (KLD)
  ``mean(V) ≥ t`` (:func:`is_stable`).

A window is *complete* once it holds ``w`` defined values.  A value needs at
least two iterations in its pool (CV, RCIW: a single value has no spread) or
a previous snapshot (KLD compares snapshot ``x−1`` with ``x``), so with
iteration means as data the first complete warmup window of size 5 is at
iteration 6 for every criterion (docs/dynamic.md).

Cost: :class:`WindowTrack` memoises the value of every snapshot it has
seen, keyed on the data prefix, so each checkpoint evaluates the criterion
once (for the new snapshot), not once per window element or per history
element.  Because a value depends only on its own prefix, the memo is
exact; a new fork (a different prefix) simply starts a new memo — this is
the per-fork reset of the warmup state.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import partial
from typing import Mapping, Protocol, Sequence

import numpy as np


class StabilityKind(str, enum.Enum):
    """Which stability function a criterion's values go through."""

    VARIANCE = "variance"  # stable iff the window's spread max − min <= threshold
    PROBABILITY = "probability"  # stable iff the window's mean >= threshold


Snapshot = Sequence[np.ndarray]
"""Fork-structured pooled data: one 1-D array of ns/op values per fork (a warmup snapshot is one fork)."""


class Criterion(Protocol):
    """A stability criterion: ``value(previous, current)`` of one snapshot, or None where it is undefined."""

    name: str
    kind: StabilityKind

    def value(self, previous: Snapshot | None, current: Snapshot) -> float | None:
        """Stability value of ``current``; ``previous`` is the snapshot before it (None for the first)."""
        ...


@dataclass(frozen=True)
class WindowState:
    """The window after one checkpoint: the latest value, the window statistic, and the verdict.

    ``statistic`` is the spread ``max − min`` (variance type) or the mean
    (probability type) of the window, None while the window is incomplete;
    ``stable`` is None while incomplete.
    """

    criterion: str
    kind: StabilityKind
    threshold: float
    latest: float | None
    statistic: float | None
    stable: bool | None
    values_needed: int  # complete window size
    values_available: int

    @property
    def statistic_name(self) -> str:
        return "spread" if self.kind is StabilityKind.VARIANCE else "mean"

    def as_values(self) -> dict[str, float]:
        """``{"cv": latest}`` and, once the window is complete, ``{"cv.spread": statistic}``."""
        values: dict[str, float] = {}
        if self.latest is not None:
            values[self.criterion] = float(self.latest)
        if self.statistic is not None:
            values[f"{self.criterion}.{self.statistic_name}"] = float(self.statistic)
        return values

    def describe(self) -> str:
        """``"cv spread 0.0132 > 0.01"`` / ``"kld mean 0.995 >= 0.99"`` / ``"cv window 3 of 5 values"``."""
        if self.statistic is None:
            return f"{self.criterion} window {self.values_available} of {self.values_needed} values"
        if self.kind is StabilityKind.VARIANCE:
            op = "<=" if self.stable else ">"
        else:
            op = ">=" if self.stable else "<"
        return f"{self.criterion} {self.statistic_name} {self.statistic:.4g} {op} {self.threshold:g}"


def is_stable(kind: StabilityKind, window: np.ndarray, threshold: float) -> tuple[float, bool]:
    """The stability function of Laaber et al. §4: (statistic, verdict) for a complete window.

    Variance type: statistic ``max(V) − min(V)``, stable iff ``<= threshold``
    (the paper's rule, Eq. for stable_var; the reference code measures
    against the latest value and uses ``<`` — see docs/dynamic.md).
    Probability type: statistic ``mean(V)``, stable iff ``>= threshold``.
    """
    if kind is StabilityKind.VARIANCE:
        spread = float(np.ptp(window))
        return spread, spread <= threshold
    mean = float(np.mean(window))
    return mean, mean >= threshold


class WindowTrack:
    """Stability values of one criterion over the snapshots of a growing sequence of units, memoised.

    ``level`` is ``"warmup"`` (units are iterations of one fork: snapshot
    ``x`` is one fork holding the first ``x`` values) or ``"fork"`` (units are
    forks: snapshot ``x`` is the first ``x`` forks).
    """

    def __init__(self, criterion: Criterion, window: int, threshold: float, level: str):
        if level not in ("warmup", "fork"):
            raise ValueError(f"level must be 'warmup' or 'fork', got {level!r}")
        if window < 1:
            raise ValueError(f"window must be >= 1, got {window}")
        self.criterion = criterion
        self.window = window
        self.threshold = threshold
        self.level = level
        self._units: list[np.ndarray] = []
        self._values: list[float | None] = []
        self.evaluations = 0  # criterion evaluations so far (for the cost tests)

    def _snapshot(self, units: Sequence[np.ndarray], x: int) -> Snapshot:
        if self.level == "warmup":
            return [np.concatenate(units[:x])]
        return list(units[:x])

    def _known_prefix(self, units: Sequence[np.ndarray]) -> int:
        known = len(self._units)
        if known > len(units):
            return 0
        for old, new in zip(self._units, units):
            if old.shape != new.shape or not np.array_equal(old, new):
                return 0
        return known

    def update(self, data: Sequence[float] | Sequence[Sequence[float]]) -> WindowState:
        """Extend the memo to ``data`` (all units so far) and judge the window ending at the last unit."""
        if self.level == "warmup":
            units = [np.asarray([v], dtype=float) for v in data]
        else:
            units = [np.asarray(f, dtype=float) for f in data]
        keep = self._known_prefix(units)
        if keep < len(self._units):
            self._units, self._values = self._units[:keep], self._values[:keep]
        for x in range(keep + 1, len(units) + 1):
            previous = self._snapshot(units, x - 1) if x > 1 else None
            self._values.append(self.criterion.value(previous, self._snapshot(units, x)))
            self.evaluations += 1
        self._units = units
        return self.state()

    def state(self) -> WindowState:
        """The window over the last ``window`` snapshots (complete only if all of them have values)."""
        recent = self._values[-self.window:] if self._values else []
        defined = [v for v in recent if v is not None]
        latest = self._values[-1] if self._values else None
        state = partial(WindowState, criterion=self.criterion.name, kind=self.criterion.kind, threshold=self.threshold,
                        latest=latest, values_needed=self.window, values_available=len(defined))
        if len(recent) < self.window or len(defined) < self.window:
            return state(statistic=None, stable=None)
        statistic, stable = is_stable(self.criterion.kind, np.asarray(defined, dtype=float), self.threshold)
        return state(statistic=statistic, stable=stable)


@dataclass(frozen=True)
class CheckState:
    """The verdict of one criterion at one checkpoint, for criteria that are not a window of values.

    ``stable`` is None while the criterion cannot judge yet (too few
    iterations or forks); ``values`` are stored with the decision
    (``"level.trend_p"`` ...); ``why`` explains the verdict in a warning.
    """

    criterion: str
    stable: bool | None
    values: Mapping[str, float]
    why: str

    def as_values(self) -> dict[str, float]:
        return dict(self.values)

    def describe(self) -> str:
        return f"{self.criterion} {self.why}"


class State(Protocol):
    """What :func:`benchwarden.runner.dynamic.decide` needs of a criterion's verdict."""

    @property
    def criterion(self) -> str: ...

    @property
    def stable(self) -> bool | None: ...

    def as_values(self) -> dict[str, float]: ...

    def describe(self) -> str: ...


class StopCriterion(Protocol):
    """A criterion of the dynamic policy at its three checkpoints (one instance per benchmark; may keep state).

    Each method returns None where the criterion has nothing to say (e.g.
    ``precision`` about warmup), which counts as agreement.

    * ``warmup(values)``: this fork's warmup values so far;
    * ``measurement(warmup, measurement)``: after a fork's measurement
      iterations — does the measurement confirm that warmup was over?
    * ``forks(forks_ns)``: the measurement values of every completed fork;
    * ``learn(fork, warmup, measurement)``: a completed fork, once, in order;
      returns False if it learned that the fork never settled, else None/True;
    * ``warmup_floor(fork, bounds_max)``: warmup iterations fork ``fork`` must
      run whatever the checks say (what the criterion learned), 0 for none.
    """

    name: str

    def warmup(self, values: Sequence[float]) -> State | None: ...

    def measurement(self, warmup: Sequence[float], measurement: Sequence[float]) -> State | None: ...

    def forks(self, forks_ns: Sequence[Sequence[float]]) -> State | None: ...

    def learn(self, fork: int, warmup: Sequence[float], measurement: Sequence[float]) -> bool | None: ...

    def warmup_floor(self, fork: int, warmup_max: int) -> tuple[int, str]: ...


class WindowCriterion:
    """A study criterion (CV, RCIW, KLD) as a :class:`StopCriterion`: a window of values at warmup and fork level."""

    def __init__(self, criterion: Criterion, window: int, fork_window: int, threshold: float):
        self.name = criterion.name
        self.warmup_track = WindowTrack(criterion, window, threshold, "warmup")
        self.fork_track = WindowTrack(criterion, fork_window, threshold, "fork")

    def warmup(self, values: Sequence[float]) -> WindowState:
        return self.warmup_track.update(values)

    def measurement(self, warmup: Sequence[float], measurement: Sequence[float]) -> None:
        return None

    def forks(self, forks_ns: Sequence[Sequence[float]]) -> WindowState:
        return self.fork_track.update(forks_ns)

    def learn(self, fork: int, warmup: Sequence[float], measurement: Sequence[float]) -> None:
        return None

    def warmup_floor(self, fork: int, warmup_max: int) -> tuple[int, str]:
        return 0, ""
