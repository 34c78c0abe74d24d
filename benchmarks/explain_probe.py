"""What `compare --explain`'s Python profiler costs and how accurate its times are, by call duration (Horký's
paired method, ../shared/research/seed-000-horky-thesis.md §5).

For each kind of work and size, one process alternates rounds of the *same* function called unprobed (plain
``perf_counter_ns`` around a loop of calls) and probed (the asv worker's ``ProfileHook`` on, the loop as the
benchmark function, the target a profiled child), and, as the reference measured in the same run, with the
standard library's ``cProfile`` on. Per size it prints the true time per call (unprobed, median over rounds),
the time the profiler *reports* for the call (ours: the node's inclusive time; cProfile's: the function's
cumulative time), each as a ratio to the true time (1.00 = exact), and the wall time per call with the profiler
on, as a ratio (the probe's cost plus what it does to the interpreter).

Three kinds of work, because CPython ≤ 3.11 runs *every* bytecode slower while any trace or profile function is
set (its tracing dispatch skips the specialising interpreter): ``bytecode`` is a Python loop, ``native`` is one
C call (``hashlib``), which the probe does not slow, ``mixed`` a loop of small C calls (``dict.get``), which a
profile-function hook (``sys.setprofile``, cProfile) sees one by one and our trace hook does not.

Usage: ``.venv/bin/python benchmarks/explain_probe.py [--rounds 15] [--hog]``; figures go to docs/code-level.md.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from benchwarden.adapters.asv import WORKER_PATH  # noqa: E402

TARGET = '''
import hashlib

_BUF = bytes(1 << 22)


def bytecode(n):
    total = 0
    for i in range(n):
        total += i
    return total


def native(n):
    return hashlib.sha256(_BUF[:n]).digest()


def mixed(n):
    counts = {}
    for i in range(n):
        counts[i & 7] = counts.get(i & 7, 0) + 1
    return counts
'''

# loop steps / bytes per call, chosen for about 0.3 µs .. 3 ms per call on this class of machine
SIZES = {"bytecode": (1, 10, 30, 100, 300, 1000, 3000, 10000, 100000),
         "native": (64, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304),
         "mixed": (1, 10, 100, 1000, 10000)}


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def driver(func, n, calls):
    for _ in range(calls):
        func(n)


def measure(worker, target, kind: str, n: int, rounds: int, out: str) -> dict[str, float]:
    func = getattr(target, kind)
    clock = time.perf_counter_ns
    t0 = clock()
    func(n)
    single = max(1, clock() - t0)
    calls = max(20, min(20000, int(20e6 / single)))  # ~20 ms per round
    true, ours_reported, ours_wall, cp_reported, cp_wall = [], [], [], [], []
    for _ in range(rounds):
        start = clock()
        driver(func, n, calls)
        true.append((clock() - start) / calls)

        hook = worker.ProfileHook(["probe_target"], out)
        hook.calibrate()
        hook.set_root(driver)
        hook.start()
        start = clock()
        driver(func, n, calls)
        elapsed = clock() - start
        hook.stop()
        node = hook.children[0][f"probe_target:{kind}"]
        ours_reported.append(hook.inclusive[node] / hook.calls[node])
        ours_wall.append(elapsed / calls)

        profile = cProfile.Profile()
        profile.enable()
        start = clock()
        driver(func, n, calls)
        elapsed = clock() - start
        profile.disable()
        stats = pstats.Stats(profile).stats
        row = next(v for k, v in stats.items() if k[2] == kind and k[0].endswith("probe_target.py"))
        cp_reported.append(row[3] / row[1] * 1e9)  # cumulative seconds / calls
        cp_wall.append(elapsed / calls)
    med = statistics.median
    t = med(true)
    return {"true_ns": t, "ours": med(ours_reported) / t, "ours_wall": med(ours_wall) / t,
            "cprofile": med(cp_reported) / t, "cprofile_wall": med(cp_wall) / t, "probe_ns": hook.traced_call_ns}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--hog", action="store_true", help="run a CPU-bound process beside the measurement")
    args = parser.parse_args()
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.hog else None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "probe_target.py").write_text(TARGET)
            target = load(Path(tmp) / "probe_target.py", "probe_target")
            worker = load(WORKER_PATH, "benchwarden_asv_worker_probe")
            print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, hog={bool(hog)}, rounds={args.rounds}")
            print("| work | true time per call | ours: reported / true | ours: wall / true | "
                  "cProfile: reported / true | cProfile: wall / true |")
            print("|---|---:|---:|---:|---:|---:|")
            probe = []
            for kind, sizes in SIZES.items():
                for n in sizes:
                    r = measure(worker, target, kind, n, args.rounds, tmp)
                    probe.append(r["probe_ns"])
                    print(f"| {kind} | {r['true_ns'] / 1000:.3g} µs | {r['ours']:.2f} | {r['ours_wall']:.2f} | "
                          f"{r['cprofile']:.2f} | {r['cprofile_wall']:.2f} |", flush=True)
            print(f"probe cost per profiled call (the hook's own calibration): median {statistics.median(probe):.0f} ns")
    finally:
        if hog is not None:
            hog.kill()


if __name__ == "__main__":
    main()
