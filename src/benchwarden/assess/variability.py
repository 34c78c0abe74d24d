"""Variability of each benchmark across N identical runs: maxSpread, CV, RCIW, the study's buckets.

Laaber & Leitner (MSR 2018, §5.2, Eq. 1; digest seed-003 §2): maxSpread is the largest relative
difference between two runs' means, ``(max − min) / mean`` of the run means; it is a lower bound of
the change a benchmark can detect in that environment.  Only benchmarks with results in *every* run
are assessed (as in the study).  Everything here is pure: samples in, frozen dataclasses out.

Choices the paper leaves open, made here and documented in docs/assess.md:

* buckets are lower-inclusive: ``[0, .05)``, ``[.05, .10)``, ``[.10, .25)``, ``[.25, .50)``, ``[.50, ∞)``;
* CV and RCIW are computed per run (all iterations of that run's forks) and summarised by their
  median over the runs, so one disturbed run does not dominate;
* a benchmark is *unstable* when its maxSpread reaches ``unstable_spread`` (default 0.25: the study's
  "25–50 %" bucket and above, where it calls results unusable for small regressions) or its CV
  reaches ``unstable_cv`` (default 0.15: within-run variation this large needs many more iterations
  than a CI run affords);
* the recommended practical threshold for ``compare`` is the larger of maxSpread and the median RCIW,
  rounded up to a whole percent (at least 1 %): a change smaller than the spread between identical
  runs, or than the run's own confidence interval, cannot be told from noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from benchwarden.stats import ForkData, cv, fork_means, max_spread, rciw

#: (lower bound inclusive, upper bound exclusive, label) of the study's Table 3 buckets
BUCKETS: tuple[tuple[float, float, str], ...] = (
    (0.0, 0.05, "0–5%"),
    (0.05, 0.10, "5–10%"),
    (0.10, 0.25, "10–25%"),
    (0.25, 0.50, "25–50%"),
    (0.50, math.inf, ">50%"),
)
DEFAULT_UNSTABLE_CV = 0.15
DEFAULT_UNSTABLE_SPREAD = 0.25
#: the study's percentile for v and for the "relative" ABS variant (§6.3, §6.5)
PERCENTILE = 0.95


@dataclass(frozen=True)
class BenchmarkVariability:
    """One benchmark over ``n_runs`` runs. Relative values are fractions (0.05 = 5 %)."""

    key: str
    run_means_ns: tuple[float, ...]
    max_spread: float
    cv: float  # median over runs of the within-run CV
    rciw: float  # median over runs of the relative 99 % CI width of the mean
    bucket: str
    unstable: bool
    reasons: tuple[str, ...]
    recommended_threshold: float
    warnings: tuple[str, ...] = ()

    @property
    def n_runs(self) -> int:
        return len(self.run_means_ns)

    @property
    def mean_ns(self) -> float:
        return float(np.mean(self.run_means_ns))


@dataclass(frozen=True)
class VariabilityReport:
    benchmarks: tuple[BenchmarkVariability, ...]
    n_runs: int
    unstable_cv: float
    unstable_spread: float
    skipped: tuple[str, ...] = ()  # benchmarks without a result in every run
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def by_key(self) -> dict[str, BenchmarkVariability]:
        return {b.key: b for b in self.benchmarks}

    @property
    def spreads(self) -> dict[str, float]:
        return {b.key: b.max_spread for b in self.benchmarks}

    @property
    def unstable(self) -> tuple[str, ...]:
        return tuple(b.key for b in self.benchmarks if b.unstable)

    def bucket_counts(self) -> dict[str, int]:
        counts = {label: 0 for _, _, label in BUCKETS}
        for b in self.benchmarks:
            counts[b.bucket] += 1
        return counts

    def suggested_slowdown(self) -> float | None:
        """The study's v: twice the 95th-percentile maxSpread (None without benchmarks)."""
        return suggested_slowdown(list(self.spreads.values()))


def bucket_of(spread: float) -> str:
    """The Table 3 bucket of a maxSpread value (lower bounds inclusive)."""
    for low, high, label in BUCKETS:
        if low <= spread < high:
            return label
    raise ValueError(f"maxSpread must be >= 0, got {spread!r}")


def percentile_rank(n: int, percentile: float = PERCENTILE) -> int:
    """The study's rank ⌊p·n⌋ (1-based) into the ascending spreads; at least 1 (§6.3, digest seed-003 §3.3)."""
    if n < 1:
        raise ValueError("need at least one benchmark")
    return max(1, math.floor(percentile * n))


