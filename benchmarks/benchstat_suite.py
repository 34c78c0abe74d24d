"""The whole Go example judged by benchwarden and by benchstat's protocol, side by side (issue #11).

``verdict_live.py`` holds both tools to one benchmark. A CI gate judges a *suite*: every benchmark of it, with
the tool's fixed costs (an interpreter and its imports, a build, a listing, a report) paid once per compare and
shared by all of them. This script asks issue #11's live question of the whole Go example (six benchmarks):
does benchwarden find at least what benchstat finds, with fewer false alarms, in no more machine time?

The truth is known per benchmark. ``WORDSTAT_SLOW`` changes only ``Tokenize``; of the six benchmarks only
``BenchmarkTokenize[size=100]`` and ``[size=1000]`` call it in their timed loop (the others tokenize once, before
``b.ResetTimer``), so in a compare of a change those two carry it (its size: ``benchmarks/example_changes.py``)
and the other four are A/A pairs inside the same compare. An A/A compare has six A/A pairs.

Per round, in a seeded random order of the two protocols (a temporary copy of ``examples/go``, nothing in the
repository changed):

* **benchwarden**: ``benchwarden compare`` of the whole suite, the example's settings but ``metric = "cpu"``
  (the metric the Go verdicts are proved in, docs/performance.md), 100-ms iterations, warmup 2, 5 measured, and
  compare's defaults otherwise (min_change 3 %, 4–20 pairs, ``--pairing auto``); for a change the candidate is
  ``--variant-env WORDSTAT_SLOW=…``. *Found*: verdict slower (faster, for the sign test: never expected here);
* **benchstat's protocol**, as its users run it: ``go test -run '^$' -bench . -count 10 -benchtime 100ms`` per
  side (base, then candidate, each with its build from the cache) and ``benchstat base.txt candidate.txt``.
  *Found*: the sec/op row names a change with p < 0.05 (benchstat's α); its sign is recorded.

Machine time of each protocol: the CPU time (user + system) of every process it started, waited for
(``RUSAGE_CHILDREN``: the benchwarden interpreter with its forks and builds; the two ``go test`` runs with
their builds and benchstat), and its wall time.

Usage: ``.venv/bin/python benchmarks/benchstat_suite.py [--aa 6] [--repeat 3] [--changes small,medium]
[--neighbour] [--budget "--max-forks 4 --iteration-time 50ms"] [--benchstat PATH] [--seed 1] [--json FILE]``.
``--budget`` passes more options to ``compare``: with ``--max-forks 4 --iteration-time 50ms`` benchwarden spends
benchstat's 1 s of iterations per benchmark and version (4 pairs of 5 × 50 ms; benchstat 10 × 100 ms).
Prints Markdown tables (docs/performance.md, "The whole Go example beside benchstat").
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHWARDEN = Path(sys.executable).parent / "benchwarden"
CHANGED = {"Tokenize/size=100", "Tokenize/size=1000"}  # the benchmarks whose timed loop calls Tokenize
ITERATION = "100ms"


def canonical(name: str) -> str:
    """One spelling for both tools: ``BenchmarkTokenize[size=100]`` and benchstat's ``Tokenize/size=100-2``."""
    name = name.split(":")[-1]
    name = name.removeprefix("Benchmark").replace("[", "/").replace("]", "")
    return re.sub(r"-\d+$", "", name)


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _copy(work: Path) -> Path:
    root = work / "go"
    shutil.copytree(ROOT / "examples" / "go", root, ignore=shutil.ignore_patterns(".benchwarden"))
    config = root / "benchwarden.toml"
    text = config.read_text()
    assert "[suites.wordstat]\n" in text
    config.write_text(text.replace("[suites.wordstat]\n", '[suites.wordstat]\nmetric = "cpu"\n', 1))
    return root


