"""Interpretations of one SPL comparison: quick (Welch), parametric multi-run, non-parametric bootstrap.

Each interpretation turns the measurements of the two sides of a relation into an estimate of
``d = E[t_l(L)] − E[t_r(R)]`` together with its null distribution, from which two one-sided
p-values follow.  The three-valued verdict (docs/spl.md, "Verdicts") is then the same for every
interpretation, for a relation ``L op R`` at level α (α ≤ 0.5):

* ``L <= R`` (and ``<``): **fails** iff H0 "d ≤ 0" is rejected at α (the thesis' definition of a
  violated ``≤``, Horký Def. 8–10); **holds** iff H0 "d ≥ 0" is rejected at α (positive evidence);
  otherwise **undecided**.  ``>=``/``>`` mirror this.
* ``L = R`` with equivalence margin m (a fraction of the mean of the two transformed sides):
  **fails** iff "|d| ≤ m" is rejected (one of the two one-sided tests at α: with m = 0 this is the
  thesis' two-sided test at 2α); **holds** iff both one-sided tests of "|d| ≥ m" reject at α
  (Schuirmann's TOST, 1987); otherwise undecided.  With m = 0 equality is never *shown*.

Transformations are linear, ``t(x) = scale·x + offset`` (the thesis' practical restriction, its
footnote 2), applied to every observation before any statistic, as the thesis prescribes.

Interpretations (thesis §2.5, digest seed-000):

``quick``
    Def. 7–8: all observations of a side pooled, Welch's t with Welch–Satterthwaite ν.  Cheap, and
    anti-conservative when forks differ (it treats iterations as independent).
``parametric``
    Def. 9: the mean of fork means, variance ``R²/r + S²/(r·o)`` with S² the mean within-fork
    variance and R² the variance of fork means, pooled with relative fork-mean variances from the
    store's history when given.  Deviation: the thesis uses the normal quantile z; we use Student's
    t with Welch–Satterthwaite degrees of freedom over the R² estimates, which tends to z as history
    grows and keeps two or three forks from looking certain.
``bootstrap``
    Def. 10: two-level (forks, then iterations) bootstrap of the mean of fork means on each side,
    the centred difference distribution ``D* = (M* − M̄) − (N* − N̄)``; "≤ fails" iff
    ``F*(d̂) > 1 − α``.  Uses :func:`benchwarden.stats.hierarchical_bootstrap_means`.

All functions are pure and seedable; failed or impossible computations degrade to "no evidence"
(p = 1 both ways, hence undecided) with a warning, never to a decision.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
from scipy import stats as sps

from benchwarden.spl.logic import Truth
from benchwarden.spl.settings import DEFAULT_RESAMPLES, INTERPRETATIONS
from benchwarden.stats import hierarchical_bootstrap_means


@dataclass(frozen=True)
class Linear:
    """``t(x) = scale·x + offset_ns``; ``scale`` > 0 (transformations map R+ to R+ in the thesis)."""

    scale: float = 1.0
    offset_ns: float = 0.0

    def apply(self, value: float) -> float:
        return self.scale * value + self.offset_ns


@dataclass(frozen=True)
class SideData:
    """One side of a comparison: measured forks (ns/op per iteration) or a constant, and its transformation.

    ``forks`` is None for a constant side (``a <= 5ms``): then ``constant_ns`` is its value before
    transformation.  ``history`` (parametric only): ``(relative variance of fork means, degrees of
    freedom)`` of earlier runs of the same benchmark, for pooling R².
    """

    forks: tuple[np.ndarray, ...] | None
    transform: Linear = Linear()
    constant_ns: float = 0.0
    history: tuple[tuple[float, int], ...] = ()

    @classmethod
    def measured(cls, forks: Sequence[Sequence[float]], transform: Linear = Linear(),
                 history: Sequence[tuple[float, int]] = ()) -> "SideData":
        arrays = tuple(np.asarray(f, dtype=float) for f in forks if len(f) > 0)
        return cls(arrays, transform, 0.0, tuple(history))

    @classmethod
    def constant(cls, value_ns: float, transform: Linear = Linear()) -> "SideData":
        return cls(None, transform, value_ns)

    @property
    def n_forks(self) -> int:
        return 0 if self.forks is None else len(self.forks)

    @property
    def n_observations(self) -> int:
        return 0 if self.forks is None else sum(len(f) for f in self.forks)

    def transformed_mean(self) -> float:
        """The transformed mean of fork means (a constant side: its transformed value)."""
        if self.forks is None:
            return self.transform.apply(self.constant_ns)
        return self.transform.apply(float(np.mean([f.mean() for f in self.forks])))


@dataclass(frozen=True)
class Estimate:
    """``d̂`` with its sampling distribution, as an interpretation computed it.

    ``p_greater(c)``: one-sided p-value of H0 "d ≤ c" (small: evidence that d > c).
    ``p_less(c)``: one-sided p-value of H0 "d ≥ c".  ``interval(alpha)``: (low, high) with α in each tail.
    """

    difference: float
    p_greater: Callable[[float], float]
    p_less: Callable[[float], float]
    interval: Callable[[float], tuple[float, float]]
    df: float | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class RelationStats:
    """The outcome of one atomic comparison under one interpretation.

    Means are of the transformed sides, in ns/op.  ``low``/``high`` bound ``d = left − right`` with
    ``alpha`` in each tail.  ``p_fails``: p-value of the hypothesis that the relation holds in
    expectation (small means evidence against it); ``p_holds``: of the hypothesis that it is violated.
    """

    interpretation: str
    op: str
    alpha: float
    margin: float
    left_mean_ns: float
    right_mean_ns: float
    difference_ns: float
    low_ns: float
    high_ns: float
    p_fails: float
    p_holds: float
    verdict: Truth
    df: float | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)


# -- estimates ----------------------------------------------------------------------------------------

def _no_evidence(difference: float, warning: str) -> Estimate:
    return Estimate(difference, lambda c: 1.0, lambda c: 1.0, lambda a: (-math.inf, math.inf), None, (warning,))


def _student_estimate(difference: float, se: float, df: float, warnings: Sequence[str] = ()) -> Estimate:
    """An estimate with a scaled Student-t distribution (df = inf: normal). se = 0: exact comparison."""
    if se == 0.0 or not math.isfinite(se):
        if not math.isfinite(se):
            return _no_evidence(difference, "the variance could not be estimated")

        def exact_greater(c: float) -> float:
            return 0.0 if difference > c else 1.0

        def exact_less(c: float) -> float:
            return 0.0 if difference < c else 1.0

        return Estimate(difference, exact_greater, exact_less, lambda a: (difference, difference), df,
                        (*warnings, "no variation in the data: the comparison is exact"))
    dist = sps.norm() if math.isinf(df) else sps.t(df)

    def greater(c: float) -> float:
        return float(dist.sf((difference - c) / se))

    def less(c: float) -> float:
        return float(dist.cdf((difference - c) / se))

    def interval(alpha: float) -> tuple[float, float]:
        q = float(dist.ppf(1.0 - alpha))
        return difference - q * se, difference + q * se

    return Estimate(difference, greater, less, interval, df, tuple(warnings))


def _pooled(side: SideData) -> np.ndarray:
    assert side.forks is not None
    return side.transform.scale * np.concatenate(side.forks) + side.transform.offset_ns


def quick_estimate(left: SideData, right: SideData) -> Estimate:
    """Welch's t on all (transformed) observations of each side (Horký Def. 8; Welch 1947).

    ``t = (M̄ − N̄)/sqrt(S_M²/V_M + S_N²/V_N)``; ``ν`` by Welch–Satterthwaite.  A constant side
    contributes no variance (its term drops out, so ν = V − 1 of the other side).
    """
    difference = _pooled_mean(left) - _pooled_mean(right)
    terms: list[tuple[float, float]] = []  # (S²/V, V − 1) per measured side
    warnings: list[str] = []
    for name, side in (("left", left), ("right", right)):
        if side.forks is None:
            continue
        values = _pooled(side)
        if values.size < 2:
            return _no_evidence(difference, f"the {name} side has {values.size} observation(s); need at least 2")
        terms.append((float(np.var(values, ddof=1)) / values.size, values.size - 1.0))
        if side.n_forks > 1:
            warnings.append(f"{name}: {side.n_forks} forks pooled as independent observations (quick)")
    if not terms:
        return _student_estimate(difference, 0.0, math.inf, warnings)
    var = sum(v for v, _ in terms)
    denom = sum(v * v / d for v, d in terms if v > 0)
    df = var * var / denom if denom > 0 else math.inf
    return _student_estimate(difference, math.sqrt(var), df, warnings)


def _pooled_mean(side: SideData) -> float:
    if side.forks is None:
        return side.transform.apply(side.constant_ns)
    return float(_pooled(side).mean())


@dataclass(frozen=True)
class ParametricSide:
    """Mean of fork means and its variance ``R²/r + S²/(r·o)`` (untransformed), with the df of R²."""

    mean: float
    variance: float
    df: float
    r: int
    o: float
    within_variance: float  # S²
    between_variance: float  # R² (pooled with history)


def parametric_side(side: SideData) -> ParametricSide | str:
    """Horký Def. 9 for one side; a message (str) when R² cannot be estimated.

    Model: fork i has its own expectation μ_i with Var(μ_i) = ρ², and o iterations with variance σ²
    around it, so ``Var(M̄) = ρ²/r + σ²/(r·o)``.  Estimators (n − 1 throughout):
    S² = mean of the per-fork sample variances (forks with one iteration contribute none);
    R² = sample variance of the fork means, pooled as a *relative* variance (R²/mean²) with the
    history's relative variances weighted by their degrees of freedom, then scaled back by the current
    mean (history from other commits may differ in level but rarely in relative spread);
    ρ̂² = max(0, R² − S²/o), because R² estimates ρ² + σ²/o (one-way random-effects method of
    moments) — plugging R² itself in for ρ² would count the within-fork noise twice.  The variance is
    therefore ``max(R², S²/o)/r``.  o = mean number of iterations per fork (the thesis assumes equal o).
    """
    assert side.forks is not None
    means = np.array([f.mean() for f in side.forks])
    r = len(means)
    mean = float(means.mean())
    o = float(np.mean([len(f) for f in side.forks]))
    variances = [float(np.var(f, ddof=1)) for f in side.forks if len(f) > 1]
    s2 = float(np.mean(variances)) if variances else 0.0
    weighted, df = 0.0, 0.0
    if r > 1 and mean != 0.0:
        weighted += (r - 1) * float(np.var(means, ddof=1)) / (mean * mean)
        df += r - 1
    for rel_variance, hist_df in side.history:
        if hist_df > 0 and math.isfinite(rel_variance):
            weighted += hist_df * rel_variance
            df += hist_df
    if df == 0:
        return (f"{r} fork(s) and no history: the variance between forks is unknown; "
                "need at least 2 forks (or earlier runs in the store)")
    r2 = weighted / df * mean * mean
    rho2 = max(0.0, r2 - s2 / o)  # method of moments: R² estimates ρ² + σ²/o (one-way random effects)
    variance = rho2 / r + s2 / (r * o)
    return ParametricSide(mean, variance, df, r, o, s2, r2)


def parametric_estimate(left: SideData, right: SideData) -> Estimate:
    """Horký Def. 9: ``M̄ − N̄`` against t_{ν,1−α}·sqrt(v_M + v_N), ν by Welch–Satterthwaite over R²'s df."""
    difference = left.transformed_mean() - right.transformed_mean()
    var, denom = 0.0, 0.0
    warnings: list[str] = []
    for name, side in (("left", left), ("right", right)):
        if side.forks is None:
            continue
        got = parametric_side(side)
        if isinstance(got, str):
            return _no_evidence(difference, f"{name}: {got}")
        v = side.transform.scale ** 2 * got.variance
        var += v
        denom += v * v / got.df if v > 0 else 0.0
        if got.df < 4:
            warnings.append(f"{name}: between-fork variance from {got.df:.0f} degree(s) of freedom: wide interval")
    df = var * var / denom if denom > 0 else math.inf
    return _student_estimate(difference, math.sqrt(var), df, warnings)


