"""Go benchmarks in CPU time from one process per fork (``metric = "cpu"`` on Linux; docs/metrics.md).

A fork runs, for one benchmark (``GOMAXPROCS=1``, as :mod:`~benchwarden.adapters.gotest_twopoint` explains):

1. a **calibration** execution, only in the benchmark's first fork per version (the later ones reuse its N:
   :mod:`benchwarden.adapters.calibration`), as for two-point forks;
2. the **reference**: two short executions of :data:`~benchwarden.adapters.gotest_twopoint.SHORT_OPS`
   operations, one repeated once and one :data:`REFERENCE_REPEATS` + 1 times (``-test.count``), their
   CPU time from ``wait4``.  Their difference divided by :data:`REFERENCE_REPEATS` is what one repetition
   costs besides its operations: Go calls the benchmark function twice per repetition (``b.N = 1``, then
   ``N``), so its set-up before ``b.ResetTimer`` runs twice, plus the testing package's own work — on the
   example 1.1–1.9 ms, 2–4 % of a 50-ms iteration, which a change to the set-up alone would otherwise move;
3. the **measurement**: one execution of ``N`` operations per repetition, ``-test.count`` = the fork's
   iterations.  As each result line arrives, the reader thread reads the process's CPU clock
   (:class:`~benchwarden.adapters.usage.ThreadGroupClock`); a repetition's cost is the clock's advance
   since the previous result line (the first: since the header Go prints after start-up and before the
   first benchmark), and the iteration's value ``(cost − reference) / (N − SHORT_OPS)`` per operation
   (:func:`benchwarden.metrics.twopoint.per_op`).

Against the two-point fork (a fresh process per iteration) this saves a process start-up, the package's
initialisation and the benchmark's first call per iteration: the fork is one process, as in wall time.
The clock is read when the line *arrives*, not when it was written, so a repetition's cost is off by how
late the reader woke (microseconds when a CPU is free, up to a scheduler slice under load); the error
moves cost from one repetition to the next and cancels in their sum, so a fork's mean is off by at most
two such delays over all its iterations.  Lines that arrive in one block (the reader woke after two
results) share the block's reading: the block's cost is split equally between its repetitions.

Each repetition runs in the same process, like a wall-time fork's: the runner applies the suite's warmup
bounds (:func:`benchwarden.metrics.primary.needs_warmup`).  Where the clock cannot be read (no ``/proc``,
or no scheduler statistics), the adapter falls back to two-point forks.
"""

from __future__ import annotations

import time
from typing import Callable, Iterator

from benchwarden.adapters.base import ForkPlan
from benchwarden.adapters.gotest_output import Failed, GoOutputParser, GoResult, ResultLineError, Unfinished
from benchwarden.adapters.gotest_twopoint import SHORT_OPS, GoHarness
from benchwarden.adapters.process import LineTimeout, ManagedProcess
from benchwarden.adapters.twopoint import TwoPointFork
from benchwarden.adapters.usage import ThreadGroupClock, reap_with_usage
from benchwarden.errors import ForkFailed
from benchwarden.metrics import twopoint
from benchwarden.metrics.catalog import label
from benchwarden.model import IterationResult

#: extra repetitions of the long reference execution: its difference to the single one is divided by this,
#: so the start-up jitter of the two processes (~1–2 ms of CPU each under load) enters a fork's values
#: divided by eight; the eight short repetitions cost a few ms
REFERENCE_REPEATS = 8

#: lines Go's testing package prints after start-up and before the first benchmark runs
HEADER_PREFIXES = ("goos:", "goarch:", "pkg:", "cpu:")


