"""Live verdicts on the examples under load: A/A false alarms, the small and medium switchable changes, and
benchstat's protocol side by side on the Go example (issue #11's live "Done when").

For each example (a temporary copy; JMH with a private lock directory, as the e2e tests do), with a CPU-bound
process beside it unless ``--no-neighbour``:

* ``--aa`` A/A compares (``compare WORKTREE WORKTREE``, seeds 1..N): every verdict, pairs used, machine time;
* ``--repeat`` compares per switchable change (``WORDSTAT_SLOW=small|medium``; JMH: ``-Dwordstat.slow=…``),
  the base the unchanged example;
* Go only, ``--benchstat-rounds`` rounds of benchstat's protocol: the compiled test binary run with
  ``-test.count 10`` per side (base, then candidate) and ``benchstat`` on the two outputs, flagged when it
  prints a change with p < 0.05 (benchstat's own α), for A/A and for each change; machine time = the two
  binaries' run time.

Two costs per compare: *machine time*, compare's own figure (the wall time of every fork, both versions:
core-seconds occupied), and *CPU time*, the user + system time of every process the compare started
(benchwarden's own interpreter included) — for benchstat's protocol, of the two binaries and benchstat.
Under load a fork's wall time grows with its neighbours; its CPU time does not.

One benchmark per example: tokenize over 1000 words, the one the switchable changes touch (its true change
sizes: ``benchmarks/example_changes.py``). Settings are the e2e tests' (100 ms iterations, 200 ms for JMH,
5 measured iterations per fork) with compare's defaults otherwise (min_change 3 %, 4-20 pairs).

Usage: ``.venv/bin/python benchmarks/verdict_live.py [--examples go,python,jmh] [--aa 10] [--repeat 3]
[--changes small,medium] [--pairing sequential] [--metric time|cpu|instructions] [--iterations 5]
[--iteration-time 100ms] [--benchstat-rounds 5] [--benchstat PATH] [--dynamic] [--json FILE]``.
``--dynamic``: every fork's warmup decided by the default dynamic policy (``level`` + ``precision``, warmup 5–20)
instead of the fixed warmup — a stopping change measured on the same small changes and A/A.
Prints Markdown tables (docs/performance.md, "Live verdicts").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHWARDEN = Path(sys.executable).parent / "benchwarden"

EXAMPLES = {  # folder, filter, warmup, iteration time, how the candidate selects a change
    "go": ("go", r"BenchmarkTokenize\[size=1000\]", "2", "100ms", "--variant-env", "WORDSTAT_SLOW={}"),
    "python": ("python", r"time_tokenize\[size=1000\]", "2", "100ms", "--variant-env", "WORDSTAT_SLOW={}"),
    "jmh": ("jmh", r"TokenizeBench\.tokenize\[size=1000\]", "10", "200ms", "--variant-jvm-arg",
            "-Dwordstat.slow={}"),
}


def _copy(work: Path, name: str, metric: str, dynamic: bool = False) -> Path:
    folder = EXAMPLES[name][0]
    root = work / folder
    shutil.copytree(ROOT / "examples" / folder, root, ignore=shutil.ignore_patterns(".benchwarden", "__pycache__"))
    if dynamic:  # every fork's warmup decided by the default dynamic policy (level + precision), not fixed
        config = root / "benchwarden.toml"
        text = re.sub(r"(?m)^warmup = \{[^}]*\}", "warmup = { min = 5, max = 20 }", config.read_text(), count=1)
        assert 'stop = "static"' in text
        config.write_text(text.replace('stop = "static"', 'stop = "dynamic"', 1))
    if metric != "time":  # the suite's primary metric (docs/metrics.md); JMH takes time and cpu
        config = root / "benchwarden.toml"
        text = config.read_text()
        assert "[suites.wordstat]\n" in text
        config.write_text(text.replace("[suites.wordstat]\n", f'[suites.wordstat]\nmetric = "{metric}"\n', 1))
    if name == "jmh":  # its own /tmp/jmh.lock: other JMH processes on the machine must not block it
        lock_dir = work / "jmh-tmp"
        lock_dir.mkdir()
        wrapper = work / "java"
        wrapper.write_text(f'#!/bin/sh\nexec "{shutil.which("java")}" "-Djava.io.tmpdir={lock_dir}" "$@"\n')
        wrapper.chmod(0o755)
        config = root / "benchwarden.toml"
        config.write_text(config.read_text().replace('kind = "jmh"\n', f'kind = "jmh"\njava = "{wrapper}"\n', 1))
    return root


def _children_cpu_s() -> float:
    """CPU time (user + system) of every finished child process so far, and of what they waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def compare(root: Path, name: str, seed: int, pairing: str, change: str | None, dynamic: bool = False,
            iterations: int = 5, iteration_time: str | None = None) -> dict:
    _, filt, warmup, iteration, flag, template = EXAMPLES[name]
    argv = [str(BENCHWARDEN), "compare", "--config", str(root / "benchwarden.toml"), "--suite", "wordstat",
            "--filter", filt, *([] if dynamic else ["--warmup", warmup]), "--iteration-time",
            iteration_time or iteration, "--iterations", str(iterations), "--seed", str(seed), "--pairing", pairing,
            "--json", "-q"]
    argv += [flag, template.format(change)] if change else ["WORKTREE", "WORKTREE"]
    cpu_before = _children_cpu_s()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=3600)
    cpu_s = _children_cpu_s() - cpu_before
    if done.returncode not in (0, 1):
        raise SystemExit(f"compare failed ({done.returncode}):\n{done.stderr[-3000:]}")
    data = json.loads(done.stdout)
    (result,) = data["benchmarks"]
    return {"verdict": result["verdict"], "pairs": result["forks"]["base"], "ratio": result["ratio"],
            "ci": result["ci"], "mde": result["mde"], "machine_s": data["machine_time_s"], "cpu_s": cpu_s}


