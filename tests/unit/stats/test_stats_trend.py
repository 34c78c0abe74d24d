"""Trend tests: Mann-Kendall against scipy, Bartels' rank von Neumann by hand and by seeded simulation."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats as sps

from benchwarden.stats.trend import (
    StationarityTest,
    _average_ranks,
    ar1_from_differences,
    kpss_level,
    lag1_autocorrelation,
    mann_kendall,
    mann_kendall_ar1,
    rank_von_neumann,
    rank_von_neumann_ar1,
)


@pytest.mark.parametrize("n", [3, 5, 10, 23, 60])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mann_kendall_equals_scipy_kendalltau_and_theilslopes(n, seed):
    rng = np.random.default_rng(seed)
    values = np.round(rng.normal(size=n) + 0.05 * np.arange(n), 1)  # rounding makes ties
    position = np.arange(n)
    ours = mann_kendall(values)
    theirs = sps.kendalltau(position, values, method="asymptotic")
    assert ours.tau == pytest.approx(theirs.statistic, abs=1e-12)
    assert ours.p_value == pytest.approx(theirs.pvalue, abs=1e-12)
    assert ours.slope == pytest.approx(sps.theilslopes(values, position).slope, abs=1e-12)


def test_mann_kendall_of_constant_data_has_no_trend():
    result = mann_kendall([3.0] * 8)
    assert (result.tau, result.p_value, result.slope) == (0.0, 1.0, 0.0)


def test_mann_kendall_sees_a_monotone_series_and_rejects_bad_input():
    assert mann_kendall(np.arange(10.0)).p_value < 0.001
    with pytest.raises(ValueError, match="at least 3"):
        mann_kendall([1.0, 2.0])
    with pytest.raises(ValueError, match="finite"):
        mann_kendall([1.0, float("nan"), 2.0])


def test_rank_von_neumann_worked_example():
    # ranks 1..5 in order: Σ diff² = 4, Σ (r − r̄)² = 10, RVN = 0.4;
    # Var = 4·3·(125 − 10 − 9) / (5·5·6·16) = 0.53, z = (0.4 − 2) / √0.53
    z = (0.4 - 2.0) / math.sqrt(4 * 3 * (125 - 10 - 9) / (5 * 5 * 6 * 16))
    assert rank_von_neumann([10.0, 20.0, 30.0, 40.0, 50.0]) == pytest.approx(0.5 * math.erfc(-z / math.sqrt(2)))
    assert rank_von_neumann([10.0, 20.0, 30.0, 40.0, 50.0]) == pytest.approx(sps.norm.cdf(z))


def test_average_ranks_equal_scipy_rankdata():
    values = np.round(np.random.default_rng(3).normal(size=40), 1)
    assert np.array_equal(_average_ranks(values), sps.rankdata(values))


def test_rank_von_neumann_is_calibrated_on_exchangeable_data_and_sees_a_random_walk():
    rng = np.random.default_rng(7)
    null = np.array([rank_von_neumann(rng.normal(size=20)) for _ in range(3000)])
    for alpha in (0.05, 0.1, 0.2):  # SE of a share of 3,000 at 0.1 is 0.0055
        assert abs(np.mean(null <= alpha) - alpha) < 0.025
    walks = np.array([rank_von_neumann(np.cumsum(rng.normal(size=20))) for _ in range(500)])
    assert np.mean(walks <= 0.1) > 0.9
    # heavy tails change nothing: the test sees ranks only
    heavy = np.array([rank_von_neumann(rng.pareto(1.2, size=20)) for _ in range(3000)])
    assert abs(np.mean(heavy <= 0.1) - 0.1) < 0.025


def test_rank_von_neumann_of_constant_data_is_one():
    assert rank_von_neumann([5.0] * 6) == 1.0


# --- serial dependence that is not a moving level: AR(1) nulls, KPSS, φ estimates ---------------------------


def ar1(rng, phi, n, size=None):
    """Stationary Gaussian AR(1) series (rows), simulated independently of benchwarden's own generator."""
    shape = (size, n) if size else (n,)
    x = np.empty(shape)
    x[..., 0] = rng.normal(size=shape[:-1]) / math.sqrt(1 - phi * phi)
    shocks = rng.normal(size=shape)
    for t in range(1, n):
        x[..., t] = phi * x[..., t - 1] + shocks[..., t]
    return x


