"""An in-process harness for check tests: benchmarks with known means and seeded two-level noise.

Means (ns/op): ``fast`` reads its mean from ``fast.txt`` in the suite root when present (so a commit
can change it), else 100 (150 with ``SPL_FAKE_SLOW=1``); ``slow`` 130; ``same`` 100; ``sized[n=10]``
100 and ``sized[n=100]`` 1000; ``crash`` fails in its first fork.  Every fork draws its own offset
(2%) and every iteration its own noise (3%) from a seeded stream, so forks differ as real ones do.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from benchwarden.adapters.base import ForkPlan, PreparedSuite, SuiteContext
from benchwarden.errors import ForkFailed, ToolchainMissing
from benchwarden.model import Benchmark, BenchmarkId, IterationResult

STARTED: list[tuple[str, str]] = []  # (suite root, benchmark key) of every fork, for assertions
_FORK_SEEDS = itertools.count()

BENCHMARKS = [("fast", ()), ("slow", ()), ("same", ()), ("sized", (("n", "10"),)), ("sized", (("n", "100"),)),
              ("crash", ())]


def mean_of(ctx: SuiteContext, bid: BenchmarkId) -> float:
    if bid.name == "fast":
        path = ctx.root / "fast.txt"
        if path.exists():
            return float(path.read_text().strip())
        return 150.0 if os.environ.get("SPL_FAKE_SLOW") == "1" else 100.0
    if bid.name == "sized":
        return 100.0 if dict(bid.params)["n"] == "10" else 1000.0
    return {"slow": 130.0, "same": 100.0, "crash": 1.0}[bid.name]


@dataclass
class _Fork:
    mean: float
    plan: ForkPlan
    crash: bool
    stopped: bool = field(default=False)

    def __iter__(self) -> Iterator[IterationResult]:
        if self.crash:
            raise ForkFailed("crash", "crashed", "exit status 3", output="boom")
        rng = np.random.default_rng([20240601, next(_FORK_SEEDS)])
        offset = rng.lognormal(0.0, 0.02)
        for _ in range(self.plan.max_iterations):
            if self.stopped:
                return
            v = float(self.mean * offset * rng.lognormal(0.0, 0.03))
            yield IterationResult(value_ns=v, raw_value=v)

    def stop(self) -> None:
        self.stopped = True

    def output_tail(self) -> str:
        return ""


class SplFakeAdapter:
    kind = "splfake"

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        return PreparedSuite(toolchain={"splfake": "1"})

    def prepare_metric(self, ctx: SuiteContext, metric: str) -> None:
        if os.environ.get("SPL_FAKE_NO_TOOL"):  # a tool the metric needs is missing (as javac for JMH's CPU time)
            raise ToolchainMissing("faketool", ctx.name, f"{metric} needs it")

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        return [Benchmark(BenchmarkId(ctx.name, name, params), mode="avgt", unit="ns/op") for name, params in BENCHMARKS]

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> _Fork:
        STARTED.append((str(ctx.root), benchmark.id.key))
        return _Fork(mean_of(ctx, benchmark.id), plan, benchmark.id.name == "crash")
