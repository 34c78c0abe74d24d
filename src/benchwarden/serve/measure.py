"""Measurement on demand: a queue of requested benchmarks, measured one at a time, each in two phases.

Horký's measurement server (digest seed-000 §4) measures what a reader asks for, caches it, and refines it in
phases.  Here a *job* is one benchmark with one combination of parameter values:

1. **cache**: if the store already holds a run that measured exactly this benchmark at the commit and on the
   machine being served (a clean tree, or a run this server made), the job is answered at once from it (this
   server's own finished measurements are known at once; other runs once the site was rebuilt from the store);
2. **quick**: one short fork (2 warmup and 3 measurement iterations of at most 100 ms) — a first number within
   seconds, labelled ``serve quick`` and never used as a cached answer;
3. **accurate**: a run with the suite's own settings (its stop policy, forks, iterations), labelled ``serve``;
   after each fork the job reports the mean and interval of the forks so far.

Both phases are ordinary runs through the runner, stored fork by fork as any ``run``: a shutdown keeps every
completed fork, and an interrupted accurate run can be finished with ``benchwarden run --resume``.  One job
runs at a time on this machine (benchmarks beside each other would measure each other); the others wait in
a queue whose positions every waiting reader sees.  A request for a job already queued or running joins it.

Events are plain dicts appended to the job (``queued``, ``started``, ``iteration``, ``quick``, ``fork``,
``done``, ``cached``, ``failed``, ``cancelled``); the web layer streams them (serve/app.py).  Shutdown: the
listener raises ``KeyboardInterrupt`` at the running fork's next iteration boundary — the runner's own
Ctrl-C path, which stops the harness's process group, stores the partial fork as interrupted and marks the
run interrupted.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from benchwarden.adapters.base import Adapter
from benchwarden.config import Config, Suite
from benchwarden.environment import GitState, collect_run_meta, git_state, machine_identity, machine_key
from benchwarden.errors import BenchwardenError
from benchwarden.model import (
    Benchmark,
    BenchmarkResult,
    BenchmarkStatus,
    ForkResult,
    ForkStatus,
    IterationResult,
    Phase,
    RunData,
    RunStatus,
)
from benchwarden.report.summary import BenchmarkSummary, summarize_benchmark
from benchwarden.runner.engine import Plan, PlannedBenchmark, RunInterrupted, Runner
from benchwarden.runner.progress import ProgressListener
from benchwarden.runner.snapshot import run_snapshot
from benchwarden.serve.domain import DomainError, Family

QUICK_LABEL = "serve quick"
ACCURATE_LABEL = "serve"
#: the quick phase: one fork of 2 warmup and 3 measurement iterations of at most this long
QUICK_ITERATION_S = 0.1
QUICK_WARMUP, QUICK_ITERATIONS = 2, 3
#: jobs waiting at once; more are refused with a message (a reader can ask again)
MAX_QUEUED = 50
FINISHED = ("done", "cached", "failed", "cancelled")


class QueueFull(BenchwardenError):
    """The queue already holds MAX_QUEUED jobs."""


@dataclass
class Job:
    """One requested measurement and what happened to it so far (``events``, appended under ``lock``)."""

    id: int
    family: str
    benchmark: Benchmark
    suite: str
    state: str = "queued"
    events: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def name(self) -> str:
        return str(self.benchmark.id)

    @property
    def finished(self) -> bool:
        return self.state in FINISHED

    def emit(self, event: str, **data: Any) -> None:
        with self.lock:
            self.events.append({"event": event, "job": self.id, "t": round(time.time(), 3), **data})
            if event in ("started", *FINISHED):
                self.state = "running" if event == "started" else event

    def events_from(self, start: int) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.events[start:])

    def to_json(self) -> dict[str, Any]:
        return {"job": self.id, "benchmark": self.name, "family": self.family, "state": self.state,
                "params": dict(self.benchmark.id.params)}


def summary_event(summary: BenchmarkSummary) -> dict[str, Any]:
    """The numbers a page shows for a summary: mean and interval in the benchmark's own unit."""
    ci = summary.ci
    return {"mean": summary.mean, "low": ci[0] if ci else None, "high": ci[1] if ci else None,
            "unit": summary.unit, "forks": summary.forks, "confidence": summary.confidence,
            "iterations": summary.measurement_iterations}


