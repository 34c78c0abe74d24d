"""How precisely each slowdown helper injects v on this machine: the Java agent, the Go rewriter, the Python hook.

Injected slowdown = (slowed / twin) − 1, where the twin is an identical method that is never instrumented,
measured interleaved with the target in the same process (so process-to-process variation cancels): the
test probes ``tests/data/assess/java/probe/Probe.java``, ``go/rewriter/testdata/probe`` and
``tests/data/assess/python`` (each takes a low percentile of its rounds, as timeit takes the minimum).
For every helper, method size and v the script runs ``--processes`` fresh processes and prints the
achieved slowdown as a ratio to v (1.00 = exact) and, for Java and Python, the share of activations the
helper itself reported as too short for a ±20 % injection (its ``activations`` report line).

This is where precision is measured; the tests (tests/e2e/test_assess_helpers.py, test_python_injection.py)
check behaviour with margins that hold on a loaded 2-core machine. Figures go to docs/performance.md.

``--hog`` runs a CPU-bound process beside the measurements (the loaded machine of issue #20).

Usage: ``.venv/bin/python benchmarks/injection_precision.py [--processes 3] [--helpers java,go,python] [--hog]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from benchwarden.adapters.asv import WORKER_PATH  # noqa: E402
from benchwarden.helpers import build as helpers  # noqa: E402

FACTORS = (0.1, 0.5, 1.0)
JAVA_SIZES = {"0.1 µs": "100", "1 µs": "1000", "4 µs": "4000"}  # loop steps of Probe.work (~1.1 ns each)
GO_SIZES = {"1 µs": "1000", "4 µs": "4000"}
PY_SIZES = {"1.5 µs": "40", "4 µs": "120", "20 µs": "600"}


def _short_share(report: Path) -> float | None:
    lines = [json.loads(x) for x in report.read_text().splitlines()] if report.exists() else []
    acts = [e for e in lines if e.get("event") == "activations"]
    total = sum(e["activations"] for e in acts)
    return sum(e["short"] for e in acts) / total if total else None


def java(work: Path, processes: int) -> list[tuple[str, str, float, list[float], list[float]]]:
    agent = helpers.agent_jar()
    classes = work / "probe"
    subprocess.run(["javac", "-d", str(classes), str(ROOT / "tests/data/assess/java/probe/Probe.java")], check=True)
    rows = []
    cases = [("work", size, n) for size, n in JAVA_SIZES.items()] + [("recursive", "2 µs x depth 5", "2000")]
    for mode, size, n in cases:
        method = "probe.Probe#work(int)" if mode == "work" else "probe.Probe#recurse(int,int)"
        for factor in FACTORS:
            got, short = [], []
            for i in range(processes):
                report = work / f"java-{mode}-{n}-{factor}-{i}.jsonl"
                done = subprocess.run(["java", f"-javaagent:{agent}=mode=slowdown;method={method};factor={factor};"
                                       f"report={report}", "-cp", str(classes), "probe.Probe",
                                       "time" if mode == "work" else "recursive", n, "200"],
                                      capture_output=True, text=True, check=True)
                result = json.loads(done.stdout)
                got.append((result["slowed_ns"] / result["twin_ns"] - 1) / factor)
                share = _short_share(report)
                short.append(share if share is not None else float("nan"))
            rows.append(("Java agent" + (" (recursive)" if mode != "work" else ""), size, factor, got, short))
    return rows


def go(work: Path, processes: int) -> list[tuple[str, str, float, list[float], list[float]]]:
    binary = helpers.rewriter_binary()
    rows = []
    cases = [("work", size, n) for size, n in GO_SIZES.items()] + [("recurse", "2 µs x depth 5", "2000")]
    for target, size, n in cases:
        for factor in FACTORS:
            copy = work / f"go-{target}-{n}-{factor}"
            shutil.copytree(ROOT / "go/rewriter/testdata/probe", copy)
            func = "example.com/probe.Work" if target == "work" else "example.com/probe.Recurse"
            subprocess.run([str(binary), "-dir", str(copy), "-func", func, "-factor", str(factor)], check=True,
                           capture_output=True)
            got = []
            for _ in range(processes):
                env = {**os.environ, "PROBE_FACTOR": str(factor), "PROBE_N": n, "PROBE_TARGET": target}
                done = subprocess.run(["go", "test", "-count=1", "-v", "-run", "TestInjectedSlowdown", "."], cwd=copy,
                                      env=env, capture_output=True, text=True)  # the measured slowdown is logged whatever the test decides
                match = re.search(r"injected slowdown (-?[\d.]+)", done.stdout)
                if match is None:
                    raise SystemExit(f"go probe printed no slowdown:\n{done.stdout}{done.stderr}")
                got.append(float(match.group(1)) / factor)
            rows.append(("Go rewriter" + (" (recursive)" if target != "work" else ""), size, factor, got,
                         [float("nan")] * processes))
    return rows


def python(work: Path, processes: int) -> list[tuple[str, str, float, list[float], list[float]]]:
    data = ROOT / "tests/data/assess/python"
    rows = []
    cases = [("work", size, n) for size, n in PY_SIZES.items()] + [("recurse", "4 µs x depth 5", "120")]
    for target, size, n in cases:
        for factor in FACTORS:
            got, short = [], []
            for i in range(processes):
                report = work / f"py-{target}-{n}-{factor}-{i}.jsonl"
                spec = {"v": 1, "mode": "slowdown", "target": f"pyprobe:{target}", "factor": factor,
                        "report": str(report)}
                env = {**os.environ, "BENCHWARDEN_INJECT": json.dumps(spec), "PYTHONPATH": str(data)}
                done = subprocess.run([sys.executable, str(data / "drive.py"), str(WORKER_PATH.parent), "ratio", n,
                                       target], env=env, capture_output=True, text=True, check=True)
                result = json.loads(done.stdout)
                got.append((result["slowed_ns"] / result["twin_ns"] - 1) / factor)
                share = _short_share(report)
                short.append(share if share is not None else float("nan"))
            rows.append(("Python hook" + (" (recursive)" if target != "work" else ""), size, factor, got, short))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--helpers", default="java,go,python")
    parser.add_argument("--hog", action="store_true", help="run a CPU-bound process beside the measurements")
    args = parser.parse_args()
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.hog else None
    try:
        return _measure(args)
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()


def _measure(args: argparse.Namespace) -> int:
    chosen = args.helpers.split(",")
    load = os.getloadavg()[0]
    beside = "; a CPU-bound process beside" if args.hog else ""
    print(f"load average at start: {load:.2f}; {args.processes} process(es) per cell{beside}\n")
    print("| helper | method | v | achieved / v (each process) | median | reported short |")
    print("|---|---|---:|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, measure in (("java", java), ("go", go), ("python", python)):
            if name not in chosen:
                continue
            for helper, size, factor, got, short in measure(work, args.processes):
                each = ", ".join(f"{g:.2f}" for g in got)
                shares = [s for s in short if s == s]
                reported = f"{statistics.median(shares):.0%}" if shares else "–"
                print(f"| {helper} | {size} | {factor:g} | {each} | {statistics.median(got):.2f} | {reported} |",
                      flush=True)
    print(f"\nload average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
