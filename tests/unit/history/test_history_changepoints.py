"""Change points in one series: found where a step is, not where noise or disturbed runs are (seeded data)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scistats

from benchwarden.history.changepoints import (
    DetectionSettings,
    find_change_points,
    run_to_run_noise,
    run_values,
    step_test,
)


def series(levels, seed, run_sd=0.01, fork_sd=0.01, forks=5, outliers=(), base_ns=1000.0):
    """Per run: log fork summaries around ``log(base_ns) + level`` with run and fork noise."""
    rng = np.random.default_rng(seed)
    runs = []
    for i, level in enumerate(levels):
        shift = level + rng.normal(0, run_sd) + (math.log(1.6) if i in outliers else 0.0)
        runs.append(list(math.log(base_ns) + shift + rng.normal(0, fork_sd, forks)))
    return runs


def steps(n, at, ratios):
    level = np.zeros(n)
    for where, ratio in zip(at, ratios):
        level[where:] += math.log(ratio)
    return level


def test_a_step_is_found_at_its_run_with_its_size_in_the_interval():
    runs = series(steps(60, [30], [1.10]), seed=1)
    found = find_change_points(runs).found
    assert [c.index for c in found] == [30]
    c = found[0]
    assert c.ratio.low < 1.10 < c.ratio.high
    assert c.ratio.low > 1.05 and c.p_value < 1e-6 and c.significant
    assert c.runs_before == 30 and c.runs_after == 30


def test_a_speed_up_and_two_steps_are_found():
    runs = series(steps(90, [30, 60], [0.90, 1.08]), seed=2)
    found = find_change_points(runs).found
    assert [c.index for c in found] == [30, 60]
    assert found[0].ratio.high < 1 < found[1].ratio.low


def test_noise_alone_gives_no_change_point_in_fifty_series():
    found = [c for seed in range(50) for c in find_change_points(series(np.zeros(100), seed=seed)).found]
    assert found == []


def test_disturbed_runs_alone_are_no_change_points():
    runs = series(np.zeros(80), seed=3, outliers={10, 40, 41, 70})
    detection = find_change_points(runs)
    assert detection.found == ()


def test_a_step_next_to_disturbed_runs_keeps_its_place():
    runs = series(steps(80, [40], [1.05]), seed=4, outliers={36, 37})
    assert [c.index for c in find_change_points(runs).found] == [40]


def test_a_significant_step_within_the_run_to_run_noise_is_not_reported():
    # 0.7 % against a run-to-run noise of 1.1 %: 200 runs a side make it significant, but it is within the noise
    runs = series(steps(400, [200], [1.007]), seed=5)
    loose = DetectionSettings(min_step=0.0, window=200)
    strict = DetectionSettings(window=200)
    assert any(abs(c.index - 200) <= 25 for c in find_change_points(runs, loose).found)  # hard to place
    detection = find_change_points(runs, strict)
    assert detection.found == ()
    assert any("within the run-to-run noise" in c.reason for c in detection.rejected)


def test_the_p_value_is_students_two_sample_t_test():
    rng = np.random.default_rng(6)
    before, after = rng.normal(0, 0.01, 12), rng.normal(0.02, 0.01, 9)
    result = step_test(before, after, 12, 0.01, DetectionSettings())
    reference = scistats.ttest_ind(after, before, equal_var=True)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    low, high = (math.log(v) for v in (result.ratio.low, result.ratio.high))
    half = scistats.t.ppf(1 - 0.001 / 2, 19) * math.sqrt(
        (11 * before.var(ddof=1) + 8 * after.var(ddof=1)) / 19 * (1 / 12 + 1 / 9))
    assert (low, high) == pytest.approx((after.mean() - before.mean() - half, after.mean() - before.mean() + half))


def test_one_run_on_a_side_is_tested_against_the_other_sides_spread():
    result = step_test(np.array([0.0, 0.01, -0.01, 0.005]), np.array([0.5]), 4, 0.01, DetectionSettings())
    assert result.runs_after == 1 and math.isfinite(result.p_value) and result.p_value < 0.001


def test_run_values_leave_an_outlying_fork_out():
    values = run_values([[1.0, 1.01, 0.99, 1.0, 1.005, 3.0], [1.0, 1.0]])
    assert values.values[0] == pytest.approx(1.001)
    assert values.dropped_forks.tolist() == [1, 0]
    assert values.forks.tolist() == [5, 2]


def test_noise_is_robust_to_a_step_and_to_an_outlier():
    rng = np.random.default_rng(7)
    x = rng.normal(0, 0.02, 200)
    x[100:] += 0.3
    x[50] += 2.0
    assert run_to_run_noise(x) == pytest.approx(0.02, rel=0.15)


def test_too_few_runs_say_so_and_find_nothing():
    detection = find_change_points([[1.0], [2.0], [2.0]])
    assert detection.found == () and "at least 4 are needed" in detection.warnings[0]


@pytest.mark.parametrize("runs", [[[]], [[1.0, math.nan]], [[math.inf]]])
def test_invalid_runs_are_refused(runs):
    with pytest.raises(ValueError, match="run 0"):
        find_change_points(runs)


def test_the_same_series_gives_the_same_answer():
    runs = series(steps(70, [35], [1.04]), seed=8)
    assert find_change_points(runs).found == find_change_points(runs).found


def test_two_disturbed_runs_among_the_last_three_are_no_change_point():
    runs = series(np.zeros(40), seed=2, outliers={37, 39})
    assert find_change_points(runs).found == ()


@pytest.mark.parametrize("n, at", [(4, 2), (6, 3), (7, 3), (8, 4)])
def test_a_large_step_in_a_short_series_is_found(n, at):
    runs = series(steps(n, [at], [2.5]), seed=10)
    assert [c.index for c in find_change_points(runs).found] == [at]


def test_a_first_run_above_the_new_level_does_not_move_the_change_a_commit_late():
    # A loaded e2e history (CPU time per op): the slow tokenizer switched on at commit 6, whose first two runs
    # sat 20-30 % above the new level. Refinement once moved PELT's correct cut to 7 for a sliver of capped
    # cost, and the test of the misplaced cut (p = 0.003) rejected the change.
    levels = [22561, 31016, 22081, 22433, 22297, 22552, 65990, 70235, 53264, 55787, 53644, 54252]
    runs = [[math.log(v * (1 + 0.01 * j)) for j in range(2)] for v in levels]
    [change] = find_change_points(runs).found
    assert change.index == 6 and 2.2 < change.ratio.point < 2.8


def test_steady_runs_never_move_a_clean_step_onto_the_wrong_level_seeded():
    # With steady runs σ is estimated small, so a misplaced run cost refinement one small cap, less than the
    # ordinary deviations a move saved elsewhere: a clean 2.5x step at run 6 of 12 was placed at 7 in ~1 % of
    # series (3 fork summaries per run, fork sd 0.5-2 %). A cut now never moves a run to the level it is further
    # from. Same series: the step, the largest change, must be at run 6 in every one.
    rng = np.random.default_rng(0)
    misplaced = []
    for sd in (0.005, 0.02):
        for _ in range(300):
            levels = np.r_[np.zeros(6), np.full(6, math.log(2.5))]
            runs = [list(level + rng.normal(0, sd, 3)) for level in levels]
            found = find_change_points(runs).found
            largest = max(found, key=lambda c: c.ratio.point, default=None)
            if largest is None or largest.index != 6:
                misplaced.append((sd, [(c.index, round(c.ratio.point, 2)) for c in found]))
    assert misplaced == []  # (a spurious small change point elsewhere is another matter: the A/A tests above)


def test_a_run_disturbed_next_to_the_step_stays_on_its_own_level_seeded():
    # The loaded e2e history's failure mode: one to three runs next to the step measured up to 1.4x slower (a
    # neighbour slowing the whole machine), on either side. The step must stay the largest change, at run 6.
    rng = np.random.default_rng(1)
    wrong = []
    for _ in range(400):
        levels = np.r_[np.zeros(6), np.full(6, math.log(2.5))]
        first, length = int(rng.integers(3, 9)), int(rng.integers(1, 4))
        levels[first:first + length] += rng.uniform(0.05, math.log(1.4))
        found = find_change_points([list(level + rng.normal(0, 0.02, 3)) for level in levels]).found
        largest = max(found, key=lambda c: c.ratio.point, default=None)
        if largest is None or largest.index != 6:
            wrong.append((first, length, [(c.index, round(c.ratio.point, 2)) for c in found]))
    assert len(wrong) <= 2, wrong  # ≤ 0.5 %: where a disturbance and the step's own noise leave p > 0.001
