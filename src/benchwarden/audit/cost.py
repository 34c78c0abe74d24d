"""Cost model: how long a JMH suite runs under its own configuration, JMH's defaults, and benchwarden's dynamic mode.

Per benchmark x parameter combination x benchmark mode (Würsten 2020,
eqs. 2.1-2.3; Laaber et al. 2020, §2.3)::

    t = wf * (wi*wt + mi*mt)  +  f * (wi*wt + mi*mt)

with ``wf`` warmup forks (a warmup fork is charged as a whole trial), ``f``
forks, ``wi``/``mi`` warmup/measurement iterations of ``wt``/``mt`` seconds.
``@Fork(0)`` runs once inside the host JVM: one trial, warmup forks ignored.
JMH runs each listed mode as a separate benchmark, so a benchmark's time is
summed over its *timed* modes.  Single-shot iterations last one invocation,
whose duration the sources cannot tell, so single-shot modes are left out of
the time (as in the thesis, L802) and listed as ``untimed_modes``.  The
suite total is the sum over benchmarks of (time per combination x number of
combinations).

The model is a lower bound: JVM start-up, fixtures, and the fact that an
iteration ends only after its running invocation finishes are not counted
(off by 1.8% +- 2.3% in the thesis, L1109).

**Dynamic mode.** benchwarden measures each benchmark x combination once (in
one mode).  With stored runs the observed wall time of its forks is used.
Otherwise the *estimate* is the study's dynamic configuration
<wi_min=5, wi_max=50, mi=10, f_min=2, f_max=5> of 1-s iterations at the
executed averages Würsten reports for the divergence criterion (Table 5.8:
14.1 warmup iterations, 4.1 forks): 4.1 x (14.1 + 10) x 1 s = 98.8 s, within
the bounds 2 x (5 + 10) = 30 s and 5 x (50 + 10) = 300 s.  It is an estimate
from ten other projects on other hardware, labelled as such in every output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from benchwarden.audit.defaults import JmhDefaults
from benchwarden.audit.resolve import TIMED_MODES, BenchmarkConfig
from benchwarden.model import ForkStatus, RunData


@dataclass(frozen=True)
class RunShape:
    """The effective static configuration of one benchmark in one mode (times in seconds)."""

    forks: int
    warmup_forks: int
    warmup_iterations: int
    warmup_time_s: float
    measurement_iterations: int
    measurement_time_s: float

    @property
    def trial_s(self) -> float:
        """One fork: warmup plus measurement."""
        return self.warmup_iterations * self.warmup_time_s + self.measurement_iterations * self.measurement_time_s

    @property
    def combination_s(self) -> float:
        """Eqs. 2.1-2.3: all (warmup) forks of one parameter combination."""
        if self.forks == 0:
            return self.trial_s
        return (self.warmup_forks + self.forks) * self.trial_s


@dataclass(frozen=True)
class DynamicConfig:
    """Bounds of the dynamic configuration and the executed averages used for the estimate."""

    warmup_min: int = 5
    warmup_max: int = 50
    measurement_iterations: int = 10
    forks_min: int = 2
    forks_max: int = 5
    iteration_time_s: float = 1.0
    expected_warmup_iterations: float = 14.1  # Würsten 2020, Table 5.8, divergence
    expected_forks: float = 4.1

    @property
    def expected_s(self) -> float:
        return self.expected_forks * (self.expected_warmup_iterations + self.measurement_iterations) * self.iteration_time_s

    @property
    def min_s(self) -> float:
        return self.forks_min * (self.warmup_min + self.measurement_iterations) * self.iteration_time_s

    @property
    def max_s(self) -> float:
        return self.forks_max * (self.warmup_max + self.measurement_iterations) * self.iteration_time_s


STUDY_DYNAMIC = DynamicConfig()


@dataclass(frozen=True)
class BenchmarkCost:
    """Estimated seconds for one benchmark over all its parameter combinations and timed modes."""

    benchmark: str
    combinations: int
    timed_modes: tuple[str, ...]
    untimed_modes: tuple[str, ...]
    own: RunShape  # effective shape of the first timed mode (or of the first mode)
    own_s: float
    default_s: float
    dynamic_s: float
    dynamic_observed: int  # combinations whose dynamic time comes from stored runs (rest: estimate)


@dataclass(frozen=True)
class SuiteCost:
    own_s: float
    default_s: float
    dynamic_s: float
    dynamic_observed: int
    combinations: int

    @property
    def dynamic_source(self) -> str:
        if self.dynamic_observed == 0:
            return "estimate"
        return "stored runs" if self.dynamic_observed == self.combinations else "stored runs + estimate"


def modes_of(config: BenchmarkConfig, defaults: JmhDefaults) -> tuple[str, ...]:
    return tuple(config.modes.value) if config.modes is not None else (defaults.mode,)  # type: ignore[arg-type]


def effective_shape(config: BenchmarkConfig, defaults: JmhDefaults, mode: str) -> RunShape:
    """The project's configuration: explicit settings, JMH's defaults (for ``mode``) for the rest."""
    single = mode == "SingleShotTime"

    def pick(setting, default):
        return setting.value if setting is not None else default

    return RunShape(
        forks=pick(config.forks, defaults.forks),
        warmup_forks=pick(config.warmup_forks, defaults.warmup_forks),
        warmup_iterations=pick(config.warmup_iterations,
                               defaults.singleshot_warmup_iterations if single else defaults.warmup_iterations),
        warmup_time_s=pick(config.warmup_time_s, defaults.warmup_time_s),
        measurement_iterations=pick(config.measurement_iterations,
                                    defaults.singleshot_measurement_iterations if single else defaults.measurement_iterations),
        measurement_time_s=pick(config.measurement_time_s, defaults.measurement_time_s),
    )


def default_shape(defaults: JmhDefaults) -> RunShape:
    return RunShape(defaults.forks, defaults.warmup_forks, defaults.warmup_iterations, defaults.warmup_time_s,
                    defaults.measurement_iterations, defaults.measurement_time_s)


def observed_seconds(runs: Iterable[RunData]) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Wall time of each stored benchmark x combination: the sum of its complete forks' durations.

    Keyed by (JMH name, set of (param, value)) so parameter order does not
    matter; later runs replace earlier ones (pass runs oldest first).
    """
    out: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for run in runs:
        for result in run.results:
            complete = [f for f in result.forks if f.status is ForkStatus.COMPLETE]
            total = sum(f.duration_s for f in complete)
            if complete and total > 0:
                out[(result.benchmark.id.name, frozenset(result.benchmark.id.params))] = total
    return out


