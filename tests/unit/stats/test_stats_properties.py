"""Property-based tests (hypothesis): scale invariance, (X, X) ratio contains 1, no crash on degenerate input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from benchwarden import stats as bw

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

values = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)
forks_strategy = st.lists(st.lists(values, min_size=1, max_size=8), min_size=1, max_size=6)
scales = st.floats(min_value=1e-6, max_value=1e6)


@SETTINGS
@given(forks_strategy, scales)
def test_relative_measures_are_scale_invariant(forks, scale):
    scaled = [[v * scale for v in fork] for fork in forks]
    flat = [v for fork in forks for v in fork]
    if len(flat) > 1:
        assert bw.cv(scaled) == pytest.approx(bw.cv(forks), rel=1e-6, abs=1e-12)
    assert bw.relative_mad(scaled) == pytest.approx(bw.relative_mad(forks), rel=1e-6, abs=1e-12)
    assert bw.relative_change(forks, scaled).ratio == pytest.approx(scale, rel=1e-9)
    if len(forks) > 1:
        means = bw.fork_means(forks)
        assert bw.max_spread(means * scale) == pytest.approx(bw.max_spread(means), rel=1e-6, abs=1e-12)
    assert bw.rciw(scaled, n_resamples=200, seed=1) == pytest.approx(
        bw.rciw(forks, n_resamples=200, seed=1), rel=1e-6, abs=1e-9
    )


@SETTINGS
@given(forks_strategy, forks_strategy, scales)
def test_ratio_interval_is_unchanged_by_a_common_scale(base, cand, scale):
    first = bw.ci_ratio_of_means(base, cand, n_resamples=200, seed=2)
    scaled = bw.ci_ratio_of_means(
        [[v * scale for v in f] for f in base], [[v * scale for v in f] for f in cand], n_resamples=200, seed=2
    )
    # Compared on the log scale, where the intervals are built (end points may be astronomically wide).
    with np.errstate(divide="ignore"):
        assert np.log([scaled.low, scaled.point, scaled.high]) == pytest.approx(
            np.log([first.low, first.point, first.high]), rel=1e-6, abs=1e-6
        )


@SETTINGS
@given(forks_strategy, st.sampled_from(bw.METHODS))
def test_ratio_interval_of_a_version_with_itself_contains_one(forks, method):
    interval = bw.ci_ratio_of_means(forks, forks, n_resamples=2000, seed=3, method=method)
    assert interval.low <= 1.0 + 1e-12 and interval.high >= 1.0 - 1e-12
    assert interval.point == pytest.approx(1.0)


@SETTINGS
@given(forks_strategy, scales)
def test_kld_similarity_is_a_probability_and_scale_invariant(forks, scale):
    flat = [v for fork in forks for v in fork]
    p = bw.kld_similarity(flat, flat[::-1] + flat[:1])
    assert 0.0 <= p <= 1.0
    scaled = [v * scale for v in flat]
    assert bw.kld_similarity(scaled, scaled[::-1] + scaled[:1]) == pytest.approx(p, rel=1e-6, abs=1e-9)


@SETTINGS
@given(
    st.floats(min_value=1e-3, max_value=1e6),
    st.integers(min_value=1, max_value=5),
    st.integers(min_value=1, max_value=5),
    st.sampled_from(bw.METHODS),
)
def test_constant_data_of_any_shape_gives_a_defined_result(value, n_forks, n_iterations, method):
    data = [[value] * n_iterations for _ in range(n_forks)]
    interval = bw.ci_mean(data, n_resamples=100, seed=4, method=method)
    assert interval.low == pytest.approx(value) and interval.high == pytest.approx(value)
    assert bw.rciw(data, n_resamples=100, seed=4) == pytest.approx(0.0, abs=1e-12)
    ratio = bw.ci_ratio_of_means(data, data, n_resamples=100, seed=4, method=method)
    assert ratio.low == pytest.approx(1.0) and ratio.high == pytest.approx(1.0)
    assert bw.kld_similarity(data, data) == 1.0
    assert bw.mann_whitney(data, data).p_value == 1.0
    assert bw.welch(data, data).p_value == 1.0
    assert bw.cliffs_delta(data, data) == 0.0
    assert not bw.outliers_zscore([value] * n_iterations).any()


@SETTINGS
@given(forks_strategy, forks_strategy, st.sampled_from(bw.METHODS))
def test_single_fork_or_single_iteration_input_never_crashes(base, cand, method):
    for b, c in ((base[:1], cand[:1]), ([f[:1] for f in base], [f[:1] for f in cand])):
        interval = bw.ci_ratio_of_means(b, c, n_resamples=100, seed=5, method=method)
        assert interval.low <= interval.point * (1 + 1e-9) and interval.high >= interval.point * (1 - 1e-9)
        assert not math.isnan(interval.low) and not math.isnan(interval.high)
        for test in (bw.mann_whitney, bw.welch):
            result = test(b, c)
            assert 0.0 <= result.p_value <= 1.0
        if len(b) == 1 or len(c) == 1:
            assert interval.warnings


@SETTINGS
@given(forks_strategy, st.integers(min_value=0, max_value=7), st.sampled_from([math.nan, math.inf, -math.inf]))
def test_non_finite_values_raise_a_value_error_naming_the_position(forks, position, bad):
    fork_index = position % len(forks)
    iteration = position % len(forks[fork_index])
    broken = [list(f) for f in forks]
    broken[fork_index][iteration] = bad
    expected = f"fork {fork_index}, iteration {iteration}"
    calls = [
        lambda: bw.ci_mean(broken, n_resamples=50, seed=6),
        lambda: bw.ci_ratio_of_means(forks, broken, n_resamples=50, seed=6),
        lambda: bw.mann_whitney(broken, forks),
        lambda: bw.welch(forks, broken),
        lambda: bw.cv(broken),
        lambda: bw.kld_similarity(broken, forks),
        lambda: bw.cliffs_delta(broken, forks),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=expected):
            call()


@SETTINGS
@given(st.lists(values, min_size=2, max_size=30), st.lists(values, min_size=2, max_size=30))
def test_rank_effect_sizes_are_consistent_with_mann_whitney_u(a, b):
    u = bw.mann_whitney(a, b, on="all")
    assume(not u.warnings or "all values are equal" not in u.warnings[-1])
    assert bw.vargha_delaney_a(a, b) == pytest.approx(u.statistic / (len(a) * len(b)))
    assert -1.0 <= bw.cliffs_delta(a, b) <= 1.0


def test_empty_input_raises_everywhere():
    for call in (
        lambda: bw.ci_mean([]),
        lambda: bw.rciw([[]]),
        lambda: bw.cv([]),
        lambda: bw.mann_whitney([], [1.0]),
        lambda: bw.variance_components([]),
        lambda: bw.outliers_iqr([]),
        lambda: bw.hierarchical_bootstrap_means(np.empty((0, 3))),
    ):
        with pytest.raises(ValueError):
            call()
