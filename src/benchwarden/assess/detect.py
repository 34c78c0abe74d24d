"""Does a benchmark detect an injected slowdown?  Two rules.

``rule = "compare"`` (default): **would ``benchwarden compare`` call the benchmark slower?**  The
benchmark's baseline forks (every complete fork of the baseline runs, shared by all methods) are
compared with forks of it run with the method slowed, one slowed fork at a time, until the question
is decided or the budget (``forks``) is spent (:class:`DetectionDesign`):

* the ratio is analysed as ``compare`` does (log fork summaries, outlying forks left out by the
  generalized ESD test, Hodges–Lehmann estimate, a rank guard: :mod:`benchwarden.stats.logratio`,
  :func:`benchwarden.compare.verdict.decide`), with ``compare``'s threshold for the benchmark
  (``[compare] min_change`` / ``thresholds``, default 3 %), but unpaired with Student's
  *pooled-variance* t (:func:`benchwarden.stats.logratio.pooled_t`): the baseline has many forks,
  the slowed variant few, and a multiplicative slowdown shifts log values without spreading them;
* **detected**: the change interval lies above 1, the estimate reaches the threshold and the rank
  test does not object (compare's "slower"); **not detected**: the equivalence interval lies inside
  the band (the benchmark's change is surely below the threshold); anything else after the last
  look: **undecided** — "not detectable at this budget";
* **overshot**: a benchmark's change cannot exceed ``v`` (below), so a change interval wholly above
  ``1 + v`` means the method was slowed by more than ``v`` — a busy wait too long for a method of a few
  nanoseconds (a clock read alone takes 20–130 ns), or compounding recursion.  Such a pair is reported as
  "injection overshot" and not counted as detecting ``v``: it answers a larger question.  So is a pair
  detected with an estimate above ``1 + v`` by a benchmark too noisy to detect ``v`` (the futility
  condition below holds): its detection rests on the excess, not on ``v``;
* **futility**: a benchmark's change cannot exceed ``v`` (the slowed calls take ``(1 + v)`` times as long,
  and they are at most all of the benchmark's time), so when the change detectable at the full budget
  (:func:`detectable_change`) already exceeds ``v``, more forks cannot decide: the pair stops at once as
  undecided (recursion that compounds, or an imprecise wait in a very short method, can break the bound;
  both are reported: docs/assess.md).  The same question is first asked of the baseline forks alone
  (:func:`screen_mdc`, with the spread at its 80 % lower bound): a benchmark that fails it is not slowed
  at all, its pairs are undecided with 0 forks;
* the looks (after 2, 3, …, ``forks`` slowed forks) share the error rates by Bonferroni's inequality
  (each look at ``α/L`` for ``L`` looks; Dunn 1961): simple, valid whatever the dependence between
  looks, and with at most a handful of looks barely more conservative than alpha spending.

Because the injection makes every call of the method take ``(1 + u)`` times its own duration, the
benchmark's time is linear in ``u``: ``T(u) = T·(1 + f·u)`` with ``f`` the share of the benchmark's
time spent in the method.  One injection at ``v`` estimates ``f̂ = (R̂ − 1)/v`` from the measured ratio
``R̂``, and the **smallest slowdown the benchmark detects** within the budget is
``u* = MDC/f`` (with a lower confidence bound of ``f``: :func:`smallest_detectable_slowdown`), where ``MDC`` is the benchmark change the rule detects with 80 % power at the full
budget (:func:`detectable_change`).  It is reported only when the
measured change is significant (otherwise ``f`` is not known to be above 0).

``rule = "study"``: Laaber & Leitner (MSR 2018, §6.4, Eq. 2; digest seed-003 §3.6): in *every*
repetition r (the study uses two), the slowed run's measurements of benchmark b differ from the
baseline run's significantly (Wilcoxon rank-sum, two-sided, p < 0.01, on every measurement
iteration) and by enough (``|mean(slowed) − mean(base)| / mean(base) ≥ v/2``).  As in the paper the
rule is two-sided (digest §8.8): the signed change is recorded so reports can show it.  A failed or
degenerate test counts as "not detected", never as detected (STYLE §8).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import stats as scistats

from benchwarden.stats import ForkData, mann_whitney, relative_change
from benchwarden.stats.logratio import log_summaries, rank_p, ratio_statistics

STUDY_ALPHA = 0.01
RULES = ("compare", "study")
Z_80 = float(scistats.norm.ppf(0.8))


class Outcome(str, enum.Enum):
    DETECTED = "detected"
    NOT_DETECTED = "not detected"
    UNDECIDED = "undecided"  # not detectable at this budget
    OVERSHOT = "overshot"  # the benchmark surely changed by more than v: the injection was not v

    @property
    def label(self) -> str:
        return {Outcome.UNDECIDED: "not detectable at this budget",
                Outcome.OVERSHOT: "injection overshot"}.get(self, self.value)


# Vectorised codes of :func:`decide_looks` (and OVERSHOT, of a simulation applying :func:`overshot`).
UNDECIDED, DETECTED, NOT_DETECTED, OVERSHOT = 0, 1, 2, 3
CODES = {UNDECIDED: Outcome.UNDECIDED, DETECTED: Outcome.DETECTED, NOT_DETECTED: Outcome.NOT_DETECTED,
         OVERSHOT: Outcome.OVERSHOT}


@dataclass(frozen=True)
class RepetitionCheck:
    """One repetition of the study's rule: the rank test and the relative change of the mean (base → slowed)."""

    p_value: float
    relative_change: float  # signed: +0.4 = the slowed run's mean is 40 % higher
    significant: bool
    large_enough: bool
    warnings: tuple[str, ...] = ()

    @property
    def detected(self) -> bool:
        return self.significant and self.large_enough


