"""An in-process adapter whose two "versions" differ by an environment variable, with seeded noise.

``FAKE_FACTOR`` in the suite's (or fork's) environment scales every value, so a variant
``--variant-env FAKE_FACTOR=1.2`` is a 20 % slowdown.  Each fork draws a fork offset
(LogNormal, σ = ``fork_sigma``) and per-iteration noise (σ = ``iteration_sigma``) from one
seeded generator shared by every fork, so a session is deterministic for a seed.
Benchmarks named ``crash*`` fail in the fork given by ``crash_fork`` on the candidate side.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from benchwarden.adapters.base import ForkPlan, PreparedSuite, SuiteContext
from benchwarden.errors import ForkFailed
from benchwarden.model import Benchmark, BenchmarkId, Direction, IterationResult


@dataclass
class VersionedFork:
    values: list[float]
    unit: str
    fail_after: int | None = None
    stopped: bool = False
    delay_s: float = 0.0  # wall time per iteration, for tests of forks that run at the same time
    spans: list | None = None  # (start, end) of the iteration loop is appended here when given

    def __iter__(self) -> Iterator[IterationResult]:
        start = time.monotonic()
        try:
            yield from self._iterations()
        finally:
            if self.spans is not None:
                self.spans.append((start, time.monotonic()))

    def _iterations(self) -> Iterator[IterationResult]:
        for i, v in enumerate(self.values, start=1):
            if self.delay_s:
                time.sleep(self.delay_s)
            if self.stopped:
                return
            if self.fail_after is not None and i > self.fail_after:
                raise ForkFailed("crash", "crashed", "exit status 1", output="boom")
            raw = 1e9 / v if self.unit == "ops/s" else v
            yield IterationResult(value_ns=v, raw_value=raw)

    def stop(self) -> None:
        self.stopped = True

    def output_tail(self) -> str:
        return ""


@dataclass
class VersionedAdapter:
    names: tuple[str, ...] = ("steady", "thrpt")
    mean_ns: float = 1000.0
    fork_sigma: float = 0.01
    iteration_sigma: float = 0.01
    seed: int = 0
    crash_fork: int = 2
    kind: str = "fake"
    delay_s: float = 0.0
    delay_scales: bool = False  # each iteration's wall time × the version's factor (a slower version takes longer)
    started: list[tuple[str, float, int]] = field(default_factory=list)  # (benchmark, factor, fork index)
    spans: list[tuple[float, float]] = field(default_factory=list)  # one per fork, in the order forks end

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        return PreparedSuite(toolchain={"fake": "1.0"})

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        out = []
        for name in self.names:
            thrpt = name.startswith("thrpt")
            out.append(Benchmark(BenchmarkId(ctx.name, name), mode="thrpt" if thrpt else "avgt",
                                 unit="ops/s" if thrpt else "ns/op",
                                 direction=Direction.HIGHER_IS_BETTER if thrpt else Direction.LOWER_IS_BETTER))
        return out

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> VersionedFork:
        env = {**ctx.env, **plan.env}
        factor = float(env.get("FAKE_FACTOR", "1.0"))
        self.started.append((benchmark.id.name, factor, plan.fork_index))
        offset = self.rng.lognormal(0.0, self.fork_sigma)
        noise = self.rng.normal(1.0, self.iteration_sigma, plan.max_iterations)
        values = list(self.mean_ns * factor * offset * np.abs(noise))
        fail = None
        if benchmark.id.name.startswith("crash") and factor != 1.0 and plan.fork_index == self.crash_fork:
            fail = 1
        delay = self.delay_s * (factor if self.delay_scales else 1.0)
        return VersionedFork(values, benchmark.unit, fail_after=fail, delay_s=delay, spans=self.spans)


_instances = iter(range(1_000_000))


class CliVersionedAdapter(VersionedAdapter):
    """Constructible without arguments, for the adapter registry in CLI tests; a fresh noise stream each."""

    def __init__(self) -> None:
        super().__init__(names=("steady", "thrpt"), fork_sigma=0.005, iteration_sigma=0.005, seed=next(_instances))
