"""The HTML report of a comparison: a single static page with inline SVG plots and the data as JSON.

* Offline by construction: CSS embedded, plots are inline SVG drawn by matplotlib
  (:mod:`.plots`), no scripts run (a Content-Security-Policy of ``default-src 'none'`` says so to the
  browser), no fonts, images or CDNs.
* Every piece of user data (benchmark names, labels, messages) goes through jinja2 autoescaping;
  the embedded JSON (``<script type="application/json" id="benchwarden-data">``) has ``<``, ``>``
  and ``&`` written as ``\\u003c``/``\\u003e``/``\\u0026``, so no name can close the element.
* Templates (``report/templates/base.html.j2`` + ``report.css``) are package data and meant to be
  shared by other reports (assess): extend ``base.html.j2``, fill ``header``/``content``, pass
  ``version`` and ``data_json``.

Plots: a forest plot of all ratios with their intervals and bands; per benchmark the distribution of
every iteration of both versions and the fork means by pair.  Values are converted from ns/op back to
the benchmark's own unit for display only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from benchwarden import __version__
from benchwarden.compare.result import BenchmarkComparison, Comparison
from benchwarden.compare.verdict import Verdict
from benchwarden.report import plots
from benchwarden.report.comparison_table import (
    comparison_table,
    fmt_change,
    fmt_interval,
    fmt_mde,
    fmt_p,
    fmt_ratio,
    fmt_threshold,
    fmt_verdict,
    ordered,
)
from benchwarden.report.escaping import visible
from benchwarden.report.explain_table import explanation_summary, explanation_table, shown_nodes
from benchwarden.report.json_export import comparison_to_dict
from benchwarden.report.metrics_table import metrics_table
from benchwarden.units import format_duration, from_ns_per_op

if TYPE_CHECKING:
    from benchwarden.codelevel.explain import Explanation

_OPEN = (Verdict.SLOWER, Verdict.FASTER, Verdict.ERROR, Verdict.INCONCLUSIVE)


def environment() -> jinja2.Environment:
    """The report templates, autoescaped (every ``{{ }}`` is HTML-escaped unless it is Markup); plain strings
    show control characters as escapes (:func:`benchwarden.report.escaping.visible`)."""
    return jinja2.Environment(loader=jinja2.PackageLoader("benchwarden.report", "templates"),
                              autoescape=True, trim_blocks=True, lstrip_blocks=True,
                              undefined=jinja2.StrictUndefined, finalize=_visible_text)


def _visible_text(value: Any) -> Any:
    return visible(value, keep_newlines=True) if isinstance(value, str) and not isinstance(value, Markup) else value


def json_for_script(payload: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>``, ``&`` or line separators."""
    text = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for raw, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("\u2028", "\\u2028"),
                         ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return Markup(text)


def _display(values_ns: list[float], unit: str) -> list[float]:
    return [from_ns_per_op(v, unit) for v in values_ns]


@dataclass(frozen=True)
class _LookRow:
    pairs: int
    level: str
    ratio: str
    ci: str
    equivalence: str
    p: str
    mde: str
    verdict: str


def _section(index: int, r: BenchmarkComparison) -> dict[str, Any]:
    distribution = fork_means = None
    if r.base_ns and r.candidate_ns:
        base_flat = _display([v for f in r.base_ns for v in f], r.unit)
        cand_flat = _display([v for f in r.candidate_ns for v in f], r.unit)
        distribution = Markup(plots.distribution_plot(base_flat, cand_flat, r.unit))
        base_means = _display([sum(f) / len(f) for f in r.base_ns], r.unit)
        cand_means = _display([sum(f) / len(f) for f in r.candidate_ns], r.unit)
        fork_means = Markup(plots.fork_means_plot(base_means, cand_means, r.unit))
    looks = [_LookRow(k.pairs, f"{k.confidence:.2%}", fmt_ratio(k.ratio), fmt_interval(k.low, k.high),
                      fmt_interval(k.equivalence_low, k.equivalence_high), fmt_p(k.p_value), fmt_mde(k.mde),
                      k.verdict.value) for k in r.looks]
    return {
        "r": r, "anchor": f"b{index}", "open": r.verdict in _OPEN, "verdict_text": fmt_verdict(r),
        "ratio": fmt_ratio(r.ratio), "ci": fmt_interval(r.ci_low, r.ci_high), "change": fmt_change(r),
        "level": f"{r.confidence:.2%}" if r.confidence else "-", "p": fmt_p(r.p_value),
        "threshold": fmt_threshold(r.threshold), "min_change": f"{r.min_change:.1%}",
        "mde": fmt_mde(r.mde), "mean_ratio": fmt_ratio(r.mean_ratio),
        "equivalence": fmt_interval(r.equivalence_low, r.equivalence_high),
        "equivalence_level": f"{r.equivalence_confidence:.2%}" if r.equivalence_confidence else "-",
        "pairs_needed": r.pairs_needed, "rank_test": "Wilcoxon signed-rank on pairs" if r.paired
        else "Mann-Whitney on forks",
        "order": " ".join(r.order) or "-", "time": format_duration(r.time_s),
        "confirmations": ", ".join(v.value for v in r.confirmations), "looks": looks,
        "distribution_svg": distribution, "fork_means_svg": fork_means,
    }


