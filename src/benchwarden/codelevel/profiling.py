"""Profiled fork pairs of a changed benchmark, for ``compare --explain`` (the measuring side of :mod:`.explain`).

After a comparison, every benchmark found slower or faster gets ``pairs`` more fork pairs of both versions with
the profiler on, and ``pairs`` more again while they name no cause, up to ``looks`` times
(:func:`~benchwarden.codelevel.explain.explain_sequential`): the verdict's forks stay unprofiled (the probe's
cost would change what they measure), and the profiled forks answer only *where* the time went. Pairs run one fork after the other, the order drawn per pair
(as the compare's sequential pairs), with the suite's fork shape (warmup minimum plus measurement iterations). A
first, pilot pair finds the functions too short for the probe (:func:`too_short`); the explanation's pairs leave
them unprobed.

A profiler per suite kind says how a fork is profiled and how its profile is read; a new harness adds one here,
the adapters and the runner are untouched. Python (asv) suites have one (the worker's ``BENCHWARDEN_PROFILE``
hook), JMH and JUnit suites the Java agent's profile mode, Go suites Go's own sampling CPU profiler
(``-test.cpuprofile``, read with ``go tool pprof``: :mod:`.pprof`).
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence

from benchwarden.adapters.base import ForkPlan
from benchwarden.assess.inject import INJECTORS, PythonInjector, safe_name
from benchwarden.codelevel.explain import (
    DEFAULT_LOOKS,
    TRUST_CALLS,
    Explanation,
    explain_sequential,
    failed_explanation,
)
from benchwarden.codelevel.pprof import go_root_and_module, read_pprof
from benchwarden.codelevel.profiles import CallTree, read_call_tree
from benchwarden.compare.pairing import MatchedBenchmark
from benchwarden.compare.result import BenchmarkComparison
from benchwarden.compare.verdict import Verdict
from benchwarden.errors import BenchwardenError
from benchwarden.runner.engine import PlannedBenchmark

#: profiled fork pairs per explained benchmark
DEFAULT_PAIRS = 6
PROFILE_ENV = "BENCHWARDEN_PROFILE"


@dataclass(frozen=True)
class ForkExtras:
    """What a profiled fork adds to its plan: JVM arguments, environment, arguments of a non-JVM process."""

    jvm_args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    process_args: tuple[str, ...] = ()


class Profiler(Protocol):
    """How one kind of suite is profiled: what a profiled fork adds to its plan, and how its profile is read."""

    def fork_extras(self, planned: PlannedBenchmark, out_dir: Path, skip: Sequence[str] = ()) -> ForkExtras:
        """``skip``: functions not to probe (too short), named as the profile names them."""
        ...

    def read(self, out_dir: Path, operations: float) -> CallTree:
        """The fork's profile; ``operations``: the benchmark operations its iterations reported (for a sampling
        profiler, which cannot count calls)."""
        ...


class PythonProfiler:
    """asv suites: the worker's profile hook over the suite's own modules (those ``assess`` would slow)."""

    def fork_extras(self, planned: PlannedBenchmark, out_dir: Path, skip: Sequence[str] = ()) -> ForkExtras:
        out_dir.mkdir(parents=True, exist_ok=True)
        modules = PythonInjector().default_packages(planned.suite, [planned.benchmark])
        return ForkExtras(env={PROFILE_ENV: json.dumps({"v": 1, "modules": modules, "out": str(out_dir),
                                                        "skip": list(skip)})})

    def read(self, out_dir: Path, operations: float) -> CallTree:
        return read_call_tree(out_dir)


class JvmProfiler:
    """JMH and JUnit suites: benchwarden's Java agent in profile mode on the benchmark (test) JVM, over the packages
    ``assess`` would slow, rooted at the benchmark (test) method."""

    def __init__(self, kind: str, jar: Callable[[], Path] | None = None):
        self.kind = kind
        self._jar = jar

    def fork_extras(self, planned: PlannedBenchmark, out_dir: Path, skip: Sequence[str] = ()) -> ForkExtras:
        from benchwarden.helpers.build import agent_jar

        out_dir.mkdir(parents=True, exist_ok=True)
        packages = INJECTORS[self.kind]().default_packages(planned.suite, [planned.benchmark])
        name = planned.benchmark.id.name  # JMH: pkg.Class.method; JUnit: pkg.Class#method
        root_type, _, root_method = name.partition("#") if "#" in name else name.rpartition(".")
        jar = (self._jar or agent_jar)()
        for what, path in (("agent jar", jar), ("profile dir", out_dir)):
            if " " in str(path) or ";" in str(path):
                raise BenchwardenError(f"the {what} path {path} contains a space or ';', which a -javaagent "
                                       "argument cannot carry")
        if not packages:
            raise BenchwardenError(f"no packages to profile in suite '{planned.suite.name}'")
        skipped = f";skip={'|'.join(skip)}" if skip else ""
        if any(" " in name or ";" in name for name in skip):
            raise BenchwardenError("a method to skip has a space or ';' in its name, which a -javaagent argument "
                                   "cannot carry")
        return ForkExtras(jvm_args=(f"-javaagent:{jar}=mode=profile;packages={','.join(packages)};out={out_dir};"
                                    f"root={root_type}#{root_method}{skipped}",))

    def read(self, out_dir: Path, operations: float) -> CallTree:
        return read_call_tree(out_dir)


class GoProfiler:
    """Go suites (benchmarks, and test functions as workloads): the test binary's own sampling CPU profiler
    (``-test.cpuprofile``) on the measured run, read with ``go tool pprof``; the module's functions are the nodes
    (:mod:`.pprof`). Nothing is probed, so nothing is too short to probe (``skip`` is empty); what a sample cannot
    say is how often a function was called."""

    PROFILE = "cpu.pprof"
    NAMES = "benchmark.json"  # the benchmark function's and the module's names, for read

    def fork_extras(self, planned: PlannedBenchmark, out_dir: Path, skip: Sequence[str] = ()) -> ForkExtras:
        out_dir.mkdir(parents=True, exist_ok=True)
        spec = planned.benchmark.spec
        root, module = go_root_and_module(Path(spec["package_dir"]), spec.get("full_name") or spec["test"])
        (out_dir / self.NAMES).write_text(json.dumps({"root": root, "module": module}), encoding="utf-8")
        return ForkExtras(process_args=("-test.cpuprofile", str(out_dir / self.PROFILE)))

    def read(self, out_dir: Path, operations: float) -> CallTree:
        names = json.loads((out_dir / self.NAMES).read_text(encoding="utf-8"))
        return read_pprof(out_dir / self.PROFILE, names["root"], names["module"], operations)


PROFILERS: Mapping[str, Callable[[], Profiler]] = {"python": PythonProfiler, "jmh": lambda: JvmProfiler("jmh"),
                                                   "junit": lambda: JvmProfiler("junit"), "go": GoProfiler,
                                                   "gounit": GoProfiler}


def profiler_for(kind: str) -> Profiler | None:
    factory = PROFILERS.get(kind)
    return None if factory is None else factory()


def unsupported_kinds(kinds: Sequence[str]) -> list[str]:
    """The suite kinds among ``kinds`` that ``--explain`` cannot profile."""
    return sorted({k for k in kinds if k not in PROFILERS})


def profile_fork(planned: PlannedBenchmark, profiler: Profiler, out_dir: Path, fork_index: int,
                 skip: Sequence[str] = ()) -> CallTree:
    """Run one profiled fork of ``planned`` to its natural end (its at-exit profile is complete) and read it."""
    settings, ctx = planned.settings, planned.suite.context
    extras = profiler.fork_extras(planned, out_dir, skip)
    plan = ForkPlan(fork_index=fork_index, iteration_time_s=settings.iteration_time_s,
                    max_iterations=max(1, settings.warmup_min + settings.iterations),
                    timeout_s=settings.fork_timeout_s(), iteration_timeout_s=settings.silence_timeout_s(),
                    jvm_args=(*ctx.jvm_args, *extras.jvm_args), env={**ctx.env, **extras.env},
                    process_args=extras.process_args)
    fork = planned.adapter.start_fork(ctx, planned.benchmark, plan)
    operations = 0.0
    try:
        for result in fork:
            operations += result.ops or 0.0
    finally:
        fork.stop()
    return profiler.read(out_dir, operations)


@dataclass(frozen=True)
class ExplainSettings:
    pairs: int = DEFAULT_PAIRS  # per look
    min_change: float = 0.03
    seed: int = 0
    looks: int = DEFAULT_LOOKS  # pairs are added, ``pairs`` at a time, while no cause is named


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
    start = monotonic()

    def pair(k: int, skip: Sequence[str]) -> dict[str, CallTree]:
        order = ("base", "candidate") if rng.random() < 0.5 else ("candidate", "base")
        return {role: profile_fork(matched.base if role == "base" else matched.candidate, profiler,
                                   workdir / safe_name(name) / f"{role}-{k}", k, skip) for role in order}

    def draw(k: int) -> tuple[CallTree, CallTree]:
        p = pair(k, skip)
        return p["base"], p["candidate"]

    try:
        pilot = pair(0, ())
        skip = too_short(list(pilot.values()))
        e = explain_sequential(name, verdict, draw, pairs=settings.pairs, looks=settings.looks,
                               min_change=settings.min_change, folded=tuple(skip))
    except BenchwardenError as exc:
        return failed_explanation(name, verdict, f"a profiled fork failed: {exc}", monotonic() - start)
    except ValueError as exc:
        return failed_explanation(name, verdict, str(exc), monotonic() - start)
    return replace(e, machine_time_s=monotonic() - start)


def too_short(trees: Sequence[CallTree]) -> list[str]:
    """Functions whose calls are too short for the probe: their mean call over ``trees`` (the pilot pair, both
    versions pooled, every path of the function) lasts less than :data:`~benchwarden.codelevel.explain.TRUST_CALLS`
    probe costs. Never the benchmark function, whose calls define the operations.

    Probing them costs more than they take (on the JMH example, a 27-ns ``isLetter`` called 6,600 times per
    operation made the base look 4× slower than a candidate that no longer called it), so the explanation's
    pairs leave them unprobed and their time counts as their caller's own.
    """
    calls: dict[str, list[float]] = {}
    inclusive: dict[str, list[float]] = {}
    for tree in trees:
        for path, node in tree.nodes.items():
            if len(path) > 1:
                calls.setdefault(path[-1], []).append(node.calls)
                inclusive.setdefault(path[-1], []).append(node.inclusive_ns)
    probe = max((t.traced_call_ns for t in trees), default=0.0)
    roots = {t.root for t in trees}
    return sorted(n for n in calls if n not in roots and sum(inclusive[n]) < TRUST_CALLS * probe * sum(calls[n]))


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
            log(f"profiling {name} ({result.verdict.value}): {settings.pairs} fork pairs"
                + (f", up to {settings.pairs * settings.looks} while no cause is named" if settings.looks > 1 else ""))
            explanations.append(explain_benchmark(by_name[name], result.verdict,
                                                  replace(settings, seed=settings.seed + index), Path(tmp)))
    return tuple(explanations)
