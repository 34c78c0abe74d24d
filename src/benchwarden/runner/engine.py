"""The run engine: a small state machine per fork (warmup -> measure -> done) and a loop over forks and benchmarks.

Decide and print are split: :func:`run_fork` and :func:`run_benchmark` only
decide and record; a :class:`~benchwarden.runner.progress.ProgressListener`
renders.  Every fork is handed to the store the moment it ends, so an
interrupted run (Ctrl-C, crash, ``kill -9``) keeps every completed fork and
``run --resume`` continues without repeating them.

Failure handling ("keep going where that makes sense"):

* a suite whose toolchain is missing or whose build or listing fails is
  reported and skipped; the other suites run;
* a fork that crashes, hangs or prints garbage is stored as FAILED with the
  iterations it produced; its benchmark stops (the next fork would most likely
  fail the same way) and is marked FAILED; the next benchmark runs;
* a fork whose machine went away (a cluster worker died: ``ForkFailed`` with reason
  ``"lost"``) is stored as LOST with the iterations it produced and run again under
  the next index, up to :data:`MAX_LOST_FORKS` times per benchmark.

With ``concurrency`` > 1 (``--cluster``, docs/distributed.md) several benchmarks run at
once, each in its own thread with its own fork loop and stop policy, exactly as one
would alone; the store and the listener are then called one thread at a time.
"""

from __future__ import annotations

import re
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Sequence

from benchwarden.adapters import get_adapter
from benchwarden.adapters.base import Adapter, ForkPlan, RunningFork, prepare_metric
from benchwarden.config import RunSettings, Suite
from benchwarden.errors import BenchwardenError, ForkFailed, UsageError
from benchwarden.metrics.primary import is_two_point, with_metric
from benchwarden.model import (
    Benchmark,
    BenchmarkResult,
    BenchmarkStatus,
    ForkResult,
    ForkStatus,
    IterationResult,
    RunMeta,
    RunStatus,
    StopDecision,
)
from benchwarden.runner.labels import ForkLabels
from benchwarden.runner.orphans import ForkRecorder, end_orphan_forks
from benchwarden.runner.policy import Bounds, StopPolicy, make_policy
from benchwarden.runner.progress import ProgressListener

#: lost forks (their machine went away) a benchmark may have before it is marked FAILED: a benchmark that
#: keeps losing its machine is more likely the cause (it exhausts memory, it kills its worker) than bad luck
MAX_LOST_FORKS = 3


class BenchmarkSkipped(Exception):
    """Raised out of run_fork when the harness says the benchmark declines this combination."""

    def __init__(self, message: str):
        super().__init__(message)


class RunInterrupted(BenchwardenError):
    """The user interrupted the run; completed forks are stored and the run can be resumed."""

    def __init__(self, run_id: int):
        self.run_id = run_id
        super().__init__(f"run {run_id} interrupted; every completed fork is stored. "
                         f"Finish it with: benchwarden run --resume {run_id}")


@dataclass(frozen=True)
class PlannedBenchmark:
    suite: Suite
    adapter: Adapter
    benchmark: Benchmark

    @property
    def settings(self) -> RunSettings:
        """This benchmark's settings: the suite's, with its matching ``overrides`` applied."""
        return self.suite.settings.for_benchmark(self.benchmark.id.key)

    @property
    def bounds(self) -> Bounds:
        s = self.settings
        if is_two_point(self.suite.kind, s.metric):  # each iteration is fresh processes: nothing to warm up
            return Bounds(0, 0, s.iterations, s.forks_min, s.forks_max)
        return Bounds(s.warmup_min, s.warmup_max, s.iterations, s.forks_min, s.forks_max)

    def fork_budget_s(self) -> float:
        """Longest a fork can take by its bounds (iterations x iteration time)."""
        return self.bounds.max_iterations_per_fork * self.settings.iteration_time_s