@dataclass(frozen=True)
class DetectionDesign:
    """The sequential design of the ``compare`` rule: looks after ``min_forks``..``max_forks`` slowed forks, at
    the counts of :attr:`schedule` (geometric).

    ``alpha``: error rate of a false "detected" over all looks (the study's 1 %); ``equivalence_alpha``:
    of a false "not detected" (5 %, compare's); each look gets its Bonferroni share.
    """

    max_forks: int = 5
    min_forks: int = 2
    alpha: float = 0.01
    equivalence_alpha: float = 0.05
    rank_alpha: float = 0.05
    power: float = 0.8

    def __post_init__(self) -> None:
        if not 1 <= self.min_forks <= self.max_forks:
            raise ValueError(f"need 1 <= min_forks <= max_forks, got {self.min_forks}, {self.max_forks}")
        for name in ("alpha", "equivalence_alpha", "rank_alpha"):
            if not 0 < getattr(self, name) < 1:
                raise ValueError(f"{name} must be in (0, 1), got {getattr(self, name)!r}")

    @property
    def schedule(self) -> tuple[int, ...]:
        """The slowed-fork counts at which the pairs are judged: ``min_forks``, then each count ×1.5 (rounded
        up, at least one more), and ``max_forks``; e.g. 2, 3, 5 for the default and 2, 3, 5, 8, 12, 18, 27, 30
        for ``max_forks = 30``.

        The looks share α by Bonferroni, so with a look after every fork each of 29 looks at 30 forks gets α/29.
        Geometric spacing keeps the number of looks logarithmic in the budget (as group-sequential designs space
        their looks by information, not by observation): a clear case still stops after 2 or 3 forks, and a
        larger budget buys more precision (the MDC at 30 forks and a 12 % fork spread: 13.4 % against 14.7 %).
        Simulated against a look per fork: docs/assess.md.
        """
        counts = [self.min_forks]
        while counts[-1] < self.max_forks:
            counts.append(min(self.max_forks, max(counts[-1] + 1, math.ceil(counts[-1] * 1.5))))
        return tuple(counts)

    @property
    def looks(self) -> int:
        return len(self.schedule)

    def confidences(self) -> tuple[float, float]:
        """(change, equivalence) level of every look: ``1 − α/L`` (Bonferroni over the ``L`` looks)."""
        return 1.0 - self.alpha / self.looks, 1.0 - self.equivalence_alpha / self.looks