class GoCpuFork(TwoPointFork):
    """A running one-process CPU-time fork (module docstring); iterate for one :class:`IterationResult` per
    repetition.  ``value_ns`` is CPU ns per operation; ``secondary`` holds the repetition's own figures
    (``B/op``, ``allocs/op``) and its wall-clock time per operation as ``wall [ns/op]``.
    ``reference_ns`` is the reference's cost of one short repetition, once measured."""

    harness: GoHarness
    #: makes the clock read as each block of output arrives (one per process)
    clock: Callable[[], Callable[[int], int]] = ThreadGroupClock

    def __init__(self, harness: GoHarness, plan: ForkPlan, suite: str, **kwargs):
        if plan.metric != "cpu":
            raise ValueError(f"one-process Go forks measure cpu, not {plan.metric!r}")
        super().__init__(harness, plan, suite, short_ops=SHORT_OPS, **kwargs)
        self.reference_ns: float | None = None

    def _iterations(self) -> Iterator[IterationResult]:
        plan, harness, runner = self.plan, self.harness, self._runner
        env = harness.env(plan.metric)
        n = self.long_ops if self.long_ops is not None else self._calibrate(env)
        if n is None:
            return
        self.long_ops = n = max(n, self.short_ops + 1)
        once = runner.run(harness.argv(self.short_ops, count=1), env, self._deadline(), counted=True)
        if once is None:
            return
        repeated = runner.run(harness.argv(self.short_ops, count=1 + REFERENCE_REPEATS), env, self._deadline(),
                              counted=True)
        if repeated is None:
            return
        self.reference_ns = (repeated.cost - once.cost) / REFERENCE_REPEATS
        if self.calibrated_here and self._calibrated is not None:
            self._calibrated(n)
        count = max(1, plan.max_iterations)
        process = runner.start(harness.argv(n, count=count), env, stamp=self.clock())
        if process is None:
            return
        try:
            yield from self._repetitions(process, n, self.reference_ns, count)
        finally:
            process.terminate()

    def _repetitions(self, process: ManagedProcess, n: int, reference_ns: float,
                     count: int) -> Iterator[IterationResult]:
        parser = GoOutputParser(expected=self.harness.full_name)
        anchor: int | None = None  # the clock at the previous result line (or at the header)
        waiting: list[GoResult] = []  # results of the block being read, valued when the block is done
        failure: str | None = None
        results = 0
        while True:
            try:
                line = process.readline(self._deadline())
            except LineTimeout:
                if self._runner.stopped:
                    return
                raise self._fail(process, "timeout", "no result line in time") from None
            if line is None or self._runner.stopped:
                break
            stamp = process.last_stamp
            assert isinstance(stamp, int)
            try:
                events = parser.feed(line)
            except ResultLineError as exc:
                raise self._fail(process, "garbage", f"cannot read result line {line.strip()!r}: {exc}") from None
            for event in events:
                if isinstance(event, GoResult):
                    if event.name != self.harness.full_name:
                        raise self._fail(process, "garbage", f"unexpected result for {event.name!r} "
                                         f"(expected {self.harness.full_name!r})")
                    waiting.append(event)
                elif isinstance(event, (Failed, Unfinished)) and failure is None:
                    failure = ("go test reported '--- FAIL: " + event.name + "'" if isinstance(event, Failed)
                               else "a repetition started but reported no result")
            if anchor is None and not waiting and line.startswith(HEADER_PREFIXES):
                anchor = stamp if process.block_done() else None
                continue
            # the last repetition is valued at exit: once the process has exited, the threads it ran on are gone
            # from /proc, and a reader that woke late would see their time lost
            if not waiting or not process.block_done() or results + len(waiting) >= count:
                continue
            anchor, valued = self._value(anchor, stamp, waiting)
            for event, cost in valued:
                results += 1
                yield self._iteration(event, cost, n, reference_ns, process)
            waiting = []
        if self._runner.stopped:
            return
        if waiting:  # the last repetition(s): up to the process's exit, whose CPU time wait4 gives exactly
            reaped = reap_with_usage(process, max(0.0, self._deadline() - time.monotonic()))
            if reaped is None:
                raise self._fail(process, "timeout", "the test binary did not exit after its last result")
            anchor, valued = self._value(anchor, reaped[1].cpu_ns, waiting)
            for event, cost in valued:
                results += 1
                yield self._iteration(event, cost, n, reference_ns, process)
        self._finish(process, parser, failure, results)

    @staticmethod
    def _value(anchor: int | None, stamp: int, block: list[GoResult]) -> tuple[int, list[tuple[GoResult, float]]]:
        """The new anchor and each result of ``block`` with its cost: the clock's advance since ``anchor``, split
        equally between the results read together; without an anchor (no header before the first result) the
        first result's cost includes the start-up and is not kept."""
        if anchor is None:
            block = block[1:]
        if not block:
            return stamp, []
        assert anchor is not None
        cost = (stamp - anchor) / len(block)
        return stamp, [(event, cost) for event in block]

    def _iteration(self, event: GoResult, cost: float, n: int, reference_ns: float,
                   process: ManagedProcess) -> IterationResult:
        try:
            value = twopoint.per_op(reference_ns, cost, self.short_ops, n)
        except ValueError as exc:
            raise self._fail(process, "garbage", str(exc)) from None
        secondary = {unit: v for unit, v in event.metrics.items()
                     if unit not in ("ns/op", "MB/s") and not (unit.endswith("/op") and unit[:-3] in ("us", "ms", "s"))}
        wall = event.metrics.get("ns/op")
        if wall:
            secondary[label("wall", "ns/op")] = wall
        return IterationResult(value_ns=value, raw_value=value, ops=float(n - self.short_ops), secondary=secondary)

    def _finish(self, process: ManagedProcess, parser: GoOutputParser, failure: str | None, results: int) -> None:
        returncode = process.wait(timeout=5.0)
        pending = parser.finish()
        if failure is None and pending is not None:
            failure = "a repetition started but reported no result"
        if failure is None and returncode not in (0, None):
            failure = f"the test binary exited with status {returncode}"
        if failure is not None:
            process.drained()
            raise self._fail(process, "crashed", failure)
        if results == 0:
            raise self._fail(process, "no-results", f"the test binary printed no result for {self.harness.full_name}")

    def _fail(self, process: ManagedProcess, reason: str, detail: str) -> ForkFailed:
        process.terminate()
        return ForkFailed(self.harness.label, reason, detail, process.tail())
