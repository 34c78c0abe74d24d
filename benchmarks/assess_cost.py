"""Machine time of `benchwarden assess` on the three examples against the study's full-rerun design.

Laaber & Leitner (MSR 2018, §6.1) ran the whole suite 2·(|K′|+1) times for ABS: one baseline and one
run per slowed method, twice. benchwarden traces once which benchmarks reach which method and runs only
those, each paired with an unslowed run. Reference, measured in the same run: one full baseline run of
the same suite with the same settings (the variability runs), multiplied by 2·(|K′|+1).

Each example is copied to a temporary directory and assessed with its whole suite (no filter), the
study's default v (twice the 95th-percentile maxSpread) and K′ = its public API (Java, Python) or the
most-called exported functions while its tests run (Go). Prints one JSON line per suite and a
Markdown table for docs/performance.md.

Usage: ``.venv/bin/python benchmarks/assess_cost.py [--runs 3] [--iteration-time 100ms] [--only jmh]
[--rule study|compare] [--slowdown study|10%] [--groups both]`` (defaults: the study's design, as in
docs/performance.md). ``--groups both`` assesses the Go example twice, with group testing (the default: Go
methods of disjoint reach share one slowed build; the other injectors never group) and without (one variant
per method, the reference), and reports the preparation time of each.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import tempfile
import time
from pathlib import Path

from benchwarden.assess.inject import GoInjector
from benchwarden.cli import main

ROOT = Path(__file__).resolve().parents[1]

SETTINGS = """
[defaults]
iteration_time = "{iteration}"
warmup = {{ min = {warmup}, max = {warmup} }}
iterations = {iterations}
forks = {{ min = 2, max = 2 }}
timeout = "5m"
"""

SUITES = {
    "jmh": """
[suites.wordstat]
kind = "jmh"
build = "mvn -q -B package -DskipTests"
artifact = "target/benchmarks.jar"

[assess]
runs = {runs}
methods = ["wordstat.WordStat#tokenize(java.lang.String)", "wordstat.WordStat#countWordsHash(java.util.List)",
           "wordstat.WordStat#countWordsSorted(java.util.List)", "wordstat.WordStat#topK(java.util.Map,int)",
           "wordstat.WordStat#capitalizeWords(java.lang.String)"]
""",
    "go": """
[suites.wordstat]
kind = "go"

[assess]
runs = {runs}
discover = "tests"
top = 6
""",
    "python": """
[suites.wordstat]
kind = "python"
benchmarks = "benchmarks"
pythonpath = ["."]

[assess]
runs = {runs}
methods = ["wordstat:tokenize", "wordstat:count_words_hash", "wordstat:count_words_sorted", "wordstat:top_k",
           "wordstat:capitalize_words"]
""",
}


def add_settings_arguments(parser: argparse.ArgumentParser) -> None:
    """The iteration settings and baseline runs of the examples' assessment (shared with assess_agreement.py)."""
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--iteration-time", default="100ms")
    parser.add_argument("--iterations", type=int, default=5)


def prepare_example(example: str, args: argparse.Namespace, tmp: str, metric: str | None = None) -> Path:
    """A copy of the example in ``tmp`` with a benchwarden.toml of these settings; its config path."""
    copy = Path(tmp) / example
    shutil.copytree(ROOT / "examples" / example, copy,
                    ignore=shutil.ignore_patterns(".benchwarden", "target", "__pycache__"))
    warmup = 5 if example == "jmh" else 2
    suite = SUITES[example].format(runs=args.runs)
    if metric:
        kind = f'kind = "{example}"'
        suite = suite.replace(kind, f'{kind}\nmetric = "{metric}"', 1)
    toml = SETTINGS.format(iteration=args.iteration_time, warmup=warmup, iterations=args.iterations) + suite
    (copy / "benchwarden.toml").write_text(toml, encoding="utf-8")
    return copy / "benchwarden.toml"


def assess(example: str, args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"assess-cost-{example}-") as tmp:
        config = prepare_example(example, args, tmp)
        out, err = io.StringIO(), io.StringIO()
        start = time.monotonic()
        status = main(["assess", "--config", str(config), "--json", "--rule", args.rule,
                       "--slowdown", args.slowdown], stdout=out, stderr=err)
        wall_s = time.monotonic() - start
        if status != 0:
            raise SystemExit(f"{example}: assess failed ({status}):\n{err.getvalue()}")
        suite = json.loads(out.getvalue())["suites"][0]
    cost = suite["cost"]
    return {"example": example, "benchmarks": len(suite["variability"]["benchmarks"]),
            "k_prime": len(suite["methods"]["selected"]), "v": suite["slowdown"]["v"],
            "abs_total": suite["abs"]["variants"][0]["score"], "full_run_s": cost["full_run_s"],
            "study_runs": cost["study_runs"], "study_s": cost["study_s"], "used_s": cost["used_s"],
            "trace_s": cost["trace_s"], "prepare_s": cost["prepare_s"], "injected_s": cost["injected_s"],
            "ratio": cost["ratio"], "variability_s": cost["variability_s"], "wall_s": round(wall_s, 1),
            "variants": cost["variants"], "groups": example == "go" and GoInjector.groups,
            "unstable": suite["variability"]["unstable"],
            "uncovered": [m["method"] for m in suite["abs"]["methods"] if not m["covered"]]}


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_settings_arguments(parser)
    parser.add_argument("--only", choices=sorted(SUITES), action="append")
    parser.add_argument("--rule", choices=["study", "compare"], default="study",
                        help="detection rule (default: the study's, as in the documented table)")
    parser.add_argument("--slowdown", default="study", help="v: 'study' (default, the documented table) or e.g. 10%%")
    parser.add_argument("--groups", choices=["on", "both"], default="on",
                        help="'both': also without group testing, as the reference for its saving")
    args = parser.parse_args()
    rows = []
    for example in args.only or sorted(SUITES):
        for groups in (True, False) if args.groups == "both" and example == "go" else (True,):
            GoInjector.groups = groups  # the only injector that groups (docs/assess.md §5)
            row = assess(example, args)
            print(json.dumps(row), flush=True)
            rows.append(row)
    print("\n| example | benchmarks | K′ | v | ABS | full run | study 2·(K′+1) | assess (ABS part) | ratio | "
          "variability runs | wall | variants (grouped?) | preparing |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['example']} | {r['benchmarks']} | {r['k_prime']} | {r['v']:.2f} | {r['abs_total']:.0f}% | "
              f"{r['full_run_s']:.1f}s | {r['study_runs']} × = {r['study_s']:.0f}s | {r['used_s']:.0f}s | "
              f"{r['ratio']:.2f} | {r['variability_s']:.0f}s | {r['wall_s']:.0f}s | {r['variants']} "
              f"({'yes' if r['groups'] else 'no'}) | {r['prepare_s']:.1f}s |")


if __name__ == "__main__":
    main_()
