"""Does a benchmark detect an injected slowdown? The study's rule, repetition by repetition.

Laaber & Leitner (MSR 2018, §6.4, Eq. 2; digest seed-003 §3.6): in *every* repetition r (the study
uses two), the slowed run's measurements of benchmark b differ from the baseline run's

1. significantly: Wilcoxon rank-sum (Mann–Whitney U) test, two-sided, p < 0.01, and
2. by enough: ``|mean(slowed) − mean(base)| / mean(base) ≥ v/2``.

The measurements are every measurement iteration of the run (the study's M_r^b are the 20 iteration
results of its single fork), so the test runs ``on="all"``.  As in the paper the rule is two-sided, so
a large significant *speed-up* also counts (digest §8.8): we record the signed change so reports can
show it.  A failed or degenerate test counts as "not detected", never as detected (STYLE §8).

``rule="compare"`` uses benchwarden's own comparison verdict instead
(:func:`benchwarden.compare.verdict.judge`, unpaired: the baseline and slowed runs are separate runs;
a t interval on log fork summaries that excludes 1, the robust estimate at least v/2 and a rank guard),
with the threshold set to v/2 so that both rules ask for the same size of change.  It needs forks:
with fewer than 2 per side there is no interval, so nothing is detected (the report's warnings say so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence, cast

from benchwarden.stats import ForkData, mann_whitney, relative_change

if TYPE_CHECKING:
    from benchwarden.compare.verdict import ForkMatrix

STUDY_ALPHA = 0.01
RULES = ("study", "compare")
COMPARE_CONFIDENCE = 0.95  # one fixed-sample look per repetition: the level of a single test


@dataclass(frozen=True)
class RepetitionCheck:
    """One repetition: the rank test and the relative change of the mean (base → slowed)."""

    p_value: float
    relative_change: float  # signed: +0.4 = the slowed run's mean is 40 % higher
    significant: bool
    large_enough: bool
    warnings: tuple[str, ...] = ()

    @property
    def detected(self) -> bool:
        return self.significant and self.large_enough


@dataclass(frozen=True)
class Detection:
    """Whether ``benchmark`` detects the slowdown of ``method`` in every repetition."""

    method: str
    benchmark: str
    checks: tuple[RepetitionCheck, ...]
    rule: str = "study"

    @property
    def detected(self) -> bool:
        return bool(self.checks) and all(c.detected for c in self.checks)


def study_check(base: ForkData, slowed: ForkData, slowdown: float, alpha: float = STUDY_ALPHA) -> RepetitionCheck:
    """The study's rule for one repetition (see the module docstring); never raises on odd data."""
    try:
        test = mann_whitney(base, slowed, alternative="two-sided", on="all")
        change = relative_change(base, slowed, statistic="mean")
    except ValueError as exc:
        return RepetitionCheck(1.0, 0.0, False, False, (f"no evidence: {exc}",))
    significant = test.significant(alpha)
    large_enough = abs(change.relative) >= slowdown / 2.0
    return RepetitionCheck(test.p_value, change.relative, significant, large_enough, tuple(test.warnings))


def compare_check(base: ForkData, slowed: ForkData, slowdown: float) -> RepetitionCheck:
    """benchwarden's compare verdict for one repetition: detected when it says "slower" (see the module docstring)."""
    from benchwarden.compare.verdict import Verdict, judge

    try:
        # the campaign's data are fork matrices (one row per fork), which is what judge reads
        judgement = judge(cast("ForkMatrix", base), cast("ForkMatrix", slowed), change_confidence=COMPARE_CONFIDENCE,
                          equivalence_confidence=COMPARE_CONFIDENCE, threshold=slowdown / 2.0, paired=False)
    except ValueError as exc:
        return RepetitionCheck(1.0, 0.0, False, False, (f"no evidence: {exc}",))
    slower = judgement.verdict is Verdict.SLOWER
    return RepetitionCheck(judgement.rank_p, judgement.ratio.point - 1.0, slower, slower, judgement.warnings)


def detect(method: str, benchmark: str, base_runs: Sequence[ForkData], slowed_runs: Sequence[ForkData],
           slowdown: float, rule: str = "study") -> Detection:
    """Apply ``rule`` to each repetition (``base_runs[r]`` against ``slowed_runs[r]``)."""
    if rule not in RULES:
        raise ValueError(f"unknown detection rule {rule!r}; expected one of {', '.join(RULES)}")
    if len(base_runs) != len(slowed_runs):
        raise ValueError(f"{benchmark}: {len(base_runs)} baseline repetitions but {len(slowed_runs)} slowed ones")
    check = study_check if rule == "study" else compare_check
    checks = tuple(check(b, s, slowdown) for b, s in zip(base_runs, slowed_runs))
    return Detection(method, benchmark, checks, rule)