def benchwarden(root: Path, change: str | None, seed: int, budget: list[str]) -> dict:
    argv = [str(BENCHWARDEN), "compare", "--config", str(root / "benchwarden.toml"), "--suite", "wordstat",
            "--warmup", "2", "--iterations", "5", "--iteration-time", ITERATION, "--pairing", "auto",
            "--seed", str(seed), "--json", "-q", *budget]
    argv += ["--variant-env", f"WORDSTAT_SLOW={change}"] if change else ["WORKTREE", "WORKTREE"]
    start, cpu_before = time.monotonic(), _children_cpu_s()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=3600)
    wall_s, cpu_s = time.monotonic() - start, _children_cpu_s() - cpu_before
    if done.returncode not in (0, 1):
        raise SystemExit(f"compare failed ({done.returncode}):\n{done.stderr[-3000:]}")
    data = json.loads(done.stdout)
    rows = {canonical(r["benchmark"]): {"verdict": r["verdict"], "ratio": r["ratio"], "ci": r["ci"], "mde": r["mde"],
                                   "pairs": r["forks"]["base"]} for r in data["benchmarks"]}
    return {"rows": rows, "cpu_s": cpu_s, "wall_s": wall_s, "forks_s": data["machine_time_s"]}


_ROW = re.compile(r"^(\S+)\s+.*?(?:([+-]\d+\.\d+)% \(p=(\d\.\d+) n=\d+\)|~ \(p=(\d\.\d+) n=\d+\))")


def parse_benchstat(table: str) -> dict[str, dict]:
    """The sec/op table of ``benchstat old new``: per benchmark the change, p, and whether p < 0.05."""
    rows: dict[str, dict] = {}
    in_time = False
    for line in table.splitlines():
        if "sec/op" in line:
            in_time = True
            continue
        if in_time and (line.startswith("geomean") or not line.strip()):
            if rows:
                break
            continue
        match = _ROW.match(line) if in_time else None
        if match:
            change = float(match.group(2)) / 100 if match.group(2) else 0.0
            p = float(match.group(3) or match.group(4))
            rows[canonical(match.group(1))] = {"change": change, "p": p, "flagged": match.group(2) is not None
                                               and p < 0.05}
    return rows


def benchstat(root: Path, tool: str, work: Path, change: str | None, seed: int) -> dict:
    outputs = []
    start, cpu_before = time.monotonic(), _children_cpu_s()
    for side, slow in (("base", None), ("candidate", change)):
        env = {k: v for k, v in os.environ.items() if k != "WORDSTAT_SLOW"}
        if slow:
            env["WORDSTAT_SLOW"] = slow
        done = subprocess.run(["go", "test", "-run", "^$", "-bench", ".", "-count", "10", "-benchtime", ITERATION,
                               "."], cwd=root, env=env, capture_output=True, text=True, check=True, timeout=1800)
        path = work / f"bs-{change or 'aa'}-{seed}-{side}.txt"
        path.write_text(done.stdout)
        outputs.append(str(path))
    table = subprocess.run([tool, *outputs], capture_output=True, text=True, check=True).stdout
    wall_s, cpu_s = time.monotonic() - start, _children_cpu_s() - cpu_before
    return {"rows": parse_benchstat(table), "cpu_s": cpu_s, "wall_s": wall_s, "table": table}


