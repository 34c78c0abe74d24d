"""Known-truth simulation of SPL's interpretations: how often `a <= b` holds, fails or stays undecided.

Two-level synthetic data as in tests/unit/spl/test_spl_interpretations.py: per fork a log-normal offset
(σ = fork_sigma), per iteration log-normal noise (σ = 5%), 20 iterations per fork; E[a]/E[b] = ratio.
Also the time per comparison of each interpretation (bootstrap: 10,000 resamples), relative to quick.
Prints a Markdown table; the numbers in docs/performance.md come from this script.

    .venv/bin/python benchmarks/spl_simulation.py [--experiments 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchwarden.spl.interpretations import INTERPRETATIONS, SideData, compare
from benchwarden.spl.logic import Truth


def two_level(rng, mean, forks, iterations=20, fork_sigma=0.03, noise_sigma=0.05):
    return [mean * rng.lognormal(-fork_sigma ** 2 / 2, fork_sigma)
            * rng.lognormal(-noise_sigma ** 2 / 2, noise_sigma, iterations) for _ in range(forks)]


def rates(interpretation, ratio, forks, alpha, fork_sigma, experiments, resamples):
    counts = {v: 0 for v in Truth}
    for seed in range(experiments):
        rng = np.random.default_rng(10_000 + seed)
        a = two_level(rng, 100.0 * ratio, forks, fork_sigma=fork_sigma)
        b = two_level(rng, 100.0, forks, fork_sigma=fork_sigma)
        counts[compare(interpretation, "<=", SideData.measured(a), SideData.measured(b), alpha,
                       n_resamples=resamples, seed=seed).verdict] += 1
    return {v: counts[v] / experiments for v in Truth}


def timing(interpretation, repeats=20):
    rng = np.random.default_rng(1)
    a, b = SideData.measured(two_level(rng, 100.0, 5)), SideData.measured(two_level(rng, 100.0, 5))
    t0 = time.perf_counter()
    for i in range(repeats):
        compare(interpretation, "<=", a, b, seed=i)
    return (time.perf_counter() - t0) / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    print(f"{args.experiments} experiments per cell; 5 forks x 20 iterations; bootstrap {args.resamples} resamples\n")
    print("| interpretation | fork σ | α | E[a]/E[b] | holds | fails | undecided |")
    print("|---|---|---|---|---|---|---|")
    for interpretation in INTERPRETATIONS:
        for fork_sigma in (0.03, 0.05):
            for alpha in (0.05, 0.01):
                for ratio in (0.90, 0.97, 1.00, 1.03, 1.10):
                    r = rates(interpretation, ratio, 5, alpha, fork_sigma, args.experiments, args.resamples)
                    print(f"| {interpretation} | {fork_sigma:.0%} | {alpha} | {ratio:.2f} | {r[Truth.HOLDS]:.3f} | "
                          f"{r[Truth.FAILS]:.3f} | {r[Truth.UNDECIDED]:.3f} |")
    base = timing("quick")
    print("\n| interpretation | time per comparison | ratio to quick |")
    print("|---|---|---|")
    for interpretation in INTERPRETATIONS:
        t = timing(interpretation)
        print(f"| {interpretation} | {t * 1e3:.2f} ms | {t / base:.1f} |")


if __name__ == "__main__":
    main()