def bootstrap_estimate(left: SideData, right: SideData, n_resamples: int = DEFAULT_RESAMPLES,
                       seed: int | np.random.Generator | None = 0) -> Estimate:
    """Horký Def. 10: the centred two-level bootstrap difference ``D* = (M* − M̄) − (N* − N̄)``.

    ``p_greater(c) = (1 + #{D* ≥ d̂ − c})/(B + 1)`` (the +1 keeps a finite resample count from
    claiming p = 0; Davison & Hinkley 1997 §4.2).  Needs at least two forks per measured side: with
    one fork the top level has nothing to resample and the spread between forks is unseen.
    """
    rng = np.random.default_rng(seed) if not isinstance(seed, np.random.Generator) else seed
    difference = left.transformed_mean() - right.transformed_mean()
    centred = np.zeros(n_resamples)
    for sign, name, side in ((1.0, "left", left), (-1.0, "right", right)):
        if side.forks is None:
            continue
        if side.n_forks < 2:
            return _no_evidence(difference, f"{name}: {side.n_forks} fork(s); the bootstrap needs at least 2")
        means = hierarchical_bootstrap_means(list(side.forks), n_resamples=n_resamples, seed=rng)
        observed = float(np.mean([f.mean() for f in side.forks]))
        centred += sign * side.transform.scale * (means - observed)
    ordered = np.sort(centred)
    b = ordered.size

    def greater(c: float) -> float:
        at_least = b - np.searchsorted(ordered, difference - c, side="left")
        return float((1 + at_least) / (b + 1))

    def less(c: float) -> float:
        at_most = np.searchsorted(ordered, difference - c, side="right")
        return float((1 + at_most) / (b + 1))

    def interval(alpha: float) -> tuple[float, float]:
        hi_q, lo_q = np.quantile(ordered, [1.0 - alpha, alpha])
        return difference - float(hi_q), difference - float(lo_q)

    warnings = []
    if n_resamples * 0.01 < 5:
        warnings.append(f"only {n_resamples} resamples: tail p-values are coarse")
    return Estimate(difference, greater, less, interval, None, tuple(warnings))


