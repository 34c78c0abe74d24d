"""A deterministic in-process harness and injector for campaign tests (no processes, no helpers).

The fake benchmarks "call" methods according to ``REACHES``; a fork whose env names a slowed method
(``FAKE_SLOW``) runs proportionally slower when its benchmark spends time in that method
(``SHARE``); a fork with ``FAKE_TRACE`` writes trace lines as the real helpers do; with ``FAKE_CRASH``
every fork crashes.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from benchwarden.adapters.base import ForkPlan, PreparedSuite, SuiteContext
from benchwarden.assess.inject import Control, InjectionFailed, Tracing, Variant, read_jsonl_traces
from benchwarden.errors import BuildFailed, ForkFailed
from benchwarden.model import Benchmark, BenchmarkId, IterationResult

#: benchmark -> methods it calls (with how many calls per fork)
REACHES = {"fast": {"lib:a": 10, "lib:b": 5}, "solo": {"lib:b": 3}, "noisy": {"lib:a": 1}, "setup_only": {"lib:c": 1}}
#: benchmark -> method -> share of the benchmark's time spent in it (0: called from setup only)
SHARE = {"fast": {"lib:a": 0.8, "lib:b": 0.1}, "solo": {"lib:b": 0.9}, "noisy": {"lib:a": 0.5},
         "setup_only": {"lib:c": 0.0}}
MEANS = {"fast": 1000.0, "solo": 5000.0, "noisy": 2000.0, "setup_only": 800.0}


class FakeAssessFork:
    def __init__(self, name: str, plan: ForkPlan, seed: int):
        self.name, self.plan = name, plan
        self.rng = np.random.default_rng(seed)

    def __iter__(self):
        if "FAKE_CRASH" in self.plan.env:  # every fork of the suite crashes (a jar missing a dependency)
            raise ForkFailed(self.name, "crashed", "java.lang.NoClassDefFoundError: org/apache/commons/rng/X")
        trace = self.plan.env.get("FAKE_TRACE")
        if trace:
            Path(trace).mkdir(parents=True, exist_ok=True)
            lines = [json.dumps({"v": 1, "method": m, "calls": n}) for m, n in REACHES[self.name].items()]
            (Path(trace) / "trace-1.jsonl").write_text("\n".join(lines) + "\n")
        slowed = self.plan.env.get("FAKE_SLOW", "").split(",")
        factor = float(self.plan.env.get("FAKE_FACTOR", "0"))
        mean = MEANS[self.name] * (1 + factor * sum(SHARE[self.name].get(m, 0.0) for m in slowed))
        cv = 0.4 if self.name == "noisy" else 0.01
        fork_offset = self.rng.normal(0, cv)
        for _ in range(self.plan.max_iterations):
            yield IterationResult(value_ns=max(1.0, mean * (1 + fork_offset + self.rng.normal(0, cv / 2))),
                                  raw_value=mean)

    def stop(self):
        pass

    def output_tail(self):
        return ""


class FakeAssessAdapter:
    kind = "fake"
    forks = 0
    #: every fork started: (benchmark, what it ran as: "trace", "slowed", "control" or "plain")
    started: list[tuple[str, str]] = []
    #: every suite prepared (built), by name
    prepared: list[str] = []
    #: per fork started (as ``started``): the switchable build it ran (its methods), None for any other
    builds: list[str | None] = []

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        if "FAKE_BROKEN_BUILD" in ctx.env:
            raise BuildFailed(ctx.name, "go test -c", 1, "the probed copy does not compile")
        FakeAssessAdapter.prepared.append(ctx.name)
        return PreparedSuite(toolchain={"fake": "1"})

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        return [Benchmark(BenchmarkId(ctx.name, n), "avgt", "ns/op") for n in REACHES]

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> FakeAssessFork:
        FakeAssessAdapter.forks += 1
        env = {**ctx.env, **plan.env}
        role = next((r for var, r in (("FAKE_TRACE", "trace"), ("FAKE_SLOW", "slowed"), ("FAKE_CONTROL", "control"))
                     if var in env), "plain")
        FakeAssessAdapter.started.append((benchmark.id.name, role))
        FakeAssessAdapter.builds.append(env.get("FAKE_SWITCHES"))
        return FakeAssessFork(benchmark.id.name, replace(plan, env=env), seed=FakeAssessAdapter.forks)


class FakeInjector:
    """With ``groups``, one variant slows several methods (as the Go rewriter does) and preparing it fails, as the
    rewriter's does, when one of them is named in ``unknown``; without, one method per variant (as the agent).
    With ``switchable`` (as Go), the control is one build of the campaign's methods with a switch each
    (``FAKE_SWITCHES``), and a variant is that build with switches on; ``broken_control``: that build fails."""

    kind = "fake"

    def __init__(self, groups: bool = False, unknown: frozenset[str] = frozenset(),
                 control: str | None = "fake control", switchable: bool = False, broken_control: bool = False):
        self.groups, self.unknown, self.control_label = groups, unknown, control
        self.switchable, self.broken_control = switchable, broken_control
        self.slowed_methods: list[str] = []
        self.variants: list[tuple[str, ...]] = []
        self.traced_every_method: list[bool] = []
        self.control_methods: list[tuple[str, ...]] = []

    def default_packages(self, suite, benchmarks):
        return ["lib"]

    def control(self, suite, methods=(), workdir=None):
        """As the agent's control: something loaded beside the suite (``FAKE_CONTROL``), nothing slowed; with
        ``control=None``, the plain suite (as Python). Switchable: one build of ``methods``, switches off."""
        self.control_methods.append(tuple(methods))
        missing = [m for m in methods if m in self.unknown]
        if self.switchable and missing:  # as the rewriter: one unknown function and nothing is written
            raise InjectionFailed(f"probing {len(methods)} functions: function {missing[0]} not found")
        if self.switchable and methods:
            env = {**suite.context.env, "FAKE_CONTROL": "1", "FAKE_SWITCHES": ",".join(methods),
                   **({"FAKE_BROKEN_BUILD": "1"} if self.broken_control else {})}
            return Control(replace(suite, context=replace(suite.context, env=env)), f"switchable {len(methods)}",
                           {m: i for i, m in enumerate(methods)}, Control(suite))
        if self.control_label is None:
            return Control(suite)
        env = {**suite.context.env, "FAKE_CONTROL": "1"}
        return Control(replace(suite, context=replace(suite.context, env=env)), self.control_label)

    def slowed(self, suite, methods, factor, workdir, control=None):
        assert self.groups or len(methods) == 1
        if control is not None and control.switches:
            assert all(m in control.switches for m in methods)
            self.slowed_methods.extend(methods)
            self.variants.append(tuple(methods))
            env = {**control.suite.context.env, "FAKE_SLOW": ",".join(methods), "FAKE_FACTOR": repr(factor)}
            return Variant(replace(control.suite, context=replace(control.suite.context, env=env)), tuple(methods),
                           None, same_build=True)
        missing = [m for m in methods if m in self.unknown]
        if missing:
            raise InjectionFailed(f"slowing {', '.join(methods)}: function {missing[0]} not found")
        self.slowed_methods.extend(methods)
        self.variants.append(tuple(methods))
        workdir.mkdir(parents=True, exist_ok=True)
        report = workdir / "report.jsonl"
        known = all(m in {"lib:a", "lib:b", "lib:c"} for m in methods)
        event = {"v": 1, "event": "instrumented", "methods": list(methods)} if known else {
            "v": 1, "event": "error", "message": "no such function"}
        report.write_text(json.dumps(event) + "\n")
        env = {**suite.context.env, "FAKE_SLOW": ",".join(methods), "FAKE_FACTOR": repr(factor)}
        return Variant(replace(suite, context=replace(suite.context, env=env)), tuple(methods), report)

    def tracing(self, suite, packages, workdir, test_command, every_method=False):
        self.traced_every_method.append(every_method)

        def test_run(out: Path):
            return None
        return Tracing(suite, lambda out: ((), {"FAKE_TRACE": str(out)}), read_jsonl_traces, test_run)
