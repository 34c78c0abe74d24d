"""The metrics table of a comparison (one builder for terminal, Markdown and HTML): every metric beside the primary.

One row per benchmark and metric: both versions' typical values in the metric's own unit, the change,
the verdict and the rule that decided it, and whether the metric gates (``[compare] fail_on``).  Rows
that need attention come first (worse, then missing, better, inconclusive, unchanged, shown).
Nothing is computed here: every number comes from the
:class:`~benchwarden.compare.metrics.MetricComparison` it is given.
"""

from __future__ import annotations

from typing import Callable, Sequence

from benchwarden.compare.metrics import MetricComparison, MetricVerdict
from benchwarden.compare.result import BenchmarkComparison
from benchwarden.metrics.catalog import Rule
from benchwarden.report.table import Column, TableModel, fmt_number

ORDER = (MetricVerdict.WORSE, MetricVerdict.MISSING, MetricVerdict.BETTER, MetricVerdict.INCONCLUSIVE,
         MetricVerdict.UNCHANGED, MetricVerdict.SHOWN)


def fmt_rule(m: MetricComparison) -> str:
    """How the verdict was reached: ``exact``, ``exact ±0.5%``, ``noisy ±3.0%``, ``shown``."""
    if m.rule is Rule.EXACT:
        return "exact" if not m.tolerance else f"exact ±{m.tolerance * 100:.1f}%"
    if m.rule is Rule.NOISY:
        return "noisy" if m.threshold is None else f"noisy ±{m.threshold * 100:.1f}%"
    return "shown"


def fmt_value(value: float | None) -> str:
    """A metric's value: whole numbers (counts) as integers with separators, others to 4 significant digits."""
    if value is not None and float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return fmt_number(value)


def fmt_metric_change(m: MetricComparison) -> str:
    if m.base is None or m.candidate is None:
        return "-"
    if m.base == m.candidate:
        return "0"
    change = m.display_change()
    if change is None:
        return f"{m.candidate - m.base:+g}"
    return f"{change * 100:+.1f}%"


def metric_rows(results: Sequence[BenchmarkComparison]) -> list[tuple[BenchmarkComparison, MetricComparison]]:
    """(benchmark, metric) pairs in report order: attention first, then benchmark name, then metric name."""
    rank = {v: i for i, v in enumerate(ORDER)}
    pairs = [(r, m) for r in results for m in r.metrics]
    return sorted(pairs, key=lambda p: (rank[p[1].verdict], p[0].name, p[1].name))


def metrics_table(results: Sequence[BenchmarkComparison], fail_on: Sequence[str] = ("time",),
                  title: str | None = None, escape: Callable[[str], str] = lambda s: s) -> TableModel:
    """Columns: benchmark, metric, verdict, base, candidate, unit, change, rule, gate (``fail`` when it fails
    the gate, ``yes`` when it would).  ``escape`` is applied to user data (names, labels)."""
    model = TableModel(columns=[
        Column("benchmark"), Column("metric"), Column("verdict"), Column("base", "right"),
        Column("candidate", "right"), Column("unit"), Column("change", "right"), Column("rule"), Column("gate")],
        title=title)
    for r, m in metric_rows(results):
        gated = m.name in fail_on and not r.gates(m.name)
        failing = gated and m.verdict is MetricVerdict.WORSE
        style = "bold red" if failing else "yellow" if m.verdict is MetricVerdict.WORSE else \
            "green" if m.verdict is MetricVerdict.BETTER else "dim" if m.verdict is MetricVerdict.SHOWN else None
        model.add([escape(r.name), escape(m.name), m.verdict.value, fmt_value(m.base), fmt_value(m.candidate),
                   escape(m.unit), fmt_metric_change(m), fmt_rule(m), "fail" if failing else "yes" if gated else ""],
                  style=style)
    return model
