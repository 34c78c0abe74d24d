"""Outlier masks: tenfold-median, IQR fences, Z-score."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchwarden.stats import outliers_iqr, outliers_tenfold_median, outliers_zscore


def test_tenfold_median_flags_both_directions():
    values = [100.0, 110.0, 90.0, 1500.0, 5.0, 1000.0]
    np.testing.assert_array_equal(outliers_tenfold_median(values), [False, False, False, True, True, False])


def test_iqr_fences_match_numpy_percentiles():
    values = np.random.default_rng(81).standard_t(3, 500)
    q1, q3 = np.percentile(values, [25, 75])
    expected = (values < q1 - 1.5 * (q3 - q1)) | (values > q3 + 1.5 * (q3 - q1))
    np.testing.assert_array_equal(outliers_iqr(values), expected)
    assert expected.any()


def test_zscore_matches_scipy_with_ddof_1():
    values = np.concatenate([np.random.default_rng(82).normal(0, 1, 200), [9.0, -8.0]])
    expected = np.abs(stats.zscore(values, ddof=1)) > 3.29
    np.testing.assert_array_equal(outliers_zscore(values), expected)
    assert expected[-2:].all()


def test_zscore_cannot_fire_on_twelve_values():
    assert not outliers_zscore([0.0] * 11 + [1e9]).any()  # max |Z| = 11/sqrt(12) < 3.29
    assert outliers_zscore([0.0] * 12 + [1e9])[-1]


def test_degenerate_input_has_no_outliers_and_input_is_not_modified():
    values = np.array([3.0, 3.0, 3.0])
    for rule in (outliers_tenfold_median, outliers_iqr, outliers_zscore):
        assert not rule(values).any()
    assert not outliers_zscore([4.0]).any()
    np.testing.assert_array_equal(values, [3.0, 3.0, 3.0])


def test_bad_input_raises_a_clear_value_error():
    with pytest.raises(ValueError, match="positive median"):
        outliers_tenfold_median([-1.0, -2.0, -3.0])
    with pytest.raises(ValueError, match="iteration 1"):
        outliers_iqr([1.0, float("nan")])
    with pytest.raises(ValueError, match="threshold"):
        outliers_zscore([1.0, 2.0], threshold=0)
