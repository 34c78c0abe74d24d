"""Power analysis: effect size γ, type II error, forks needed, and the minimal detectable change of a plan.

Model (Reichelt, Kühne & Hasselbring, digest seed-001 §3.3, after Cohen
1988): a two-sided two-sample test on per-fork means with ``n`` forks per
version, population effect size ``γ = (μ_cand − μ_base) / σ_pooled``.  The
normal approximation gives

    z_{1−β} = |γ| · sqrt(n / 2) − z_{1−α/2}

so ``β = Φ(z_{1−α/2} − |γ|·sqrt(n/2))`` and
``n = 2 · ((z_{1−α/2} + z_{1−β}) / γ)²``.  The formula is for a z/t-test; the
Mann-Whitney test's asymptotic relative efficiency is 3/π ≈ 0.955 for normal
data (Lehmann 1975), so it needs about 5 % more forks.  Quantiles come from
``scipy.stats.norm`` (no hand-typed tables).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from benchwarden.stats.forks import ForkData, as_forks
from benchwarden.stats.results import VarianceComponents
from benchwarden.stats.significance import analysis_values


def _check_probability(name: str, value: float) -> None:
    if not 0 < value < 1:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")


def effect_size_gamma(base: ForkData, cand: ForkData, on: str = "fork-means") -> float:
    """γ = (mean(cand) − mean(base)) / σ_pooled, signed (positive: candidate larger).

    ``σ_pooled² = ((n_b−1)·s_b² + (n_c−1)·s_c²) / (n_b + n_c − 2)`` with sample
    variances (ddof=1) of the values selected by ``on`` (fork means by
    default, the unit of the power formula).  Raises ``ValueError`` when
    ``n_b + n_c < 3`` or both samples are constant (σ_pooled = 0).
    """
    x, _ = analysis_values(base, on, "base")
    y, _ = analysis_values(cand, on, "candidate")
    dof = x.size + y.size - 2
    if dof < 1:
        raise ValueError(f"γ needs at least 3 values in total to pool a variance, got {x.size} + {y.size}")
    squares = ((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum()
    pooled_sd = math.sqrt(squares / dof)
    if pooled_sd == 0:
        raise ValueError("γ is undefined: both samples are constant (pooled standard deviation 0)")
    return float((y.mean() - x.mean()) / pooled_sd)


def type2_error(gamma: float, n_forks: float, alpha: float = 0.01) -> float:
    """β = Φ(z_{1−α/2} − |γ|·sqrt(n/2)): probability of missing an effect of size γ with n forks per version.

    Worked values (Reichelt et al., α = 0.01): β = 9.73 % at γ = 1, n = 30;
    0.76 % at n = 50; 94.2 % at γ = 0.2, n = 50.
    """
    _check_probability("alpha", alpha)
    if n_forks <= 0:
        raise ValueError(f"n_forks must be positive, got {n_forks!r}")
    z_alpha = stats.norm.ppf(1 - alpha / 2)
    return float(stats.norm.cdf(z_alpha - abs(gamma) * math.sqrt(n_forks / 2)))


def forks_needed(gamma: float, alpha: float = 0.01, beta: float = 0.01) -> int:
    """Smallest n with ``type2_error(γ, n, α) ≤ β``: ``⌈2·((z_{1−α/2} + z_{1−β}) / γ)²⌉``.

    Rounded *up* so the plan meets the target (the paper's "4,808 forks for
    γ = 0.1" comes from rounded quantiles; the exact value is 4,806).
    """
    _check_probability("alpha", alpha)
    _check_probability("beta", beta)
    if gamma == 0 or not math.isfinite(gamma):
        raise ValueError(f"gamma must be finite and non-zero, got {gamma!r}")
    z_sum = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(1 - beta)
    return max(1, math.ceil(2.0 * (z_sum / gamma) ** 2 - 1e-9))


def variance_components(forks: ForkData) -> VarianceComponents:
    """Within-fork variance S² and between-fork variance ρ² of fork-structured data (one-way ANOVA).

    ``S²`` = pooled within-fork sample variance (Σ (n_f − 1)·s_f² / Σ (n_f − 1));
    ``ρ² = max(0, var(fork means, ddof=1) − S²/n̄)`` with n̄ the harmonic mean
    of the iteration counts — the method-of-moments estimator behind Horký's
    parametric model (digest seed-000 §2.5.4) and Kalibera & Jones §3.
    Needs 2 forks for ρ² and a fork with 2 iterations for S²; otherwise the
    missing component is 0 and a warning says so.
    """
    parts = as_forks(forks, "forks")
    means = np.array([fork.mean() for fork in parts])
    counts = np.array([fork.size for fork in parts])
    notes = []
    within_dof = int((counts - 1).sum())
    if within_dof > 0:
        within = float(sum(((fork - fork.mean()) ** 2).sum() for fork in parts) / within_dof)
    else:
        within = 0.0
        notes.append("one iteration per fork: within-fork variance cannot be estimated (taken as 0)")
    harmonic_n = float(counts.size / (1.0 / counts).sum())
    if len(parts) > 1:
        between = max(0.0, float(means.var(ddof=1)) - within / harmonic_n)
    else:
        between = 0.0
        notes.append("one fork: between-fork variance cannot be estimated (taken as 0)")
    return VarianceComponents(float(means.mean()), within, between, len(parts), harmonic_n, tuple(notes))


def minimal_detectable_change(
    noise: ForkData | VarianceComponents,
    n_forks: int,
    n_iterations: int,
    alpha: float = 0.01,
    beta: float = 0.01,
) -> float:
    """Smallest relative change |Δ/μ| detectable with probability 1−β by a plan of n_forks × n_iterations per version.

    From the power formula with the standard deviation of one fork's mean
    under the plan, ``σ_fm = sqrt(ρ² + S²/n_iterations)`` (measured noise in
    ``noise``: pilot data or :class:`VarianceComponents`):
    ``MDC = (z_{1−α/2} + z_{1−β}) · σ_fm · sqrt(2/n_forks) / μ``.
    Raises ``ValueError`` for a non-positive mean or plan sizes < 1.
    """
    _check_probability("alpha", alpha)
    _check_probability("beta", beta)
    if n_forks < 1 or n_iterations < 1:
        raise ValueError(f"plan must have at least 1 fork and 1 iteration, got {n_forks} × {n_iterations}")
    components = noise if isinstance(noise, VarianceComponents) else variance_components(noise)
    if not components.mean > 0:
        raise ValueError(f"mean is {components.mean!r}; a relative change needs a positive mean")
    fork_mean_sd = math.sqrt(components.between_variance + components.within_variance / n_iterations)
    z_sum = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(1 - beta)
    return float(z_sum * fork_mean_sd * math.sqrt(2.0 / n_forks) / components.mean)
