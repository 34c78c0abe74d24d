"""Speed and memory of the statistics engine's hierarchical bootstrap (issue #3 "Speed").

Workload: ratio-of-means confidence intervals (95 %) with 10,000 hierarchical
resamples (forks, then iterations) for 1,000 benchmark pairs × 10 forks × 20
iterations per version.  Reported, all measured in this run on this machine:

* wall time of ``ci_ratio_of_means_batch`` (percentile, and the studentized default);
* peak traced memory (``tracemalloc``, which sees numpy's buffers) for 1/10 and
  all of the pairs — equal peaks show memory does not grow with the number of pairs —
  and the whole process's max RSS (interpreter, numpy, scipy and the input data included);
* the reference: the *same* two-level computation driven by ``scipy.stats.bootstrap``
  (scipy resamples forks and forms the percentile interval; the vectorised statistic
  resamples iterations within the chosen forks with numpy).  It is timed on a subset
  of pairs and extrapolated linearly (the work per pair is identical), and the
  speed-up is ours ÷ scipy's per-pair time;
* for context, scipy's one-level bootstrap of pooled iterations (not the same
  statistic: it ignores forks);
* RCIW (99 %, 1,000 resamples) for 5 forks × 60 iterations: median per call.

Usage: ``python benchmarks/stats_bootstrap.py [--pairs 1000] [--scipy-pairs 20] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import time
import tracemalloc

import numpy as np
import scipy
from scipy import stats

from benchwarden.stats import ci_ratio_of_means_batch, rciw

FORKS = 10
ITERATIONS = 20
RESAMPLES = 10_000
CONFIDENCE = 0.95


def make_pairs(n_pairs: int, seed: int = 2024) -> list[tuple[np.ndarray, np.ndarray]]:
    """Two-level lognormal data: 5 % fork offsets, 10 % within-fork noise, candidates 0–10 % slower."""
    rng = np.random.default_rng(seed)

    def version(mean_ns: np.ndarray) -> np.ndarray:
        offsets = rng.lognormal(0.0, 0.05, (n_pairs, FORKS, 1))
        return mean_ns[:, None, None] * offsets * rng.lognormal(0.0, 0.10, (n_pairs, FORKS, ITERATIONS))

    base_ns = rng.uniform(50.0, 5000.0, n_pairs)
    base = version(base_ns)
    cand = version(base_ns * rng.uniform(1.0, 1.1, n_pairs))
    return list(zip(base, cand))


def time_ours(pairs, method: str) -> float:
    start = time.perf_counter()
    ci_ratio_of_means_batch(pairs, CONFIDENCE, RESAMPLES, seed=1, method=method)
    return time.perf_counter() - start


def peak_memory_mib(pairs, method: str) -> float:
    tracemalloc.start()
    try:
        ci_ratio_of_means_batch(pairs, CONFIDENCE, RESAMPLES, seed=1, method=method)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def scipy_hierarchical(base: np.ndarray, cand: np.ndarray, rng: np.random.Generator):
    """The same two-level percentile interval with scipy.stats.bootstrap resampling the forks."""

    def ratio(base_forks: np.ndarray, cand_forks: np.ndarray, axis: int = -1) -> np.ndarray:
        def resampled_mean(values: np.ndarray, fork_index: np.ndarray) -> np.ndarray:
            fork_index = np.moveaxis(fork_index, axis, -1).astype(np.intp)
            picks = rng.integers(0, ITERATIONS, (*fork_index.shape, ITERATIONS))
            return values[fork_index[..., None], picks].mean(axis=(-1, -2))

        return resampled_mean(cand, cand_forks) / resampled_mean(base, base_forks)

    forks = np.arange(FORKS, dtype=float)
    return stats.bootstrap(
        (forks, forks), ratio, n_resamples=RESAMPLES, method="percentile", confidence_level=CONFIDENCE,
        vectorized=True, rng=rng,
    ).confidence_interval


def scipy_flat(base: np.ndarray, cand: np.ndarray, rng: np.random.Generator):
    """One-level bootstrap of pooled iterations (a different, fork-blind statistic), for context."""

    def ratio(b: np.ndarray, c: np.ndarray, axis: int = -1) -> np.ndarray:
        return c.mean(axis=axis) / b.mean(axis=axis)

    return stats.bootstrap(
        (base.ravel(), cand.ravel()), ratio, n_resamples=RESAMPLES, method="percentile",
        confidence_level=CONFIDENCE, vectorized=True, rng=rng,
    ).confidence_interval


def time_scipy(pairs, function) -> float:
    rng = np.random.default_rng(3)
    start = time.perf_counter()
    for base, cand in pairs:
        function(base, cand, rng)
    return time.perf_counter() - start


def time_rciw(calls: int = 200) -> float:
    rng = np.random.default_rng(4)
    data = 100.0 * rng.lognormal(0, 0.05, (5, 1)) * rng.lognormal(0, 0.1, (5, 60))
    rciw(data, seed=rng)  # warm caches
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        rciw(data, seed=rng)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def agreement(pairs) -> float:
    """Largest |difference| between our and scipy's percentile end points, relative to the interval width."""
    ours = ci_ratio_of_means_batch(pairs, CONFIDENCE, RESAMPLES, seed=5, method="percentile")
    rng = np.random.default_rng(6)
    worst = 0.0
    for (base, cand), interval in zip(pairs, ours):
        reference = scipy_hierarchical(base, cand, rng)
        width = reference.high - reference.low
        worst = max(worst, abs(interval.low - reference.low) / width, abs(interval.high - reference.high) / width)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--scipy-pairs", type=int, default=20, help="subset timed with scipy, then extrapolated")
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args()

    pairs = make_pairs(args.pairs)
    subset = pairs[: args.scipy_pairs]
    results = {
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}",
        "pairs": args.pairs,
        "workload": f"{FORKS} forks x {ITERATIONS} iterations per version, {RESAMPLES} resamples, {CONFIDENCE:.0%} CI",
        "ours_percentile_s": time_ours(pairs, "percentile"),
        "ours_studentized_s": time_ours(pairs, "studentized"),
        "peak_mib_tenth_of_pairs": peak_memory_mib(pairs[: max(1, args.pairs // 10)], "studentized"),
        "peak_mib_all_pairs": peak_memory_mib(pairs, "studentized"),
        "scipy_pairs_timed": len(subset),
        "scipy_hierarchical_subset_s": time_scipy(subset, scipy_hierarchical),
        "scipy_flat_subset_s": time_scipy(subset, scipy_flat),
        "rciw_5x60_1000_resamples_ms": time_rciw() * 1e3,
        "max_endpoint_difference_vs_scipy_in_widths": agreement(pairs[:5]),
    }
    results["process_max_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    scale = args.pairs / len(subset)
    results["scipy_hierarchical_extrapolated_s"] = results["scipy_hierarchical_subset_s"] * scale
    results["scipy_flat_extrapolated_s"] = results["scipy_flat_subset_s"] * scale
    results["speedup_vs_scipy_hierarchical"] = results["scipy_hierarchical_extrapolated_s"] / results["ours_percentile_s"]
    results["speedup_vs_scipy_flat"] = results["scipy_flat_extrapolated_s"] / results["ours_percentile_s"]
    print_report(results)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=2)


def print_report(r: dict) -> None:
    print(f"machine: {r['machine']}")
    print(f"workload: {r['pairs']} pairs, {r['workload']}")
    print(f"ours, percentile:            {r['ours_percentile_s']:8.2f} s")
    print(f"ours, studentized (default): {r['ours_studentized_s']:8.2f} s")
    print(f"peak traced memory:          {r['peak_mib_tenth_of_pairs']:8.1f} MiB for {max(1, r['pairs'] // 10)} pairs, "
          f"{r['peak_mib_all_pairs']:.1f} MiB for {r['pairs']} pairs (incl. the returned intervals); "
          f"whole process max RSS {r['process_max_rss_mib']:.0f} MiB")
    print(f"scipy.stats.bootstrap, same two-level computation: {r['scipy_hierarchical_subset_s']:.2f} s for "
          f"{r['scipy_pairs_timed']} pairs -> {r['scipy_hierarchical_extrapolated_s']:.0f} s extrapolated; "
          f"speed-up x{r['speedup_vs_scipy_hierarchical']:.1f}")
    print(f"scipy.stats.bootstrap, one level on pooled iterations (context): {r['scipy_flat_subset_s']:.2f} s for "
          f"{r['scipy_pairs_timed']} pairs -> {r['scipy_flat_extrapolated_s']:.0f} s extrapolated; "
          f"speed-up x{r['speedup_vs_scipy_flat']:.1f}")
    print(f"agreement with scipy (percentile end points, 5 pairs): max difference "
          f"{r['max_endpoint_difference_vs_scipy_in_widths']:.3f} interval widths")
    print(f"rciw, 5 forks x 60 iterations, 1,000 resamples: {r['rciw_5x60_1000_resamples_ms']:.2f} ms (median)")


if __name__ == "__main__":
    main()
