"""Error rates, power, pairs used and interval coverage of `compare`'s verdict rule on seeded synthetic data.

Every comparison is a whole sequential comparison played by the product's own rule
(``benchwarden.compare.verdict.judge_batch`` through ``tests/unit/compare/sequential_sim.py``) with the
default design (``SequentialDesign()``: 4..20 pairs, 99.5 % for changes, 95 % for "unchanged", Pocock)
and the default threshold (3 %).

Model of one fork: ``value = μ · r · F · R · (1 + ε)`` per iteration, with fork offset
``F = exp(N(0, s_f))``, iteration noise ``ε ~ N(0, s_i)`` and, with ``--round-sigma``, a round effect
``R = exp(N(0, s_r))`` shared by the two forks of a pair (what a neighbour's load does to forks that run
side by side).  Shapes (issue #11):

* ``normal``;
* ``heavy``: fork offsets and iteration noise from Student's t with 3 df (scaled to the same SD);
* ``outlier-iterations``: 1 % of iterations 3× slower;
* ``bimodal``: 30 % of forks land in a mode 8 % slower (a JIT decision);
* ``rare-mode``: 1 fork in 8 lands in a mode 35 % faster (the JMH example's forks, measured live on
  29 Nov 2026: docs/performance.md, "JMH in CPU time");
* ``outlier-fork``: one fork among the first four pairs, on a random side, at 3×.

Reported per cell (s_f, s_i, shape): A/A "slower"/"faster" rate, A/A "unchanged" rate and mean pairs;
false "unchanged" at a true +4.5 % (1.5 × the threshold); power ("slower") at +5 % and +10 % with mean
pairs; coverage of the 95 % interval at a fixed 6 and 20 pairs; the width of the verdict's interval against
the plain t interval of the same data: the widest against the t interval on the same fork summaries
without the outlier test (what the interval construction does), and the 99.9th percentile and the
widest against the t interval on plain fork means (what the trimmed summary does).

Usage: ``python benchmarks/verdict_simulation.py [--experiments 2000] [--round-sigma 0] [--unpaired]
[--shapes normal,bimodal,...]`` (about 12 minutes at 2,000 experiments per cell on 2 cores).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchwarden.compare.sequential import SequentialDesign  # noqa: E402
from benchwarden.compare.verdict import Verdict  # noqa: E402
from benchwarden.stats.logratio import paired_t, ratio_statistics, welch_t  # noqa: E402
from tests.unit.compare.sequential_sim import log_summaries, run_sequential  # noqa: E402

SHAPES = ("normal", "heavy", "outlier-iterations", "bimodal", "rare-mode", "outlier-fork")
ITERATIONS = 10
THRESHOLD = 0.03


def draw(rng: np.random.Generator, experiments: int, pairs: int, fork_sigma: float, iteration_sigma: float,
         shape: str, ratio: float, round_sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Base and candidate, each (experiments, pairs, iterations)."""

    def offsets(size):
        if shape == "heavy":
            return np.exp(fork_sigma * rng.standard_t(3, size) / math.sqrt(3))
        base = np.exp(fork_sigma * rng.standard_normal(size))
        if shape == "rare-mode":
            return base * np.where(rng.random(size) < 0.125, 0.65, 1.0)
        return base * np.where(rng.random(size) < 0.3, 1.08, 1.0) if shape == "bimodal" else base

    def noise(size):
        if shape == "heavy":
            return 1 + iteration_sigma * rng.standard_t(3, size) / math.sqrt(3)
        x = 1 + iteration_sigma * rng.standard_normal(size)
        return np.where(rng.random(size) < 0.01, 3.0 * x, x) if shape == "outlier-iterations" else x

    rounds = np.exp(round_sigma * rng.standard_normal((experiments, pairs, 1)))
    base = 1000.0 * offsets((experiments, pairs, 1)) * rounds * noise((experiments, pairs, ITERATIONS))
    cand = 1000.0 * ratio * offsets((experiments, pairs, 1)) * rounds * noise((experiments, pairs, ITERATIONS))
    if shape == "outlier-fork":
        rows = np.arange(experiments)
        which = rng.integers(0, 4, experiments)
        side = rng.random(experiments) < 0.5
        base[rows[side], which[side]] *= 3.0
        cand[rows[~side], which[~side]] *= 3.0
    return base, cand


