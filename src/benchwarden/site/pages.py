"""The data of each page: tables as text, plots as plotly.js figure specifications (plain dicts), computed here.

Pure: model values and history results in, JSON-ready dicts out; nothing is read or written.  Every plot has
the same numbers as a table (the page shows it as the plot's *table view*, for screen readers and for copying).

Values are kept in ns/op (lower is better) for every computation and converted to the benchmark's own unit
for display only (:func:`benchwarden.units.from_ns_per_op`; for a throughput unit that inverts, so an
interval's bounds swap).  Text that plotly draws (trace names, hover text, tick labels) is HTML-escaped
(:func:`plot_text`): plotly.js reads a small HTML subset in its strings (``<b>``, ``<a href>``, ``<br>``) and
turns entities back into characters, so an escaped benchmark name is drawn as the text it is.  Hover
templates are fixed strings of ours; user text reaches them only through ``customdata``.
"""

from __future__ import annotations

import hashlib
import html
import math
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np
from scipy import stats as scistats

from benchwarden.history.analysis import SeriesHistory
from benchwarden.model import BenchmarkResult, ForkStatus, RunData
from benchwarden.report.escaping import visible
from benchwarden.report.summary import BenchmarkSummary, summarize_benchmark
from benchwarden.units import from_ns_per_op

POINT_CONFIDENCE = 0.95
"""Confidence of each commit's interval in the history plot (t over the commit's log fork summaries)."""

SLOWER_COLOR, FASTER_COLOR, SERIES_COLOR, LEVEL_COLOR = "#c0392b", "#27864a", "#4c72b0", "#555f69"
MAX_TICKS = 14


def plot_text(value: object) -> str:
    """User text for plotly: control characters visible, then ``<``, ``>``, ``&`` as entities (plotly.js decodes
    those; it would show ``&quot;`` as is, and quotes need no escaping in its text)."""
    return html.escape(visible(str(value)), quote=False)


def slug(name: str) -> str:
    """A file name for a benchmark page: readable ASCII from the name plus 10 hex digits of its SHA-256 (unique,
    and no name can reach outside the folder or collide with another's page by case or punctuation)."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:60].lower() or "benchmark"
    return f"{readable}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"


def fmt(value: float | None) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.4g}"


def fmt_interval(low: float | None, high: float | None) -> str:
    return "n/a" if low is None or high is None else f"[{fmt(low)}, {fmt(high)}]"


def display_interval(low_ns: float, high_ns: float, unit: str) -> tuple[float, float]:
    a, b = from_ns_per_op(low_ns, unit), from_ns_per_op(high_ns, unit)
    return (min(a, b), max(a, b))


@dataclass(frozen=True)
class Figure:
    """One plot: its element id, plotly traces and layout, a caption, and the same data as a table."""

    id: str
    title: str
    data: list[dict[str, Any]]
    layout: dict[str, Any]
    caption: str
    columns: tuple[str, ...]
    rows: Sequence[tuple[str, ...]]

    def spec(self) -> dict[str, Any]:
        """What the page's script hands to ``Plotly.newPlot``."""
        return {"id": self.id, "data": self.data, "layout": self.layout}


def _layout(x_title: str, y_title: str, from_zero: bool = False, **extra: Any) -> dict[str, Any]:
    """A layout with titled axes; the y axis spans the data (a step of a few per cent must be visible) unless
    ``from_zero``."""
    return {"xaxis": {"title": {"text": x_title}, "automargin": True},
            "yaxis": {"title": {"text": y_title}, "automargin": True, "rangemode": "tozero" if from_zero else "normal"},
            "margin": {"l": 60, "r": 20, "t": 10, "b": 50}, "height": 340, "hovermode": "closest",
            "legend": {"orientation": "h", "y": -0.25}, **extra}


# -- history ---------------------------------------------------------------------------------------------------


def commit_interval(log_forks: Sequence[float], confidence: float = POINT_CONFIDENCE) -> tuple[float, float] | None:
    """Geometric-mean interval of one commit's forks in ns/op (t on their logs), None with fewer than 2 forks."""
    y = np.asarray(log_forks, dtype=float)
    if y.size < 2:
        return None
    se = float(y.std(ddof=1)) / math.sqrt(y.size)
    half = float(scistats.t.ppf(0.5 + confidence / 2, y.size - 1)) * se
    return (math.exp(float(y.mean()) - half), math.exp(float(y.mean()) + half))


