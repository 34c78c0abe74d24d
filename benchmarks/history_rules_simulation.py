"""Seeded simulations behind the figures of docs/history.md and docs/metrics.md for this session's rules.

* ``bisect``: searches over 13 commits, the slowdown at a random commit, each step a fixed sample of 20 fork pairs
  judged by compare's rule (``compare.verdict.judge``): found, within ⌈log2 n⌉ + 2, undecided, wrong.
* ``compare --against history`` (``history.baseline.judge_against_history``): A/A change claims for normal and
  heavy-tailed (t, 3 df) run-to-run noise at k = 5, 10, 20 commits; power for +10 % at 2 % noise, k = 15.
* The separation rule for counts that vary (``compare.metrics.separation_verdict``): A/A with 3 forks per side at
  noise 4x the tolerance, for normal, t3 and lognormal noise.

Usage: ``.venv/bin/python benchmarks/history_rules_simulation.py [--searches 150] [--draws 3000] [--seed 20261126]``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from benchwarden.compare.metrics import MetricVerdict, separation_verdict  # noqa: E402
from benchwarden.compare.verdict import Verdict, judge  # noqa: E402
from benchwarden.history.baseline import judge_against_history  # noqa: E402
from benchwarden.history.bisect import Step, bisect, step_bound  # noqa: E402

LEVELS = dict(threshold=0.03, confidence=0.995, equivalence_confidence=0.95)


def bisect_searches(rng, step_size: float, spread: float, searches: int, pairs: int = 20) -> dict:
    commits = [f"c{i}" for i in range(1, 14)]
    counts = {"found": 0, "within": 0, "undecided": 0, "no-slowdown": 0, "wrong": 0}
    for _ in range(searches):
        first_bad = int(rng.integers(1, 14))
        levels = {"good": 1.0, **{f"c{i}": 1.0 + step_size * (i >= first_bad) for i in range(1, 14)}}

        def step(purpose, base, candidate, levels=levels):
            noise = rng.normal(0.0, spread, size=(2, pairs))
            j = judge([[levels[base] * math.exp(x)] for x in noise[0]],
                      [[levels[candidate] * math.exp(x)] for x in noise[1]],
                      change_confidence=0.995, equivalence_confidence=0.95, threshold=0.03)
            return Step(purpose, base, candidate, j.verdict, j.ratio.point, j.ratio.low, j.ratio.high, (None, None),
                        0.0)

        outcome = bisect("good", commits, step)
        if outcome.state == "found":
            right = outcome.first_bad == f"c{first_bad}"
            counts["found" if right else "wrong"] += 1
            counts["within"] += right and len(outcome.steps) <= step_bound(13)
        else:
            counts[outcome.state] += 1
    return counts


def baseline_rates(rng, k: int, spread: float, change: float, draws: int, tails: str) -> dict:
    def noise(size):
        if tails == "t3":
            return rng.standard_t(3, size) * spread / math.sqrt(3.0)
        return rng.normal(0.0, spread, size)
    verdicts = [judge_against_history(noise(k), math.log1p(change) + float(noise(1)[0]), **LEVELS).verdict
                for _ in range(draws)]
    return {v.value: sum(x is v for x in verdicts) / draws for v in Verdict if any(x is v for x in verdicts)}


def separation_aa(rng, shape: str, draws: int) -> float:
    def noise(size):
        if shape == "t3":
            return rng.standard_t(3, size) * 0.02 / math.sqrt(3.0)
        if shape == "lognormal":
            return (rng.lognormal(0.0, 1.0, size) - math.exp(0.5)) * 0.02 / math.sqrt((math.e - 1) * math.e)
        return rng.normal(0.0, 0.02, size)
    flagged = sum(separation_verdict(1e6 * (1 + noise(3)), 1e6 * (1 + noise(3))) is not MetricVerdict.UNCHANGED
                  for _ in range(draws))
    return flagged / draws


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--searches", type=int, default=150)
    parser.add_argument("--draws", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=20261126)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print("## bisect, 13 commits, 20 pairs per step")
    for size, spread in ((0.10, 0.02), (0.05, 0.03)):
        print(f"+{size:.0%} at {spread:.0%} fork noise: {bisect_searches(rng, size, spread, args.searches)}")
    print("## compare --against history: A/A change claims (slower + faster)")
    for tails in ("normal", "t3"):
        for k in (5, 10, 20):
            rates = baseline_rates(rng, k, 0.02, 0.0, args.draws, tails)
            print(f"{tails} k={k}: {rates.get('slower', 0) + rates.get('faster', 0):.2%} {rates}")
    print(f"+10 % at 2 % noise, k=15: {baseline_rates(rng, 15, 0.02, 0.10, args.draws, 'normal')}")
    print("## separation rule, A/A, 3 forks per side, noise 4x the tolerance")
    for shape in ("normal", "t3", "lognormal"):
        print(f"{shape}: {separation_aa(rng, shape, 10 * args.draws):.3%}")


if __name__ == "__main__":
    main()