@pytest.mark.parametrize("n", [10, 30, 60])
@pytest.mark.parametrize("seed", [0, 1])
def test_kpss_equals_statsmodels_with_newey_west_lags(n, seed):
    from statsmodels.tsa.stattools import kpss

    rng = np.random.default_rng(seed)
    values = rng.normal(size=n) + np.cumsum(rng.normal(0, 0.3, n))
    ours = kpss_level(values)
    assert ours.lags == int(4 * (n / 100) ** 0.25)  # Schwert's l4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns when it clips its p-value to its table's range
        statistic, p_value, lags, _ = kpss(values, regression="c", nlags=ours.lags)
    assert lags == ours.lags and ours.statistic == pytest.approx(statistic, rel=1e-10)
    if 0.01 < p_value < 0.1:  # statsmodels interpolates linearly in p in KPSS's simulated Table 1 (the same ω² law)
        assert ours.p_value == pytest.approx(p_value, rel=0.1)
    else:
        assert (ours.p_value <= 0.01) == (p_value <= 0.01)


def test_kpss_p_values_are_calibrated_on_white_noise():
    # the ω² limit by simulation (a long white-noise series: the statistic's law is the limit's); p-values
    # interpolated in Anderson & Darling's quantiles must then be uniform in their range
    rng = np.random.default_rng(21)
    p_values = np.array([kpss_level(x, lags=0).p_value for x in rng.normal(size=(4000, 400))])
    for alpha in (0.01, 0.025, 0.05, 0.1, 0.2, 0.25):  # SE of a share of 4,000 at 0.1: 0.005
        assert abs(np.mean(p_values <= alpha) - alpha) < max(0.012, 0.15 * alpha)
    assert p_values.max() == 0.5 and p_values.min() >= 0.001  # clipped to the table


def test_kpss_with_the_ar1_long_run_variance_holds_its_size_where_bartlett_does_not():
    rng = np.random.default_rng(11)
    series = ar1(rng, 0.6, 50, size=2000)
    bartlett = np.mean([kpss_level(x).p_value <= 0.1 for x in series])
    recoloured = np.mean([kpss_level(x, phi=0.6).p_value <= 0.1 for x in series])
    assert bartlett > 0.18  # the docstring's 26 %: few lags under-estimate the long-run variance
    assert abs(recoloured - 0.1) < 0.04
    walks = rng.normal(size=(500, 50)) + np.cumsum(rng.normal(0, 1.0, (500, 50)), axis=1)
    assert np.mean([kpss_level(x, phi=0.6).p_value <= 0.1 for x in walks]) > 0.6
    steps = rng.normal(size=(500, 50)) + np.where(np.arange(50) < 25, 2.0, 0.0)
    assert np.mean([kpss_level(x, phi=0.3).p_value <= 0.1 for x in steps]) > 0.9


def test_kpss_of_constant_data_is_stationary_and_bad_input_is_refused():
    assert kpss_level([7.0] * 12) == StationarityTest(0.0, 0.5, 2, 12)  # l4 = ⌊4 · 0.12^¼⌋
    with pytest.raises(ValueError, match="lags"):
        kpss_level(np.arange(6.0), lags=6)
    with pytest.raises(ValueError, match="phi"):
        kpss_level(np.arange(6.0), phi=1.0)


def test_mann_kendall_ar1_variance_matches_simulation_and_phi_zero_is_the_plain_test():
    rng = np.random.default_rng(5)
    values = rng.normal(size=25) + 0.05 * np.arange(25)
    assert mann_kendall_ar1(values, 0.0) == mann_kendall(values)
    # Var(S) under an AR(1) by brute-force simulation against the corrected variance the p-value implies
    n, phi = 30, 0.6
    series = ar1(rng, phi, n, size=20000)
    i, j = np.triu_indices(n, 1)
    s = np.sign(series[:, j] - series[:, i]).sum(axis=1)
    simulated_var = float(np.var(s))
    probe = mann_kendall_ar1(np.arange(n, dtype=float), phi)  # S = n(n−1)/2: p = erfc(S / √(2 Var))
    implied_var = (n * (n - 1) / 2) ** 2 / (2 * float(sps.norm.isf(probe.p_value / 2) ** 2 / 2))
    assert implied_var == pytest.approx(simulated_var, rel=0.06)
    rejections = np.mean([mann_kendall_ar1(x, phi).p_value <= 0.1 for x in series[:2000]])
    plain = np.mean([mann_kendall(x).p_value <= 0.1 for x in series[:2000]])
    assert abs(rejections - 0.1) < 0.035 and plain > 0.25