@dataclass
class Plan:
    benchmarks: list[PlannedBenchmark] = field(default_factory=list)
    toolchain: dict[str, str] = field(default_factory=dict)
    failed_suites: dict[str, BenchwardenError] = field(default_factory=dict)


@dataclass
class RunOutcome:
    run_id: int
    status: RunStatus
    results: list[BenchmarkResult]
    failed_suites: dict[str, BenchwardenError]
    elapsed_s: float
    skipped_on_resume: int = 0
    ended_orphans: tuple[str, ...] = ()  # forks of the interrupted run that were still running (orphans.py)

    @property
    def failed(self) -> bool:
        return bool(self.failed_suites) or any(r.status is BenchmarkStatus.FAILED for r in self.results)


def compile_filters(*patterns: str | None) -> Callable[[str], bool]:
    """A predicate on benchmark keys: every given regex must match (re.search). Raises UsageError on a bad regex."""
    compiled = []
    for p in patterns:
        if p:
            try:
                compiled.append(re.compile(p))
            except re.error as exc:
                raise UsageError(f"invalid --filter regular expression {p!r}: {exc}") from None
    return lambda key: all(c.search(key) for c in compiled)


def plan_run(suites: Sequence[Suite], cli_filter: str | None = None,
             adapter_factory: Callable[[str], Adapter] = get_adapter,
             listener: ProgressListener | None = None, *, measure: bool = True) -> Plan:
    """Prepare (build) every suite and list its benchmarks; a failing suite is recorded, not fatal.

    ``measure``: forks will run, so what each planned benchmark's metric needs is prepared too
    (:func:`~benchwarden.adapters.base.prepare_metric`, once per suite and metric); ``list`` and ``init``,
    which only list, pass False.
    """
    plan = Plan()
    listener = listener or ProgressListener()
    for suite in suites:
        ctx = suite.context
        keep = compile_filters(ctx.filter, cli_filter)
        try:
            adapter = adapter_factory(ctx.kind)
            prepared = adapter.prepare(ctx)
            benchmarks = [with_metric(b, suite.settings.for_benchmark(b.id.key).metric)
                          for b in adapter.list_benchmarks(ctx) if keep(b.id.key)]
            if measure:
                for metric in dict.fromkeys(b.metric for b in benchmarks):
                    prepare_metric(adapter, ctx, metric)
        except BenchwardenError as exc:
            plan.failed_suites[ctx.name] = exc
            listener.suite_failed(ctx.name, exc)
            continue
        for k, v in prepared.toolchain.items():
            plan.toolchain.setdefault(k, v)
        plan.benchmarks.extend(PlannedBenchmark(suite, adapter, b) for b in benchmarks)
    return plan


@dataclass(frozen=True)
class PairHold:
    """Two forks measured side by side (compare's simultaneous pairs) keep each other company to the end.

    A fork whose measurement has ended sets ``done`` and keeps its process iterating, unrecorded, until
    ``partner`` is set (the other fork's measurement has ended, or it has failed or stopped), so that neither
    fork's last measured iterations run on a machine the other has already left. Without it the version that
    takes longer — the slower one, in a real regression — always measured its tail with one process fewer
    beside it. It was added when the Python example's +6 % change came out *faster* side by side; it did not
    remove that bias, whose cause is not known (docs/performance.md, "Live verdicts").
    """

    done: threading.Event
    partner: threading.Event


