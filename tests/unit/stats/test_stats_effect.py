"""Cliff's δ and Vargha-Delaney A against brute-force pair counting; direction-aware relative change."""

from __future__ import annotations

import numpy as np
import pytest

from benchwarden.stats import cliffs_delta, cliffs_delta_magnitude, relative_change, vargha_delaney_a


def _brute_force_delta(a: np.ndarray, b: np.ndarray) -> float:
    greater = sum(1 for x in a for y in b if x > y)
    less = sum(1 for x in a for y in b if x < y)
    return (greater - less) / (a.size * b.size)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cliffs_delta_equals_pairwise_dominance_with_ties(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 8, 40).astype(float)  # many ties on purpose
    b = rng.integers(1, 9, 33).astype(float)
    assert cliffs_delta(a, b) == pytest.approx(_brute_force_delta(a, b), abs=1e-12)
    assert vargha_delaney_a(a, b) == pytest.approx((_brute_force_delta(a, b) + 1) / 2, abs=1e-12)


def test_worked_example():
    # pairs: (1,2)<, (1,3)<, (4,2)>, (4,3)>, (3,2)>, (3,3)=  -> delta = (3 - 2)/6
    assert cliffs_delta([1.0, 4.0, 3.0], [2.0, 3.0]) == pytest.approx(1 / 6)
    assert vargha_delaney_a([1.0, 4.0, 3.0], [2.0, 3.0]) == pytest.approx(3.5 / 6)


def test_effect_sizes_are_antisymmetric_and_bounded():
    a, b = [1.0, 2.0, 3.0], [10.0, 11.0]
    assert cliffs_delta(a, b) == -1.0 and cliffs_delta(b, a) == 1.0
    assert vargha_delaney_a(a, b) + vargha_delaney_a(b, a) == pytest.approx(1.0)
    assert cliffs_delta([5.0], [5.0]) == 0.0


def test_on_fork_means_uses_one_value_per_fork():
    a = [[1.0, 9.0], [2.0, 2.0]]  # fork means 5, 2
    b = [[3.0, 3.0], [4.0, 4.0]]  # fork means 3, 4
    assert cliffs_delta(a, b, on="fork-means") == pytest.approx(0.0)  # 5>3, 5>4, 2<3, 2<4


@pytest.mark.parametrize(
    "delta, label", [(0.0, "negligible"), (-0.2, "small"), (0.4, "medium"), (-0.474, "large"), (1.0, "large")]
)
def test_cliffs_delta_magnitude_uses_romano_thresholds(delta, label):
    assert cliffs_delta_magnitude(delta) == label


def test_relative_change_of_time_is_an_improvement_when_it_drops():
    change = relative_change([[100.0, 100.0]], [[80.0, 80.0]])
    assert change.ratio == pytest.approx(0.8)
    assert change.relative == pytest.approx(-0.2)
    assert change.improvement == pytest.approx(0.2)
    assert not change.is_regression


def test_relative_change_of_throughput_is_a_regression_when_it_drops():
    change = relative_change([1000.0, 1000.0], [900.0, 900.0], higher_is_better=True)
    assert change.improvement == pytest.approx(-0.1)
    assert change.is_regression


def test_mean_is_mean_of_fork_means_and_median_is_over_all_iterations():
    base = [[10.0], [20.0, 20.0, 20.0]]  # fork means 10, 20 -> 15; pooled median 20
    cand = [[30.0], [30.0, 30.0, 30.0]]
    assert relative_change(base, cand).ratio == pytest.approx(2.0)
    assert relative_change(base, cand, statistic="median").ratio == pytest.approx(1.5)


def test_relative_change_rejects_bad_input():
    with pytest.raises(ValueError, match="positive base"):
        relative_change([0.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="statistic must be"):
        relative_change([1.0], [1.0], statistic="mode")