@pytest.mark.parametrize("phi", [0.3, 0.6, 0.8])
def test_rank_von_neumann_ar1_is_calibrated_under_its_null(phi):
    rng = np.random.default_rng(int(phi * 10))
    series = ar1(rng, phi, 20, size=2000)
    p_values = np.array([rank_von_neumann_ar1(x, phi) for x in series])
    for alpha in (0.05, 0.1, 0.2):
        # two sources of error, each a share of 2,000: the test series here and the simulated null (2,000 replicates)
        assert abs(np.mean(p_values <= alpha) - alpha) < 3 * math.sqrt(2 * alpha * (1 - alpha) / 2000)
    assert np.mean([rank_von_neumann(x) <= 0.1 for x in series]) > 0.3  # independence is the wrong null here


def test_rank_von_neumann_ar1_sees_a_walk_that_its_phi_does_not_explain_and_is_deterministic():
    rng = np.random.default_rng(8)
    walks = rng.normal(size=(500, 40)) + np.cumsum(rng.normal(0, 1.0, (500, 40)), axis=1)
    assert np.mean([rank_von_neumann_ar1(x, 0.3) <= 0.1 for x in walks]) > 0.8
    x = walks[0]
    assert rank_von_neumann_ar1(x, 0.3) == rank_von_neumann_ar1(x, 0.3)
    assert rank_von_neumann_ar1(x, 0.0) == rank_von_neumann(x)
    assert 0 < rank_von_neumann_ar1(np.arange(10.0), 0.5) <= 2 / 2001  # never 0
    assert rank_von_neumann_ar1([2.0] * 8, 0.5) == 1.0
    with pytest.raises(ValueError, match="phi"):
        rank_von_neumann_ar1(x, -1.0)
    with pytest.raises(ValueError, match="replicates"):
        rank_von_neumann_ar1(x, 0.5, replicates=50)


def test_lag1_autocorrelation_is_statsmodels_acf_with_the_marriott_pope_correction():
    from statsmodels.tsa.stattools import acf

    rng = np.random.default_rng(9)
    x = ar1(rng, 0.5, 40)
    r = float(acf(x, nlags=1, fft=False)[1])
    assert lag1_autocorrelation(x) == pytest.approx(r + (1 + 3 * r) / 40, abs=1e-12)
    series = ar1(rng, 0.6, 30, size=3000)
    corrected = np.mean([lag1_autocorrelation(s) for s in series])
    centred = series - series.mean(axis=1, keepdims=True)
    plain = np.mean((centred[:, 1:] * centred[:, :-1]).sum(axis=1) / (centred ** 2).sum(axis=1))
    assert plain < 0.53 and abs(corrected - 0.6) < 0.05  # most of the O(1/n) bias removed
    assert lag1_autocorrelation([1.0] * 5) == 0.0


@pytest.mark.parametrize("phi", [0.0, 0.3, 0.6, 0.8])
def test_ar1_from_differences_estimates_phi(phi):
    rng = np.random.default_rng(12)
    estimates = [ar1_from_differences(s) for s in ar1(rng, phi, 200, size=400)]
    assert abs(np.mean(estimates) - phi) < 0.06


def test_ar1_from_differences_is_not_fooled_by_a_drift_a_step_or_a_walk():
    rng = np.random.default_rng(13)
    x = rng.normal(size=40)
    assert ar1_from_differences(x + 0.3 * np.arange(40)) == pytest.approx(ar1_from_differences(x), abs=1e-12)
    stepped = x + np.where(np.arange(40) < 20, 50.0, 0.0)  # one huge step
    assert abs(ar1_from_differences(stepped) - ar1_from_differences(x)) < 0.45  # ~2 s.d. of the estimate at n = 40
    assert lag1_autocorrelation(stepped) > 0.9  # where the plain autocorrelation is fooled completely
    walks = rng.normal(size=(300, 60)) + np.cumsum(rng.normal(0, 1.0, (300, 60)), axis=1)
    assert np.median([ar1_from_differences(w) for w in walks]) < 0.5  # 1 − 2/(2 + 1²) = 1/3 in expectation
    assert np.median([lag1_autocorrelation(w) for w in walks]) > 0.7
