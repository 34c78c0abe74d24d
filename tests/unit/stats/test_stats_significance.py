"""Mann-Whitney U and Welch's t against scipy, Horký's worked counterexample, units of analysis."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchwarden.stats import fork_means, mann_whitney, welch


@pytest.fixture
def two_versions() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(51)
    base = 100 * rng.lognormal(0, 0.03, (7, 1)) * rng.lognormal(0, 0.1, (7, 25))
    cand = 104 * rng.lognormal(0, 0.03, (9, 1)) * rng.lognormal(0, 0.1, (9, 25))
    return base, cand


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("on", ["fork-means", "all"])
def test_mann_whitney_matches_scipy(two_versions, alternative, on):
    base, cand = two_versions
    x, y = (base.mean(axis=1), cand.mean(axis=1)) if on == "fork-means" else (base.ravel(), cand.ravel())
    expected = stats.mannwhitneyu(x, y, alternative=alternative)
    result = mann_whitney(base, cand, alternative, on)
    assert (result.statistic, result.p_value) == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)
    assert (result.n_a, result.n_b) == (x.size, y.size)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("on", ["fork-means", "all"])
def test_welch_matches_scipy(two_versions, alternative, on):
    base, cand = two_versions
    x, y = (base.mean(axis=1), cand.mean(axis=1)) if on == "fork-means" else (base.ravel(), cand.ravel())
    expected = stats.ttest_ind(x, y, equal_var=False, alternative=alternative)
    result = welch(base, cand, alternative, on)
    assert (result.statistic, result.p_value, result.df) == pytest.approx(
        (expected.statistic, expected.pvalue, expected.df), rel=1e-12
    )


def test_horky_welch_non_transitivity_counterexample():
    """Digest seed-000 §2.3: one-sided Welch at α = 0.05 on {2,4}, {−1,1}, {−4,−2}; ν = 2, t_crit ≈ 2.920."""
    x, y, z = [2.0, 4.0], [-1.0, 1.0], [-4.0, -2.0]
    x_y = welch(x, y, "greater", on="all")
    y_z = welch(y, z, "greater", on="all")
    x_z = welch(x, z, "greater", on="all")
    assert x_y.statistic == pytest.approx(2.121, abs=5e-4)
    assert y_z.statistic == pytest.approx(2.121, abs=5e-4)
    assert x_z.statistic == pytest.approx(4.243, abs=5e-4)
    assert x_y.df == pytest.approx(2.0) and x_z.df == pytest.approx(2.0)
    assert stats.t.ppf(0.95, 2) == pytest.approx(2.920, abs=5e-4)
    # "a ≤ b holds" iff H0 (E a ≤ E b) is not rejected: X≤Y and Y≤Z hold, X≤Z does not.
    assert not x_y.significant(0.05)
    assert not y_z.significant(0.05)
    assert x_z.significant(0.05)


def test_fork_means_are_the_default_unit(two_versions):
    base, cand = two_versions
    default = mann_whitney(base, cand)
    explicit = mann_whitney(fork_means(base), fork_means(cand), on="all")
    assert default.on == "fork-means"
    assert (default.statistic, default.p_value, default.n_a) == (explicit.statistic, explicit.p_value, 7)


def test_pooling_iterations_of_several_forks_warns(two_versions):
    base, cand = two_versions
    assert any("not independent" in w for w in welch(base, cand, on="all").warnings)
    assert welch(base, cand).warnings == ()


def test_mann_whitney_reports_the_smallest_attainable_p_value():
    result = mann_whitney([[1.0], [2.0]], [[3.0], [4.0]])
    assert result.p_value == pytest.approx(1 / 3)  # exact: 2 of 6 arrangements are this extreme
    assert any("smallest attainable p-value is 0.333" in w for w in result.warnings)


def test_degenerate_input_degrades_to_no_evidence():
    equal = mann_whitney([3.0, 3.0, 3.0], [3.0, 3.0], on="all")
    assert equal.p_value == 1.0 and any("all values are equal" in w for w in equal.warnings)
    constant = welch([1.0, 1.0, 1.0], [2.0, 2.0, 2.0], on="all")
    assert constant.p_value == 1.0 and np.isnan(constant.statistic)
    assert any("zero variance" in w for w in constant.warnings)
    single = welch([[1.0, 2.0]], [[3.0, 4.0]])  # one fork each: one fork mean each
    assert single.p_value == 1.0 and any("at least 2 values" in w for w in single.warnings)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: welch([1.0, 2.0], [1.0, 2.0], alternative="bigger"), "alternative"),
        (lambda: mann_whitney([1.0, 2.0], [1.0, 2.0], on="forks"), "on must be"),
        (lambda: mann_whitney([1.0, float("nan")], [1.0, 2.0]), "a: fork 0, iteration 1"),
        (lambda: welch([], [1.0, 2.0]), "a: no forks"),
    ],
)
def test_bad_input_raises_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
