"""Tables of an assessment, built from its JSON document (``assess.export``), for the terminal and HTML.

Nothing here computes: it formats what the assessment decided.
"""

from __future__ import annotations

from typing import Any, Mapping

from benchwarden.report.table import Column, TableModel, fmt_number, fmt_percent
from benchwarden.units import format_duration

VARIANT_TITLES = {"total": "total (all benchmarks)", "relative": "relative (without the worst 5 % by maxSpread)",
                  "absolute": "absolute (without maxSpread > 50 %)"}


def abs_table(doc: Mapping[str, Any]) -> TableModel:
    n = len(doc["methods"]["selected"])
    model = TableModel([Column("ABS variant"), Column("score", "right"), Column("covered", "right"),
                        Column("excluded benchmarks", "right")], title="API benchmarking score")
    for v in doc["abs"]["variants"]:
        model.add([VARIANT_TITLES.get(v["name"], v["name"]), f"{v['score']:.0f}%", f"{len(v['covered'])}/{n}",
                   str(len(v["excluded"]))])
    return model


def methods_table(doc: Mapping[str, Any]) -> TableModel:
    sequential = doc.get("rule") == "compare"
    columns = [Column("method"), Column("covered"), Column("detected by")]
    if sequential:
        columns += [Column("detects from", "right"), Column("not detectable at this budget")]
    model = TableModel(columns + [Column("reached by", "right")],
                       title=f"K′: {len(doc['abs']['methods'])} methods (slowed by {fmt_slowdown(doc['slowdown']['v'])}), "
                             f"uncovered first")
    for m in doc["abs"]["methods"]:
        detected = ", ".join(m["detected_by"]) or (m["error"] or "-")
        row = [m["method"], "yes" if m["covered"] else "NO", detected]
        if sequential:
            at_least = m.get("detection_threshold_at_least")
            threshold = fmt_slowdown(m.get("detection_threshold")) if at_least is None else f"≥ {fmt_slowdown(at_least)}"
            row += [threshold, ", ".join(m.get("undecided_by") or ()) or "-"]
        model.add(row + [str(len(m["reached_by"]))], style=None if m["covered"] else "red")
    return model


def fmt_slowdown(value: float | None) -> str:
    """A relative slowdown: ``10%``, ``3.5%``, ``240%``; ``-`` when unknown."""
    if value is None:
        return "-"
    return f"{value:.1%}" if value < 0.1 else f"{value:.0%}"


def variability_table(doc: Mapping[str, Any]) -> TableModel:
    var = doc["variability"]
    model = TableModel([Column("benchmark"), Column("maxSpread", "right"), Column("bucket"), Column("CV", "right"),
                        Column("RCIW", "right"), Column("threshold", "right"), Column("time/run", "right"),
                        Column("stability")],
                       title=f"variability over {var['runs']} runs")
    for b in var["benchmarks"]:
        model.add([b["key"], fmt_percent(b["max_spread"]), b["bucket"], fmt_percent(b["cv"]), fmt_percent(b["rciw"]),
                   fmt_percent(b["recommended_threshold"], 0),
                   format_duration(b["expected_s"]) if b["expected_s"] is not None else "-",
                   "UNSTABLE: " + "; ".join(b["reasons"]) if b["unstable"] else "stable"],
                  style="yellow" if b["unstable"] else None)
    return model


def matrix(doc: Mapping[str, Any]) -> tuple[list[str], list[str], dict[tuple[str, str], dict[str, Any]]]:
    """(methods, benchmarks, cells): a cell per (method, benchmark) that ran slowed."""
    methods = [m["method"] for m in doc["abs"]["methods"]]
    benchmarks = [b["key"] for b in doc["variability"]["benchmarks"]]
    cells = {(d["method"], d["benchmark"]): d for d in doc["detections"]}
    return methods, benchmarks, cells


MARKS = {"detected": "✓ ", "not detected": "· ", "undecided": "? ", "overshot": "! "}


