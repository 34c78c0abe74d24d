"""Confidence intervals of the mean and of the ratio of means; RCIW; the batch variant."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchwarden.stats import ci_mean, ci_ratio_of_means, ci_ratio_of_means_batch, rciw


@pytest.fixture
def forks() -> np.ndarray:
    rng = np.random.default_rng(21)
    return 100.0 * rng.lognormal(0, 0.05, (8, 1)) * rng.lognormal(0, 0.1, (8, 30))


def _one_iteration_forks(n: int = 30, seed: int = 22) -> np.ndarray:
    return np.random.default_rng(seed).gamma(3.0, 10.0, n)[:, None]


@pytest.mark.parametrize("ours, scipys", [("percentile", "percentile"), ("bca", "BCa")])
def test_with_one_iteration_per_fork_intervals_match_scipy_bootstrap(ours, scipys):
    data = _one_iteration_forks()
    interval = ci_mean(data, 0.95, 40_000, seed=23, method=ours)
    reference = stats.bootstrap(
        (data[:, 0],), np.mean, n_resamples=40_000, method=scipys, confidence_level=0.95, rng=24
    ).confidence_interval
    width = reference.high - reference.low
    assert interval.low == pytest.approx(reference.low, abs=0.03 * width)
    assert interval.high == pytest.approx(reference.high, abs=0.03 * width)


def test_t_interval_of_the_mean_is_scipys_t_interval_on_fork_means(forks):
    interval = ci_mean(forks, 0.99, method="t")
    fork_means = forks.mean(axis=1)
    low, high = stats.t.interval(0.99, fork_means.size - 1, fork_means.mean(), stats.sem(fork_means))
    assert (interval.low, interval.high) == pytest.approx((low, high), rel=1e-12)
    assert interval.n_resamples == 0


def test_t_interval_of_the_ratio_is_welch_on_the_log_scale():
    base = np.array([[100.0, 102.0], [98.0, 97.0], [105.0, 104.0]])
    cand = np.array([[110.0, 111.0], [115.0, 113.0], [108.0, 109.0], [112.0, 110.0]])
    interval = ci_ratio_of_means(base, cand, 0.95, method="t")
    mb, mc = base.mean(axis=1), cand.mean(axis=1)
    vb = mb.var(ddof=1) / (mb.size * mb.mean() ** 2)
    vc = mc.var(ddof=1) / (mc.size * mc.mean() ** 2)
    df = (vb + vc) ** 2 / (vb**2 / (mb.size - 1) + vc**2 / (mc.size - 1))
    theta = np.log(mc.mean() / mb.mean())
    half = stats.t.ppf(0.975, df) * np.sqrt(vb + vc)
    assert interval.point == pytest.approx(mc.mean() / mb.mean())
    assert (interval.low, interval.high) == pytest.approx((np.exp(theta - half), np.exp(theta + half)))


@pytest.mark.parametrize("method", ["percentile", "studentized", "bca", "t"])
def test_every_method_brackets_the_point_estimate(forks, method):
    interval = ci_mean(forks, 0.95, 2000, seed=25, method=method)
    assert interval.low < interval.point < interval.high
    assert interval.point == pytest.approx(forks.mean())
    assert interval.method == method
    ratio = ci_ratio_of_means(forks, forks * 1.2, 0.95, 2000, seed=26, method=method)
    assert ratio.low < ratio.point < ratio.high
    assert ratio.point == pytest.approx(1.2)


def test_ratio_interval_is_invariant_to_a_common_unit_change(forks):
    cand = forks * 0.9
    in_ns = ci_ratio_of_means(forks, cand, seed=27, n_resamples=2000)
    in_s = ci_ratio_of_means(forks * 1e-9, cand * 1e-9, seed=27, n_resamples=2000)
    assert (in_s.low, in_s.point, in_s.high) == pytest.approx((in_ns.low, in_ns.point, in_ns.high), rel=1e-9)


def test_ratio_percentile_interval_is_the_quantiles_of_resampled_ratios(forks):
    from benchwarden.stats import hierarchical_bootstrap_means

    cand = forks * 1.05
    rng = np.random.default_rng(28)
    base_means = hierarchical_bootstrap_means(forks, 5000, seed=rng)
    cand_means = hierarchical_bootstrap_means(cand, 5000, seed=rng)
    expected = np.quantile(cand_means / base_means, [0.025, 0.975])
    interval = ci_ratio_of_means(forks, cand, 0.95, 5000, seed=np.random.default_rng(28), method="percentile")
    assert (interval.low, interval.high) == pytest.approx(tuple(expected), rel=1e-9)


def test_rciw_is_relative_width_of_the_99_percent_percentile_interval(forks):
    interval = ci_mean(forks, 0.99, 1000, seed=29, method="percentile")
    assert rciw(forks, seed=29) == pytest.approx((interval.high - interval.low) / interval.point)
    assert rciw(forks, seed=29) > 0


def test_rciw_shrinks_with_more_forks():
    rng = np.random.default_rng(30)
    data = 100.0 * rng.lognormal(0, 0.05, (40, 1)) * rng.lognormal(0, 0.1, (40, 30))
    assert rciw(data, seed=31) < rciw(data[:5], seed=31)


def test_batch_equals_sequential_calls_sharing_one_generator(forks):
    pairs = [(forks, forks * factor) for factor in (0.9, 1.0, 1.3)]
    batch = ci_ratio_of_means_batch(pairs, n_resamples=1000, seed=32)
    rng = np.random.default_rng(32)
    sequential = [ci_ratio_of_means(b, c, n_resamples=1000, seed=rng) for b, c in pairs]
    assert batch == sequential


def test_batch_accepts_a_generator_and_names_the_failing_pair(forks):
    pairs = ((forks, cand) for cand in (forks, [[1.0, float("nan")]]))
    with pytest.raises(ValueError, match=r"pair 1: candidate: fork 0, iteration 1"):
        ci_ratio_of_means_batch(pairs, n_resamples=100, seed=33)


def test_three_level_interval_uses_runs_as_the_top_level():
    rng = np.random.default_rng(34)
    runs = [100.0 + shift + rng.normal(0, 1.0, (3, 10)) for shift in (0.0, 3.0, -2.0, 1.0)]
    interval = ci_mean(runs, 0.95, 2000, seed=35, levels=3)
    run_means = np.array([run.mean() for run in runs])
    assert interval.point == pytest.approx(run_means.mean())
    t_interval = ci_mean(runs, 0.95, levels=3, method="t")
    expected = stats.t.interval(0.95, 3, run_means.mean(), stats.sem(run_means))
    assert (t_interval.low, t_interval.high) == pytest.approx(expected)


# --- small samples and degenerate input --------------------------------------------------------


def test_single_fork_falls_back_to_percentile_and_warns():
    interval = ci_ratio_of_means([[10.0, 11.0, 12.0]], [[10.0, 12.0, 13.0]], seed=36, n_resamples=1000)
    assert interval.method == "percentile"
    assert any("only one fork" in w for w in interval.warnings)
    assert any("fell back" in w for w in interval.warnings)


def test_percentile_with_few_forks_warns_about_undercoverage(forks):
    interval = ci_mean(forks[:4], 0.95, 1000, seed=37, method="percentile")
    assert any("under-cover" in w for w in interval.warnings)


def test_unbounded_studentized_pivot_falls_back_to_t():
    interval = ci_mean([[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]], 0.99, 1000, seed=38)
    assert interval.method == "t"
    assert np.isfinite(interval.low) and np.isfinite(interval.high)
    assert any("unbounded" in w for w in interval.warnings)


def test_constant_data_gives_a_degenerate_interval_with_a_warning():
    interval = ci_mean([[5.0, 5.0], [5.0, 5.0]], seed=39)
    assert (interval.low, interval.point, interval.high) == (5.0, 5.0, 5.0)
    assert "constant data" in interval.warnings
    assert rciw([[5.0, 5.0], [5.0, 5.0]], seed=39) == 0.0
    ratio = ci_ratio_of_means([[5.0, 5.0]] * 3, [[10.0, 10.0]] * 3, seed=40)
    assert (ratio.low, ratio.point, ratio.high) == (2.0, 2.0, 2.0)


def test_few_resamples_warn_about_noisy_end_points(forks):
    assert any("end points are noisy" in w for w in ci_mean(forks, 0.99, 200, seed=41).warnings)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ci_mean([]), "no forks"),
        (lambda: ci_mean([[1.0, float("inf")]]), "fork 0, iteration 1"),
        (lambda: ci_mean([[1.0, 2.0]], confidence=1.0), "confidence"),
        (lambda: ci_mean([[1.0, 2.0]], method="basic"), "unknown interval method"),
        (lambda: ci_ratio_of_means([[-1.0, -2.0]], [[1.0, 2.0]]), "base: mean is"),
        (lambda: rciw([[-1.0, -2.0], [-1.0, -3.0]], seed=1), "positive mean"),
    ],
)
def test_bad_input_raises_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
