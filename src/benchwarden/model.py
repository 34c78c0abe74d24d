"""Domain model: frozen value types shared by every part of benchwarden.

This module imports nothing of ours (see docs/architecture.md, "Dependencies
point one way").  Every measurement is stored twice: as the harness reported
it (``raw_value`` in the benchmark's own display unit, e.g. ``ops/s``) and
normalised to *time per operation in nanoseconds* (``value_ns``), where lower
is always better.  Statistics run on ``value_ns``; reports convert back for
display.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Mapping


class Direction(str, enum.Enum):
    """Which way is better for a *display* metric (normalised values are always lower-is-better)."""

    LOWER_IS_BETTER = "lower"
    HIGHER_IS_BETTER = "higher"


class Phase(str, enum.Enum):
    WARMUP = "warmup"
    MEASUREMENT = "measurement"


class ForkStatus(str, enum.Enum):
    COMPLETE = "complete"  # ran its warmup and all its measurement iterations
    FAILED = "failed"  # crashed, hung, printed garbage; iterations taken so far are kept
    # its machine went away mid-fork (a cluster worker died, docs/distributed.md): iterations so far are kept,
    # and the fork is run again elsewhere under the next index instead of failing the benchmark
    LOST = "lost"


class BenchmarkStatus(str, enum.Enum):
    OK = "ok"
    FAILED = "failed"  # at least one fork failed; see message
    SKIPPED = "skipped"  # e.g. toolchain missing; nothing could run


class RunStatus(str, enum.Enum):
    RUNNING = "running"  # still going, or killed without a chance to say so (kill -9)
    INTERRUPTED = "interrupted"  # Ctrl-C / SIGTERM: completed forks are stored, resumable
    COMPLETE = "complete"
    FAILED = "failed"  # finished, but some benchmark failed


@dataclass(frozen=True, order=True)
class BenchmarkId:
    """Identity of one benchmark x parameter combination inside a suite.

    ``name`` is the harness's own name (JMH ``pkg.Class.method``, Go
    ``BenchmarkX``, asv ``module.Class.time_x``, command name); ``params`` are
    the parameter values in declaration order (JMH ``@Param``, Go
    sub-benchmark path elements, asv ``params``).
    """

    suite: str
    name: str
    params: tuple[tuple[str, str], ...] = ()

    @property
    def key(self) -> str:
        """Stable textual key within a suite, e.g. ``Bench.parse[size=100,mode=fast]``."""
        if not self.params:
            return self.name
        inner = ",".join(f"{k}={v}" for k, v in self.params)
        return f"{self.name}[{inner}]"

    def __str__(self) -> str:
        return f"{self.suite}:{self.key}"


@dataclass(frozen=True)
class Benchmark:
    """A runnable benchmark as listed by an adapter.

    ``mode``/``unit``/``direction`` describe how the harness reports it (JMH
    ``thrpt`` in ``ops/s`` is higher-is-better).  ``spec`` carries whatever the
    adapter needs to start a fork of it again (e.g. the Go package directory);
    the runner never looks inside.  ``metric`` is what ``value_ns`` holds:
    ``"time"`` (wall-clock time per op), ``"cpu"`` (CPU time per op) or
    ``"instructions"`` (instructions per op, ``unit`` ``instr/op``); see
    docs/metrics.md.
    """

    id: BenchmarkId
    mode: str
    unit: str
    direction: Direction = Direction.LOWER_IS_BETTER
    spec: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    metric: str = "time"


@dataclass(frozen=True)
class IterationResult:
    """One iteration of one fork, as streamed from the harness.

    ``value_ns``: the benchmark's primary metric per operation, normalised so
    that lower is better, always > 0: time in ns (or CPU time in ns, or
    instructions, per ``Benchmark.metric``).
    ``raw_value``: the harness's own figure in the benchmark's display unit.
    ``ops``: operations executed in the iteration, when the harness says.
    ``secondary``: extra metrics by label, e.g. ``{"B/op": 16.0, "allocs/op": 1.0}``
    (labels are mapped to metric definitions by :mod:`benchwarden.metrics.catalog`).
    """

    value_ns: float
    raw_value: float
    ops: float | None = None
    secondary: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class StopDecision:
    """One checkpoint of a stop policy, kept for transparency.

    ``stop``: whether the phase (warmup of a fork, or forks of a benchmark) ends here.
    ``reason``: short machine-friendly reason: ``"static"``, ``"stable"``,
    ``"below-minimum"``, ``"not-stable"``, ``"maximum-reached"``; after a
    fork's measurement (:data:`MEASUREMENT_CHECKPOINT_REASONS`) ``"measured"``
    (kept), ``"level-changed"`` (relabelled as warmup, measured again).
    ``values``: criterion name -> stability value at this checkpoint.
    ``warning``: set when a bound was hit without stability.
    """

    stop: bool
    reason: str
    values: Mapping[str, float] = field(default_factory=dict)
    warning: str | None = None


#: reasons of the checkpoint after a fork's measurement iterations; a fork's other decisions are warmup checkpoints
MEASUREMENT_CHECKPOINT_REASONS = frozenset({"measured", "level-changed", "level-changed-at-bound"})


@dataclass(frozen=True)
class ForkResult:
    """A finished (or failed) fork: its iterations split by phase, and why it ended."""

    index: int  # 1-based fork number within the benchmark
    status: ForkStatus
    warmup: tuple[IterationResult, ...] = ()
    measurement: tuple[IterationResult, ...] = ()
    started_at: float = 0.0  # epoch seconds
    finished_at: float = 0.0
    warmup_decisions: tuple[StopDecision, ...] = ()  # one per warmup checkpoint, and one after each measurement
    message: str | None = None  # failure cause, for FAILED forks
    # where the fork ran when not on the run's own machine (a cluster worker: worker, name, host, machine_key);
    # empty for a local fork, whose machine is the run's ``RunMeta.machine``
    machine: Mapping[str, str] = field(default_factory=dict)

    @property
    def measurement_ns(self) -> tuple[float, ...]:
        return tuple(it.value_ns for it in self.measurement)

    @property
    def machine_name(self) -> str:
        """The machine the fork ran on as results name it: the cluster worker's name or address; "" for a fork
        run on the run's own machine."""
        return self.machine.get("name") or self.machine.get("worker") or ""

    @property
    def last_warmup_decision(self) -> StopDecision | None:
        """The warmup checkpoint that ended (or last continued) the warmup, or None."""
        found = [d for d in self.warmup_decisions if d.reason not in MEASUREMENT_CHECKPOINT_REASONS]
        return found[-1] if found else None

    @property
    def duration_s(self) -> float:
        return max(0.0, self.finished_at - self.started_at)


