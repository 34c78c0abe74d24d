"""The hierarchical bootstrap engine against closed forms, an exact reference and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchwarden.stats import hierarchical_bootstrap_means
from benchwarden.stats.resampling import BLOCK_ELEMENTS, exact_moments, iteration_banks


def _exact_reference(forks: list[np.ndarray], n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Textbook two-level bootstrap (Kalibera & Jones §4): fresh inner draws for every picked fork."""
    means = np.empty(n_resamples)
    for k in range(n_resamples):
        picked = rng.integers(0, len(forks), len(forks))
        means[k] = np.mean([rng.choice(forks[f], forks[f].size).mean() for f in picked])
    return means


def _closed_form(forks: list[np.ndarray]) -> tuple[float, float]:
    fork_means = np.array([f.mean() for f in forks])
    inner = np.array([f.var() / f.size for f in forks])
    return exact_moments(fork_means, inner)


@pytest.fixture
def ragged_forks() -> list[np.ndarray]:
    rng = np.random.default_rng(11)
    return [rng.gamma(2.0, 5.0, size) + offset for size, offset in [(12, 0.0), (20, 4.0), (7, -2.0), (15, 1.0)]]


def test_mean_and_variance_match_the_law_of_total_variance(ragged_forks):
    expected_mean, expected_variance = _closed_form(ragged_forks)
    means = hierarchical_bootstrap_means(ragged_forks, 100_000, seed=1)
    # Monte-Carlo standard error of a variance estimate from 10^5 near-normal draws is ~0.45 %.
    assert means.var() == pytest.approx(expected_variance, rel=0.02)
    assert means.mean() == pytest.approx(expected_mean, abs=4 * np.sqrt(expected_variance / 100_000))


def test_quantiles_agree_with_the_exact_unbanked_algorithm(ragged_forks):
    banked = hierarchical_bootstrap_means(ragged_forks, 20_000, seed=2)
    exact = _exact_reference(ragged_forks, 20_000, np.random.default_rng(3))
    sd = exact.std()
    for q in (0.025, 0.5, 0.975):
        assert np.quantile(banked, q) == pytest.approx(np.quantile(exact, q), abs=0.05 * sd)
    # Two-sample KS: no detectable difference in distribution at this sample size.
    assert stats.ks_2samp(banked, exact).pvalue > 0.001


def test_single_iteration_forks_reduce_to_the_ordinary_bootstrap_of_scipy():
    values = np.random.default_rng(4).lognormal(3.0, 0.4, 25)
    forks = values[:, None]  # 25 forks x 1 iteration: only the fork level varies
    means = hierarchical_bootstrap_means(forks, 50_000, seed=5)
    reference = stats.bootstrap(
        (values,), np.mean, n_resamples=50_000, method="percentile", confidence_level=0.95, rng=6
    ).confidence_interval
    low, high = np.quantile(means, [0.025, 0.975])
    width = reference.high - reference.low
    assert low == pytest.approx(reference.low, abs=0.03 * width)
    assert high == pytest.approx(reference.high, abs=0.03 * width)


def test_three_levels_match_their_closed_form():
    rng = np.random.default_rng(7)
    runs = [rng.normal(100 + shift, 3.0, (4, 10)) + rng.normal(0, 1.0, (4, 1)) for shift in (0.0, 2.0, -1.5)]
    run_moments = [_closed_form(list(run)) for run in runs]
    expected_mean, expected_variance = exact_moments(
        np.array([m for m, _ in run_moments]), np.array([v for _, v in run_moments])
    )
    means = hierarchical_bootstrap_means(runs, 100_000, seed=8, levels=3)
    assert means.var() == pytest.approx(expected_variance, rel=0.03)
    assert means.mean() == pytest.approx(expected_mean, abs=4 * np.sqrt(expected_variance / 100_000))


def test_seeded_results_are_reproducible_and_seeds_differ(ragged_forks):
    first = hierarchical_bootstrap_means(ragged_forks, 500, seed=9)
    again = hierarchical_bootstrap_means(ragged_forks, 500, seed=9)
    other = hierarchical_bootstrap_means(ragged_forks, 500, seed=10)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_generator_is_used_as_given(ragged_forks):
    rng = np.random.default_rng(12)
    first = hierarchical_bootstrap_means(ragged_forks, 100, seed=rng)
    second = hierarchical_bootstrap_means(ragged_forks, 100, seed=rng)
    assert not np.array_equal(first, second)  # the stream advanced


def test_forks_wider_than_one_block_of_draws_have_the_right_inner_variance():
    fork = np.random.default_rng(13).exponential(10.0, 3 * BLOCK_ELEMENTS + 5)
    bank = iteration_banks(fork[None, :], 2000, np.random.default_rng(14))[0]  # raw, before moment matching
    # The variance of 2,000 draws has a relative standard error of about 3 %.
    assert bank.var() == pytest.approx(fork.var() / fork.size, rel=0.12)
    assert bank.mean() == pytest.approx(fork.mean(), abs=4 * fork.std() / np.sqrt(fork.size * 2000))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_resamples": 0}, "n_resamples"),
        ({"bank_size": 0}, "bank_size"),
        ({"levels": 4}, "levels"),
    ],
)
def test_invalid_parameters_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        hierarchical_bootstrap_means([[1.0, 2.0]], **kwargs)
