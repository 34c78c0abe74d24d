"""Coverage of the 95 % ratio-of-means interval, per method, forks and noise regime (docs/statistics.md table).

The seeded tests in tests/unit/stats/test_stats_calibration.py check one
seed per setting against the 93–97 % band; this script reports the mean over
several seeds for every method, so the documentation can quote stable numbers.
Uses the same synthetic model (tests/unit/stats/stats_synthetic.py).

Usage: ``python benchmarks/stats_calibration.py [--seeds 3] [--experiments 1000] [--resamples 2000]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "unit" / "stats"))

from stats_synthetic import versions  # noqa: E402

from benchwarden.stats import METHODS, ci_ratio_of_means_batch  # noqa: E402

TRUE_RATIO = 1.10
ITERATIONS = 20
SETTINGS = [(3, 0.05), (5, 0.0), (5, 0.05), (5, 0.10), (10, 0.05), (20, 0.05), (20, 0.10)]


def coverage(n_forks: int, fork_sigma: float, method: str, seed: int, experiments: int, resamples: int) -> float:
    rng = np.random.default_rng(seed)
    base = versions(rng, experiments, n_forks, ITERATIONS, 100.0, fork_sigma)
    cand = versions(rng, experiments, n_forks, ITERATIONS, 100.0 * TRUE_RATIO, fork_sigma)
    intervals = ci_ratio_of_means_batch(zip(base, cand), 0.95, resamples, seed + 1, method, bank_size=500)
    return float(np.mean([interval.contains(TRUE_RATIO) for interval in intervals]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--experiments", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    print(f"coverage of the nominal 95 % interval; mean of {args.seeds} seeds x {args.experiments} experiments")
    print("| forks | fork offset σ | " + " | ".join(METHODS) + " |")
    print("|---|---|" + "---|" * len(METHODS))
    for n_forks, fork_sigma in SETTINGS:
        cells = []
        for method in METHODS:
            values = [
                coverage(n_forks, fork_sigma, method, 1000 * seed + n_forks, args.experiments, args.resamples)
                for seed in range(args.seeds)
            ]
            cells.append(f"{np.mean(values):.3f}")
        print(f"| {n_forks} | {fork_sigma:.0%} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
