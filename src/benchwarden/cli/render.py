"""Rendering of result summaries for the terminal (shared by run and show)."""

from __future__ import annotations

from typing import Callable

from rich.console import Console

from benchwarden.report.escaping import rich_text
from benchwarden.report.summary import BenchmarkSummary, machine_level_line
from benchwarden.report.table import Column, TableModel, fmt_number, fmt_percent, to_rich
from benchwarden.units import format_duration, from_ns_per_op


def summary_table(summaries: list[BenchmarkSummary], title: str | None = None) -> TableModel:
    all_ok = all(s.status == "ok" for s in summaries)
    # at 80 columns the least telling columns go first; status stays when a benchmark did not end "ok"
    model = TableModel(
        columns=[Column("benchmark", names=True), Column("mode", drop=1), Column("mean", "right"),
                 Column("CI", "right"), Column("unit"), Column("CV", "right", drop=5), Column("forks", "right", drop=3),
                 Column("iterations", "right", drop=2), Column("time", "right", drop=4),
                 Column("status", drop=6 if all_ok else None)],
        title=title,
    )
    for s in summaries:
        ci = s.ci
        measured = s.mean is not None  # measured, but a statistic may need more data than there is: "n/a"
        ci_text = f"[{fmt_number(ci[0])}, {fmt_number(ci[1])}]" if ci else ("n/a" if measured else "-")
        cv_text = fmt_percent(s.cv) if s.cv is not None else ("n/a" if measured else "-")
        forks = str(s.forks) + (f" (+{s.forks_failed} failed)" if s.forks_failed else "")
        iters = f"{s.measurement_iterations} (+{s.warmup_iterations} wu)"
        model.add([f"{s.suite}:{s.key}", s.mode, fmt_number(s.mean), ci_text, s.unit, cv_text, forks,
                   iters, format_duration(s.time_s), s.status],
                  style=None if s.status == "ok" else "red")
    return model


def print_summaries(console: Console, summaries: list[BenchmarkSummary], title: str | None = None) -> None:
    if not summaries:
        console.print("no benchmark results")
        return
    console.print(to_rich(summary_table(summaries, title)))
    confidence = summaries[0].confidence
    console.print(f"mean: of the fork means, in the harness's unit (JMH's Score); CI: {confidence:.0%} t interval over "
                  "forks on the log scale, outlying forks left out (docs/statistics.md).", style="dim")
    notes: dict[str, int] = {}
    for s in summaries:
        for w in s.warnings:
            notes[w] = notes.get(w, 0) + 1
    for note, count in notes.items():
        console.print(f"note: {rich_text(note)} ({count} benchmark{'s' if count > 1 else ''})", style="dim")
    for line in machine_lines(summaries):
        console.print(rich_text(line), style="dim")
    for s in summaries:
        if s.message:
            console.print(f"[red]✗ {rich_text(s.suite)}:{rich_text(s.key)}:[/red] "
                          f"{rich_text(s.message, keep_newlines=True)}")


def machine_lines(summaries: list[BenchmarkSummary]) -> list[str]:
    """One line per benchmark whose forks ran on several machines: each machine's mean, and the spreads."""
    return [machine_level_line(f"{s.suite}:{s.key}", s.machines, _in_unit(s.unit), s.unit)
            for s in summaries if s.machines is not None]


def _in_unit(unit: str) -> Callable[[float], str]:
    """A formatter of ns/op values in ``unit``."""
    return lambda ns: fmt_number(from_ns_per_op(ns, unit))
