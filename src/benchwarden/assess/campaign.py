"""The runs of an assessment, for one suite: baselines, tracing, slowed runs; then the pure analyses.

Order (each step stores what it ran; see docs/assess.md):

1. plan the suite as its baselines run (build, list, filter): the injector's control, the helper loaded and
   nothing slowed. Where the control is one build of K′ with a switch per method (Go,
   ``Injector.switchable``), steps 4 and 5 come first, since the build needs K′;
2. variability: N baseline runs, reusing complete runs of the same commit and settings from the store
   (a dirty or unknown commit is never reused: the code may differ);
3. v: the user's question (default 10 %), or with ``slowdown = "study"`` twice the 95th-percentile
   maxSpread (the study's choice);
4. K′: configured, else the most-called public methods while the project's tests (or its benchmarks) run;
5. reach: one traced fork per benchmark;
6. for each method of K′: the benchmarks that reach it, run with the method slowed (into the scratch store:
   slowed runs must never become anyone's "latest" baseline) and judged by the detection rule: by default
   ``compare``'s verdict against every baseline fork, one slowed fork at a time until decided or ``forks``
   are spent; with ``rule = "study"`` ``repetitions`` paired runs;
7. ABS, smoke subset, stubs, the cost account.

Runs go through the ordinary runner, so forks are persisted as they end and the suite's own stop
policy applies (dynamic stopping, when the suite configures it).
"""

from __future__ import annotations

import itertools
import math
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import AbstractSet, Callable, Iterator, Mapping, Sequence

import numpy as np

from benchwarden.assess.detect import (
    Detection,
    DetectionDesign,
    Outcome,
    detect_sequential,
    detect_study,
    screen_mdc,
)
from benchwarden.assess.inject import (
    Control,
    InjectionFailed,
    InjectionPrecision,
    Injector,
    Tracing,
    Variant,
    check_wait_clock,
    injection_precision,
    injector_for,
    instrumentation_error,
    module_root,
    precision_note,
    safe_name,
)
from benchwarden.assess.methods import most_called
from benchwarden.assess.reach import CostReport, ReachMap, disjoint_groups, trace_benchmarks
from benchwarden.assess.score import AbsReport, score
from benchwarden.assess.smoke import SmokeSubset, smoke_subset
from benchwarden.assess.stubs import Stub, asv_stub, go_stub, jmh_stub
from benchwarden.assess.variability import VariabilityReport, assess_variability
from benchwarden.config import Suite
from benchwarden.environment import GitState, collect_run_meta, git_state, machine_key
from benchwarden.errors import BenchwardenError, ConfigError, in_suite
from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkStatus,
    ForkResult,
    ForkStatus,
    RunData,
    RunMeta,
    RunStatus,
)
from benchwarden.runner.engine import MAX_LOST_FORKS, Plan, PlannedBenchmark, Serialised, plan_run, run_fork
from benchwarden.runner.placement import HERE, Placement
from benchwarden.runner.policy import StopPolicy, make_policy
from benchwarden.runner.progress import ProgressListener

BASELINE_LABEL = "assess:baseline"
#: suite name prefix of the slowed variants inside a paired run (their benchmark ids must differ from the baseline's)
SLOWED_SUITE = "assess~slowed~"

#: (method, its slowed variant, the variant's suite name, the variant's planned benchmarks reaching the method)
SlowedMethod = tuple[str, Variant, str, dict[str, PlannedBenchmark]]


DEFAULT_SLOWDOWN = 0.10
"""The slowdown injected unless the user asks otherwise: "would the suite notice a method getting 10 % slower?"."""


@dataclass(frozen=True)
class AssessOptions:
    runs: int = 5
    repetitions: int = 2  # rule "study"
    slowdown: float | None = DEFAULT_SLOWDOWN  # None: the study's noise-derived v
    slowdown_source: str = "default"
    methods: tuple[str, ...] = ()
    top: int = 20
    discover: str | None = None  # "tests" | "benchmarks" | None (tests when a test command is known)
    test_command: tuple[str, ...] | None = None
    packages: tuple[str, ...] = ()
    budget_s: float = 600.0
    unstable_cv: float = 0.15
    unstable_spread: float = 0.25
    cli_filter: str | None = None
    config_path: str = ""
    seed: int = 0
    rule: str = "compare"
    min_forks: int = 2  # rule "compare": slowed forks per (method, benchmark) before the first look
    max_forks: int = 5  # rule "compare": slowed forks per (method, benchmark) at most
    min_change: float = 0.03  # rule "compare": compare's threshold ([compare] min_change, thresholds)
    thresholds: tuple[tuple[str, float], ...] = ()
    wait_clock: str = "wall"  # what a slowdown times calls by and waits on: "wall" or "cpu" (check_wait_clock)

    def threshold_for(self, key: str) -> float:
        """compare's threshold for a benchmark: the first matching ``thresholds`` pattern, else ``min_change``."""
        for pattern, value in self.thresholds:
            if re.search(pattern, key):
                return value
        return self.min_change


