"""Progress events, separate from final results (a listener, as criterion's report.rs does).

The runner calls these hooks; the CLI renders them live with rich, tests
record them.  Every hook has a no-op default so a listener implements only
what it needs.
"""

from __future__ import annotations

from benchwarden.model import Benchmark, BenchmarkResult, ForkResult, IterationResult, Phase


class ProgressListener:
    def run_started(self, run_id: int, total_benchmarks: int, budget_s: float) -> None:
        """``budget_s``: upper bound of the remaining run time (every bound reached)."""

    def suite_failed(self, suite: str, error: Exception) -> None:
        """A suite could not be prepared or listed (toolchain missing, build failed); other suites go on."""

    def benchmark_started(self, benchmark: Benchmark, index: int, total: int, forks_max: int) -> None:
        pass

    def fork_started(self, benchmark: Benchmark, fork_index: int, forks_max: int) -> None:
        pass

    def iteration_done(self, benchmark: Benchmark, fork_index: int, phase: Phase, number: int,
                       result: IterationResult) -> None:
        pass

    def fork_finished(self, benchmark: Benchmark, fork: ForkResult) -> None:
        pass

    def benchmark_finished(self, result: BenchmarkResult, remaining_budget_s: float) -> None:
        pass


class RecordingListener(ProgressListener):
    """Keeps every event as a tuple; for tests and for debugging."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def run_started(self, run_id, total_benchmarks, budget_s):
        self.events.append(("run_started", run_id, total_benchmarks))

    def suite_failed(self, suite, error):
        self.events.append(("suite_failed", suite, str(error)))

    def benchmark_started(self, benchmark, index, total, forks_max):
        self.events.append(("benchmark_started", benchmark.id.key, index, total))

    def fork_started(self, benchmark, fork_index, forks_max):
        self.events.append(("fork_started", benchmark.id.key, fork_index))

    def iteration_done(self, benchmark, fork_index, phase, number, result):
        self.events.append(("iteration", benchmark.id.key, fork_index, phase.value, number))

    def fork_finished(self, benchmark, fork):
        self.events.append(("fork_finished", benchmark.id.key, fork.index, fork.status.value))

    def benchmark_finished(self, result, remaining_budget_s):
        self.events.append(("benchmark_finished", result.benchmark.id.key, result.status.value))
