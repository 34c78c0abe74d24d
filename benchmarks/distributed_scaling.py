"""Forks on a dask.distributed cluster (issue #18): wall time on 1 vs 2 workers, and the overhead per fork.

Workload: the Python example's asv suite (every benchmark), static policy, F forks x (W warmup + M measurement)
iterations of T each.  Three configurations, interleaved round by round (A B C A B C ...) so drift on this shared
machine hits all alike:

* ``here``      — `benchwarden run` without a cluster: forks one after another in this process's children;
* ``local:1``   — `benchwarden run --cluster local:1`: one dask worker process (``bench=1``), forks as tasks;
* ``local:2``   — the same with two workers: two benchmarks at a time.

Reported per configuration (medians over rounds): the run's wall time (the runner's ``elapsed_s``: from the first
fork to the last stored, excluding the LocalCluster's start-up, which is reported separately), and the mean fork
duration as stored (``finished_at - started_at``: from the runner's start of the fork to its stop, which for a
remote fork includes submitting the task, the worker's hello, the queue polling and the stop event).  Derived:

* scaling ratio = wall(local:1) / wall(local:2) (2.0 would be perfect; on a 2-core machine the workers share the
  cores with this process and anything else running);
* scheduling overhead per fork = mean fork duration on ``local:1`` minus ``here`` (same forks, one at a time).

A simulated large cluster (``--simulate N``): the driver against N in-process stub workers (threads of one
LocalCluster, ``processes=False``) whose forks replay lognormal values with a sleep per iteration, no process and
no CPU work.  A fork's own time is then known exactly (iterations x iteration time), so the rest of the mean fork
duration is the driver's and dask's overhead at that scale, and forks/s is the throughput the driver sustains.

Usage: ``.venv/bin/python benchmarks/distributed_scaling.py [--rounds 3] [--forks 2] [--iteration-time 100ms]``
``[--simulate 100 --sim-benchmarks 300]``.  Prints one JSON line per measured run and Markdown tables for
docs/performance.md.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import math
import os
import random
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from benchwarden.adapters.base import ForkPlan, PreparedSuite, SuiteContext
from benchwarden.cli import main as cli
from benchwarden.config import RunSettings, Suite
from benchwarden.model import Benchmark, BenchmarkId, ForkStatus, IterationResult, RunMeta
from benchwarden.store import open_store

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ("here", "local:1", "local:2")


def _run(root: Path, config: str, args: argparse.Namespace) -> dict:
    argv = ["run", "--config", str(root / "benchwarden.toml"), "--suite", "wordstat", "--stop", "static",
            "--forks", str(args.forks), "--warmup", str(args.warmup), "--iterations", str(args.iterations),
            "--iteration-time", args.iteration_time, "--json", "-q"]
    if config != "here":
        argv += ["--cluster", config]
    out, err = io.StringIO(), io.StringIO()
    t0 = time.monotonic()
    status = cli(argv, stdout=out, stderr=err)
    total_s = time.monotonic() - t0
    if status != 0:
        raise SystemExit(f"{config}: exit {status}\n{err.getvalue()}")
    payload = json.loads(out.getvalue())
    with open_store(root / ".benchwarden" / "results.db") as store:
        run = store.load_run(payload["run"])
    forks = [f for r in run.results for f in r.forks if f.status is ForkStatus.COMPLETE]
    workers = sorted({f.machine.get("name", "here") for f in forks})
    return {"config": config, "elapsed_s": payload["elapsed_s"], "command_s": round(total_s, 3),
            "forks": len(forks), "fork_mean_s": round(statistics.fmean(f.duration_s for f in forks), 4),
            "workers": workers, "load": os.getloadavg()[0]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--forks", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--iteration-time", default="100ms")
    ap.add_argument("--simulate", type=int, default=0, metavar="N", help="also: N in-process stub workers")
    ap.add_argument("--sim-benchmarks", type=int, default=300)
    ap.add_argument("--sim-iteration-s", type=float, default=0.05,
                    help="a stub iteration's length (100 workers need ~0.5 s: every iteration is a message)")
    ap.add_argument("--sim-forks", type=int, default=3)
    ap.add_argument("--skip-real", action="store_true", help="only the simulation")
    args = ap.parse_args()
    if args.simulate:
        sim = simulate(args.simulate, args.sim_benchmarks, forks=args.sim_forks, warmup=2, iterations=8,
                       iteration_s=args.sim_iteration_s)
        print(json.dumps(sim), flush=True)
        print(f"\n| stub workers | benchmarks | forks | wall | ideal wall | forks/s | overhead per fork | cluster start "
              f"| load (1 min) |\n|---|---|---|---|---|---|---|---|---|\n| {sim['simulated_workers']} | "
              f"{sim['benchmarks']} | {sim['forks']} | {sim['wall_s']:.1f} s | {sim['ideal_wall_s']:.1f} s | "
              f"{sim['forks_per_s']:.1f} | {sim['overhead_per_fork_ms']:.0f} ms | {sim['cluster_start_s']:.1f} s "
              f"| {sim['load']:.1f} |\n", flush=True)
    if args.skip_real:
        return 0
    work = Path(tempfile.mkdtemp(prefix="bw-distributed-"))
    root = work / "python"
    shutil.copytree(ROOT / "examples" / "python", root, ignore=shutil.ignore_patterns(".benchwarden", "__pycache__"))
    rows: dict[str, list[dict]] = {c: [] for c in CONFIGS}
    try:
        for _ in range(args.rounds):
            for config in CONFIGS:
                row = _run(root, config, args)
                rows[config].append(row)
                print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    med = {c: {k: statistics.median(r[k] for r in rows[c]) for k in ("elapsed_s", "command_s", "fork_mean_s", "load")}
           for c in CONFIGS}
    forks = rows["here"][0]["forks"]
    print()
    print(f"| configuration | wall, runner (median of {args.rounds}) | whole command | mean fork | forks | load (1 min) |")
    print("|---|---|---|---|---|---|")
    for c in CONFIGS:
        m = med[c]
        print(f"| {c} | {m['elapsed_s']:.2f} s | {m['command_s']:.2f} s | {m['fork_mean_s'] * 1000:.0f} ms | {forks} "
              f"| {m['load']:.1f} |")
    ratio = med["local:1"]["elapsed_s"] / med["local:2"]["elapsed_s"]
    overhead_ms = (med["local:1"]["fork_mean_s"] - med["here"]["fork_mean_s"]) * 1000
    print()
    print(f"scaling local:1 -> local:2: {ratio:.2f}x; overhead per fork (local:1 - here): {overhead_ms:.0f} ms")
    return 0


# -- a simulated large cluster: in-process stub workers replaying forks --------------------------------------------


class ReplayFork:
    """A stub fork: ``values`` one per iteration, each after ``iteration_s`` of sleep; stops when told."""

    def __init__(self, values: list[float], iteration_s: float):
        self.values = values
        self.iteration_s = iteration_s
        self.stopped = threading.Event()

    def __iter__(self):
        for v in self.values:
            if self.stopped.wait(self.iteration_s):
                return
            yield IterationResult(value_ns=v, raw_value=v)

    def stop(self) -> None:
        self.stopped.set()

    def output_tail(self) -> str:
        return ""


class ReplayAdapter:
    """``kind = "replay"``: B benchmarks whose forks replay lognormal values (no process, no CPU work)."""

    kind = "replay"
    benchmarks = 200
    iteration_s = 0.05

    def prepare(self, ctx: SuiteContext) -> PreparedSuite:
        return PreparedSuite(toolchain={"replay": "1"})

    def list_benchmarks(self, ctx: SuiteContext) -> list[Benchmark]:
        return [Benchmark(BenchmarkId(ctx.name, f"b{i:04d}"), "avgt", "ns/op") for i in range(self.benchmarks)]

    def start_fork(self, ctx: SuiteContext, benchmark: Benchmark, plan: ForkPlan) -> ReplayFork:
        rng = random.Random(f"{benchmark.id}/{plan.fork_index}")
        level = 1000.0 * rng.lognormvariate(0, 0.02)
        return ReplayFork([level * rng.lognormvariate(0, 0.01) for _ in range(plan.max_iterations)], self.iteration_s)


def simulate(workers: int, benchmarks: int, forks: int, warmup: int, iterations: int, iteration_s: float) -> dict:
    """The driver against ``workers`` in-process stub workers (one scheduler, threads, no processes): the forks'
    own time is known exactly (iterations x iteration_s), so everything beyond it is the driver's and dask's."""
    from distributed import Client, LocalCluster

    from benchwarden.adapters import REGISTRY
    from benchwarden.cluster.address import ClusterAddress
    from benchwarden.cluster.session import ClusterSession
    from benchwarden.runner.engine import Runner, plan_run

    REGISTRY["replay"] = f"{__name__}:ReplayAdapter"
    ReplayAdapter.benchmarks, ReplayAdapter.iteration_s = benchmarks, iteration_s
    settings = RunSettings(iteration_time_s=iteration_s, warmup_min=warmup, warmup_max=warmup, iterations=iterations,
                           forks_min=forks, forks_max=forks, stop="static")
    work = Path(tempfile.mkdtemp(prefix="bw-simulated-"))
    suite = Suite(SuiteContext(name="sim", kind="replay", root=work), settings)
    t0 = time.monotonic()
    # memory_limit=0: with N workers in one process each would get 1/N of the memory and, the process being far
    # above that, every worker's memory monitor would run the garbage collector several times a second (at 100
    # workers that alone saturated the process's one core, and the run never finished)
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=False, resources={"bench": 1},
                           dashboard_address=None, silence_logs=logging.ERROR, memory_limit=0)
    session = ClusterSession(Client(cluster), ClusterAddress(local_workers=workers), cluster)
    start_s = time.monotonic() - t0
    try:
        with open_store(work / "results.db") as store:
            plan = plan_run([suite], adapter_factory=session.adapter_factory)
            outcome = Runner(store, concurrency=session.fork_slots).run(plan, RunMeta(created_at=time.time(),
                                                                                      tool_version="sim"))
            run = store.load_run(outcome.run_id)
    finally:
        session.close()
        shutil.rmtree(work, ignore_errors=True)
    done = [f for r in run.results for f in r.forks if f.status is ForkStatus.COMPLETE]
    own_s = (warmup + iterations) * iteration_s
    ideal_s = math.ceil(benchmarks / workers) * forks * own_s
    return {"simulated_workers": workers, "benchmarks": benchmarks, "forks": len(done), "cluster_start_s": round(start_s, 2),
            "wall_s": round(outcome.elapsed_s, 2), "ideal_wall_s": round(ideal_s, 2),
            "forks_per_s": round(len(done) / outcome.elapsed_s, 2),
            "overhead_per_fork_ms": round((statistics.fmean(f.duration_s for f in done) - own_s) * 1000, 1),
            "load": os.getloadavg()[0]}


if __name__ == "__main__":
    raise SystemExit(main())
