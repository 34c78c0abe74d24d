"""Per-benchmark summaries of a run: mean, confidence interval over forks x iterations, CV, effort.

A statistic the data cannot support (a CV of one value, an interval the method refuses) is None with a
note in ``warnings`` ("n/a" in the tables), never an exception: a stored run must always be displayable.

The interval is the hierarchical bootstrap CI of the mean (forks, then
iterations within forks; :func:`benchwarden.stats.ci_mean`), computed on
ns/op and converted to the benchmark's display unit afterwards.  For
throughput units the conversion is monotone decreasing, so the bounds swap.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from benchwarden import stats
from benchwarden.model import BenchmarkResult, ForkStatus, RunData
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
    confidence: float = 0.99
    message: str | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def display(self, value_ns: float | None) -> float | None:
        return None if value_ns is None else from_ns_per_op(value_ns, self.unit)

    @property
    def mean(self) -> float | None:
        return self.display(self.mean_ns)

    @property
    def ci(self) -> tuple[float, float] | None:
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
        }


def summarize_benchmark(result: BenchmarkResult, confidence: float = 0.99, n_resamples: int = 2000,
                        seed: int = 0) -> BenchmarkSummary:
    complete = [f for f in result.forks if f.status is ForkStatus.COMPLETE]
    matrix = [list(f.measurement_ns) for f in complete if f.measurement]
    b = result.benchmark
    base = BenchmarkSummary(
        key=b.id.key, suite=b.id.suite, mode=b.mode, unit=b.unit, status=result.status.value,
        forks=len(complete), forks_failed=len(result.forks) - len(complete),
        warmup_iterations=sum(len(f.warmup) for f in complete),
        measurement_iterations=sum(len(f.measurement) for f in complete),
        time_s=sum(f.duration_s for f in result.forks), confidence=confidence, message=result.message,
    )
    if not matrix:
        return base
    flat = np.concatenate([np.asarray(m, dtype=float) for m in matrix])
    warnings: list[str] = []
    ci_low: float | None = None
    ci_high: float | None = None
    cv: float | None = None
    try:
        interval = stats.ci_mean(matrix, confidence=confidence, n_resamples=n_resamples, seed=seed)
    except ValueError as exc:
        warnings.append(f"no confidence interval: {exc}")
    else:
        ci_low, ci_high = float(interval.low), float(interval.high)
        warnings.extend(getattr(interval, "warnings", ()))
    if flat.size < 2:
        warnings.append(f"CV n/a: it needs at least 2 measured values, this benchmark has {flat.size}")
    else:
        try:
            cv = float(stats.cv(flat))
        except ValueError as exc:
            warnings.append(f"CV n/a: {exc}")
    return replace(base, mean_ns=float(flat.mean()), ci_low_ns=ci_low, ci_high_ns=ci_high, cv=cv,
                   warnings=tuple(warnings))


def summarize_run(run: RunData, confidence: float = 0.99, seed: int = 0) -> list[BenchmarkSummary]:
    return [summarize_benchmark(r, confidence=confidence, seed=seed) for r in run.results]
