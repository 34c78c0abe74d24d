"""Simulation of whole sequential comparisons on fork-structured data (seeded), for tests and calibration.

``simulate`` plays the live session's logic on pre-drawn forks: after every pair from
``min_pairs`` on, judge the first n forks of each version at the design's level for that look;
stop at the first settled verdict, else at ``max_pairs``.  The same functions the session uses
(:func:`benchwarden.compare.verdict.judge`, :class:`SequentialDesign`) decide, so the simulated
error rates are those of the product.  Not a test module; also used by
benchmarks/compare_calibration.py.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from benchwarden.compare.sequential import SequentialDesign
from benchwarden.compare.verdict import Verdict, judge


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    pairs: int  # fork pairs used


@dataclass(frozen=True)
class Summary:
    counts: Counter
    experiments: int
    mean_pairs: float

    def rate(self, *verdicts: Verdict) -> float:
        return sum(self.counts[v] for v in verdicts) / self.experiments


def run_sequential(base: np.ndarray, candidate: np.ndarray, design: SequentialDesign, *, min_change: float,
                   rank_alpha: float = 0.05, use_noise_floor: bool = True, method: str = "studentized",
                   n_resamples: int = 2000, seed: int = 0) -> Outcome:
    """One comparison: ``base``/``candidate`` hold at least ``max_pairs`` forks (rows) each."""
    judgement = None
    for n in design.look_pairs:
        judgement = judge(base[:n], candidate[:n], design.look_confidence(n), min_change=min_change,
                          rank_alpha=rank_alpha, use_noise_floor=use_noise_floor, n_resamples=n_resamples,
                          seed=seed + n, method=method)
        if judgement.settled:
            return Outcome(judgement.verdict, n)
    assert judgement is not None
    return Outcome(judgement.verdict, design.max_pairs)


def simulate(draw: Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]], design: SequentialDesign,
             experiments: int, seed: int, **judge_options) -> Summary:
    """Run ``experiments`` comparisons on data from ``draw(rng) -> (base, candidate)``."""
    rng = np.random.default_rng(seed)
    outcomes = [run_sequential(*draw(rng), design, seed=seed + 7919 * i, **judge_options)
                for i in range(experiments)]
    return Summary(Counter(o.verdict for o in outcomes), experiments, float(np.mean([o.pairs for o in outcomes])))


def lognormal_versions(ratio: float, forks: int, iterations: int, fork_sigma: float, iteration_sigma: float,
                       ) -> Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]]:
    """Two versions with fork offsets and iteration noise, both LogNormal with mean 1; true ratio ``ratio``."""

    def draw(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        out = []
        for mean in (1000.0, 1000.0 * ratio):
            fork = rng.lognormal(-fork_sigma**2 / 2, fork_sigma, (forks, 1))
            noise = rng.lognormal(-iteration_sigma**2 / 2, iteration_sigma, (forks, iterations))
            out.append(mean * fork * noise)
        return out[0], out[1]

    return draw


def resampled_versions(forks: Sequence[Sequence[float]], ratio: float, pairs: int,
                       ) -> Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]]:
    """Base and candidate as disjoint random subsets of real forks; the candidate scaled by ``ratio``.

    The resampling evaluation of Reichelt et al. (seed-001 §2.3): real noise, a known injected change.
    """
    matrix = np.array([list(f) for f in forks], dtype=float)
    if matrix.shape[0] < 2 * pairs:
        raise ValueError(f"need at least {2 * pairs} real forks, have {matrix.shape[0]}")

    def draw(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        chosen = rng.permutation(matrix.shape[0])[: 2 * pairs]
        return matrix[chosen[:pairs]], matrix[chosen[pairs:]] * ratio

    return draw
