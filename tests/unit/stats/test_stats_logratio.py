"""The log-ratio analysis: ESD against Rosner's worked example, Hodges-Lehmann and the t intervals against
independent computations, and seeded coverage with heavy tails, bimodal forks and outlying forks."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from scipy import stats

from benchwarden.stats import analyse_ratio, ci_mean_log_t, ci_ratio_log_t, esd_outliers, fork_summaries, logratio
from benchwarden.stats.logratio import (
    hodges_lehmann,
    hodges_lehmann_shift,
    paired_t,
    rank_p,
    ratio_statistics,
    reproduced,
)

# Rosner (1983) as worked in the NIST/SEMATECH e-Handbook §1.3.5.17.3: 54 values, up to 10 outliers at
# α = 0.05; R_3 = 3.179 > λ_3 = 3.143 although R_1 = 3.118 < λ_1 = 3.158, so there are exactly 3 outliers.
ROSNER = [-0.25, 0.68, 0.94, 1.15, 1.20, 1.26, 1.26, 1.34, 1.38, 1.43, 1.49, 1.49, 1.55, 1.56, 1.58, 1.65,
          1.69, 1.70, 1.76, 1.77, 1.81, 1.91, 1.94, 1.96, 1.99, 2.06, 2.09, 2.10, 2.14, 2.15, 2.23, 2.24, 2.26,
          2.35, 2.37, 2.40, 2.47, 2.54, 2.62, 2.64, 2.90, 2.92, 2.92, 2.93, 3.21, 3.26, 3.30, 3.59, 3.68, 4.30,
          4.64, 5.34, 5.42, 6.01]


def test_generalized_esd_reproduces_rosners_example():
    mask = esd_outliers(np.array(ROSNER), alpha=0.05, max_outliers=10)
    assert sorted(np.array(ROSNER)[mask].tolist()) == [5.34, 5.42, 6.01]


def test_esd_is_vectorised_and_careful_with_small_and_constant_samples():
    rows = np.array([[1.0, 1.1, 0.9, 1.05, 9.0], [1.0, 1.1, 0.9, 1.05, 0.95], [2.0] * 5])
    assert esd_outliers(rows).tolist() == [[False] * 4 + [True], [False] * 5, [False] * 5]
    assert not esd_outliers(np.array([1.0, 1.0, 1.0, 50.0])).any()  # fewer than 5 units: nothing is left out
    rng = np.random.default_rng(1)
    normal = rng.normal(0, 1, (20000, 8))
    assert esd_outliers(normal).any(axis=-1).mean() < 0.002  # α = 0.001 per sample (one test at n = 8)


def test_a_fork_the_other_version_reproduces_is_a_mode_not_an_outlier():
    """Bimodal forks: ESD flags the one base fork in the upper mode; the candidate's forks sit in that mode too,
    so it is kept (leaving it out made A/A comparisons significant).  A disturbed fork at 3x stays left out."""
    base = np.log([100.0, 100.2, 99.9, 100.1, 99.8, 100.0, 100.3, 99.7, 100.1, 106.0])
    cand = np.log([106.1, 100.0, 105.9])
    assert esd_outliers(base)[-1] and esd_outliers(base).sum() == 1
    assert reproduced(base, cand, esd_outliers(base)).tolist() == [False] * 9 + [True]
    statistic = ratio_statistics(base, cand, paired=False)
    assert not statistic.drop_base.any() and not statistic.drop_cand.any()
    disturbed = base.copy()
    disturbed[-1] = np.log(300.0)
    assert not reproduced(disturbed, cand, esd_outliers(disturbed)).any()
    assert ratio_statistics(disturbed, cand, paired=False).drop_base.tolist() == [False] * 9 + [True]
    # vectorised over leading axes; nothing flagged or an empty side: nothing reproduced
    rows = np.stack([base, disturbed])
    assert reproduced(rows, np.stack([cand, cand]), esd_outliers(rows))[:, -1].tolist() == [True, False]
    assert not reproduced(base, cand, np.zeros(base.shape, dtype=bool)).any()
    assert not reproduced(base, cand[:0], esd_outliers(base)).any()


def test_hodges_lehmann_against_brute_force():
    rng = np.random.default_rng(2)
    d = rng.normal(0.1, 1.0, 9)
    walsh = [(d[i] + d[j]) / 2 for i in range(9) for j in range(i, 9)]
    assert hodges_lehmann(d) == pytest.approx(np.median(walsh))
    x, y = rng.normal(0, 1, 5), rng.normal(1, 1, 7)
    assert hodges_lehmann_shift(x, y) == pytest.approx(np.median([b - a for a in x for b in y]))
    assert hodges_lehmann(np.array([[0.0, 0.0, 0.0, 10.0]])).tolist() == [0.0]  # robust: one wild value


def test_fork_summaries_are_scipys_trimmed_means():
    forks = [[1.0, 2.0, 3.0, 4.0, 100.0], [5.0, 5.0, 5.0]]
    assert fork_summaries(forks).tolist() == [stats.trim_mean([1, 2, 3, 4, 100], 0.2), 5.0]
    assert fork_summaries(forks, trim=0.0).tolist() == [22.0, 5.0]
    with pytest.raises(ValueError, match="trim"):
        fork_summaries(forks, trim=0.5)
    # forks of mixed lengths in any order: exactly scipy's value of each fork alone (computed per length, as rows)
    rng = np.random.default_rng(7)
    mixed = [rng.lognormal(7, 0.3, int(n)) for n in rng.integers(1, 40, 60)]
    assert fork_summaries(mixed).tolist() == [float(stats.trim_mean(f, 0.2)) for f in mixed]


def test_intervals_are_scipys_t_intervals_on_log_summaries():
    rng = np.random.default_rng(3)
    base = rng.lognormal(5, 0.05, (6, 10))
    cand = rng.lognormal(5.1, 0.05, (6, 10))
    yb, yc = np.log(fork_summaries(base)), np.log(fork_summaries(cand))
    paired = ci_ratio_log_t(base, cand, 0.9, paired=True)
    ref = stats.ttest_rel(yc, yb).confidence_interval(0.9)
    assert (math.log(paired.low), math.log(paired.high)) == pytest.approx((ref.low, ref.high))
    welch = ci_ratio_log_t(base, cand, 0.9, paired=False)
    ref = stats.ttest_ind(yc, yb, equal_var=False).confidence_interval(0.9)
    assert (math.log(welch.low), math.log(welch.high)) == pytest.approx((ref.low, ref.high))
    mean = ci_mean_log_t(base, 0.95)
    ref = stats.ttest_1samp(np.log(base.mean(axis=1)), 0).confidence_interval(0.95)
    assert (math.log(mean.low), math.log(mean.high)) == pytest.approx((ref.low, ref.high))
    assert mean.point == pytest.approx(base.mean())


def test_an_interval_never_explodes_and_is_never_negative():
    # the cases: two forks 6.00 and 6.98 (the old t fallback printed [-53.4, 73.9]); 4 forks, one 6.6x
    two = ci_mean_log_t([[6.00], [6.98]], 0.99)
    assert two.low > 0 and math.isfinite(two.high)
    base = [[100.0, 100.5], [99.5, 100.0], [101.0, 100.0], [100.0, 99.0]]
    cand = [[110.0, 110.5], [660.0, 661.0], [111.0, 109.0], [110.0, 111.0]]
    interval = ci_ratio_log_t(base, cand, 0.95, paired=True)
    assert interval.low > 0 and interval.high < 20  # the studentized bootstrap gave 4.5e57 here
    assert interval.point == pytest.approx(1.10, rel=0.05)  # Hodges-Lehmann


def test_outlying_fork_is_left_out_named_and_its_effect_reported():
    rng = np.random.default_rng(4)
    base = 100 * rng.lognormal(0, 0.01, (8, 10))
    cand = 105 * rng.lognormal(0, 0.01, (8, 10))
    cand[5] *= 6.6
    analysis = analyse_ratio(base, cand, paired=True)
    assert [(o.side, o.fork) for o in analysis.outliers] == [("candidate", 5)]
    assert analysis.used == 7 and analysis.units == 8
    with_it = analysis.interval(0.95, with_outliers=True)
    without = analysis.interval(0.95)
    assert without.high - without.low < (with_it.high - with_it.low) / 10
    assert any("candidate fork 6" in w and "would be" in w for w in analysis.warnings)
    unpaired = analyse_ratio(base, cand, paired=False)
    assert [(o.side, o.fork) for o in unpaired.outliers] == [("candidate", 5)]


def test_batch_and_single_analyses_agree():
    rng = np.random.default_rng(5)
    yb, yc = rng.normal(0, 0.05, (50, 7)), rng.normal(0.02, 0.05, (50, 7))
    yc[::7, 3] += 2.0
    batch = ratio_statistics(yb, yc, paired=True)
    for i in (0, 1, 7):
        single = analyse_ratio(np.exp(yb[i])[:, None], np.exp(yc[i])[:, None], paired=True, trim=0.0)
        assert single.statistic.center == pytest.approx(batch.statistic.center[i])
        assert single.statistic.se == pytest.approx(batch.statistic.se[i])
        assert math.log(single.estimate) == pytest.approx(batch.estimate[i])
    p, smallest = rank_p(yb, yc, paired=True, drop_base=batch.drop_base, drop_cand=batch.drop_cand)
    assert p[1] == pytest.approx(stats.wilcoxon(yc[1] - yb[1]).pvalue)
    assert smallest[0] == pytest.approx(2 / 2**6)  # the outlying pair is left out of the rank test too


def test_too_few_units():
    statistic = paired_t(np.array([0.1]))
    assert math.isinf(statistic.se)
    low, high = statistic.bounds(0.95)
    assert low == -math.inf and high == math.inf


def _draw(rng, shape: str, n: int, ratio: float, experiments: int) -> tuple[np.ndarray, np.ndarray]:
    def offsets(size):
        if shape == "heavy":
            return np.exp(0.03 * rng.standard_t(3, size) / math.sqrt(3))
        if shape == "bimodal":
            return np.exp(0.01 * rng.standard_normal(size)) * np.where(rng.random(size) < 0.3, 1.08, 1.0)
        return np.exp(0.03 * rng.standard_normal(size))

    def iterations(size):
        x = 1 + 0.02 * rng.standard_normal(size)
        return np.where(rng.random(size) < 0.01, 3 * x, x) if shape == "outlier-iterations" else x

    base = offsets((experiments, n, 1)) * iterations((experiments, n, 10))
    cand = ratio * offsets((experiments, n, 1)) * iterations((experiments, n, 10))
    if shape == "outlier-fork":
        rows = np.arange(experiments)
        base[rows, rng.integers(0, n, experiments)] *= 3.0
    return base, cand


@pytest.mark.parametrize("shape", ["normal", "heavy", "bimodal", "outlier-iterations", "outlier-fork"])
@pytest.mark.parametrize("n", [6, 12])
def test_coverage_of_the_95_percent_interval(shape, n):
    # seeded Monte-Carlo: 2,000 intervals per cell, binomial SE 0.5 points; the benchmark script has the grid
    rng = np.random.default_rng(zlib.crc32(f"{shape}:{n}".encode()))
    base, cand = _draw(rng, shape, n, 1.07, 2000)
    yb, yc = np.log(stats.trim_mean(base, 0.2, axis=-1)), np.log(stats.trim_mean(cand, 0.2, axis=-1))
    low, high = ratio_statistics(yb, yc, paired=True).statistic.bounds(0.95)
    covered = float(np.mean((low <= math.log(1.07)) & (math.log(1.07) <= high)))
    print(f"{shape}, {n} pairs: coverage {covered:.3f}")
    assert 0.93 <= covered <= 0.975


def test_pooled_t_is_students_two_sample_t_and_works_from_one_candidate_fork():
    rng = np.random.default_rng(21)
    base, cand = rng.normal(0, 0.05, (6, 10)), rng.normal(0.03, 0.05, (6, 3))
    stat = logratio.pooled_t(base, cand)
    reference = stats.ttest_ind(cand, base, axis=-1, equal_var=True)
    assert np.allclose(stat.center / stat.se, reference.statistic) and np.all(stat.df == 11)
    one = logratio.pooled_t(base[0], cand[0, :1])  # a single candidate fork: the base's variance alone
    assert float(one.df) == 9 and float(one.se) == pytest.approx(np.std(base[0], ddof=1) * np.sqrt(1 / 10 + 1))
    assert np.isinf(logratio.pooled_t(base[0, :1], cand[0, :1]).se)  # nothing to estimate a spread from


def test_the_vectorised_rank_test_matches_scipy_row_by_row():
    rng = np.random.default_rng(22)
    base, cand = rng.normal(0, 1, (300, 10)), rng.normal(0.5, 1, (300, 3))
    drop = np.zeros(base.shape, dtype=bool)
    drop[7, 3] = True  # an excluded fork sends its row through the one-by-one path
    p, smallest = logratio.rank_p(base, cand, paired=False, drop_base=drop)
    expected = [stats.mannwhitneyu(cand[i], base[i][~drop[i]], alternative="two-sided", method="exact").pvalue
                for i in range(300)]
    assert np.allclose(p, expected)
    assert smallest[0] == pytest.approx(2 / math.comb(13, 10)) and smallest[7] == pytest.approx(2 / math.comb(12, 9))


def test_pairs_may_lose_a_third_as_outlying_so_mixed_pairs_of_a_rare_mode_all_go():
    assert [logratio.pair_outlier_limit(n) for n in (4, 5, 6, 9, 20)] == [0, 1, 2, 3, 6]
    rng = np.random.default_rng(3)
    base = rng.normal(0.0, 0.01, 20)
    cand = base + 0.10 + rng.normal(0.0, 0.01, 20)
    cand[[2, 9, 15]] -= 0.43  # the candidate's fork in the fast mode, the base's not
    base[[5, 12]] -= 0.43  # and the other way round
    result = logratio.ratio_statistics(base, cand, paired=True)
    assert sorted(np.flatnonzero(result.drop_base)) == [2, 5, 9, 12, 15]  # five mixed pairs: more than ⌊20/5⌋
    low, high = result.statistic.bounds(0.995)
    assert 0.08 < low < 0.10 < high < 0.12