@dataclass(frozen=True)
class BenchmarkResult:
    benchmark: Benchmark
    forks: tuple[ForkResult, ...] = ()
    status: BenchmarkStatus = BenchmarkStatus.OK
    message: str | None = None
    fork_decisions: tuple[StopDecision, ...] = ()  # one per fork checkpoint

    def measurement_matrix(self) -> list[list[float]]:
        """Measurement values (ns/op) per complete fork: the input of the statistics."""
        return [list(f.measurement_ns) for f in self.forks if f.status is ForkStatus.COMPLETE and f.measurement]


@dataclass(frozen=True)
class RunMeta:
    """Where, when and how a run was taken."""

    created_at: float
    tool_version: str
    commit: str | None = None
    dirty: bool | None = None
    machine: Mapping[str, str] = field(default_factory=dict)  # cpu, cores, os, hostname
    toolchain: Mapping[str, str] = field(default_factory=dict)  # java, jmh, go, python versions
    config: Mapping[str, object] = field(default_factory=dict)  # resolved configuration snapshot
    label: str | None = None


@dataclass(frozen=True)
class RunData:
    """A whole run: metadata and every benchmark's forks. Produced by the store and by importers."""

    meta: RunMeta
    results: tuple[BenchmarkResult, ...] = ()
    status: RunStatus = RunStatus.COMPLETE
    id: int | None = None
