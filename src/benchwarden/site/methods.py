"""Performance documentation of methods (issue #17, item 2, the explicit binding): which benchmarks document a method
(the ``[docs.methods]`` table of benchwarden.toml), and how its cost grows with each numeric parameter of them.

```toml
[docs.methods]
"wordstat.tokenize(text)" = ["wordstat:bench_wordstat.Tokenize.time_tokenize"]
```

Each entry binds a method (any text: the name a reader looks for) to benchmarks given as ``suite:name`` (the
harness's name, without parameters: every parameter combination of it is used).  For each numeric parameter with
at least 3 values among the latest runs of those combinations, and each combination of the other parameters, the
mean time per operation (ns/op, :func:`benchwarden.report.summary.summarize_benchmark`) is fitted by
:func:`benchwarden.stats.complexity.fit_complexity`; the page says the class, its R², the power-law exponent, and on
which machines and commits the numbers were measured.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, field_validator

from benchwarden.model import BenchmarkResult, RunData
from benchwarden.report.escaping import visible
from benchwarden.report.summary import BenchmarkSummary
from benchwarden.site.pages import Figure, _layout, fmt, fmt_interval, plot_text
from benchwarden.stats.complexity import MIN_POINTS, ComplexityFit, fit_complexity

_BENCHMARK = re.compile(r"^[A-Za-z0-9_.-]+:\S.*$")
PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c")


class DocsSettings(BaseModel):
    """The ``[docs]`` table: ``methods`` maps a method to the benchmarks (``suite:name``) that document it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    methods: dict[str, list[str]] = {}

    @field_validator("methods")
    @classmethod
    def _names(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for method, names in value.items():
            if not method.strip():
                raise ValueError("a method name is empty")
            if not names:
                raise ValueError(f"{method!r}: name at least one benchmark as 'suite:name'")
            for name in names:
                if not _BENCHMARK.match(name) or "[" in name:
                    raise ValueError(f"{method!r}: {name!r} is not 'suite:name' (the harness's name of the "
                                     "benchmark, without parameters)")
        return value


@dataclass(frozen=True)
class AxisFit:
    """One line of one parameter axis: the other parameters' values, the points, and the fit (None below 3 points)."""

    benchmark: str
    axis: str
    others: tuple[tuple[str, str], ...]
    n: tuple[float, ...]
    mean_ns: tuple[float, ...]
    ci_ns: tuple[tuple[float, float] | None, ...]
    fit: ComplexityFit | None
    note: str

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.others) or "all"

    def summary(self) -> str:
        return self.fit.summary(self.axis) if self.fit else self.note


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def axis_fits(benchmark: str, members: Sequence[tuple[BenchmarkResult, BenchmarkSummary]]) -> list[AxisFit]:
    """Every numeric parameter axis of ``benchmark``'s parameter combinations (``members``: the latest result of
    each, with its summary), one :class:`AxisFit` per combination of the other parameters."""
    if not members:
        return []
    axes = [k for k, _ in members[0][0].benchmark.id.params]
    out = []
    for axis in axes:
        lines: dict[tuple[tuple[str, str], ...], list[tuple[float, BenchmarkSummary]]] = defaultdict(list)
        numeric = True
        for result, summary in members:
            params = dict(result.benchmark.id.params)
            value = _number(params.get(axis, ""))
            if value is None:
                numeric = False
                break
            if summary.mean_ns is not None and summary.mean_ns > 0:
                lines[tuple((k, v) for k, v in result.benchmark.id.params if k != axis)].append((value, summary))
        if not numeric or len({n for pts in lines.values() for n, _ in pts}) < 2:
            continue
        for others, points in sorted(lines.items()):
            points.sort(key=lambda p: p[0])
            n = tuple(p[0] for p in points)
            means = tuple(float(p[1].mean_ns or 0.0) for p in points)
            cis = tuple((p[1].ci_low_ns, p[1].ci_high_ns) if p[1].ci_low_ns and p[1].ci_high_ns else None
                        for p in points)
            fit, note = None, ""
            if len(set(n)) >= MIN_POINTS:
                fit = fit_complexity(n, means)
            else:
                note = (f"{len(set(n))} value(s) of {axis} measured: a complexity class needs at least {MIN_POINTS} "
                        f"(declare more values of the parameter)")
            out.append(AxisFit(benchmark, axis, others, n, means, cis, fit, note))
    return out


