"""Where a fork's time goes, per adapter: start-up, calibration, iterations — and Go's b.N search before/after.

For each example suite (JMH, Go, Python) one benchmark runs ``--forks`` forks of ``--iterations``
iterations of ``--iteration-time`` through the adapter exactly as ``benchwarden run`` starts them, and
the arrival time of every iteration is recorded:

* **start-up**: from starting the fork to the first iteration's arrival, minus one iteration's span
  (process start, JVM boot, class loading, Go's calibration run, the Python worker's import);
* **per iteration**: the mean gap between arrivals, split into the time the harness *measured*
  (``ns/op × operations``, when the harness reports operations) and the rest (b.N search, harness
  bookkeeping between iterations);
* **stop**: from the last arrival until the process group is gone.

For Go it also runs the same benchmark the way the adapter did before issue 13 — one process,
``-test.count k -test.benchtime t``, so Go searches b.N before every repetition — and reports both
fork wall times against the iterations' own time.  Both variants alternate (A B A B) so that the
machine's load hits them alike.

Usage: ``.venv/bin/python benchmarks/fork_time_breakdown.py [--forks 3] [--iterations 12]
[--iteration-time 200ms] [--adapters jmh,go,python] [--json FILE]``.  About two minutes.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchwarden.adapters import get_adapter
from benchwarden.adapters.base import ForkPlan, SuiteContext
from benchwarden.adapters.gotest import fork_argv
from benchwarden.adapters.gotest_output import GoOutputParser, GoResult
from benchwarden.config import load_config
from benchwarden.units import parse_duration_s

ROOT = Path(__file__).resolve().parents[1]
CHOSEN = {"jmh": "tokenize", "go": "BenchmarkTokenize", "python": "tokenize"}


def _suite(work: Path, example: str) -> tuple[SuiteContext, object]:
    shutil.copytree(ROOT / "examples" / example, work / example,
                    ignore=shutil.ignore_patterns(".benchwarden", "target"))
    config = load_config(work / example / "benchwarden.toml")
    suite = config.suites["wordstat"]
    adapter = get_adapter(suite.context.kind)
    adapter.prepare(suite.context)
    return suite.context, adapter


def _pick(adapter, ctx: SuiteContext, example: str):  # type: ignore[no-untyped-def]
    return next(b for b in adapter.list_benchmarks(ctx) if CHOSEN[example] in b.id.key)


def one_fork(adapter, ctx, bench, iterations: int, t: float, index: int) -> dict:  # type: ignore[no-untyped-def]
    plan = ForkPlan(fork_index=index, iteration_time_s=t, max_iterations=iterations, timeout_s=600.0,
                    iteration_timeout_s=120.0, jvm_args=ctx.jvm_args, env=dict(ctx.env))
    start = time.monotonic()
    fork = adapter.start_fork(ctx, bench, plan)
    arrivals, measured = [], []
    for it in fork:
        arrivals.append(time.monotonic() - start)
        measured.append(it.value_ns * it.ops / 1e9 if it.ops else None)
        if len(arrivals) >= iterations:
            break
    last = time.monotonic() - start
    fork.stop()
    end = time.monotonic() - start
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:])]
    span = statistics.mean(gaps)
    known = [m for m in measured[1:] if m is not None]
    return {"wall_s": end, "first_s": arrivals[0], "startup_s": max(0.0, arrivals[0] - span),
            "iteration_gap_s": span, "measured_s": statistics.mean(known) if known else None,
            "stop_s": end - last, "iterations": len(arrivals)}


def go_old_fork(ctx, bench, iterations: int, t: float) -> dict:  # type: ignore[no-untyped-def]
    """The adapter before issue 13: one process, Go's b.N search before every -count repetition."""
    plan = ForkPlan(fork_index=1, iteration_time_s=t, max_iterations=iterations, timeout_s=600.0,
                    iteration_timeout_s=120.0)
    argv = fork_argv(bench.spec["binary"], bench.spec["full_name"], plan)
    start = time.monotonic()
    done = subprocess.run(argv, cwd=bench.spec["package_dir"], capture_output=True, text=True, check=True)
    wall = time.monotonic() - start
    parser = GoOutputParser(expected=bench.spec["full_name"])
    results = [e for line in done.stdout.splitlines(keepends=True) for e in parser.feed(line)
               if isinstance(e, GoResult)]
    measured = [r.metrics["ns/op"] * r.iterations / 1e9 for r in results]
    return {"wall_s": wall, "iterations": len(results), "measured_total_s": sum(measured)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--forks", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=12)
    ap.add_argument("--iteration-time", default="200ms")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--adapters", default="jmh,go,python", help="which examples (comma-separated)")
    args = ap.parse_args()
    t = parse_duration_s(args.iteration_time)
    report: dict = {"iteration_time_s": t, "iterations": args.iterations, "forks": args.forks, "adapters": {}}
    with open("/proc/loadavg") as f:
        report["load_before"] = f.read().split()[:3]
    with tempfile.TemporaryDirectory(prefix="bw-forktime-") as tmp:
        work = Path(tmp)
        for example in [a.strip() for a in args.adapters.split(",") if a.strip()]:
            ctx, adapter = _suite(work, example)
            bench = _pick(adapter, ctx, example)
            forks, old = [], []
            for k in range(1, args.forks + 1):
                forks.append(one_fork(adapter, ctx, bench, args.iterations, t, k))
                if example == "go":
                    old.append(go_old_fork(ctx, bench, args.iterations, t))
            mean = lambda key, rows=forks: statistics.mean(r[key] for r in rows)  # noqa: E731
            entry = {"benchmark": bench.id.key, "forks": forks,
                     "wall_s": mean("wall_s"), "startup_s": mean("startup_s"), "iteration_gap_s": mean("iteration_gap_s"),
                     "stop_s": mean("stop_s"),
                     "iterations_share": args.iterations * t / mean("wall_s")}
            if all(r["measured_s"] is not None for r in forks):
                entry["measured_per_iteration_s"] = mean("measured_s")
            if old:
                entry["before"] = {"forks": old, "wall_s": mean("wall_s", old),
                                   "measured_total_s": mean("measured_total_s", old)}
            report["adapters"][example] = entry
            print(f"{example:7s} {bench.id.key}: fork {entry['wall_s']:.2f} s for {args.iterations} × {t:g} s "
                  f"(iterations {entry['iterations_share']:.0%} of it); start-up {entry['startup_s']:.2f} s, "
                  f"gap {entry['iteration_gap_s']:.3f} s"
                  + (f", measured {entry['measured_per_iteration_s']:.3f} s" if "measured_per_iteration_s" in entry
                     else "")
                  + (f"; before: fork {entry['before']['wall_s']:.2f} s" if old else ""), file=sys.stderr)
    with open("/proc/loadavg") as f:
        report["load_after"] = f.read().split()[:3]
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
