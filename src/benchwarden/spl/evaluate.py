"""Running a check: build what the assertions name, measure exactly what they need, evaluate, measure more.

Steps (docs/spl.md, "How check runs"):

1. **Catalog.**  Each revision an assertion names is checked out and built once
   (:func:`benchwarden.revisions.suite_for_revision`); the working tree is built by the adapter as in
   ``run``.  A revision whose commit is the working tree's clean HEAD *is* the working tree: it is
   neither checked out nor measured twice.  Adapters list the benchmarks; expansion resolves every
   reference against these listings.
2. **Instances.**  The expansion yields the benchmark × parameters × revision instances the
   comparisons need — exactly those, nothing else is run.
3. **Reuse.**  Forks of earlier check runs of the same clean commit and fingerprint are reused
   (:mod:`benchwarden.spl.reuse`); the parametric interpretation also gets their history.
4. **Measure.**  Each instance lacking forks gets forks up to its ``forks.max`` through the runner
   (``Runner`` with a plan of exactly these benchmarks; the suite's stop policy decides each fork's
   warmup).  Forks are *interleaved*: pass after pass, one fork of every instance still owed one, in
   a seeded random order, so machine drift does not masquerade as a difference between benchmarks.
   Every fork is stored as it ends; each pass is one run per suite and revision, labelled ``check``.
5. **Evaluate, then measure more.**  While an assertion is undecided, the instances of its undecided
   comparisons get more forks (the suite's ``forks.max`` per round) up to ``max_rounds`` rounds and
   ``max_forks`` forks per instance; then the verdict is reported as it stands, undecided included.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

from benchwarden.adapters import get_adapter
from benchwarden.adapters.base import Adapter, prepare_metric
from benchwarden.config import RunSettings, Suite
from benchwarden.environment import GitState, collect_run_meta, git_state
from benchwarden.errors import BenchwardenError
from benchwarden.model import Benchmark, BenchmarkId, BenchmarkStatus, ForkResult, ForkStatus, RunMeta
from benchwarden.revisions import repository_root, resolve_commit, suite_for_revision
from benchwarden.runner.engine import Plan, PlannedBenchmark
from benchwarden.runner.placement import HERE, Placement
from benchwarden.runner.progress import ProgressListener
from benchwarden.spl.ast import Program
from benchwarden.spl.expand import ExpandedAssertion, Instance, expand_program
from benchwarden.spl.logic import Truth, v_all
from benchwarden.spl.reuse import CHECK_LABEL, StoreLookup, fingerprint
from benchwarden.spl.settings import CheckSettings
from benchwarden.spl.verdicts import AssertionResult, InstanceData, evaluate
from benchwarden.stats.machines import machine_spread
from benchwarden.stats.results import MachineSpread

WORKTREE_KEY = "WORKTREE"


@dataclass(frozen=True)
class Source:
    """Where an instance's code comes from: ``key`` is a commit hash, or WORKTREE for uncommitted code."""

    key: str
    commit: str | None
    dirty: bool | None
    label: str  # "working tree" or "v1.0 (0123456789)"
    revision: str | None  # the ref to check out; None: the working tree


@dataclass
class Target:
    """One suite at one source, prepared (built) and listed."""

    suite: Suite
    adapter: Adapter
    source: Source
    benchmarks: dict[BenchmarkId, Benchmark]
    toolchain: dict[str, str]
    relative_root: str


