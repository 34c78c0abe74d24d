"""Frozen result types returned by ``benchwarden.stats``.

Caveats are data (STYLE.md §8): every composite result carries ``warnings``,
a tuple of human-readable sentences such as ``"only 2 forks: interval is
wide"``.  A computation that cannot produce evidence degrades to "no
evidence" (e.g. ``p_value = 1.0`` with a warning), never to "significant".
Functions returning a single number (CV, Cliff's δ, ...) return ``float`` and
raise ``ValueError`` for input on which the number is undefined.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Interval:
    """A confidence interval ``[low, high]`` around the point estimate ``point``.

    ``confidence`` is the nominal coverage (e.g. 0.95); ``method`` names how it
    was computed (``"percentile"``, ``"studentized"``, ``"bca"``, ``"t"``);
    ``n_resamples`` is 0 for methods that do not resample.
    """

    low: float
    high: float
    point: float
    confidence: float
    method: str
    n_resamples: int
    warnings: tuple[str, ...] = ()

    @property
    def width(self) -> float:
        return self.high - self.low

    @property
    def relative_width(self) -> float:
        """``(high − low) / point`` — the RCIW of Laaber et al. (FSE 2020 §3.8)."""
        return self.width / self.point

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


@dataclass(frozen=True)
class TestResult:
    """Outcome of a two-sample significance test (Mann-Whitney U or Welch's t).

    ``statistic`` is U (of the first sample) or t; ``df`` is the Welch-
    Satterthwaite degrees of freedom (None for Mann-Whitney); ``alternative``
    is stated for the *first* sample relative to the second (``"less"`` means
    "a tends to be smaller than b"); ``on`` is ``"fork-means"`` or ``"all"``;
    ``n_a``/``n_b`` are the numbers of values actually tested.
    """

    __test__ = False  # not a pytest test class

    method: str
    statistic: float
    p_value: float
    alternative: str
    on: str
    n_a: int
    n_b: int
    df: float | None = None
    warnings: tuple[str, ...] = ()

    def significant(self, alpha: float) -> bool:
        """True when ``p_value < alpha`` (a NaN p-value is never significant)."""
        return bool(self.p_value < alpha)


@dataclass(frozen=True)
class RelativeChange:
    """Relative change of a location statistic from base to candidate, direction-aware.

    ``ratio = stat(candidate) / stat(base)``; ``relative = ratio − 1`` (e.g.
    +0.05 = the statistic grew by 5 %); ``improvement`` is ``relative`` when
    higher is better (throughput) and ``−relative`` when lower is better
    (time), so a positive ``improvement`` is always good news.
    """

    ratio: float
    relative: float
    improvement: float
    statistic: str
    higher_is_better: bool
    warnings: tuple[str, ...] = ()

    @property
    def is_regression(self) -> bool:
        return self.improvement < 0


@dataclass(frozen=True)
class VarianceComponents:
    """One-way random-effects decomposition of fork-structured data (Horký §2.5.4, Kalibera & Jones §3).

    ``within_variance`` (S²): pooled variance of iterations around their fork
    mean; ``between_variance`` (ρ²): variance of the true fork means,
    estimated as ``var(fork means) − S²/n̄`` and clipped at 0; ``mean``: mean of
    fork means; ``iterations_per_fork``: n̄ (harmonic mean for ragged forks).
    """

    mean: float
    within_variance: float
    between_variance: float
    n_forks: int
    iterations_per_fork: float
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class MachineSpread:
    """How a benchmark's values differ between the machines they were measured on (the level above forks).

    ``machines``: each machine's label in order of first appearance, with ``counts`` (values on it) and
    ``centers`` (the geometric mean of its values); ``between``: the standard deviation of the machine level
    on the log scale (0.03 ≈ machines differ by ±3 %), ``within``: that of one value around its machine's
    level; ``p_value``: the one-way ANOVA F test of "no machine effect" (NaN when it cannot be computed).
    """

    machines: tuple[str, ...]
    counts: tuple[int, ...]
    centers: tuple[float, ...]
    between: float
    within: float
    p_value: float
    warnings: tuple[str, ...] = ()

    def differ(self, alpha: float) -> bool:
        """Whether the machines differ beyond what the values' spread on one machine explains (``p < alpha``)."""
        return bool(self.p_value < alpha)

    def to_json(self) -> dict[str, object]:
        return {"machines": [{"machine": m, "count": n, "center": c}
                             for m, n, c in zip(self.machines, self.counts, self.centers)],
                "between": self.between, "within": self.within,
                "p_value": None if self.p_value != self.p_value else self.p_value, "warnings": list(self.warnings)}
