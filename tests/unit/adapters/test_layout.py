"""The per-fork layout padding (benchwarden.adapters.layout): sizes spread over a page, fork k the same in
both versions, a suite's own value kept."""

from __future__ import annotations

import numpy as np
import pytest

from benchwarden.adapters import layout


def test_sizes_are_aligned_and_within_a_page():
    sizes = np.array([layout.padding_bytes(k) for k in range(1, 1001)])
    assert sizes.min() >= 0 and sizes.max() < layout.SPAN_BYTES
    assert not np.any(sizes % layout.STEP_BYTES)


@pytest.mark.parametrize("n", [4, 8, 16, 40])
def test_the_first_n_forks_spread_evenly_over_the_page(n):
    """Low discrepancy: the first n forks' sizes leave no gap wider than 3 page/n (the three-gap theorem gives
    at most φ+1 ≈ 2.62 times the even gap for the golden ratio; one 16-byte step of rounding is allowed), and
    no two forks share a size (a repeated size would sample the same layout twice)."""
    sizes = np.sort([layout.padding_bytes(k) for k in range(1, n + 1)])
    assert len(set(sizes.tolist())) == n
    gaps = np.diff(np.concatenate([sizes, [sizes[0] + layout.SPAN_BYTES]]))
    assert gaps.max() <= 2.62 * layout.SPAN_BYTES / n + layout.STEP_BYTES


def test_fork_k_gets_the_same_padding_in_both_versions_and_other_forks_another():
    base = layout.with_padding({"A": "1"}, 3)
    candidate = layout.with_padding({"A": "1", "SLOW": "1"}, 3)
    assert base[layout.PADDING_VARIABLE] == candidate[layout.PADDING_VARIABLE]
    assert base[layout.PADDING_VARIABLE] != layout.with_padding({}, 4)[layout.PADDING_VARIABLE]
    assert base["A"] == "1" and len(base) == 2


def test_a_suite_that_sets_the_variable_fixes_the_layout():
    env = {layout.PADDING_VARIABLE: "fixed"}
    assert layout.with_padding(env, 1) == layout.with_padding(env, 2) == env