class SuiteCatalog:
    """Builds and lists suites per revision, lazily and once; implements expand's ``Catalog``."""

    def __init__(self, suites: Sequence[Suite], config_root: Path,
                 adapter_factory: Callable[[str], Adapter] = get_adapter):
        self.suites = [s.name for s in suites]
        self._suites = {s.name: s for s in suites}
        self.config_root = config_root
        self.adapter_factory = adapter_factory
        self._sources: dict[str | None, Source] = {}
        self._targets: dict[tuple[str, str], Target] = {}
        self._repo: Path | None = None

    def repo(self) -> Path:
        if self._repo is None:
            self._repo = repository_root(self.config_root)
        return self._repo

    def source(self, revision: str | None) -> Source:
        if revision not in self._sources:
            self._sources[revision] = self._make_source(revision)
        return self._sources[revision]

    def _make_source(self, revision: str | None) -> Source:
        commit, dirty = git_state(self.config_root)
        if revision is None:
            key = commit if (commit and dirty is False) else WORKTREE_KEY
            return Source(key, commit, dirty, "working tree", None)
        resolved = resolve_commit(self.repo(), revision)
        if resolved == commit and dirty is False:
            return Source(resolved, resolved, False, f"{revision} ({resolved[:10]}, the working tree)", None)
        return Source(resolved, resolved, False, f"{revision} ({resolved[:10]})", revision)

    def target(self, suite_name: str, revision: str | None) -> Target:
        source = self.source(revision)
        key = (suite_name, source.key)
        if key not in self._targets:
            self._targets[key] = self._prepare(self._suites[suite_name], source)
        return self._targets[key]

    def _prepare(self, suite: Suite, source: Source) -> Target:
        if source.revision is not None:
            suite, _ = suite_for_revision(suite, self.repo(), source.revision)
        relative = _relative_root(suite, self)
        adapter = self.adapter_factory(suite.kind)
        prepared = adapter.prepare(suite.context)
        listed = adapter.list_benchmarks(suite.context)
        for metric in dict.fromkeys(suite.settings.for_benchmark(b.id.key).metric for b in listed):
            prepare_metric(adapter, suite.context, metric)  # once, before any fork (as plan_run does)
        return Target(suite, adapter, source, {b.id: b for b in listed}, dict(prepared.toolchain), relative)

    def prepared(self, suite_name: str, source_key: str) -> Target:
        """A target prepared earlier (by expansion) for this suite and source key."""
        return self._targets[(suite_name, source_key)]

    def listing(self, revision: str | None) -> list[BenchmarkId]:
        out: list[BenchmarkId] = []
        for name in self.suites:
            out.extend(self.target(name, revision).benchmarks)
        return out


def _relative_root(suite: Suite, catalog: SuiteCatalog) -> str:
    """The suite's root relative to its repository (stable across worktrees), else its name."""
    try:
        top = repository_root(suite.context.root)
        return str(suite.context.root.resolve().relative_to(top.resolve()))
    except (BenchwardenError, ValueError):
        return suite.name


@dataclass(frozen=True)
class DataKey:
    """Instances with equal keys share measurements (same suite, benchmark and code)."""

    suite: str
    benchmark: BenchmarkId
    source: str


@dataclass
class Collected:
    forks: list[list[float]] = field(default_factory=list)
    machines: list[str] = field(default_factory=list)  # per fork: the cluster worker it ran on, "" here
    reused_runs: list[int] = field(default_factory=list)
    measured_runs: list[int] = field(default_factory=list)
    history: list[tuple[float, int]] = field(default_factory=list)
    failure: str | None = None

    def add(self, forks: Sequence[ForkResult]) -> None:
        """Complete forks (with measurements), measured or reused."""
        self.forks.extend(list(f.measurement_ns) for f in forks)
        self.machines.extend(f.machine_name for f in forks)

    def data(self) -> InstanceData:
        return InstanceData(tuple(tuple(f) for f in self.forks), tuple(self.history), self.failure)

    def machine_level(self) -> MachineSpread | None:
        """How the instance's fork means differ between the machines they ran on (docs/distributed.md), when
        they ran on two or more; None otherwise.  Reported beside the verdicts, not folded into them: a check
        on a cluster of one machine kind pools its forks, as `show` does."""
        labels = [m or "this machine" for m in self.machines]
        if len(set(labels)) < 2:
            return None
        return machine_spread([sum(f) / len(f) for f in self.forks], labels)


@dataclass
class CheckOutcome:
    assertions: list[AssertionResult]
    instances: dict[Instance, Collected]
    sources: dict[Instance, Source]
    runs: list[int]
    rounds: int
    elapsed_s: float

    @property
    def errors(self) -> list[str]:
        return sorted({f"{i.label}: {c.failure}" for i, c in self.instances.items() if c.failure})

    @property
    def verdict(self) -> Truth:
        """All assertions together: fails if any fails, holds if all hold, else undecided."""
        return v_all(a.verdict for a in self.assertions)


