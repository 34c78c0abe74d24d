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
import os
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
from pyprobe import work, work_twin  # the injection tests' subject: work is slowed, its twin never is
clock_name, v, n = sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
hook = w.SlowdownHook("pyprobe:work", v, None, clock_name)
hook.calibrate()
slowed = hook.wrap(work)
s, t = [], []
for r in range(80):
    t0 = time.thread_time_ns()
    for _ in range(10):
        slowed(n)
    t1 = time.thread_time_ns()
    for _ in range(10):
        work_twin(n)
    t2 = time.thread_time_ns()
    s.append((t1 - t0) / 10); t.append((t2 - t1) / 10)
s.sort(); t.sort()
print(json.dumps({"slowed_ns": s[len(s) // 10], "twin_ns": t[len(t) // 10], "clock_ns": hook.clock_ns}))
'''


def _cells(helper: str, sizes: list[int], processes: int, measure) -> list[tuple]:
    """One row per (loop steps n, clock, v): ``measure(clock, v, n)`` -> the probe's JSON, ``processes`` times."""
    rows = []
    for n in sizes:
        for clock in CLOCKS:
            for v in FACTORS:
                results = [measure(clock, v, n) for _ in range(processes)]
                got = [(r["slowed_ns"] / r["twin_ns"] - 1) / v for r in results]
                rows.append((helper, n, clock, v, statistics.median(r["twin_ns"] for r in results), got,
                             statistics.median(r["clock_ns"] for r in results)))
    return rows


def python(work: Path, args) -> list[tuple]:
    work.mkdir(parents=True, exist_ok=True)
    probe = work / "py_probe.py"
    probe.write_text(_PY_PROBE)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests/data/assess/python")}

    def measure(clock: str, v: float, n: int) -> dict:
        out = subprocess.run([sys.executable, str(probe), str(WORKER_PATH), clock, str(v), str(n)], env=env,
                             capture_output=True, text=True, check=True, timeout=600).stdout
        return json.loads(out)
    return _cells("Python hook", args.py_n, args.processes, measure)


def java(work: Path, args) -> list[tuple]:
    agent = helpers.agent_jar()
    classes = work / "probe"
    subprocess.run(["javac", "-d", str(classes), str(ROOT / "tests/data/assess/java/probe/Probe.java")], check=True)
    report = work / "agent-report.jsonl"

    def measure(clock: str, v: float, n: int) -> dict:
        report.unlink(missing_ok=True)
        agent_args = f"mode=slowdown;method=probe.Probe#work(int);factor={v};clock={clock};report={report}"
        out = subprocess.run(["java", f"-javaagent:{agent}={agent_args}", "-cp", str(classes), "probe.Probe",
                              "time", str(n), "100", "cpu"], capture_output=True, text=True, check=True, timeout=600).stdout
        installed = [json.loads(line) for line in report.read_text().splitlines() if '"installed"' in line]
        return {**json.loads(out), "clock_ns": installed[0]["clock_ns"]}
    return _cells("Java agent", args.java_n, args.processes, measure)


def _sizes(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--neighbours", type=int, default=3, help="CPU-bound processes in the loaded half")
    parser.add_argument("--helpers", default="java,python")
    parser.add_argument("--java-n", type=_sizes, default=[100000],
                        help="Probe.work loop steps, comma-separated (~1.1-1.4 ns each)")
    parser.add_argument("--py-n", type=_sizes, default=[5000],
                        help="pyprobe.work loop steps, comma-separated (~100 ns each)")
    parser.add_argument("--quiet-only", action="store_true", help="no loaded half (the price of the clock per size)")
    args = parser.parse_args()
    chosen = [h.strip() for h in args.helpers.split(",") if h.strip()]
    measure = {"java": java, "python": python}
    results = []
    with tempfile.TemporaryDirectory(prefix="wait-clock-") as tmp:
        for load in (0,) if args.quiet_only else (0, args.neighbours):
            hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
            try:
                for name in chosen:
                    for helper, n, clock, v, size_ns, got, clock_ns in measure[name](Path(tmp) / f"{name}-{load}", args):
                        results.append((helper, n, load, clock, v, size_ns, got))
                        print(json.dumps({"helper": helper, "neighbours": load, "clock": clock, "v": v,
                                          "call_us": round(size_ns / 1000, 1), "clock_read_ns": clock_ns,
                                          "ratio_to_v": [round(g, 2) for g in got]}), flush=True)
            finally:
                for hog in hogs:
                    hog.kill()
                    hog.wait()
    print()
    print("| helper | call (CPU) | neighbours | clock | v = 0.1 | v = 0.5 |")
    print("|---|---:|---:|---|---|---|")
    seen = {}
    for helper, n, load, clock, v, size_ns, got in results:
        seen.setdefault((helper, n, load, clock), {})[v] = (size_ns, got)
    for (helper, _, load, clock), cells in seen.items():
        size_us = statistics.median(s for s, _ in cells.values()) / 1000
        text = [", ".join(f"{g:.2f}" for g in cells[v][1]) if v in cells else "–" for v in FACTORS]
        print(f"| {helper} | {size_us:.0f} µs | {load} | {clock} | {text[0]} | {text[1]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
