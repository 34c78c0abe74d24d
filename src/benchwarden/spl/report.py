"""What a check shows: per assertion its verdict, its expansion, and each comparison's numbers.

Everything here turns an already-evaluated :class:`~benchwarden.spl.evaluate.CheckOutcome` into
text lines, :class:`~benchwarden.report.table.TableModel` tables, a JSON-ready dict and JUnit cases;
nothing computes statistics, nothing prints.
"""

from __future__ import annotations

import math
from typing import Any

from benchwarden.report.junit import JUnitCase
from benchwarden.report.summary import machine_level_line
from benchwarden.report.table import Column, TableModel, fmt_time
from benchwarden.spl.evaluate import CheckOutcome, Collected
from benchwarden.spl.expand import format_ns
from benchwarden.spl.logic import Truth
from benchwarden.spl.verdicts import AssertionResult, NodeResult, RelationResult

MARK = {Truth.HOLDS: "✔ holds", Truth.FAILS: "✘ FAILS", Truth.UNDECIDED: "? undecided"}
STYLE = {Truth.HOLDS: "green", Truth.FAILS: "bold red", Truth.UNDECIDED: "yellow"}


def fmt_p(p: float) -> str:
    if math.isnan(p):
        return "-"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def expansion_lines(node: NodeResult, depth: int = 0, prefix: str | None = None) -> list[tuple[str, Truth]]:
    """The evaluated expansion as indented lines with their verdicts (a single comparison: one line)."""
    lines = [("  " * depth + short(node.label, prefix), node.verdict)]
    for child in node.children:
        lines.extend(expansion_lines(child, depth + 1, prefix))
    return lines


def short(text: str, prefix: str | None) -> str:
    """``text`` without the suite prefix (``wordstat:``) when every benchmark is in that one suite."""
    return text.replace(prefix, "") if prefix else text


def suite_prefix(outcome: CheckOutcome) -> str | None:
    """``"suite:"`` when all measured instances belong to one suite (labels then omit it), else None."""
    suites = {i.benchmark.suite for i in outcome.instances}
    return f"{next(iter(suites))}:" if len(suites) == 1 else None


def comparison_table(result: AssertionResult, prefix: str | None = None) -> TableModel:
    """One row per comparison: means of both (transformed) sides, the interval of their difference, p."""
    table = TableModel(columns=[Column("comparison"), Column("left", "right"), Column("right", "right"),
                                Column(f"left − right ({_confidence(result.alpha_per_look)})", "right"),
                                Column("p fails", "right"), Column("p holds", "right"), Column("verdict")])
    for c in result.comparisons:
        row = _row(c)
        row[0] = short(row[0], prefix)
        table.add(row, style=STYLE[c.verdict])
    return table


def _confidence(alpha: float) -> str:
    return f"{(1 - 2 * alpha) * 100:.4g}% CI"


def _row(c: RelationResult) -> list[str]:
    if c.stats is None:
        return [c.comparison.text, "-", "-", "-", "-", "-", f"{c.verdict.value}: {c.note}"]
    s = c.stats
    interval = f"{fmt_time(s.difference_ns)} [{fmt_time(s.low_ns)}, {fmt_time(s.high_ns)}]"
    return [c.comparison.text, fmt_time(s.left_mean_ns), fmt_time(s.right_mean_ns), interval, fmt_p(s.p_fails),
            fmt_p(s.p_holds), c.verdict.value]


def assertion_header(result: AssertionResult) -> str:
    a = result.assertion
    return (f"{MARK[result.verdict]}  {a.name}  {a.text}  "
            f"[{result.interpretation}, α={result.alpha:g} (per look {result.alpha_per_look:.3g})"
            + (f", margin {result.margin:g}" if any(c.comparison.op == "=" for c in result.comparisons) else "")
            + "]")


def warnings_of(result: AssertionResult, prefix: str | None = None) -> list[str]:
    """Caveats of the comparisons, each once (prefixed by its comparison when there are several)."""
    out: list[str] = []
    for c in result.comparisons:
        if c.stats is None:
            continue
        for w in c.stats.warnings:
            text = w if len(result.comparisons) == 1 else f"{short(c.comparison.text, prefix)}: {w}"
            if text not in out:
                out.append(text)
    return out


def instance_table(outcome: CheckOutcome) -> TableModel:
    """What was measured: per instance its source, forks (reused + new) and mean of fork means."""
    table = TableModel(columns=[Column("benchmark"), Column("code"), Column("forks", "right"),
                                Column("reused", "right"), Column("mean", "right"), Column("runs")],
                       title="measurements")
    for instance, collected in outcome.instances.items():
        reused = sum(1 for _ in collected.reused_runs)
        means = [sum(f) / len(f) for f in collected.forks if f]
        mean = sum(means) / len(means) if means else math.nan
        runs = ", ".join(str(r) for r in sorted(set(collected.reused_runs + collected.measured_runs)))
        table.add([short(str(instance.benchmark), suite_prefix(outcome)), outcome.sources[instance].label, str(len(collected.forks)),
                   f"{reused} run(s)" if reused else "-", fmt_time(mean), runs or "-"],
                  style="red" if collected.failure else None)
    return table