@dataclass(frozen=True)
class DetectionLook:
    """The ``compare`` rule's last look at one (method, benchmark): ratio slowed / baseline and what it implies."""

    base_forks: int
    slowed_forks: int
    ratio: float  # Hodges–Lehmann estimate of slowed / baseline
    change: tuple[float, float]  # interval of the ratio at the look's change level
    equivalence: tuple[float, float]
    rank_p: float
    threshold: float  # compare's threshold for the benchmark
    mdc: float  # benchmark change detected with 80 % power at the full budget (inf: unknown; detectable_change)
    se: float = math.inf  # standard error of log(ratio)
    left_out: int = 0  # outlying forks left out (ESD)
    #: as ``mdc``, at the fork spread's lower 80 % confidence bound: what the futility stop compares with v
    futility_mdc: float = math.inf


@dataclass(frozen=True)
class Detection:
    """Whether ``benchmark`` detects the slowdown of ``method``, by ``rule``.

    ``checks``: the study's repetitions; ``look`` and ``detectable_from`` (the smallest slowdown of the
    method the benchmark detects within the budget, a fraction; None when unknown): the compare rule;
    ``screened_mdc``: the pair was screened out before any slowed fork, and this is the benchmark change it
    could detect at the full budget (:func:`screen_mdc`).
    """

    method: str
    benchmark: str
    rule: str
    outcome: Outcome
    checks: tuple[RepetitionCheck, ...] = ()
    look: DetectionLook | None = None
    detectable_from: float | None = None
    warnings: tuple[str, ...] = ()
    screened_mdc: float | None = None

    @property
    def detected(self) -> bool:
        return self.outcome is Outcome.DETECTED

    @property
    def relative_change(self) -> float | None:
        """The benchmark's measured change (mean over repetitions for the study rule)."""
        if self.look is not None:
            return self.look.ratio - 1.0
        if self.checks:
            return float(np.mean([c.relative_change for c in self.checks]))
        return None


# --- rule "compare" -------------------------------------------------------------------------------


def decide_looks(y_base: np.ndarray, y_slow: np.ndarray, threshold: float, design: DetectionDesign):
    """The ``compare`` rule on log fork summaries (last axis: forks; leading axes broadcast, so a simulation
    judges many looks at once): ``(outcomes as codes, decision, ratio statistics)``.

    Codes: ``DETECTED``/``NOT_DETECTED``/``UNDECIDED`` as :data:`CODES`; the decision is compare's
    (:func:`benchwarden.compare.verdict.decide`) at this design's per-look levels.
    """
    from benchwarden.compare.verdict import SLOWER, UNCHANGED, decide

    result = ratio_statistics(y_base, y_slow, paired=False, pooled=True)
    rank = rank_p(y_base, y_slow, paired=False, drop_base=result.drop_base, drop_cand=result.drop_cand)
    change_conf, equivalence_conf = design.confidences()
    decision = decide(result, rank, change_confidence=change_conf, equivalence_confidence=equivalence_conf,
                      threshold=threshold, rank_alpha=design.rank_alpha)
    codes = np.select([decision.codes == SLOWER, decision.codes == UNCHANGED], [DETECTED, NOT_DETECTED], UNDECIDED)
    return codes, decision, result


def look_at(base: ForkData, slowed: ForkData, slowdown: float, threshold: float,
            design: DetectionDesign) -> tuple[Outcome, DetectionLook, float | None]:
    """One look of the ``compare`` rule: (outcome, the look, smallest detectable slowdown or None).

    ``base``/``slowed``: ns/op per complete fork.  Before the last look UNDECIDED means "measure another
    slowed fork".  Raises ValueError for empty or non-finite data.
    """
    y_base, y_slow = log_summaries(base, name="base"), log_summaries(slowed, name="slowed")
    codes, decision, result = decide_looks(y_base, y_slow, threshold, design)
    kept_b = int((~result.drop_base).sum())
    kept_c = int((~result.drop_cand).sum())
    se = float(result.statistic.se)
    mdc = futile = math.inf
    if math.isfinite(se) and kept_c >= 1 and kept_b >= 1:
        more = max(0, design.max_forks - y_slow.size)  # rounds left: a slowed and a baseline fork each
        mdc = float(budget_mdc(se, kept_b, kept_c, more, threshold, design))
        futile = float(budget_mdc(se, kept_b, kept_c, more, threshold, design, SCREEN_CONFIDENCE))
    low, high = (float(np.exp(b)) for b in decision.change)
    eq_low, eq_high = (float(np.exp(b)) for b in decision.equivalence)
    look = DetectionLook(base_forks=y_base.size, slowed_forks=y_slow.size, ratio=float(np.exp(decision.estimate)),
                         change=(low, high), equivalence=(eq_low, eq_high), rank_p=float(decision.rank_p),
                         threshold=threshold, mdc=mdc, se=se, left_out=int(result.drop_base.sum() + result.drop_cand.sum()),
                         futility_mdc=futile)
    return CODES[int(codes)], look, smallest_detectable_slowdown(look, slowdown)


