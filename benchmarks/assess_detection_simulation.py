"""The compare rule of ``assess`` by seeded simulation: false detections, power, forks used, futility.

Each simulated (method, benchmark) pair has ``BASE`` baseline forks from the variability runs, then rounds
of one slowed fork and one fresh baseline fork, judged at the design's looks (``DetectionDesign.schedule``) by
:func:`benchwarden.assess.detect.decide_looks` (the function the campaign uses), with the futility stop of
:func:`~benchwarden.assess.detect.detect_sequential` (the change detectable at the full budget, at the fork spread's lower 80 % bound, exceeds v;
``--point-futility``: at its estimate, as before 29 Nov 2026) and,
unless ``--no-screen``, the screening of benchmarks too noisy for v before any slowed fork
(:func:`~benchwarden.assess.detect.screen_mdc`; such pairs count as undecided with 0 forks), and the
"overshot" rule (:func:`~benchwarden.assess.detect.overshot`: the true change never exceeds v here, so every
overshot is the rule's price: a detection it does not count).
Log fork summaries: the benchmark's true change plus noise of the given shape and fork spread.

Prints one JSON line per cell and a Markdown table for docs/assess.md.

Usage: ``.venv/bin/python benchmarks/assess_detection_simulation.py [--n 2000] [--forks 5] [--min-forks 2] [--base 10] [--seed 1] [--no-screen]``
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

from benchwarden.assess.detect import (
    DETECTED,
    NOT_DETECTED,
    OVERSHOT,
    SCREEN_CONFIDENCE,
    UNDECIDED,
    DetectionDesign,
    budget_mdc,
    decide_looks,
    overshot,
    screen_mdc,
)

BASE = 10  # the default 5 baseline runs x 2 forks (--base 4: the e2e tests' 2 runs x 2 forks)
THRESHOLD = 0.03
SLOWDOWN = 0.10


def noise(rng: np.random.Generator, shape: tuple[int, ...], sd: float, kind: str) -> np.ndarray:
    if kind == "normal":
        return rng.normal(0, sd, shape)
    if kind == "heavy":  # Student t, 3 df, scaled to the same s.d.
        return sd * rng.standard_t(3, shape) / math.sqrt(3.0)
    if kind == "bimodal":  # two fork levels ±sd (e.g. Python's hash randomisation, JIT outcomes)
        return sd * rng.choice([-1.0, 1.0], shape) + rng.normal(0, sd / 4, shape)
    if kind == "outlier":  # one baseline fork in ten 3x slower
        values = rng.normal(0, sd, shape)
        values[..., ::10] += np.log(3.0) * (rng.random(values[..., ::10].shape) < 0.5)
        return values
    raise ValueError(kind)


def simulate(n: int, change: float, sd: float, kind: str, design: DetectionDesign, seed: int,
             base: int = BASE, screen: bool = True, point_futility: bool = False) -> dict:
    rng = np.random.default_rng(seed)
    rounds = design.max_forks
    y_base = noise(rng, (n, base + rounds), sd, kind)
    y_slow = math.log1p(change) + noise(rng, (n, rounds), sd, "normal" if kind == "outlier" else kind)
    outcome = np.full(n, -1)
    used = np.zeros(n, dtype=int)
    screened = screen_mdc(y_base[:, :base], THRESHOLD, design) > SLOWDOWN if screen else np.zeros(n, dtype=bool)
    outcome[screened] = UNDECIDED
    for k in design.schedule:  # the looks, as detect_sequential takes them
        codes, decision, result = decide_looks(y_base[:, :base + k], y_slow[:, :k], THRESHOLD, design)
        kept_b = (~result.drop_base).sum(-1)
        kept_c = (~result.drop_cand).sum(-1)
        more = rounds - k
        mdc = budget_mdc(result.statistic.se, kept_b, kept_c, more, THRESHOLD, design)
        futile = budget_mdc(result.statistic.se, kept_b, kept_c, more, THRESHOLD, design,
                            None if point_futility else SCREEN_CONFIDENCE)
        beyond = overshot(np.exp(decision.change[0]), np.exp(decision.estimate), mdc, SLOWDOWN)
        codes = np.where((codes == DETECTED) & beyond, OVERSHOT, codes)
        final = (codes != UNDECIDED) | (k == rounds) | (futile > SLOWDOWN)
        newly = (outcome < 0) & final
        outcome[newly], used[newly] = codes[newly], k
    return {"change": change, "sd": sd, "shape": kind, "n": n,
            "detected": float(np.mean(outcome == DETECTED)), "not_detected": float(np.mean(outcome == NOT_DETECTED)),
            "undecided": float(np.mean(outcome == UNDECIDED)), "overshot": float(np.mean(outcome == OVERSHOT)),
            "screened": float(np.mean(screened)),
            "forks": float(used.mean())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--forks", type=int, default=5, help="slowed forks at most (max_forks)")
    parser.add_argument("--min-forks", type=int, default=DetectionDesign().min_forks, help="the first look")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--base", type=int, default=BASE, help="baseline forks from the variability runs")
    parser.add_argument("--no-screen", action="store_true", help="no screening of noisy benchmarks before slowed forks")
    parser.add_argument("--point-futility", action="store_true",
                        help="the futility stop at the spread's estimate (before 29 Nov 2026), not its 80 %% lower bound")
    args = parser.parse_args()
    design = DetectionDesign(min_forks=args.min_forks, max_forks=args.forks)
    rows = []
    cell = 0
    for kind in ("normal", "heavy", "bimodal", "outlier"):
        for sd in (0.01, 0.03, 0.10):
            for change in (0.0, 0.01, 0.05, 0.10):
                cell += 1
                row = simulate(args.n, change, sd, kind, design, args.seed * 1000 + cell, args.base, not args.no_screen,
                               args.point_futility)
                rows.append(row)
                print(json.dumps(row))
    print()
    print("| shape | fork s.d. | true change | detected | not detected | not detectable at this budget "
          "(screened out) | overshot | forks |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['shape']} | {r['sd']:.0%} | {r['change']:+.0%} | {r['detected']:.1%} | {r['not_detected']:.1%} | "
              f"{r['undecided']:.1%} ({r['screened']:.1%}) | {r['overshot']:.1%} | {r['forks']:.2f} |")


if __name__ == "__main__":
    main()