def history_figure(h: SeriesHistory, index: int) -> Figure:
    """The series in commit order: each commit's value (geometric mean of its forks, after ESD) with its interval,
    each segment's level between change points, and the change points with their step and interval."""
    s, unit = h.series, h.series.unit
    xs = list(range(1, len(s.points) + 1))
    values = [from_ns_per_op(math.exp(v), unit) for v in h.detection.runs.values]
    lows, highs, rows, custom = [], [], [], []
    for point, value in zip(s.points, values):
        interval = commit_interval(point.log_forks)
        low, high = display_interval(*interval, unit) if interval else (value, value)
        lows.append(max(0.0, value - low))
        highs.append(max(0.0, high - value))
        shown = fmt_interval(low, high) if interval else "n/a (one fork)"
        custom.append([plot_text(point.commit[:12]), plot_text((point.subject or "")[:80]), shown,
                       str(len(point.log_forks))])
        rows.append((point.commit[:12], visible(point.subject or ""), str(len(point.runs)), str(len(point.log_forks)),
                     fmt(value), shown))
    hover = ("commit %{customdata[0]}<br>%{customdata[1]}<br>%{y:.4g} " + plot_text(unit)
             + "<br>95% interval %{customdata[2]} (%{customdata[3]} forks)<extra></extra>")
    traces: list[dict[str, Any]] = [{
        "type": "scatter", "mode": "lines+markers", "name": "per commit", "x": xs, "y": values,
        "error_y": {"type": "data", "symmetric": False, "array": highs, "arrayminus": lows, "thickness": 1},
        "customdata": custom, "hovertemplate": hover, "line": {"color": SERIES_COLOR, "width": 1},
        "marker": {"size": 6}}]
    edges = [0, *(c.test.index for c in h.changes), len(xs)]
    level_x: list[float | None] = []
    level_y: list[float | None] = []
    for start, end in zip(edges, edges[1:]):
        level = from_ns_per_op(math.exp(float(np.mean(h.detection.runs.values[start:end]))), unit)
        level_x += [start + 0.6, end + 0.4, None]
        level_y += [level, level, None]
    traces.append({"type": "scatter", "mode": "lines", "name": "segment level", "x": level_x, "y": level_y,
                   "line": {"color": LEVEL_COLOR, "dash": "dot", "width": 2}, "hoverinfo": "skip"})
    shapes = []
    if h.changes:
        cx, cy, ccustom, colors = [], [], [], []
        for change in h.changes:
            i = change.test.index
            ratio = change.test.ratio
            cx.append(i + 0.5)
            cy.append(values[i])
            slower = ratio.point > 1
            colors.append(SLOWER_COLOR if slower else FASTER_COLOR)
            ccustom.append([plot_text(change.before.commit[:10]), plot_text(change.after.commit[:10]),
                            f"{ratio.point:.3f}", fmt_interval(ratio.low, ratio.high), f"{change.test.p_value:.2g}",
                            plot_text((change.after.subject or "")[:80])])
            shapes.append({"type": "line", "x0": i + 0.5, "x1": i + 0.5, "yref": "paper", "y0": 0, "y1": 1,
                           "line": {"color": colors[-1], "dash": "dash", "width": 1}})
        traces.append({"type": "scatter", "mode": "markers", "name": "change point", "x": cx, "y": cy,
                       "marker": {"symbol": "diamond", "size": 11, "color": colors}, "customdata": ccustom,
                       "hovertemplate": "change in %{customdata[0]}..%{customdata[1]}<br>%{customdata[5]}<br>"
                                        "time ratio %{customdata[2]} %{customdata[3]}, p = %{customdata[4]}"
                                        "<extra></extra>"})
    step = max(1, math.ceil(len(xs) / MAX_TICKS))
    ticks = xs[::step]
    layout = _layout("commit, in history order" if s.ordered_by == "commit" else "commit, in run order",
                     f"{plot_text(s.metric)} ({plot_text(unit)})", shapes=shapes)
    layout["xaxis"].update(tickvals=ticks, ticktext=[plot_text(s.points[x - 1].commit[:7]) for x in ticks])
    caption = (f"{len(xs)} commit(s) on {visible(s.machine)}: each point is a commit's geometric mean over its forks "
               f"with a {POINT_CONFIDENCE:.0%} t interval; dotted: the level of each segment; diamonds: change points "
               "(history's PELT candidates kept by Student's t at α = "
               f"{h.detection.settings.alpha:g}, docs/history.md).")
    return Figure(f"history-{index}", "history", traces, layout, caption,
                  ("commit", "subject", "runs", "forks", f"value ({visible(unit)})", "95% interval"), rows)