def budget_mdc(se, kept_base, kept_slowed, more, threshold: float, design: "DetectionDesign",
               spread_confidence: float | None = None):
    """The benchmark change detectable (:func:`detectable_change`) once ``more`` rounds (a slowed and a baseline
    fork each) are added to the forks judged so far, whose log ratio has standard error ``se``.

    The pooled s.d. of one fork's log summary is ``σ = se/√(1/n_b + 1/n_s)``; at the budget ``se' =
    σ·√(1/(n_b+m) + 1/(n_s+m))`` with ``df = n_b + n_s + 2m − 2``.  With ``spread_confidence``, σ is taken at its
    one-sided lower bound ``σ·√(df₀/χ²_{c, df₀})``, ``df₀ = n_b + n_s − 2`` (the chi-square interval of a normal
    s.d., as :func:`screen_mdc`): the futility stop uses it, so that a spread over-estimated from few forks — one
    slowed fork in the other mode of a bimodal benchmark — does not end a pair that could still decide (issue #19:
    the Go example at 50 %, ``Tokenize`` through its own benchmark, stopped at 2 slowed forks with a ratio of 1.40
    that 10 forks detected).  Vectorised (a float for scalars); ``inf`` where nothing is known.
    """
    se_a = np.asarray(se, dtype=float)
    nb, ns, m = (np.asarray(x, dtype=float) for x in (kept_base, kept_slowed, more))
    ok = np.isfinite(se_a) & (nb >= 1) & (ns >= 1)
    nb1, ns1 = np.maximum(nb, 1.0), np.maximum(ns, 1.0)
    spread = np.where(ok, se_a, 0.0) / np.sqrt(1 / nb1 + 1 / ns1)
    if spread_confidence is not None:
        df0 = nb1 + ns1 - 2
        spread = np.where(df0 >= 1, spread * np.sqrt(np.maximum(df0, 1) / scistats.chi2.ppf(spread_confidence,
                                                                                          np.maximum(df0, 1))), spread)
    value = detectable_change(spread * np.sqrt(1 / (nb1 + m) + 1 / (ns1 + m)), nb1 + ns1 + 2 * m - 2,
                              design.confidences()[0], threshold, design.power)
    value = np.where(ok, value, np.inf)
    return float(value) if value.ndim == 0 else value


def detectable_change(se, df, confidence: float, threshold: float, power: float):
    """The benchmark change the rule calls "detected" with probability ``power`` at this precision.

    Detection needs both the change interval above 1 (``log R > c·se``) and the estimate at the threshold
    (``log R ≥ log(1+t)``); with a normal estimate of standard error ``se`` each holds with probability
    ``power`` when ``log R = max(log(1+t), c·se) + t_{df, power}·se``, ``c = t_{df, 1−α/2}`` (the usual
    power approximation, e.g. Cohen 1988, applied to the binding condition).  ``inf`` without a spread.
    Vectorised over ``se`` and ``df`` (a float for scalars).
    """
    se_a, df_a = np.asarray(se, dtype=float), np.asarray(df, dtype=float)
    ok = np.isfinite(se_a) & (df_a > 0)
    dfs = np.where(ok, df_a, 1.0)
    ses = np.where(ok, se_a, 0.0)
    c = scistats.t.ppf(1 - (1 - confidence) / 2, dfs)
    value = np.where(ok, np.expm1(np.maximum(math.log1p(threshold), c * ses) + scistats.t.ppf(power, dfs) * ses),
                     np.inf)
    return float(value) if value.ndim == 0 else value


