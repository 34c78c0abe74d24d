"""Progress of `run` and `check` (and `compare`'s pair lines), always on stderr.

Two renderings of one listener state (:class:`RunProgress`):

* :class:`LiveLine` in a terminal: one status line rewritten in place — ``[k/n] name · fork f/F ·
  measure i · elapsed · ETA ≤ t`` — composed for the terminal's width, so at 80 columns the benchmark
  name is shortened (:func:`benchwarden.report.names.shorten`) instead of every field being cut to
  "fork… elap…";
* :class:`ForkLines` anywhere else (CI logs, pipes): one line per finished fork, so a long run is never
  silent, and nothing rewritten.

Failed forks, skipped suites and stop warnings are printed as lines in both. The ETA is an upper bound:
the remaining budget if every remaining benchmark used every fork and iteration its bounds allow.
"""

from __future__ import annotations

import time
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.live import Live
from rich.text import Text

from benchwarden.compare.result import BenchmarkComparison, Look
from benchwarden.compare.schedule import CompareListener
from benchwarden.compare.sequential import SequentialDesign
from benchwarden.model import Benchmark, BenchmarkResult, ForkResult, ForkStatus, IterationResult, Phase, StopDecision
from benchwarden.report.comparison_table import fmt_interval, fmt_mde, fmt_p, fmt_ratio
from benchwarden.report.escaping import visible
from benchwarden.report.names import shorten
from benchwarden.report.table import fmt_number
from benchwarden.runner.progress import ProgressListener
from benchwarden.units import format_duration, from_ns_per_op


def run_progress(console: Console, quiet: bool = False) -> RunProgress:
    """The progress listener for ``console`` (stderr): a live line in a terminal, fork lines elsewhere, nothing
    with ``quiet``. Use it as a context manager (the live line needs starting and stopping)."""
    if quiet:
        return _Silent(console)
    return LiveLine(console) if console.is_terminal else ForkLines(console)


class RunProgress(ProgressListener):
    """What every rendering needs to know: where the run is, how long it has taken, the ETA bound."""

    def __init__(self, console: Console, clock: Any = time.monotonic):
        self.console = console
        self.clock = clock
        self.started = clock()
        self.run_id: int | None = None
        self.total = 0
        self.index = 0
        self.name = ""
        self.fork = 0
        self.forks_max = 0
        self.phase = ""
        self.iteration = 0
        self.budget_s = 0.0
        self.budget_at = self.started

    def __enter__(self) -> "RunProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    # -- state ------------------------------------------------------------------------------------

    def elapsed_s(self) -> float:
        return self.clock() - self.started

    def eta_s(self) -> float:
        return max(0.0, self.budget_s - (self.clock() - self.budget_at))

    def counter(self) -> str:
        return f"[{self.index}/{self.total}]" if self.total else ""

    def run_started(self, run_id: int, total_benchmarks: int, budget_s: float) -> None:
        self.run_id, self.total = run_id, total_benchmarks
        self.budget_s, self.budget_at = budget_s, self.clock()

    def benchmark_started(self, benchmark: Benchmark, index: int, total: int, forks_max: int) -> None:
        self.index, self.total, self.name = index, total, visible(str(benchmark.id))
        self.fork, self.forks_max, self.phase, self.iteration = 0, forks_max, "", 0

    def fork_started(self, benchmark: Benchmark, fork_index: int, forks_max: int) -> None:
        self.fork, self.forks_max, self.phase, self.iteration = fork_index, forks_max, "", 0

    def iteration_done(self, benchmark: Benchmark, fork_index: int, phase: Phase, number: int,
                       result: IterationResult) -> None:
        self.phase, self.iteration = ("warmup" if phase is Phase.WARMUP else "measure"), number

    # -- lines common to both renderings -----------------------------------------------------------

    def suite_failed(self, suite: str, error: Exception) -> None:
        self.console.print(Text(visible(f"✗ suite {suite} skipped: {error}", keep_newlines=True), style="red"),
                           soft_wrap=True)

    def fork_finished(self, benchmark: Benchmark, fork: ForkResult) -> None:
        if fork.status is ForkStatus.LOST:  # its worker died: run again elsewhere, not a failure of the benchmark
            first = (fork.message or "lost").splitlines()[0]
            self.console.print(Text(visible(f"↻ {benchmark.id} fork {fork.index}: {first}; running it again"),
                                    style="yellow"), soft_wrap=True)
        elif fork.status is ForkStatus.FAILED:
            first = (fork.message or "failed").splitlines()[0] if fork.message else "failed"
            self.console.print(Text(visible(f"✗ {benchmark.id} fork {fork.index}: {first}"), style="red"),
                               soft_wrap=True)

    def benchmark_finished(self, result: BenchmarkResult, remaining_budget_s: float) -> None:
        self.budget_s, self.budget_at = remaining_budget_s, self.clock()
        for d in result.fork_decisions:
            if d.warning:
                self.console.print(Text(visible(f"! {result.benchmark.id}: {d.warning}"), style="yellow"),
                                   soft_wrap=True)  # one line per event in a log, like the fork lines


