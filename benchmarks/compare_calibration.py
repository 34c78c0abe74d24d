"""Error rates and machine time of `compare` beside the benchstat way and the JMH way (docs/performance.md).

Three judges see the same data:

* **benchwarden**: the sequential comparison as shipped (``SequentialDesign()``: fork pairs 4..20, paired
  log ratios of trimmed fork means, t intervals at 99.5 % for changes and 95 % for "unchanged" with
  Pocock spending, generalized-ESD outlier forks, threshold 3 %); "flagged" = verdict slower (faster in
  A/A counts as a false positive too);
* **benchstat way**: ``go test -count 10`` then benchstat: 10 iteration values of one process per
  version, Mann-Whitney U, α = 0.05, no threshold; flagged = significant (either direction);
* **JMH way**: JMH's default 5 forks x 5 measurement iterations per version, score ± 99.9 % t
  interval over all 25 iterations (JMH's "error"); flagged = the two intervals do not overlap.

Data:

1. **synthetic** two-level data, seeded, true ratios 1.00 (A/A), 1.03, 1.05, 1.10: a stable benchmark
   (LogNormal fork offsets σ 1 %, within-fork σ 2 %) and a noisy one (tests/unit/stats/stats_synthetic.py:
   fork offsets σ 3 %, skewed bimodal within-fork noise, CV 13 %); 10 measurement iterations per fork;
2. **the examples**: a wide static run of each example's ``tokenize[size=1000]`` (Go, Python, JMH)
   provides real forks; experiments draw disjoint random forks for base and candidate and scale the
   candidate by the ratio (the resampling evaluation of Reichelt et al., seed-001 §2.3), so real
   noise meets a known change.  Machine time there is real: mean fork wall time x forks used.

Machine time is reported per comparison of one benchmark: fork starts and iterations run (warmup
included: benchwarden/JMH 5 warmup iterations per fork, benchstat none beyond Go's own b.N ramp).

Usage: ``python benchmarks/compare_calibration.py [--experiments 300] [--examples go,python,jmh] [--forks 40]``
"""

from __future__ import annotations

import argparse
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np
from scipy import stats

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchwarden.cli import main as cli_main  # noqa: E402
from benchwarden.compare.sequential import SequentialDesign  # noqa: E402
from benchwarden.compare.verdict import FASTER, SLOWER  # noqa: E402
from benchwarden.store import open_store  # noqa: E402
from tests.unit.compare.sequential_sim import lognormal_versions, run_sequential  # noqa: E402
from tests.unit.stats.stats_synthetic import versions  # noqa: E402

RATIOS = (1.00, 1.03, 1.05, 1.10)
WARMUP = 5
DESIGN = SequentialDesign()
THRESHOLD = 0.03
Draw = Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray]]


def benchstat_judge(base: np.ndarray, cand: np.ndarray) -> tuple[bool, bool]:
    """-count 10 in one process per version: the first fork's first 10 iterations; MWU α = 0.05."""
    a, b = base[0, :10], cand[0, :10]
    p = stats.mannwhitneyu(a, b, alternative="two-sided").pvalue
    significant = p < 0.05
    return significant and np.median(b) > np.median(a), significant


def jmh_judge(base: np.ndarray, cand: np.ndarray) -> tuple[bool, bool]:
    """5 forks x 5 iterations pooled; score ± t(0.9995, n−1)·s/√n; flagged when the intervals do not overlap."""
    def interval(x: np.ndarray) -> tuple[float, float]:
        values = x[:5, :5].ravel()
        half = stats.t.ppf(0.9995, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size)
        return values.mean() - half, values.mean() + half

    (bl, bh), (cl, ch) = interval(base), interval(cand)
    apart = ch < bl or cl > bh
    return apart and cl > bh, apart


# --- experiments -----------------------------------------------------------------------------------

def evaluate(draw: Draw, experiments: int, seed: int) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(seed)
    rows = {name: {"slower": 0, "any": 0, "forks": 0.0} for name in ("benchwarden", "benchstat", "jmh")}
    bases, cands = draw(rng, experiments)
    summary = run_sequential(bases, cands, DESIGN, threshold=THRESHOLD)  # the product's rule, all at once
    rows["benchwarden"]["slower"] = int(np.sum(summary.verdicts == SLOWER))
    rows["benchwarden"]["any"] = int(np.sum(np.isin(summary.verdicts, [SLOWER, FASTER])))
    rows["benchwarden"]["forks"] = float(2 * summary.pairs.sum())
    for base, cand in zip(bases, cands):
        for name, judge, forks in (("benchstat", benchstat_judge, 2), ("jmh", jmh_judge, 10)):
            slower, any_change = judge(base, cand)
            rows[name]["slower"] += slower
            rows[name]["any"] += any_change
            rows[name]["forks"] += forks
    return {name: {k: v / experiments for k, v in row.items()} for name, row in rows.items()}


ITERATIONS_PER_FORK = {"benchwarden": WARMUP + 10, "benchstat": 10, "jmh": 5 + 5}


def noisy_draw(ratio: float) -> Draw:
    """stats_synthetic's model: fork offsets σ 3 %, skewed bimodal within-fork noise (CV 13 %)."""
    def draw(rng: np.random.Generator, experiments: int) -> tuple[np.ndarray, np.ndarray]:
        base = versions(rng, experiments, DESIGN.max_pairs, 10, 1000.0, 0.03)
        cand = versions(rng, experiments, DESIGN.max_pairs, 10, 1000.0 * ratio, 0.03)
        return base, cand
    return draw