def run_fork(adapter: Adapter, planned: PlannedBenchmark, fork_index: int, policy: StopPolicy,
             listener: ProgressListener, wall: Callable[[], float] = time.time,
             recorder: ForkRecorder | None = None,
             on_start: Callable[[RunningFork], None] | None = None,
             hold: PairHold | None = None) -> ForkResult:
    """Run one fork: label iterations warmup/measurement by the policy; stop the process at the boundary.

    On ForkFailed, the iterations streamed so far are kept in a FAILED fork.
    On KeyboardInterrupt the process group is stopped and the interrupt re-raised,
    with the partial fork attached as ``exc.partial_fork`` so the caller can store it.
    ``recorder`` marks the fork's environment and records it as started (see :mod:`.orphans`).
    ``on_start`` receives the running fork as soon as it exists, so a caller that runs forks in
    threads (compare's simultaneous pairs) can stop it from the main thread.
    ``hold`` (simultaneous pairs): after its measurement the process keeps iterating, unrecorded, until the
    partner's has ended (:class:`PairHold`); its plan allows twice the iterations for that.
    """
    bounds = planned.bounds
    settings = planned.settings
    ctx = planned.suite.context
    bench = planned.benchmark
    plan = ForkPlan(fork_index=fork_index, iteration_time_s=settings.iteration_time_s,
                    max_iterations=bounds.max_iterations_per_fork * (2 if hold is not None else 1),
                    timeout_s=settings.fork_timeout_s(),
                    iteration_timeout_s=settings.silence_timeout_s(), jvm_args=ctx.jvm_args,
                    env={**ctx.env, **(recorder.env if recorder is not None else {})},
                    metric=settings.metric)
    labels: ForkLabels[IterationResult] = ForkLabels(policy, bounds, lambda it: it.value_ns)
    started = wall()
    status, message = ForkStatus.COMPLETE, None
    fork: RunningFork | None = None
    try:
        fork = adapter.start_fork(ctx, bench, plan)
        if recorder is not None:
            recorder.started(bench.id, fork_index, fork)
        if on_start is not None:
            on_start(fork)
        iterations = iter(fork)
        for result in iterations:
            phase, number = labels.add(result)
            listener.iteration_done(bench, fork_index, phase, number, result)
            if labels.done:
                break
        if hold is not None and labels.done:
            _keep_company(iterations, hold)
        if not labels.done:
            status = ForkStatus.FAILED
            message = (f"the harness ended after {len(labels.warmup) + len(labels.measurement)} iterations, "
                       f"before {bounds.iterations} measurement iterations were taken")
    except ForkFailed as exc:
        if exc.reason == "skipped":
            raise BenchmarkSkipped(exc.detail) from None
        status = ForkStatus.LOST if exc.reason == "lost" else ForkStatus.FAILED
        message = str(exc) + (f"\n--- last output ---\n{exc.output}" if exc.output else "")
    except BenchwardenError as exc:
        status, message = ForkStatus.FAILED, str(exc)
    except KeyboardInterrupt as exc:
        partial = ForkResult(index=fork_index, status=ForkStatus.FAILED, warmup=tuple(labels.warmup),
                             measurement=tuple(labels.measurement), started_at=started, finished_at=wall(),
                             warmup_decisions=tuple(labels.decisions), message="interrupted",
                             machine=_machine_of(fork))
        exc.partial_fork = partial  # type: ignore[attr-defined]
        raise
    finally:
        if hold is not None:
            hold.done.set()
        if fork is not None:
            fork.stop()
    return ForkResult(index=fork_index, status=status, warmup=tuple(labels.warmup),
                      measurement=tuple(labels.measurement), started_at=started, finished_at=wall(),
                      warmup_decisions=tuple(labels.decisions), message=message, machine=_machine_of(fork))


def _keep_company(iterations: Iterator[IterationResult], hold: PairHold) -> None:
    """The fork's measurement is complete: iterate on, discarding, while the partner still measures. A harness
    that ends or fails now has nothing left to lose: the measured iterations are already labelled."""
    hold.done.set()
    try:
        while not hold.partner.is_set():
            if next(iterations, None) is None:
                return
    except (ForkFailed, BenchwardenError):
        return


def _machine_of(fork: RunningFork | None) -> dict[str, str]:
    """Where the fork ran, when it says (a remote fork's optional ``machine``); empty: the run's machine.

    Optional rather than part of :class:`RunningFork`: local adapters have nothing to add to the run's own
    machine, and the protocol stays what every adapter already implements."""
    machine = getattr(fork, "machine", None)
    return {str(k): str(v) for k, v in machine.items()} if machine else {}