def change_rows(h: SeriesHistory) -> list[dict[str, str]]:
    return [{"range": f"{c.before.commit[:10]}..{c.after.commit[:10]}", "subject": visible(c.after.subject or ""),
             "ratio": f"{c.test.ratio.point:.3f}", "interval": fmt_interval(c.test.ratio.low, c.test.ratio.high),
             "p": f"{c.test.p_value:.2g}", "direction": "slower" if c.test.ratio.point > 1 else "faster"}
            for c in h.changes]


# -- the latest run ---------------------------------------------------------------------------------------------


def _complete(result: BenchmarkResult):
    return [f for f in result.forks if f.status is ForkStatus.COMPLETE and f.measurement]


def iterations_figure(result: BenchmarkResult, index: int) -> Figure:
    """Every iteration of every complete fork in order, warmup dotted: warmup and drift show as shapes."""
    unit = result.benchmark.unit
    traces, rows = [], []
    for fork in _complete(result):
        warm = [from_ns_per_op(it.value_ns, unit) for it in fork.warmup]
        meas = [from_ns_per_op(it.value_ns, unit) for it in fork.measurement]
        group = f"fork {fork.index}"
        if warm:
            traces.append({"type": "scatter", "mode": "lines+markers", "name": f"{group} warmup",
                           "legendgroup": group, "x": list(range(1, len(warm) + 1)), "y": warm,
                           "line": {"dash": "dot", "width": 1}, "marker": {"size": 4}, "opacity": 0.6,
                           "hovertemplate": f"{group} warmup %{{x}}: %{{y:.4g}}<extra></extra>"})
        traces.append({"type": "scatter", "mode": "lines+markers", "name": group, "legendgroup": group,
                       "x": list(range(len(warm) + 1, len(warm) + len(meas) + 1)), "y": meas,
                       "line": {"width": 1.5}, "marker": {"size": 6},
                       "hovertemplate": f"{group} iteration %{{x}}: %{{y:.4g}}<extra></extra>"})
        rows.append((str(fork.index), " ".join(fmt(v) for v in warm) or "-", " ".join(fmt(v) for v in meas)))
    layout = _layout("iteration (warmup, then measurement)", f"value ({plot_text(unit)})")
    return Figure(f"iterations-{index}", "iterations", traces, layout,
                  "Every iteration of each complete fork of the latest run; dotted: warmup (not used in results).",
                  ("fork", f"warmup ({visible(unit)})", f"measurement ({visible(unit)})"), rows)


