"""Synthetic two-level benchmark data with known truth, for calibration tests and the speed benchmark.

Model: ``value = μ · F_f · W_fi`` with
* a per-fork factor ``F_f ~ LogNormal(−σ_f²/2, σ_f)`` (mean exactly 1): fork-to-fork offsets;
* within-fork noise ``W`` (mean exactly 1), skewed and bimodal: with probability 0.25 the
  iteration lands in a second mode 30 % slower, multiplied by ``LogNormal(0, 0.05)``, plus an
  ``Exponential(0.05)`` right tail; the sum is divided by its analytic mean.
So ``E[value] = μ`` and the true ratio of means of two versions is ``μ_cand / μ_base``.
"""

from __future__ import annotations

import numpy as np

SLOW_MODE_PROBABILITY = 0.25
SLOW_MODE_FACTOR = 1.3
MODE_SIGMA = 0.05
TAIL_SCALE = 0.05
_RAW_MEAN = ((1 - SLOW_MODE_PROBABILITY) + SLOW_MODE_PROBABILITY * SLOW_MODE_FACTOR) * np.exp(
    MODE_SIGMA**2 / 2
) + TAIL_SCALE


def within_fork_noise(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Skewed, bimodal multiplicative noise with mean exactly 1."""
    mode = np.where(rng.random(shape) < SLOW_MODE_PROBABILITY, SLOW_MODE_FACTOR, 1.0)
    raw = mode * rng.lognormal(0.0, MODE_SIGMA, shape) + rng.exponential(TAIL_SCALE, shape)
    return raw / _RAW_MEAN


def versions(
    rng: np.random.Generator, n_experiments: int, n_forks: int, n_iterations: int, mean_ns: float, fork_sigma: float
) -> np.ndarray:
    """Array ``(n_experiments, n_forks, n_iterations)`` of ns/op values with population mean ``mean_ns``."""
    fork_factor = rng.lognormal(-(fork_sigma**2) / 2, fork_sigma, (n_experiments, n_forks, 1))
    return mean_ns * fork_factor * within_fork_noise(rng, (n_experiments, n_forks, n_iterations))