#: a benchmark is screened out as too noisy when even its fork spread's lower bound at this confidence is
SCREEN_CONFIDENCE = 0.8


def screen_mdc(y_base, threshold: float, design: DetectionDesign, confidence: float = SCREEN_CONFIDENCE):
    """The benchmark change the rule could detect at the full budget, from the baseline forks alone: the
    futility stop (module docstring) decided before any slowed fork is run.

    ``y_base``: log fork summaries (last axis: forks; leading axes broadcast).  The slowed variant is taken to
    spread as the baseline does (the pooled t assumes it).  The screen must not remove a benchmark that could
    decide, so its spread is deliberately small: the smaller of the s.d. after compare's outlier test and the
    smallest s.d. left when any one fork is left out (the ESD test needs 5 forks; with 4, one outlying fork
    would otherwise pass for noise: a simulated 1 %-spread benchmark with a 3× outlier among 4 baseline forks
    was screened out half the time), then at its one-sided lower ``confidence`` bound
    ``s·√((n−1)/χ²_{confidence, n−1})`` (the chi-square interval of a normal s.d.).  With ``n`` baseline forks
    and ``m = max_forks`` fresh baseline and slowed forks each: :func:`detectable_change` at
    ``se = σ·√(1/(n+m) + 1/m)``, ``df = n + 2m − 2``.  ``inf`` with fewer than 2 forks.  A float for one
    benchmark, else an array.  Simulated screening rates: benchmarks/assess_detection_simulation.py.
    """
    from benchwarden.stats.logratio import esd_outliers

    y = np.asarray(y_base, dtype=float)
    keep = ~esd_outliers(y)
    n = keep.sum(-1)
    mean = np.where(keep, y, 0.0).sum(-1) / np.maximum(n, 1)
    ok = n >= 2
    dfs = np.where(ok, n - 1, 1)
    sd = np.sqrt(np.where(keep, (y - mean[..., None]) ** 2, 0.0).sum(-1) / dfs)
    size = y.shape[-1]
    if size >= 3:  # leave one out: from the sums of the centred values, for every fork at once
        c = y - y.mean(-1, keepdims=True)
        rest_sum = c.sum(-1, keepdims=True) - c
        rest_sq = (c**2).sum(-1, keepdims=True) - c**2
        loo = np.sqrt(np.maximum(rest_sq - rest_sum**2 / (size - 1), 0.0) / (size - 2))
        sd = np.minimum(sd, loo.min(-1))
    low = sd * np.sqrt(dfs / scistats.chi2.ppf(confidence, dfs))
    m = design.max_forks
    se = np.where(ok, low * np.sqrt(1.0 / (n + m) + 1.0 / m), np.inf)
    return detectable_change(se, np.where(ok, n + 2 * m - 2, 0), design.confidences()[0], threshold, design.power)


def smallest_detectable_slowdown(look: DetectionLook, slowdown: float) -> float | None:
    """``u* = MDC/f`` (module docstring) with ``f`` the share's one-sided 80 % lower confidence bound,
    ``(exp(log R̂ − z_0.8·se) − 1)/v``; None unless the change is significant.

    Why a bound and not ``f̂``: u* is reported only when the change was significant, which favours runs that
    overestimated ``f`` (the winner's curse); with ``f̂`` a simulated u* was detected in 58 % of fresh
    assessments instead of the promised 80 % (tests/unit/assess/test_detect_score.py), with the bound in ~85 %.
    """
    if not (look.change[0] > 1.0 and look.ratio > 1.0 and math.isfinite(look.mdc) and math.isfinite(look.se)
            and slowdown > 0):
        return None
    share = min(1.0, math.expm1(math.log(look.ratio) - Z_80 * look.se) / slowdown)  # f <= 1 by construction
    return look.mdc / share if share > 0 else None