@dataclass(frozen=True)
class SuiteAssessment:
    suite: str
    kind: str
    variability: VariabilityReport
    slowdown: float
    slowdown_source: str
    rule: str
    methods: tuple[str, ...]
    methods_source: str
    method_calls: dict[str, int]
    reach: ReachMap
    detections: tuple[Detection, ...]
    abs: AbsReport
    smoke: SmokeSubset
    stubs: tuple[Stub, ...]
    cost: CostReport
    baseline_runs: tuple[int, ...]
    reused_runs: tuple[int, ...]
    benchmark_cost_s: dict[str, float] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    precision: dict[str, InjectionPrecision] = field(default_factory=dict)
    #: what the baseline runs ran beside the plain suite (Injector.control's label), None: the plain suite
    control: str | None = None
    #: what each slowdown timed calls by and waited on ([assess] wait_clock)
    wait_clock: str = "wall"


@dataclass(frozen=True)
class _Found:
    """What tracing found: K′ (``methods``, from ``source``, with their traced ``calls``), which benchmarks reach
    which method, and the time spent preparing the traced suite and running the project's tests."""

    methods: list[str]
    source: str
    calls: dict[str, int]
    reach: ReachMap
    prepare_s: float
    test_s: float


@dataclass
class _SlowedPair:
    """One (method, benchmark) of the compare rule while its slowed forks run."""

    method: str
    variant: object
    key: str
    planned: PlannedBenchmark
    base: list[list[float]]  # every complete baseline fork of the benchmark
    threshold: float
    policy: StopPolicy
    slowed: list[list[float]] = field(default_factory=list)
    detection: Detection | None = None
    error: str | None = None


class AssessmentFailed(BenchwardenError):
    """The suite could not be assessed at all (it does not build, lists nothing...)."""


