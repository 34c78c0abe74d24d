"""``compare --explain`` as tables: the call-tree diff of one benchmark, pruned to what explains its change.

The rows are the benchmark function, each cause (:attr:`Explanation.causes`) and the calls leading to it, in tree
order, indented by depth; a benchmark without causes shows its benchmark function and the heaviest functions it
calls. Times are per benchmark operation under the profiler (probed, or sampled for Go). One model for the
terminal, Markdown and HTML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from benchwarden.report.table import Column, TableModel, fmt_percent, fmt_time

if TYPE_CHECKING:
    from benchwarden.codelevel.explain import Explanation, NodeChange

#: rows shown under the benchmark function when nothing was found to explain the change
FALLBACK_ROWS = 5
#: causes listed at most (the tree shows their callers too)
MAX_CAUSES = 10


def shown_nodes(e: "Explanation") -> list["NodeChange"]:
    """The rows of the pruned tree, in tree order."""
    if not e.nodes:
        return []
    keep = {e.nodes[0].path}
    # the causes, and the functions that went away or appeared beside them (a replaced function's old half)
    replaced = [n.path for n in e.nodes if n.verdict.value in ("new", "gone") and n.path not in e.causes]
    for path in [*e.causes[:MAX_CAUSES], *replaced[:MAX_CAUSES]]:
        keep.update(path[:i] for i in range(1, len(path) + 1))
    if len(keep) == 1:  # nothing to follow: the heaviest calls of the benchmark function (tree order is by weight)
        keep.update([n.path for n in e.nodes if n.depth == 1][:FALLBACK_ROWS])
    return [n for n in e.nodes if n.path in keep]


def _note(e: "Explanation", n: "NodeChange") -> str:
    notes = []
    if n.path in e.causes:
        notes.append(f"cause #{e.causes.index(n.path) + 1}")
    if n.short:
        notes.append(f"short: {fmt_time(n.per_call_ns)}/call, too short to trust")
    return "; ".join(notes)


def explanation_table(e: "Explanation", escape: Callable[[str], str] = lambda s: s, indent: str = "  ") -> TableModel:
    """The pruned call-tree diff of one explained benchmark; ``indent`` per depth (Markdown: ``&nbsp;&nbsp;``)."""
    model = TableModel([Column("function", names=False), Column("base self", "right"),
                        Column("candidate self", "right"), Column("Δ self", "right"),
                        Column("share", "right", drop=2), Column("calls/op", "right", drop=1),
                        Column("self time"), Column("note", drop=3)],
                       title=f"{escape(e.benchmark)}: where the time went ({e.pairs} profiled pairs)")
    change = e.candidate_ns - e.base_ns
    for n in shown_nodes(e):
        share = n.self_delta_ns / change if change else None
        model.add([indent * n.depth + escape(n.name), fmt_time(n.base_self_ns), fmt_time(n.candidate_self_ns),
                   ("+" if n.self_delta_ns > 0 else "") + fmt_time(n.self_delta_ns), fmt_percent(share),
                   "–" if e.sampled and n.depth else f"{n.candidate_calls:.3g}", n.verdict.value, _note(e, n)],
                  style="bold red" if n.path in e.causes and n.self_delta_ns > 0 else
                  "green" if n.path in e.causes else None)
    return model


def explanation_summary(e: "Explanation") -> str:
    """One line: the benchmark's time under the probe, the first cause, and how much the causes account for."""
    if e.error:
        return f"{e.benchmark}: not explained: {e.error}"
    folded = f", {len(e.folded)} function(s) too short to probe counted in their callers" if e.folded else ""
    if e.sampled:
        head = (f"{e.benchmark}: {fmt_time(e.base_ns)} → {fmt_time(e.candidate_ns)} per operation, sampled "
                f"({e.pairs} profiled pairs, the harness's sampling CPU profiler: no probe, no calls counted)")
    else:
        head = (f"{e.benchmark}: {fmt_time(e.base_ns)} → {fmt_time(e.candidate_ns)} per operation under the probe "
                f"({e.pairs} profiled pairs, probe {fmt_time(e.probe_ns)} per call{folded})")
    if e.warnings:
        head += "; " + "; ".join(e.warnings)
    if not e.causes:
        return head + "; no function's own time changed significantly: the change is spread thin or in code " \
                      "outside the profiled modules"
    change = e.candidate_ns - e.base_ns
    first = e.node(e.causes[0])
    share = f", {fmt_percent(e.explained_ns / change)} of the change" if change else ""
    return (head + f"; first cause {first.name} ({'+' if first.self_delta_ns > 0 else ''}"
            f"{fmt_time(first.self_delta_ns)} self per operation, {first.verdict.value}); "
            f"{len(e.causes)} cause(s){share}")


def explanation_lines(e: "Explanation") -> list[str]:
    """Plain text for a CI system's test report (JUnit XML): the summary, then each cause with its calling path."""
    lines = [explanation_summary(e)]
    for i, path in enumerate(e.causes[:MAX_CAUSES], 1):
        n = e.node(path)
        lines.append(f"cause #{i}: {' > '.join(path)}: self {fmt_time(n.base_self_ns)} → "
                     f"{fmt_time(n.candidate_self_ns)} per operation ({n.verdict.value})")
    return lines
