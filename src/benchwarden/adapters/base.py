"""The adapter protocol: the only thing the runner knows about a harness.

An adapter drives one kind of harness (JMH, go test, asv-format Python,
plain commands).  It can

1. ``prepare`` a suite: check the toolchain, run the build, report versions;
2. ``list_benchmarks``: every benchmark x parameter combination;
3. ``start_fork``: launch one fresh process for one benchmark, which streams
   :class:`~benchwarden.model.IterationResult` objects as iterations finish
   and can be stopped at any iteration boundary.

Warmup versus measurement is *not* the harness's business: the fork just
runs up to ``plan.max_iterations`` iterations of ``plan.iteration_time_s``
each, and the runner labels them and stops the fork when its stop policy says
so.  A new harness is a new module registered in ``adapters/__init__.py``;
it never touches the runner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Hashable, Iterator, Mapping, Protocol, runtime_checkable

from benchwarden.model import Benchmark, IterationResult


@dataclass(frozen=True)
class SuiteContext:
    """A suite as the adapter sees it (resolved from ``benchwarden.toml``).

    ``root``: absolute working directory of the suite (build runs there).
    ``build``: argv of the build command, or None (never run through a shell).
    ``artifact``: path of the built artifact relative to ``root`` (JMH jar), or None.
    ``filter``: regular expression on benchmark keys, applied by the runner
    (adapters may use it to narrow the listing but need not).
    ``options``: adapter-specific keys from the suite's config table
    (e.g. ``command`` for the command adapter, ``benchmarks`` dir for asv).
    ``params``: parameter overrides, name -> values (the suite's ``params`` table, then ``-p``); each
    adapter applies them while listing (:mod:`benchwarden.adapters.params`).
    """

    name: str
    kind: str
    root: Path
    build: tuple[str, ...] | None = None
    artifact: str | None = None
    filter: str | None = None
    jvm_args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, object] = field(default_factory=dict)
    params: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class PreparedSuite:
    """What ``prepare`` found: toolchain versions for run metadata, e.g. ``{"java": "17.0.15", "jmh": "1.37"}``."""

    toolchain: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ForkPlan:
    """How one fork should run.

    ``max_iterations``: the fork may run at most this many iterations in total
    (warmup upper bound + measurement iterations); the runner usually stops it
    earlier.  ``iteration_timeout_s``: if no iteration result arrives for this
    long, the fork is considered hung.  ``timeout_s``: bound on the whole fork.
    ``metric``: the primary metric to measure (``"time"``, ``"cpu"``, ``"instructions"``;
    docs/metrics.md); the adapter reports it as ``value_ns``.
    ``process_args``: extra arguments of the measured process, after the adapter's own, for harnesses whose
    process is not a JVM (Go: test-binary flags such as ``-test.cpuprofile FILE``, used by ``compare --explain``);
    JVM harnesses take ``jvm_args``, and the others ignore it.
    """

    fork_index: int
    iteration_time_s: float
    max_iterations: int
    timeout_s: float
    iteration_timeout_s: float
    jvm_args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    metric: str = "time"
    process_args: tuple[str, ...] = ()


def benchmark_version_key(ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> Hashable:
    """What the forks of one benchmark in one version share, for what an adapter learns once and reuses in the
    later forks (the calibrated operations per iteration, :mod:`benchwarden.adapters.calibration`; a Go test's
    network screening, :mod:`benchwarden.adapters.screening`): the suite's directory and environment, the
    benchmark and its spec (its binary, for one), the metric, the iteration time, the plan's environment and extra
    process arguments — not the fork number or the iteration bound."""
    return (str(ctx.root), tuple(sorted(ctx.env.items())), benchmark.id.key,
            tuple(sorted((k, str(v)) for k, v in benchmark.spec.items())), plan.metric, plan.iteration_time_s,
            tuple(sorted(plan.env.items())), tuple(plan.process_args))


def fork_jvm_arguments(suite_args: tuple[str, ...], plan_args: tuple[str, ...]) -> list[str]:
    """A fork JVM's arguments: the suite's, then the plan's.  The runner's plans repeat the suite's arguments at
    their start (and add their own after them); those are not passed twice: a ``-javaagent`` given twice loads
    the agent twice, which slowed a method twice over (a JUnit fork slowed by v = 3 ran 11.8× slower)."""
    if plan_args[: len(suite_args)] == suite_args:
        plan_args = plan_args[len(suite_args):]
    return [*suite_args, *plan_args]


@runtime_checkable
class RunningFork(Protocol):
    """A live fork. Iterate to receive iteration results as they happen.

    Iteration raises :class:`~benchwarden.errors.ForkFailed` when the process
    crashes, hangs (``plan.iteration_timeout_s``/``timeout_s``) or prints
    output that cannot be parsed; results yielded before that stay valid.
    Iteration ends normally when the process exits successfully.
    ``stop()`` terminates the fork's whole process group (no orphans) and is
    idempotent; it is safe to call from another thread.
    """

    def __iter__(self) -> Iterator[IterationResult]: ...

    def stop(self) -> None: ...

    def output_tail(self) -> str: ...


class Adapter(Protocol):
    """A harness behind benchwarden: prepare (build), list, start forks.

    An adapter may also define ``prepare_metric(ctx, metric) -> None``: what measuring in ``metric`` needs
    beyond the suite's build (JMH's CPU-time profiler compiled, Valgrind present), checked once before any
    fork, so that a missing tool fails the suite once with its reason instead of every fork
    (:func:`prepare_metric`).
    """

    kind: str

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        """Check the toolchain and build the suite. Raises ToolchainMissing, BuildFailed, ArtifactMissing."""
        ...

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        """Every benchmark x parameter combination of the suite. Raises ListingFailed."""
        ...

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> RunningFork:
        """Start one fresh process running ``benchmark``; results stream from the returned fork."""
        ...


def prepare_metric(adapter: Adapter, ctx: SuiteContext, metric: str) -> None:
    """Run the adapter's optional ``prepare_metric`` hook for ``metric`` (nothing when it has none).

    Raises what the hook raises (ToolchainMissing, BuildFailed): the caller records the suite as failed.
    """
    hook = getattr(adapter, "prepare_metric", None)
    if hook is not None:
        hook(ctx, metric)
