"""Which clock should a slowdown wait on when the suite is measured in CPU time?  ([assess] wait_clock)

Every helper waits ``v ×`` each call's duration.  On the wall clock, a call preempted part-way (more runnable
processes than cores) is charged the lost slice and repays it as burnt CPU, so a CPU-time measurement sees more
than ``v``; on the CPU clock (``wait_clock = "cpu"``) the call is timed and repaid in CPU time, at the price of a
clock read that is a system call (~1.3 µs on the 2-core VM) instead of the vDSO's ~25 ns.

For each helper that has the CPU clock (the Java agent, the Python hook; the Go rewriter waits on the wall clock
only, docs/assess.md), clock and v, this measures the injected slowdown *in CPU time*: (slowed / twin) − 1 with an
identical, never-instrumented twin measured interleaved in the same process (the Java probe of
benchmarks/injection_precision.py and a Python one, rounds timed in the thread's CPU time; each takes the 10th
percentile of its rounds), as a ratio to v (1.00 = exact), ``--processes`` fresh processes per
cell, quiet and beside ``--neighbours`` CPU-bound processes (3 on 2 cores: every process is preempted now and
then).  Method sizes: long enough for the CPU clock (``--java-n``, ``--py-n`` loop steps: ~140 µs, ~0.5 ms).

Usage: ``.venv/bin/python benchmarks/wait_clock.py [--processes 3] [--neighbours 3] [--helpers java,python]``.
Figures: docs/performance.md ("Which clock a slowdown waits on").
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from benchwarden.adapters.asv import WORKER_PATH  # noqa: E402
from benchwarden.helpers import build as helpers  # noqa: E402

FACTORS = (0.1, 0.5)
CLOCKS = ("wall", "cpu")

_PY_PROBE = r'''
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("w", sys.argv[1]); w = importlib.util.module_from_spec(spec)
spec.loader.exec_module(w)
clock_name, v, n = sys.argv[2], float(sys.argv[3]), int(sys.argv[4])

def work(n):
    acc = 17
    for i in range(n):
        acc = (acc * 31 + i) & 0xFFFFFFFF
    return acc

def twin(n):
    acc = 17
    for i in range(n):
        acc = (acc * 31 + i) & 0xFFFFFFFF
    return acc

hook = w.SlowdownHook("probe:work", v, None, clock_name)
hook.overhead_reads, hook.nested_reads = w.wrapper_overhead_reads(clock=hook.clock)
hook.clock_ns = w.clock_read_ns(clock=hook.clock)
slowed = w.slowed(work, v, hook.overhead_reads, hook.nested_reads, clock=hook.clock, clock_ns=hook.clock_ns,
                  tail_reads=(1.0 + v) if clock_name == "cpu" else 0.0)
s, t = [], []
for r in range(80):
    t0 = time.thread_time_ns()
    for _ in range(10):
        slowed(n)
    t1 = time.thread_time_ns()
    for _ in range(10):
        twin(n)
    t2 = time.thread_time_ns()
    s.append((t1 - t0) / 10); t.append((t2 - t1) / 10)
s.sort(); t.sort()
print(json.dumps({"slowed_ns": s[len(s) // 10], "twin_ns": t[len(t) // 10]}))
'''


def python(work: Path, args) -> list[tuple]:
    work.mkdir(parents=True, exist_ok=True)
    probe = work / "py_probe.py"
    probe.write_text(_PY_PROBE)
    rows = []
    for clock in CLOCKS:
        for v in FACTORS:
            got, size = [], []
            for _ in range(args.processes):
                out = subprocess.run([sys.executable, str(probe), str(WORKER_PATH), clock, str(v), str(args.py_n)],
                                     capture_output=True, text=True, check=True, timeout=600).stdout
                r = json.loads(out)
                got.append((r["slowed_ns"] / r["twin_ns"] - 1) / v)
                size.append(r["twin_ns"])
            rows.append(("Python hook", clock, v, statistics.median(size), got))
    return rows


def java(work: Path, args) -> list[tuple]:
    agent = helpers.agent_jar()
    classes = work / "probe"
    subprocess.run(["javac", "-d", str(classes), str(ROOT / "tests/data/assess/java/probe/Probe.java")], check=True)
    rows = []
    for clock in CLOCKS:
        for v in FACTORS:
            got, size = [], []
            for _ in range(args.processes):
                agent_args = f"mode=slowdown;method=probe.Probe#work(int);factor={v};clock={clock}"
                out = subprocess.run(["java", f"-javaagent:{agent}={agent_args}", "-cp", str(classes), "probe.Probe",
                                      "time", str(args.java_n), "100", "cpu"],
                                     capture_output=True, text=True, check=True, timeout=600).stdout
                r = json.loads(out)
                got.append((r["slowed_ns"] / r["twin_ns"] - 1) / v)
                size.append(r["twin_ns"])
            rows.append(("Java agent", clock, v, statistics.median(size), got))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--neighbours", type=int, default=3, help="CPU-bound processes in the loaded half")
    parser.add_argument("--helpers", default="java,python")
    parser.add_argument("--java-n", type=int, default=100000, help="Probe.work loop steps (~1.1-1.4 ns each)")
    parser.add_argument("--py-n", type=int, default=5000, help="loop steps of the Python probe (~35 ns each)")
    args = parser.parse_args()
    chosen = [h.strip() for h in args.helpers.split(",") if h.strip()]
    measure = {"java": java, "python": python}
    results = []
    with tempfile.TemporaryDirectory(prefix="wait-clock-") as tmp:
        for load in (0, args.neighbours):
            hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
            try:
                for name in chosen:
                    for helper, clock, v, size_ns, got in measure[name](Path(tmp) / f"{name}-{load}", args):
                        results.append((helper, load, clock, v, size_ns, got))
                        print(json.dumps({"helper": helper, "neighbours": load, "clock": clock, "v": v,
                                          "call_us": round(size_ns / 1000, 1), "ratio_to_v": [round(g, 2) for g in got]}),
                              flush=True)
            finally:
                for hog in hogs:
                    hog.kill()
                    hog.wait()
    print()
    print("| helper | call (CPU) | neighbours | clock | v = 0.1 | v = 0.5 |")
    print("|---|---:|---:|---|---|---|")
    seen = {}
    for helper, load, clock, v, size_ns, got in results:
        seen.setdefault((helper, load, clock), {})[v] = (size_ns, got)
    for (helper, load, clock), cells in seen.items():
        size_us = statistics.median(s for s, _ in cells.values()) / 1000
        text = [", ".join(f"{g:.2f}" for g in cells[v][1]) if v in cells else "–" for v in FACTORS]
        print(f"| {helper} | {size_us:.0f} µs | {load} | {clock} | {text[0]} | {text[1]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
