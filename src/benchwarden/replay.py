"""Replay: simulate stop policies on a stored wide static run, and evaluate them as Laaber et al. did.

The study (FSE 2020 §5.3–5.5; digest seed-002 §5, seed-004 §4.6/§5.2) ran
every benchmark once with a wide static configuration — 5 forks × 100
iterations of 1 s, no warmup — and *simulated* each criterion on the
recorded data.  :func:`replay_benchmark` does the same, per fork:

* warmup ends at the first checkpoint ``i ∈ [wi_min, wi_max]`` where the
  policy says stable (or at ``wi_max``) — the checkpoints are asked exactly
  as the live runner asks them;
* the next ``mi`` recorded iterations are the fork's measurement;
* after each fork (from ``f_min``) the fork checkpoint sees the pooled
  measurements; the first ``forks`` recorded forks are used.

Evaluation against the **baseline** (default: the study's — per fork, drop
the first 50 iterations and keep the rest, all forks):

* time: ``t_dyn = Σ_f (wi_f + mi) × iteration time`` against
  ``t_base = forks × (warmup + iterations) × iteration time`` (fixtures and
  process start-up are not counted, as in the study's time model);
* A/A test: the interval of the ratio of means
  (dynamic / baseline; :func:`benchwarden.stats.ci_ratio_of_means`) contains 1
  — by default the verdicts' interval (:func:`benchwarden.stats.ci_ratio_log_t`, *t* on the log fork
  summaries, 95 %; the study: a 99 % percentile hierarchical bootstrap, its *pa* tool);
* change rate ``|mean_dyn / mean_base − 1|`` (means of fork means) and the
  shares of benchmarks below 1 %, 2 %, 3 %;
* criterion cost: CPU time of the checkpoints per checkpoint and as a share
  of the simulated dynamic run time.

Everything here is pure apart from reading a clock for the cost; the
results are deterministic for a given seed.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Iterable, Sequence, cast

import numpy as np

from benchwarden import stats
from benchwarden.config import CriterionSettings
from benchwarden.model import BenchmarkResult, ForkStatus, RunData, StopDecision
from benchwarden.runner.dynamic import DynamicPolicy
from benchwarden.runner.labels import ForkLabels, last_warmup_checkpoint
from benchwarden.runner.policy import Bounds, StaticPolicy, StopPolicy

if TYPE_CHECKING:
    from benchwarden.stats.forks import ForkData

#: the study's dynamic bounds ⟨wi_min, wi_max, mi, f_min, f_max⟩ (seed-002 §5.4)
STUDY_BOUNDS = Bounds(warmup_min=5, warmup_max=50, iterations=10, forks_min=2, forks_max=5)
CHANGE_LEVELS = (0.01, 0.02, 0.03)


@dataclass(frozen=True)
class ReplayConfig:
    """One configuration to simulate: a criteria set (all must agree) with its thresholds, and the bounds.

    ``criteria=()`` simulates the static policy within ``bounds``.
    """

    criteria: tuple[CriterionSettings, ...]
    bounds: Bounds = STUDY_BOUNDS

    @property
    def label(self) -> str:
        if not self.criteria:
            return "static"
        return "+".join(f"{c.name}@{c.threshold:g}" for c in self.criteria)

    def policy(self) -> StopPolicy:
        return DynamicPolicy(self.criteria) if self.criteria else StaticPolicy()


@dataclass(frozen=True)
class Baseline:
    """The static reference: per fork, drop ``warmup`` iterations and keep the next ``iterations`` (None: all).

    ``forks``: the first N forks (None: all).  Default: the study's JMH 1.21
    equivalent, 50 warmup + 50 measurement iterations × 5 forks of a 5 × 100
    recording.
    """

    warmup: int = 50
    iterations: int | None = None
    forks: int | None = None

    def matrix(self, series: Sequence[np.ndarray]) -> list[np.ndarray]:
        chosen = series[: self.forks] if self.forks is not None else series
        end = None if self.iterations is None else self.warmup + self.iterations
        return [s[self.warmup:end] for s in chosen]

    def iterations_used(self, series: Sequence[np.ndarray]) -> int:
        chosen = series[: self.forks] if self.forks is not None else series
        if self.iterations is None:
            return sum(s.size for s in chosen)
        limit = self.warmup + self.iterations
        return sum(min(s.size, limit) for s in chosen)


@dataclass(frozen=True)
class AAOptions:
    """The A/A test: interval of the ratio of means at ``confidence``; "same" iff it contains 1.

    Default: the verdicts' interval, ``"log-t"`` —
    :func:`benchwarden.stats.ci_ratio_log_t`, a *t* interval on the log fork
    summaries at 95 % (the study used a 99 % percentile hierarchical
    bootstrap: ``AAOptions(0.99, "percentile")``); the other methods are
    :func:`benchwarden.stats.ci_ratio_of_means`'s.
    """

    confidence: float = 0.95
    method: str = "log-t"
    resamples: int = 10_000
    seed: int = 0


@dataclass(frozen=True)
class ReplayedBenchmark:
    """One benchmark under one configuration."""

    key: str
    warmup_iterations: tuple[int, ...]  # per fork used
    warmup_stable: tuple[bool, ...]  # per fork: ended because stable (not at the bound)
    forks_stable: bool
    iterations: int  # warmup + measurement iterations used
    baseline_iterations: int
    change: float  # |mean_dyn / mean_base − 1|
    ratio_low: float
    ratio_high: float
    compute_s: float
    checkpoints: int
    warmup_decisions: tuple[tuple[StopDecision, ...], ...] = ()
    fork_decisions: tuple[StopDecision, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def forks(self) -> int:
        return len(self.warmup_iterations)

    @property
    def aa_same(self) -> bool:
        return self.ratio_low <= 1.0 <= self.ratio_high


@dataclass(frozen=True)
class ReplayEvaluation:
    """A configuration's results over every replayable benchmark, with the study's summary figures."""

    config: ReplayConfig
    benchmarks: tuple[ReplayedBenchmark, ...]
    iteration_time_s: float = 1.0
    skipped: tuple[tuple[str, str], ...] = ()  # (benchmark key, why)

    def _require(self) -> None:
        if not self.benchmarks:
            raise ValueError("no benchmark could be replayed")

    @property
    def time_saved(self) -> float:
        """``1 − Σ t_dyn / Σ t_base`` over all benchmarks (the study's suite-level figure)."""
        return self.time_saved_with(0.0)

    def time_saved_with(self, overhead: float) -> float:
        """:attr:`time_saved` with the criterion overhead φ charged to warmup (:func:`dynamic_seconds`)."""
        self._require()
        mi = self.config.bounds.iterations
        dynamic = sum(dynamic_seconds(b.warmup_iterations, mi, 1.0, overhead) for b in self.benchmarks)
        return 1.0 - dynamic / sum(b.baseline_iterations for b in self.benchmarks)

    @property
    def aa_same_share(self) -> float:
        self._require()
        return float(np.mean([b.aa_same for b in self.benchmarks]))

    @property
    def changes(self) -> np.ndarray:
        return np.array([b.change for b in self.benchmarks], dtype=float)

    def change_below(self, level: float) -> float:
        self._require()
        return float(np.mean(self.changes < level))

    @property
    def mean_warmup(self) -> float:
        self._require()
        return float(np.mean([w for b in self.benchmarks for w in b.warmup_iterations]))

    @property
    def mean_forks(self) -> float:
        self._require()
        return float(np.mean([b.forks for b in self.benchmarks]))

    @property
    def never_warmup_stable(self) -> float:
        """Share of forks whose warmup ran to the bound without stability."""
        self._require()
        return float(np.mean([not s for b in self.benchmarks for s in b.warmup_stable]))

    @property
    def never_fork_stable(self) -> float:
        """Share of benchmarks whose forks ran to the bound without stability."""
        self._require()
        return float(np.mean([not b.forks_stable for b in self.benchmarks]))

    @property
    def compute_per_checkpoint_s(self) -> float:
        checkpoints = sum(b.checkpoints for b in self.benchmarks)
        return sum(b.compute_s for b in self.benchmarks) / checkpoints if checkpoints else 0.0

    @property
    def overhead(self) -> float:
        """Criterion CPU time as a share of the simulated dynamic run time (iterations × iteration time)."""
        run_s = sum(b.iterations for b in self.benchmarks) * self.iteration_time_s
        return sum(b.compute_s for b in self.benchmarks) / run_s if run_s else 0.0

    def to_json(self) -> dict:
        self._require()
        changes = self.changes
        return {
            "config": self.config.label,
            "criteria": [c.to_dict() for c in self.config.criteria],
            "bounds": vars(self.config.bounds),
            "benchmarks": len(self.benchmarks),
            "time_saved": self.time_saved,
            "aa_same": self.aa_same_share,
            "change_mean": float(changes.mean()), "change_sd": float(changes.std(ddof=1)) if changes.size > 1 else 0.0,
            "change_below": {f"{level:g}": self.change_below(level) for level in CHANGE_LEVELS},
            "warmup_mean": self.mean_warmup, "forks_mean": self.mean_forks,
            "never_warmup_stable": self.never_warmup_stable, "never_fork_stable": self.never_fork_stable,
            "compute_per_checkpoint_s": self.compute_per_checkpoint_s, "overhead": self.overhead,
            "skipped": [list(s) for s in self.skipped],
            "per_benchmark": [{
                "benchmark": b.key, "warmup_iterations": list(b.warmup_iterations), "forks": b.forks,
                "forks_stable": b.forks_stable, "iterations": b.iterations, "baseline_iterations": b.baseline_iterations,
                "change": b.change, "ratio_ci": [b.ratio_low, b.ratio_high], "aa_same": b.aa_same,
                "notes": list(b.notes)} for b in self.benchmarks],
        }


@dataclass(frozen=True)
class Simulation:
    """What a live run would have done with the recorded series: per-fork warmup ends and the measurement."""

    warmup_iterations: tuple[int, ...]
    warmup_stable: tuple[bool, ...]
    forks_stable: bool
    measurement: tuple[np.ndarray, ...]
    warmup_decisions: tuple[tuple[StopDecision, ...], ...]
    fork_decisions: tuple[StopDecision, ...]
    compute_s: float
    checkpoints: int
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def iterations(self) -> int:
        return sum(w + m.size for w, m in zip(self.warmup_iterations, self.measurement))


def dynamic_seconds(warmup_iterations: Sequence[int], measurement_iterations: int, iteration_time_s: float,
                    overhead: float = 0.0) -> float:
    """Time of a dynamic benchmark: ``Σ_f [(1 + φ)·wi_f·wt + mi·mt]`` (Würsten 2020 eq. 5.5; seed-004 §5.5).

    ``overhead`` φ charges the criterion computation to the warmup iterations
    as the study did; benchwarden computes criteria while the harness runs
    the next iteration, so replay reports φ separately and uses φ = 0 here.
    """
    return sum((1.0 + overhead) * w * iteration_time_s + measurement_iterations * iteration_time_s
               for w in warmup_iterations)


def recorded_series(result: BenchmarkResult) -> list[np.ndarray]:
    """Every complete fork's iterations in recorded order (warmup, then measurement), in ns/op."""
    return [np.array([it.value_ns for it in (*f.warmup, *f.measurement)], dtype=float)
            for f in result.forks if f.status is ForkStatus.COMPLETE]


def simulate(series: Sequence[np.ndarray], config: ReplayConfig,
             clock: Callable[[], float] = time.perf_counter) -> Simulation:
    """Algorithm 1 of Laaber et al. on recorded forks (see the module docstring).  Needs ``f_min`` forks.

    Each recorded fork is fed, value by value, through the runner's own fork
    state machine (:class:`~benchwarden.runner.labels.ForkLabels`), so warmup
    ends, re-measurements and warnings are exactly what a live run would have
    produced.  A recording shorter than ``warmup.max + iterations`` caps that
    fork's warmup (noted).
    """
    bounds = config.bounds
    if len(series) < bounds.forks_min:
        raise ValueError(f"{len(series)} recorded fork(s); the bounds need at least forks.min = {bounds.forks_min}")
    policy = _Timed(config.policy(), clock)
    warmups: list[int] = []
    stable_flags: list[bool] = []
    measurement: list[np.ndarray] = []
    warmup_values: list[list[float]] = []
    warmup_trail: list[tuple[StopDecision, ...]] = []
    fork_trail: list[StopDecision] = []
    notes: list[str] = []
    forks_stable = False
    for index, recorded in enumerate(series[: bounds.forks_max], start=1):
        usable_max = min(bounds.warmup_max, recorded.size - bounds.iterations)
        if usable_max < bounds.warmup_min:
            raise ValueError(f"fork {index}: {recorded.size} recorded iterations; need at least "
                             f"warmup.min + iterations = {bounds.warmup_min + bounds.iterations}")
        fork_bounds = bounds
        if usable_max < bounds.warmup_max:
            notes.append(f"fork {index}: warmup capped at {usable_max} by the recording ({recorded.size} iterations)")
            fork_bounds = replace(bounds, warmup_max=usable_max)
        labels: ForkLabels[float] = ForkLabels(policy, fork_bounds, float)
        for value in recorded[: fork_bounds.warmup_max + bounds.iterations]:
            labels.add(float(value))
            if labels.done:
                break
        last = last_warmup_checkpoint(labels.decisions)
        warmups.append(len(labels.warmup))
        stable_flags.append(bounds.warmup_max == 0 or (last is not None and last.reason in STABLE_WARMUP_REASONS)
                            and not any(d.reason == "level-changed-at-bound" for d in labels.decisions))
        warmup_trail.append(tuple(labels.decisions))
        measurement.append(np.asarray(labels.measurement, dtype=float))
        warmup_values.append(list(labels.warmup))
        decision = policy.fork_decision(bounds, [m.tolist() for m in measurement], warmup_values)
        unsettled = getattr(policy.policy, "unsettled", None)  # the dynamic policy's own verdict (scout included)
        if unsettled is not None and len(unsettled) >= index:
            stable_flags[-1] = not unsettled[index - 1]
        if index >= bounds.forks_min:
            fork_trail.append(decision)
            if decision.stop:  # as the runner: any stop ends the benchmark ("unsettled" too)
                forks_stable = decision.reason in ("stable", "static", "fixed")
                break
    if len(measurement) < bounds.forks_max and not forks_stable:
        notes.append(f"only {len(measurement)} of forks.max = {bounds.forks_max} forks recorded")
    return Simulation(tuple(warmups), tuple(stable_flags), forks_stable, tuple(measurement), tuple(warmup_trail),
                      tuple(fork_trail), policy.compute_s, policy.checkpoints, tuple(notes))


#: warmup ended because the policy said so (not at a bound without stability)
STABLE_WARMUP_REASONS = frozenset({"stable", "static", "fixed", "scout"})


class _Timed:
    """A stop policy whose decisions are timed (the criteria's CPU cost) and counted."""

    def __init__(self, policy: StopPolicy, clock: Callable[[], float]):
        self.policy, self.clock = policy, clock
        self.name = policy.name
        self.compute_s, self.checkpoints = 0.0, 0

    def _timed(self, call, *args):
        start = self.clock()
        try:
            return call(*args)
        finally:
            self.compute_s += self.clock() - start
            self.checkpoints += 1

    def warmup_decision(self, bounds, warmup_ns):
        return self._timed(self.policy.warmup_decision, bounds, warmup_ns)

    def measurement_decision(self, bounds, warmup_ns, measurement_ns):
        return self._timed(self.policy.measurement_decision, bounds, warmup_ns, measurement_ns)

    def fork_decision(self, bounds, forks_ns, warmups_ns=None):
        return self._timed(self.policy.fork_decision, bounds, forks_ns, warmups_ns)


def _fork_means_mean(matrix: Sequence[np.ndarray]) -> float:
    return float(np.mean([np.mean(m) for m in matrix]))


def subset_change(baseline: Sequence[np.ndarray], k: int) -> float:
    """The change rate of a perfect k-fork rule: mean over every k-subset S of the baseline's forks of
    ``|mean_{f∈S} x̄_f / mean_{all f} x̄_f − 1|`` (x̄_f: fork f's mean; the same mean of fork means as the
    change rate of Laaber et al. FSE 2020 §5.5).

    A rule that stopped after k forks of exactly the static configuration's steady state would show this
    change against the static baseline, so it is the floor a measured change rate should be read against:
    the part of the fork-to-fork variation (e.g. JIT modes) that k forks cannot average away.  0 when
    ``k`` covers every fork; ``k`` must be at least 1.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    means = np.array([np.mean(m) for m in baseline], dtype=float)
    if k >= means.size:
        return 0.0
    overall = means.mean()
    subsets = np.array(list(itertools.combinations(range(means.size), k)))
    return float(np.mean(np.abs(means[subsets].mean(axis=1) / overall - 1.0)))


def replay_benchmark(key: str, series: Sequence[np.ndarray], config: ReplayConfig, baseline: Baseline = Baseline(),
                     aa: AAOptions = AAOptions(), rng: np.random.Generator | None = None) -> ReplayedBenchmark:
    """Simulate ``config`` on one benchmark's recorded forks and compare the result with the baseline."""
    sim = simulate(series, config)
    base = baseline.matrix(series)
    if any(m.size == 0 for m in base):
        raise ValueError(f"the baseline drops {baseline.warmup} iterations per fork, but a fork has no more")
    if aa.method == "log-t":
        interval = stats.ci_ratio_log_t(cast("ForkData", base), cast("ForkData", list(sim.measurement)),
                                        confidence=aa.confidence)
    else:
        interval = stats.ci_ratio_of_means(base, list(sim.measurement), confidence=aa.confidence,
                                           n_resamples=aa.resamples, seed=rng if rng is not None else aa.seed,
                                           method=aa.method)
    change = abs(_fork_means_mean(sim.measurement) / _fork_means_mean(base) - 1.0)
    return ReplayedBenchmark(
        key=key, warmup_iterations=sim.warmup_iterations, warmup_stable=sim.warmup_stable,
        forks_stable=sim.forks_stable, iterations=sim.iterations,
        baseline_iterations=baseline.iterations_used(series), change=change, ratio_low=interval.low,
        ratio_high=interval.high, compute_s=sim.compute_s, checkpoints=sim.checkpoints,
        warmup_decisions=sim.warmup_decisions, fork_decisions=sim.fork_decisions, notes=sim.notes)


def replay_run(run: RunData, configs: Iterable[ReplayConfig], baseline: Baseline = Baseline(),
               aa: AAOptions = AAOptions(), keep: Callable[[str], bool] = lambda key: True,
               iteration_time_s: float | None = None) -> list[ReplayEvaluation]:
    """Replay every configuration on every benchmark of ``run`` (benchmarks that cannot be replayed are listed).

    ``iteration_time_s`` (for the overhead share) defaults to the run's
    stored setting of the first suite, else 1 s.
    """
    it_s = iteration_time_s if iteration_time_s is not None else stored_iteration_time_s(run)
    chosen = [(str(r.benchmark.id), recorded_series(r)) for r in run.results if keep(r.benchmark.id.key)]
    evaluations = []
    for config in configs:
        rng = np.random.default_rng(aa.seed)
        done: list[ReplayedBenchmark] = []
        skipped: list[tuple[str, str]] = []
        for key, series in chosen:
            try:
                done.append(replay_benchmark(key, series, config, baseline, aa, rng))
            except ValueError as exc:
                skipped.append((key, str(exc)))
        evaluations.append(ReplayEvaluation(config, tuple(done), it_s, tuple(skipped)))
    return evaluations


def stored_iteration_time_s(run: RunData) -> float:
    """The iteration time the run was recorded with (first suite of its config snapshot), else 1 s."""
    suites = run.meta.config.get("suites") if isinstance(run.meta.config, dict) else None
    if isinstance(suites, dict):
        for entry in suites.values():
            value = entry.get("settings", {}).get("iteration_time_s") if isinstance(entry, dict) else None
            if isinstance(value, (int, float)) and value > 0:
                return float(value)
    return 1.0
