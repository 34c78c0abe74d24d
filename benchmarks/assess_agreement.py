"""Does the compare rule's sequential design decide as a fixed large sample would?  (#19: ≥ 95 % of pairs)

An example is copied to a temporary git repository (so the second assessment reuses the first one's
baseline runs of the same commit) and assessed twice with the compare rule at the same slowdown:

1. **sequential**: the default design, looks after 2..``--max-forks`` slowed forks, stopping each
   (method, benchmark) pair as soon as it is decided;
2. **brute force**: every method × every benchmark that reaches it, ``--fixed`` slowed forks each
   (``--min-forks N --max-forks N``: one look at α = 1 %).

For each pair it prints both outcomes and reports the share of pairs on which they agree, on
"detected" against everything else (what the ABS score counts) and on the full outcome (detected / not
detected / not detectable at this budget / overshot), with the machine time of both slowed phases.
A pair the sequential design left "not detectable at this budget" that the large sample detected is a
disagreement, not excused: it is what a user of the default design would have missed.

Usage: ``.venv/bin/python benchmarks/assess_agreement.py [--only go] [--slowdown 10%] [--fixed 10]
[--max-forks 5] [--runs 3] [--iteration-time 100ms] [--iterations 5] [--metric cpu]``, or
``--project DIR`` for a third-party project with its own benchwarden.toml (its settings and ``[assess]``
section are used as they are; the directory is copied without .git and .benchwarden, never modified).  Prints one JSON line per pair and per example,
then a Markdown table for docs/assess.md.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchwarden.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent))
from assess_cost import SUITES, add_settings_arguments, prepare_example  # noqa: E402  (the cost table's settings)

ROOT = Path(__file__).resolve().parents[1]


def _assess(config: Path, *argv: str) -> tuple[dict, float]:
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    status = main(["assess", "--config", str(config), "--json", "--rule", "compare", *argv], stdout=out, stderr=err)
    wall_s = time.monotonic() - start
    if status != 0:
        raise SystemExit(f"assess {' '.join(argv)} failed ({status}):\n{err.getvalue()}")
    return json.loads(out.getvalue())["suites"][0], wall_s


def _pairs(suite: dict) -> dict[tuple[str, str], dict]:
    return {(d["method"], d["benchmark"]): d for d in suite["detections"]}


def _copy_project(project: Path, tmp: str) -> Path:
    """A copy of a third-party project (its own benchwarden.toml) without its history and stored runs."""
    if not (project / "benchwarden.toml").is_file():
        raise SystemExit(f"{project}: no benchwarden.toml")
    copy = Path(tmp) / project.name
    shutil.copytree(project, copy, symlinks=True, ignore=shutil.ignore_patterns(".git", ".benchwarden", "target"))
    return copy / "benchwarden.toml"


def agreement(example: str, args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"assess-agreement-{example}-") as tmp:
        config = _copy_project(args.project, tmp) if args.project else prepare_example(example, args, tmp, args.metric)
        copy = config.parent
        (copy / ".gitignore").write_text(".benchwarden/\ntarget/\n__pycache__/\n", encoding="utf-8")
        git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
        subprocess.run([*git, "init", "-q"], cwd=copy, check=True)
        subprocess.run([*git, "add", "-A"], cwd=copy, check=True)
        subprocess.run([*git, "commit", "-q", "-m", "example"], cwd=copy, check=True)
        common = ["--slowdown", args.slowdown]
        sequential, seq_wall = _assess(config, *common, "--max-forks", str(args.max_forks))
        brute, brute_wall = _assess(config, *common, "--min-forks", str(args.fixed), "--max-forks", str(args.fixed))
    seq, ref = _pairs(sequential), _pairs(brute)
    rows = []
    for key in sorted(set(seq) | set(ref)):
        s, b = seq.get(key, {}), ref.get(key, {})
        row = {"example": example, "method": key[0], "benchmark": key[1], "sequential": s.get("outcome"),
               "sequential_forks": (s.get("slowed_forks") or 0), "brute_force": b.get("outcome"),
               "brute_ratio": b.get("ratio"), "sequential_ratio": s.get("ratio")}
        rows.append(row)
        print(json.dumps(row), flush=True)
    both = [r for r in rows if r["sequential"] and r["brute_force"]]
    detected_agree = sum((r["sequential"] == "detected") == (r["brute_force"] == "detected") for r in both)
    outcome_agree = sum(r["sequential"] == r["brute_force"] for r in both)
    summary = {"example": example, "metric": args.metric or "time", "slowdown": args.slowdown, "fixed": args.fixed, "pairs": len(both),
               "missing": len(rows) - len(both),
               "agree_detected": detected_agree / len(both) if both else float("nan"),
               "agree_outcome": outcome_agree / len(both) if both else float("nan"),
               "sequential_detected": sum(r["sequential"] == "detected" for r in both),
               "brute_detected": sum(r["brute_force"] == "detected" for r in both),
               "sequential_injected_s": sequential["cost"]["injected_s"],
               "brute_injected_s": brute["cost"]["injected_s"], "study_s": sequential["cost"]["study_s"],
               "sequential_ratio": sequential["cost"]["ratio"], "brute_ratio": brute["cost"]["ratio"],
               "wall_s": round(seq_wall + brute_wall, 1)}
    print(json.dumps(summary), flush=True)
    return summary


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(SUITES), action="append")
    parser.add_argument("--slowdown", default="10%")
    parser.add_argument("--fixed", type=int, default=10, help="slowed forks per pair of the brute-force run")
    parser.add_argument("--max-forks", type=int, default=5, help="the sequential design's budget (default 5)")
    add_settings_arguments(parser)
    parser.add_argument("--metric", choices=["time", "cpu"], help="the suite's metric (default: its own, time)")
    parser.add_argument("--project", type=Path, help="a third-party project directory with its own benchwarden.toml "
                        "(instead of the examples; --runs/--iteration-time/--iterations/--metric do not apply)")
    args = parser.parse_args()
    if args.project:
        args.project = args.project.resolve()
        rows = [agreement(args.project.name, args)]
    else:
        rows = [agreement(example, args) for example in args.only or ["go"]]
    print("\n| example | metric | v | pairs | detected (sequential / fixed) | agree on detected | agree on outcome | "
          "slowed phase: sequential / fixed (of the study's) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['example']} | {r['metric']} | {r['slowdown']} | {r['pairs']} | {r['sequential_detected']} / {r['brute_detected']} "
              f"| {r['agree_detected']:.0%} | {r['agree_outcome']:.0%} | {r['sequential_ratio']:.2f} / "
              f"{r['brute_ratio']:.2f} |")


if __name__ == "__main__":
    main_()
