"""Live terminal progress for `benchwarden run`: benchmark k of n, fork f of F, iteration, elapsed, ETA.

The ETA shown is an upper bound: the remaining budget if every remaining
benchmark used every fork and iteration its bounds allow.
"""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from benchwarden.report.escaping import rich_text, visible
from benchwarden.model import BenchmarkStatus, ForkStatus, Phase
from benchwarden.runner.progress import ProgressListener
from benchwarden.units import format_duration


class LiveProgress(ProgressListener):
    def __init__(self, console: Console):
        self.console = console
        self.progress = Progress(
            SpinnerColumn(), TextColumn("{task.description}", markup=False), BarColumn(bar_width=20), MofNCompleteColumn(),
            TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("{task.fields[eta]}"),
            console=console, transient=False, refresh_per_second=4,
        )
        self.task = None
        self.current = ""
        self.fork = ""
        self.budget_s = 0.0
        self.t_budget = time.monotonic()

    def __enter__(self) -> "LiveProgress":
        self.progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.stop()

    def _eta(self) -> str:
        left = max(0.0, self.budget_s - (time.monotonic() - self.t_budget))
        return f"ETA ≤ {format_duration(left)}"

    def _update(self, detail: str) -> None:
        if self.task is not None:
            self.progress.update(self.task, description=f"{visible(self.current)} {detail}", eta=self._eta())

    def run_started(self, run_id, total_benchmarks, budget_s):  # type: ignore[override]
        self.budget_s, self.t_budget = budget_s, time.monotonic()
        self.task = self.progress.add_task(f"run {run_id}", total=total_benchmarks, eta=self._eta())

    def suite_failed(self, suite, error):  # type: ignore[override]
        self.console.print(f"[red]✗ suite {rich_text(suite)} skipped:[/red] {rich_text(str(error))}")

    def benchmark_started(self, benchmark, index, total, forks_max):  # type: ignore[override]
        self.current = str(benchmark.id)
        self._update("")

    def fork_started(self, benchmark, fork_index, forks_max):  # type: ignore[override]
        self.fork = f"· fork {fork_index}/{forks_max}"
        self._update(self.fork)

    def iteration_done(self, benchmark, fork_index, phase, number, result):  # type: ignore[override]
        label = "warmup" if phase is Phase.WARMUP else "measure"
        self._update(f"{self.fork} · {label} {number}")

    def fork_finished(self, benchmark, fork):  # type: ignore[override]
        if fork.status is ForkStatus.FAILED:
            first = (fork.message or "").splitlines()[0] if fork.message else "failed"
            self.console.print(f"[red]✗ {rich_text(str(benchmark.id))} fork {fork.index}:[/red] {rich_text(first)}")

    def benchmark_finished(self, result, remaining_budget_s):  # type: ignore[override]
        self.budget_s, self.t_budget = remaining_budget_s, time.monotonic()
        if self.task is not None:
            self.progress.advance(self.task)
        for d in result.fork_decisions:
            if d.warning:
                self.console.print(f"[yellow]! {rich_text(str(result.benchmark.id))}: {rich_text(d.warning)}[/yellow]")
        if result.status is BenchmarkStatus.OK:
            self._update("")