def estimate(interpretation: str, left: SideData, right: SideData, *, n_resamples: int = DEFAULT_RESAMPLES,
             seed: int | np.random.Generator | None = 0) -> Estimate:
    """Dispatch on the interpretation name (one of :data:`INTERPRETATIONS`)."""
    if interpretation == "quick":
        return quick_estimate(left, right)
    if interpretation == "parametric":
        return parametric_estimate(left, right)
    if interpretation == "bootstrap":
        return bootstrap_estimate(left, right, n_resamples, seed)
    raise ValueError(f"unknown interpretation {interpretation!r}; expected one of {', '.join(INTERPRETATIONS)}")


# -- verdicts -----------------------------------------------------------------------------------------

def decide(op: str, est: Estimate, alpha: float, margin_ns: float = 0.0,
           lenient: bool = False) -> tuple[Truth, float, float]:
    """The verdict of ``left op right`` and its (p_fails, p_holds); see the module docstring.

    ``lenient``: the thesis' two-valued reading (Horký Def. 8–10: a relation holds unless its null
    hypothesis is rejected), so "undecided" becomes "holds"; with little data everything holds.
    """
    if not 0.0 < alpha <= 0.5:
        raise ValueError(f"alpha must be in (0, 0.5], got {alpha}")
    if op in ("<=", "<"):
        p_fails, p_holds = est.p_greater(0.0), est.p_less(0.0)
    elif op in (">=", ">"):
        p_fails, p_holds = est.p_less(0.0), est.p_greater(0.0)
    elif op == "=":
        p_fails = min(est.p_greater(margin_ns), est.p_less(-margin_ns))
        p_holds = max(est.p_greater(-margin_ns), est.p_less(margin_ns)) if margin_ns > 0 else 1.0
    else:
        raise ValueError(f"unknown relation {op!r}")
    if p_fails < alpha:
        return Truth.FAILS, p_fails, p_holds
    if p_holds < alpha or lenient:
        return Truth.HOLDS, p_fails, p_holds
    return Truth.UNDECIDED, p_fails, p_holds