class _Silent(RunProgress):
    """``--quiet``: keeps the state, prints nothing."""

    def suite_failed(self, suite: str, error: Exception) -> None:
        return None

    def fork_finished(self, benchmark: Benchmark, fork: ForkResult) -> None:
        return None

    def benchmark_finished(self, result: BenchmarkResult, remaining_budget_s: float) -> None:
        self.budget_s, self.budget_at = remaining_budget_s, self.clock()


class LiveLine(RunProgress):
    """A terminal: one status line, redrawn four times a second, composed for the width it gets."""

    def __init__(self, console: Console, clock: Any = time.monotonic):
        super().__init__(console, clock)
        self.live = Live(self, console=console, refresh_per_second=4, transient=True)

    def __enter__(self) -> "LiveLine":
        self.live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.stop()

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(self.line(options.max_width), no_wrap=True, overflow="ellipsis")

    def line(self, width: int) -> str:
        """The status line in at most ``width`` cells: fields are dropped from the right end of the list
        (elapsed, then the iteration) before the name is shortened below 20 cells."""
        if self.run_id is None:
            return "preparing suites…"
        fork = f"fork {self.fork}/{self.forks_max}" if self.fork else ""
        step = f"{self.phase} {self.iteration}" if self.phase else ""
        eta = f"ETA ≤ {format_duration(self.eta_s())}"
        elapsed = format_duration(self.elapsed_s())
        for fields in ([fork, step, elapsed, eta], [fork, step, eta], [fork, eta], [eta]):
            tail = " · ".join(f for f in fields if f)
            room = width - cell_len(self.counter()) - cell_len(tail) - 5
            if room >= 20 or fields == [eta]:
                name = shorten(self.name, max(room, 5)) if self.name else ""
                return " ".join(p for p in (self.counter(), name, "·" if name else "", tail) if p)
        raise AssertionError("unreachable")


class ForkLines(RunProgress):
    """Not a terminal (CI logs, pipes): one line per finished fork, nothing redrawn."""

    def run_started(self, run_id: int, total_benchmarks: int, budget_s: float) -> None:
        super().run_started(run_id, total_benchmarks, budget_s)
        self.console.print(Text(f"run {run_id}: {total_benchmarks} benchmark(s); at most "
                                f"{format_duration(budget_s)} if every bound is reached"), soft_wrap=True)

    def fork_finished(self, benchmark: Benchmark, fork: ForkResult) -> None:
        if fork.status is not ForkStatus.COMPLETE:
            super().fork_finished(benchmark, fork)
            return
        values = fork.measurement_ns
        mean = (f", mean {fmt_number(from_ns_per_op(sum(values) / len(values), benchmark.unit))} {benchmark.unit}"
                if values else "")
        self.console.print(Text(visible(
            f"{self.counter()} {benchmark.id} fork {fork.index}/{self.forks_max}: {len(values)} iterations after "
            f"{len(fork.warmup)} warmup{mean}, {format_duration(fork.duration_s)} · elapsed "
            f"{format_duration(self.elapsed_s())} · ETA ≤ {format_duration(self.eta_s())}")), soft_wrap=True)


class CompareProgressLines(CompareListener):
    """One line per fork pair and per look, on stderr."""

    def __init__(self, console: Console):
        self.console = console
        self.pair_forks: dict[str, list[ForkResult]] = {}
        self.orders: dict[str, tuple[str, str]] = {}
        self.together: dict[str, bool] = {}

    def session_started(self, benchmarks: int, design: SequentialDesign) -> None:
        self.console.print(f"comparing {benchmarks} benchmark(s): fork pairs interleaved in random order, "
                           f"{design.min_pairs}–{design.max_pairs} pairs each", markup=False)

    def pair_started(self, key: str, pair: int, order: tuple[str, str], simultaneous: bool = False) -> None:
        self.pair_forks[key] = []
        self.orders[key] = order
        self.together[key] = simultaneous

    def fork_finished(self, benchmark, fork: ForkResult) -> None:
        key = benchmark.id.key
        forks = self.pair_forks.setdefault(key, [])
        forks.append(fork)
        if len(forks) == 2:
            parts = [f"{role} {self._fork_text(f, benchmark.unit)}" for role, f in zip(self.orders[key], forks)]
            link = "beside" if self.together.get(key) else "then"
            self.console.print(visible(f"  {key}  pair {fork.index}: {parts[0]}, {link} {parts[1]}"), markup=False,
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

    def note(self, message: str) -> None:
        self.console.print(visible(message), markup=False, highlight=False)
