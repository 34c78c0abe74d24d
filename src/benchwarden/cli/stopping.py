"""Stopping transparency for `run` and `show`: build the trails of a run's benchmarks and print them.

Deciding lives in :mod:`benchwarden.report.stopping` (pure, from stored
results) and :mod:`benchwarden.budget` (reference budgets); this module
only resolves each benchmark's settings and renders.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from rich.console import Console

from benchwarden.budget import jmh_reference_budgets
from benchwarden.config import RunSettings
from benchwarden.model import BenchmarkResult
from benchwarden.report.escaping import rich_text
from benchwarden.report.stopping import (
    BOUND_MARK,
    ReferenceBudget,
    StopTrail,
    budget_lines,
    budget_totals,
    checkpoint_table,
    stop_trail,
    totals_to_json,
    trail_table,
    trail_to_json,
)
from benchwarden.report.table import to_rich


def settings_from_snapshot(config: object) -> dict[str, RunSettings]:
    """Suite name -> the RunSettings a stored run was started with (empty for imported runs)."""
    suites = config.get("suites") if isinstance(config, Mapping) else None
    found = {}
    if isinstance(suites, Mapping):
        for name, entry in suites.items():
            if isinstance(entry, Mapping) and isinstance(entry.get("settings"), Mapping):
                try:
                    found[name] = RunSettings.from_dict(entry["settings"])
                except ValueError:  # a damaged or hand-made snapshot: shown like an imported run, without budgets
                    continue
    return found


def reference_budgets(results: Sequence[BenchmarkResult], suites: Mapping[str, tuple[str, Path | None]],
                      toolchain: Mapping[str, str]) -> dict[str, ReferenceBudget]:
    """Reference budgets of the JMH suites' benchmarks; ``suites``: name -> (kind, root)."""
    found: dict[str, ReferenceBudget] = {}
    for name, (kind, root) in suites.items():
        if kind != "jmh":
            continue
        benchmarks = [r.benchmark for r in results if r.benchmark.id.suite == name]
        found.update(jmh_reference_budgets(root, toolchain.get("jmh"), benchmarks))
    return found


def build_trails(results: Sequence[BenchmarkResult], settings: Mapping[str, RunSettings],
                 references: Mapping[str, ReferenceBudget] | None = None) -> list[StopTrail]:
    trails = []
    for r in results:
        suite_settings = settings.get(r.benchmark.id.suite)
        own = suite_settings.for_benchmark(r.benchmark.id.key) if suite_settings is not None else None
        trails.append(stop_trail(r, own, (references or {}).get(str(r.benchmark.id))))
    return trails


def stopping_json(trails: Sequence[StopTrail]) -> dict:
    return {"benchmarks": [trail_to_json(t) for t in trails], "totals": totals_to_json(budget_totals(trails))}


def print_stopping(console: Console, trails: Sequence[StopTrail], details: bool = False) -> None:
    """The stopping table, every warning, the per-checkpoint tables (``details``), and the budget lines."""
    if not trails:
        return
    console.print(to_rich(trail_table(trails)))
    console.print(f"warmup per fork: iterations until warmup ended; {BOUND_MARK} = bound reached without stability. "
                  "Saved: iterations against the static budget of the configuration (forks.max × (warmup.max + "
                  "iterations)) and time against the reference budget.", style="dim")
    for t in trails:
        for warning in t.warnings:
            console.print(f"[yellow]⚠ {rich_text(t.suite)}:{rich_text(t.key)}: {rich_text(warning)}[/yellow]")
    if details:
        for t in trails:
            console.print(to_rich(checkpoint_table(t)))
    for line in budget_lines(budget_totals(trails)):
        console.print(line, markup=False, highlight=False)
