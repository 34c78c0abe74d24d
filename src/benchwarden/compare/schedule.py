"""Execution that cancels drift: fork pairs of the two versions, interleaved in randomised order.

Randomised multiple interleaved trials (Abedi & Brecht, "Conducting Repeatable
Experiments in Highly Variable Cloud Computing Environments", ICPE 2017): the
session runs in *rounds*; in round ``r`` every benchmark still undecided runs
one fork of each version, benchmarks in a random order and the two versions of
each in a random order.  A slow drift of the machine (thermal, a neighbour, a
cache filling up) then hits both versions alike instead of whichever ran
second, and each benchmark's forks are spread over the whole session.

With ``pairing = "simultaneous"`` the two forks of a pair run *at the same time*, each in its own
process (Peass's parallel mode, Reichelt et al. seed-001 §2.4, where it raised F1 for every
workload; duet benchmarking, Bulej et al. 2020): whatever the machine does during the pair — a
neighbour's burst, a thermal state — hits both forks, and the pair's log ratio cancels it.  The order
is recorded as ``"b+c"``.  It needs a free core per fork to be fair; on a loaded 2-core machine it
trades some of each fork's speed for that shared fate (docs/compare.md, "Pairing").

Each fork is a fresh process with its warmup decided exactly as in ``run``
(:func:`benchwarden.runner.engine.run_fork` with the suite's stop policy);
the number of forks is decided by the comparison itself (:mod:`.sequential`):
after each round from ``min_pairs`` on, a benchmark whose repeated interval
settles the verdict stops.

Every fork is stored the moment it ends, in one of two runs (base and
candidate) created for the session, so a comparison can be re-analysed later
(``compare --runs BASE_RUN CANDIDATE_RUN``) and an interrupted one keeps its
forks.  The look decisions are stored as the benchmark's fork decisions.

On a cluster (``--cluster``, docs/distributed.md) the pairs of one round run concurrently, one per worker
(``concurrency``), the orders still drawn from the seed in benchmark order; ``pair_scope`` runs the two forks of a
pair on the same worker (blocking by machine: the machine's level cancels in the pair's ratio).  A pair whose
worker is lost mid-pair is run again: its forks are kept as LOST at indices past ``max_pairs`` and left out of the
analysis, up to ``MAX_LOST_FORKS`` times per benchmark.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Callable, ContextManager, Sequence

import numpy as np

from benchwarden.adapters.base import RunningFork
from benchwarden.compare.analysis import as_look, compare_forks, complete_matrix, judge_look, stop_decision
from benchwarden.compare.pairing import MatchedBenchmark
from benchwarden.compare.result import BenchmarkComparison, Look
from benchwarden.compare.sequential import SequentialDesign
from benchwarden.compare.settings import CompareSettings
from benchwarden.model import BenchmarkStatus, ForkResult, ForkStatus, RunStatus, StopDecision
from benchwarden.runner.engine import (
    MAX_LOST_FORKS,
    BenchmarkSkipped,
    PairHold,
    PlannedBenchmark,
    RunInterrupted,
    run_fork,
)
from benchwarden.runner.policy import StopPolicy, make_policy
from benchwarden.runner.progress import ProgressListener

ROLES = ("base", "candidate")

#: (adapter kind, metric) for which simultaneous pairs were measured live to be the most sensitive mode
#: (docs/performance.md, "Live verdicts"): ``pairing = "auto"`` (the default) runs these side by side and
#: everything else in sequence.
SIDE_BY_SIDE_BEST = frozenset({("go", "cpu")})

#: Adapter kinds where simultaneous pairs were measured to mislead (docs/performance.md, "Live verdicts": the
#: Python example's +9 % change read 1.005 side by side with one CPU-bound neighbour). The cause, found later,
#: was the memory layout, one per copy of the example before forks sampled layouts (docs/compare.md,
#: Limitations); whether side by side beats sequential pairs for Python since then is not measured.
BIASED_SIDE_BY_SIDE = frozenset({"python"})
SIDE_BY_SIDE_WARNING = ("simultaneous pairs on a Python suite: not measured to beat sequential pairs, and once "
                        "read changes measured at +9-14 % in sequence as 0.97-1.02 (docs/compare.md, Limitations); "
                        "pairing = \"sequential\" is the measured default")


def resolve_pairing(setting: str, kind: str, metric: str, side_by_side_possible: bool = True) -> str:
    """The pairing a benchmark's pairs run with: ``setting`` unless it is ``"auto"``, which is simultaneous
    for the (kind, metric) in :data:`SIDE_BY_SIDE_BEST` when this machine can run a pair side by side (two or
    more CPUs, not on a cluster), and sequential otherwise."""
    if setting != "auto":
        return setting
    return "simultaneous" if side_by_side_possible and (kind, metric) in SIDE_BY_SIDE_BEST else "sequential"


class CompareInterrupted(RunInterrupted):
    """The user interrupted a comparison; the forks completed so far are stored in both runs."""

    def __init__(self, base_run_id: int, candidate_run_id: int):
        super().__init__(base_run_id)
        self.candidate_run_id = candidate_run_id
        self.args = (f"comparison interrupted; the completed forks are stored in runs {base_run_id} (base) and "
                     f"{candidate_run_id} (candidate). Analyse them with: "
                     f"benchwarden compare --runs {base_run_id} {candidate_run_id}",)


class _SerialListener(ProgressListener):
    """Forwards the runner's per-fork hooks one at a time: two forks of a simultaneous pair report from
    two threads, and listeners (the terminal's progress lines) are written for one."""

    def __init__(self, inner: ProgressListener):
        self.inner = inner
        self.lock = threading.Lock()

    def fork_started(self, benchmark, fork_index, forks_max):
        with self.lock:
            self.inner.fork_started(benchmark, fork_index, forks_max)

    def iteration_done(self, benchmark, fork_index, phase, number, result):
        with self.lock:
            self.inner.iteration_done(benchmark, fork_index, phase, number, result)


class CompareListener(ProgressListener):
    """Progress of a comparison; the runner's per-fork hooks (iterations, forks) arrive as well."""

    def session_started(self, benchmarks: int, design: SequentialDesign) -> None:
        pass

    def pair_started(self, key: str, pair: int, order: tuple[str, str], simultaneous: bool = False) -> None:
        """A pair begins: ``order`` is the order its forks run in, or, ``simultaneous``, the order they are
        reported in (both run at once)."""

    def look_done(self, key: str, look: Look, decision: StopDecision) -> None:
        pass

    def benchmark_compared(self, result: BenchmarkComparison) -> None:
        pass

    def note(self, message: str) -> None:
        """A step after the fork pairs (``--explain``'s profiling)."""


@dataclass
class _BenchmarkState:
    matched: MatchedBenchmark
    forks: dict[str, list[ForkResult]] = field(default_factory=lambda: {r: [] for r in ROLES})
    looks: list[Look] = field(default_factory=list)
    decisions: list[StopDecision] = field(default_factory=list)
    order: list[str] = field(default_factory=list)
    message: str | None = None
    error: bool = False
    skipped: bool = False
    done: bool = False
    result: BenchmarkComparison | None = None
    policies: dict[str, StopPolicy] = field(default_factory=dict)  # one per side: policies may memoise
    lost: int = 0  # forks of this benchmark stored as LOST (their worker died), both sides

    @property
    def key(self) -> str:
        return self.matched.id.key

    def planned(self, role: str) -> PlannedBenchmark:
        return self.matched.base if role == "base" else self.matched.candidate


class InterleavedSession:
    """Runs matched benchmarks pair by pair, interleaved and randomised, into two stored runs.

    ``store``: the Store API (save_fork, add_benchmark, finish_benchmark, finish_run).
    ``seed``: drives the randomised order only (recorded with the comparison; the bootstrap seeds
    are derived from the benchmark keys, see :mod:`.analysis`).
    """

    def __init__(self, store, run_ids: tuple[int, int], settings: CompareSettings, seed: int,
                 listener: CompareListener | None = None, wall: Callable[[], float] = time.time,
                 concurrency: int = 1, pair_scope: Callable[[], ContextManager[object]] | None = None,
                 on_interrupt: Callable[[], None] | None = None):
        """``concurrency``: pairs run at once (a cluster's workers); ``pair_scope``: a context in which the two
        forks of a pair run (the cluster pins them to one worker); ``on_interrupt``: tells running forks to end
        on Ctrl-C when they are not this process's children."""
        self.store = store
        self.run_ids = dict(zip(ROLES, run_ids))
        self.settings = settings
        self.design = settings.design()
        self.rng = np.random.default_rng(seed)
        self.listener = listener or CompareListener()
        self.wall = wall
        self.concurrency = max(1, concurrency)
        self.pair_scope = pair_scope or contextlib.nullcontext
        self.on_interrupt = on_interrupt
        # side by side needs a core per fork, and one machine (a cluster worker runs one fork at a time)
        self.side_by_side_possible = pair_scope is None and self.concurrency == 1 and (os.cpu_count() or 1) >= 2

    def run(self, matched: Sequence[MatchedBenchmark]) -> list[BenchmarkComparison]:
        """Compare every matched benchmark; returns results in the given order. Raises CompareInterrupted."""
        states = [_BenchmarkState(m) for m in matched]
        for state in states:
            for role in ROLES:
                self.store.add_benchmark(self.run_ids[role], state.planned(role).benchmark)
        self.listener.session_started(len(states), self.design)
        if self.concurrency > 1:
            return self._run_concurrently(states)
        try:
            pair = 0
            active = list(states)
            while active:
                pair += 1
                for index in self.rng.permutation(len(active)):
                    self._run_pair(active[int(index)], pair)
                active = [s for s in active if not s.done]
        except KeyboardInterrupt:
            for role in ROLES:
                self.store.finish_run(self.run_ids[role], RunStatus.INTERRUPTED)
            raise CompareInterrupted(self.run_ids["base"], self.run_ids["candidate"]) from None
        return [s.result if s.result is not None else self._result(s) for s in states]

    def _run_concurrently(self, states: list[_BenchmarkState]) -> list[BenchmarkComparison]:
        """Each round's pairs at once, ``concurrency`` at a time; the round's orders drawn first, from the seed."""
        from benchwarden.runner.engine import Serialised

        lock = threading.RLock()
        store, listener = self.store, self.listener
        self.store, self.listener = Serialised(store, lock), Serialised(listener, lock)  # type: ignore[assignment]
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="benchwarden-pair")
        try:
            pair = 0
            active = list(states)
            while active:
                pair += 1
                round_ = [(active[int(i)], self._draw_order()) for i in self.rng.permutation(len(active))]
                futures = [pool.submit(self._run_pair, state, pair, order) for state, order in round_]
                try:
                    while not all(f.done() for f in futures):
                        wait(futures, timeout=0.2)
                    for future in futures:
                        future.result()
                except KeyboardInterrupt:
                    for future in futures:
                        future.cancel()
                    if self.on_interrupt is not None:
                        self.on_interrupt()
                    wait(futures)
                    raise
                active = [s for s in active if not s.done]
        except KeyboardInterrupt:
            for role in ROLES:
                store.finish_run(self.run_ids[role], RunStatus.INTERRUPTED)
            raise CompareInterrupted(self.run_ids["base"], self.run_ids["candidate"]) from None
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            self.store, self.listener = store, listener
        return [s.result if s.result is not None else self._result(s) for s in states]

    def _draw_order(self) -> tuple[str, str]:
        return tuple(ROLES) if self.rng.random() < 0.5 else tuple(reversed(ROLES))  # type: ignore[return-value]

    def _run_pair(self, state: _BenchmarkState, pair: int, order: tuple[str, str] | None = None) -> None:
        order = order or self._draw_order()
        if self.pairing(state) == "simultaneous":
            self._run_pair_simultaneous(state, pair, order)
            return
        self.listener.pair_started(state.key, pair, order)
        state.order.append("".join(role[0] for role in order))
        while True:
            done: list[str] = []
            with self.pair_scope():
                for role in order:
                    if not self._run_one_fork(state, role, pair):
                        break
                    done.append(role)
            lost = [role for role in order if state.forks[role] and state.forks[role][-1].index == pair
                    and state.forks[role][-1].status is ForkStatus.LOST]
            if not lost:
                break
            self._set_aside(state, pair)
            if state.lost > MAX_LOST_FORKS:
                state.error, state.message = True, f"pair {pair}: {state.lost} forks lost (their workers died)"
                self._finish(state)
                return
        if len(done) < len(order):
            self._finish(state)
            return
        if self.design.is_look(pair):
            self._look(state, pair)

    def pairing(self, state: _BenchmarkState) -> str:
        """How this benchmark's pairs run (:func:`resolve_pairing`)."""
        return resolve_pairing(self.settings.pairing, state.matched.base.suite.context.kind,
                               state.matched.base.benchmark.metric, self.side_by_side_possible)

    def _set_aside(self, state: _BenchmarkState, pair: int) -> None:
        """A pair broken by a lost worker: its forks move to indices past ``max_pairs`` as LOST, out of the
        analysis, and the pair runs again (a pair's forks must share a machine to cancel its level)."""
        for role in ROLES:
            forks = state.forks[role]
            if forks and forks[-1].index == pair:
                fork = forks.pop()
                state.lost += 1
                note = fork.message if fork.status is ForkStatus.LOST else \
                    "its pair's other fork was lost (its worker died); the pair ran again"
                kept = replace(fork, index=self.design.max_pairs + state.lost, status=ForkStatus.LOST, message=note)
                self.store.save_fork(self.run_ids[role], state.planned(role).benchmark.id, kept)

    def _run_one_fork(self, state: _BenchmarkState, role: str, pair: int) -> bool:
        """Run and store one fork; False when the benchmark cannot go on (failed, skipped, or its worker lost)."""
        planned = state.planned(role)
        run_id = self.run_ids[role]
        bench = planned.benchmark
        self.listener.fork_started(bench, pair, self.design.max_pairs)
        if role not in state.policies:
            state.policies[role] = make_policy(planned.settings)
        policy = state.policies[role]
        try:
            fork = run_fork(planned.adapter, planned, pair, policy, self.listener, self.wall)
        except BenchmarkSkipped as exc:
            state.skipped, state.message = True, f"skipped: {exc}"
            return False
        except KeyboardInterrupt as exc:
            partial = getattr(exc, "partial_fork", None)
            if partial is not None and (partial.warmup or partial.measurement):
                self.store.save_fork(run_id, bench.id, partial)
            raise
        if fork.status is ForkStatus.LOST:  # stored by _set_aside, under an index past max_pairs
            self.listener.fork_finished(bench, fork)
            state.forks[role].append(fork)
            return False
        self.store.save_fork(run_id, bench.id, fork)
        self.listener.fork_finished(bench, fork)
        state.forks[role].append(fork)
        if fork.status is not ForkStatus.COMPLETE:
            state.error, state.message = True, f"{role} fork {pair}: {fork.message}"
            return False
        return True

    def _run_pair_simultaneous(self, state: _BenchmarkState, pair: int, order: tuple[str, str]) -> None:
        """Both forks of the pair at once, one thread each; stored in role order when both have ended.

        The fork started first is drawn per pair (``order``, from the seed): the one started second finds the
        machine's cores already taken, and on a loaded machine where the scheduler places it decides how much
        it shares with the neighbour. Always starting the base first made that a bias of the version; drawn,
        it is noise that the pairs' spread shows.

        An interrupt (Ctrl-C in the main thread, or raised by a listener in a fork's thread) stops both
        forks' process groups, stores what they measured as failed "interrupted" forks and re-raises.
        """
        self.listener.pair_started(state.key, pair, ("base", "candidate"), simultaneous=True)
        state.order.append("b+c")
        listener = _SerialListener(self.listener)
        outcomes: dict[str, ForkResult | BaseException] = {}
        running: dict[str, RunningFork] = {}
        cancelled = threading.Event()
        ended = {role: threading.Event() for role in ROLES}

        def cancel() -> None:
            cancelled.set()
            for fork in list(running.values()):
                fork.stop()

        def started(role: str, fork: RunningFork) -> None:
            running[role] = fork
            if cancelled.is_set():
                fork.stop()

        def work(role: str) -> None:
            planned = state.planned(role)
            policy = state.policies.setdefault(role, make_policy(planned.settings))
            try:
                other = next(r for r in ROLES if r != role)
                outcomes[role] = run_fork(planned.adapter, planned, pair, policy, listener, self.wall,
                                          on_start=lambda fork: started(role, fork),
                                          hold=PairHold(done=ended[role], partner=ended[other]))
            except KeyboardInterrupt as exc:
                outcomes[role] = exc
                cancel()
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread below
                outcomes[role] = exc
            finally:
                ended[role].set()  # also when the fork never started: the partner must not wait for it

        threads = [threading.Thread(target=work, args=(role,), name=f"benchwarden-{role}-fork", daemon=True)
                   for role in ROLES]
        for role, thread in sorted(zip(ROLES, threads), key=lambda item: order.index(item[0])):
            listener.fork_started(state.planned(role).benchmark, pair, self.design.max_pairs)
            thread.start()
        interrupted = False
        try:
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.2)
        except KeyboardInterrupt:
            interrupted = True
            cancel()
            for thread in threads:
                thread.join(30)
        if interrupted or any(isinstance(o, KeyboardInterrupt) for o in outcomes.values()):
            self._store_interrupted_pair(state, outcomes)
            raise KeyboardInterrupt
        for role in ROLES:
            outcome = outcomes[role]
            if isinstance(outcome, BenchmarkSkipped):
                state.skipped, state.message = True, f"skipped: {outcome}"
                continue
            if isinstance(outcome, BaseException):
                raise outcome
            self.store.save_fork(self.run_ids[role], state.planned(role).benchmark.id, outcome)
            self.listener.fork_finished(state.planned(role).benchmark, outcome)
            state.forks[role].append(outcome)
            if outcome.status is not ForkStatus.COMPLETE and not state.error:
                state.error, state.message = True, f"{role} fork {pair}: {outcome.message}"
        if state.skipped or state.error:
            self._finish(state)
            return
        if self.design.is_look(pair):
            self._look(state, pair)

    def _store_interrupted_pair(self, state: _BenchmarkState, outcomes: dict[str, ForkResult | BaseException]) -> None:
        for role in ROLES:
            outcome = outcomes.get(role)
            partial = outcome if isinstance(outcome, ForkResult) else getattr(outcome, "partial_fork", None)
            if isinstance(partial, ForkResult) and (partial.warmup or partial.measurement):
                self.store.save_fork(self.run_ids[role], state.planned(role).benchmark.id,
                                     replace(partial, status=ForkStatus.FAILED, message="interrupted"))

    def _look(self, state: _BenchmarkState, pair: int) -> None:
        base = complete_matrix(state.forks["base"])
        candidate = complete_matrix(state.forks["candidate"])
        judgement = judge_look(state.key, base, candidate, self.design.look_confidences(pair), self.settings,
                               metric=state.matched.base.benchmark.metric)
        look = as_look(pair, judgement)
        decision = stop_decision(look, self.design)
        state.looks.append(look)
        state.decisions.append(decision)
        self.listener.look_done(state.key, look, decision)
        if decision.stop:
            self._finish(state)

    def _finish(self, state: _BenchmarkState) -> None:
        state.done = True
        status = BenchmarkStatus.SKIPPED if state.skipped else \
            BenchmarkStatus.FAILED if state.error else BenchmarkStatus.OK
        for role in ROLES:
            self.store.finish_benchmark(self.run_ids[role], state.planned(role).benchmark.id, status,
                                        state.message, state.decisions)
        state.result = self._result(state)
        self.listener.benchmark_compared(state.result)

    def _result(self, state: _BenchmarkState) -> BenchmarkComparison:
        result = compare_forks(state.matched.base.benchmark, state.forks["base"], state.forks["candidate"],
                               self.design, self.settings, looks=state.looks, order=state.order,
                               message=state.message, error=state.error, skipped=state.skipped)
        if "b+c" in state.order and state.matched.base.suite.context.kind in BIASED_SIDE_BY_SIDE:
            result = replace(result, warnings=(*result.warnings, SIDE_BY_SIDE_WARNING))
        return result
