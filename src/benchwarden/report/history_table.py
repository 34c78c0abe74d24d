"""The tables of ``benchwarden history``: one row per series, one row per change point (terminal and Markdown).

Nothing here computes statistics: every number comes from the
:class:`~benchwarden.history.analysis.SeriesHistory` it is given.  At 80 columns the machine, the run counts and
the commit subject go first (report.table.fit names what it left out).
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from benchwarden.history.analysis import SeriesHistory
from benchwarden.report.comparison_table import fmt_interval, fmt_p, fmt_ratio
from benchwarden.report.escaping import visible
from benchwarden.report.table import Column, TableModel, fmt_number, fmt_percent
from benchwarden.units import from_ns_per_op

SHORT_SHA = 8


def series_table(histories: Sequence[SeriesHistory], title: str | None = None) -> TableModel:
    """Per series: benchmark, machine, commits, the newest level with its 95 % interval, noise, change points."""
    model = TableModel(
        columns=[Column("benchmark", names=True), Column("machine", drop=3), Column("commits", "right"),
                 Column("level now", "right"), Column("95% CI", "right", drop=1), Column("unit"),
                 Column("noise", "right", drop=2), Column("changes", "right")],
        title=title)
    for h in histories:
        s = h.series
        finite = 0 < h.level.low and math.isfinite(h.level.high)
        bounds = sorted(_display(v, s) for v in (h.level.low, h.level.high)) if finite else []
        model.add([visible(s.benchmark), visible(s.machine_key), str(len(s.points)),
                   fmt_number(_display(h.level.point, s)),
                   f"[{fmt_number(bounds[0])}, {fmt_number(bounds[1])}]" if bounds else "n/a", visible(s.unit),
                   fmt_percent(h.detection.runs.noise), str(len(h.changes))],
                  style="bold" if h.changes else None)
    return model


def changes_table(histories: Sequence[SeriesHistory], title: str | None = None,
                  confirmations: Mapping[tuple[str, str, str], str] | None = None) -> TableModel:
    """Per change point: benchmark, the commit range, slower/faster, the time ratio and its interval, p, runs;
    with ``confirmations`` ((benchmark, machine key, after commit) -> state) a column of what re-measuring said."""
    columns = [Column("benchmark", names=True), Column("commits"), Column("change"),
               Column("ratio", "right"), Column("interval", "right", drop=3), Column("p", "right", drop=2),
               Column("n", "right", drop=1), Column("subject", names=True, drop=0)]
    if confirmations is not None:
        columns.insert(3, Column("re-measured"))
    model = TableModel(columns=columns, title=title)
    for h in histories:
        for c in h.changes:
            t = c.test
            cells = [visible(h.series.benchmark), f"{c.before.commit[:SHORT_SHA]}..{c.after.commit[:SHORT_SHA]}",
                     _direction(h.series.metric, t.ratio.point), fmt_ratio(t.ratio.point),
                     fmt_interval(t.ratio.low, t.ratio.high), fmt_p(t.p_value), f"{t.runs_before}+{t.runs_after}",
                     visible(c.after.subject or "")]
            if confirmations is not None:
                cells.insert(3, confirmations.get((h.series.benchmark, h.series.machine_key, c.after.commit), "-"))
            model.add(cells, style="bold red" if t.ratio.point > 1 else "green")
    return model


PRIMARY_METRICS = ("time", "cpu", "instructions")


def _display(value: float, series) -> float:
    """A level in the series' own unit: primary metrics are ns/op inside (ops/s shown as such); a secondary
    metric's values are its own, inverted when higher is better (history/series.py)."""
    if series.metric in PRIMARY_METRICS:
        return from_ns_per_op(value, series.unit)
    return 1.0 / value if series.direction == "higher" and value else value


def _direction(metric: str, ratio: float) -> str:
    """slower/faster for the time-like primary metrics, worse/better for the others (a step up is worse)."""
    if metric in PRIMARY_METRICS:
        return "slower" if ratio > 1 else "faster"
    return "worse" if ratio > 1 else "better"