def cell_text(cell: Mapping[str, Any] | None) -> str:
    """``✓ +9.8%``: the outcome's mark and the benchmark's change (the study's rule: the smaller of its
    repetitions'); ``?`` = not detectable at this budget."""
    if cell is None:
        return ""
    if cell.get("ratio") is not None:
        change = f"{cell['ratio'] - 1:+.1%}"
    else:
        changes = [c["relative_change"] for c in cell["repetitions"] if c["relative_change"] is not None]
        change = f"{min(changes, key=abs):+.1%}" if changes else ""
    return MARKS.get(cell.get("outcome", ""), "✓ " if cell["detected"] else "· ") + change


def matrix_title(doc: Mapping[str, Any]) -> str:
    if doc.get("rule") == "compare":
        return ("detection matrix (✓ compare would call the benchmark slower, · its change is surely below "
                "compare's threshold, ? not detectable at this budget, ! injection overshot: the benchmark changed "
                "by more than v; the benchmark's measured change)")
    return ("detection matrix (✓ detected in every repetition, · ran slowed but not detected; the smaller change "
            "of the repetitions)")


def matrix_table(doc: Mapping[str, Any]) -> TableModel:
    methods, benchmarks, cells = matrix(doc)
    model = TableModel([Column("method")] + [Column(b, "right") for b in benchmarks], title=matrix_title(doc))
    for m in methods:
        model.add([m] + [cell_text(cells.get((m, b))) for b in benchmarks])
    return model


def cost_lines(doc: Mapping[str, Any]) -> list[str]:
    c = doc["cost"]
    ratio = f"{c['ratio']:.0%}" if c["ratio"] is not None else "-"
    return [
        f"machine time for ABS: {format_duration(c['used_s'])} (tracing {format_duration(c['trace_s'])}, preparing "
        f"{format_duration(c['prepare_s'])}{_variants(c)}, slowed runs {format_duration(c['injected_s'])}) against "
        f"{format_duration(c['study_s'])} for the study's {c['study_runs']} full-suite runs of "
        f"{format_duration(c['full_run_s'])} each: {ratio}",
        f"variability runs taken now: {format_duration(c['variability_s'])}; wall time {format_duration(c['wall_s'])}",
    ]


def _variants(cost: Mapping[str, Any]) -> str:
    """' for 3 slowed variants of 6 methods' when methods shared variants (group testing); else nothing."""
    variants, methods = cost.get("variants"), cost.get("methods")
    if not variants or not methods or variants >= methods:
        return ""
    return f" for {variants} slowed variant{'s' if variants != 1 else ''} of {methods} methods"


def precision_lines(doc: Mapping[str, Any]) -> list[str]:
    """One line on how precisely v was injected (the helpers' self-report; see docs/assess.md)."""
    measured = doc.get("injection_precision") or {}
    if not measured:
        return []
    imprecise = [m for m, p in measured.items() if not p["precise"]]
    clock = max(p["clock_ns"] for p in measured.values())
    line = (f"injection precision: {len(measured) - len(imprecise)} of {len(measured)} method(s) slowed within "
            f"±20 % of v (clock read {clock:.0f} ns here)")
    if imprecise:
        line += f"; too short for that: {', '.join(imprecise)}"
    return [line]


def smoke_lines(doc: Mapping[str, Any]) -> list[str]:
    s = doc["smoke"]
    if not s["covered"] and not s["not_covered"]:
        return ["smoke subset: no method is covered, so there is nothing for a smoke subset to keep"]
    lines = [f"smoke subset ({format_duration(s['expected_s'])} of {format_duration(s['budget_s'])} budget): "
             f"{', '.join(s['benchmarks']) or '-'} — detects {len(s['covered'])} covered method(s)"]
    if s["not_covered"]:
        lines.append(f"  not within the budget: {', '.join(s['not_covered'])}")
    return lines


def fmt_calls(n: int | None) -> str:
    return fmt_number(float(n), 6) if n is not None else "-"
