"""Stability criteria: values against the statistics package and numpy, stability functions, the memoised window."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchwarden import stats
from benchwarden.config import CRITERION_DEFAULTS
from benchwarden.runner.criteria import (
    CvCriterion,
    KldCriterion,
    RciwCriterion,
    StabilityKind,
    WindowTrack,
    is_stable,
    make_criterion,
)


def test_cv_is_the_sample_cv_of_all_values_pooled():
    forks = [np.array([10.0, 12.0, 11.0]), np.array([20.0, 19.0])]
    pooled = np.concatenate(forks)
    assert CvCriterion().value(None, forks) == pytest.approx(pooled.std(ddof=1) / pooled.mean())
    assert CvCriterion().value(None, [np.array([5.0])]) is None  # one value has no spread
    assert CvCriterion().value(None, [np.full(7, 3.0)]) == 0.0


def test_rciw_is_the_relative_width_of_the_percentile_interval_with_a_fixed_seed():
    rng = np.random.default_rng(1)
    forks = [rng.normal(100, 3, 10), rng.normal(103, 3, 10)]
    crit = RciwCriterion(confidence=0.99, resamples=1000)
    expected = stats.rciw(forks, confidence=0.99, n_resamples=1000, seed=0)
    assert crit.value(None, forks) == pytest.approx(expected)
    assert crit.value(None, forks) == crit.value(None, forks)  # deterministic: replay reproduces live values
    interval = stats.ci_mean(forks, 0.99, 1000, 0, "percentile")
    assert expected == pytest.approx((interval.high - interval.low) / interval.point)
    assert crit.value(None, [np.array([4.0])]) is None
    assert crit.value(None, [np.full(6, 4.0)]) == 0.0


def test_kld_compares_the_snapshot_with_the_previous_one():
    rng = np.random.default_rng(2)
    before = rng.normal(100, 2, 20)
    after = np.append(before, 140.0)
    crit = KldCriterion()
    assert crit.value(None, [before]) is None
    assert crit.value([before], [after]) == pytest.approx(stats.kld_similarity(before, after))
    assert crit.value([np.full(5, 7.0)], [np.full(6, 7.0)]) == 1.0  # degenerate range: p = 1 (reference code)


def test_stability_functions_direction_and_boundaries():
    # variance type: spread <= t is stable (the paper's <=, so t = 0 accepts a constant window)
    assert is_stable(StabilityKind.VARIANCE, np.array([0.10, 0.11, 0.105]), 0.01) == (pytest.approx(0.01), True)
    assert is_stable(StabilityKind.VARIANCE, np.array([0.10, 0.1101]), 0.01)[1] is False
    assert is_stable(StabilityKind.VARIANCE, np.array([0.2, 0.2]), 0.0)[1] is True
    # probability type: mean >= t is stable
    assert is_stable(StabilityKind.PROBABILITY, np.array([1.0, 0.98]), 0.99) == (pytest.approx(0.99), True)
    assert is_stable(StabilityKind.PROBABILITY, np.array([1.0, 0.97]), 0.99)[1] is False


def test_window_completes_after_window_values_and_judges_the_last_ones():
    track = WindowTrack(CvCriterion(), window=3, threshold=0.05, level="warmup")
    data = [100.0, 101.0, 100.5, 100.2, 100.4]
    states = [track.update(data[:n]) for n in range(1, len(data) + 1)]
    # values exist from the 2nd iteration on; 3 values complete the window at iteration 4
    assert [s.values_available for s in states] == [0, 1, 2, 3, 3]
    assert [s.stable for s in states[:3]] == [None, None, None]
    cvs = [np.std(data[:n], ddof=1) / np.mean(data[:n]) for n in range(2, 6)]
    assert states[3].statistic == pytest.approx(max(cvs[:3]) - min(cvs[:3]))
    assert states[4].statistic == pytest.approx(max(cvs[1:]) - min(cvs[1:]))
    assert states[4].latest == pytest.approx(cvs[-1])
    assert states[4].stable is True and "spread" in states[4].describe()


def test_each_checkpoint_costs_one_criterion_evaluation_not_one_per_history_element():
    track = WindowTrack(CvCriterion(), window=5, threshold=0.01, level="warmup")
    data = list(np.linspace(100, 110, 50))
    for n in range(1, 51):
        track.update(data[:n])
    assert track.evaluations == 50
    # asked first at iteration 5 (warmup.min), then every iteration: still one evaluation per snapshot
    late = WindowTrack(CvCriterion(), window=5, threshold=0.01, level="warmup")
    for n in range(5, 51):
        late.update(data[:n])
    assert late.evaluations == 50


def test_a_new_fork_restarts_the_window_and_gives_the_same_values_as_a_fresh_track():
    fork1 = [200.0, 150.0, 120.0, 101.0, 100.0, 100.5, 100.2]
    fork2 = [100.0, 100.1, 100.0, 99.9, 100.0, 100.1]
    shared = WindowTrack(CvCriterion(), window=3, threshold=0.01, level="warmup")
    for n in range(1, len(fork1) + 1):
        shared.update(fork1[:n])
    fresh = WindowTrack(CvCriterion(), window=3, threshold=0.01, level="warmup")
    for n in range(1, len(fork2) + 1):
        assert shared.update(fork2[:n]) == fresh.update(fork2[:n])


def test_fork_level_snapshots_are_the_first_x_forks():
    forks = [[10.0, 11.0], [12.0, 13.0], [30.0, 31.0]]
    track = WindowTrack(CvCriterion(), window=2, threshold=0.01, level="fork")
    state = track.update(forks)
    first_two = np.array([10.0, 11.0, 12.0, 13.0])
    everything = np.array(sum(forks, []))
    expected = abs(everything.std(ddof=1) / everything.mean() - first_two.std(ddof=1) / first_two.mean())
    assert state.statistic == pytest.approx(expected) and state.stable is False


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(1.0, 1e6), min_size=2, max_size=30), st.sampled_from(["cv", "kld"]))
def test_memoised_values_equal_values_computed_from_scratch(values, name):
    crit = make_criterion(CRITERION_DEFAULTS[name])
    track = WindowTrack(crit, window=3, threshold=CRITERION_DEFAULTS[name].threshold, level="warmup")
    for n in range(1, len(values) + 1):
        state = track.update(values[:n])
    scratch = WindowTrack(crit, window=3, threshold=CRITERION_DEFAULTS[name].threshold, level="warmup")
    assert scratch.update(values) == state


def test_unknown_criterion_and_level_are_rejected():
    from dataclasses import replace

    with pytest.raises(ValueError, match="unknown stability criterion"):
        make_criterion(replace(CRITERION_DEFAULTS["cv"], name="mean"))
    with pytest.raises(ValueError, match="level"):
        WindowTrack(CvCriterion(), 5, 0.01, "run")