def overshot(change_low, ratio, mdc, slowdown: float):
    """Was a detected benchmark slowed by more than ``v``?  (Module docstring, "overshot".)  Vectorised.

    A benchmark cannot change by more than ``v`` when one of its methods is slowed by ``v`` (the method's calls
    are at most all of its time), so either the change interval lies wholly above ``1 + v`` (a wait too long for
    a very short method, compounding recursion), or the estimate is above ``1 + v`` while the benchmark is too
    noisy to detect ``v`` at all (``mdc > v``, the futility condition): then the detection rests on the excess
    (gin's ``BenchmarkRecoveryMiddleware``: +109 % at v = 10 %, interval from +8 %, MDC 57 %).  A lucky
    detection of a true ``v`` at that spread (power below 80 %, an overestimate by the winner's curse) is
    counted as overshot too: "detects v" is not claimed on luck.  ``change_low``, ``ratio``: ratios.
    """
    low, r, m = (np.asarray(x, dtype=float) for x in (change_low, ratio, mdc))
    out = (low > 1.0 + slowdown) | ((r > 1.0 + slowdown) & (m > slowdown))
    return bool(out) if out.ndim == 0 else out


def detect_sequential(method: str, benchmark: str, base: ForkData, slowed: ForkData, slowdown: float,
                      threshold: float, design: DetectionDesign) -> Detection | None:
    """The ``compare`` rule after ``len(slowed)`` slowed forks: a Detection when decided, futile or the budget
    is spent, None when another slowed fork should be measured (also when this count is not a look of the
    design's :attr:`~DetectionDesign.schedule`).  Never raises on odd data (it decides
    "undecided" with the reason)."""
    n = len(slowed)
    final = n >= design.max_forks
    if n not in design.schedule and not final:
        return None
    try:
        outcome, look, smallest = look_at(base, slowed, slowdown, threshold, design)
    except ValueError as exc:
        return Detection(method, benchmark, "compare", Outcome.UNDECIDED, warnings=(f"no evidence: {exc}",))
    if outcome is Outcome.DETECTED and overshot(look.change[0], look.ratio, look.mdc, slowdown):
        if look.change[0] > 1.0 + slowdown:
            note = (f"the benchmark changed by {look.ratio - 1:+.0%} (interval from {look.change[0] - 1:+.0%}), "
                    f"more than the {slowdown:.0%} injected: the method is too short for a precise wait, or its "
                    f"recursion compounds; not counted as detecting {slowdown:.0%}")
        else:
            note = (f"the benchmark changed by {look.ratio - 1:+.0%}, more than the {slowdown:.0%} injected, and it "
                    f"is too noisy to detect {slowdown:.0%} (within {design.max_forks} forks it detects "
                    f"{look.mdc:.1%}): the detection rests on an injection larger than {slowdown:.0%}; not counted "
                    f"as detecting {slowdown:.0%}")
        return Detection(method, benchmark, "compare", Outcome.OVERSHOT, look=look, warnings=(note,))
    futile = look.futility_mdc > slowdown
    if outcome is Outcome.UNDECIDED and not final and not futile:
        return None
    notes = (f"stopped after {n} slowed forks: even a benchmark that spends all its time in the method (a change "
             f"of {slowdown:.1%}) could not be detected within {design.max_forks} forks (it would take "
             f"{look.mdc:.1%})",) if outcome is Outcome.UNDECIDED and futile and not final else ()
    return Detection(method, benchmark, "compare", outcome, look=look, detectable_from=smallest, warnings=notes)


# --- rule "study" ---------------------------------------------------------------------------------


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


def detect_study(method: str, benchmark: str, base_runs: Sequence[ForkData], slowed_runs: Sequence[ForkData],
                 slowdown: float) -> Detection:
    """The study's rule: ``base_runs[r]`` against ``slowed_runs[r]`` in every repetition ``r``."""
    if len(base_runs) != len(slowed_runs):
        raise ValueError(f"{benchmark}: {len(base_runs)} baseline repetitions but {len(slowed_runs)} slowed ones")
    checks = tuple(study_check(b, s, slowdown) for b, s in zip(base_runs, slowed_runs))
    detected = bool(checks) and all(c.detected for c in checks)
    return Detection(method, benchmark, "study", Outcome.DETECTED if detected else Outcome.NOT_DETECTED, checks=checks)
