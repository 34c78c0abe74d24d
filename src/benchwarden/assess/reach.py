"""Which benchmark reaches which method (traced once), and the machine-time account of an assessment.

The study re-ran the *whole* suite for every method of K′, twice: 2·(|K′|+1) full runs (§6.1; digest
seed-003 §3.1), 7.5 hours to 15 days per project. A benchmark that never calls a method cannot detect
its slowdown, so one traced fork per benchmark tells which benchmarks can matter for each method; only
those run with that method slowed. Tracing over-approximates (calls from setup code count as reaching),
which costs time but never misses a detector.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from benchwarden.adapters.base import ForkPlan
from benchwarden.assess.inject import Tracing, safe_name
from benchwarden.errors import BenchwardenError
from benchwarden.runner.engine import PlannedBenchmark

#: iteration time of a tracing fork: the calls matter, not the timing
TRACE_ITERATION_S = 0.05


@dataclass(frozen=True)
class ReachMap:
    """``calls[benchmark key][method]`` = calls counted in one traced fork of that benchmark."""

    calls: Mapping[str, Mapping[str, int]]
    trace_s: float
    failed: Mapping[str, str] = field(default_factory=dict)  # benchmark key -> why its trace failed

    def benchmarks_reaching(self, method: str) -> list[str]:
        """Benchmarks that called ``method`` (any overload, for a Java name without a parameter list); a benchmark
        whose trace failed is assumed to reach everything."""
        return sorted(k for k, calls in self.calls.items() if calls_of(calls, method) > 0) + sorted(self.failed)

    def total_calls(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for calls in self.calls.values():
            for method, n in calls.items():
                total[method] = total.get(method, 0) + n
        return total


def calls_of(calls: Mapping[str, int], method: str) -> int:
    """Calls of ``method`` in one trace.  The tracers name Java methods with their parameter types
    (``pkg.Class#name(int)``); a Java name given without them (``pkg.Class#name``) means every overload, as the
    agent slows every overload of it (docs/assess.md, "Method names").  Go and Python names match exactly."""
    if "#" in method and "(" not in method:
        return sum(n for m, n in calls.items() if m == method or m.startswith(method + "("))
    return calls.get(method, 0)


def disjoint_groups(reaching: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """Methods grouped so that no benchmark reaches two methods of one group (group testing, issue #19).

    ``reaching[method]`` = the benchmarks that will run with it slowed. Within a group every benchmark runs
    with exactly one of the group's methods slowed as far as the traces tell, so one variant slowed in all of them
    answers each (method, benchmark) pair as that method's own variant would, and a detection is attributed back
    by reach. First fit in the given order (the most-called methods first), so the grouping is deterministic.
    A method whose caller slows it transitively is reached by the caller's benchmarks too, so nesting never
    shares a group; neither does a benchmark whose trace failed (it reaches every method).
    """
    groups: list[tuple[list[str], set[str]]] = []
    for method, keys in reaching.items():
        wanted = set(keys)
        for members, taken in groups:
            if not wanted & taken:
                members.append(method)
                taken |= wanted
                break
        else:
            groups.append(([method], wanted))
    return [members for members, _ in groups]


def trace_benchmarks(planned: Sequence[PlannedBenchmark], tracing: Tracing, workdir: Path,
                     monotonic: Callable[[], float] = time.monotonic) -> ReachMap:
    """Run one short fork of every benchmark with call counting; each writes to its own directory.

    The fork runs to its natural end (one iteration), so every helper's at-exit output is complete.
    """
    calls: dict[str, dict[str, int]] = {}
    failed: dict[str, str] = {}
    start = monotonic()
    for p in planned:
        key = p.benchmark.id.key
        out = workdir / "reach" / safe_name(key)
        jvm_args, env = tracing.fork_extras(out)
        settings, ctx = p.suite.settings, p.suite.context
        plan = ForkPlan(fork_index=1, iteration_time_s=min(settings.iteration_time_s, TRACE_ITERATION_S),
                        max_iterations=1, timeout_s=settings.fork_timeout_s(),
                        iteration_timeout_s=settings.silence_timeout_s(), jvm_args=jvm_args,
                        env={**ctx.env, **env})
        fork = None
        try:
            fork = p.adapter.start_fork(ctx, p.benchmark, plan)
            for _ in fork:
                pass
            calls[key] = tracing.read(out)
        except BenchwardenError as exc:
            failed[key] = str(exc)
        finally:
            if fork is not None:
                fork.stop()
    return ReachMap(calls, monotonic() - start, failed)


@dataclass(frozen=True)
class CostReport:
    """Machine time (seconds) of this assessment against the study's full-rerun design.

    ``study_s`` = repetitions · (|K′| + 1) full runs (2·(|K′|+1) with the study's two repetitions), each
    as long as one of our baseline runs.  ``used_s`` counts what ABS needed beyond the variability runs
    (which both designs need: the study's 5 runs of §5 came first): tracing, preparing the slowed
    variants, the slowed runs, and any baseline runs beyond the variability runs.
    """

    full_run_s: float
    n_methods: int
    repetitions: int
    trace_s: float
    prepare_s: float
    injected_s: float
    extra_baseline_s: float = 0.0
    variability_s: float = 0.0  # variability runs taken now (0 when all were reused from the store)
    wall_s: float = 0.0
    variants: int = 0  # slowed variants prepared: one per method, or per group of methods (group testing)

    @property
    def study_s(self) -> float:
        return self.repetitions * (self.n_methods + 1) * self.full_run_s

    @property
    def used_s(self) -> float:
        return self.trace_s + self.prepare_s + self.injected_s + self.extra_baseline_s

    @property
    def ratio(self) -> float | None:
        return self.used_s / self.study_s if self.study_s > 0 else None