def _fork_checkpoint(policy: StopPolicy, bounds: Bounds, forks: Sequence[ForkResult]) -> StopDecision:
    complete = [f for f in forks if f.status is ForkStatus.COMPLETE]
    matrix = [list(f.measurement_ns) for f in complete]
    n = len(matrix)
    decision = policy.fork_decision(bounds, matrix, [[it.value_ns for it in f.warmup] for f in complete])
    if n < bounds.forks_min:
        return StopDecision(stop=False, reason="below-minimum", values=decision.values)
    if not decision.stop and n >= bounds.forks_max:
        return replace(decision, stop=True, reason="maximum-reached",
                       warning=decision.warning or f"results did not become stable within {bounds.forks_max} forks")
    return decision


class ForkOverhead:
    """What a fork costs beyond its iterations (process start-up, harness calibration), learned per adapter kind.

    The ETA's budget counts iterations × iteration time; a fork also pays for
    starting its process (a JVM: ~0.5–1 s; a Go test binary: ms) and, in
    harnesses that calibrate, for finding the operation count.  Each
    completed fork of the run tells how much (its wall time minus its
    iterations' time), and the mean per kind is added to every remaining fork.
    """

    def __init__(self) -> None:
        self._sums: dict[str, tuple[float, int]] = {}

    def add(self, planned: PlannedBenchmark, result: BenchmarkResult) -> None:
        kind = planned.suite.context.kind
        total, count = self._sums.get(kind, (0.0, 0))
        for fork in result.forks:
            iterations = len(fork.warmup) + len(fork.measurement)
            total += max(0.0, fork.duration_s - iterations * planned.settings.iteration_time_s)
            count += 1
        self._sums[kind] = (total, count)

    def per_fork_s(self, planned: PlannedBenchmark) -> float:
        total, count = self._sums.get(planned.suite.context.kind, (0.0, 0))
        return total / count if count else 0.0


