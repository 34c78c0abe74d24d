"""Simulation of whole sequential comparisons on fork-structured data (seeded), for tests and calibration.

``simulate`` plays the live session's logic on pre-drawn forks: after every pair from ``min_pairs``
on, judge the first n pairs at the design's levels for that look; stop at the first settled verdict,
else at ``max_pairs``.  It runs many comparisons at once through
:func:`benchwarden.compare.verdict.judge_batch`, which applies the same functions as the product's
:func:`~benchwarden.compare.verdict.judge` (a test checks they agree), so the simulated error rates are
those of the product.  Not a test module; also used by benchmarks/verdict_simulation.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from scipy import stats

from benchwarden.compare.sequential import SequentialDesign
from benchwarden.compare.verdict import CODES, INCONCLUSIVE, Verdict, judge_batch
from benchwarden.stats.logratio import TRIM

Draw = Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray]]
"""``draw(rng, experiments) -> (base, candidate)``, each of shape (experiments, pairs, iterations)."""


@dataclass(frozen=True)
class Summary:
    verdicts: np.ndarray  # codes per experiment
    pairs: np.ndarray  # fork pairs used per experiment

    @property
    def experiments(self) -> int:
        return int(self.verdicts.size)

    @property
    def mean_pairs(self) -> float:
        return float(self.pairs.mean())

    def rate(self, *verdicts: Verdict) -> float:
        codes = [code for code, v in CODES.items() if v in verdicts]
        return float(np.isin(self.verdicts, codes).mean())


def log_summaries(forks: np.ndarray) -> np.ndarray:
    """Log of each fork's trimmed mean (the product's fork summary), shape (..., pairs)."""
    return np.log(stats.trim_mean(forks, TRIM, axis=-1))


def run_sequential(base: np.ndarray, candidate: np.ndarray, design: SequentialDesign, *, threshold: float,
                   paired: bool = True, rank_alpha: float = 0.05) -> Summary:
    """Comparisons of ``base``/``candidate`` (experiments, ≥ max_pairs forks, iterations) with the design."""
    y_base, y_cand = log_summaries(base), log_summaries(candidate)
    verdicts = np.full(y_base.shape[0], INCONCLUSIVE)
    pairs = np.full(y_base.shape[0], design.max_pairs)
    undecided = np.ones(y_base.shape[0], dtype=bool)
    for n in design.look_pairs:
        change, equivalence = design.look_confidences(n)
        decision = judge_batch(y_base[undecided, :n], y_cand[undecided, :n], paired=paired,
                               change_confidence=change, equivalence_confidence=equivalence, threshold=threshold,
                               rank_alpha=rank_alpha)
        index = np.flatnonzero(undecided)
        settled = decision.codes != INCONCLUSIVE
        verdicts[index[settled]] = decision.codes[settled]
        pairs[index[settled]] = n
        undecided[index[settled]] = False
        if not undecided.any():
            break
    return Summary(verdicts, pairs)


def simulate(draw: Draw, design: SequentialDesign, experiments: int, seed: int, **options) -> Summary:
    """Run ``experiments`` comparisons on data from ``draw``."""
    base, candidate = draw(np.random.default_rng(seed), experiments)
    return run_sequential(base, candidate, design, **options)


def lognormal_versions(ratio: float, forks: int, iterations: int, fork_sigma: float, iteration_sigma: float) -> Draw:
    """Two versions with fork offsets and iteration noise, both LogNormal with mean 1; true ratio ``ratio``."""

    def draw(rng: np.random.Generator, experiments: int) -> tuple[np.ndarray, np.ndarray]:
        out = []
        for mean in (1000.0, 1000.0 * ratio):
            fork = rng.lognormal(-fork_sigma**2 / 2, fork_sigma, (experiments, forks, 1))
            noise = rng.lognormal(-iteration_sigma**2 / 2, iteration_sigma, (experiments, forks, iterations))
            out.append(mean * fork * noise)
        return out[0], out[1]

    return draw


def resampled_versions(forks: Sequence[Sequence[float]], ratio: float, pairs: int) -> Draw:
    """Base and candidate as disjoint random subsets of real forks; the candidate scaled by ``ratio``.

    The resampling evaluation of Reichelt et al. (seed-001 §2.3): real noise, a known injected change.
    Forks are cut to the shortest fork's length so they stack.
    """
    length = min(len(f) for f in forks)
    matrix = np.array([list(f)[:length] for f in forks], dtype=float)
    if matrix.shape[0] < 2 * pairs:
        raise ValueError(f"need at least {2 * pairs} real forks, have {matrix.shape[0]}")

    def draw(rng: np.random.Generator, experiments: int) -> tuple[np.ndarray, np.ndarray]:
        chosen = np.array([rng.permutation(matrix.shape[0])[: 2 * pairs] for _ in range(experiments)])
        return matrix[chosen[:, :pairs]], matrix[chosen[:, pairs:]] * ratio

    return draw
