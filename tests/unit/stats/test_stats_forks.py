"""Fork-structured input: accepted shapes and precise errors."""

from __future__ import annotations

import numpy as np
import pytest

from benchwarden.stats import as_forks, fork_means, grand_mean


def test_accepts_2d_arrays_ragged_sequences_and_flat_sequences():
    assert [f.tolist() for f in as_forks(np.array([[1.0, 2.0], [3.0, 4.0]]))] == [[1.0, 2.0], [3.0, 4.0]]
    assert [f.tolist() for f in as_forks([[1, 2, 3], [4]])] == [[1.0, 2.0, 3.0], [4.0]]
    assert [f.tolist() for f in as_forks([1.0, 2.0])] == [[1.0, 2.0]]  # flat = one fork
    assert [f.tolist() for f in as_forks(np.array([5.0]))] == [[5.0]]
    assert [f.tolist() for f in as_forks([np.array([1.0]), (2.0, 3.0)])] == [[1.0], [2.0, 3.0]]


def test_returns_copies():
    data = np.array([[1.0, 2.0]])
    forks = as_forks(data)
    forks[0][0] = 99.0
    assert data[0, 0] == 1.0


def test_grand_mean_weights_forks_equally():
    data = [[10.0], [20.0, 20.0, 20.0]]
    np.testing.assert_array_equal(fork_means(data), [10.0, 20.0])
    assert grand_mean(data) == 15.0  # not the pooled mean 17.5


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "base: no forks"),
        ([[1.0], []], "base: fork 1 has no iterations"),
        ([[1.0, float("nan")]], r"base: fork 0, iteration 1: value nan is not finite"),
        ([[1.0], [2.0, float("-inf")]], r"fork 1, iteration 1"),
        ([[1.0, "x"]], "fork 0 contains a value that is not a number"),
        ([[[1.0]]], "fork 0 must be a flat sequence"),
        (np.zeros((2, 2, 2)), "1-D or 2-D"),
        ("12", "string"),
        (5.0, "expected a sequence of forks"),
    ],
)
def test_bad_input_names_what_and_where(data, message):
    with pytest.raises(ValueError, match=message):
        as_forks(data, "base")