def machine_lines(outcome: CheckOutcome) -> list[str]:
    """One line per instance whose forks ran on several machines (a cluster, docs/distributed.md): each machine's
    mean of fork means, and the spreads between machines and between forks on one machine."""
    lines = []
    for instance, collected in outcome.instances.items():
        spread = collected.machine_level()
        if spread is None:
            continue
        name = f"{short(str(instance.benchmark), suite_prefix(outcome))} ({outcome.sources[instance].label})"
        lines.append(machine_level_line(name, spread, fmt_time))
    return lines


def summary_line(outcome: CheckOutcome) -> str:
    counts = {v: sum(1 for a in outcome.assertions if a.verdict is v) for v in Truth}
    return (f"{len(outcome.assertions)} assertion(s): {counts[Truth.HOLDS]} hold, {counts[Truth.FAILS]} fail, "
            f"{counts[Truth.UNDECIDED]} undecided; {len(outcome.instances)} benchmark instance(s), "
            f"{sum(len(c.forks) for c in outcome.instances.values())} fork(s), "
            f"{outcome.rounds} extra round(s), runs {', '.join(map(str, outcome.runs)) or 'none (all reused)'}")


# -- machine-readable ---------------------------------------------------------------------------------

def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else x


def _machines_json(collected: Collected) -> dict[str, Any] | None:
    spread = collected.machine_level()
    return None if spread is None else spread.to_json()


def _node_json(node: NodeResult) -> dict[str, Any]:
    out: dict[str, Any] = {"label": node.label, "verdict": node.verdict.value}
    if node.children:
        out["children"] = [_node_json(c) for c in node.children]
    return out


def _comparison_json(c: RelationResult) -> dict[str, Any]:
    cmp = c.comparison
    out: dict[str, Any] = {
        "comparison": cmp.text, "op": cmp.op, "verdict": c.verdict.value, "note": c.note,
        "left": {"instance": cmp.left.instance.label if cmp.left.instance else None,
                 "scale": cmp.left.transform.scale, "offset_ns": cmp.left.transform.offset_ns,
                 "constant_ns": cmp.left.constant_ns if cmp.left.instance is None else None},
        "right": {"instance": cmp.right.instance.label if cmp.right.instance else None,
                  "scale": cmp.right.transform.scale, "offset_ns": cmp.right.transform.offset_ns,
                  "constant_ns": cmp.right.constant_ns if cmp.right.instance is None else None},
    }
    if c.stats is not None:
        s = c.stats
        out.update({"left_mean_ns": _num(s.left_mean_ns), "right_mean_ns": _num(s.right_mean_ns),
                    "difference_ns": _num(s.difference_ns), "low_ns": _num(s.low_ns), "high_ns": _num(s.high_ns),
                    "p_fails": _num(s.p_fails), "p_holds": _num(s.p_holds), "df": _num(s.df),
                    "warnings": list(s.warnings)})
    return out


def to_json(outcome: CheckOutcome) -> dict[str, Any]:
    """The whole outcome as plain JSON types (the output of ``check --json``)."""
    return {
        "verdict": outcome.verdict.value,
        "assertions": [{
            "name": a.assertion.name, "text": a.assertion.text, "verdict": a.verdict.value,
            "interpretation": a.interpretation, "alpha": a.alpha, "alpha_per_look": a.alpha_per_look,
            "margin": a.margin, "expansion": _node_json(a.root),
            "comparisons": [_comparison_json(c) for c in a.comparisons],
        } for a in outcome.assertions],
        "instances": [{
            "instance": i.label, "source": outcome.sources[i].label, "commit": outcome.sources[i].commit,
            "forks": len(c.forks), "reused_runs": c.reused_runs, "measured_runs": c.measured_runs,
            "failure": c.failure, "machines": _machines_json(c),
        } for i, c in outcome.instances.items()],
        "runs": outcome.runs, "rounds": outcome.rounds, "elapsed_s": round(outcome.elapsed_s, 3),
        "errors": outcome.errors,
    }


def junit_cases(outcome: CheckOutcome, strict: bool = False) -> list[JUnitCase]:
    """One case per assertion: fails -> failure, undecided -> skipped (failure with ``strict``), a benchmark
    that could not be measured -> error."""
    failed_labels = {i.label for i, c in outcome.instances.items() if c.failure}
    cases = []
    for a in outcome.assertions:
        details = "\n".join(line for line, _ in expansion_lines(a.root))
        details += "\n\n" + "\n".join(" | ".join(_row(c)) for c in a.comparisons)
        broken = [i.label for i in a.assertion.instances if i.label in failed_labels]
        if broken:
            outcome_name, message = "error", f"could not measure {', '.join(broken)}"
        elif a.verdict is Truth.FAILS:
            outcome_name, message = "failure", f"assertion fails: {a.assertion.text}"
        elif a.verdict is Truth.UNDECIDED:
            outcome_name = "failure" if strict else "skipped"
            message = f"undecided (not enough evidence either way): {a.assertion.text}"
        else:
            outcome_name, message = "passed", ""
        cases.append(JUnitCase(name=f"{a.assertion.name}: {a.assertion.text}", classname="benchwarden.check",
                               outcome=outcome_name, message=message, details=details))  # type: ignore[arg-type]
    return cases


__all__ = ["assertion_header", "comparison_table", "expansion_lines", "format_ns", "instance_table",
           "junit_cases", "summary_line", "to_json", "warnings_of"]
