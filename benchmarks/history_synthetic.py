"""Precision, recall and placement of `history`'s change points on a seeded synthetic history, beside two peers' rules.

Issue #15's target: on ≥ 200 series × 100 commits with steps of 2–20 % at known commits, noise, disturbed
runs and machine changes, **precision ≥ 95 %** and **recall ≥ 90 % for steps ≥ 2× the run-to-run noise**, and
the change placed within **±1 commit** for ≥ 90 % of the found ones.  The same per-machine series go through:

* ``history``: :func:`benchwarden.history.changepoints.find_change_points` with its defaults (the product's code);
* ``last-point ratio`` (github-action-benchmark): an alert when a run's value differs from the previous run's by
  more than the threshold (its default ``alert-threshold`` 200 %, and 10 % and 5 % as teams set it);
* ``lookback z-score`` (Conbench): an alert when a run's value is more than ``z`` standard deviations from the
  mean of up to 100 earlier runs on the same machine (Conbench's ``DISTRIBUTION_COMMITS``; ``z`` = 5, its
  default, and 3), at least 3 earlier runs;
* ``history, machines mixed``: the product's detection on one series per benchmark with the machines'
  runs interleaved in commit order, as a store that ignored the machine would give it.

Model of one series (one benchmark): 100 commits; 0–3 steps (weights 20/35/30/15 %) at commits 8..92, at
least 10 apart, each a ratio of 2–20 % (uniform on that range; 60 % slowdowns); per run a run effect
``N(0, s_run)`` with ``s_run`` in 0.3–3 %, 3 or 5 forks each with ``N(0, s_fork)``, ``s_fork`` in 0.5–3 %;
2 % of runs disturbed (all forks ×1.15–2); 1 % of forks ×2 (ESD's job); 5 % of commits not measured; in
30 % of series a machine change at commit 30..70: the old machine measures up to 2 commits past it, the new
one from 2 commits before it, at a level 0.6–1.6× and noise 0.7–1.5× the old one's.  All on the log scale.

Scoring, per machine series: a detection claims the commit range ``(previous measured commit, commit]``.  It is
*matched* to the nearest true step within ±5 commits not yet matched (greedy by distance); unmatched ones are
false.  **Precision** = matched / all detections.  **Recall** counts steps of at least ``2σ`` (``σ`` = the run's
true run-to-run standard deviation, ``√(s_run² + s_fork²/forks)``) with at least 4 measured runs on each side
in that machine's series; smaller steps count for precision when found but are never required.  **Placement**:
a matched detection is within ±1 commit when its claimed range is at most one commit from the true commit
(a range that contains it is exact).

Usage: ``python benchmarks/history_synthetic.py [--series 240] [--seed 2026] [--json out.json]``
(about 2 minutes on a loaded 2-core machine).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from benchwarden.history.changepoints import find_change_points  # noqa: E402

COMMITS = 100
TOLERANCE = 5
RECALL_SIGMAS = 2.0
MIN_SIDE = 4


@dataclass
class MachineSeries:
    """One machine's runs of one benchmark: commits measured, log fork summaries per run, true σ, true steps."""

    commits: list[int]
    runs: list[list[float]]
    sigma: float
    steps: list[tuple[int, float]]  # (commit, log ratio)


@dataclass
class Bench:
    machines: list[MachineSeries] = field(default_factory=list)
    steps: list[tuple[int, float]] = field(default_factory=list)


def draw_steps(rng: np.random.Generator) -> list[tuple[int, float]]:
    count = rng.choice(4, p=[0.20, 0.35, 0.30, 0.15])
    places: list[int] = []
    while len(places) < count:
        c = int(rng.integers(8, 93))
        if all(abs(c - p) >= 10 for p in places):
            places.append(c)
    out = []
    for c in sorted(places):
        size = rng.uniform(0.02, 0.20)
        ratio = 1 + size if rng.random() < 0.6 else 1 / (1 + size)
        out.append((c, math.log(ratio)))
    return out


def draw_bench(rng: np.random.Generator) -> Bench:
    steps = draw_steps(rng)
    base = math.log(10 ** rng.uniform(2, 6))
    level = np.full(COMMITS, base)
    for c, step in steps:
        level[c:] += step
    forks = int(rng.choice([3, 5]))
    run_sd, fork_sd = rng.uniform(0.003, 0.03), rng.uniform(0.005, 0.03)
    spans = [(0, COMMITS, 0.0, 1.0)]
    if rng.random() < 0.3:
        switch = int(rng.integers(30, 71))
        spans = [(0, switch + 2, 0.0, 1.0),
                 (switch - 2, COMMITS, math.log(rng.uniform(0.6, 1.6)), rng.uniform(0.7, 1.5))]
    bench = Bench(steps=steps)
    for start, end, offset, scale in spans:
        commits, runs = [], []
        for c in range(start, end):
            if rng.random() < 0.05:
                continue
            shift = level[c] + offset + rng.normal(0, run_sd * scale)
            if rng.random() < 0.02:
                shift += math.log(rng.uniform(1.15, 2.0))
            values = shift + rng.normal(0, fork_sd * scale, forks)
            values[rng.random(forks) < 0.01] += math.log(2.0)
            commits.append(c)
            runs.append(values.tolist())
        sigma = scale * math.sqrt(run_sd ** 2 + fork_sd ** 2 / forks)
        inside = [(c, s) for c, s in steps if commits and commits[0] < c <= commits[-1]]
        bench.machines.append(MachineSeries(commits, runs, sigma, inside))
    return bench