def forks_figure(result: BenchmarkResult, index: int) -> Figure:
    """One box per fork over its measurement iterations, with mean ± sd and every value."""
    unit = result.benchmark.unit
    traces, rows = [], []
    for fork in _complete(result):
        values = np.array([from_ns_per_op(it.value_ns, unit) for it in fork.measurement])
        traces.append({"type": "box", "name": f"fork {fork.index}", "y": values.tolist(), "boxmean": "sd",
                       "boxpoints": "all", "jitter": 0.4, "pointpos": 0, "marker": {"size": 4}})
        sd = float(values.std(ddof=1)) if values.size > 1 else None
        rows.append((str(fork.index), str(values.size), fmt(float(values.mean())), fmt(sd),
                     fmt(float(np.median(values))), fmt(float(values.min())), fmt(float(values.max()))))
    layout = _layout("fork", f"measurement ({plot_text(unit)})", showlegend=False)
    return Figure(f"forks-{index}", "forks", traces, layout,
                  "Measurement iterations per fork: box = quartiles and median, dashed = mean ± sd, dots = values; "
                  "forks are separate processes, so their spread is the between-fork variation.",
                  ("fork", "iterations", "mean", "sd", "median", "min", "max"), rows)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def param_figures(name: str, family: Sequence[tuple[BenchmarkResult, BenchmarkSummary]], first: int) -> list[Figure]:
    """For each parameter with two or more values: the mean (with its interval over forks) against that parameter,
    one line per combination of the others.  ``family``: the latest result of each parameter combination of one
    benchmark, with its summary."""
    if not family:
        return []
    names = [k for k, _ in family[0][0].benchmark.id.params]
    figures: list[Figure] = []
    for axis in names:
        if len({dict(r.benchmark.id.params).get(axis) for r, _ in family}) < 2:
            continue
        lines: dict[tuple[tuple[str, str], ...], list[tuple[str, BenchmarkSummary]]] = defaultdict(list)
        for result, summary in family:
            params = dict(result.benchmark.id.params)
            if axis not in params or summary.mean is None:
                continue
            rest = tuple((k, v) for k, v in result.benchmark.id.params if k != axis)
            lines[rest].append((params[axis], summary))
        numeric = all(_number(v) is not None for points in lines.values() for v, _ in points)
        unit = family[0][1].unit
        traces, rows = [], []
        for rest, points in sorted(lines.items()):
            points.sort(key=lambda p: (_number(p[0]) or 0.0, p[0]) if numeric else (0.0, p[0]))
            label = ", ".join(f"{k}={v}" for k, v in rest) or name
            ys = [p[1].mean for p in points]
            cis = [p[1].ci for p in points]
            traces.append({
                "type": "scatter", "mode": "lines+markers", "name": plot_text(label),
                "x": [_number(v) if numeric else plot_text(v) for v, _ in points], "y": ys,
                "error_y": {"type": "data", "symmetric": False, "thickness": 1,
                            "array": [max(0.0, c[1] - y) if c and y is not None else 0.0 for c, y in zip(cis, ys)],
                            "arrayminus": [max(0.0, y - c[0]) if c and y is not None else 0.0
                                           for c, y in zip(cis, ys)]},
                "customdata": [[plot_text(v), fmt_interval(*c) if c else "n/a"] for (v, _), c in zip(points, cis)],
                "hovertemplate": plot_text(axis) + " = %{customdata[0]}: %{y:.4g} " + plot_text(unit)
                                 + "<br>interval %{customdata[1]}<extra></extra>"})
            rows += [(visible(label), visible(v), fmt(s.mean), fmt_interval(*s.ci) if s.ci else "n/a")
                     for v, s in points]
        layout = _layout(plot_text(axis), f"mean ({plot_text(unit)})", from_zero=True, showlegend=True)
        if numeric and all((_number(v) or 0) > 0 for pts in lines.values() for v, _ in pts):
            values = sorted({_number(v) or 1.0 for pts in lines.values() for v, _ in pts})
            if values[-1] / values[0] >= 20:
                layout["xaxis"]["type"] = "log"
        figures.append(Figure(f"params-{first + len(figures)}", f"parameter {visible(axis)}", traces, layout,
                              f"Mean per operation of the latest run of each parameter combination against "
                              f"{visible(axis)}, with its interval over forks (99 %, t on logs).",
                              ("other parameters", visible(axis), f"mean ({visible(unit)})", "interval"), rows))
    return figures


# -- pages ----------------------------------------------------------------------------------------------------


def run_facts(run: RunData) -> dict[str, str]:
    from benchwarden.environment import machine_label

    return {"run": str(run.id), "label": visible(run.meta.label or ""), "commit": (run.meta.commit or "")[:12]
            + (" (dirty)" if run.meta.dirty else ""), "machine": visible(machine_label(run.meta.machine)),
            "status": run.status.value, "time": _when(run.meta.created_at)}


def _when(epoch: float) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def summary_text(summary: BenchmarkSummary) -> tuple[str, str]:
    """(mean, interval) as shown in tables."""
    ci = summary.ci
    return fmt(summary.mean), fmt_interval(*ci) if ci else "n/a"


def families(latest: Iterable[tuple[str, BenchmarkResult]]) -> dict[tuple[str, str], list[str]]:
    """(suite, harness name) -> the ``suite:key`` of each parameter combination measured."""
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, result in latest:
        out[(result.benchmark.id.suite, result.benchmark.id.name)].append(name)
    return out


def summarize(result: BenchmarkResult) -> BenchmarkSummary:
    return summarize_benchmark(result)
