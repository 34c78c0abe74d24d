"""Power analysis: the worked values of Reichelt et al. (digest seed-001 §3.4) and self-consistency."""

from __future__ import annotations

import numpy as np
import pytest

from benchwarden.stats import (
    effect_size_gamma,
    forks_needed,
    minimal_detectable_change,
    type2_error,
    variance_components,
)


@pytest.mark.parametrize(
    "gamma, n, beta", [(1.0, 30, 0.0973), (1.0, 50, 0.0076), (0.2, 50, 0.942), (1.0, 40, 0.029)]
)
def test_type2_error_reproduces_the_papers_worked_values(gamma, n, beta):
    assert type2_error(gamma, n, alpha=0.01) == pytest.approx(beta, abs=0.0006)


def test_forks_needed_for_gamma_0_1_is_the_papers_4808_up_to_quantile_rounding():
    n = forks_needed(0.1, alpha=0.01, beta=0.01)
    assert abs(n - 4808) <= 2
    assert type2_error(0.1, n) <= 0.01 < type2_error(0.1, n - 1)


@pytest.mark.parametrize("gamma", [2.0, 1.0, 0.5, 0.3, 0.2, -0.5])
def test_forks_needed_is_the_smallest_plan_meeting_beta(gamma):
    n = forks_needed(gamma, alpha=0.05, beta=0.2)
    assert type2_error(gamma, n, alpha=0.05) <= 0.2
    if n > 1:
        assert type2_error(gamma, n - 1, alpha=0.05) > 0.2


def test_gamma_uses_pooled_standard_deviation_of_fork_means():
    base = [[1.0], [2.0], [3.0]]
    cand = [[3.0], [4.0], [5.0]]  # means differ by 2, both sample variances 1
    assert effect_size_gamma(base, cand) == pytest.approx(2.0)
    assert effect_size_gamma(cand, base) == pytest.approx(-2.0)
    with pytest.raises(ValueError, match="both samples are constant"):
        effect_size_gamma([[1.0], [1.0]], [[2.0], [2.0]])


def test_variance_components_recover_simulated_truth():
    rng = np.random.default_rng(71)
    forks = 100 + rng.normal(0, 2.0, (2000, 1)) + rng.normal(0, 5.0, (2000, 30))
    components = variance_components(forks)
    assert components.within_variance == pytest.approx(25.0, rel=0.02)
    assert components.between_variance == pytest.approx(4.0, rel=0.15)  # SE of the estimate ~4 %
    assert components.mean == pytest.approx(100.0, abs=0.5)


def test_variance_components_of_degenerate_data_warn():
    assert "one fork" in variance_components([[1.0, 2.0, 3.0]]).warnings[0]
    assert "one iteration per fork" in variance_components([[1.0], [2.0]]).warnings[0]


def test_minimal_detectable_change_is_consistent_with_type2_error():
    rng = np.random.default_rng(72)
    forks = 100 * rng.lognormal(0, 0.02, (10, 1)) * rng.lognormal(0, 0.05, (10, 50))
    components = variance_components(forks)
    mdc = minimal_detectable_change(components, n_forks=20, n_iterations=50, alpha=0.01, beta=0.05)
    fork_mean_sd = np.sqrt(components.between_variance + components.within_variance / 50)
    gamma = mdc * components.mean / fork_mean_sd
    assert type2_error(gamma, 20, alpha=0.01) == pytest.approx(0.05, rel=1e-6)
    assert minimal_detectable_change(forks, 20, 50, 0.01, 0.05) == pytest.approx(mdc)
    assert minimal_detectable_change(forks, 80, 50, 0.01, 0.05) == pytest.approx(mdc / 2)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: type2_error(1.0, 0), "n_forks"),
        (lambda: type2_error(1.0, 10, alpha=1.5), "alpha"),
        (lambda: forks_needed(0.0), "non-zero"),
        (lambda: minimal_detectable_change([[1.0, 2.0]], 0, 10), "at least 1 fork"),
    ],
)
def test_bad_input_raises_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