def stable_draw(ratio: float) -> Draw:
    """A stable benchmark: LogNormal fork offsets σ 1 %, LogNormal within-fork noise σ 2 %."""
    return lognormal_versions(ratio, DESIGN.max_pairs, 10, 0.01, 0.02)


def resampled_draw(matrix: np.ndarray, ratio: float) -> Draw:
    def draw(rng: np.random.Generator, experiments: int) -> tuple[np.ndarray, np.ndarray]:
        chosen = np.array([rng.permutation(matrix.shape[0])[: 2 * DESIGN.max_pairs] for _ in range(experiments)])
        return matrix[chosen[:, : DESIGN.max_pairs]], matrix[chosen[:, DESIGN.max_pairs:]] * ratio
    return draw


def print_table(title: str, results: dict[float, dict[str, dict[str, float]]], fork_s: float | None) -> None:
    print(f"\n{title}")
    unit = "machine time per benchmark" if fork_s else "iterations per benchmark (forks)"
    print(f"| judge | A/A false positives | power +3 % | power +5 % | power +10 % | {unit} |")
    print("|---|---|---|---|---|---|")
    for name in ("benchwarden", "benchstat", "jmh"):
        aa = results[1.00][name]["any"]
        powers = [results[r][name]["slower"] for r in RATIOS[1:]]
        forks = np.mean([results[r][name]["forks"] for r in RATIOS])
        if fork_s:  # a fork's wall time scaled to the judge's iterations per fork
            seconds = forks * fork_s * ITERATIONS_PER_FORK[name] / ITERATIONS_PER_FORK["benchwarden"]
            cost = f"{seconds:.1f} s ({forks:.1f} forks)"
        else:
            cost = f"{forks * ITERATIONS_PER_FORK[name]:.0f} ({forks:.1f})"
        print(f"| {name} | {aa:.1%} | " + " | ".join(f"{p:.1%}" for p in powers) + f" | {cost} |")


# --- the examples: real forks from a wide static run -----------------------------------------------

EXAMPLES = {
    "go": ("go", r"BenchmarkTokenize\[size=1000\]", "2"),
    "python": ("python", r"time_tokenize\[size=1000\]", "2"),
    "jmh": ("jmh", r"TokenizeBench\.tokenize\[size=1000\]", "5"),
}


def real_forks(name: str, forks: int, workdir: Path) -> tuple[np.ndarray, float]:
    """Run the example's tokenize benchmark statically with ``forks`` forks of 10 measurement iterations."""
    folder, pattern, warmup = EXAMPLES[name]
    root = workdir / folder
    shutil.copytree(REPO / "examples" / folder, root, ignore=shutil.ignore_patterns(".benchwarden", "__pycache__"))
    argv = ["run", "--config", str(root / "benchwarden.toml"), "--suite", "wordstat", "--filter", pattern,
            "--stop", "static", "--forks", str(forks), "--warmup", warmup, "--iterations", "10",
            "--iteration-time", "100ms", "--json"]
    status = cli_main(argv, stdout=io.StringIO(), stderr=io.StringIO())
    if status != 0:
        raise SystemExit(f"{name}: benchwarden run failed with status {status}")
    with open_store(root / ".benchwarden" / "results.db") as store:
        result = store.load_run(store.resolve_run("latest")).results[0]
    matrix = np.array(result.measurement_matrix())
    fork_s = float(np.mean([f.duration_s for f in result.forks]))
    return matrix, fork_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20260601)
    parser.add_argument("--examples", default="go,python,jmh", help="comma-separated; empty for synthetic only")
    parser.add_argument("--forks", type=int, default=40, help="forks of the wide static run per example "
                        "(at least 2 x the design's 20 pairs: base and candidate forks are disjoint)")
    args = parser.parse_args()
    t0 = time.perf_counter()
    for title, make_draw in (("stable (fork offsets σ 1 %, within-fork σ 2 %)", stable_draw),
                             ("noisy (fork offsets σ 3 %, skewed bimodal within-fork noise, CV 13 %)", noisy_draw)):
        results = {r: evaluate(make_draw(r), args.experiments, args.seed) for r in RATIOS}
        print_table(f"synthetic, {title}, {args.experiments} experiments per cell", results, None)
    print(f"\n(synthetic part: {time.perf_counter() - t0:.0f} s of analysis)")
    with tempfile.TemporaryDirectory(prefix="bw-calibration-") as tmp:
        for name in filter(None, args.examples.split(",")):
            t1 = time.perf_counter()
            matrix, fork_s = real_forks(name, args.forks, Path(tmp))
            means = matrix.mean(axis=1)
            results = {r: evaluate(resampled_draw(matrix, r), args.experiments, args.seed) for r in RATIOS}
            print_table(f"example {name}, tokenize[size=1000]: {matrix.shape[0]} real forks, fork means CV "
                        f"{means.std(ddof=1) / means.mean():.1%}, mean fork {fork_s:.2f} s "
                        f"(measured in {time.perf_counter() - t1:.0f} s)", results, fork_s)


if __name__ == "__main__":
    main()
