"""Profiled fork pairs of a changed benchmark, for ``compare --explain`` (the measuring side of :mod:`.explain`).

After a comparison, every benchmark found slower or faster gets ``pairs`` more fork pairs of both versions with
the profiler on: the verdict's forks stay unprofiled (the probe's cost would change what they measure), and the
profiled forks answer only *where* the time went. Pairs run one fork after the other, the order drawn per pair
(as the compare's sequential pairs), with the suite's fork shape (warmup minimum plus measurement iterations).

A profiler per suite kind says how a fork is profiled and how its profile is read; a new harness adds one here,
the adapters and the runner are untouched. Python (asv) suites have one (the worker's ``BENCHWARDEN_PROFILE``
hook); JMH, JUnit and Go do not yet (their agent and rewriter count calls but do not time them).
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence

from benchwarden.adapters.base import ForkPlan
from benchwarden.assess.inject import PythonInjector, safe_name
from benchwarden.codelevel.explain import Explanation, explain, failed_explanation
from benchwarden.codelevel.profiles import CallTree, read_call_tree
from benchwarden.compare.pairing import MatchedBenchmark
from benchwarden.compare.result import BenchmarkComparison
from benchwarden.compare.verdict import Verdict
from benchwarden.errors import BenchwardenError
from benchwarden.runner.engine import PlannedBenchmark

#: profiled fork pairs per explained benchmark
DEFAULT_PAIRS = 6
PROFILE_ENV = "BENCHWARDEN_PROFILE"


class Profiler(Protocol):
    """How one kind of suite is profiled: extra JVM arguments and environment of a profiled fork, and its reading."""

    def fork_extras(self, planned: PlannedBenchmark, out_dir: Path) -> tuple[tuple[str, ...], dict[str, str]]: ...

    def read(self, out_dir: Path) -> CallTree: ...


class PythonProfiler:
    """asv suites: the worker's profile hook over the suite's own modules (those ``assess`` would slow)."""

    def fork_extras(self, planned: PlannedBenchmark, out_dir: Path) -> tuple[tuple[str, ...], dict[str, str]]:
        out_dir.mkdir(parents=True, exist_ok=True)
        modules = PythonInjector().default_packages(planned.suite, [planned.benchmark])
        return (), {PROFILE_ENV: json.dumps({"v": 1, "modules": modules, "out": str(out_dir)})}

    def read(self, out_dir: Path) -> CallTree:
        return read_call_tree(out_dir)


PROFILERS: Mapping[str, Callable[[], Profiler]] = {"python": PythonProfiler}


def profiler_for(kind: str) -> Profiler | None:
    factory = PROFILERS.get(kind)
    return None if factory is None else factory()


def unsupported_kinds(kinds: Sequence[str]) -> list[str]:
    """The suite kinds among ``kinds`` that ``--explain`` cannot profile."""
    return sorted({k for k in kinds if k not in PROFILERS})


def profile_fork(planned: PlannedBenchmark, profiler: Profiler, out_dir: Path, fork_index: int) -> CallTree:
    """Run one profiled fork of ``planned`` to its natural end (its at-exit profile is complete) and read it."""
    settings, ctx = planned.settings, planned.suite.context
    jvm_args, env = profiler.fork_extras(planned, out_dir)
    plan = ForkPlan(fork_index=fork_index, iteration_time_s=settings.iteration_time_s,
                    max_iterations=max(1, settings.warmup_min + settings.iterations),
                    timeout_s=settings.fork_timeout_s(), iteration_timeout_s=settings.silence_timeout_s(),
                    jvm_args=(*ctx.jvm_args, *jvm_args), env={**ctx.env, **env})
    fork = planned.adapter.start_fork(ctx, planned.benchmark, plan)
    try:
        for _ in fork:
            pass
    finally:
        fork.stop()
    return profiler.read(out_dir)


@dataclass(frozen=True)
class ExplainSettings:
    pairs: int = DEFAULT_PAIRS
    min_change: float = 0.03
    seed: int = 0


def explain_benchmark(matched: MatchedBenchmark, verdict: Verdict, settings: ExplainSettings, workdir: Path,
                      monotonic: Callable[[], float] = time.monotonic) -> Explanation:
    """Profile ``settings.pairs`` fork pairs of both versions of ``matched`` and explain the difference.

    A failure (no profiler for the kind, a fork that fails, an unreadable profile) gives an explanation with
    ``error`` set, never an exception: the comparison's verdicts stand without it.
    """
    name = f"{matched.id.suite}:{matched.id.key}"
    profiler = profiler_for(matched.base.suite.kind)
    if profiler is None:
        return failed_explanation(name, verdict, f"suites of kind '{matched.base.suite.kind}' cannot be profiled "
                                                 f"yet (--explain profiles {', '.join(sorted(PROFILERS))} suites)")
    rng = random.Random(settings.seed)
    trees: dict[str, list[CallTree]] = {"base": [], "candidate": []}
    start = monotonic()
    try:
        for k in range(1, settings.pairs + 1):
            order = ("base", "candidate") if rng.random() < 0.5 else ("candidate", "base")
            for role in order:
                planned = matched.base if role == "base" else matched.candidate
                out = workdir / safe_name(name) / f"{role}-{k}"
                trees[role].append(profile_fork(planned, profiler, out, k))
    except BenchwardenError as exc:
        return failed_explanation(name, verdict, f"a profiled fork failed: {exc}", monotonic() - start)
    try:
        return explain(name, verdict, trees["base"], trees["candidate"], min_change=settings.min_change,
                       machine_time_s=monotonic() - start)
    except ValueError as exc:
        return failed_explanation(name, verdict, str(exc), monotonic() - start)


def explain_changes(matched: Sequence[MatchedBenchmark], results: Sequence[BenchmarkComparison],
                    settings: ExplainSettings, log: Callable[[str], None] = lambda message: None
                    ) -> tuple[Explanation, ...]:
    """An explanation for every benchmark of ``results`` found slower or faster."""
    by_name = {f"{m.id.suite}:{m.id.key}": m for m in matched}
    explanations = []
    with tempfile.TemporaryDirectory(prefix="benchwarden-explain-") as tmp:
        for index, result in enumerate(results):
            if result.verdict not in (Verdict.SLOWER, Verdict.FASTER):
                continue
            name = f"{result.suite}:{result.key}"
            log(f"profiling {name} ({result.verdict.value}): {settings.pairs} fork pairs")
            explanations.append(explain_benchmark(by_name[name], result.verdict,
                                                  ExplainSettings(settings.pairs, settings.min_change,
                                                                  settings.seed + index), Path(tmp)))
    return tuple(explanations)
