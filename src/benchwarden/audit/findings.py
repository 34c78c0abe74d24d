"""Configuration findings: each one names the benchmark, the place, what is wrong and what it costs.

Every check is a small pure function of one benchmark's resolved
configuration and effective run shape; :func:`check_benchmark` runs them
all.  Codes are stable (used in JSON; each is explained in docs/audit.md):

* ``zero-forks`` (high): effective forks = 0, the benchmark runs inside the host JVM;
* ``single-fork`` (warning): effective forks = 1;
* ``time-unit-without-time`` (warning): ``@Warmup``/``@Measurement`` with ``timeUnit`` but no ``time``;
* ``no-warmup`` (warning): effective warmup iterations = 0 in a timed mode;
* ``huge-param-grid`` (warning): parameter combinations above the threshold (default 50);
* ``dead-result`` (warning): a value the benchmark computes with side-effect-free code and never uses
  (a discarded ``Math.log(x)``, an unused local); replaces ``void-without-blackhole`` (see :mod:`.deadcode`);
* ``commented-out-benchmark`` (info): a ``@Benchmark`` method, or its annotation, is commented out;
* ``unchanged-since-defaults`` (warning, ``--history``; made in :mod:`.history`): configuration untouched
  across the JMH 1.21 upgrade while relying on defaults that changed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Iterable

from benchwarden.audit.cost import BenchmarkCost, RunShape
from benchwarden.audit.defaults import JmhDefaults
from benchwarden.audit.javasource import CommentedBenchmark, SourceLocation
from benchwarden.audit.resolve import TIME_UNIT_S, BenchmarkConfig
from benchwarden.units import format_duration

DEFAULT_GRID_THRESHOLD = 50
FINDING_CODES = ("zero-forks", "single-fork", "time-unit-without-time", "no-warmup", "huge-param-grid",
                 "dead-result", "commented-out-benchmark", "unchanged-since-defaults")


class Severity(str, enum.Enum):
    HIGH = "high"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"high": 0, "warning": 1, "info": 2}[self.value]


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    benchmark: str | None
    location: SourceLocation
    message: str
    consequence: str


def _fmt_s(seconds: float) -> str:
    if 0 < seconds < 1:
        return f"{seconds * 1000:g} ms"
    return f"{seconds:g} s"


def check_forks(config: BenchmarkConfig, shape: RunShape, defaults: JmhDefaults) -> list[Finding]:
    where = config.forks.location if config.forks is not None else config.location
    if shape.forks == 0:
        return [Finding("zero-forks", Severity.HIGH, config.name, where,
                        "@Fork(0): the benchmark runs inside JMH's own host JVM, not in a fresh one",
                        "JIT profiles and heap state from JMH itself and from other benchmarks leak into the "
                        "measurement; JMH warns that such results are unreliable, and a change elsewhere can "
                        "shift them. Use at least 2 forks.")]
    if shape.forks == 1:
        return [Finding("single-fork", Severity.WARNING, config.name, where,
                        f"a single fork (JMH's default is {defaults.forks})",
                        "Each run sees one JVM's steady state only. Variation between JVM runs (JIT decisions, "
                        "memory layout) is large for many benchmarks and stays invisible: the reported error "
                        "is too small and a run-to-run difference can look like a regression.")]
    return []


def check_time_unit_without_time(config: BenchmarkConfig, shape: RunShape, defaults: JmhDefaults) -> list[Finding]:
    out = []
    for item in config.time_unit_without_time:
        effective = shape.warmup_time_s if item.annotation == "Warmup" else shape.measurement_time_s
        setting = config.warmup_time_s if item.annotation == "Warmup" else config.measurement_time_s
        came_from = (f"the {setting.origin}-level @{item.annotation}({setting.location})" if setting is not None
                     else f"JMH's default for this version ({defaults.label})")
        scale = TIME_UNIT_S.get(item.unit)
        unit = item.unit.lower()
        ratio = f" ({_fmt_s(effective)} is {effective / scale:g} {unit})" if scale else ""
        out.append(Finding("time-unit-without-time", Severity.WARNING, config.name, item.location,
                           f"@{item.annotation} sets timeUnit={item.unit} but no time",
                           f"JMH ignores a timeUnit without a time: each {item.annotation.lower()} iteration lasts "
                           f"{_fmt_s(effective)}, from {came_from}, not the few {unit} the author "
                           f"probably meant{ratio}. Set time= next to timeUnit=."))
    return out


def check_no_warmup(config: BenchmarkConfig, shape: RunShape, defaults: JmhDefaults, timed: bool) -> list[Finding]:
    if not timed or shape.warmup_iterations != 0:
        return []
    where = config.warmup_iterations.location if config.warmup_iterations is not None else config.location
    return [Finding("no-warmup", Severity.WARNING, config.name, where, "no warmup iterations",
                    "Measurement starts on cold code: interpretation, JIT compilation and class loading land in "
                    "the first measured iterations, which are slower and more variable; the result depends on "
                    "how fast this JVM happened to compile.")]


def check_param_grid(config: BenchmarkConfig, cost: BenchmarkCost, threshold: int) -> list[Finding]:
    n = config.combinations
    if n <= threshold:
        return []
    where = config.params[0].location if config.params else config.location
    sizes = " x ".join(f"{p.name}({len(p.values)})" for p in config.params if len(p.values) > 1)
    per = cost.own_s / n if n else 0.0
    return [Finding("huge-param-grid", Severity.WARNING, config.name, where,
                    f"{n} parameter combinations ({sizes}), above the threshold of {threshold}",
                    f"Every combination is a separate benchmark: {n} x {format_duration(per)} = "
                    f"{format_duration(cost.own_s)} for this benchmark alone. Large grids are usually cut "
                    "by reducing forks and iterations instead, which costs accuracy everywhere; prune "
                    "combinations that never change the conclusion.")]


def check_dead_results(config: BenchmarkConfig) -> list[Finding]:
    """One finding per benchmark whose methods compute a value and drop it (precise: see :mod:`.deadcode`)."""
    if not config.dead_results:
        return []
    first = config.dead_results[0]
    what = (f"the result of `{first.text}` is discarded" if first.kind == "discarded"
            else f"local `{first.text}` is computed and never used")
    more = len(config.dead_results) - 1
    return [Finding("dead-result", Severity.WARNING, config.name, first.location,
                    what + (f" (and {more} more such value{'s' if more > 1 else ''})" if more else ""),
                    "The computation has no side effect and its result goes nowhere, so the JIT may remove it "
                    "(dead-code elimination): the benchmark then measures less than the code it names, down to "
                    "nothing. Return the value or pass it to a Blackhole (bh.consume(...)).")]


def check_commented(items: Iterable[CommentedBenchmark]) -> list[Finding]:
    return [Finding("commented-out-benchmark", Severity.INFO, None, c.location,
                    f"benchmark {c.method}() is commented out",
                    "It no longer runs, so a regression in the code it covered goes unnoticed, and nobody "
                    "is told. Restore it or delete it.")
            for c in items]


def check_benchmark(config: BenchmarkConfig, cost: BenchmarkCost, defaults: JmhDefaults,
                    grid_threshold: int = DEFAULT_GRID_THRESHOLD) -> list[Finding]:
    """All per-benchmark checks."""
    timed = bool(cost.timed_modes)
    shape = cost.own
    return [*check_forks(config, shape, defaults), *check_time_unit_without_time(config, shape, defaults),
            *check_no_warmup(config, shape, defaults, timed), *check_param_grid(config, cost, grid_threshold),
            *check_dead_results(config)]


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.severity.rank, f.code, f.location, f.benchmark or ""))
