"""Go test binaries measured two-point in CPU time or instructions (``metric = "cpu"`` / ``"instructions"``).

An execution runs exactly one benchmark with ``-test.benchtime Nx -test.count 1 -test.benchmem``.
Go then calls the benchmark function with ``b.N = 1`` (``run1``) and, when ``N > 1``, once more with
``b.N = N``: the execution runs ``1 + N`` operations.  The short execution uses ``2x`` (3 operations), not
``1x``: with ``1x`` Go skips the second call, and the first ``b.N > 1`` call costs about two million
instructions of one-off set-up in the testing package (measured on the example: 9.66 M instructions
for ``1x``, 12.27 M for ``2x``, 12.50 M for ``3x``), which only cancels when both executions make it.

Both metrics run with ``GOMAXPROCS=1`` (:func:`benchwarden.metrics.valgrind.go_environment`; for
instructions also without collector cycles, see there): with more than one P, Go's idle-priority GC
workers burn whatever CPU the machine leaves idle — so a process's CPU time *rises* when the machine
is quiet.  On the loaded development VM the CPU time per operation of the Go example varied by
±15 % with the default setting and by about ±1 % with one P.  A benchmark using ``b.RunParallel`` or its own goroutines is thus
measured serialised: CPU time counts the work, not its parallelism (docs/metrics.md).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping, Sequence

from benchwarden.adapters.gotest_output import (
    Failed,
    GoOutputParser,
    GoResult,
    ResultLineError,
    Unfinished,
    time_per_op_ns,
)
from benchwarden.adapters.twopoint import Report
from benchwarden.errors import ForkFailed
from benchwarden.metrics import valgrind

#: operations of the short execution: ``-test.benchtime 2x`` (see the module docstring)
SHORT_OPS = 3


class GoHarness:
    """One Go benchmark as a two-point :class:`~benchwarden.adapters.twopoint.Harness`."""

    def __init__(self, binary: str, package_dir: str, full_name: str, pattern: str, env: Mapping[str, str],
                 label: str, timeout_s: float):
        self.binary = binary
        self.cwd = Path(package_dir)
        self.full_name = full_name
        self.pattern = pattern
        self.label = label
        self._env = dict(env)
        self._timeout_s = timeout_s

    def argv(self, ops: int | None, calibration_s: float | None = None) -> list[str]:
        if ops is None:
            ns = max(1, int(round((calibration_s or 0.1) * 1e9)))
            benchtime = f"{ns // 1_000_000}ms" if ns % 1_000_000 == 0 else f"{ns}ns"
        else:
            if ops < SHORT_OPS:
                raise ValueError(f"a counted Go execution runs at least {SHORT_OPS} operations, not {ops}")
            benchtime = f"{ops - 1}x"  # Go runs b.N = 1 first, then b.N = ops - 1
        return [self.binary, "-test.run", "^$", "-test.bench", self.pattern, "-test.count", "1",
                "-test.benchtime", benchtime, "-test.benchmem",
                "-test.timeout", f"{max(1, math.ceil(self._timeout_s * 2))}s"]

    def env(self, metric: str) -> dict[str, str]:
        return valgrind.go_environment(self._env, metric)

    def read(self, lines: Sequence[str]) -> Report:
        parser = GoOutputParser(expected=self.full_name)
        result: GoResult | None = None
        for line in lines:
            try:
                events = parser.feed(line)
            except ResultLineError as exc:
                raise ForkFailed(self.label, "garbage", f"cannot read result line {line.strip()!r}: {exc}") from None
            for event in events:
                if isinstance(event, GoResult):
                    result = event
                elif isinstance(event, (Failed, Unfinished)):
                    raise ForkFailed(self.label, "crashed", f"go test reported '--- FAIL: {event.name}'"
                                     if isinstance(event, Failed) else "a repetition reported no result",
                                     "\n".join(lines[-40:]))
        pending = parser.finish()
        if pending is not None:
            raise ForkFailed(self.label, "crashed", "a repetition started but reported no result", "\n".join(lines[-40:]))
        if result is None:
            raise ForkFailed(self.label, "no-results", f"the test binary printed no result for {self.full_name}",
                             "\n".join(lines[-40:]))
        ns_per_op = time_per_op_ns(result.metrics)
        secondary = {unit: value for unit, value in result.metrics.items()
                     if unit not in ("ns/op", "MB/s") and not (unit.endswith("/op") and unit[:-3] in ("us", "ms", "s"))}
        return Report(ns_per_op=ns_per_op, secondary=secondary)
