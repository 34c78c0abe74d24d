"""Summaries of the metrics a run measured beside (or instead of) wall time, for ``show`` and ``check``.

Per benchmark: the primary metric when it is not wall time (``cpu``, ``instructions``), then every
secondary metric its harness reported (Go's ``B/op``, JMH's ``gc.alloc.rate.norm``, benchwarden's own
``cpu [ns/op]``...), each with one value per fork (the median of its measurement iterations), the
typical value (median of the fork values) and the spread between forks — which says at a glance
whether a count is deterministic (0 %) or a measured quantity.  Pure: no statistics beyond medians.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Callable, Sequence

from benchwarden.metrics.catalog import PRIMARY, Rule, metric_for
from benchwarden.model import BenchmarkResult, ForkStatus
from benchwarden.report.table import Column, TableModel, fmt_number
from benchwarden.units import from_ns_per_op


@dataclass(frozen=True)
class MetricSummary:
    """One metric of one benchmark in one run (values in ``unit``)."""

    benchmark: str
    name: str
    label: str
    unit: str
    rule: Rule
    primary: bool
    fork_values: tuple[float, ...]

    @property
    def typical(self) -> float:
        return float(statistics.median(self.fork_values))

    @property
    def spread(self) -> float | None:
        """``(max − min) / min`` over forks; None when undefined (one fork, or a zero among positives)."""
        low, high = min(self.fork_values), max(self.fork_values)
        if len(self.fork_values) < 2:
            return None
        if high == low:
            return 0.0
        return None if low <= 0 else high / low - 1.0

    def to_json(self) -> dict[str, object]:
        return {"benchmark": self.benchmark, "metric": self.name, "label": self.label, "unit": self.unit,
                "rule": self.rule.value, "primary": self.primary, "typical": self.typical, "spread": self.spread,
                "forks": list(self.fork_values)}


def summarize_metrics(result: BenchmarkResult) -> list[MetricSummary]:
    """The benchmark's non-time primary metric and every secondary metric, from its complete forks."""
    forks = [f for f in result.forks if f.status is ForkStatus.COMPLETE and f.measurement]
    if not forks:
        return []
    name = str(result.benchmark.id)
    out = []
    bench = result.benchmark
    if bench.metric != "time":
        metric = PRIMARY[bench.metric]
        values = tuple(from_ns_per_op(statistics.median(f.measurement_ns), bench.unit) for f in forks)
        out.append(MetricSummary(name, metric.name, "(primary)", bench.unit, metric.rule, True, values))
    labels = dict.fromkeys(label for f in forks for it in f.measurement for label in it.secondary)
    for label in labels:
        values = tuple(float(statistics.median(v)) for v in
                       ([it.secondary[label] for it in f.measurement if label in it.secondary] for f in forks) if v)
        if values:
            metric = metric_for(label)
            out.append(MetricSummary(name, metric.name, label, metric.unit, metric.rule, False, values))
    return out


def metric_summary_table(summaries: Sequence[MetricSummary], title: str | None = None,
                         escape: Callable[[str], str] = lambda s: s) -> TableModel:
    """Columns: benchmark, metric, value (median of fork values), unit, spread between forks, forks, rule."""
    model = TableModel(columns=[Column("benchmark"), Column("metric"), Column("value", "right"), Column("unit"),
                                Column("spread", "right"), Column("forks", "right"), Column("rule")], title=title)
    for s in summaries:
        spread = "-" if s.spread is None else f"{s.spread * 100:.2f}%"
        value = f"{int(s.typical):,}" if float(s.typical).is_integer() and abs(s.typical) < 1e15 else \
            fmt_number(s.typical)
        model.add([escape(s.benchmark), escape(s.name), value, escape(s.unit), spread, str(len(s.fork_values)),
                   "primary" if s.primary else s.rule.value], style="dim" if s.rule is Rule.SHOWN else None)
    return model
