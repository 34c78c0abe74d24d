"""How often `compare --explain` ranks an injected slowdown's function first, by slowdown size, on a Python suite.

For every (benchmark, function it reaches, slowdown v) the script runs the explanation step of ``compare --explain``
(:func:`benchwarden.codelevel.profiling.explain_benchmark`: profiled fork pairs, call-tree diff, ranked causes)
with the candidate = the base plus assess's busy-wait injection (``BENCHWARDEN_INJECT``: each call of the function
takes (1 + v) times as long), and records the injected function's rank among the causes (1 = first). A/A runs
(no injection) count explanations that name any cause. The verdict step is left out: this measures the
explanation of a change known to be there. An injection "takes effect" when the benchmark got ≥ 3 % slower under
the probe: the wrapper cannot slow a function the code calls through a reference taken before it was installed
(wordstat's ``_TOKENIZERS`` dispatch table holds ``_tokenize_one_pass`` itself), and those rows say so.

Default: the Python example (examples/python), its benchmarks over 1000 words and the wordstat functions each
reaches, v in 5 %, 10 %, 30 %, 100 %. ``--config`` points at another asv suite's benchwarden.toml with
``--cases 'benchmark regex=module:function,...'``.

Usage: ``.venv/bin/python benchmarks/explain_injections.py [--pairs 6] [--aa 5] [--hog]``; figures go to
docs/code-level.md.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from benchwarden.codelevel.profiling import ExplainSettings, explain_benchmark  # noqa: E402
from benchwarden.compare.pairing import MatchedBenchmark  # noqa: E402
from benchwarden.compare.verdict import Verdict  # noqa: E402
from benchwarden.config import load_config  # noqa: E402
from benchwarden.runner.engine import PlannedBenchmark, plan_run  # noqa: E402

EXAMPLE_CASES = {
    r"Tokenize\.time_tokenize\[size=1000\]": ["wordstat:tokenize", "wordstat:_tokenize_one_pass"],
    r"CountWordsBySize\.time_count\[size=1000\]": ["wordstat:count_words_hash"],
    r"CountWords\.time_count_sorted": ["wordstat:count_words_sorted"],
    r"TopK\.time_top_k": ["wordstat:top_k"],
}
FACTORS = (0.05, 0.10, 0.30, 1.0)


def injected(p: PlannedBenchmark, function: str, factor: float) -> PlannedBenchmark:
    spec = {"v": 1, "mode": "slowdown", "target": function, "factor": factor}
    ctx = p.suite.context
    return replace(p, suite=replace(p.suite, context=replace(ctx, env={**ctx.env,
                                                                        "BENCHWARDEN_INJECT": json.dumps(spec)})))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=ROOT / "examples" / "python" / "benchwarden.toml")
    parser.add_argument("--suite", default="wordstat")
    parser.add_argument("--cases", help="'benchmark regex=module:function,...;...' (default: the example's)")
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--aa", type=int, default=5, help="A/A explanations per benchmark")
    parser.add_argument("--factors", default=",".join(str(f) for f in FACTORS))
    parser.add_argument("--hog", action="store_true", help="run a CPU-bound process beside the measurement")
    args = parser.parse_args()
    cases = EXAMPLE_CASES if not args.cases else {
        k: v.split(",") for k, v in (part.split("=", 1) for part in args.cases.split(";"))}
    factors = [float(f) for f in args.factors.split(",")]
    config = load_config(args.config)
    suites = config.select([args.suite])
    plan = plan_run(suites)
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.hog else None
    rows, ranks, aa_named, aa_total = [], {f: [] for f in factors}, 0, 0
    start = time.monotonic()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            seed = 0
            for pattern, functions in cases.items():
                (p,) = [b for b in plan.benchmarks if re.search(pattern, b.benchmark.id.key)]
                for _ in range(args.aa):
                    seed += 1
                    e = explain_benchmark(MatchedBenchmark(p, p), Verdict.SLOWER,
                                          ExplainSettings(args.pairs, 0.03, seed), Path(tmp) / f"aa{seed}")
                    aa_total += 1
                    aa_named += bool(e.causes)
                    if e.error:
                        print("error:", e.error, file=sys.stderr)
                for function in functions:
                    for factor in factors:
                        seed += 1
                        e = explain_benchmark(MatchedBenchmark(p, injected(p, function, factor)), Verdict.SLOWER,
                                              ExplainSettings(args.pairs, 0.03, seed), Path(tmp) / f"x{seed}")
                        names = [c[-1] for c in e.causes]
                        rank = names.index(function) + 1 if function in names else None
                        ranks[factor].append(rank)
                        change = e.candidate_ns / e.base_ns - 1 if e.base_ns else float("nan")
                        rows.append((p.benchmark.id.key, function, factor, change, rank, names[:1], e.error))
                        print(f"{p.benchmark.id.key} {function} v={factor:g}: benchmark {change:+.1%} under the "
                              f"probe, rank {rank}, first {names[:1]}" + (f", error {e.error}" if e.error else ""),
                              flush=True)
    finally:
        if hog is not None:
            hog.kill()
    print()
    print("| slowdown v of the function | injections | took effect (benchmark ≥ +3 % under the probe) | "
          "ranked first | found (any rank) |")
    print("|---:|---:|---:|---:|---:|")
    for factor in factors:
        effective = [row[4] for row in rows if row[2] == factor and row[3] >= 0.03]
        print(f"| {factor:.0%} | {len(ranks[factor])} | {len(effective)} | {sum(x == 1 for x in effective)} | "
              f"{sum(x is not None for x in effective)} |")
    print(f"A/A: {aa_named} of {aa_total} explanations named a cause; {time.monotonic() - start:.0f} s in all")


if __name__ == "__main__":
    main()
