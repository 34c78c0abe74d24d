"""The HTML report of ``benchwarden history --html``: per series a plot of the commits' levels with the change
points marked, and the series and change-point tables.  It extends the shared report template
(``base.html.j2``): static, offline, autoescaped, the data embedded as JSON (see :mod:`benchwarden.report.html`).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import matplotlib
import numpy as np
from markupsafe import Markup
from matplotlib import ticker
from matplotlib.figure import Figure
from scipy import stats as scistats

from benchwarden import __version__
from benchwarden.history.analysis import SeriesHistory
from benchwarden.report import plots
from benchwarden.report.escaping import visible
from benchwarden.report.history_table import changes_table, series_table
from benchwarden.report.html import environment, json_for_script

POINT_COLOR = plots.BASE_COLOR
LEVEL_COLOR = "#333333"
CHANGE_COLORS = {True: plots.VERDICT_COLORS["slower"], False: plots.VERDICT_COLORS["faster"]}
TICKS = 12


def commit_intervals(log_forks: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """A commit's geometric mean with a t interval over its fork summaries (the point alone with one fork)."""
    x = np.asarray(log_forks, dtype=float)
    center = float(x.mean())
    if x.size < 2:
        return math.exp(center), math.exp(center), math.exp(center)
    half = float(scistats.t.ppf(1 - (1 - confidence) / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return math.exp(center), math.exp(center - half), math.exp(center + half)


def series_plot(h: SeriesHistory) -> str:
    """Commit index on x (short shas as labels), the series' unit on y: each commit's mean with its 95 % interval, each
    segment's level as a line, each change point as a dashed line labelled with its ratio."""
    points = h.series.points
    stats = [commit_intervals(p.log_forks) for p in points]
    xs = list(range(len(points)))
    with matplotlib.rc_context(plots.PLOT_STYLE):
        fig = Figure(figsize=(7.5, 2.6))
        ax = fig.add_subplot()
        means = [s[0] for s in stats]
        ax.errorbar(xs, means, yerr=[[m - s[1] for m, s in zip(means, stats)], [s[2] - m for m, s in zip(means, stats)]],
                    fmt="o", markersize=3.5, color=POINT_COLOR, ecolor=POINT_COLOR, elinewidth=0.8, capsize=0,
                    label="commit mean, 95 % interval over its forks")
        cuts = [0, *(c.index for c in h.detection.found), len(points)]
        values = np.asarray(h.detection.runs.values)
        for start, end in zip(cuts, cuts[1:]):
            level = math.exp(float(values[start:end].mean()))
            ax.plot([start - 0.4, end - 0.6], [level, level], color=LEVEL_COLOR, linewidth=1.2)
        for change in h.changes:
            x = change.test.index - 0.5
            up = change.test.ratio.point > 1
            ax.axvline(x, color=CHANGE_COLORS[up], linestyle="--", linewidth=1)
            ax.annotate(f"×{change.test.ratio.point:.3f}", (x, 1.0), xycoords=("data", "axes fraction"),
                        xytext=(3, -10), textcoords="offset points", fontsize=8, color=CHANGE_COLORS[up])
        step = max(1, math.ceil(len(points) / TICKS))
        ax.set_xticks(xs[::step], [visible(p.commit[:7]) for p in points[::step]], rotation=45, fontsize=7)
        ax.set_xlim(-0.8, len(points) - 0.2)
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:,.4g}"))
        ax.set_ylabel(f"{h.series.metric} ({visible(h.series.unit)})")
        ax.set_xlabel(f"commit ({h.series.ordered_by} order)")
        return plots.figure_to_svg(fig)


def history_html(histories: Sequence[SeriesHistory], notes: Sequence[str], alpha: float,
                 confirmations: Mapping[Any, str] | None = None) -> bytes:
    """The report as UTF-8 HTML bytes: a summary table, then one section per series."""
    sections = [{"name": visible(h.series.benchmark), "machine": visible(h.series.machine_key),
                 "plot": Markup(series_plot(h)) if h.series.points else None,
                 "changes": changes_table([h], None, confirmations),
                 "notes": [visible(n) for n in (*h.series.notes, *h.detection.warnings)]}
                for h in histories]
    html = environment().get_template("history.html.j2").render(
        version=__version__, summary=series_table(histories, None), sections=sections, alpha=alpha,
        confidence=1 - alpha, notes=[visible(n) for n in notes],
        data_json=json_for_script({"v": 1, "alpha": alpha, "series": [h.to_json() for h in histories]}))
    return html.encode()
