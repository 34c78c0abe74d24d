"""Seeded simulation of ``compare --explain``'s sequential looks (codelevel.explain.explain_sequential).

The simulated profiles are tests/unit/codelevel/test_explain.py's: a benchmark function calling an API function
that calls three helpers, each fork with a machine factor (s_f = 5 %) and per-node noise s_n. Two questions:

* **power**: one helper's own time (``lib:emit``, 6.5 % of the benchmark) slowed by a factor; how often is it
  ranked first by one look of 6 pairs, and by up to three looks (6, 12, 18 pairs)?
* **A/A**: how often is any cause named, one look against three, and three looks without the Bonferroni
  correction (every look at the one-look confidence)?

Usage: ``.venv/bin/python benchmarks/explain_sequential_sim.py [--runs 1000]``; figures in docs/code-level.md
("Noise costs pairs, not the cause").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from benchwarden.codelevel.explain import DEFAULT_CONFIDENCE, explain, explain_sequential  # noqa: E402
from benchwarden.compare.verdict import Verdict  # noqa: E402
from tests.unit.codelevel.test_explain import ROOT as BENCH  # noqa: E402
from tests.unit.codelevel.test_explain import SELF, forks, slowed  # noqa: E402

TARGET = (BENCH, "lib:api", "lib:emit")


def draw_from(rng, base_ns, candidate_ns, s_n):
    def draw(k):
        return forks(rng, base_ns, 1, 0.05, s_n)[0], forks(rng, candidate_ns, 1, 0.05, s_n)[0]
    return draw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="A/A experiments per noise level")
    parser.add_argument("--power-runs", type=int, default=100)
    args = parser.parse_args()
    print("| node noise s_n | emit's own time | first, one look (6 pairs) | first, up to 3 looks |")
    print("|---:|---:|---:|---:|")
    for s_n, factor in [(0.05, 1.3), (0.15, 1.2), (0.2, 1.3), (0.25, 1.4)]:
        rng = np.random.default_rng(1)
        one = seq = 0
        for _ in range(args.power_runs):
            one += explain("s:b", Verdict.SLOWER, forks(rng, SELF, 6, 0.05, s_n),
                           forks(rng, slowed(TARGET, factor), 6, 0.05, s_n), min_change=0.03).causes[:1] == (TARGET,)
            seq += explain_sequential("s:b", Verdict.SLOWER, draw_from(rng, SELF, slowed(TARGET, factor), s_n),
                                      pairs=6, min_change=0.03).causes[:1] == (TARGET,)
        print(f"| {s_n:.0%} | {factor - 1:+.0%} | {one / args.power_runs:.0%} | {seq / args.power_runs:.0%} |")
    print()
    print("| node noise s_n | A/A naming a cause: one look | up to 3 looks | 3 looks, uncorrected |")
    print("|---:|---:|---:|---:|")
    uncorrected = 1 - (1 - DEFAULT_CONFIDENCE) * 3  # so that each look is at the one-look confidence
    for s_n in (0.02, 0.2):
        rng = np.random.default_rng(99)
        counts = [0, 0, 0]
        for _ in range(args.runs):
            counts[0] += bool(explain("s:b", Verdict.SLOWER, forks(rng, SELF, 6, 0.05, s_n),
                                      forks(rng, SELF, 6, 0.05, s_n), min_change=0.03).causes)
            counts[1] += bool(explain_sequential("s:b", Verdict.SLOWER, draw_from(rng, SELF, SELF, s_n), pairs=6,
                                                 min_change=0.03).causes)
            counts[2] += bool(explain_sequential("s:b", Verdict.SLOWER, draw_from(rng, SELF, SELF, s_n), pairs=6,
                                                 min_change=0.03, confidence=uncorrected).causes)
        print(f"| {s_n:.0%} | " + " | ".join(f"{c / args.runs:.1%}" for c in counts) + " |")


if __name__ == "__main__":
    main()