class Runner:
    """Drives a planned run against a store. ``store`` needs the Store API of :mod:`benchwarden.store`."""

    def __init__(self, store, listener: ProgressListener | None = None,
                 wall: Callable[[], float] = time.time, monotonic: Callable[[], float] = time.monotonic,
                 concurrency: int = 1, on_interrupt: Callable[[], None] | None = None):
        """``concurrency``: benchmarks run at once (1: one after the other, on this machine; more only when
        forks run elsewhere, e.g. one per cluster worker).  ``on_interrupt``: called once on Ctrl-C while
        benchmarks run concurrently, to make their running forks end as interrupted (the cluster's forks
        are not in this process group, so the signal does not reach them)."""
        self.store = store
        self.listener = listener or ProgressListener()
        self.wall = wall
        self._recorder: ForkRecorder | None = None  # set per run (orphans.py)
        self.monotonic = monotonic
        self.concurrency = max(1, concurrency)
        self.on_interrupt = on_interrupt

    def run(self, plan: Plan, meta: RunMeta | None = None, resume_run_id: int | None = None) -> RunOutcome:
        """Run every planned benchmark, storing each fork as it ends. Raises RunInterrupted on Ctrl-C."""
        t0 = self.monotonic()
        previous: dict[str, BenchmarkResult] = {}
        ended: list[str] = []
        if resume_run_id is not None:
            run_id = resume_run_id
            ended = end_orphan_forks(self.store, run_id)  # before anything runs beside them
            for r in self.store.load_run(run_id).results:
                previous[str(r.benchmark.id)] = r
        else:
            if meta is None:
                raise ValueError("a new run needs RunMeta")
            run_id = self.store.create_run(meta)
        self._recorder = ForkRecorder.for_run(self.store, run_id)
        results: list[BenchmarkResult] = []
        skipped = 0
        total = len(plan.benchmarks)
        overhead = ForkOverhead()
        remaining_budget = sum(p.fork_budget_s() * p.bounds.forks_max for p in plan.benchmarks)
        self.listener.run_started(run_id, total, remaining_budget)
        if self.concurrency > 1:
            results, skipped = self._run_concurrently(run_id, plan, previous, remaining_budget)
            return self._finish(run_id, plan, results, t0, skipped, ended)
        try:
            for index, planned in enumerate(plan.benchmarks, start=1):
                prior = previous.get(str(planned.benchmark.id))
                if prior is not None and prior.status in (BenchmarkStatus.FAILED, BenchmarkStatus.SKIPPED):
                    results.append(prior)
                    skipped += 1
                    continue
                self.store.add_benchmark(run_id, planned.benchmark)
                self.listener.benchmark_started(planned.benchmark, index, total, planned.bounds.forks_max)
                result = self._run_benchmark(run_id, planned, prior)
                results.append(result)
                remaining_budget -= planned.fork_budget_s() * planned.bounds.forks_max
                overhead.add(planned, result)
                later = plan.benchmarks[index:]
                self.listener.benchmark_finished(result, max(0.0, remaining_budget) + sum(
                    overhead.per_fork_s(p) * p.bounds.forks_max for p in later))
        except KeyboardInterrupt:
            self.store.finish_run(run_id, RunStatus.INTERRUPTED)
            raise RunInterrupted(run_id) from None
        return self._finish(run_id, plan, results, t0, skipped, ended)

    def _finish(self, run_id: int, plan: Plan, results: list[BenchmarkResult], t0: float, skipped: int,
                ended: list[str]) -> RunOutcome:
        status = RunStatus.COMPLETE
        if plan.failed_suites or any(r.status is BenchmarkStatus.FAILED for r in results):
            status = RunStatus.FAILED
        self.store.finish_run(run_id, status)
        return RunOutcome(run_id=run_id, status=status, results=results, failed_suites=dict(plan.failed_suites),
                          elapsed_s=self.monotonic() - t0, skipped_on_resume=skipped, ended_orphans=tuple(ended))

    def _run_concurrently(self, run_id: int, plan: Plan, previous: dict[str, BenchmarkResult],
                          remaining_budget: float) -> tuple[list[BenchmarkResult], int]:
        """Up to ``concurrency`` benchmarks at once, one thread each; results in plan order.

        The ETA is the remaining budget spread over the threads.  On Ctrl-C, ``on_interrupt`` makes the
        running forks end; each thread stores its partial fork as the sequential loop does, and the run is
        marked interrupted once all have ended.
        """
        lock = threading.RLock()
        store, listener = self.store, self.listener
        self.store, self.listener = Serialised(store, lock), Serialised(listener, lock)  # type: ignore[assignment]
        total = len(plan.benchmarks)
        slots: list[BenchmarkResult | None] = [None] * total
        skipped = 0
        budget = [remaining_budget]

        def one(index: int, planned: PlannedBenchmark, prior: BenchmarkResult | None) -> None:
            self.store.add_benchmark(run_id, planned.benchmark)
            self.listener.benchmark_started(planned.benchmark, index, total, planned.bounds.forks_max)
            result = self._run_benchmark(run_id, planned, prior)
            slots[index - 1] = result
            with lock:
                budget[0] -= planned.fork_budget_s() * planned.bounds.forks_max
                self.listener.benchmark_finished(result, max(0.0, budget[0]) / self.concurrency)

        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="benchwarden-benchmark")
        pending: set[Future[None]] = set()
        try:
            try:
                for index, planned in enumerate(plan.benchmarks, start=1):
                    prior = previous.get(str(planned.benchmark.id))
                    if prior is not None and prior.status in (BenchmarkStatus.FAILED, BenchmarkStatus.SKIPPED):
                        slots[index - 1] = prior
                        skipped += 1
                        continue
                    pending.add(pool.submit(one, index, planned, prior))
                while pending:
                    done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                    for future in done:
                        future.result()
            except KeyboardInterrupt:
                for future in pending:
                    future.cancel()  # not yet started: nothing to stop
                if self.on_interrupt is not None:
                    self.on_interrupt()
                wait(pending)
                store.finish_run(run_id, RunStatus.INTERRUPTED)
                raise RunInterrupted(run_id) from None
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            self.store, self.listener = store, listener
        return [r for r in slots if r is not None], skipped

    def _run_benchmark(self, run_id: int, planned: PlannedBenchmark,
                       prior: BenchmarkResult | None) -> BenchmarkResult:
        bench = planned.benchmark
        bounds = planned.bounds
        policy = make_policy(planned.settings)
        forks: list[ForkResult] = [f for f in (prior.forks if prior else ()) if f.status is ForkStatus.COMPLETE]
        decisions: list[StopDecision] = []
        # Replay the fork checkpoints over forks kept from an interrupted run, so the decision trail is whole.
        for k in range(1, len(forks) + 1):
            decisions.append(_fork_checkpoint(policy, bounds, forks[:k]))
        status, message = BenchmarkStatus.OK, None
        # a lost fork keeps its index (and iterations); the fork that replaces it takes the next one
        lost = [f for f in (prior.forks if prior else ()) if f.status is ForkStatus.LOST]
        fork_index = max((f.index for f in forks + lost), default=0)
        while not (decisions and decisions[-1].stop) and len(forks) < bounds.forks_max:
            fork_index += 1
            self.listener.fork_started(bench, fork_index, bounds.forks_max)
            try:
                fork = run_fork(planned.adapter, planned, fork_index, policy, self.listener, self.wall,
                                self._recorder)
            except BenchmarkSkipped as exc:
                status, message = BenchmarkStatus.SKIPPED, f"skipped: {exc}"
                self.store.finish_benchmark(run_id, bench.id, status, message, decisions)
                return BenchmarkResult(benchmark=bench, forks=_by_index(forks + lost), status=status,
                                       message=message, fork_decisions=tuple(decisions))
            except KeyboardInterrupt as exc:
                partial = getattr(exc, "partial_fork", None)
                if partial is not None and (partial.warmup or partial.measurement):
                    self.store.save_fork(run_id, bench.id, partial)
                raise
            self.store.save_fork(run_id, bench.id, fork)
            self.listener.fork_finished(bench, fork)
            if fork.status is ForkStatus.LOST:
                lost.append(fork)
                if len(lost) <= MAX_LOST_FORKS:
                    continue
            if fork.status is not ForkStatus.COMPLETE:
                status, message = BenchmarkStatus.FAILED, f"fork {fork_index}: {fork.message}"
                if fork.status is ForkStatus.LOST:
                    message += f" ({len(lost)} forks of this benchmark lost)"
                else:
                    forks.append(fork)
                self.store.finish_benchmark(run_id, bench.id, status, message, decisions)
                return BenchmarkResult(benchmark=bench, forks=_by_index(forks + lost), status=status,
                                       message=message, fork_decisions=tuple(decisions))
            forks.append(fork)
            decisions.append(_fork_checkpoint(policy, bounds, forks))
        self.store.finish_benchmark(run_id, bench.id, status, message, decisions)
        return BenchmarkResult(benchmark=bench, forks=_by_index(forks + lost), status=status, message=message,
                               fork_decisions=tuple(decisions))


def _by_index(forks: list[ForkResult]) -> tuple[ForkResult, ...]:
    """A benchmark's forks as the store returns them: complete, failed and lost, by index."""
    return tuple(sorted(forks, key=lambda f: f.index))


class Serialised:
    """Calls the wrapped object's methods one thread at a time (the store and the listeners are written for
    one thread; concurrent benchmarks share them)."""

    def __init__(self, inner: Any, lock: threading.RLock):
        self._inner = inner
        self._lock = lock

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return attr(*args, **kwargs)
        return call