def tally(cases: list[dict], key: str) -> dict:
    """Per protocol: changed pairs found (and found in the wrong direction), A/A pairs flagged, pairs missing."""
    found = wrong = changed = alarms = unchanged_pairs = missing = 0
    for case in cases:
        rows = case[key]["rows"]
        names = CHANGED if case["change"] else set()
        for name in case["names"]:
            row = rows.get(name)
            if row is None:
                missing += 1
                continue
            if key == "benchwarden":
                up, down = row["verdict"] == "slower", row["verdict"] == "faster"
            else:
                up, down = row["flagged"] and row["change"] > 0, row["flagged"] and row["change"] < 0
            if name in names:
                changed += 1
                found += up
                wrong += down
            else:
                unchanged_pairs += 1
                alarms += up or down
    return {"found": found, "wrong_direction": wrong, "changed": changed, "false_alarms": alarms,
            "unchanged": unchanged_pairs, "missing": missing,
            "cpu_s": sum(c[key]["cpu_s"] for c in cases), "wall_s": sum(c[key]["wall_s"] for c in cases)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aa", type=int, default=6, help="A/A rounds")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per change")
    parser.add_argument("--changes", default="small,medium")
    parser.add_argument("--neighbour", action="store_true", help="a CPU-bound process beside both protocols")
    parser.add_argument("--benchstat", default=shutil.which("benchstat")
                        or str(Path.home() / "go" / "bin" / "benchstat"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", default="", help="more compare options, e.g. '--max-forks 4 --iteration-time "
                        "50ms' (benchstat's budget: 4 pairs of 5 x 50 ms = its 10 x 100 ms per version)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not Path(args.benchstat).exists():
        raise SystemExit("benchstat not found: go install golang.org/x/perf/cmd/benchstat@latest, or --benchstat")
    rng = random.Random(args.seed)
    plan = [None] * args.aa + [c for c in args.changes.split(",") if c for _ in range(args.repeat)]
    neighbour = subprocess.Popen(["sh", "-c", "while :; do :; done"]) if args.neighbour else None
    loads = [os.getloadavg()[0]]
    cases: list[dict] = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            root = _copy(work)
            subprocess.run(["go", "test", "-c", "-o", os.devnull, "."], cwd=root, check=True)  # warm the cache
            for i, change in enumerate(plan, 1):
                case: dict = {"change": change}
                order = ["benchwarden", "benchstat"]
                rng.shuffle(order)
                for who in order:
                    case[who] = (benchwarden(root, change, i, args.budget.split()) if who == "benchwarden"
                                 else benchstat(root, args.benchstat, work, change, i))
                case["names"] = sorted(set(case["benchwarden"]["rows"]) | set(case["benchstat"]["rows"]))
                loads.append(os.getloadavg()[0])
                bw = ", ".join(f"{n} {r['verdict']} {r['ratio']:.3f} ({r['pairs']})"
                               for n, r in case["benchwarden"]["rows"].items())
                bs = ", ".join(f"{n} {r['change']:+.1%} p={r['p']:.3f}" for n, r in case["benchstat"]["rows"].items())
                print(f"round {i} ({change or 'A/A'}): benchwarden {case['benchwarden']['cpu_s']:.1f} s CPU: {bw}\n"
                      f"    benchstat {case['benchstat']['cpu_s']:.1f} s CPU: {bs}", flush=True)
                cases.append(case)
    finally:
        if neighbour is not None:
            neighbour.kill()
    print(f"\n{started}, CPU-bound neighbour: {neighbour is not None}, compare options: {args.budget or '-'}, "
          f"load average (1 min) between rounds {min(loads):.1f}-{max(loads):.1f}\n")
    print("| protocol | case | rounds | changed pairs found (wrong direction) | A/A pairs flagged | "
          "CPU time each (median) | wall time each (median) |")
    print("|---|---|---:|---|---|---:|---:|")
    summary: dict = {}
    for label, change in [("A/A", None)] + [(c, c) for c in args.changes.split(",") if c]:
        subset = [c for c in cases if c["change"] == change]
        if not subset:
            continue
        for who in ("benchwarden", "benchstat"):
            t = summary.setdefault(who, {})[label] = tally(subset, who)
            cpu = statistics.median(c[who]["cpu_s"] for c in subset)
            wall = statistics.median(c[who]["wall_s"] for c in subset)
            found = f"{t['found']} of {t['changed']} ({t['wrong_direction']})" if t["changed"] else "–"
            print(f"| {who} | {label} | {len(subset)} | {found} | {t['false_alarms']} of {t['unchanged']} | "
                  f"{cpu:.1f} s | {wall:.1f} s |")
    for who in ("benchwarden", "benchstat"):
        total = tally(cases, who)
        print(f"\n{who}: all rounds {total['cpu_s']:.0f} s CPU, {total['wall_s']:.0f} s wall; found "
              f"{total['found']} of {total['changed']} changed pairs ({total['wrong_direction']} in the wrong "
              f"direction), flagged {total['false_alarms']} of {total['unchanged']} unchanged pairs"
              + (f", {total['missing']} missing" if total["missing"] else ""))
    if args.json:
        args.json.write_text(json.dumps({"started": started, "neighbour": neighbour is not None, "budget": args.budget,
                                         "load_average": [min(loads), max(loads)], "cases": cases,
                                         "summary": summary}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