class _JobListener(ProgressListener):
    """Turns the runner's progress into the job's events; raises KeyboardInterrupt once shutdown is asked."""

    def __init__(self, job: Job, phase: str, stop: threading.Event):
        self.job, self.phase, self.stop = job, phase, stop
        self.forks: list[ForkResult] = []
        self.run_id: int | None = None

    def run_started(self, run_id: int, total_benchmarks: int, budget_s: float) -> None:
        self.run_id = run_id
        self.job.emit("phase", phase=self.phase, run=run_id, budget_s=round(budget_s, 1))

    def iteration_done(self, benchmark: Benchmark, fork_index: int, phase: Phase, number: int,
                       result: IterationResult) -> None:
        if self.stop.is_set():
            raise KeyboardInterrupt  # the runner's Ctrl-C path: the fork is stopped and its iterations stored
        self.job.emit("iteration", phase=self.phase, fork=fork_index, kind=phase.value, number=number)

    def fork_finished(self, benchmark: Benchmark, fork: ForkResult) -> None:
        self.forks.append(fork)
        if self.phase == "accurate" and fork.status is ForkStatus.COMPLETE:
            partial = BenchmarkResult(benchmark=benchmark, forks=tuple(self.forks), status=BenchmarkStatus.OK)
            self.job.emit("fork", fork=fork.index, **summary_event(summarize_benchmark(partial)))


