"""The HTML section of an assessment: ABS per variant, the method × benchmark detection matrix, and a
variability plot per benchmark. It extends the shared report template (``base.html.j2``): static,
offline, autoescaped, data embedded as JSON (see :mod:`benchwarden.report.html`).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import matplotlib
from markupsafe import Markup
from matplotlib.figure import Figure

from benchwarden import __version__
from benchwarden.report import plots
from benchwarden.report.assess_tables import (
    VARIANT_TITLES,
    abs_table,
    cell_text,
    cost_lines,
    matrix,
    matrix_title,
    methods_table,
    smoke_lines,
    variability_table,
)
from benchwarden.report.escaping import visible
from benchwarden.report.html import environment, json_for_script

STABLE_COLOR = "#4c72b0"
UNSTABLE_COLOR = "#c0392b"


def variability_plot(benchmarks: Sequence[Mapping[str, Any]]) -> str:
    """One row per benchmark: each run's mean relative to the benchmark's overall mean (%), maxSpread labelled."""
    with matplotlib.rc_context(plots.PLOT_STYLE):
        fig = Figure(figsize=(7.5, 0.9 + 0.36 * max(1, len(benchmarks))))
        ax = fig.add_subplot()
        for y, b in enumerate(reversed(list(benchmarks))):
            means = [m for m in b["run_means_ns"] if m]
            overall = sum(means) / len(means) if means else 1.0
            xs = [100.0 * (m / overall - 1.0) for m in means]
            color = UNSTABLE_COLOR if b["unstable"] else STABLE_COLOR
            ax.plot([min(xs), max(xs)], [y, y], color=color, linewidth=1.2, alpha=0.6)
            ax.scatter(xs, [y] * len(xs), color=color, s=16, zorder=3)
            ax.annotate(f"{b['max_spread']:.1%}", (max(xs), y), xytext=(6, -3), textcoords="offset points",
                        fontsize=8, color=color)
        ax.set_yticks(range(len(benchmarks)))
        ax.set_yticklabels([visible(b["key"]) for b in reversed(list(benchmarks))])
        ax.axvline(0.0, color="#999999", linewidth=0.8)
        ax.set_xlabel("run mean relative to the benchmark's mean over all runs (%)")
        return plots.figure_to_svg(fig)


def assessment_html(docs: Sequence[Mapping[str, Any]], home: str | None = None) -> bytes:
    """The report (one section per assessed suite) as UTF-8 HTML bytes; ``home``: a relative link back to the
    site's overview, when part of one."""
    sections = []
    for doc in docs:
        methods, benchmarks, cells = matrix(doc)
        sections.append({
            "doc": doc,
            "abs": abs_table(doc), "methods": methods_table(doc), "variability": variability_table(doc),
            "matrix_benchmarks": benchmarks,
            "matrix_rows": [{"method": m, "cells": [{"text": cell_text(cells.get((m, b))),
                                                     "state": _state(cells.get((m, b)))} for b in benchmarks]}
                            for m in methods],
            "plot": Markup(variability_plot(doc["variability"]["benchmarks"])) if doc["variability"]["benchmarks"]
            else None,
            "cost": cost_lines(doc), "smoke": smoke_lines(doc), "variant_titles": VARIANT_TITLES,
            "matrix_title": matrix_title(doc),
        })
    html = environment().get_template("assess.html.j2").render(
        version=__version__, home=home, sections=sections, data_json=json_for_script({"v": 1, "suites": list(docs)}))
    return html.encode()


def _state(cell: Mapping[str, Any] | None) -> str:
    if cell is None:
        return "not-run"
    if cell.get("outcome") in ("undecided", "overshot"):
        return "undecided"
    return "detected" if cell["detected"] else "missed"
