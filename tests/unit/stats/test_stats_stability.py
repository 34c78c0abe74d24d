"""CV, relative MAD, maxSpread and the KLD similarity probability."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchwarden.stats import cv, kld_similarity, max_spread, relative_mad
from benchwarden.stats.stability import kde_bandwidth


def test_cv_matches_scipy_variation_with_ddof_1():
    values = np.random.default_rng(61).gamma(4.0, 25.0, 300)
    assert cv(values) == pytest.approx(stats.variation(values, ddof=1), rel=1e-12)
    assert cv([[1.0, 2.0], [3.0]]) == pytest.approx(stats.variation([1.0, 2.0, 3.0], ddof=1))
    assert cv([7.0, 7.0, 7.0]) == 0.0


def test_relative_mad_matches_scipy():
    values = np.random.default_rng(62).lognormal(2.0, 0.3, 301)
    median = np.median(values)
    assert relative_mad(values) == pytest.approx(stats.median_abs_deviation(values) / median)
    assert relative_mad(values, scale=1.4826) == pytest.approx(
        stats.median_abs_deviation(values, scale=1 / 1.4826) / median
    )


def test_max_spread_worked_example():
    # run means 10, 12, 11: overall 11, largest gap 2 -> 2/11
    assert max_spread([10.0, 12.0, 11.0]) == pytest.approx(2 / 11)
    brute = max(abs(a - b) for a in [10.0, 12.0, 11.0] for b in [10.0, 12.0, 11.0]) / 11
    assert max_spread(np.array([10.0, 12.0, 11.0])) == pytest.approx(brute)
    assert max_spread([5.0, 5.0]) == 0.0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: cv([1.0]), "more than 1 values"),
        (lambda: cv([-1.0, -2.0]), "positive mean"),
        (lambda: relative_mad([0.0, 0.0, 1.0]), "positive median"),
        (lambda: max_spread([3.0]), "at least 2 runs"),
        (lambda: max_spread([1.0, float("nan")]), "iteration 1"),
        (lambda: kld_similarity([], [1.0]), "p_sample: no forks"),
        (lambda: kld_similarity([1.0, 2.0], [1.0, 2.0], n_points=1), "n_points"),
    ],
)
def test_bad_input_raises_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- KLD -----------------------------------------------------------------------------------------


def _reference_kld_similarity(p: np.ndarray, q: np.ndarray, n_points: int = 1000) -> float:
    """Independent re-computation with scipy.stats.gaussian_kde (untruncated) and H&F type-6 quartiles."""

    def fences(x):
        q1, q3 = np.quantile(x, [0.25, 0.75], method="weibull")
        return max(0.0, q1 - 1.5 * (q3 - q1)), q3 + 1.5 * (q3 - q1)

    (pl, ph), (ql, qh) = fences(p), fences(q)
    grid = np.linspace(min(pl, ql), max(ph, qh), n_points)
    step = grid[1] - grid[0]
    pd = stats.gaussian_kde(p, bw_method=kde_bandwidth(p) / p.std(ddof=1))(grid)
    qd = stats.gaussian_kde(q, bw_method=kde_bandwidth(q) / q.std(ddof=1))(grid)
    kl_pq = np.sum(pd * np.log(pd / qd)) * step
    kl_qp = np.sum(qd * np.log(qd / pd)) * step
    return float(2.0**-kl_pq * 2.0**-kl_qp)


@pytest.mark.parametrize("shift", [0.0, 0.5, 2.0])
def test_kld_similarity_matches_an_independent_scipy_kde_computation(shift):
    rng = np.random.default_rng(63)
    p = rng.normal(100.0, 2.0, 400)
    q = rng.normal(100.0 + shift, 2.0, 400)
    assert kld_similarity(p, q) == pytest.approx(_reference_kld_similarity(p, q), abs=1e-4)


def test_kld_similarity_is_higher_for_similar_distributions():
    rng = np.random.default_rng(64)
    p = rng.gamma(9.0, 10.0, 1000)
    same = kld_similarity(p, rng.gamma(9.0, 10.0, 1000))
    shifted = kld_similarity(p, rng.gamma(9.0, 10.0, 1000) * 1.1)
    assert 0.95 < same <= 1.0
    assert shifted < same
    assert kld_similarity(p, p) == pytest.approx(1.0)


def test_kld_similarity_is_symmetric():
    rng = np.random.default_rng(65)
    p, q = rng.normal(10, 1, 200), rng.normal(10.5, 1.5, 300)
    assert kld_similarity(p, q) == pytest.approx(kld_similarity(q, p), rel=1e-12)


def test_kld_similarity_degenerate_cases_follow_the_reference_code():
    assert kld_similarity([5.0, 5.0, 5.0], [5.0, 5.0]) == 1.0  # empty range -> 1
    assert kld_similarity([5.0, 5.0, 5.0], [6.0, 6.0, 6.0]) == 0.0  # disjoint support -> KL = inf
    assert 0.0 <= kld_similarity([1.0, 1.0, 1.0, 2.0], [1.0, 2.0, 2.0, 2.0]) <= 1.0


def test_kde_bandwidth_is_smiles_rule_of_thumb():
    x = np.arange(1.0, 101.0)
    sd = x.std(ddof=1)
    iqr = x[75] - x[25]  # Smile: x[n*3/4] - x[n/4]
    assert kde_bandwidth(x) == pytest.approx(1.06 * min(sd, iqr / 1.34) * 100**-0.2)
