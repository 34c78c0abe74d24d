"""Whether this machine's CPUs run the examples' memory-heavy code at the same speed (docs/performance.md, "This VM's
two CPUs differ for memory-heavy work").

Part 1, *per CPU*: one process pinned to each CPU (``os.sched_setaffinity``) at the same time, each timing blocks of
calls in its own CPU time — the Python example's ``tokenize`` over 1,000 words (one allocation per word), and, as a
control, a pure-Python arithmetic loop that allocates nothing. Part 2, *crossover*: simultaneous pairs of fresh
processes running the unchanged tokenizer against a switchable change (``WORDSTAT_SLOW``; default: none, an A/A),
once with each process pinned and the CPU assignment swapped every pair (AB/BA), once unpinned; for the pinned
pairs the CPU effect is fitted, ``log r_k = d + s_k c`` with ``s_k = ±1`` the assignment (balanced, so ``d`` is the
mean), and the residual spread printed beside the unpinned pairs' spread. Linux only (CPU affinity).

Usage: ``.venv/bin/python benchmarks/cpu_speeds.py [--blocks 30] [--pairs 12] [--rounds 3] [--change medium]``.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "python"


def _child(work: str, blocks: int, cpu: int | None) -> None:
    """Print the CPU time per call of each block (µs), one line."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    sys.path.insert(0, str(EXAMPLE))
    import wordstat

    if work == "arithmetic":
        def call() -> None:
            total = 0
            for i in range(2000):
                total += i * i
        calls = 200
    else:
        words = wordstat.text(1000)

        def call() -> None:
            wordstat.tokenize(words)
        calls = 200
    end = time.process_time() + 0.3
    while time.process_time() < end:
        call()
    values = []
    for _ in range(blocks):
        t0 = time.process_time()
        for _ in range(calls):
            call()
        values.append((time.process_time() - t0) / calls * 1e6)
    print(" ".join(f"{v:.1f}" for v in values))


def _start(work: str, blocks: int, cpu: int | None, change: str = "") -> subprocess.Popen[str]:
    env = {**os.environ, "WORDSTAT_SLOW": change}
    return subprocess.Popen([sys.executable, __file__, "--child", work, str(blocks), "" if cpu is None else str(cpu)],
                            env=env, stdout=subprocess.PIPE, text=True)


def _values(process: subprocess.Popen[str]) -> list[float]:
    out, _ = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"a measuring process failed (exit {process.returncode})")
    return [float(v) for v in out.split()]


def per_cpu(blocks: int) -> None:
    cpus = sorted(os.sched_getaffinity(0))[:2]
    print(f"## Per CPU (blocks of 200 calls, CPU time per call, µs; CPUs {cpus} at the same time)\n")
    print("| work | CPU | min | median | max |\n|---|---|---:|---:|---:|")
    for work in ("tokenize", "arithmetic"):
        processes = [_start(work, blocks, cpu) for cpu in cpus]
        for cpu, process in zip(cpus, processes):
            v = _values(process)
            print(f"| {work} | {cpu} | {min(v):.0f} | {statistics.median(v):.0f} | {max(v):.0f} |")
    print()


def _pair(k: int, pinned: bool, change: str, cpus: list[int]) -> float:
    """log(candidate / base) of one simultaneous pair: each process's median block."""
    base_cpu, cand_cpu = (cpus[k % 2], cpus[(k + 1) % 2]) if pinned else (None, None)
    base = _start("tokenize", 5, base_cpu)
    cand = _start("tokenize", 5, cand_cpu, change)
    return math.log(statistics.median(_values(cand)) / statistics.median(_values(base)))


def crossover(pairs: int, rounds: int, change: str) -> None:
    cpus = sorted(os.sched_getaffinity(0))[:2]
    print(f"## Crossover ({pairs} simultaneous pairs per round, change {change or 'none (A/A)'})\n")
    print("| round | pairs | ratio | s.d. of log ratios | fitted CPU effect | residual s.d. |\n|---|---|---:|---:|---:|---:|")
    for r in range(1, rounds + 1):
        for pinned in (True, False):
            logs = [_pair(k, pinned, change, cpus) for k in range(pairs)]
            mean, sd = statistics.mean(logs), statistics.stdev(logs)
            if pinned:
                signs = [1 if k % 2 == 0 else -1 for k in range(pairs)]
                c = sum(s * x for s, x in zip(signs, logs)) / pairs
                residual = [x - mean - s * c for s, x in zip(signs, logs)]
                rsd = math.sqrt(sum(e * e for e in residual) / (pairs - 2))
                fitted = f"{math.exp(2 * c):.2f}x | {rsd:.3f}"
            else:
                fitted = "– | –"
            print(f"| {r} | {'pinned, swapped' if pinned else 'unpinned'} | {math.exp(mean):.3f} | {sd:.3f} | {fitted} |")
    print()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if sys.argv[4] else None)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=30)
    parser.add_argument("--pairs", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--change", default="", help="WORDSTAT_SLOW of the candidate (default: none, an A/A)")
    args = parser.parse_args()
    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("needs Linux and at least two CPUs")
    per_cpu(args.blocks)
    crossover(args.pairs, args.rounds, args.change)


if __name__ == "__main__":
    main()
