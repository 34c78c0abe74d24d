"""How the level criterion's two tests behave on a stored static run: do real iteration series look independent?

The ``level`` criterion (docs/dynamic.md) ends warmup when a window of iterations shows neither a trend
(Mann-Kendall) nor serial dependence (rank von Neumann) at α. On independent noise each test rejects about
α of the windows. This script measures, on every complete fork of a stored run that has at least
``--first + --window`` iterations (warmup and measurement together, log scale):

* the share of windows of ``--window`` iterations, from iteration ``--first`` on, that each test rejects at
  ``--alpha``, and the share both pass;
* the lag-1 autocorrelation of each fork's second half;
* the same shares with each fork's memory allowed for, as the ``level`` criterion does after its scout: both
  tests against an AR(1) null with the φ the criterion estimates from the fork's second half
  (:meth:`LevelCriterion.learned_memory`); and the share of forks whose scout search settles (``learn``).

Issue 13 found, on OpenJDK JMH's jmh-core-benchmarks recorded statically on a quiet machine, lag-1
autocorrelation with median 0.56 and rejections of 33 % (trend) and 46 % (serial) at α = 0.1 — why the scout
fork almost never settled there before the tests allowed for memory (docs/dynamic.md, "Memory is not movement").

Usage: ``.venv/bin/python benchmarks/level_autocorrelation.py STORE RUN_ID [--window 10] [--first 20]
[--alpha 0.1] [--json FILE]`` (a static run kept by ``benchmarks/dynamic_vs_static.py --keep`` is run 1 of its
``results.db``). Seconds.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from benchwarden.model import ForkStatus
from benchwarden.runner.criteria.level import LevelCriterion
from benchwarden.stats.trend import mann_kendall, mann_kendall_ar1, rank_von_neumann, rank_von_neumann_ar1
from benchwarden.store.store import open_store


def lag1(values: np.ndarray) -> float:
    """Lag-1 sample autocorrelation (Box & Jenkins): sum of x_t·x_{t-1} over sum of x_t², x centred — the plain
    statistic, as reported since session 7 (``stats.trend.lag1_autocorrelation`` adds a bias correction)."""
    x = values - values.mean()
    denominator = float((x * x).sum())
    return float((x[1:] * x[:-1]).sum() / denominator) if denominator > 0 else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store")
    parser.add_argument("run_id", type=int)
    parser.add_argument("--window", type=int, default=10)
    parser.add_argument("--first", type=int, default=20)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    with open_store(args.store) as store:
        run = store.load_run(args.run_id)
    windows = trend_rejects = serial_rejects = both_pass = 0
    memory_trend = memory_serial = memory_both = 0
    settled = []
    autocorrelations = []
    for result in run.results:
        for fork in result.forks:
            values = np.log([it.value_ns for it in (*fork.warmup, *fork.measurement)])
            if fork.status is not ForkStatus.COMPLETE or values.size < args.first + args.window:
                continue
            phi = LevelCriterion.learned_memory(values[values.size // 2:])
            if values.size >= 20:
                scout = LevelCriterion(alpha=args.alpha, scout=True)
                series = list(np.exp(values))
                settled.append(bool(scout.learn(1, series[:-10], series[-10:])))
            for start in range(args.first, values.size - args.window + 1, args.window):
                window = values[start:start + args.window]
                trend_ok = mann_kendall(window).p_value > args.alpha
                serial_ok = rank_von_neumann(window) > args.alpha
                windows += 1
                trend_rejects += not trend_ok
                serial_rejects += not serial_ok
                both_pass += trend_ok and serial_ok
                trend_ok = mann_kendall_ar1(window, phi).p_value > args.alpha
                serial_ok = rank_von_neumann_ar1(window, phi) > args.alpha
                memory_trend += not trend_ok
                memory_serial += not serial_ok
                memory_both += trend_ok and serial_ok
            autocorrelations.append(lag1(values[values.size // 2:]))
    if not windows:
        print(f"run {args.run_id} has no complete fork of {args.first + args.window} iterations or more",
              file=sys.stderr)
        return 2
    figures = {
        "forks": len(autocorrelations), "windows": windows, "alpha": args.alpha,
        "trend_rejects": trend_rejects / windows, "serial_rejects": serial_rejects / windows,
        "both_pass": both_pass / windows,
        "with_memory": {"trend_rejects": memory_trend / windows, "serial_rejects": memory_serial / windows,
                        "both_pass": memory_both / windows},
        "scout_settles": float(np.mean(settled)) if settled else None,
        "lag1_median": float(np.median(autocorrelations)),
        "lag1_quartiles": [float(np.percentile(autocorrelations, 25)), float(np.percentile(autocorrelations, 75))],
    }
    print(f"{figures['forks']} forks, {windows} windows of {args.window}: at α = {args.alpha:g} Mann-Kendall rejects "
          f"{figures['trend_rejects']:.1%}, rank von Neumann {figures['serial_rejects']:.1%}, both pass "
          f"{figures['both_pass']:.1%} (independent noise: ~{args.alpha:.0%}, ~{args.alpha:.0%}, "
          f"~{(1 - args.alpha) ** 2:.0%}); lag-1 autocorrelation of the second halves: median "
          f"{figures['lag1_median']:.2f}, quartiles {figures['lag1_quartiles'][0]:.2f}–{figures['lag1_quartiles'][1]:.2f}")
    memory = figures["with_memory"]
    print(f"with each fork's memory allowed for: Mann-Kendall rejects {memory['trend_rejects']:.1%}, rank von Neumann "
          f"{memory['serial_rejects']:.1%}, both pass {memory['both_pass']:.1%}; the scout's search settles in "
          f"{figures['scout_settles']:.1%} of the forks (scout settings: the fork's last 10 iterations as its "
          f"measurement)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