def coverage_and_width(rng, experiments, pairs, fork_sigma, iteration_sigma, shape, round_sigma, paired):
    """Coverage of the verdict's 95 % interval at a fixed number of pairs, and its width against plain t
    intervals of the same data: (coverage, widest vs same summaries, 99.9th pct vs plain means, widest vs
    plain means)."""
    base, cand = draw(rng, experiments, pairs, fork_sigma, iteration_sigma, shape, 1.07, round_sigma)
    yb, yc = log_summaries(base), log_summaries(cand)
    low, high = ratio_statistics(yb, yc, paired=paired).statistic.bounds(0.95)
    truth = math.log(1.07)
    covered = float(np.mean((low <= truth) & (truth <= high)))

    def plain_width(b, c):
        statistic = paired_t(c - b) if paired else welch_t(b, c)
        plain_low, plain_high = statistic.bounds(0.95)
        return plain_high - plain_low

    same = (high - low) / plain_width(yb, yc)
    means = (high - low) / plain_width(np.log(base.mean(-1)), np.log(cand.mean(-1)))
    return covered, float(np.max(same)), float(np.quantile(means, 0.999)), float(np.max(means))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--experiments", type=int, default=2000)
    parser.add_argument("--round-sigma", type=float, default=0.0)
    parser.add_argument("--unpaired", action="store_true", help="analyse unpaired (Welch) instead of pairs")
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated subset of " + ", ".join(SHAPES))
    args = parser.parse_args(argv)
    shapes = [shape for shape in args.shapes.split(",") if shape]
    unknown = sorted(set(shapes) - set(SHAPES))
    if unknown:
        parser.error(f"unknown shapes {', '.join(unknown)}; expected some of {', '.join(SHAPES)}")
    design = SequentialDesign()
    paired = not args.unpaired
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    print(f"design {design.to_dict()}, threshold {THRESHOLD:.0%}, {args.experiments} comparisons per cell and ratio, "
          f"round sigma {args.round_sigma:.1%}, {'paired' if paired else 'unpaired'}\n")
    print("| s_f | s_i | shape | A/A slower+faster | A/A unchanged | A/A pairs | unchanged at +4.5 % | +5 % slower "
          "(pairs) | +10 % slower (pairs) | coverage 6 / 20 pairs | width: max × t (same summaries) | "
          "99.9 % / max × t (plain means) |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    worst = {"aa": 0.0, "false_unchanged": 0.0, "power5_sf1": 1.0, "power10_sf5": 1.0, "coverage_low": 1.0,
             "coverage_high": 0.0, "width": 0.0, "width_plain_999": 0.0, "width_plain": 0.0}
    for fork_sigma in (0.01, 0.05):
        for iteration_sigma in (0.005, 0.02):
            for shape in shapes:
                cells = {}
                for ratio in (1.0, 1.045, 1.05, 1.10):
                    base, cand = draw(rng, args.experiments, design.max_pairs, fork_sigma, iteration_sigma, shape,
                                      ratio, args.round_sigma)
                    cells[ratio] = run_sequential(base, cand, design, threshold=THRESHOLD, paired=paired)
                coverage = [coverage_and_width(rng, args.experiments, n, fork_sigma, iteration_sigma, shape,
                                               args.round_sigma, paired) for n in (6, 20)]
                aa = cells[1.0]
                row = {
                    "aa": aa.rate(Verdict.SLOWER, Verdict.FASTER), "aa_unchanged": aa.rate(Verdict.UNCHANGED),
                    "false_unchanged": cells[1.045].rate(Verdict.UNCHANGED),
                    "p5": cells[1.05].rate(Verdict.SLOWER), "p10": cells[1.10].rate(Verdict.SLOWER),
                }
                worst["aa"] = max(worst["aa"], row["aa"])
                worst["false_unchanged"] = max(worst["false_unchanged"], row["false_unchanged"])
                if fork_sigma == 0.01 and shape not in ("bimodal", "rare-mode"):
                    worst["power5_sf1"] = min(worst["power5_sf1"], row["p5"])
                if fork_sigma == 0.05:
                    worst["power10_sf5"] = min(worst["power10_sf5"], row["p10"])
                worst["coverage_low"] = min(worst["coverage_low"], *(c[0] for c in coverage))
                worst["coverage_high"] = max(worst["coverage_high"], *(c[0] for c in coverage))
                worst["width"] = max(worst["width"], *(c[1] for c in coverage))
                worst["width_plain_999"] = max(worst["width_plain_999"], *(c[2] for c in coverage))
                worst["width_plain"] = max(worst["width_plain"], *(c[3] for c in coverage))
                print(f"| {fork_sigma:.0%} | {iteration_sigma:.1%} | {shape} | {row['aa']:.2%} | "
                      f"{row['aa_unchanged']:.0%} | {aa.mean_pairs:.1f} | {row['false_unchanged']:.2%} | "
                      f"{row['p5']:.1%} ({cells[1.05].mean_pairs:.1f}) | {row['p10']:.1%} ({cells[1.10].mean_pairs:.1f}) | "
                      f"{coverage[0][0]:.1%} / {coverage[1][0]:.1%} | {max(c[1] for c in coverage):.2f} | "
                      f"{max(c[2] for c in coverage):.2f} / {max(c[3] for c in coverage):.2f} |", flush=True)
    print()
    print(f"worst A/A slower+faster {worst['aa']:.2%} (target ≤ 1 %); worst false 'unchanged' at 1.5 × threshold "
          f"{worst['false_unchanged']:.2%} (≤ 2 %); power at +5 %, s_f 1 % (bimodal shapes aside) ≥ "
          f"{worst['power5_sf1']:.1%} (≥ 95 %); power at +10 %, s_f 5 % ≥ {worst['power10_sf5']:.1%} (≥ 80 %); "
          f"coverage {worst['coverage_low']:.1%}–{worst['coverage_high']:.1%} (93–97 %); widest interval "
          f"{worst['width']:.2f} × the t interval on the same fork summaries (≤ 3); against plain fork means "
          f"99.9th percentile {worst['width_plain_999']:.2f}×, widest {worst['width_plain']:.2f}×")
    print(f"elapsed {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
