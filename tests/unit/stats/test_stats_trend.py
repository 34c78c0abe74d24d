"""Trend tests: Mann-Kendall against scipy, Bartels' rank von Neumann by hand and by seeded simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from benchwarden.stats.trend import _average_ranks, mann_kendall, rank_von_neumann


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