class Checker:
    """Runs a check over a store; ``listener`` sees the runner's progress events."""

    def __init__(self, suites: Sequence[Suite], config_root: Path, store, settings: CheckSettings,
                 listener: ProgressListener | None = None, placement: Placement = HERE,
                 wall: Callable[[], float] = time.time):
        """``placement``: where the forks run (here, or a cluster's workers: then the runs, and the fingerprints
        that decide what is reused, are the cluster's, never this machine's)."""
        self.catalog = SuiteCatalog(suites, config_root, placement.adapter_factory)
        self.store = store
        self.settings = settings
        self.listener = listener or ProgressListener()
        self.placement = placement
        self.wall = wall
        self.lookup = StoreLookup(store)
        self.machine = dict(placement.machine())
        self.collected: dict[DataKey, Collected] = {}
        self.runs: list[int] = []

    # -- the whole check ---------------------------------------------------------------------------

    def expand(self, programs: Sequence[tuple[Program, str | None]]) -> list[ExpandedAssertion]:
        """Expand every program (with its SELF reference); builds the revisions the programs name."""
        out: list[ExpandedAssertion] = []
        for program, self_ref in programs:
            out.extend(expand_program(program, self.catalog, self_ref))
        return out

    def run(self, assertions: Sequence[ExpandedAssertion]) -> CheckOutcome:
        t0 = time.monotonic()
        instances = _unique(i for a in assertions for i in a.instances)
        keys = {i: self.key(i) for i in instances}
        self._reuse(set(keys.values()))
        self._measure({k: self._first_round_forks(k) for k in set(keys.values())})
        results = self._evaluate(assertions, keys)
        rounds = 0
        while rounds < self.settings.max_rounds and not self.settings.lenient:
            wanted = {keys[i] for r in results if r.verdict is Truth.UNDECIDED for i in r.undecided_instances()}
            more = {k: n for k in wanted if (n := self._more_forks(k)) > 0}
            if not more:
                break
            rounds += 1
            self._measure(more)
            results = self._evaluate(assertions, keys)
        return CheckOutcome(results, {i: self.collected[keys[i]] for i in instances},
                            {i: self.catalog.source(i.revision) for i in instances}, sorted(set(self.runs)),
                            rounds, time.monotonic() - t0)

    def key(self, instance: Instance) -> DataKey:
        source = self.catalog.source(instance.revision)
        return DataKey(instance.benchmark.suite, instance.benchmark, source.key)

    # -- data ---------------------------------------------------------------------------------------

    def _target(self, key: DataKey) -> Target:
        return self.catalog.prepared(key.suite, key.source)

    def _fingerprint(self, target: Target) -> str:
        return fingerprint(target.suite, target.relative_root, self.machine)

    def _reuse(self, keys: set[DataKey]) -> None:
        for key in keys:
            self.collected.setdefault(key, Collected())
        if self.settings.reuse_max_age_s is None and self.settings.history_runs == 0:
            return
        by_target: dict[tuple[str, str], list[DataKey]] = {}
        for key in keys:
            by_target.setdefault((key.suite, key.source), []).append(key)
        for (_suite, source), group in by_target.items():
            target = self._target(group[0])
            fp = self._fingerprint(target)
            if self.settings.reuse_max_age_s is not None and source != WORKTREE_KEY:
                found = self.lookup.reusable(fp, source, [k.benchmark for k in group],
                                             self.settings.reuse_max_age_s, self.wall())
                for key in group:
                    forks, run_ids = found.get(key.benchmark, ([], []))
                    self.collected[key].add(forks)
                    self.collected[key].reused_runs.extend(run_ids)
            if self.settings.history_runs > 0:
                for key in group:
                    c = self.collected[key]
                    c.history = self.lookup.history(fp, key.benchmark, self.settings.history_runs,
                                                    exclude=c.reused_runs)

    def _first_round_forks(self, key: DataKey) -> int:
        """Forks still to run to reach the benchmark's ``forks.max``, after reused forks."""
        s = _benchmark_settings(self._target(key).suite, key.benchmark)
        return max(0, s.forks_max - len(self.collected[key].forks))

    def _max_forks(self, key: DataKey) -> int:
        s = _benchmark_settings(self._target(key).suite, key.benchmark)
        return self.settings.max_forks if self.settings.max_forks is not None else 4 * s.forks_max

    def _more_forks(self, key: DataKey) -> int:
        c = self.collected[key]
        if c.failure:
            return 0
        step = _benchmark_settings(self._target(key).suite, key.benchmark).forks_max
        return max(0, min(step, self._max_forks(key) - len(c.forks)))

    def _measure(self, requests: dict[DataKey, int]) -> None:
        """Run ``requests[key]`` more forks of each key, *interleaved*: in pass p every key still owed a
        fork gets one, in a seeded random order of targets and benchmarks, so slow drifts of the machine
        (load, thermal state) spread over all instances instead of biasing whichever ran last.  Each pass
        stores one run per target (suite and revision)."""
        wanted = {k: n for k, n in requests.items() if n > 0 and not self.collected[k].failure}
        rng = random.Random(self.settings.seed * 1_000_003 + len(self.runs))
        for p in range(max(wanted.values(), default=0)):
            groups: dict[tuple[str, str], list[DataKey]] = {}
            for key in sorted(wanted, key=str):
                if wanted[key] > p and not self.collected[key].failure:
                    groups.setdefault((key.suite, key.source), []).append(key)
            order = sorted(groups)
            rng.shuffle(order)
            for group in order:
                keys = groups[group]
                rng.shuffle(keys)
                self._run_pass(self._target(keys[0]), keys)

    def _run_pass(self, target: Target, keys: list[DataKey]) -> None:
        """One fork of each key through the runner (its stop policy decides the warmup), stored as one run."""
        planned = []
        for key in keys:
            settings = replace(_benchmark_settings(target.suite, key.benchmark), forks_min=1, forks_max=1)
            planned.append(PlannedBenchmark(replace(target.suite, settings=settings), target.adapter,
                                            target.benchmarks[key.benchmark]))
        outcome = self.placement.runner(self.store, self.listener).run(
            Plan(benchmarks=planned, toolchain=dict(target.toolchain)), self._meta(target))
        self.runs.append(outcome.run_id)
        by_id = {r.benchmark.id: r for r in outcome.results}
        for key in keys:
            result = by_id.get(key.benchmark)
            collected = self.collected[key]
            collected.measured_runs.append(outcome.run_id)
            if result is None:
                continue
            collected.add([f for f in result.forks if f.status is ForkStatus.COMPLETE and f.measurement])
            if result.status is BenchmarkStatus.FAILED:
                collected.failure = result.message or "the benchmark failed"

    def _meta(self, target: Target) -> RunMeta:
        src = target.source
        known = GitState(src.commit, src.dirty) if src.key != WORKTREE_KEY else None
        meta = collect_run_meta(self.catalog.config_root, source=known, created_at=self.wall(),
                                toolchain=target.toolchain, label=CHECK_LABEL,
                                config={"check": {"fingerprint": self._fingerprint(target),
                                                  "suite": target.suite.name, "source": src.label,
                                                  "root": str(target.suite.context.root)},
                                        **({"cluster": self.placement.cluster} if self.placement.remote else {})})
        return self.placement.meta(meta)

    def _evaluate(self, assertions: Sequence[ExpandedAssertion], keys: dict[Instance, DataKey]) -> list[AssertionResult]:
        return [evaluate(a, lambda i: self.collected[keys[i]].data(), self.settings,
                         same=lambda x, y: keys[x] == keys[y]) for a in assertions]


def _benchmark_settings(suite: Suite, bid: BenchmarkId) -> RunSettings:
    """One benchmark's run settings (the suite's per-benchmark overrides applied, where config has them)."""
    for_benchmark = getattr(suite.settings, "for_benchmark", None)
    return for_benchmark(bid.key) if for_benchmark is not None else suite.settings


def _unique(items) -> list:
    seen: dict = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)
