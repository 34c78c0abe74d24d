"""Reference budgets: what a benchmark would cost under JMH's static configuration, for the end-of-run comparison.

For a JMH suite, each benchmark × parameter combination is charged what JMH
would run by itself (Laaber et al. 2020 §2.3 cost model, via
:mod:`benchwarden.audit.cost`): the benchmark's own ``@Fork``/``@Warmup``/
``@Measurement`` annotations where the audit can read them from the suite's
sources, JMH's defaults for the suite's JMH version (``toolchain["jmh"]``)
for the rest — 5 × (5 + 5) × 10 s = 500 s from JMH 1.21 on, 10 × (20 + 20) × 1 s
= 400 s before.  A single-shot benchmark's iterations are not time-boxed: its
reference is a number of iterations, charged at their measured duration by
:mod:`benchwarden.report.stopping`.  Other harnesses have no such reference;
their runs are compared with the configuration's own static budget only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping

from benchwarden.audit.cost import default_shape, effective_shape
from benchwarden.audit.defaults import defaults_for
from benchwarden.audit.project import audit_project
from benchwarden.errors import BenchwardenError
from benchwarden.model import Benchmark
from benchwarden.report.stopping import ReferenceBudget

#: benchwarden's (JMH's short) mode names -> JMH's annotation names
JMH_MODES = {"thrpt": "Throughput", "avgt": "AverageTime", "sample": "SampleTime", "ss": "SingleShotTime"}


def _shape_text(shape) -> str:
    return (f"{shape.forks} × ({shape.warmup_iterations} × {shape.warmup_time_s:g} s + "
            f"{shape.measurement_iterations} × {shape.measurement_time_s:g} s)")


def jmh_reference_budgets(root: Path | None, jmh_version: str | None,
                          benchmarks: Iterable[Benchmark]) -> dict[str, ReferenceBudget]:
    """Reference budget per benchmark id (``str(BenchmarkId)``) of a JMH suite.

    Annotations are read with the audit's Java parser when ``root`` holds the
    sources; if that fails (no sources, a parse error) every benchmark gets
    the version's defaults.
    """
    defaults = defaults_for(jmh_version)
    version = f"JMH {jmh_version}" if jmh_version else "JMH (version unknown, assumed >= 1.21)"
    configs: Mapping[str, object] = {}
    if root is not None and root.is_dir():
        try:
            report = audit_project(root, jmh_version=jmh_version)
            configs = {b.config.name: b.config for b in report.benchmarks}
        except (BenchwardenError, OSError, ValueError):
            configs = {}
    budgets = {}
    for b in benchmarks:
        config = configs.get(b.id.name)
        mode = JMH_MODES.get(b.mode, "Throughput")
        shape = effective_shape(config, defaults, mode) if config is not None else default_shape(defaults)  # type: ignore[arg-type]
        own = "defaults" if shape == default_shape(defaults) else "with the benchmark's own annotations"
        if mode == "SingleShotTime":
            iterations = (shape.forks + shape.warmup_forks) * (shape.warmup_iterations + shape.measurement_iterations)
            budgets[str(b.id)] = ReferenceBudget(
                seconds=0.0, iterations=iterations,
                label=f"{version} {own}, {shape.forks} × ({shape.warmup_iterations} + "
                      f"{shape.measurement_iterations}) single-shot iterations at their measured duration")
            continue
        label = f"{version} defaults, {_shape_text(shape)}" if own == "defaults" else f"{version} {own}"
        budgets[str(b.id)] = ReferenceBudget(seconds=shape.combination_s, label=label)
    return budgets
