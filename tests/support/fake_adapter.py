"""A deterministic in-process adapter for fast runner and CLI tests (no harness processes).

Each benchmark's iteration values come from a function ``values(fork_index, iteration) -> ns``;
failures and interrupts can be injected at a given fork and iteration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator

from benchwarden.adapters.base import ForkPlan, PreparedSuite, SuiteContext
from benchwarden.errors import ForkFailed
from benchwarden.model import Benchmark, BenchmarkId, IterationResult


@dataclass
class FakeBenchmarkSpec:
    name: str
    values: Callable[[int, int], float] = lambda fork, i: 100.0
    crash_at: tuple[int, int] | None = None  # (fork_index, iteration) -> ForkFailed
    interrupt_at: tuple[int, int] | None = None  # (fork_index, iteration) -> KeyboardInterrupt
    params: tuple[tuple[str, str], ...] = ()
    skip: bool = False  # the harness declines this combination (asv NotImplementedError in setup)
    lose_at: tuple[int, int] | None = None  # (fork_index, iteration) -> ForkFailed "lost" (its machine went away)
    machine: dict[str, str] | None = None  # where the forks say they ran (a cluster worker), None: not said


@dataclass
class FakeFork:
    spec: FakeBenchmarkSpec
    plan: ForkPlan
    stopped: bool = False
    produced: int = 0

    def __iter__(self) -> Iterator[IterationResult]:
        if self.spec.skip:
            raise ForkFailed(self.spec.name, "skipped", "setup raised NotImplementedError")
        for i in range(1, self.plan.max_iterations + 1):
            if self.stopped:
                return
            if self.spec.crash_at == (self.plan.fork_index, i):
                raise ForkFailed(self.spec.name, "crashed", "exit status 1", output="boom")
            if self.spec.lose_at == (self.plan.fork_index, i):
                raise ForkFailed(self.spec.name, "lost", "worker w1 left the cluster mid-fork")
            if self.spec.interrupt_at == (self.plan.fork_index, i):
                raise KeyboardInterrupt()
            v = self.spec.values(self.plan.fork_index, i)
            self.produced += 1
            yield IterationResult(value_ns=v, raw_value=v)

    def stop(self) -> None:
        self.stopped = True

    def output_tail(self) -> str:
        return ""

    @property
    def machine(self) -> dict[str, str] | None:
        return self.spec.machine


@dataclass
class FakeAdapter:
    specs: list[FakeBenchmarkSpec]
    kind: str = "fake"
    forks_started: list[tuple[str, int]] = field(default_factory=list)
    fail_prepare: Exception | None = None

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        if self.fail_prepare is not None:
            raise self.fail_prepare
        return PreparedSuite(toolchain={"fake": "1.0"})

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        return [Benchmark(id=BenchmarkId(ctx.name, s.name, s.params), mode="avgt", unit="ns/op") for s in self.specs]

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> FakeFork:
        spec = next(s for s in self.specs if s.name == benchmark.id.name and s.params == benchmark.id.params)
        self.forks_started.append((benchmark.id.key, plan.fork_index))
        return FakeFork(spec, plan)


class DemoFakeAdapter(FakeAdapter):
    """The fake kind registered by CLI tests: two steady benchmarks and, with ``FAKE_CRASH=1``, a crashing one."""

    def __init__(self) -> None:
        import os

        specs = [
            FakeBenchmarkSpec("parse", values=lambda f, i: 100.0 + (i % 3) + f, params=(("size", "10"),)),
            FakeBenchmarkSpec("format", values=lambda f, i: 250.0 + (i % 2)),
        ]
        if os.environ.get("FAKE_CRASH") == "1":
            specs.append(FakeBenchmarkSpec("broken", crash_at=(1, 2)))
        super().__init__(specs)