def _benchstat_round(binary: Path, benchstat: str, work: Path, change: str | None, i: int) -> dict:
    outputs = []
    start, cpu_before = time.monotonic(), _children_cpu_s()
    for side, slow in (("base", ""), ("candidate", change or "")):
        env = {k: v for k, v in os.environ.items() if k != "WORDSTAT_SLOW"}
        if slow:
            env["WORDSTAT_SLOW"] = slow
        done = subprocess.run([str(binary), "-test.run", "^$", "-test.bench", "^BenchmarkTokenize$/^size=1000$",
                               "-test.count", "10", "-test.benchtime", "100ms"], cwd=binary.parent, env=env,
                              capture_output=True, text=True, check=True)
        path = work / f"bs-{change or 'aa'}-{i}-{side}.txt"
        path.write_text(done.stdout)
        outputs.append(str(path))
    machine_s = time.monotonic() - start
    table = subprocess.run([benchstat, *outputs], capture_output=True, text=True, check=True).stdout
    cpu_s = _children_cpu_s() - cpu_before
    line = next((x for x in table.splitlines() if "Tokenize" in x and "size=1000" in x), "")
    match = re.search(r"([+-]\d+\.\d+)% \(p=(\d\.\d+) n=", line)
    flagged = match is not None and float(match.group(2)) < 0.05
    return {"flagged": flagged, "change": float(match.group(1)) / 100 if match else 0.0,
            "p": float(match.group(2)) if match else None, "machine_s": machine_s, "cpu_s": cpu_s,
            "line": line.strip()}


def _summary(rows: list[dict]) -> str:
    verdicts = Counter(r["verdict"] for r in rows)
    return ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", default="go,python,jmh")
    parser.add_argument("--aa", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--changes", default="small,medium")
    parser.add_argument("--pairing", default="sequential")
    parser.add_argument("--iterations", type=int, default=5, help="measured iterations per fork")
    parser.add_argument("--iteration-time", help="override the example's iteration time (e.g. 100ms)")
    parser.add_argument("--metric", default="time", choices=("time", "cpu", "instructions"),
                        help="the suites' primary metric (JMH: time or cpu)")
    parser.add_argument("--benchstat-rounds", type=int, default=5)
    parser.add_argument("--benchstat", default=shutil.which("benchstat") or "")
    parser.add_argument("--no-neighbour", action="store_true")
    parser.add_argument("--dynamic", action="store_true",
                        help="warmup decided by the default dynamic policy (warmup 5-20), not fixed")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    changes = [c for c in args.changes.split(",") if c]
    neighbour = None if args.no_neighbour else subprocess.Popen(["sh", "-c", "while :; do :; done"])
    results: dict = {"started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "pairing": args.pairing,
                     "metric": args.metric,
                     "neighbour": neighbour is not None, "examples": {}}
    loads = [os.getloadavg()[0]]
    print(f"{results['started']}, pairing {args.pairing}, metric {args.metric}, "
          f"CPU-bound neighbour: {neighbour is not None}\n")
    print("| example | case | compares | verdicts | median pairs | median ratio | median MDE | machine time each "
          "| CPU time each |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            for name in args.examples.split(","):
                (work / name).mkdir()
                metric = "time" if name == "jmh" and args.metric == "instructions" else args.metric
                root = _copy(work / name, name, metric, args.dynamic)
                cases = [("A/A", None, args.aa)] + [(c, c, args.repeat) for c in changes]
                per = results["examples"][name] = {}
                for label, change, n in cases:
                    if n == 0:  # --aa 0 or --repeat 0: nothing to run or summarise
                        continue
                    rows = [compare(root, name, seed, args.pairing, change, args.dynamic, args.iterations,
                                    args.iteration_time) for seed in range(1, n + 1)]
                    loads.append(os.getloadavg()[0])
                    per[label] = rows
                    mdes = [r["mde"] for r in rows if r["mde"] is not None]
                    print(f"| {name} | {label} | {n} | {_summary(rows)} | "
                          f"{statistics.median(r['pairs'] for r in rows):.0f} | "
                          f"{statistics.median(r['ratio'] for r in rows):.3f} | "
                          f"{(f'{statistics.median(mdes):.1%}' if mdes else '–')} | "
                          f"{statistics.median(r['machine_s'] for r in rows):.1f} s | "
                          f"{statistics.median(r['cpu_s'] for r in rows):.1f} s |", flush=True)
                if name == "go" and args.benchstat_rounds and args.benchstat:
                    binary = root / "wordstat.test"
                    subprocess.run(["go", "test", "-c", "-o", str(binary), "."], cwd=root, check=True)
                    bs = results["benchstat"] = {}
                    for label, change in [("A/A", None)] + [(c, c) for c in changes]:
                        rows = [_benchstat_round(binary, args.benchstat, work, change, i)
                                for i in range(args.benchstat_rounds)]
                        bs[label] = rows
                        flagged = sum(r["flagged"] for r in rows)
                        print(f"| go, benchstat -count 10 | {label} | {len(rows)} | flagged {flagged} of {len(rows)}"
                              f" | 10 | {statistics.median(1 + r['change'] for r in rows):.3f} | – | "
                              f"{statistics.median(r['machine_s'] for r in rows):.1f} s | "
                              f"{statistics.median(r['cpu_s'] for r in rows):.1f} s |", flush=True)
    finally:
        if neighbour is not None:
            neighbour.kill()
    results["load_average"] = {"min": min(loads), "max": max(loads)}
    print(f"\nload average (1 min) between cases: {min(loads):.1f}-{max(loads):.1f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
