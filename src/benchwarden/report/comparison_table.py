"""The comparison table model (one builder for terminal, Markdown and HTML) and its cell formatting.

Rows are ordered by what needs attention: slower, errors, faster, inconclusive, unchanged, skipped;
then by name.  Nothing here computes statistics: every number comes from the
:class:`~benchwarden.compare.result.BenchmarkComparison` it is given.
"""

from __future__ import annotations

from typing import Callable, Sequence

from benchwarden.compare.result import BenchmarkComparison
from benchwarden.compare.verdict import Verdict
from benchwarden.report.table import Column, TableModel
from benchwarden.units import format_duration

VERDICT_ORDER = (Verdict.SLOWER, Verdict.ERROR, Verdict.FASTER, Verdict.INCONCLUSIVE, Verdict.UNCHANGED,
                 Verdict.SKIPPED)
VERDICT_STYLE = {Verdict.SLOWER: "bold red", Verdict.ERROR: "red", Verdict.FASTER: "green",
                 Verdict.INCONCLUSIVE: "yellow", Verdict.UNCHANGED: None, Verdict.SKIPPED: "dim"}


def ordered(results: Sequence[BenchmarkComparison]) -> list[BenchmarkComparison]:
    """Results by verdict priority (regressions first), then by name."""
    rank = {v: i for i, v in enumerate(VERDICT_ORDER)}
    return sorted(results, key=lambda r: (rank[r.verdict], r.name))


def fmt_ratio(value: float | None) -> str:
    if value is None:
        return "-"
    if value == float("inf"):
        return "inf"
    return f"{value:.3f}"


def fmt_interval(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "-"
    return f"[{fmt_ratio(low)}, {fmt_ratio(high)}]"


def fmt_change(result: BenchmarkComparison) -> str:
    """The change in the benchmark's own unit: ``+12.5% ns/op``, ``-11.1% ops/s``."""
    change = result.display_change()
    if change is None:
        return "-"
    return f"{change * 100:+.1f}% {result.unit}"


def fmt_p(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if value >= 0.001 else "<0.001"


def fmt_threshold(value: float | None) -> str:
    return "-" if value is None else f"±{value * 100:.1f}%"


def fmt_mde(value: float | None) -> str:
    """The minimal detectable change (80 % power) of the final look: ``4.2%``; ``-`` when unknown."""
    if value is None or value != value:
        return "-"
    if value == float("inf"):
        return "inf"
    return f"{value * 100:.1f}%"


def fmt_verdict(result: BenchmarkComparison) -> str:
    text = result.verdict.value
    if result.confirmations:
        agreed = sum(1 for v in result.confirmations if v is Verdict.SLOWER)
        text += f" (confirmed {agreed}/{len(result.confirmations)})"
    return text


def comparison_table(results: Sequence[BenchmarkComparison], title: str | None = None,
                     escape: Callable[[str], str] = lambda s: s) -> TableModel:
    """Columns: benchmark, verdict, ratio (candidate/base time), CI, change, threshold, MDE, forks, time.

    MDE: the smallest change the forks measured could have detected (80 % power); beside the
    threshold it says whether "inconclusive" means "too noisy for this budget".

    ``escape`` is applied to user data (benchmark names) for the output format (e.g. Markdown).
    """
    # At 80 columns the least needed go first (time, forks, threshold, change, then the interval); the
    # verdict, the ratio and the MDE stay: they say what happened and what could have been seen.
    model = TableModel(columns=[
        Column("benchmark"), Column("verdict"), Column("ratio", "right"), Column("CI", "right", drop=5),
        Column("change", "right", drop=4), Column("threshold", "right", drop=3), Column("MDE", "right"),
        Column("forks", "right", drop=2), Column("time", "right", drop=1)], title=title)
    for r in ordered(results):
        model.add([escape(r.name), fmt_verdict(r), fmt_ratio(r.ratio), fmt_interval(r.ci_low, r.ci_high),
                   fmt_change(r), fmt_threshold(r.threshold), fmt_mde(r.mde),
                   f"{len(r.base_ns)}+{len(r.candidate_ns)}", format_duration(r.time_s)],
                  style=VERDICT_STYLE[r.verdict])
    return model


def machine_line(result: BenchmarkComparison) -> str | None:
    """For pairs that ran on several machines (a cluster): each machine's pairs and ratio, and how much the change
    differs between machines; None otherwise."""
    spread = result.machines
    if spread is None:
        return None
    each = ", ".join(f"{m} ×{c:.3f} ({n} pair{'s' if n > 1 else ''})"
                     for m, c, n in zip(spread.machines, spread.centers, spread.counts))
    test = "" if spread.p_value != spread.p_value else f", p = {spread.p_value:.2g}"
    return (f"machines of {result.name}: {each}; the change differs between machines by ±{spread.between:.1%}"
            f"{test}")
