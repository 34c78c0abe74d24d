"""Markdown for a pull-request comment: quiet and decision-oriented.

The headline says what happened; regressions and improvements come first in their own tables;
errors next; everything else (unchanged, inconclusive, skipped) is collapsed in a
``<details>`` block, so a PR where nothing changed gets a one-line comment with a fold.
Benchmark names are user data: HTML-escaped and Markdown-escaped, so a name such as
``<script>`` or ``a|b`` cannot break the table or inject markup; control characters are shown as escapes.
"""

from __future__ import annotations

from typing import Sequence

from benchwarden.compare.result import BenchmarkComparison, Comparison
from benchwarden.compare.verdict import Verdict
from benchwarden.report.comparison_table import comparison_table
from benchwarden.report.escaping import md_text
from benchwarden.report.explain_table import explanation_summary, explanation_table
from benchwarden.report.metrics_table import metrics_table
from benchwarden.report.table import to_markdown
from benchwarden.units import format_duration

__all__ = ["comparison_markdown", "md_text"]


def _section(title: str, results: Sequence[BenchmarkComparison]) -> str:
    return f"#### {title}\n\n{to_markdown(comparison_table(results, escape=md_text))}"


def _headline(c: Comparison) -> str:
    counts = c.counts()
    parts = [f"{counts[v.value]} {v.value}" for v in (Verdict.SLOWER, Verdict.FASTER, Verdict.ERROR,
                                                     Verdict.INCONCLUSIVE, Verdict.UNCHANGED, Verdict.SKIPPED)
             if v.value in counts]
    icon = {"regression": "🔴", "error": "⚠️", "pass": "🟢"}[c.gate]
    return f"### {icon} benchwarden compare: {', '.join(parts) or 'no benchmarks'}"


def _design_line(c: Comparison) -> str:
    d = c.design
    confidence = d.get("confidence")
    bits = []
    if isinstance(confidence, float):
        kind = "fixed-sample" if d.get("fixed_sample") else "repeated (sequential)"
        bits.append(f"{confidence:.1%} {kind} confidence intervals")
    if isinstance(d.get("min_change"), float):
        bits.append(f"threshold {d['min_change']:.1%}")
    bits.append(f"{format_duration(c.machine_time_s)} of forks")
    return (f"**base** {md_text(c.base.label)} → **candidate** {md_text(c.candidate.label)}  \n"
            + " · ".join(bits))


def _metrics_sections(c: Comparison) -> list[str]:
    """Metrics that fail the gate in their own table; every metric folded below."""
    if not any(r.metrics for r in c.benchmarks):
        return []
    out = []
    failing = [r for r in c.benchmarks if r.failing_metrics(c.fail_on)]
    if failing:
        rows = metrics_table(failing, c.fail_on, escape=md_text)
        keep = [i for i, row in enumerate(rows.rows) if row[-1] == "fail"]
        rows.rows, rows.row_styles = [rows.rows[i] for i in keep], [rows.row_styles[i] for i in keep]
        out += [f"#### Metrics that fail the gate (fail_on: {md_text(', '.join(c.fail_on))})", "", to_markdown(rows)]
    n = sum(len(r.metrics) for r in c.benchmarks)
    out += [f"<details><summary>{n} metric(s) beside the primary verdict</summary>", "",
            to_markdown(metrics_table(c.benchmarks, c.fail_on, escape=md_text)), "</details>", ""]
    return out


def comparison_markdown(c: Comparison) -> bytes:
    """The PR comment as UTF-8 Markdown bytes."""
    out = [_headline(c), "", _design_line(c), ""]
    slower, faster, errors = c.with_verdict(Verdict.SLOWER), c.with_verdict(Verdict.FASTER), c.errors
    if slower:
        out.append(_section("Regressions", slower))
    if faster:
        out.append(_section("Improvements", faster))
    if errors:
        out.append(_section("Errors", errors))
        out += [f"- {md_text(r.name)}: {md_text(r.message or 'failed')}" for r in errors] + [""]
    if not (slower or faster or errors):
        out += ["No benchmark changed beyond its threshold.", ""]
    out += _metrics_sections(c)
    for e in c.explanations:
        out += [f"#### Where the time went: {md_text(e.benchmark)}", "", md_text(explanation_summary(e)), ""]
        if e.nodes:
            out += [to_markdown(explanation_table(e, escape=md_text, indent="&nbsp;&nbsp;")), ""]
    rest = [r for r in c.benchmarks if r.verdict in (Verdict.UNCHANGED, Verdict.INCONCLUSIVE, Verdict.SKIPPED)]
    if rest:
        counts = ", ".join(f"{n} {v}" for v, n in c.counts().items()
                           if v in ("unchanged", "inconclusive", "skipped"))
        out += [f"<details><summary>{counts}</summary>", "", to_markdown(comparison_table(rest, escape=md_text)),
                "</details>", ""]
    for suite, message in c.failed_suites.items():
        out.append(f"- ⚠️ suite {md_text(suite)} could not be prepared: {md_text(message.splitlines()[0])}")
    for name, where in c.unmatched:
        out.append(f"- {md_text(name)}: {where}, not compared")
    if c.not_affected:
        out.append(f"- not affected by the change, not measured ({len(c.not_affected)}): "
                   + ", ".join(md_text(name) for name, _ in c.not_affected))
    if c.failed_suites or c.unmatched or c.not_affected:
        out.append("")
    out.append("<sub>ratio = candidate / base time per operation (> 1 = slower); change in the benchmark's own "
               "unit; MDE = the smallest change these forks could have detected (80 % power).</sub>")
    return ("\n".join(out) + "\n").encode()
