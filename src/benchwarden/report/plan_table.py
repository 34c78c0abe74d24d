"""What a run would do, before it runs: the selected benchmarks, their fork and iteration bounds, a time range.

``benchwarden list`` (and ``init``'s counts) render this. The time range is the iterations' time only:
the low end when every bound stops at its minimum (dynamic stopping ends between the two), the high end
the static budget (every fork and warmup iteration the bounds allow). Process start-up and harness
set-up come on top and are not known before the first run. Pure; nothing here runs or measures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from benchwarden.report.table import Column, TableModel
from benchwarden.units import format_duration


@dataclass(frozen=True)
class PlannedRow:
    """One selected benchmark with the settings that apply to it (suite settings and matching overrides)."""

    suite: str
    key: str
    name: str  # the function or method (without parameters / sub-benchmark path)
    mode: str
    unit: str
    stop: str
    warmup_min: int
    warmup_max: int
    iterations: int
    forks_min: int
    forks_max: int
    iteration_time_s: float

    def time_range_s(self) -> tuple[float, float]:
        """(fewest, most) seconds of iterations the bounds allow: ``forks × (warmup + iterations) × time``.

        The ``static`` policy always runs the maximum, so its range is one value.
        """
        high = self.forks_max * (self.warmup_max + self.iterations) * self.iteration_time_s
        if self.stop == "static":
            return high, high
        return self.forks_min * (self.warmup_min + self.iterations) * self.iteration_time_s, high

    def to_json(self) -> dict[str, Any]:
        low, high = self.time_range_s()
        return {"suite": self.suite, "benchmark": self.key, "mode": self.mode, "unit": self.unit, "stop": self.stop,
                "forks": {"min": self.forks_min, "max": self.forks_max},
                "warmup": {"min": self.warmup_min, "max": self.warmup_max}, "iterations": self.iterations,
                "iteration_time_s": self.iteration_time_s, "time_s": {"min": low, "max": high}}


def _range(low: float | int, high: float | int, fmt=str) -> str:
    return fmt(low) if low == high else f"{fmt(low)}–{fmt(high)}"


def plan_table(rows: Sequence[PlannedRow], title: str | None = None) -> TableModel:
    """One row per selected benchmark: forks, iterations per fork, time range."""
    model = TableModel([Column("benchmark", names=True), Column("mode", drop=1), Column("stop", drop=2),
                        Column("forks", "right"), Column("warmup + iterations", "right", drop=3),
                        Column("iteration", "right", drop=4), Column("time", "right")], title=title)
    for r in rows:
        low, high = r.time_range_s()
        per_fork = f"{_range(r.warmup_min, r.warmup_max)} + {r.iterations}"
        model.add([f"{r.suite}:{r.key}", r.mode, r.stop, _range(r.forks_min, r.forks_max), per_fork,
                   format_duration(r.iteration_time_s), _range(low, high, format_duration)])
    return model


def plan_summary(rows: Sequence[PlannedRow]) -> str:
    """``12 benchmarks from 9 functions or methods in 2 suites; 4m00s–16m40s of iterations, plus process start-up``."""
    low = sum(r.time_range_s()[0] for r in rows)
    high = sum(r.time_range_s()[1] for r in rows)
    functions = len({(r.suite, r.name) for r in rows})
    suites = len({r.suite for r in rows})
    return (f"{_count(len(rows), 'benchmark')} from {_count(functions, 'function or method', 'functions or methods')} "
            f"in {_count(suites, 'suite')}; {_range(low, high, format_duration)} of iterations (fewest to most the "
            f"bounds allow), plus process start-up")


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"
