"""Live terminal progress for `benchwarden run`: benchmark k of n, fork f of F, iteration, elapsed, ETA.

The ETA shown is an upper bound: the remaining budget if every remaining
benchmark used every fork and iteration its bounds allow.
"""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from benchwarden.report.escaping import rich_text, visible
from benchwarden.compare.result import BenchmarkComparison, Look
from benchwarden.compare.schedule import CompareListener
from benchwarden.compare.sequential import SequentialDesign
from benchwarden.model import BenchmarkStatus, ForkResult, ForkStatus, Phase, StopDecision
from benchwarden.report.comparison_table import fmt_interval, fmt_mde, fmt_p, fmt_ratio
from benchwarden.report.table import fmt_number
from benchwarden.runner.progress import ProgressListener
from benchwarden.units import format_duration, from_ns_per_op


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


class CompareProgressLines(CompareListener):
    """One line per fork pair and per look, on stderr."""

    def __init__(self, console: Console):
        self.console = console
        self.pair_forks: dict[str, list[ForkResult]] = {}
        self.orders: dict[str, tuple[str, str]] = {}

    def session_started(self, benchmarks: int, design: SequentialDesign) -> None:
        self.console.print(f"comparing {benchmarks} benchmark(s): fork pairs interleaved in random order, "
                           f"{design.min_pairs}–{design.max_pairs} pairs each", markup=False)

    def pair_started(self, key: str, pair: int, order: tuple[str, str]) -> None:
        self.pair_forks[key] = []
        self.orders[key] = order

    def fork_finished(self, benchmark, fork: ForkResult) -> None:
        key = benchmark.id.key
        forks = self.pair_forks.setdefault(key, [])
        forks.append(fork)
        if len(forks) == 2:
            parts = [f"{role} {self._fork_text(f, benchmark.unit)}" for role, f in zip(self.orders[key], forks)]
            self.console.print(visible(f"  {key}  pair {fork.index}: {parts[0]}, then {parts[1]}"), markup=False,
                               highlight=False)

    def _fork_text(self, fork: ForkResult, unit: str) -> str:
        if not fork.measurement:
            return "failed"
        mean = sum(fork.measurement_ns) / len(fork.measurement_ns)
        return f"{fmt_number(from_ns_per_op(mean, unit))} {unit}"

    def look_done(self, key: str, look: Look, decision: StopDecision) -> None:
        action = "stop" if decision.stop else "continue"
        self.console.print(visible(f"  {key}  look at {look.pairs} pairs: ratio {fmt_ratio(look.ratio)} "
                           f"{fmt_interval(look.low, look.high)} at {look.confidence:.1%}, p {fmt_p(look.p_value)}"
                           f", detectable ≥ {fmt_mde(look.mde)} → {look.verdict.value} ({action})"), markup=False,
                           highlight=False)

    def benchmark_compared(self, result: BenchmarkComparison) -> None:
        self.console.print(visible(f"{result.name}: {result.verdict.value}"), markup=False, highlight=False,
                           style="bold red" if result.verdict.value == "slower" else None)