def compare(interpretation: str, op: str, left: SideData, right: SideData, alpha: float = 0.05,
            margin: float = 0.0, *, lenient: bool = False, n_resamples: int = DEFAULT_RESAMPLES,
            seed: int | np.random.Generator | None = 0) -> RelationStats:
    """Evaluate ``left op right`` under ``interpretation`` at level ``alpha``.

    ``margin``: equivalence margin of ``=`` as a fraction of the mean of the two transformed sides
    (ignored by the inequalities).  ``lenient``: see :func:`decide`.  Returns every number a report needs; see :class:`RelationStats`.
    """
    est = estimate(interpretation, left, right, n_resamples=n_resamples, seed=seed)
    side_mean = _pooled_mean if interpretation == "quick" else SideData.transformed_mean
    left_mean, right_mean = side_mean(left), side_mean(right)
    margin_ns = margin * (abs(left_mean) + abs(right_mean)) / 2.0
    verdict, p_fails, p_holds = decide(op, est, alpha, margin_ns, lenient)
    low, high = est.interval(alpha)
    return RelationStats(interpretation=interpretation, op=op, alpha=alpha, margin=margin,
                           left_mean_ns=left_mean, right_mean_ns=right_mean, difference_ns=est.difference,
                           low_ns=low, high_ns=high, p_fails=p_fails, p_holds=p_holds, verdict=verdict,
                           df=est.df, warnings=est.warnings)
