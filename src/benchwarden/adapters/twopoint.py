"""Forks measured two-point: CPU time or instructions per operation from whole executions (docs/metrics.md).

A :class:`TwoPointFork` runs, for one benchmark:

1. a **calibration** execution, native and untimed by us, whose own report gives the time per
   operation — only to choose how many operations the long execution runs; only the first fork of a
   benchmark (per version) runs it, the later ones reuse its answer (:mod:`benchwarden.adapters.calibration`);
2. a **short** execution of ``short_ops`` operations, once per fork;
3. per iteration, a **long** execution of ``long_ops`` operations; the iteration's value is
   ``(cost(long) − cost(short)) / (long_ops − short_ops)`` (:func:`benchwarden.metrics.twopoint.per_op`).
   For instructions, the first long execution's count per operation re-sizes ``long_ops`` when the
   time-based guess gave fewer than 10⁸ instructions between the points; that execution is then not kept
   (:func:`benchwarden.metrics.twopoint.ops_for_count`).

The cost of an execution is its CPU time (user + system, from ``wait4`` of the process and what it
waited for) or its instruction count (Valgrind's cachegrind, :mod:`benchwarden.metrics.valgrind`).
What differs per harness — the command line for ``n`` operations, how to read its report — is a
:class:`Harness`; the Go and Python adapters provide one each.

Each iteration is a fresh process, so there is no warmup to decide (the runner skips it for two-point
metrics) and the iterations of a fork are nearly independent; the fork still matters as the unit
that shares the short execution.
"""

from __future__ import annotations

import shlex
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Mapping, Protocol, Sequence

from benchwarden.adapters.base import ForkPlan
from benchwarden.adapters.process import LineTimeout, ManagedProcess
from benchwarden.adapters.usage import reap_with_usage
from benchwarden.errors import ForkFailed
from benchwarden.metrics import twopoint, valgrind
from benchwarden.metrics.catalog import label
from benchwarden.model import IterationResult


@dataclass(frozen=True)
class Report:
    """What the harness printed about one execution: its own time per operation (native runs only) and
    secondary figures (e.g. Go's ``B/op``)."""

    ns_per_op: float | None = None
    secondary: Mapping[str, float] = field(default_factory=dict)


class Harness(Protocol):
    """How to run a benchmark for a given number of operations and read what it printed."""

    label: str
    cwd: Path

    def argv(self, ops: int | None, calibration_s: float | None = None) -> list[str]:
        """The command line running exactly ``ops`` operations, or (``ops`` None) calibrating for about
        ``calibration_s`` seconds."""
        ...

    def env(self, metric: str) -> dict[str, str]:
        """The environment of the executions measured in ``metric``."""
        ...

    def read(self, lines: Sequence[str]) -> Report:
        """The report of one finished execution from its stdout lines; raises ForkFailed when it says the
        benchmark failed or was skipped (reason ``"skipped"``)."""
        ...


@dataclass(frozen=True)
class Execution:
    cost: float  # CPU ns or instructions of the whole execution
    report: Report
    wall_s: float


class CountedRunner:
    """Runs executions to completion and measures their cost; one at a time, stoppable from another thread."""

    def __init__(self, harness: Harness, metric: str, suite: str):
        self.harness = harness
        self.metric = metric
        self._lock = threading.Lock()
        self._current: ManagedProcess | None = None
        self._last: ManagedProcess | None = None
        self.stopped = False
        self._valgrind = valgrind.require(suite) if metric == "instructions" else None
        self._tmp = tempfile.TemporaryDirectory(prefix="benchwarden-cg-") if metric == "instructions" else None

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            process = self._current
        if process is not None:
            process.terminate()

    def tail(self) -> str:
        process = self._current or self._last
        return process.tail() if process else ""

    def run(self, argv: list[str], env: Mapping[str, str], deadline: float, counted: bool) -> Execution | None:
        """One execution; None when stopped.  ``counted``: measure its cost in the runner's metric (else native,
        for calibration).  Raises ForkFailed on a timeout or a failed execution."""
        out_dir = None
        if counted and self.metric == "instructions":
            assert self._tmp is not None and self._valgrind is not None
            out_dir = Path(tempfile.mkdtemp(dir=self._tmp.name))
            argv = valgrind.cachegrind_argv(self._valgrind, out_dir / "cachegrind.out.%p") + argv
        started = time.monotonic()
        with self._lock:
            if self.stopped:
                return None
            try:
                process = ManagedProcess(argv, cwd=self.harness.cwd, env=env, merge_stderr=False, tail_lines=200)
            except OSError as exc:
                raise ForkFailed(self.harness.label, "crashed", f"cannot start `{shlex.join(argv)}`: {exc}") from None
            self._current = self._last = process
        try:
            lines = self._drain(process, deadline)
            if lines is None:
                return None
            reaped = reap_with_usage(process, max(0.0, deadline - time.monotonic()))
            if reaped is None:
                raise self._timeout(argv, process)
            code, usage = reaped
        finally:
            with self._lock:
                self._current = None
            process.terminate()
        if self.stopped:
            return None
        report = self.harness.read(lines)  # may raise ForkFailed (a failed or skipped benchmark)
        if code != 0:
            raise ForkFailed(self.harness.label, "crashed", f"`{shlex.join(argv)}` exited with status {code}",
                             process.tail())
        cost = float(usage.cpu_ns)
        if out_dir is not None:
            try:
                cost = float(valgrind.total_instructions(sorted(out_dir.glob("cachegrind.out.*"))))
            except (OSError, ValueError) as exc:
                raise ForkFailed(self.harness.label, "garbage", f"no instruction count: {exc}", process.tail()) from None
            finally:
                shutil.rmtree(out_dir, ignore_errors=True)
        return Execution(cost, report, time.monotonic() - started)

    def _drain(self, process: ManagedProcess, deadline: float) -> list[str] | None:
        lines: list[str] = []
        while True:
            try:
                line = process.readline(deadline)
            except LineTimeout:
                if self.stopped:
                    return None
                raise self._timeout(process.argv, process) from None
            if line is None:
                return None if self.stopped else lines
            lines.append(line)

    def _timeout(self, argv: Sequence[str], process: ManagedProcess) -> ForkFailed:
        process.terminate()
        return ForkFailed(self.harness.label, "timeout", f"`{shlex.join(argv)}` did not finish in time",
                          process.tail())


