"""Orchestration overhead of `benchwarden run` against running the same JMH forks directly.

Reference: the exact fork command lines benchwarden would use (``JmhAdapter``'s ``fork_argv``: one JMH
process per fork, ``-f 1 -wi 0 -i W+M``), run one after another with output discarded — what a
shell script calling the user's jar would do.  Measured: ``benchwarden run`` on the same benchmarks,
forks and iterations (static policy), including listing, streaming, parsing, labelling, stopping
and storing every fork.  The two are interleaved (A B A B ...) so drift on this shared machine hits
both; the result is the ratio of median wall times, measured in the same run.  Target: <= 1.05.

Usage: ``.venv/bin/python benchmarks/orchestration_overhead.py [--rounds 3] [--iteration-time 1s]``
(builds examples/jmh first if its jar is missing).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchwarden.adapters.base import ForkPlan, SuiteContext
from benchwarden.adapters.jmh import JmhAdapter, fork_argv
from benchwarden.units import parse_duration_s

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "jmh"
JAR = EXAMPLE / "target" / "benchmarks.jar"
FILTER = r"TokenizeBench.tokenize\[size=100\]|CountWordsBench.countHash|TopKBench"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iteration-time", default="1s")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--forks", type=int, default=2)
    args = ap.parse_args()
    t_s = parse_duration_s(args.iteration_time)

    if not JAR.exists():
        subprocess.run(["mvn", "-q", "-B", "package", "-DskipTests"], cwd=EXAMPLE, check=True)
    work = Path(tempfile.mkdtemp(prefix="bw-overhead-"))
    jar = work / "benchmarks.jar"  # a private copy: a concurrent rebuild of the example cannot disturb the run
    shutil.copy2(JAR, jar)
    # a config without a build step: the build is not orchestration and would dominate a short run
    (work / "benchwarden.toml").write_text(
        f'[suites.wordstat]\nkind = "jmh"\nartifact = "{jar}"\nfilter = \'{FILTER}\'\nstop = "static"\n')

    ctx = SuiteContext(name="wordstat", kind="jmh", root=work, artifact=str(jar))
    adapter = JmhAdapter()
    adapter.prepare(ctx)
    import re

    benchmarks = [b for b in adapter.list_benchmarks(ctx) if re.search(FILTER, b.id.key)]
    java = shutil.which("java")
    plan = ForkPlan(fork_index=1, iteration_time_s=t_s, max_iterations=args.warmup + args.iterations,
                    timeout_s=600, iteration_timeout_s=120)
    commands = [fork_argv(java, jar, b, plan) for b in benchmarks for _ in range(args.forks)]

    def direct() -> float:
        t0 = time.perf_counter()
        for argv in commands:
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        return time.perf_counter() - t0

    def benchwarden(round_no: int) -> float:
        argv = [sys.executable, "-m", "benchwarden", "run", "--quiet", "--store", str(work / f"r{round_no}.db"),
                "--forks", str(args.forks), "--warmup", str(args.warmup), "--iterations", str(args.iterations),
                "--iteration-time", args.iteration_time]
        t0 = time.perf_counter()
        subprocess.run(argv, cwd=work, stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - t0

    ref, bw = [], []
    for r in range(args.rounds):
        ref.append(direct())
        bw.append(benchwarden(r))
        print(f"round {r + 1}: direct {ref[-1]:.2f}s  benchwarden {bw[-1]:.2f}s  ratio {bw[-1] / ref[-1]:.3f}",
              flush=True)
    ratio = statistics.median(bw) / statistics.median(ref)
    n_iter = len(commands) * (args.warmup + args.iterations)
    print(f"\n{len(benchmarks)} benchmarks x {args.forks} forks x {args.warmup + args.iterations} iterations of "
          f"{args.iteration_time} ({n_iter} iterations, {len(commands)} JVM pairs), {args.rounds} rounds")
    print(f"median direct {statistics.median(ref):.2f}s, benchwarden {statistics.median(bw):.2f}s, "
          f"ratio {ratio:.3f} (target <= 1.05)")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
