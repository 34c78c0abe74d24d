"""Deterministic sample runs for the store tests (also used by the durability child process).

Values are drawn from a seeded generator so a fork can be rebuilt anywhere
from ``(benchmark number, fork index)`` alone: the child process that gets
killed and the test that checks what survived agree on every expected value
without sharing any state but the seed.
"""

from __future__ import annotations

import random
from dataclasses import replace

from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkResult,
    BenchmarkStatus,
    Direction,
    ForkResult,
    ForkStatus,
    IterationResult,
    RunData,
    RunMeta,
    RunStatus,
    StopDecision,
)
from benchwarden.store import Store
from benchwarden.store.records import UNFINISHED_MESSAGE


def make_benchmark(number: int, suite: str = "wordstat") -> Benchmark:
    """Benchmark ``number``: alternating JMH-style throughput and Go-style time benchmarks with parameters;
    every fourth from the third on is measured in CPU time (schema version 2)."""
    if number % 2:
        return Benchmark(BenchmarkId(suite, f"BenchmarkTokenize{number}", (("size", str(100 * number)), ("impl", "hash"))),
                         mode="go", unit="ns/op", spec={"package": "./wordstat", "binary": "wordstat.test"},
                         metric="cpu" if number % 4 == 3 else "time")
    return Benchmark(BenchmarkId(suite, f"org.wordstat.Bench.count{number}", (("size", str(10 + number)),)),
                     mode="thrpt", unit="ops/s", direction=Direction.HIGHER_IS_BETTER, spec={"class": "Bench"})


def make_fork(bench_number: int, index: int, warmup: int = 5, measurement: int = 20,
              status: ForkStatus = ForkStatus.COMPLETE, machine: dict[str, str] | None = None) -> ForkResult:
    """Fork ``index`` of benchmark ``bench_number``, identical every time it is built."""
    rng = random.Random(bench_number * 100_003 + index)
    base_ns = 50.0 + 10.0 * bench_number

    def iteration(i: int) -> IterationResult:
        value_ns = base_ns * (1.0 + rng.random()) + i * 1e-3
        secondary = {"B/op": float(rng.randint(0, 64)), "allocs/op": 1.0} if bench_number % 2 else {}
        ops = None if i % 7 == 3 else float(rng.randint(1_000, 10_000_000))
        return IterationResult(value_ns=value_ns, raw_value=1e9 / value_ns if bench_number % 2 == 0 else value_ns,
                               ops=ops, secondary=secondary)

    warm = tuple(iteration(i) for i in range(warmup))
    meas = tuple(iteration(i) for i in range(measurement))
    started = 1_700_000_000.0 + bench_number * 60 + index * 2.5
    decisions = tuple(StopDecision(stop=k == warmup - 1, reason="static" if k == warmup - 1 else "below-minimum",
                                   values={"cv": rng.random()}) for k in range(warmup))
    message = "fork crashed: exit status 137 — üñíçødé kept" if status is ForkStatus.FAILED else \
        "lost: worker tcp://10.0.0.7:40123 left the cluster" if status is ForkStatus.LOST else None
    return ForkResult(index=index, status=status, warmup=warm, measurement=meas, started_at=started,
                      finished_at=started + 2.25, warmup_decisions=decisions, message=message, machine=machine or {})


def worker_machine(number: int) -> dict[str, str]:
    """Where a fork on cluster worker ``number`` ran (schema 5, docs/distributed.md)."""
    return {"worker": f"tcp://10.0.0.{number}:40123", "name": f"bench-{number}", "host": f"node{number}",
            "machine_key": f"{number:016x}"}


def make_meta(label: str | None = "ci build #42") -> RunMeta:
    return RunMeta(created_at=1_700_000_000.123456, tool_version="0.1.0", commit="0123456789abcdef0123456789abcdef01234567",
                   dirty=False, machine={"cpu": "AMD EPYC", "cores": "2", "os": "Linux 6.8"},
                   toolchain={"java": "17.0.15", "jmh": "1.37", "go": "go1.26"},
                   config={"suites": {"wordstat": {"forks": {"min": 2, "max": 3}, "iteration_time_s": 0.1}},
                           "filter": None, "zeta_first": [3, 2, 1]},
                   label=label)


def make_run(n_benchmarks: int = 4, n_forks: int = 3, warmup: int = 5, measurement: int = 20,
             status: RunStatus = RunStatus.COMPLETE, cluster: bool = False) -> RunData:
    """A run exercising every stored feature: params, secondary metrics, a failed fork, stop decisions, and with
    ``cluster`` (schema 5) benchmark 1's forks on two cluster workers with a lost one between them.

    With ``status`` INTERRUPTED or RUNNING, the last benchmark is unfinished (fewer forks, no decisions).
    """
    results = []
    for b in range(1, n_benchmarks + 1):
        forks = [make_fork(b, i, warmup, measurement) for i in range(1, n_forks + 1)]
        bench_status, message = BenchmarkStatus.OK, None
        decisions = tuple(StopDecision(stop=i == n_forks, reason="static", values={"rciw": 0.01 * i})
                          for i in range(1, n_forks + 1))
        if b == 2:
            forks[-1] = make_fork(b, n_forks, warmup, measurement // 2, status=ForkStatus.FAILED)
            bench_status, message = BenchmarkStatus.FAILED, f"fork {n_forks}: crashed"
            decisions = decisions[:-1]
        if b == 1 and cluster:
            forks = [make_fork(b, i, warmup, measurement, machine=worker_machine(1 + i % 2))
                     for i in range(1, n_forks + 1)]
            forks.insert(1, make_fork(b, 2, warmup, measurement // 3, status=ForkStatus.LOST, machine=worker_machine(1)))
            forks = [replace(f, index=i) for i, f in enumerate(forks, start=1)]
        if b == n_benchmarks and status in (RunStatus.INTERRUPTED, RunStatus.RUNNING):
            forks = forks[:1]
            bench_status, message, decisions = BenchmarkStatus.OK, UNFINISHED_MESSAGE, ()
        results.append(BenchmarkResult(benchmark=make_benchmark(b), forks=tuple(forks), status=bench_status,
                                       message=message, fork_decisions=decisions))
    return RunData(meta=make_meta(), results=tuple(results), status=status)


def write_incrementally(store: Store, data: RunData) -> int:
    """Store ``data`` the way the runner does (create, add, save each fork, finish); return the run id."""
    run_id = store.create_run(data.meta)
    for result in data.results:
        store.add_benchmark(run_id, result.benchmark)
        for fork in result.forks:
            store.save_fork(run_id, result.benchmark.id, fork)
        if result.message != UNFINISHED_MESSAGE:
            store.finish_benchmark(run_id, result.benchmark.id, result.status, result.message, result.fork_decisions)
    if data.status is not RunStatus.RUNNING:
        store.finish_run(run_id, data.status)
    return run_id
