"""The primary metric of a benchmark: what its ``value_ns`` holds.

A suite's ``metric`` setting (docs/metrics.md) chooses it:

* ``time`` (default) — wall-clock time per operation, as every harness reports it;
* ``cpu`` — CPU time (user + system) per operation: per iteration from the process's own CPU clock
  (Python), from the JVM's threads except the JIT compilers' (JMH: benchwarden's profiler; JUnit: the test
  thread), from ``wait4`` of each execution (commands), or two-point (Go: two executions of the
  test binary with a fixed number of operations each, :mod:`.twopoint`);
* ``instructions`` — instructions per operation counted by Valgrind (:mod:`.valgrind`), two-point
  for Go test binaries and Python suites, per execution for commands.  Not for JMH: a JIT compiles
  while it measures, so the count is neither stable nor the count of the code that would run.

Whatever the primary metric, statistics, stop policies, ``show``, ``check`` and ``compare`` read
``value_ns`` (lower is better), so they all work on it unchanged; the benchmark's ``metric`` and
``unit`` say what the values are, and the wall-clock time stays beside it as the secondary metric
``wall [ns/op]`` where it was measured.
"""

from __future__ import annotations

from dataclasses import replace

from benchwarden.metrics.catalog import INSTRUCTIONS, PRIMARY
from benchwarden.model import Benchmark, Direction

#: primary metrics each suite kind can measure
SUPPORTED: dict[str, tuple[str, ...]] = {
    "jmh": ("time", "cpu"),
    "go": ("time", "cpu", "instructions"),
    "python": ("time", "cpu", "instructions"),
    "command": ("time", "cpu", "instructions"),
    "junit": ("time", "cpu"),
}

#: why a kind cannot measure a metric, for the configuration error
REFUSED: dict[tuple[str, str], str] = {
    ("jmh", "instructions"): "JMH benchmarks cannot be measured in instructions: the JIT compiles while the "
                             "benchmark runs, so the count is neither stable nor the count of the code that would "
                             "run in production, and Valgrind slows the JVM so much that it never reaches steady "
                             "state; use metric = \"time\" (and -prof gc allocations, docs/metrics.md)",
    ("gounit", "cpu"): "Go test functions cannot be measured in CPU time: Go has no per-goroutine CPU clock, and the "
                       "process's CPU time counts the runtime's and other goroutines' work; use metric = \"time\"",
    ("gounit", "instructions"): "Go test functions cannot be measured in instructions yet: use metric = \"time\"",
    ("junit", "instructions"): "JUnit tests cannot be measured in instructions, for the reasons JMH benchmarks "
                               "cannot (a JIT compiling while the test runs, a JVM Valgrind slows to a crawl); use "
                               "metric = \"time\" or \"cpu\" (the test thread's CPU time, docs/code-level.md)",
}

#: primary metrics whose forks are two-point executions per iteration (no warmup: each iteration is fresh)
TWO_POINT: dict[str, tuple[str, ...]] = {
    "go": ("cpu", "instructions"),
    "python": ("instructions",),
}


def check_metric(kind: str, metric: str) -> None:
    """ValueError unless suites of ``kind`` can measure ``metric``, saying why not."""
    if metric not in PRIMARY:
        raise ValueError(f"unknown metric {metric!r}; expected one of: {', '.join(PRIMARY)}")
    if metric not in SUPPORTED.get(kind, ("time",)):
        raise ValueError(REFUSED.get((kind, metric), f"suites of kind {kind!r} cannot be measured in {metric}"))


def is_two_point(kind: str, metric: str) -> bool:
    """Whether each iteration of this kind in this metric is a fresh two-point measurement (no warmup)."""
    return metric in TWO_POINT.get(kind, ())


def with_metric(benchmark: Benchmark, metric: str) -> Benchmark:
    """``benchmark`` as measured in ``metric``: the metric recorded, the unit changed for counts.

    Time and CPU time keep the harness's unit (``ns/op``, ``ms/op``); instructions are ``instr/op``,
    lower is better.
    """
    if metric == benchmark.metric:
        return benchmark
    if metric == INSTRUCTIONS.name:
        return replace(benchmark, metric=metric, unit=INSTRUCTIONS.unit, direction=Direction.LOWER_IS_BETTER)
    return replace(benchmark, metric=metric)