def _combinations(config: BenchmarkConfig) -> list[frozenset[tuple[str, str]]]:
    combos: list[list[tuple[str, str]]] = [[]]
    for p in config.params:
        values = p.values or ("",)
        combos = [c + [(p.name, v)] for c in combos for v in values]
    return [frozenset(c) for c in combos]


def benchmark_cost(config: BenchmarkConfig, defaults: JmhDefaults,
                   observed: Mapping[tuple[str, frozenset[tuple[str, str]]], float] | None = None,
                   dynamic: DynamicConfig = STUDY_DYNAMIC) -> BenchmarkCost:
    """Cost of one benchmark under its own configuration, JMH's defaults, and the dynamic mode."""
    modes = modes_of(config, defaults)
    timed = tuple(m for m in modes if m in TIMED_MODES)
    untimed = tuple(m for m in modes if m not in TIMED_MODES)
    n = config.combinations
    own_per = sum(effective_shape(config, defaults, m).combination_s for m in timed)
    default_per = default_shape(defaults).combination_s * len(timed)
    dynamic_s, seen = 0.0, 0
    if timed:
        if observed and n <= 100_000:
            for combo in _combinations(config):
                got = observed.get((config.name, combo))
                if got is not None:
                    dynamic_s += got
                    seen += 1
        dynamic_s += (n - seen) * dynamic.expected_s
    shape = effective_shape(config, defaults, timed[0] if timed else modes[0])
    return BenchmarkCost(config.name, n, timed, untimed, shape, own_per * n, default_per * n, dynamic_s, seen)


def suite_cost(costs: Iterable[BenchmarkCost]) -> SuiteCost:
    costs = list(costs)
    return SuiteCost(
        own_s=sum(c.own_s for c in costs),
        default_s=sum(c.default_s for c in costs),
        dynamic_s=sum(c.dynamic_s for c in costs),
        dynamic_observed=sum(c.dynamic_observed for c in costs),
        combinations=sum(c.combinations for c in costs if c.timed_modes),
    )
