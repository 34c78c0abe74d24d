"""The table of ``benchwarden affected``: one row per benchmark, affected or not, and why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchwarden.codelevel.python_code import FILE_PREFIX
from benchwarden.report.table import Column, TableModel

if TYPE_CHECKING:
    from benchwarden.codelevel.selector import AffectedReport


def affected_table(report: "AffectedReport") -> TableModel:
    model = TableModel([Column("benchmark", names=True), Column("affected"), Column("why")],
                       title=f"{report.suite}: {report.base} → {report.candidate}")
    for s in sorted(report.selections, key=lambda s: (not s.affected, s.key)):
        model.add([s.key, "yes" if s.affected else "no", "; ".join(s.reasons)], style=None if s.affected else "dim")
    return model


def affected_summary(report: "AffectedReport") -> str:
    changes = report.changes
    n, total = len(report.affected), len(report.selections)
    files = sum(c.method.startswith(FILE_PREFIX) for c in changes.methods)
    methods = len(changes.methods) - files
    parts = [f"{methods} changed method{'s' * (methods != 1)}"]
    if files:
        parts.append(f"{files} changed file{'s' * (files != 1)} attributed by import")
    if changes.other:
        parts.append(f"{len(changes.other)} change{'s' * (len(changes.other) != 1)} outside any traced method")
    if changes.ignored:
        parts.append(f"{len(changes.ignored)} ignored file{'s' * (len(changes.ignored) != 1)}")
    traced = f"; traced in {report.trace_s:.1f} s" if report.traced else ""
    return f"{n} of {total} benchmarks affected ({', '.join(parts)}{traced})"
