"""Per-benchmark summaries of a run: mean, confidence interval over forks, CV, effort.

A statistic the data cannot support (a CV of one value, an interval over one fork) is None with a
note in ``warnings`` ("n/a" in the tables), never an exception: a stored run must always be displayable.

The **mean is shown as the harness shows it**: the mean of the fork means of the values the harness
reported, in its own unit.  For JMH that is its Score — for throughput the arithmetic mean of ops/time
per iteration (not the harmonic mean that converting the mean time per op back would give: 134.9
where JMH printed 188.1 on a loaded machine).  The **interval** is a t interval over forks on the log
scale of those fork means (:func:`benchwarden.stats.ci_mean_log_t`): positive, and it cannot explode
because of one fork — an outlying fork is left out of it by the generalized ESD test and named in the
warnings.  With one fork there is no interval over forks ("n/a").  Statistics elsewhere run on ns/op.

**Machines** (forks on a cluster, docs/distributed.md): when the complete forks ran on two or more machines,
``machines`` holds the machine level of their fork means (:func:`benchwarden.stats.machine_spread`): each
machine's mean, the spread between machines and between forks on one machine, and the test of whether the
machines differ. The interval stays the one over the forks measured (on these machines); when the machines
differ (p < 1 − confidence) a warning says how far another machine of the kind may sit.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from benchwarden import stats
from benchwarden.model import BenchmarkResult, ForkResult, ForkStatus, RunData
from benchwarden.stats.results import MachineSpread
from benchwarden.units import from_ns_per_op


@dataclass(frozen=True)
class BenchmarkSummary:
    key: str
    suite: str
    mode: str
    unit: str
    status: str
    forks: int  # complete forks
    forks_failed: int
    warmup_iterations: int  # total over complete forks
    measurement_iterations: int
    time_s: float  # wall time of all forks
    mean_ns: float | None = None
    ci_low_ns: float | None = None
    ci_high_ns: float | None = None
    cv: float | None = None
    mean_display: float | None = None  # mean of fork means of the harness's own values (JMH's Score)
    ci_display: tuple[float, float] | None = None
    confidence: float = 0.99
    message: str | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)
    machines: MachineSpread | None = None  # the machine level, when forks ran on 2 or more machines

    def display(self, value_ns: float | None) -> float | None:
        return None if value_ns is None else from_ns_per_op(value_ns, self.unit)

    @property
    def mean(self) -> float | None:
        return self.mean_display if self.mean_display is not None else self.display(self.mean_ns)

    @property
    def ci(self) -> tuple[float, float] | None:
        if self.ci_display is not None:
            return self.ci_display
        if self.ci_low_ns is None or self.ci_high_ns is None:
            return None
        a, b = from_ns_per_op(self.ci_low_ns, self.unit), from_ns_per_op(self.ci_high_ns, self.unit)
        return (min(a, b), max(a, b))

    def to_json(self) -> dict:
        ci = self.ci
        return {
            "suite": self.suite, "benchmark": self.key, "mode": self.mode, "unit": self.unit, "status": self.status,
            "mean": self.mean, "ci": list(ci) if ci else None, "confidence": self.confidence,
            "mean_ns_per_op": self.mean_ns, "cv": self.cv, "forks": self.forks, "forks_failed": self.forks_failed,
            "warmup_iterations": self.warmup_iterations, "measurement_iterations": self.measurement_iterations,
            "time_s": round(self.time_s, 3), "message": self.message, "warnings": list(self.warnings),
            "machines": None if self.machines is None else self.machines.to_json(),
        }


def machine_level_line(name: str, spread: MachineSpread, value: Callable[[float], str], unit: str = "") -> str:
    """The terminal line of a machine level (``show``, ``check``): each machine's mean (``value`` formats it;
    ``unit`` after the list) and fork count, the spreads between machines and between forks on one machine, and
    the test that the machines differ."""
    each = ", ".join(f"{m} {value(c)} ({n} fork{'s' if n > 1 else ''})"
                     for m, c, n in zip(spread.machines, spread.centers, spread.counts))
    test = "" if spread.p_value != spread.p_value else f", machines differ: p = {spread.p_value:.2g}"
    return (f"machines of {name}: {each}{' ' + unit if unit else ''}; between machines ±{spread.between:.1%}, "
            f"between forks on one machine ±{spread.within:.1%}{test}")


def machine_level(forks: list[ForkResult], values: list[float]) -> MachineSpread | None:
    """The machine level of one value per fork, when the forks ran on 2 or more machines; else None."""
    labels = [f.machine_name or "this machine" for f in forks]
    if len(set(labels)) < 2:
        return None
    return stats.machine_spread(values, labels)


def summarize_benchmark(result: BenchmarkResult, confidence: float = 0.99, seed: int = 0) -> BenchmarkSummary:
    """Summarise one benchmark of a run (``seed`` is accepted for API stability; nothing is random)."""
    complete = [f for f in result.forks if f.status is ForkStatus.COMPLETE and f.measurement]
    b = result.benchmark
    base = BenchmarkSummary(
        key=b.id.key, suite=b.id.suite, mode=b.mode, unit=b.unit, status=result.status.value,
        forks=len([f for f in result.forks if f.status is ForkStatus.COMPLETE]),
        forks_failed=sum(1 for f in result.forks if f.status is not ForkStatus.COMPLETE),
        warmup_iterations=sum(len(f.warmup) for f in result.forks if f.status is ForkStatus.COMPLETE),
        measurement_iterations=sum(len(f.measurement) for f in complete),
        time_s=sum(f.duration_s for f in result.forks), confidence=confidence, message=result.message,
    )
    if not complete:
        return base
    ns = [np.asarray(f.measurement_ns, dtype=float) for f in complete]
    raw = [np.asarray([it.raw_value for it in f.measurement], dtype=float) for f in complete]
    flat = np.concatenate(ns)
    warnings: list[str] = []
    ci_display: tuple[float, float] | None = None
    ci_ns: tuple[float, float] | None = None
    if len(complete) < 2:
        warnings.append("one fork: no interval over forks (n/a); run more forks for one")
    elif all(np.all(f > 0) for f in raw):
        interval = stats.ci_mean_log_t(raw, confidence)
        ci_display = (interval.low, interval.high)
        ns_interval = stats.ci_mean_log_t(ns, confidence)
        ci_ns = (ns_interval.low, ns_interval.high)
        warnings.extend(interval.warnings)
    cv: float | None = None
    if flat.size < 2:
        warnings.append(f"CV n/a: it needs at least 2 measured values, this benchmark has {flat.size}")
    else:
        try:
            cv = float(stats.cv(flat))
        except ValueError as exc:
            warnings.append(f"CV n/a: {exc}")
    machines = machine_level(complete, [float(f.mean()) for f in ns]) if all(np.all(f > 0) for f in ns) else None
    if machines is not None and machines.differ(1 - confidence):
        warnings.append(f"the forks' {len(machines.machines)} machines differ by about ±{machines.between:.1%} "
                        f"(p = {machines.p_value:.2g}): the interval is over these forks on these machines, and "
                        "another machine of the kind may sit that far off")
    return replace(base, mean_ns=float(np.mean([f.mean() for f in ns])),
                   ci_low_ns=None if ci_ns is None else ci_ns[0], ci_high_ns=None if ci_ns is None else ci_ns[1],
                   cv=cv, mean_display=float(np.mean([f.mean() for f in raw])), ci_display=ci_display,
                   warnings=tuple(warnings), machines=machines)


def summarize_run(run: RunData, confidence: float = 0.99, seed: int = 0) -> list[BenchmarkSummary]:
    return [summarize_benchmark(r, confidence=confidence, seed=seed) for r in run.results]
