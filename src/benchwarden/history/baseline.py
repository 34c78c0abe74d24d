"""``compare --against history``: a candidate run judged against its benchmark's recent history on the same machine.

The last point alone is a poor baseline (one disturbed run moves it; github-action-benchmark's last-point ratio
in ``../shared/research/peers.md``); a fixed lookback z-score (Conbench) mixes levels across real changes.  Here
the baseline is the series' **newest segment** — the commits since its last change point (docs/history.md), at
most ``window`` of them, all before the candidate's commit — and the rule is compare's (:func:`classify_log`).

The statistic (one value per commit: the mean of its log fork summaries, as the series has it): with ``h_1..h_k``
the segment's values, ``s`` their standard deviation (the run-to-run noise, fork noise included) and ``y`` the
candidate run's value, the log ratio ``d = y − mean(h)`` has standard error ``s·√(1 + 1/k)`` when the candidate's
run is one more draw of the same kind (a *prediction* interval, e.g. Montgomery & Runger, *Applied Statistics*,
§8.4: the candidate's own run-to-run noise counts, not only the uncertainty of the mean).  Intervals are Student
t with ``k − 1`` degrees of freedom: the change interval at ``confidence`` for "slower"/"faster", the equivalence
interval at ``equivalence_confidence`` for "unchanged"; the guard is the candidate's rank among the ``k`` values
(``p = (1 + #{h ≥ y}) / (k + 1)`` for a slowdown), which must reach ``rank_alpha`` or, with few commits, its
smallest attainable value ``1/(k+1)``.  Commits whose values the generalized ESD test (Rosner 1983, as compare
uses it on forks) marks as outliers — a run disturbed as a whole — are left out first and counted, so one bad
commit cannot widen the interval.  Fewer than :data:`MIN_COMMITS` commits: inconclusive, saying so.

The candidate's run should be measured like the history's runs (same forks and iterations): the rule assumes
its value is one more draw of the same noise; a candidate with fewer forks is noisier than the interval says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as scistats

from benchwarden.compare.verdict import CODES, DEFAULT_RANK_ALPHA, Verdict, classify_log, minimal_detectable_change

MIN_COMMITS = 3
DEFAULT_WINDOW = 20
NOISE_FLOOR = 1e-4  # the same floor as the change-point search (history/changepoints.py)


@dataclass(frozen=True)
class HistoryJudgement:
    """Ratios are candidate / baseline level in ns/op (> 1 slower): ``ratio`` the point estimate, ``low``/``high``
    the change interval, ``equivalence_low``/``equivalence_high`` the interval "unchanged" was judged on (all None
    when there was too little history); ``commits``: k; ``noise``: s (relative); ``mde``: smallest change this
    baseline could call with 80 % power."""

    verdict: Verdict
    commits: int
    ratio: float | None = None
    low: float | None = None
    high: float | None = None
    equivalence_low: float | None = None
    equivalence_high: float | None = None
    noise: float | None = None
    rank_p: float | None = None
    mde: float | None = None
    message: str | None = None
    outliers: int = 0


def judge_against_history(history: np.ndarray, candidate: float, *, threshold: float, confidence: float,
                          equivalence_confidence: float, rank_alpha: float = DEFAULT_RANK_ALPHA) -> HistoryJudgement:
    """The rule of the module docstring; ``history`` and ``candidate`` are log values (ns/op)."""
    from benchwarden.stats.logratio import esd_outliers

    h = np.asarray(history, dtype=float)
    mask = esd_outliers(h)
    h, outliers = h[~mask], int(mask.sum())
    k = int(h.size)
    if k < MIN_COMMITS:
        return HistoryJudgement(Verdict.INCONCLUSIVE, k, message=f"only {k} commit(s) of history since the last "
                                f"change point on this machine; {MIN_COMMITS} are needed")
    d = float(candidate - h.mean())
    s = max(float(h.std(ddof=1)), NOISE_FLOOR)
    se = s * math.sqrt(1.0 + 1.0 / k)
    df = k - 1

    def bounds(level: float) -> tuple[float, float]:
        q = float(scistats.t.ppf(1 - (1 - level) / 2, df))
        return d - q * se, d + q * se

    change = bounds(confidence)
    equivalence = bounds(equivalence_confidence)
    beyond = np.count_nonzero(h >= candidate) if d >= 0 else np.count_nonzero(h <= candidate)
    rank_p = (1 + beyond) / (k + 1)
    guard_ok = rank_p <= max(rank_alpha, 1.0 / (k + 1)) + 1e-12
    code = int(classify_log(*change, *equivalence, d, guard_ok, threshold))
    return HistoryJudgement(
        CODES[code], k, ratio=math.exp(d), low=math.exp(change[0]), high=math.exp(change[1]),
        equivalence_low=math.exp(equivalence[0]), equivalence_high=math.exp(equivalence[1]), noise=s,
        rank_p=rank_p, mde=minimal_detectable_change(se, df, confidence, threshold), outliers=outliers)


def baseline_values(values: np.ndarray, change_indices: list[int], end: int, window: int = DEFAULT_WINDOW) -> np.ndarray:
    """The newest segment's values before index ``end`` (exclusive): from the last change point before ``end``,
    at most the ``window`` newest."""
    start = max([i for i in change_indices if i < end], default=0)
    return np.asarray(values[max(start, end - window):end], dtype=float)


def compare_against_history(store, candidate_id: int, settings, keep, repo=None, window: int = DEFAULT_WINDOW):
    """A :class:`~benchwarden.compare.result.Comparison` of stored run ``candidate_id`` against each of its
    benchmarks' history on the run's machine (``keep``: ``suite:key`` -> selected).  ``repo``: a git work tree
    that places commits (else what the store knows)."""
    from benchwarden.compare.result import BenchmarkComparison, Comparison, SideInfo
    from benchwarden.history.analysis import analyse
    from benchwarden.history.gitlog import commit_infos, is_repository
    from benchwarden.history.series import build_series
    from benchwarden.stats.logratio import log_summaries

    candidate = store.load_run(candidate_id)
    stored = store.stored_runs()
    mine = [r for r in stored if r.id == candidate_id]
    machine_key = mine[0].machine_key if mine else None
    others = [r for r in stored if r.id != candidate_id and r.machine_key == machine_key]
    shas = sorted({r.meta.commit for r in others if r.meta.commit} | ({candidate.meta.commit} - {None}))
    known = store.commits(shas)
    if repo is not None and is_repository(repo):
        known = {**known, **commit_infos(repo, shas)}
    wanted = {str(r.benchmark.id) for r in candidate.results}
    series = {(s.benchmark, s.metric): s for s in build_series(others, store.load_run, known,
                                                               lambda name: name in wanted and keep(name))}
    results = []
    for result in candidate.results:
        name = str(result.benchmark.id)
        if not keep(name):
            continue
        b = result.benchmark
        threshold = settings.min_change_for(b.id.key)
        common = dict(suite=b.id.suite, key=b.id.key, mode=b.mode, unit=b.unit, direction=b.direction,
                      threshold=threshold, min_change=threshold, paired=False, metric=b.metric,
                      candidate_ns=tuple(tuple(f) for f in result.measurement_matrix()))
        found = series.get((name, b.metric))
        matrix = result.measurement_matrix()
        if found is None or not matrix:
            why = "the candidate run has no complete fork" if not matrix else \
                f"no history of {b.metric} on this machine ({machine_key})"
            results.append(BenchmarkComparison(verdict=Verdict.INCONCLUSIVE, message=why, **common))
            continue
        history = analyse(found)
        commits = [p.commit for p in found.points]
        end = commits.index(candidate.meta.commit) if candidate.meta.commit in commits else len(commits)
        values = baseline_values(history.detection.runs.values, [c.index for c in history.detection.found], end,
                                 window)
        y = float(np.mean(log_summaries(matrix, name=name)))
        j = judge_against_history(values, y, threshold=threshold, confidence=settings.confidence,
                                  equivalence_confidence=settings.equivalence_confidence,
                                  rank_alpha=settings.rank_alpha)
        notes = [f"baseline: {j.commits} commit(s) of the newest segment on {machine_key} (since its last change point, at most {window})"
                 + (f", {j.outliers} outlying commit(s) left out" if j.outliers else "")]
        if found.ordered_by != "commit":
            notes.append("the store does not know these commits' order (run `benchwarden history` in the "
                         "repository once): the history is ordered by run time")
        results.append(BenchmarkComparison(
            verdict=j.verdict, ratio=j.ratio, ci_low=j.low, ci_high=j.high, confidence=settings.confidence,
            p_value=j.rank_p, equivalence_low=j.equivalence_low, equivalence_high=j.equivalence_high,
            equivalence_confidence=settings.equivalence_confidence, mde=j.mde, message=j.message,
            warnings=tuple(notes),
            **common))
    label = f"history on {machine_key} (newest segment, at most {window} commits)"
    return Comparison(
        source="history",
        base=SideInfo(role="base", label=label, commit=None, run_id=None,
                      description={"kind": "history", "machine_key": machine_key, "window": window}),
        candidate=SideInfo(role="candidate", label=f"run {candidate.id}", commit=candidate.meta.commit,
                           run_id=candidate.id, description={"kind": "run"}),
        design={"fixed_sample": True, "paired": False, "history": True, "confidence": settings.confidence,
                "equivalence_confidence": settings.equivalence_confidence, "rank_alpha": settings.rank_alpha,
                "min_change": settings.min_change, "window": window},
        benchmarks=tuple(results), created_at=candidate.meta.created_at, machine=dict(candidate.meta.machine),
        fail_on=settings.fail_on)
