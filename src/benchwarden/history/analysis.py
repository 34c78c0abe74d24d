"""A series with its change points placed on commits, and the summary ``history`` prints per series.

The statistics are :mod:`.changepoints`'; this module maps run indices back to commits and says, per series,
how many commits and forks it has, its noise (run to run, and between the forks of one run), and the level of
its newest segment with an interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchwarden.history.changepoints import ChangePoint, DetectionSettings, SeriesChangePoints, find_change_points
from benchwarden.history.series import Point, Series
from benchwarden.stats.logratio import TStatistic
from benchwarden.stats.results import Interval

LEVEL_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Change:
    """A change point between two commits: the change is in ``before.commit..after.commit`` (git's range)."""

    before: Point
    after: Point
    test: ChangePoint


@dataclass(frozen=True)
class SeriesHistory:
    """``level``: the newest segment's geometric mean in ns/op with a 95 % t interval over its commits (``(0, inf)``
    with one commit)."""

    series: Series
    detection: SeriesChangePoints
    changes: tuple[Change, ...]
    level: Interval

    @property
    def forks(self) -> int:
        return sum(len(p.log_forks) for p in self.series.points)

    def to_json(self) -> dict[str, object]:
        s, d = self.series, self.detection
        return {
            "benchmark": s.benchmark, "metric": s.metric, "unit": s.unit, "direction": s.direction,
            "machine_key": s.machine_key, "machine": s.machine, "ordered_by": s.ordered_by,
            "commits": len(s.points), "forks": self.forks,
            "first_commit": s.points[0].commit if s.points else None,
            "last_commit": s.points[-1].commit if s.points else None,
            "noise": {"run_to_run": d.runs.noise, "between_forks": d.runs.fork_sd},
            "level_ns": {"point": self.level.point, "low": _finite(self.level.low), "high": _finite(self.level.high),
                         "confidence": self.level.confidence},
            "change_points": [_change_json(c) for c in self.changes],
            "points": [{"commit": p.commit, "generation": p.generation, "runs": list(p.runs),
                        "forks": len(p.log_forks), "mean_ns": math.exp(v)}
                       for p, v in zip(s.points, d.runs.values)],
            "notes": [*s.notes, *d.warnings],
        }


def analyse(series: Series, settings: DetectionSettings | None = None) -> SeriesHistory:
    """The change points of ``series`` (which has at least one point) placed on its commits."""
    detection = find_change_points([p.log_forks for p in series.points], settings)
    points = series.points
    changes = tuple(Change(points[c.index - 1], points[c.index], c) for c in detection.found)
    start = detection.found[-1].index if detection.found else 0
    return SeriesHistory(series, detection, changes, _level(detection.runs.values[start:], LEVEL_CONFIDENCE))


def _level(values: np.ndarray, confidence: float) -> Interval:
    """Geometric mean of the runs' values with a one-sample t interval (no interval from one run)."""
    k = values.size
    center = float(values.mean())
    se = float(values.std(ddof=1) / math.sqrt(k)) if k >= 2 else math.inf
    low, high = (float(v) for v in TStatistic(np.asarray(center), np.asarray(se), np.asarray(float(k - 1)))
                 .bounds(confidence))
    with np.errstate(over="ignore"):
        return Interval(float(np.exp(low)), float(np.exp(high)), math.exp(center), confidence, "t-log", 0)


def _finite(value: float) -> float | None:
    """None for a bound that could not be computed (one commit: no interval), so the JSON stays JSON."""
    return value if math.isfinite(value) and value > 0 else None


def _change_json(change: Change) -> dict[str, object]:
    """The change point's JSON with the commits around it; a point of a series is a commit, so the counts say so."""
    test = change.test.to_json()
    renamed = {"runs_before": "commits_before", "runs_after": "commits_after", "outlier_runs": "outlier_commits"}
    return {"before": change.before.commit, "after": change.after.commit, "subject": change.after.subject,
            **{renamed.get(k, k): v for k, v in test.items()}}
