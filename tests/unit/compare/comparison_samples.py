"""Hand-built comparisons for exporter tests: fixed numbers, so golden files are stable.

Not a test module (no ``test_`` prefix); imported by the exporter and HTML tests.
"""

from __future__ import annotations

from benchwarden.compare.result import BenchmarkComparison, Comparison, Look, SideInfo
from benchwarden.compare.verdict import Verdict
from benchwarden.model import Direction

EVIL = '<script>alert("x")</script> & a|b *c* `d`'


def _forks(mean: float, spread: float, n_forks: int, n_iter: int = 5) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(round(mean * (1 + spread * ((f * 3 + i * 5) % 7 - 3) / 3), 3) for i in range(n_iter))
                 for f in range(n_forks))


def benchmark(key: str, verdict: Verdict, ratio: float | None, low: float | None, high: float | None, *,
              suite: str = "wordstat", unit: str = "ns/op", p: float | None = 0.0625, threshold: float | None = 0.03,
              mde: float | None = 0.031, forks: int = 4, message: str | None = None, warnings: tuple[str, ...] = (),
              confirmations: tuple[Verdict, ...] = ()) -> BenchmarkComparison:
    direction = Direction.HIGHER_IS_BETTER if unit.startswith("ops") else Direction.LOWER_IS_BETTER
    base_mean = 1000.0
    cand_mean = base_mean * (ratio or 1.0)
    looks = ()
    if ratio is not None and low is not None and high is not None:
        looks = (Look(forks, 0.9969, ratio, low, high, p or 1.0, threshold or 0.03, verdict, 0.9738,
                      low + (ratio - low) / 3, high - (high - ratio) / 3, mde),)
    return BenchmarkComparison(
        suite=suite, key=key, mode="avgt" if direction is Direction.LOWER_IS_BETTER else "thrpt", unit=unit,
        direction=direction, verdict=verdict, ratio=ratio, ci_low=low, ci_high=high,
        confidence=0.9969 if ratio is not None else None, p_value=p if ratio is not None else None,
        threshold=threshold if ratio is not None else None, mean_ratio=ratio,
        equivalence_low=None if low is None or ratio is None else low + (ratio - low) / 3,
        equivalence_high=None if high is None or ratio is None else high - (high - ratio) / 3,
        equivalence_confidence=0.9738 if ratio is not None else None, mde=mde if ratio is not None else None,
        min_change=0.03, time_s=12.5, base_ns=_forks(base_mean, 0.02, forks),
        candidate_ns=_forks(cand_mean, 0.02, forks), looks=looks, order=("bc", "cb", "cb", "bc")[:forks],
        confirmations=confirmations, message=message, warnings=warnings)


def sample_comparison() -> Comparison:
    results = (
        benchmark("wordstat.bench.TokenizeBench.tokenize[size=1000]", Verdict.SLOWER, 1.52, 1.47, 1.58, p=0.0625),
        benchmark("wordstat.bench.TopKBench.topK", Verdict.UNCHANGED, 1.003, 0.991, 1.015, p=0.875),
        benchmark("wordstat.bench.NoisyBench.noisy", Verdict.INCONCLUSIVE, 1.04, 0.93, 1.16, p=0.492, mde=0.142,
                  forks=20, warnings=("with these pairs only changes of 14.2% or more could be detected (80 % "
                                      "power); about 96 pairs would settle it",)),
        benchmark("wordstat.bench.CountWordsBench.countHash", Verdict.FASTER, 0.8, 0.76, 0.84, unit="ops/s"),
        benchmark(EVIL, Verdict.ERROR, None, None, None, forks=1, message="candidate fork 1: crashed <boom>"),
    )
    return Comparison(
        source="variants",
        base=SideInfo("base", "WORKTREE (65c1acccb4)", commit="65c1acccb491c4c2fc76da60ee9d6a27f1c93784", run_id=1),
        candidate=SideInfo("candidate", "WORKTREE (65c1acccb4) + WORDSTAT_SLOW=1", run_id=2),
        design={"confidence": 0.995, "equivalence_confidence": 0.95, "min_pairs": 4, "max_pairs": 20,
                "spending": "pocock", "paired": True, "rank_alpha": 0.05, "min_change": 0.03, "confirm": 0, "seed": 7},
        benchmarks=results, unmatched=(("wordstat:wordstat.bench.NewBench.fresh", "candidate only"),),
        created_at=1_700_000_000.0, elapsed_s=95.0, machine_time_s=62.5, machine={"cpu": "Test CPU", "cores": "2"})