def fit_figure(fits: Sequence[AxisFit], index: int) -> Figure:
    """The measured means (ns/op, with their intervals) against the axis, each line's fitted curve dashed."""
    axis = fits[0].axis
    traces: list[dict[str, Any]] = []
    rows = []
    for number, line in enumerate(fits):
        color = PALETTE[number % len(PALETTE)]
        label = plot_text(line.label)
        lows = [m - c[0] if c else 0.0 for m, c in zip(line.mean_ns, line.ci_ns)]
        highs = [c[1] - m if c else 0.0 for m, c in zip(line.mean_ns, line.ci_ns)]
        traces.append({"type": "scatter", "mode": "markers", "name": label, "legendgroup": label,
                       "x": list(line.n), "y": list(line.mean_ns), "marker": {"color": color, "size": 8},
                       "error_y": {"type": "data", "symmetric": False, "array": highs, "arrayminus": lows,
                                   "thickness": 1},
                       "customdata": [[fmt_interval(*c) if c else "n/a"] for c in line.ci_ns],
                       "hovertemplate": plot_text(axis) + " = %{x}: %{y:.4g} ns/op<br>interval %{customdata[0]}"
                                        "<extra></extra>"})
        if line.fit:
            dense = np.geomspace(min(line.n), max(line.n), 60)
            traces.append({"type": "scatter", "mode": "lines", "name": f"{label}: {plot_text(line.fit.best.name)} "
                                                                      f"fit, R² {line.fit.best.r2:.3f}",
                           "legendgroup": label, "x": dense.tolist(), "y": line.fit.best.predict(dense).tolist(),
                           "line": {"dash": "dash", "width": 1.5, "color": color}, "hoverinfo": "skip"})
        rows += [(visible(line.label), fmt(n), fmt(m), fmt_interval(*c) if c else "n/a", visible(line.summary()))
                 for n, m, c in zip(line.n, line.mean_ns, line.ci_ns)]
    layout = _layout(plot_text(axis), "time per operation (ns/op)", showlegend=True)
    if max(max(f.n) for f in fits) / min(min(f.n) for f in fits) >= 20:  # a wide range: log-log, a power law straight
        layout["xaxis"]["type"] = "log"
        layout["yaxis"]["type"] = "log"
    return Figure(f"fit-{index}", f"{visible(fits[0].benchmark)} against {visible(axis)}", traces, layout,
                  f"Mean time per operation of the latest run of each value of {visible(axis)} (99 % interval over "
                  "forks); dashed: the fitted complexity class a + b·f(n) (least squares, docs/site.md).",
                  ("other parameters", visible(axis), "mean (ns/op)", "interval", "fit"), rows)


def documented(methods: Mapping[str, Sequence[str]], latest: Mapping[str, tuple[RunData, BenchmarkResult]],
               summaries: Mapping[str, BenchmarkSummary]) -> dict[str, dict[str, list]]:
    """method -> bound benchmark (``suite:name``) -> the latest (run, result, summary) of each of its parameter
    combinations (an empty list when none was measured)."""
    by_family: dict[str, list] = defaultdict(list)
    for name, (run, result) in sorted(latest.items()):
        by_family[f"{result.benchmark.id.suite}:{result.benchmark.id.name}"].append((run, result, summaries[name]))
    return {method: {b: by_family.get(b, []) for b in names} for method, names in methods.items()}


def reached_methods(assessments: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """The implicit binding: each method of an assessment's K′ bound to the parameterised benchmarks that its tracing
    saw call it (``assess --json``'s ``reach``: benchmark key -> method -> calls), as ``suite:name``."""
    out: dict[str, list[str]] = {}
    for doc in assessments:
        suite, reach = doc.get("suite"), doc.get("reach")
        methods = doc.get("methods")
        selected = set(methods.get("selected", ())) if isinstance(methods, Mapping) else set()
        if not isinstance(suite, str) or not isinstance(reach, Mapping):
            continue
        for key, calls in sorted(reach.items()):
            if not isinstance(key, str) or "[" not in key or not isinstance(calls, Mapping):
                continue  # a benchmark without parameters documents no growth
            bound_name = f"{suite}:{key.split('[', 1)[0]}"
            for method in calls:
                if method in selected and bound_name not in out.setdefault(method, []):
                    out[method].append(bound_name)
    return out