class MeasurementService:
    """The queue and its one worker thread.  ``families``, ``adapters``, ``toolchain``: what preparing and listing
    the served suites found, once at start; ``on_stored``: called after each job that stored runs
    (the live site rebuilds); ``runs``: the runs the cache may answer from, newest first."""

    def __init__(self, config: Config, store_url: str, suites: Mapping[str, Suite], adapters: Mapping[str, Adapter],
                 families: Mapping[str, Family], toolchain: Mapping[str, str],
                 runs: Callable[[], Sequence[RunData]], on_stored: Callable[[], None] = lambda: None,
                 git: Callable[[], GitState] | None = None):
        self.config = config
        self.store_url = store_url
        self.suites = dict(suites)
        self.adapters = dict(adapters)
        self.families = dict(families)
        self.toolchain = dict(toolchain)
        self.runs = runs
        self.on_stored = on_stored
        self.git = git or (lambda: git_state(config.root))
        self.made: set[int] = set()  # run ids this server stored (a dirty tree's cache is only its own runs)
        self._fresh: dict[str, dict[str, Any]] = {}  # finished measurements by benchmark, until the site has them
        self.jobs: dict[int, Job] = {}
        self._ids = itertools.count(1)
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._waiting: list[Job] = []
        self._running: Job | None = None
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self._worker = threading.Thread(target=self._work, name="benchwarden-serve-worker", daemon=True)

    # -- requests (any thread) ---------------------------------------------------------------------------------

    def submit(self, family: str, params: Mapping[str, str]) -> Job:
        """The job for ``family`` with ``params``: answered from the cache, joined, or queued.  DomainError for a
        benchmark or value outside what the benchmark declares; QueueFull."""
        if self.stopping.is_set():
            raise BenchwardenError("the server is shutting down")
        found = self.families.get(family)
        if found is None:
            raise DomainError(f"no benchmark with parameters named {family!r} in the served suites"
                              + ("" if self.families else " (none has parameters)"))
        benchmark = found.resolve(params)
        name = str(benchmark.id)
        cached = self._cached(name)  # reads git and the last build's runs: outside the lock
        with self._lock:
            for job in [*([self._running] if self._running else []), *self._waiting]:
                if job.name == name and not job.finished:
                    return job  # the same measurement is already under way: join it
            job = Job(next(self._ids), family, benchmark, found.suite)
            if cached is not None:
                self.jobs[job.id] = job
                job.emit("cached", **cached)
                return job
            if len(self._waiting) >= MAX_QUEUED:
                raise QueueFull(f"{len(self._waiting)} measurements are already waiting; ask again later")
            self.jobs[job.id] = job
            self._waiting.append(job)
            job.emit("queued", position=len(self._waiting))
        self._queue.put(job)
        return job

    def queue_state(self) -> dict[str, Any]:
        with self._lock:
            return {"running": self._running.to_json() if self._running else None,
                    "waiting": [j.to_json() for j in self._waiting]}

    def _cached(self, name: str) -> dict[str, Any] | None:
        """What the store holds for ``name`` at the served commit on this machine (the run, its commit, its summary):
        this server's own finished measurements first (known before the site is rebuilt), then the newest stored
        run of the last build."""
        state = self.git()
        if state.commit is None:
            return None
        fresh = self._fresh.get(name)
        if fresh is not None and fresh["commit"] == state.commit:
            return fresh
        here = machine_key(machine_identity())
        for run in self.runs():
            meta = run.meta
            if meta.commit != state.commit or run.status is not RunStatus.COMPLETE or meta.label == QUICK_LABEL:
                continue
            if isinstance(meta.config, Mapping) and meta.config.get("compare"):
                continue  # a side of a comparison may be a variant, not the tree as it is
            if machine_key(meta.machine) != here or (meta.dirty and run.id not in self.made) \
                    or (state.dirty and run.id not in self.made):
                continue
            for result in run.results:
                if str(result.benchmark.id) == name and result.status is BenchmarkStatus.OK \
                        and result.measurement_matrix():
                    return {"run": run.id, "commit": meta.commit, **summary_event(summarize_benchmark(result))}
        return None

    # -- the worker ------------------------------------------------------------------------------------------

    def start(self) -> None:
        self._worker.start()

    def request_stop(self) -> None:
        """Stop taking jobs and end the running fork at its next iteration (completed forks are stored)."""
        self.stopping.set()
        self._queue.put(None)

    def join(self, timeout_s: float) -> bool:
        """Wait for the worker to end; True when it did."""
        self._worker.join(timeout_s)
        return not self._worker.is_alive()

    def _work(self) -> None:
        from benchwarden.store import open_store

        store = open_store(self.store_url)
        try:
            while not self.stopping.is_set():
                job = self._queue.get()
                if job is None or self.stopping.is_set():
                    break
                with self._lock:
                    self._waiting.remove(job)
                    self._running = job
                    for position, waiting in enumerate(self._waiting, start=1):
                        waiting.emit("queued", position=position)
                stored = False
                try:
                    stored = self._measure(store, job)
                finally:
                    with self._lock:
                        self._running = None
                if stored and not self.stopping.is_set():  # after the last event: a big store takes seconds to build
                    self._refresh()
            with self._lock:  # the server is stopping: nothing that waits will run
                for job in self._waiting:
                    job.emit("cancelled", message="the server stopped before this measurement began")
                self._waiting.clear()
        finally:
            store.close()

    def _measure(self, store: Any, job: Job) -> bool:
        """Measure ``job`` (its events tell how it went); True when it stored a run."""
        job.emit("started")
        stored = False
        try:
            for phase in ("quick", "accurate"):
                listener = _JobListener(job, phase, self.stopping)
                suite = self._suite_for(job, phase)
                planned = PlannedBenchmark(suite, self.adapters[job.suite], job.benchmark)
                plan = Plan(benchmarks=[planned], toolchain=dict(self.toolchain))
                meta = collect_run_meta(self.config.root, toolchain=self.toolchain, label=(
                    QUICK_LABEL if phase == "quick" else ACCURATE_LABEL), config={
                    **run_snapshot(self.config, [suite], _exact(job)), "serve": {"job": job.id, "phase": phase}})
                try:
                    outcome = Runner(store, listener).run(plan, meta)
                finally:
                    if listener.run_id is not None:
                        self.made.add(listener.run_id)
                        stored = True
                result = outcome.results[0]
                if result.status is not BenchmarkStatus.OK:
                    job.emit("failed", phase=phase, run=outcome.run_id,
                             message=result.message or f"the benchmark {result.status.value}")
                    return stored
                summary = summarize_benchmark(result)
                if phase == "quick":
                    job.emit("quick", run=outcome.run_id, **summary_event(summary))
                else:
                    final = {"run": outcome.run_id, "commit": meta.commit, **summary_event(summary)}
                    if meta.commit is not None:
                        self._fresh[job.name] = final
                    job.emit("done", **final)
        except RunInterrupted as exc:
            job.emit("cancelled", run=exc.run_id, message=f"the server stopped; every completed fork of run "
                                                          f"{exc.run_id} is stored (benchwarden run --resume "
                                                          f"{exc.run_id} finishes it)")
        except BenchwardenError as exc:
            job.emit("failed", message=str(exc))
        except Exception as exc:  # a bug must not kill the worker and leave every later reader waiting
            job.emit("failed", message=f"internal error: {type(exc).__name__}: {exc}")
        return stored

    def _refresh(self) -> None:
        try:
            self.on_stored()
        except Exception:  # the site is rebuilt on the next page request
            pass

    def _suite_for(self, job: Job, phase: str) -> Suite:
        """The job's suite with its parameter values as overrides (so ``run --resume`` lists the same benchmark),
        and for the quick phase one short fork."""
        suite = self.suites[job.suite]
        params = {name: (value,) for name, value in job.benchmark.id.params}
        suite = replace(suite, context=replace(suite.context, params={**suite.context.params, **params}))
        if phase == "accurate":
            return suite
        s = suite.settings
        quick = s.with_flags(stop="static", forks_min=1, forks_max=1, warmup_min=QUICK_WARMUP, warmup_max=QUICK_WARMUP,
                             iterations=QUICK_ITERATIONS, iteration_time_s=min(s.iteration_time_s, QUICK_ITERATION_S))
        return replace(suite, settings=quick)


def _exact(job: Job) -> str:
    """A filter that matches exactly the job's benchmark key."""
    import re

    return "^" + re.escape(job.benchmark.id.key) + "$"