class TwoPointFork:
    """A running two-point fork (module docstring); iterate for one :class:`IterationResult` per long execution.

    ``value_ns`` is the metric per operation (CPU ns, or instructions); ``secondary`` holds the long
    execution's own figures (Go's ``B/op``, ``allocs/op``) and, for CPU time, its wall-clock time per
    operation as ``wall [ns/op]``.  ``ops`` is the number of operations between the two points.
    """

    def __init__(self, harness: Harness, plan: ForkPlan, suite: str, *, short_ops: int,
                 long_ops: int | None = None, calibrated: Callable[[int], None] | None = None):
        if plan.metric not in ("cpu", "instructions"):
            raise ValueError(f"two-point forks measure cpu or instructions, not {plan.metric!r}")
        self.harness = harness
        self.plan = plan
        self.short_ops = short_ops
        #: operations of the long execution: given (an earlier fork's calibration, adapters/calibration.py:
        #: this fork runs no calibration) or found by this fork and then passed to ``calibrated``
        self.long_ops: int | None = long_ops
        self.calibrated_here = long_ops is None
        self._calibrated = calibrated
        self._runner = CountedRunner(harness, plan.metric, suite)
        self._started = time.monotonic()

    def stop(self) -> None:
        self._runner.stop()

    def output_tail(self) -> str:
        return self._runner.tail()

    def __iter__(self) -> Iterator[IterationResult]:
        try:
            yield from self._iterations()
        finally:
            self._runner.close()

    def _deadline(self) -> float:
        return min(time.monotonic() + self.plan.iteration_timeout_s, self._started + self.plan.timeout_s)

    def _iterations(self) -> Iterator[IterationResult]:
        plan, harness = self.plan, self.harness
        env = harness.env(plan.metric)
        if self.long_ops is None:
            n = self._calibrate(env)
            if n is None:
                return
        else:
            n = self.long_ops
        self.long_ops = n = max(n, self.short_ops + 1)
        short = self._runner.run(harness.argv(self.short_ops), env, self._deadline(), counted=True)
        if short is None:
            return
        # a given N was sized by the fork that calibrated it
        iterations, resized = 0, plan.metric != "instructions" or not self.calibrated_here
        while iterations < plan.max_iterations:
            long = self._runner.run(harness.argv(n), env, self._deadline(), counted=True)
            if long is None:
                return
            try:
                value = twopoint.per_op(short.cost, long.cost, self.short_ops, n)
            except ValueError as exc:
                raise ForkFailed(harness.label, "garbage", str(exc), self._runner.tail()) from None
            if not resized:  # the first count sizes the rest; an undersized first one is not kept
                resized = True
                larger = twopoint.ops_for_count(value, valgrind.MIN_INSTRUCTIONS, short_ops=self.short_ops,
                                                long_ops=n)
                if larger is not None:
                    self.long_ops = n = larger
                    continue
            iterations += 1
            if iterations == 1 and self.calibrated_here and self._calibrated is not None:
                self._calibrated(n)
            secondary = dict(long.report.secondary)
            if plan.metric == "cpu" and long.report.ns_per_op:
                secondary[label("wall", "ns/op")] = long.report.ns_per_op
            yield IterationResult(value_ns=value, raw_value=value, ops=float(n - self.short_ops), secondary=secondary)

    def _calibrate(self, env: Mapping[str, str]) -> int | None:
        """The long execution's operations from a native calibration execution; None when stopped."""
        plan, harness = self.plan, self.harness
        calibration = self._runner.run(harness.argv(None, min(plan.iteration_time_s, 1.0) / 2), env,
                                       self._deadline(), counted=False)
        if calibration is None:
            return None
        if not calibration.report.ns_per_op:
            raise ForkFailed(harness.label, "garbage", "the calibration run reported no time per operation",
                             self._runner.tail())
        # the harness reports wall time; on a loaded machine the process got only part of a CPU
        share = min(1.0, calibration.cost / max(1.0, calibration.wall_s * 1e9))
        cpu_per_op = calibration.report.ns_per_op * max(share, 0.05)
        if plan.metric == "instructions":
            return twopoint.long_ops(cpu_per_op, plan.iteration_time_s, slowdown=valgrind.SLOWDOWN,
                                     min_instructions=valgrind.MIN_INSTRUCTIONS)
        return twopoint.long_ops(cpu_per_op, plan.iteration_time_s)