def _design_text(c: Comparison) -> str:
    d = c.design
    if d.get("fixed_sample"):
        return (f"fixed sample of two stored runs (unpaired), {float(d['confidence']):.1%} intervals for changes, "
                f"{float(d.get('equivalence_confidence', d['confidence'])):.0%} for 'unchanged'")
    parts = [f"{float(d['confidence']):.1%} repeated confidence intervals for changes" if "confidence" in d else "",
             f"{float(d['equivalence_confidence']):.0%} for 'unchanged'" if "equivalence_confidence" in d else "",
             f"{d['spending']} alpha spending" if "spending" in d else "",
             f"{d['min_pairs']}–{d['max_pairs']} fork pairs" if "min_pairs" in d else "",
             f"rank test α = {d['rank_alpha']}" if "rank_alpha" in d else "",
             f"minimum change {float(d['min_change']):.1%}" if "min_change" in d else "",
             f"seed {d['seed']}" if "seed" in d else ""]
    return ", ".join(p for p in parts if p)


def _explanation(e: Explanation) -> dict[str, Any]:
    table = explanation_table(e)
    shown = shown_nodes(e)
    return {"e": e, "summary": explanation_summary(e), "table": table,
            "rows": [(row, n.depth, n.path in e.causes) for row, n in zip(table.rows, shown)]}


def comparison_html(c: Comparison, home: str | None = None) -> bytes:
    """The report as UTF-8 HTML bytes; ``home``: a relative link back to the site's overview, when part of one."""
    results = ordered(c.benchmarks)
    anchors = {r.name: f"b{i}" for i, r in enumerate(results)}
    rows = [plots.ForestRow(visible(r.name), r.ratio, r.ci_low, r.ci_high, r.threshold or 0.0, r.verdict.value)
            for r in results if r.ratio is not None and r.ci_low is not None and r.ci_high is not None]
    table = comparison_table(results)
    table_rows = [{"cells": cells, "anchor": anchors[r.name], "verdict": r.verdict.value}
                  for cells, r in zip(table.rows, results)]
    gate_text = {"pass": "no regression", "regression": f"{len(c.failures)} regression(s)",
                 "error": "incomplete: something could not be compared"}[c.gate]
    machine = ", ".join(f"{k} {v}" for k, v in c.machine.items() if k in ("cpu", "cores", "os"))
    html = environment().get_template("compare.html.j2").render(
        c=c, version=__version__, home=home, gate_text=gate_text, counts=list(c.counts().items()),
        design_text=_design_text(c), machine_time=format_duration(c.machine_time_s),
        elapsed=format_duration(c.elapsed_s) if c.elapsed_s else "", machine=machine,
        forest_svg=Markup(plots.forest_plot(rows)) if rows else None, table=table, table_rows=table_rows,
        metrics_table=metrics_table(results, c.fail_on) if any(r.metrics for r in results) else None,
        fail_on=", ".join(c.fail_on),
        unmatched=list(c.unmatched), failed_suites=list(c.failed_suites.items()), not_affected=list(c.not_affected),
        sections=[_section(i, r) for i, r in enumerate(results)], explanations=[_explanation(e) for e in c.explanations],
        data_json=json_for_script(comparison_to_dict(c)))
    return html.encode()
