"""Plots as inline SVG strings, drawn with matplotlib's object API (no pyplot state, no display needed).

Offline by construction: the SVG is self-contained, text is drawn as glyph outlines
(``svg.fonttype = "path"``, so no font files and no user text in the markup), math-text parsing
is off (a ``$`` in a benchmark name stays a dollar sign), and ids are salted with a fixed string
so the same data gives the same bytes.  Functions take plain numbers; they compute nothing
statistical.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import matplotlib
from matplotlib import ticker
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

BASE_COLOR = "#4c72b0"
CANDIDATE_COLOR = "#dd8452"
VERDICT_COLORS = {"slower": "#c0392b", "faster": "#27864a", "unchanged": "#555555", "inconclusive": "#b7950b",
                  "error": "#c0392b", "skipped": "#999999"}

# matplotlib 3.10 replaced boxplot(vert=False) by orientation="horizontal"
_HORIZONTAL = {"orientation": "horizontal"} if tuple(int(p) for p in matplotlib.__version__.split(".")[:2]) >= (3, 10) \
    else {"vert": False}
PLOT_STYLE: dict[RcKeyType, Any] = {"svg.fonttype": "path", "svg.hashsalt": "benchwarden", "text.parse_math": False, "font.size": 9,
       "axes.spines.top": False, "axes.spines.right": False}


def figure_to_svg(fig: Figure) -> str:
    buffer = io.StringIO()
    FigureCanvasSVG(fig)
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML declaration and DOCTYPE for inline use


@dataclass(frozen=True)
class ForestRow:
    label: str
    ratio: float
    low: float
    high: float
    threshold: float
    verdict: str


def forest_plot(rows: Sequence[ForestRow]) -> str:
    """Every benchmark's time ratio (candidate/base) with its interval, its band shaded, a line at 1."""
    with matplotlib.rc_context(PLOT_STYLE):
        height = 0.9 + 0.32 * max(1, len(rows))
        fig = Figure(figsize=(7.5, height))
        ax = fig.add_subplot()
        for y, row in enumerate(reversed(rows)):
            color = VERDICT_COLORS.get(row.verdict, "#333333")
            ax.fill_betweenx([y - 0.38, y + 0.38], 1 / (1 + row.threshold), 1 + row.threshold,
                             color="#dddddd", linewidth=0)
            high = row.high if row.high < 1e9 else row.ratio * 10
            ax.plot([row.low, high], [y, y], color=color, linewidth=2)
            ax.plot([row.ratio], [y], marker="o", color=color, markersize=5)
        ax.axvline(1.0, color="#333333", linewidth=0.8, linestyle="--")
        lows = [r.low for r in rows if r.low > 0]
        highs = [min(r.high, r.ratio * 10) for r in rows]
        if lows and max(highs) / min(lows) > 4:  # ratios are multiplicative: a wide range reads best on a log axis
            ax.set_xscale("log")
            # plain labels (math text is off, so the default 10^k labels would show as markup)
            ax.xaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:g}"))
            ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_yticks(range(len(rows)), [r.label for r in reversed(rows)])
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.set_xlabel("time ratio candidate / base (ns/op; > 1 = slower), band = practical threshold")
        return figure_to_svg(fig)


def distribution_plot(base: Sequence[float], candidate: Sequence[float], unit: str) -> str:
    """Every measurement iteration of both versions: box plots with the individual values overlaid."""
    with matplotlib.rc_context(PLOT_STYLE):
        fig = Figure(figsize=(4.2, 2.2))
        ax = fig.add_subplot()
        data = [list(base), list(candidate)]
        ax.boxplot(data, widths=0.5, showfliers=False, medianprops={"color": "#222222"}, **_HORIZONTAL)
        for y, (values, color) in enumerate(zip(data, (BASE_COLOR, CANDIDATE_COLOR)), start=1):
            jitter = [y + 0.18 * (((i * 7919) % 13) / 12 - 0.5) for i in range(len(values))]
            ax.scatter(values, jitter, s=8, color=color, alpha=0.6, linewidths=0)
        ax.set_yticks([1, 2], ["base", "candidate"])
        ax.set_xlabel(f"iteration value ({unit})")
        return figure_to_svg(fig)


def fork_means_plot(base: Sequence[float], candidate: Sequence[float], unit: str) -> str:
    """Each fork's mean by pair number, both versions: drift over the session shows as a trend."""
    with matplotlib.rc_context(PLOT_STYLE):
        fig = Figure(figsize=(4.2, 2.2))
        ax = fig.add_subplot()
        ax.plot(range(1, len(base) + 1), base, marker="o", color=BASE_COLOR, label="base", linewidth=1)
        ax.plot(range(1, len(candidate) + 1), candidate, marker="s", color=CANDIDATE_COLOR, label="candidate",
                linewidth=1)
        ax.set_xlabel("fork pair")
        ax.set_ylabel(f"fork mean ({unit})")
        ax.xaxis.set_major_locator(ticker.MaxNLocator(nbins="auto", steps=[1, 2, 2.5, 5, 10], integer=True))  # AutoLocator's
        ax.legend(frameon=False, fontsize=8)
        return figure_to_svg(fig)