def spread_percentile(spreads: Sequence[float], percentile: float = PERCENTILE) -> float:
    """``max{MS_i | 0 < i ≤ ⌊p·|MS|⌋}`` over the ascending spreads MS: the value at rank ⌊p·n⌋."""
    ordered = sorted(spreads)
    return ordered[percentile_rank(len(ordered), percentile) - 1]


def suggested_slowdown(spreads: Sequence[float]) -> float | None:
    """v = 2 · the 95th-percentile maxSpread (Laaber & Leitner 2018, §6.3): 95 % of benchmarks spread ≤ v/2."""
    if not spreads:
        return None
    return 2.0 * spread_percentile(spreads)


def relative_exclusion(spreads: Mapping[str, float], percentile: float = PERCENTILE) -> set[str]:
    """Benchmarks beyond rank ⌊p·n⌋ by maxSpread: the "worst 5 %" of the study's *relative* ABS variant.

    Ties are broken by key, so the result is deterministic.
    """
    if not spreads:
        return set()
    ordered = sorted(spreads, key=lambda k: (spreads[k], k))
    return set(ordered[percentile_rank(len(ordered), percentile):])


def recommended_threshold(spread: float, rciw_value: float) -> float:
    """max(maxSpread, RCIW) rounded up to a whole percent, at least 1 % (see the module docstring)."""
    value = max(spread, rciw_value if math.isfinite(rciw_value) else 0.0, 0.01)
    return math.ceil(round(value * 100, 9)) / 100


def assess_benchmark(key: str, runs: Sequence[ForkData], unstable_cv: float = DEFAULT_UNSTABLE_CV,
                     unstable_spread: float = DEFAULT_UNSTABLE_SPREAD, seed: int = 0) -> BenchmarkVariability:
    """Variability of one benchmark from its forks in each run (``runs[r]`` = the forks of run r)."""
    if len(runs) < 2:
        raise ValueError(f"{key}: maxSpread needs at least 2 runs, got {len(runs)}")
    run_means = [float(np.mean(fork_means(forks))) for forks in runs]
    spread = max_spread(run_means)
    notes: list[str] = []
    cvs, widths = [], []
    for forks in runs:
        values = np.concatenate([np.asarray(f, dtype=float) for f in forks])
        cvs.append(cv(values) if values.size > 1 else 0.0)
        widths.append(rciw(forks, seed=seed) if len(forks) > 1 or values.size > 1 else math.nan)
    run_cv = float(np.median(cvs))
    finite = [w for w in widths if math.isfinite(w)]
    run_rciw = float(np.median(finite)) if finite else math.nan
    if len(runs) < 5:
        notes.append(f"only {len(runs)} runs: maxSpread underestimates the spread the study measures over 5")
    reasons = []
    if spread >= unstable_spread:
        reasons.append(f"maxSpread {spread:.1%} >= {unstable_spread:.0%}")
    if run_cv >= unstable_cv:
        reasons.append(f"CV {run_cv:.1%} >= {unstable_cv:.0%}")
    return BenchmarkVariability(
        key=key, run_means_ns=tuple(run_means), max_spread=spread, cv=run_cv, rciw=run_rciw,
        bucket=bucket_of(spread), unstable=bool(reasons), reasons=tuple(reasons),
        recommended_threshold=recommended_threshold(spread, run_rciw), warnings=tuple(notes))


def assess_variability(samples: Mapping[str, Sequence[ForkData | None]], n_runs: int,
                       unstable_cv: float = DEFAULT_UNSTABLE_CV, unstable_spread: float = DEFAULT_UNSTABLE_SPREAD,
                       seed: int = 0) -> VariabilityReport:
    """Variability of every benchmark: ``samples[key][r]`` = forks of run r, or None if it has no result there.

    Benchmarks missing from any of the ``n_runs`` runs are listed in ``skipped``, not assessed.
    """
    assessed, skipped = [], []
    for key in sorted(samples):
        runs = [r for r in samples[key] if r is not None and len(r) > 0]
        if len(runs) < n_runs or len(runs) < len(samples[key]):
            skipped.append(key)
            continue
        assessed.append(assess_benchmark(key, runs, unstable_cv, unstable_spread, seed))
    notes = []
    if skipped:
        notes.append(f"{len(skipped)} benchmark(s) lack a result in some run and are not assessed")
    return VariabilityReport(tuple(assessed), n_runs, unstable_cv, unstable_spread, tuple(skipped), tuple(notes))