def mixed(bench: Bench) -> MachineSeries:
    """All machines' runs in commit order (the old machine first where both measured a commit)."""
    rows = sorted(((c, k, run) for k, m in enumerate(bench.machines) for c, run in zip(m.commits, m.runs)),
                  key=lambda row: (row[0], row[1]))
    first = bench.machines[0]
    return MachineSeries([r[0] for r in rows], [r[2] for r in rows], first.sigma,
                         [(c, s) for c, s in bench.steps if rows and rows[0][0] < c <= rows[-1][0]])


# --- the rules: each returns the run indices i at which it claims a change between run i-1 and run i ---------


def ours(series: MachineSeries) -> list[int]:
    return [c.index for c in find_change_points(series.runs).found]


def run_means(series: MachineSeries) -> np.ndarray:
    """What the peers' rules see: one number per run, the mean of its forks in ns/op."""
    return np.array([float(np.mean(np.exp(run))) for run in series.runs])


def last_point_ratio(series: MachineSeries, threshold: float) -> list[int]:
    x = run_means(series)
    ratio = x[1:] / x[:-1]
    return [int(i) + 1 for i in np.flatnonzero((ratio > 1 + threshold) | (ratio < 1 / (1 + threshold)))]


def lookback_z(series: MachineSeries, z: float, lookback: int = 100, minimum: int = 3) -> list[int]:
    x = run_means(series)
    out = []
    for i in range(minimum, x.size):
        past = x[max(0, i - lookback):i]
        sd = past.std(ddof=1)
        if sd > 0 and abs(x[i] - past.mean()) / sd > z:
            out.append(i)
    return out


# --- scoring ----------------------------------------------------------------------------------------------


@dataclass
class Score:
    detections: int = 0
    matched: int = 0
    placed: int = 0
    required: int = 0
    recalled: int = 0
    seconds: float = 0.0

    def row(self) -> dict[str, float]:
        return {"detections": self.detections, "false": self.detections - self.matched,
                "precision": self.matched / self.detections if self.detections else math.nan,
                "recall": self.recalled / self.required if self.required else math.nan,
                "placed": self.placed / self.matched if self.matched else math.nan, "seconds": self.seconds}


def score(series: MachineSeries, claims: list[int], into: Score) -> None:
    ranges = [(series.commits[i - 1], series.commits[i]) for i in claims]
    into.detections += len(ranges)

    def distance(claim: tuple[int, int], commit: int) -> int:
        before, at = claim
        return 0 if before < commit <= at else min(abs(commit - at), abs(commit - (before + 1)))

    pairs = sorted((distance(r, c), k, j) for k, r in enumerate(ranges) for j, (c, _) in enumerate(series.steps))
    used_claims: set[int] = set()
    used_steps: set[int] = set()
    for d, k, j in pairs:
        if d > TOLERANCE or k in used_claims or j in used_steps:
            continue
        used_claims.add(k)
        used_steps.add(j)
        into.matched += 1
        into.placed += d <= 1
    for j, (c, step) in enumerate(series.steps):
        before = sum(1 for x in series.commits if x < c)
        after = len(series.commits) - before
        if abs(step) >= RECALL_SIGMAS * series.sigma and before >= MIN_SIDE and after >= MIN_SIDE:
            into.required += 1
            into.recalled += j in used_steps


RULES = {
    "history (PELT + segment t-test, defaults)": ours,
    "last-point ratio, 200 % (github-action-benchmark default)": lambda s: last_point_ratio(s, 1.0),
    "last-point ratio, 10 %": lambda s: last_point_ratio(s, 0.10),
    "last-point ratio, 5 %": lambda s: last_point_ratio(s, 0.05),
    "lookback z-score, z > 5 (Conbench default)": lambda s: lookback_z(s, 5.0),
    "lookback z-score, z > 3": lambda s: lookback_z(s, 3.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--series", type=int, default=240)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    benches = [draw_bench(rng) for _ in range(args.series)]
    machine_series = [m for b in benches for m in b.machines]
    scores = {name: Score() for name in [*RULES, "history, machines mixed in one series"]}
    for name, rule in RULES.items():
        started = time.perf_counter()
        for series in machine_series:
            score(series, rule(series), scores[name])
        scores[name].seconds = time.perf_counter() - started
    started = time.perf_counter()
    mixed_name = "history, machines mixed in one series"
    for bench in benches:
        if len(bench.machines) > 1:
            series = mixed(bench)
            score(series, ours(series), scores[mixed_name])
    scores[mixed_name].seconds = time.perf_counter() - started
    steps = sum(len(b.steps) for b in benches)
    switched = sum(len(b.machines) > 1 for b in benches)
    load = os.getloadavg()[0]
    print(f"{args.series} benchmarks ({switched} with a machine change) = {len(machine_series)} machine series, "
          f"{steps} true steps, seed {args.seed}, load average {load:.1f}")
    print()
    print("| rule | detections | false | precision | recall (≥ 2σ) | placed ±1 | time |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rows = {}
    for name, s in scores.items():
        r = rows[name] = s.row()
        print(f"| {name} | {s.detections} | {s.detections - s.matched} | {r['precision']:.1%} | "
              f"{r['recall']:.1%} ({s.recalled}/{s.required}) | {r['placed']:.1%} | {s.seconds:.1f} s |")
    print()
    print("(machines mixed: the 'recall' row is over the benchmarks with a machine change only)")
    if args.json:
        args.json.write_text(json.dumps({"seed": args.seed, "series": args.series, "load": load, "rules": rows},
                                        indent=2))


if __name__ == "__main__":
    main()
