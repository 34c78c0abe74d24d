"""Change points in one benchmark's series: candidates by PELT (ruptures), each kept only if a test says so.

Input: one entry per run, in commit order, on **one machine** (the caller never mixes machines): the log
fork summaries of that run (``log`` of each fork's 20 %-trimmed mean in ns/op,
:func:`benchwarden.stats.logratio.log_summaries`).  Output: the change points, each with the commit
interval it lies in (as run indices), the step as a ratio with an interval, and its significance.
Deterministic: nothing here draws random numbers (the same series always gives the same answer, unlike
E-Divisive's permutation test; Otava PR #154 made the same choice).  Docs: docs/history.md.

**Unit of the test: the run.**  A run's value is the mean of its log fork summaries, after the
generalized ESD test (:func:`benchwarden.stats.logratio.esd_outliers`, Rosner 1983) has left out
outlying forks when the run has 5 or more.  Forks of one run share the machine's state of that
moment (other load, frequency, the build), so the noise that separates two commits is the variance
*between runs*, of which the forks' spread is only a part (Kalibera & Jones, "Rigorous benchmarking in
reasonable time", ISMM 2013, §3: the random effect of each level).  Testing forks of different runs as if
independent would call every run-to-run wobble a change (pseudo-replication); the fork-level data
enters through each run's robust value and through the variance components reported beside the series.

**Noise.**  The run-to-run standard deviation ``σ`` on the log scale (≈ relative) is estimated from the
first differences of the run values, ``σ = 1.4826·MAD(Δx)/√2``: a step moves one difference, a single
outlying run two, so neither inflates it (the difference-based scale estimate of Hall, Kay & Titterington,
Biometrika 1990, made robust with the MAD as in Fryzlewicz, Ann. Statist. 2014, §3).

**Candidates: PELT** (Killick, Fearnhead & Eckley, JASA 2012) for changes in the mean (``l2`` cost), from
ruptures (Truong, Oudre & Vayatis, "Selective review of offline change point detection methods",
Signal Processing 167, 2020), on the run values in units of ``σ``, with the penalty ``β·log n`` per change
(``β = 3``; BIC's ``2·log n`` for a change in mean with known variance, a little stricter) and segments of
at least ``min_size`` runs.  Before PELT, a Hampel filter (Pearson, IEEE Trans. Control Systems Technology
10(1), 2002) replaces each value further than ``3σ`` from the running median of 7 by that median, so up to
three disturbed runs in a row cannot become a segment of their own (the single-spike change points
Otava's users reported, PR #150).  A filter can move a change whose neighbourhood holds disturbed runs, so
each change point's place is then refined on the unfiltered values: within ``±3`` runs, the split that
minimises the two segments' absolute deviations from their medians, each capped at ``3σ`` (a bounded
loss, as in robust M-estimation: neither the median nor the cost is moved far by a disturbed run,
where plain L1 still charges an outlier more against one segment's median than the other's).
The test below sees the unmodified values.

**The test of each candidate** (as Otava/Hunter replace E-Divisive's permutation test by a t-test,
Fleming et al., ICPE 2023, §3): the runs of the segments on both sides (at most ``window`` runs nearest
the change on each side), outlying runs left out per side by generalized ESD, compared by Student's
two-sample t on the log scale with the pooled variance (``se = s_p·√(1/n₁ + 1/n₂)``, ``n₁ + n₂ − 2``
degrees of freedom, so a side of one run can still be tested against the spread of the other); the
step is the Hodges–Lehmann shift (:func:`benchwarden.stats.logratio.hodges_lehmann_shift`) and its
interval ``exp`` of the t interval (:class:`benchwarden.stats.logratio.TStatistic`) at ``1 − alpha``.
It is reported only if (1) ``p ≤ alpha`` (default 0.001: a series of 100 runs has about 100 candidate
places, and a store hundreds of series), (2) the Mann–Whitney test on the same runs does not object (the
guard of ``compare``'s verdict, :func:`benchwarden.stats.logratio.rank_p`: ``p ≤ 0.05``, or with too few
runs for that, complete separation), and (3) the step is at least ``min_step·σ`` (default ``1·σ``): a
step within the run-to-run noise is not reported however many runs make it significant (Otava's
minimum magnitude ``-M``).  Candidates are pruned weakest first and their neighbours re-tested with the
merged segment, until every remaining one passes (Hunter's post-processing, otava #100).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from scipy import stats as scistats

from benchwarden.stats.logratio import TStatistic, esd_outliers, hodges_lehmann_shift, rank_p, two_sample_outliers
from benchwarden.stats.results import Interval

DEFAULT_ALPHA = 0.001
DEFAULT_PENALTY = 3.0
DEFAULT_MIN_SIZE = 2
DEFAULT_MIN_STEP = 1.0
DEFAULT_WINDOW = 50
DEFAULT_RANK_ALPHA = 0.05
HAMPEL_SIGMAS = 3.0
NOISE_FLOOR = 1e-4
"""Smallest run-to-run σ used (0.01 %): a series of identical values still has a finite scale."""


@dataclass(frozen=True)
class DetectionSettings:
    """``alpha``: significance level (and ``1 − alpha`` the interval's confidence); ``penalty``: PELT's ``β``
    in ``β·log n``; ``min_size``: fewest runs per segment; ``min_step``: smallest reported step in units of the
    run-to-run σ; ``window``: most runs per side in the test; ``rank_alpha``: level of the rank guard."""

    alpha: float = DEFAULT_ALPHA
    penalty: float = DEFAULT_PENALTY
    min_size: int = DEFAULT_MIN_SIZE
    min_step: float = DEFAULT_MIN_STEP
    window: int = DEFAULT_WINDOW
    rank_alpha: float = DEFAULT_RANK_ALPHA

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1 or not 0 < self.rank_alpha < 1:
            raise ValueError(f"alpha and rank_alpha must be in (0, 1), got {self.alpha!r}, {self.rank_alpha!r}")
        if not self.penalty > 0 or self.min_step < 0 or self.min_size < 1 or self.window < 2:
            raise ValueError("penalty must be > 0, min_step >= 0, min_size >= 1 and window >= 2")


@dataclass(frozen=True)
class RunValues:
    """Each run's value (mean of its kept log fork summaries), forks used and left out, and the variance components.

    ``fork_sd``: pooled standard deviation of log fork summaries within runs (0 with one fork per run);
    ``noise``: the run-to-run σ of the values (module docstring), at least :data:`NOISE_FLOOR`.
    """

    values: np.ndarray
    forks: np.ndarray
    dropped_forks: np.ndarray
    fork_sd: float
    noise: float


@dataclass(frozen=True)
class ChangePoint:
    """A change between run ``index − 1`` and run ``index`` (the first run of the new level).

    ``ratio``: new level / old level in ns/op (> 1 = slower), ``point`` the Hodges–Lehmann estimate, the
    bounds a t interval at ``1 − alpha``; ``p_value``: two-sided Student t; ``rank_p``: Mann–Whitney on the
    same runs; ``runs_before``/``runs_after``: runs tested per side, ``outlier_runs`` of them left out;
    ``step_sigmas``: the step in units of the run-to-run σ.
    """

    index: int
    ratio: Interval
    p_value: float
    rank_p: float
    runs_before: int
    runs_after: int
    outlier_runs: int
    step_sigmas: float
    significant: bool
    reason: str = ""

    def to_json(self) -> dict[str, object]:
        return {"index": self.index, "ratio": self.ratio.point, "low": self.ratio.low, "high": self.ratio.high,
                "confidence": self.ratio.confidence, "p_value": self.p_value, "rank_p": self.rank_p,
                "runs_before": self.runs_before, "runs_after": self.runs_after, "outlier_runs": self.outlier_runs,
                "step_sigmas": self.step_sigmas}


@dataclass(frozen=True)
class SeriesChangePoints:
    """The change points of one series (``found``, in order) and the candidates the test turned down."""

    runs: RunValues
    found: tuple[ChangePoint, ...]
    rejected: tuple[ChangePoint, ...]
    settings: DetectionSettings
    warnings: tuple[str, ...] = field(default=())


def run_values(runs: Sequence[Sequence[float]]) -> RunValues:
    """Per run, the mean of its log fork summaries with outlying forks left out (generalized ESD, ≥ 5 forks).

    Raises ``ValueError`` for a run without forks or with a non-finite value.
    """
    values, forks, dropped = [], [], []
    within_ss, within_df = 0.0, 0
    for i, run in enumerate(runs):
        y = np.asarray(run, dtype=float)
        if y.ndim != 1 or y.size == 0 or not np.all(np.isfinite(y)):
            raise ValueError(f"run {i}: expected one or more finite log fork summaries, got {run!r}")
        keep = ~esd_outliers(y)
        kept = y[keep]
        values.append(float(kept.mean()))
        forks.append(kept.size)
        dropped.append(int(y.size - kept.size))
        within_ss += float(((kept - kept.mean()) ** 2).sum())
        within_df += kept.size - 1
    array = np.array(values)
    return RunValues(array, np.array(forks), np.array(dropped),
                     math.sqrt(within_ss / within_df) if within_df else 0.0, run_to_run_noise(array))


def run_to_run_noise(values: np.ndarray) -> float:
    """``1.4826·MAD(Δx)/√2`` over the first differences (module docstring), never below :data:`NOISE_FLOOR`."""
    x = np.asarray(values, dtype=float)
    if x.size < 3:
        return NOISE_FLOOR
    d = np.diff(x)
    mad = float(np.median(np.abs(d - np.median(d))))
    return max(NOISE_FLOOR, 1.4826 * mad / math.sqrt(2.0))


def hampel_filtered(values: np.ndarray, noise: float) -> np.ndarray:
    """``values`` with each one further than ``3σ`` from the running median of 7 replaced by that median
    (Hampel filter).  At the edges the window keeps its 7 values (the first or last 7): a shrinking window
    would let two disturbed runs among the last three carry the median and end the series in a false step.
    A series of fewer than 9 runs uses the largest odd window below ``n − 1`` (none below 3), so that a
    window at an edge never holds the whole series and a step in the middle keeps its two levels."""
    x = np.asarray(values, dtype=float)
    width = min(7, x.size - 2 - (x.size % 2 == 0))  # odd (never split evenly between two levels), < n - 1
    if width < 3:
        return x.copy()
    starts = np.clip(np.arange(x.size) - width // 2, 0, x.size - width)
    medians = np.array([np.median(x[start:start + width]) for start in starts])
    return np.where(np.abs(x - medians) > HAMPEL_SIGMAS * noise, medians, x)


def candidates(values: np.ndarray, noise: float, settings: DetectionSettings) -> list[int]:
    """PELT (ruptures, ``l2`` cost) on the Hampel-filtered values in units of σ: indices where a new segment starts."""
    import ruptures

    x = np.asarray(values, dtype=float)
    if x.size < 2 * settings.min_size:
        return []
    z = (hampel_filtered(x, noise) - float(np.median(x))) / noise
    algorithm = ruptures.Pelt(model="l2", min_size=settings.min_size, jump=1).fit(z)
    breaks = algorithm.predict(pen=settings.penalty * math.log(x.size))
    return [int(b) for b in breaks if 0 < b < x.size]


def refined(values: np.ndarray, cuts: Sequence[int], min_size: int, noise: float, reach: int = 3) -> list[int]:
    """Each cut moved, within ``±reach`` runs and its neighbours' segments, to the split of least capped L1 cost.

    Cuts are refined left to right, each against its already refined left neighbour; a tie (common: every run
    more than ``3σ`` from both levels costs the cap on either side) goes to the split of least *uncapped* L1
    cost, then to the cut nearest its old place; and a cut moves only when that lowers the capped cost by more
    than half a cap. (In a loaded e2e run, a new level whose first run sat 20 % above it moved PELT's right cut
    one run later for a 0.025σ-sized gain in the medians, and the test of the misplaced cut failed.)  And a cut
    moves only where every run it puts on the other side is at least as near that side's median as the side it
    leaves: with σ estimated small (steady runs), a misplaced run costs one small cap, less than the ordinary
    deviations a move can save elsewhere, and a clean 2.5× step moved one run late in ~1 % of seeded series
    (tests/unit/history/test_changepoints.py).
    """
    x = np.asarray(values, dtype=float)
    cap = HAMPEL_SIGMAS * noise

    def cost(start: int, end: int, capped: bool = True) -> float:
        part = x[start:end]
        deviations = np.abs(part - np.median(part))
        return float((np.minimum(deviations, cap) if capped else deviations).sum())

    def nearer_its_side(start: int, cut: int, j: int, end: int) -> bool:
        """Whether every run that moving the cut from ``cut`` to ``j`` puts on the other side is at least as near
        that side's median as the one it leaves (a run is never moved to the level it is further from)."""
        left, right = float(np.median(x[start:j])), float(np.median(x[j:end]))
        moved = x[j:cut] if j < cut else x[cut:j]
        if j < cut:  # these runs join the right segment
            return bool(np.all(np.abs(moved - right) <= np.abs(moved - left)))
        return bool(np.all(np.abs(moved - left) <= np.abs(moved - right)))

    out = list(cuts)
    for k, cut in enumerate(out):
        start = out[k - 1] if k else 0
        end = out[k + 1] if k + 1 < len(out) else x.size
        places = [j for j in range(max(start + min_size, cut - reach), min(end - min_size, cut + reach) + 1)
                  if j == cut or nearer_its_side(start, cut, j, end)]
        if places:
            best = min(places, key=lambda j: (round(cost(start, j) + cost(j, end), 12),
                                              cost(start, j, False) + cost(j, end, False), abs(j - cut)))
            gain = cost(start, cut) + cost(cut, end) - (cost(start, best) + cost(best, end))
            if gain > cap / 2:  # a move must be worth at least half a capped run, not a median's wobble
                out[k] = best
    return out


def step_test(before: np.ndarray, after: np.ndarray, index: int, noise: float,
              settings: DetectionSettings) -> ChangePoint:
    """The test of the module docstring on the run values of the two sides (``before`` ends at the change)."""
    before = np.asarray(before, dtype=float)[-settings.window:]
    after = np.asarray(after, dtype=float)[:settings.window]
    drop_b, drop_a = two_sample_outliers(before, after)  # a level both sides show is not an outlier
    b, a = before[~drop_b], after[~drop_a]
    df = b.size + a.size - 2
    center = float(a.mean() - b.mean())
    if df >= 1:
        pooled = (((b - b.mean()) ** 2).sum() + ((a - a.mean()) ** 2).sum()) / df
        se = math.sqrt(pooled * (1 / b.size + 1 / a.size))
    else:
        se = math.inf
    statistic = TStatistic(np.asarray(center), np.asarray(se), np.asarray(float(max(df, 0))))
    confidence = 1 - settings.alpha
    low, high = (float(v) for v in statistic.bounds(confidence))
    if se == 0:
        p = 0.0 if center != 0 else 1.0
    elif math.isinf(se):
        p = 1.0
    else:
        p = float(2 * scistats.t.sf(abs(center) / se, df))
    shift = float(hodges_lehmann_shift(b, a))
    rank, smallest = (float(v) for v in rank_p(before, after, paired=False, drop_base=drop_b, drop_cand=drop_a))
    guard = rank <= max(settings.rank_alpha, smallest) + 1e-12
    sigmas = abs(shift) / noise
    reason = ""
    if p > settings.alpha:
        reason = f"p = {p:.2g} > {settings.alpha:g}"
    elif not guard:
        reason = f"the rank test objects (p = {rank:.2g})"
    elif sigmas < settings.min_step:
        reason = f"the step ({math.expm1(shift):+.1%}) is within the run-to-run noise (σ = {noise:.1%})"
    with np.errstate(over="ignore"):
        ratio = Interval(float(np.exp(low)), float(np.exp(high)), math.exp(shift), confidence, "t-log pooled", 0)
    return ChangePoint(index, ratio, p, rank, int(b.size + drop_b.sum()), int(a.size + drop_a.sum()),
                       int(drop_b.sum() + drop_a.sum()), sigmas, not reason, reason)


def find_change_points(runs: Sequence[Sequence[float]],
                       settings: DetectionSettings | None = None) -> SeriesChangePoints:
    """The change points of one series: PELT candidates, pruned weakest first until every one passes its test.

    ``runs``: per run in commit order, its log fork summaries (module docstring).  Raises ``ValueError`` for
    invalid input.
    """
    settings = settings or DetectionSettings()
    data = run_values(runs)
    warnings = []
    if data.values.size < 2 * settings.min_size:
        warnings.append(f"{data.values.size} run(s): at least {2 * settings.min_size} are needed to look for a change")
    cuts = candidates(data.values, data.noise, settings)
    rejected: list[ChangePoint] = []
    while True:
        cuts = refined(data.values, cuts, settings.min_size, data.noise)
        tests = _test_all(data, cuts, settings)
        failing = [t for t in tests if not t.significant]
        if not failing:
            break
        weakest = max(failing, key=lambda t: (t.p_value, -t.step_sigmas))
        rejected.append(weakest)
        cuts.remove(weakest.index)
    return SeriesChangePoints(data, tuple(tests), tuple(sorted(rejected, key=lambda t: t.index)), settings,
                              tuple(warnings))


def _test_all(data: RunValues, cuts: list[int], settings: DetectionSettings) -> list[ChangePoint]:
    edges = [0, *cuts, data.values.size]
    return [step_test(data.values[edges[k - 1]:edges[k]], data.values[edges[k]:edges[k + 1]], edges[k], data.noise,
                      settings) for k in range(1, len(edges) - 1)]
