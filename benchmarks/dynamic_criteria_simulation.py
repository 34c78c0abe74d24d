"""Which criterion should be the default?  A seeded simulation of the study's evaluation on synthetic recordings.

Each synthetic benchmark is recorded as the study recorded real ones (5 forks × 100 iterations, no warmup)
from a model of JIT warmup and JVM-to-JVM variation, so the truth is known and the machine's noise is
out of the picture:

* steady level ``μ · F_f`` with fork factor ``F_f ~ LogNormal(0, σ_fork)``;
* warmup ``1 + (w − 1)·exp(−i / τ)`` with start factor ``w ~ U(1, 5)`` and time constant ``τ ~ U(1, 12)``
  iterations (some benchmarks warm up within a few iterations, some take dozens);
* within-fork noise ``LogNormal(0, σ_it)`` with ``σ_it ~ U(0.005, 0.05)``, and 2 % of iterations 30 % slower
  (GC, interrupts).

Each criterion (and combinations) is replayed with the study's bounds ⟨5, 50, 10, 2, 5⟩ against the
study's baseline (last 50 iterations per fork), and evaluated as in Laaber et al. §5 (time saved, A/A
test at 99 %, mean change rate, shares below 1/2/3 %).

Usage: ``.venv/bin/python benchmarks/dynamic_criteria_simulation.py [--benchmarks 200] [--seed 1]``
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from benchwarden.config import CRITERION_DEFAULTS
from benchwarden.replay import AAOptions, Baseline, ReplayConfig, ReplayEvaluation, replay_benchmark


def synthetic_recording(rng: np.random.Generator, forks: int = 5, iterations: int = 100,
                        fork_sd: float = 0.02) -> list[np.ndarray]:
    start = rng.uniform(1.0, 5.0)
    tau = rng.uniform(1.0, 12.0)
    noise = rng.uniform(0.005, 0.05)
    i = np.arange(iterations)
    out = []
    for _ in range(forks):
        level = 1000.0 * rng.lognormal(0.0, fork_sd)
        hiccups = np.where(rng.random(iterations) < 0.02, 1.3, 1.0)
        out.append(level * (1 + (start - 1) * np.exp(-i / tau)) * rng.lognormal(0.0, noise, iterations) * hiccups)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--benchmarks", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--resamples", type=int, default=2000)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    recordings = [synthetic_recording(rng) for _ in range(args.benchmarks)]
    d = CRITERION_DEFAULTS
    sets = [(d["cv"],), (d["rciw"],), (d["kld"],), (d["cv"], d["kld"]), (d["rciw"], d["kld"])]
    results = []
    for criteria in sets:
        config = ReplayConfig(criteria)
        aa_rng = np.random.default_rng(args.seed)
        done = tuple(replay_benchmark(str(k), s, config, Baseline(), AAOptions(resamples=args.resamples), aa_rng)
                     for k, s in enumerate(recordings))
        evaluation = ReplayEvaluation(config, done)
        summary = {k: v for k, v in evaluation.to_json().items() if k not in ("per_benchmark", "criteria", "bounds")}
        results.append(summary)
        print(f"{summary['config']:22s} saved {summary['time_saved']:.1%}  A/A same {summary['aa_same']:.1%}  "
              f"change {summary['change_mean']:.2%} ± {summary['change_sd']:.2%}  "
              f"<1/2/3% {summary['change_below']['0.01']:.0%}/{summary['change_below']['0.02']:.0%}/"
              f"{summary['change_below']['0.03']:.0%}  warmup {summary['warmup_mean']:.1f}  forks "
              f"{summary['forks_mean']:.2f}  cost {summary['compute_per_checkpoint_s'] * 1e3:.2f} ms", file=sys.stderr)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
