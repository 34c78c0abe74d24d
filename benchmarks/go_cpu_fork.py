"""Go in CPU time: one process per fork (adapters/gotest_cpu.py) against two-point forks (docs/performance.md).

On the Go example's ``BenchmarkTokenize/size=1000``, per round every version — ``base``, ``base2`` (A/A),
``small`` and ``medium`` (``WORDSTAT_SLOW``, the example's switchable changes) — runs one fork of each
method, versions and methods in random order, so that drift and load hit all alike:

* **one process** (:class:`~benchwarden.adapters.gotest_cpu.GoCpuFork`, today's default on Linux);
* **two-point** (:class:`~benchwarden.adapters.twopoint.TwoPointFork`, a fresh process per iteration; what
  the adapter used before, and still uses where the process's CPU clock cannot be read).

Each method's N per version comes from its first fork's calibration and is reused, as in a run. Reported per
method: machine time per fork (wall-clock, and the CPU time of every process the fork started, from
``RUSAGE_CHILDREN``), the fork-to-fork spread of fork means (CV, per version), the changes' sizes and the A/A
ratio (median fork mean against ``base``'s), and the position effect: each iteration's mean value relative to
its fork's mean, by position (does the first repetition of a process differ, i.e. is warmup needed?).

Usage: ``.venv/bin/python benchmarks/go_cpu_fork.py [--rounds 12] [--iterations 5] [--iteration-time 50ms]
[--load 0] [--json FILE]``.  ``--load N`` starts N CPU-bound neighbours.  About 1 s per fork.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from benchwarden.adapters.base import ForkPlan  # noqa: E402
from benchwarden.adapters.gotest import bench_pattern  # noqa: E402
from benchwarden.adapters.gotest_cpu import GoCpuFork  # noqa: E402
from benchwarden.adapters.gotest_twopoint import SHORT_OPS, GoHarness  # noqa: E402
from benchwarden.adapters.twopoint import TwoPointFork  # noqa: E402
from benchwarden.units import parse_duration_s  # noqa: E402

BENCHMARK = "BenchmarkTokenize/size=1000"
VERSIONS = {"base": {}, "base2": {}, "small": {"WORDSTAT_SLOW": "small"}, "medium": {"WORDSTAT_SLOW": "medium"}}
METHODS = ("one process", "two-point")


def _children_cpu_s() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _fork(method: str, binary: Path, env: dict, plan: ForkPlan, long_ops: int | None):
    harness = GoHarness(str(binary), str(REPO / "examples" / "go"), BENCHMARK, bench_pattern(BENCHMARK), env,
                        BENCHMARK, plan.timeout_s)
    if method == "one process":
        return GoCpuFork(harness, plan, "wordstat", long_ops=long_ops)
    return TwoPointFork(harness, plan, "wordstat", short_ops=SHORT_OPS, long_ops=long_ops)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--iteration-time", default="50ms")
    parser.add_argument("--load", type=int, default=0)
    parser.add_argument("--json")
    args = parser.parse_args()
    plan = ForkPlan(fork_index=1, iteration_time_s=parse_duration_s(args.iteration_time),
                    max_iterations=args.iterations, timeout_s=300, iteration_timeout_s=120, metric="cpu")
    neighbours = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    rng = random.Random(1)
    forks: dict[str, dict[str, list[dict]]] = {m: {v: [] for v in VERSIONS} for m in METHODS}
    ops: dict[tuple[str, str], int] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="bw-gocpu-") as tmp:
            binary = Path(tmp) / "wordstat.test"
            subprocess.run(["go", "test", "-c", "-o", str(binary), "."], cwd=REPO / "examples" / "go", check=True)
            for r in range(args.rounds):
                order = [(m, v) for m in METHODS for v in VERSIONS]
                rng.shuffle(order)
                for method, version in order:
                    before_wall, before_cpu = time.monotonic(), _children_cpu_s()
                    fork = _fork(method, binary, VERSIONS[version], plan, ops.get((method, version)))
                    values = [it.value_ns for it in fork]
                    ops.setdefault((method, version), fork.long_ops)
                    forks[method][version].append({"values": values, "wall_s": time.monotonic() - before_wall,
                                                   "cpu_s": _children_cpu_s() - before_cpu,
                                                   "calibrated": fork.calibrated_here})
                print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    finally:
        for n in neighbours:
            n.kill()
            n.wait()
    report = {"settings": vars(args), "methods": {}}
    for method in METHODS:
        pools = forks[method]
        means = {v: [statistics.fmean(f["values"]) for f in pools[v]] for v in VERSIONS}
        later = [f for v in VERSIONS for f in pools[v] if not f["calibrated"]]
        base = statistics.median(means["base"])
        positions = [statistics.fmean(f["values"][k] / statistics.fmean(f["values"]) for v in VERSIONS
                                      for f in pools[v]) for k in range(args.iterations)]
        report["methods"][method] = {
            "fork wall s (median, calibration reused)": statistics.median(f["wall_s"] for f in later),
            "fork cpu s (median, calibration reused)": statistics.median(f["cpu_s"] for f in later),
            "fork-mean CV by version": {v: statistics.stdev(m) / statistics.fmean(m) for v, m in means.items()},
            "median fork mean ns": {v: statistics.median(m) for v, m in means.items()},
            "ratio to base": {v: statistics.median(m) / base for v, m in means.items() if v != "base"},
            "iteration / fork mean by position": positions,
        }
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"report": report, "forks": forks}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