class Campaign:
    """Runs and analyses one suite. ``log`` receives one-line progress messages (the CLI prints them)."""

    def __init__(self, suite: Suite, store, scratch_store, workdir: Path, options: AssessOptions,
                 listener: ProgressListener | None = None, placement: Placement = HERE,
                 injector: Injector | None = None, log: Callable[[str], None] = lambda message: None,
                 monotonic: Callable[[], float] = time.monotonic):
        self.suite = suite
        self.store = store
        self.scratch = scratch_store
        self.workdir = workdir
        self.options = options
        self.listener = listener or ProgressListener()
        self.placement = placement  # here, or a cluster's workers (docs/distributed.md)
        self.injector = injector or injector_for(suite.kind, check_wait_clock(options.wait_clock, suite))
        self.log = log
        self.monotonic = monotonic
        self.warnings: list[str] = []
        self.precision: dict[str, InjectionPrecision] = {}  # per method, from the helpers' reports
        self.commit, self.dirty = git_state(suite.context.root)
        self.toolchain: dict[str, str] = {}  # from the first plan; every run of the campaign records it
        self.control: str | None = None  # what the baselines load beside the plain suite (Injector.control)
        self._control_build: Control | None = None  # the control itself; slowed variants may share its build
        self._control_plan: Plan | None = None
        self.control_s = 0.0  # preparing the control (Go: rewriting the module copy)

    # ------------------------------------------------------------------ the whole campaign

    def run(self) -> SuiteAssessment:
        t0 = self.monotonic()
        if self.injector.switchable:  # the control is one build of the methods: find them first
            found = self._find_methods(())
            plan = self._control(found.methods)
        else:
            plan = self._control(())
            found = None
        keys = [p.benchmark.id.key for p in plan.benchmarks]
        baselines, reused, variability_s = self._baselines(plan, keys)
        variability = assess_variability(
            {k: [_forks(run, k) for run in baselines] for k in keys}, len(baselines),
            self.options.unstable_cv, self.options.unstable_spread, seed=self.options.seed)
        if keys and not variability.by_key():
            raise AssessmentFailed(_nothing_assessable(self.suite.name, baselines))
        slowdown, slowdown_source = self._slowdown(variability)
        if found is None:
            found = self._find_methods([p.benchmark for p in plan.benchmarks])
        methods, source, calls, reach = found.methods, found.source, found.calls, found.reach
        prepare_s, test_s = found.prepare_s + self.control_s, found.test_s
        detections, reached, errors, injected_s, more_prep_s, n_variants = self._inject(
            methods, slowdown, reach, plan, variability, baselines)
        report = score(methods, detections, variability.spreads, slowdown, reached, errors)
        bench_cost = {k: _mean_machine_s(baselines, k) for k in variability.by_key()}
        detected_by = {m.method: set(m.detected_by) for m in report.methods}
        smoke = smoke_subset(detected_by, bench_cost, self.options.budget_s)
        stubs = self._stubs(report, plan)
        full_run_s = sum(bench_cost.values())
        cost = CostReport(full_run_s=full_run_s, n_methods=len(methods), repetitions=self.options.repetitions,
                          trace_s=reach.trace_s + test_s, prepare_s=prepare_s + more_prep_s, injected_s=injected_s,
                          variability_s=variability_s, wall_s=self.monotonic() - t0, variants=n_variants)
        return SuiteAssessment(
            suite=self.suite.name, kind=self.suite.kind, variability=variability, slowdown=slowdown,
            slowdown_source=slowdown_source, rule=self.options.rule, methods=tuple(methods), methods_source=source, method_calls=calls,
            reach=reach, detections=tuple(detections), abs=report, smoke=smoke, stubs=tuple(stubs), cost=cost,
            baseline_runs=tuple(r.id for r in baselines if r.id is not None), reused_runs=tuple(reused),
            benchmark_cost_s=bench_cost, warnings=tuple(self.warnings) + variability.warnings,
            precision=dict(self.precision), control=self.control, wait_clock=self.options.wait_clock)

    # ------------------------------------------------------------------ steps

    def _control(self, methods: Sequence[str]) -> Plan:
        """The baselines' suite (:meth:`Injector.control`, the A/A control of the slowed variants: the helper
        loaded, nothing slowed), planned; its fallback when it cannot be built."""
        t0 = self.monotonic()
        try:
            control = self.injector.control(self.suite, methods, self.workdir / "control")
        except InjectionFailed as exc:  # a method the rewriter cannot probe: each variant then fails alone
            self.warnings.append(f"the control build of {len(methods)} probed methods could not be prepared, so "
                                 f"the baselines run the plain suite and each variant is built apart: {exc}")
            control = self.injector.control(self.suite)
        self.control_s = self.monotonic() - t0
        try:
            plan = self._plan(control.suite, self.options.cli_filter)
        except AssessmentFailed as exc:
            if control.fallback is None:
                raise
            self.warnings.append(f"the control build of {len(methods)} probed methods failed, so the baselines "
                                 f"run the plain suite and each variant is built apart: {exc}")
            control = control.fallback
            plan = self._plan(control.suite, self.options.cli_filter)
        self.control, self._control_build, self._control_plan = control.label, control, plan
        return plan

    def _find_methods(self, benchmarks: Sequence[Benchmark]) -> "_Found":
        """Trace which benchmarks reach which methods, and K′: the methods given, or the most called ones in
        the project's tests or the benchmarks (``benchmarks``: the planned ones, for the default packages)."""
        methods_given = list(self.options.methods)
        t_prep = self.monotonic()
        # named methods may be any method (package-private hot code, issue #16): their reach needs the
        # every-method trace; K′ discovered by tracing is the public API, as the study defines it
        tracing = self.injector.tracing(self.suite, self._packages(benchmarks), self.workdir / "trace",
                                        self.options.test_command, every_method=bool(methods_given))
        traced_plan = self._plan(tracing.suite, self.options.cli_filter)
        prepare_s = self.monotonic() - t_prep
        self.log(f"tracing which of {len(traced_plan.benchmarks)} benchmarks reach which methods")
        reach = trace_benchmarks(traced_plan.benchmarks, tracing, self.workdir / "trace", self.monotonic)
        for key, why in reach.failed.items():
            self.warnings.append(f"tracing {key} failed; it is run for every method: {why.splitlines()[0]}")
        methods, source, calls, test_s = self._methods(methods_given, tracing, reach)
        return _Found(methods, source, calls, reach, prepare_s, test_s)

    def _plan(self, suite: Suite, cli_filter: str | None) -> Plan:
        plan = plan_run([suite], cli_filter, adapter_factory=self.placement.adapter_factory, listener=self.listener)
        self.toolchain = {**plan.toolchain, **self.toolchain}
        if plan.failed_suites:
            raise AssessmentFailed(in_suite(suite.name, plan.failed_suites[suite.name]))
        if not plan.benchmarks:
            raise AssessmentFailed(f"suite '{suite.name}': no benchmark matches the suite filter and --filter")
        return plan

    def _baselines(self, plan: Plan, keys: list[str]) -> tuple[list[RunData], list[int], float]:
        reused = sorted(self._reusable(keys)[: self.options.runs], key=lambda r: r.id or 0)  # the newest N
        runs = list(reused)
        spent = 0.0
        while len(runs) < self.options.runs:
            self.log(f"baseline run {len(runs) + 1} of {self.options.runs}"
                     + (f" ({len(reused)} reused from the store)" if reused else ""))
            outcome = self.placement.runner(self.store, self.listener).run(plan, self._meta(BASELINE_LABEL,
                                                                                         control=self.control))
            run = self.store.load_run(outcome.run_id)
            spent += _machine_s(run)
            runs.append(run)
        runs.sort(key=lambda r: r.id or 0)
        return runs, [r.id for r in reused if r.id is not None], spent

    def _reusable(self, keys: list[str]) -> list[RunData]:
        """Complete stored runs of this commit (clean tree) with this suite, settings, filter and benchmarks, on
        the machine the forks run on (this one, or the same cluster: docs/distributed.md)."""
        if self.commit is None or self.dirty is not False:
            return []
        found = []
        wanted = self._suite_entry(self.suite, self.control)
        here = machine_key(self.placement.machine())
        for summary in self.store.list_runs(limit=200):
            if summary.status is not RunStatus.COMPLETE or summary.commit != self.commit or summary.dirty:
                continue
            run = self.store.load_run(summary.id)
            if machine_key(run.meta.machine) != here:
                continue
            suites = run.meta.config.get("suites", {}) if isinstance(run.meta.config, dict) else {}
            if suites.get(self.suite.name) != wanted or run.meta.config.get("filter") != self.options.cli_filter:
                continue
            if all(_forks(run, k) is not None for k in keys):
                found.append(run)
        return found

    @staticmethod
    def _suite_entry(suite: Suite, control: str | None = None) -> dict:
        """The suite as a run's metadata records it; ``control``: what its processes loaded beside it (so the
        baselines of a control are never mistaken for plain runs, nor plain runs for them)."""
        return {"kind": suite.kind, "root": str(suite.context.root), "settings": suite.settings.to_dict(),
                **({"control": control} if control else {})}

    def _meta(self, label: str, suite: Suite | None = None, cli_filter: str | None = None,
              control: str | None = None) -> RunMeta:
        suite = suite or self.suite
        snapshot = {"config_path": self.options.config_path,
                    "filter": self.options.cli_filter if cli_filter is None else cli_filter,
                    "suites": {suite.name: self._suite_entry(suite, control)}}
        if self.placement.cluster is not None:
            snapshot["cluster"] = self.placement.cluster
        return self.placement.meta(collect_run_meta(suite.context.root, source=GitState(self.commit, self.dirty),
                                                    toolchain=self.toolchain, config=snapshot, label=label))

    def _slowdown(self, variability: VariabilityReport) -> tuple[float, str]:
        if self.options.slowdown is not None:
            return self.options.slowdown, self.options.slowdown_source
        v = variability.suggested_slowdown()
        if v is None or v <= 0:
            raise AssessmentFailed(f"suite '{self.suite.name}': no benchmark has results in every run, so no "
                                   f"slowdown can be derived; pass --slowdown")
        if v < 0.1:
            self.warnings.append(f"v = {v:.3f} (twice the 95th-percentile maxSpread) is small: slowdowns that "
                                 f"small are hard to inject into very short methods and to detect in two runs")
        return v, "2 × 95th-percentile maxSpread"

    def _packages(self, benchmarks: Sequence[Benchmark]) -> list[str]:
        if self.options.packages:
            return list(self.options.packages)
        return self.injector.default_packages(self.suite, benchmarks)

    def _methods(self, given: list[str], tracing: Tracing, reach: ReachMap) -> tuple[list[str], str, dict[str, int], float]:
        if given:
            return given, "config", {}, 0.0
        out = self.workdir / "trace" / "tests"
        test = None if self.options.discover == "benchmarks" else tracing.test_run(out)
        if self.options.discover == "tests" and test is None:
            raise ConfigError(f"suite '{self.suite.name}': [assess] discover = \"tests\" but no test command is known; "
                              f"set [assess] test_command")
        if test is not None:
            self.log(f"tracing the project's tests: {' '.join(test.argv)}")
            t0 = self.monotonic()
            _run_tests(test)
            calls = tracing.read(out)
            spent = self.monotonic() - t0
            source = "tests"
        else:
            calls, spent, source = reach.total_calls(), 0.0, "benchmarks"
        methods = most_called(calls, self.options.top)
        if not methods:
            raise AssessmentFailed(f"suite '{self.suite.name}': tracing the {source} found no call of a public method; "
                                   f"name the methods in [assess] methods or the packages in [assess] packages")
        return methods, source, calls, spent

    def _inject(self, methods: Sequence[str], slowdown: float, reach: ReachMap, plan: Plan,
                variability: VariabilityReport, baselines: Sequence[RunData]):
        """Slow each method down in the benchmarks that reach it and decide, by the rule, which detect it."""
        sequential = self.options.rule == "compare" and self.options.min_forks < self.options.max_forks
        # a fixed sample (min_forks = max_forks) stops nothing early, not even at 0 forks: the brute-force reference
        screened = self._screen(baselines, variability, slowdown) if sequential else {}
        variants, reached, errors, prepare_s = self._variants(methods, slowdown, reach, variability, set(screened))
        if self.options.rule == "study":
            detections, injected_s = self._detect_study(variants, plan, slowdown, errors)
        else:
            detections, injected_s = self._detect_sequential(variants, plan, baselines, slowdown, errors)
            for method in methods:
                if method in errors:
                    continue
                for key in reached.get(method, ()):
                    if key in screened:
                        detections.append(self._screened(method, key, slowdown, screened[key]))
        return detections, reached, errors, injected_s, prepare_s, len({name for _, _, name, _ in variants})

    def _design(self) -> DetectionDesign:
        return DetectionDesign(min_forks=self.options.min_forks, max_forks=self.options.max_forks)

    def _screen(self, baselines: Sequence[RunData], variability: VariabilityReport, slowdown: float) -> dict[str, float]:
        """Benchmarks too noisy for ``slowdown`` before any slowed fork (:func:`screen_mdc`): key -> the change
        they could detect at the full budget.  Their pairs are not measured: no variant is built for a method
        that only they reach, and they get no fresh baseline forks."""
        from benchwarden.stats.logratio import log_summaries

        design, out = self._design(), {}
        for key in variability.by_key():
            rows = [row for run in baselines for row in (_forks(run, key) or [])]
            try:
                y = log_summaries(rows, name="baseline")
            except ValueError:
                continue  # no usable baseline: the pairs will say so
            mdc = float(screen_mdc(y, self.options.threshold_for(key), design))
            if math.isfinite(mdc) and mdc > slowdown:  # inf: no spread known (one fork), so measure it
                out[key] = mdc
        if out:
            self.log(f"{len(out)} benchmark(s) too noisy to detect {slowdown:.0%} within {design.max_forks} slowed "
                     f"forks, not measured: {', '.join(sorted(out)[:5])}{', ...' if len(out) > 5 else ''}")
        return out

    def _screened(self, method: str, key: str, slowdown: float, mdc: float) -> Detection:
        note = (f"not measured: the baseline forks of {key} spread so much that within {self.options.max_forks} "
                f"slowed forks it could detect only a change of {mdc:.1%} or more (at the spread's 80 % lower "
                f"bound), more than the {slowdown:.0%} a method can cause")
        return Detection(method, key, "compare", Outcome.UNDECIDED, warnings=(note,), screened_mdc=mdc)

    def _variants(self, methods: Sequence[str], slowdown: float, reach: ReachMap, variability: VariabilityReport,
                  screened: AbstractSet[str] = frozenset()):
        """The slowed variants for every method that some assessed, unscreened benchmark reaches: (method, variant,
        suite name, planned benchmarks by key), one per method. Where the injector ``groups`` (Go), methods that
        no benchmark reaches together share one variant (:func:`disjoint_groups`), so one module copy and compile
        serve the group; their tuples then share the variant and suite name, each with its own benchmarks.
        Methods whose injection cannot be prepared go to ``errors``. ``reached`` lists every assessed benchmark
        reaching a method, the screened ones included."""
        assessed = set(variability.by_key())
        reached: dict[str, list[str]] = {}
        slowed_in: dict[str, list[str]] = {}
        for index, method in enumerate(methods, start=1):
            keys = [k for k in reach.benchmarks_reaching(method) if k in assessed]
            reached[method] = keys
            if not keys:
                self.log(f"[{index}/{len(methods)}] {method}: reached by no benchmark")
            elif not [k for k in keys if k not in screened]:
                self.log(f"[{index}/{len(methods)}] {method}: every benchmark reaching it is too noisy; not slowed")
            else:
                slowed_in[method] = [k for k in keys if k not in screened]
        groups = disjoint_groups(slowed_in) if self.injector.groups else [[m] for m in slowed_in]
        errors: dict[str, str] = {}
        variants: list[SlowedMethod] = []
        prepare_s = 0.0
        numbers = itertools.count(1)  # a variant's suite name
        for group in groups:
            t0 = self.monotonic()
            try:
                variants += self._prepare(group, slowed_in, slowdown, next(numbers))
            except (InjectionFailed, AssessmentFailed) as exc:
                if len(group) == 1:
                    errors[group[0]] = str(exc)
                    self.warnings.append(str(exc))
                else:  # find which method failed; the others still get variants
                    self.log(f"{len(group)} methods could not be slowed together ({exc}); preparing them one by one")
                    for method in group:
                        try:
                            variants += self._prepare([method], slowed_in, slowdown, next(numbers))
                        except (InjectionFailed, AssessmentFailed) as one:
                            errors[method] = str(one)
                            self.warnings.append(str(one))
            prepare_s += self.monotonic() - t0
        return variants, reached, errors, prepare_s

    def _prepare(self, group: Sequence[str], slowed_in: Mapping[str, Sequence[str]], slowdown: float,
                 number: int) -> list[SlowedMethod]:
        """One variant slowing every method of ``group``, planned with the benchmarks reaching them: its tuples.
        InjectionFailed or AssessmentFailed if it cannot be prepared."""
        keys = [k for m in group for k in slowed_in[m]]
        what = group[0] if len(group) == 1 else f"{len(group)} methods no benchmark reaches together ({', '.join(group)})"
        self.log(f"variant {number}: {what}, slowed by {slowdown:.0%} for {len(keys)} benchmark(s)")
        name = f"{SLOWED_SUITE}{number}"
        workdir = self.workdir / "slow" / (safe_name(group[0]) + (f"+{len(group) - 1}" if len(group) > 1 else ""))
        variant = self.injector.slowed(self.suite, group, slowdown, workdir, self._control_build)
        renamed = replace(variant.suite, context=replace(variant.suite.context, name=name))
        if variant.same_build and self._control_plan is not None:  # the control's build: its plan, renamed
            by_key = {p.benchmark.id.key: PlannedBenchmark(renamed, p.adapter, replace(
                p.benchmark, id=replace(p.benchmark.id, suite=name))) for p in self._control_plan.benchmarks
                if p.benchmark.id.key in keys}
        else:
            exact = "^(?:" + "|".join(re.escape(k) for k in keys) + ")$"
            by_key = {p.benchmark.id.key: p for p in self._plan(renamed, exact).benchmarks}
        return [(m, variant, name, {k: by_key[k] for k in slowed_in[m] if k in by_key}) for m in group]

    def _variant_ok(self, method: str, variant, slowdown: float, errors: dict[str, str]) -> bool:
        """After its forks ran: did the helper instrument the method?  Records its measured precision."""
        problem = instrumentation_error(variant)
        if problem is not None:
            errors[method] = problem
            self.warnings.append(problem)
            return False
        measured = injection_precision(variant)
        if measured is not None:
            self.precision[method] = measured
            if not measured.precise:
                self.warnings.append(precision_note(method, slowdown, measured))
        return True

    def _detect_study(self, variants, plan: Plan, slowdown: float, errors: dict[str, str]):
        """The study's rule: ``repetitions`` paired runs (:meth:`_paired_runs`), each slowed run against its baseline."""
        base_by_key = {p.benchmark.id.key: p for p in plan.benchmarks}
        runs, injected_s = self._paired_runs(variants, base_by_key)
        detections: list[Detection] = []
        for method, variant, name, planned in variants:
            if not self._variant_ok(method, variant, slowdown, errors):
                continue
            for key in planned:
                base = [f for f in (_forks(r, key, self.suite.name) for r in runs) if f is not None]
                slow = [f for f in (_forks(r, key, name) for r in runs) if f is not None]
                if len(base) < len(runs) or len(slow) < len(runs):
                    self.warnings.append(f"{method}: {key} failed in a paired run; counted as not detecting")
                    continue
                detections.append(detect_study(method, key, base, slow, slowdown))
        return detections, injected_s

    def _detect_sequential(self, variants, plan: Plan, baselines: Sequence[RunData], slowdown: float,
                           errors: dict[str, str]):
        """The compare rule (assess/detect.py), in rounds until every (method, benchmark) is decided or ``forks``
        rounds are spent.  A round runs, in a seeded random order, one slowed fork of every undecided pair and
        one fresh baseline fork of every benchmark that still has one: each pair is judged against all the
        baseline forks of its benchmark, those of the baseline runs and the fresh ones.

        The fresh baseline forks cost one fork per benchmark and round, shared by every method that reaches it,
        and keep baseline and slowed forks close in time: a slow phase of the machine touches both sides (the
        variability runs alone may be few and hours old, if reused from the store).
        """
        if not variants:
            return [], 0.0
        design = self._design()
        base_plan = {p.benchmark.id.key: p for p in plan.benchmarks}
        base: dict[str, list[list[float]]] = {}
        pending: list[_SlowedPair] = []
        for method, variant, _, planned in variants:
            for key, slowed in planned.items():
                if key not in base:
                    base[key] = [row for run in baselines for row in (_forks(run, key) or [])]
                pending.append(_SlowedPair(method, variant, key, slowed, base[key], self.options.threshold_for(key),
                                           make_policy(slowed.settings)))
        run_id = self.scratch.create_run(self._meta("assess:slowed"))
        base_policies = {key: make_policy(base_plan[key].settings) for key in base}
        base_failed: dict[str, str] = {}
        for key in base:
            self.scratch.add_benchmark(run_id, base_plan[key].benchmark)
        for pair in pending:
            self.scratch.add_benchmark(run_id, pair.planned.benchmark)
        rng = np.random.default_rng(self.options.seed)
        spent = 0.0
        indices: dict[BenchmarkId, int] = {}  # forks stored per benchmark: the next one's index
        lost: dict[BenchmarkId, int] = {}
        try:
            for round_ in range(1, design.max_forks + 1):
                active = [p for p in pending if p.detection is None and p.error is None]
                if not active:
                    break
                keys = sorted({p.key for p in active} - set(base_failed))
                self.log(f"round {round_} of at most {design.max_forks}: a slowed fork for each of {len(active)} "
                         f"undecided (method, benchmark) pair(s), a baseline fork for each of {len(keys)} benchmark(s)")
                jobs: list[tuple[str, _SlowedPair | None]] = [(key, None) for key in keys] + [(p.key, p) for p in active]
                todo = [jobs[int(index)] for index in rng.permutation(len(jobs))]
                while todo:  # a fork whose machine went away (a cluster worker died) runs again, as run's do
                    again = []
                    forks = []
                    for key, job in todo:
                        planned = base_plan[key] if job is None else job.planned
                        bid = planned.benchmark.id
                        indices[bid] = indices.get(bid, 0) + 1
                        forks.append((planned, base_policies[key] if job is None else job.policy, indices[bid]))
                    for (key, job), (planned, _, index), fork in zip(todo, forks, self._round_forks(forks)):
                        self.scratch.save_fork(run_id, planned.benchmark.id, fork)
                        spent += fork.duration_s
                        if fork.status is ForkStatus.LOST and lost.get(planned.benchmark.id, 0) < MAX_LOST_FORKS:
                            lost[planned.benchmark.id] = lost.get(planned.benchmark.id, 0) + 1
                            self.log(f"fork {index} of {planned.benchmark.id.key} lost its machine "
                                     f"({fork.message or 'worker gone'}); running it again")
                            again.append((key, job))
                            continue
                        complete = fork.status is ForkStatus.COMPLETE and bool(fork.measurement)
                        if job is None:  # a fresh baseline fork
                            if complete:
                                base[key].append(list(fork.measurement_ns))
                            else:
                                base_failed[key] = f"baseline fork {index}: {fork.message or fork.status.value}"
                        elif complete:
                            job.slowed.append(list(fork.measurement_ns))
                        else:
                            job.error = f"slowed fork {index}: {fork.message or fork.status.value}"
                    todo = again
                for pair in active:
                    if pair.error is None and pair.key in base_failed:
                        pair.error = base_failed[pair.key]
                    if pair.error is None:
                        pair.detection = detect_sequential(pair.method, pair.key, pair.base, pair.slowed, slowdown,
                                                           pair.threshold, design)
        except KeyboardInterrupt:
            self.scratch.finish_run(run_id, RunStatus.INTERRUPTED)
            raise
        for key in base:
            failed = base_failed.get(key)
            self.scratch.finish_benchmark(run_id, base_plan[key].benchmark.id,
                                          BenchmarkStatus.FAILED if failed else BenchmarkStatus.OK, failed, ())
        for pair in pending:
            self.scratch.finish_benchmark(run_id, pair.planned.benchmark.id,
                                          BenchmarkStatus.FAILED if pair.error else BenchmarkStatus.OK, pair.error, ())
        failed_any = bool(base_failed) or any(p.error for p in pending)
        self.scratch.finish_run(run_id, RunStatus.FAILED if failed_any else RunStatus.COMPLETE)
        detections: list[Detection] = []
        usable = {method for method, variant, _, _ in variants if self._variant_ok(method, variant, slowdown, errors)}
        for pair in pending:
            if pair.method not in usable:
                continue
            if pair.error is not None or pair.detection is None:
                self.warnings.append(f"{pair.method}: {pair.key} failed ({pair.error}); counted as not detecting")
                continue
            detections.append(pair.detection)
        overshot: dict[str, list[str]] = {}
        for d in detections:
            if d.outcome is Outcome.OVERSHOT:
                overshot.setdefault(d.method, []).append(d.benchmark)
        for method, keys in overshot.items():
            self.warnings.append(f"{method}: slowed by more than {slowdown:.0%} in {len(keys)} benchmark(s) "
                                 f"({', '.join(keys[:3])}{', ...' if len(keys) > 3 else ''}): too short for a precise "
                                 f"wait, or its recursion compounds; those pairs do not count as detecting it")
        return detections, spent

    def _round_forks(self, forks: list[tuple[PlannedBenchmark, StopPolicy, int]]) -> Iterator[ForkResult]:
        """A fork of each (planned benchmark, stop policy, fork index), in the order given: one after another
        here; on a cluster as many at once as it has fork slots (they are independent: the pairs are judged after
        the round), each started in that order.  Yields the forks in the order given."""
        if self.placement.concurrency <= 1:
            for planned, policy, index in forks:
                yield run_fork(planned.adapter, planned, index, policy, self.listener)
            return
        listener: ProgressListener = Serialised(self.listener, threading.RLock())  # type: ignore[assignment]
        with ThreadPoolExecutor(max_workers=self.placement.concurrency,
                                thread_name_prefix="benchwarden-assess") as pool:
            futures = [pool.submit(run_fork, planned.adapter, planned, index, policy, listener)
                       for planned, policy, index in forks]
            try:
                for future in futures:
                    yield future.result()
            except BaseException:  # Ctrl-C here, or the caller gave up on the round (GeneratorExit)
                for future in futures:
                    future.cancel()  # not yet started: nothing to stop
                if self.placement.on_interrupt is not None and not all(f.done() for f in futures):
                    self.placement.on_interrupt()  # the running forks end as interrupted
                raise

    def _paired_runs(self, variants, base_by_key) -> tuple[list[RunData], float]:
        """One scratch-store run per repetition: per benchmark, its baseline next to its slowed variants.

        This refines the study, which took one baseline run per repetition before all K′ slowed runs: on a
        shared machine, drift between runs minutes apart swamped the comparison (we measured −50 % swings),
        while one baseline per benchmark and repetition keeps the cost at
        repetitions · (|reached| + Σ_k |reach(k)|) benchmark runs (the baseline goes first in odd
        repetitions and last in even ones).
        """
        if not variants:
            return [], 0.0
        runs, spent = [], 0.0
        for rep in range(self.options.repetitions):
            order = []
            for key, base in base_by_key.items():
                slowed = [planned[key] for _, _, _, planned in variants if key in planned]
                if slowed:
                    order.extend([base, *slowed] if rep % 2 == 0 else [*slowed, base])
            self.log(f"repetition {rep + 1} of {self.options.repetitions}: {len(order)} benchmark runs "
                     f"({len(variants)} slowed method(s))")
            outcome = self.placement.runner(self.scratch, self.listener).run(
                Plan(benchmarks=order), self._meta(f"assess:slowed:{rep + 1}"))
            run = self.scratch.load_run(outcome.run_id)
            spent += _machine_s(run)
            runs.append(run)
        return runs, spent

    def _stubs(self, report: AbsReport, plan: Plan) -> list[Stub]:
        benchmarks = [p.benchmark for p in plan.benchmarks]
        stubs = []
        for method in report.uncovered:
            try:
                if self.suite.kind == "jmh":
                    stubs.append(jmh_stub(method, benchmarks))
                elif self.suite.kind == "go":
                    stubs.append(go_stub(method, *self._go_package(method)))
                elif self.suite.kind == "python":
                    stubs.append(asv_stub(method, benchmarks))
            except ValueError as exc:
                self.warnings.append(f"no stub for {method}: {exc}")
        return stubs

    def _go_package(self, method: str) -> tuple[str, str]:
        """(package clause, directory relative to the suite root) of the Go package declaring ``method``."""
        root = module_root(self.suite.context.root)
        module_path = next(line.split()[1].strip('"') for line in (root / "go.mod").read_text().splitlines()
                           if line.startswith("module "))
        best: tuple[str, Path] | None = None
        for directory in [root, *sorted(p for p in root.rglob("*") if p.is_dir() and ".git" not in p.parts)]:
            rel = directory.relative_to(root).as_posix()
            import_path = module_path if rel == "." else f"{module_path}/{rel}"
            if method.startswith(import_path + ".") and (best is None or len(import_path) > len(best[0])):
                best = (import_path, directory)
        if best is None:
            raise ValueError(f"{method} is not in module {module_path}")
        for source in sorted(best[1].glob("*.go")):
            match = re.search(r"^package\s+(\w+)", source.read_text(encoding="utf-8"), re.MULTILINE)
            if match:
                return match.group(1), os_relpath(best[1], self.suite.context.root)
        raise ValueError(f"no Go source for package {best[0]} in {best[1]}")


