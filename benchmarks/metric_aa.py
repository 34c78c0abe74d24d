"""A/A compares of any suite in two primary metrics, side by side, beside a CPU-bound neighbour: how small a change
each metric could have detected (the MDE at the budget), what each verdict was, and what it cost.

For the JMH CPU-time profiler (docs/metrics.md, "JMH's CPU time") on a real third-party suite: ``compare WORKTREE
WORKTREE`` on the suite as configured, alternately with ``metric = "time"`` and each other metric named (rounds
interleaved, so both metrics see the same load), each with compare's defaults (min_change 3 %, 4-20 pairs).
The suite's configuration is not changed: a copy of it is written beside it (``benchwarden-aa-<metric>.toml``), in
which every ``metric =`` line is dropped and the suite's table sets the metric; the store beside them holds every
compare.

Usage: ``.venv/bin/python benchmarks/metric_aa.py --config PATH/benchwarden.toml --suite NAME [--filter REGEX]
[--metrics time,cpu] [--rounds 3] [--no-neighbour] [--json FILE]``. Prints a Markdown table per benchmark and metric
(docs/performance.md, "JMH in CPU time").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

BENCHWARDEN = Path(sys.executable).parent / "benchwarden"


def _config_with_metric(config: Path, suite: str, metric: str) -> Path:
    text = config.read_text(encoding="utf-8")
    header = f"[suites.{suite}]\n"
    if header not in text:
        raise SystemExit(f"{config}: no [suites.{suite}] table")
    text = re.sub(r'(?m)^metric\s*=.*$\n?', "", text)
    copy = config.with_name(f"benchwarden-aa-{metric}.toml")
    copy.write_text(text.replace(header, f'{header}metric = "{metric}"\n', 1), encoding="utf-8")
    return copy


def compare(config: Path, suite: str, filt: str | None, seed: int) -> dict:
    argv = [str(BENCHWARDEN), "compare", "WORKTREE", "WORKTREE", "--config", str(config), "--suite", suite,
            "--seed", str(seed), "--json", "-q", *(["--filter", filt] if filt else [])]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=4 * 3600)
    if done.returncode not in (0, 1):
        raise SystemExit(f"compare failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--suite", required=True)
    parser.add_argument("--filter")
    parser.add_argument("--metrics", default="time,cpu")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-neighbour", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    metrics = [m for m in args.metrics.split(",") if m]
    configs = {m: _config_with_metric(args.config.resolve(), args.suite, m) for m in metrics}
    neighbour = None if args.no_neighbour else subprocess.Popen(["sh", "-c", "while :; do :; done"])
    rows: dict[tuple[str, str], list[dict]] = defaultdict(list)
    machine: dict[str, list[float]] = defaultdict(list)
    loads = [os.getloadavg()[0]]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    try:
        for seed in range(1, args.rounds + 1):
            for metric in metrics:
                data = compare(configs[metric], args.suite, args.filter, seed)
                machine[metric].append(data["machine_time_s"])
                for result in data["benchmarks"]:
                    rows[result["benchmark"], metric].append(
                        {"verdict": result["verdict"], "pairs": result["forks"]["base"], "ratio": result["ratio"],
                         "mde": result["mde"]})
                loads.append(os.getloadavg()[0])
                print(f"round {seed} {metric}: {data['machine_time_s']:.0f} s machine time", file=sys.stderr,
                      flush=True)
    finally:
        if neighbour is not None:
            neighbour.kill()
    print(f"{started}, {args.config}, suite {args.suite}, CPU-bound neighbour: {neighbour is not None}, "
          f"load average between compares {min(loads):.1f}-{max(loads):.1f}\n")
    print("| benchmark | metric | A/A compares | verdicts | median pairs | median ratio | median MDE |")
    print("|---|---|---:|---|---:|---:|---:|")
    for (bench, metric), cases in sorted(rows.items()):
        verdicts = Counter(c["verdict"] for c in cases)
        mdes = [c["mde"] for c in cases if c["mde"] is not None]
        named = ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items()))
        print(f"| `{bench}` | {metric} | {len(cases)} | {named} | "
              f"{statistics.median(c['pairs'] for c in cases):.0f} | "
              f"{statistics.median(c['ratio'] for c in cases):.3f} | "
              f"{f'{statistics.median(mdes):.1%}' if mdes else '–'} |")
    print()
    for metric in metrics:
        print(f"{metric}: machine time per compare (all benchmarks) median {statistics.median(machine[metric]):.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"started": started, "loads": loads, "machine_s": machine,
                                         "rows": {f"{b} | {m}": c for (b, m), c in rows.items()}}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