def os_relpath(path: Path, start: Path) -> str:
    import os

    return os.path.relpath(path, start)


def _forks(run: RunData, key: str, suite: str | None = None) -> list[list[float]] | None:
    """Measurement values per complete fork of benchmark ``key`` (of ``suite``, if given) in ``run``; None if it
    has no usable result."""
    for result in run.results:
        if result.benchmark.id.key == key and (suite is None or result.benchmark.id.suite == suite):
            if result.status is not BenchmarkStatus.OK:
                return None
            matrix = result.measurement_matrix()
            return matrix or None
    return None


def _nothing_assessable(suite: str, runs: Sequence[RunData]) -> str:
    """Why a suite none of whose benchmarks has a result in every baseline run cannot be assessed: an empty
    assessment would read as "no method detected", so it is an error naming the first failure."""
    failures = [f"{r.benchmark.id.key}: {r.message or r.status.value}" for run in runs for r in run.results
                if r.status is not BenchmarkStatus.OK]
    why = f"; first failure: {failures[0]}" if failures else ""
    return (f"suite '{suite}': no benchmark has a result in every baseline run ({len(runs)}), so nothing can be "
            f"assessed{why}")


def _machine_s(run: RunData) -> float:
    return sum(f.duration_s for r in run.results for f in r.forks)


def _mean_machine_s(runs: Sequence[RunData], key: str) -> float:
    per_run = [sum(f.duration_s for f in r.forks if f.status is ForkStatus.COMPLETE)
               for run in runs for r in run.results if r.benchmark.id.key == key]
    return sum(per_run) / len(per_run) if per_run else 0.0


def _run_tests(test) -> None:
    from benchwarden.adapters.process import run_build

    run_build(list(test.argv), test.cwd, "assess (tracing tests)", env=dict(test.env), timeout_s=1800)
