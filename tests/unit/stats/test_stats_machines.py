"""The machine level above forks: ANOVA variance components and F test, checked against references and by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from benchwarden.stats import machine_spread, variance_components


def test_a_hand_computed_unbalanced_case():
    # machine a: 1.00, 1.02, 0.98 ; machine b: 1.10, 1.12 (log scale computed below, by definition)
    values = [1.00, 1.02, 0.98, 1.10, 1.12]
    machines = ["a", "a", "a", "b", "b"]
    got = machine_spread(values, machines)
    logs = np.log(values)
    a, b = logs[:3], logs[3:]
    grand = logs.mean()
    msb = 3 * (a.mean() - grand) ** 2 + 2 * (b.mean() - grand) ** 2  # k - 1 = 1
    msw = (((a - a.mean()) ** 2).sum() + ((b - b.mean()) ** 2).sum()) / 3  # N - k = 3
    n0 = 5 - (9 + 4) / 5  # (N − Σn²/N)/(k − 1)
    assert got.between == pytest.approx(math.sqrt((msb - msw) / n0), rel=1e-12)
    assert got.within == pytest.approx(math.sqrt(msw), rel=1e-12)
    assert got.p_value == pytest.approx(sps.f.sf(msb / msw, 1, 3), rel=1e-9)  # the F distribution's own tail
    assert got.machines == ("a", "b") and got.counts == (3, 2)
    assert got.centers == pytest.approx((math.exp(a.mean()), math.exp(b.mean())))
    assert got.differ(0.05) and not got.warnings


def test_balanced_it_equals_the_fork_level_variance_components_one_level_up():
    rng = np.random.default_rng(7)
    groups = [np.exp(rng.normal(m, 0.02, 6)) for m in (0.0, 0.03, -0.01, 0.05)]
    got = machine_spread(np.concatenate(groups), [str(i) for i, g in enumerate(groups) for _ in g])
    reference = variance_components([np.log(g) for g in groups])  # machines as "forks", values as "iterations"
    assert got.between ** 2 == pytest.approx(reference.between_variance, rel=1e-9)
    assert got.within ** 2 == pytest.approx(reference.within_variance, rel=1e-9)


def test_machines_that_do_not_differ_are_flagged_at_the_nominal_rate_seeded():
    rng = np.random.default_rng(2026)
    machines = ["w1"] * 5 + ["w2"] * 4 + ["w3"] * 6
    rejections = 0
    estimates = []
    for _ in range(2000):
        values = np.exp(rng.normal(0, 0.04, len(machines)))
        got = machine_spread(values, machines)
        rejections += got.differ(0.05)
        estimates.append(got.within)
    assert 0.035 <= rejections / 2000 <= 0.065  # the F test is exact under the model: 5 % ± 3 SD
    assert np.median(estimates) == pytest.approx(0.04, rel=0.05)


@pytest.mark.parametrize("sigma_b", [0.02, 0.05])
def test_the_machine_variance_is_estimated_without_bias_and_detected_seeded(sigma_b):
    rng = np.random.default_rng(int(sigma_b * 1000))
    machines = [f"w{m}" for m in range(6) for _ in range(3 + m % 2)]  # unbalanced: 3 or 4 forks per machine
    labels = list(dict.fromkeys(machines))
    squares, detected = [], 0
    for _ in range(1500):
        level = dict(zip(labels, rng.normal(0, sigma_b, len(labels))))
        values = np.exp([level[m] + rng.normal(0, 0.02) for m in machines])
        got = machine_spread(values, machines)
        squares.append(got.between ** 2)
        detected += got.differ(0.05)
    # the ANOVA estimator is unbiased before its clipping at 0, which adds a little upward bias
    assert np.mean(squares) == pytest.approx(sigma_b ** 2, rel=0.15)
    assert detected / 1500 > (0.5 if sigma_b == 0.02 else 0.95)


def test_heavy_tailed_forks_do_not_make_machines_differ_more_than_nominal_seeded():
    rng = np.random.default_rng(11)
    machines = ["a"] * 8 + ["b"] * 8
    rejections = sum(machine_spread(np.exp(0.02 * rng.standard_t(3, 16)), machines).differ(0.05)
                     for _ in range(1500))
    assert rejections / 1500 <= 0.07  # the F test is robust enough to t3 tails at equal sizes


def test_one_value_per_machine_and_identical_values_are_said_not_hidden():
    one = machine_spread([1.0, 1.1], ["a", "b"])
    assert math.isnan(one.p_value) and one.within == 0 and not one.differ(0.05)
    assert one.between == pytest.approx(np.std(np.log([1.0, 1.1]), ddof=1)) and "cannot be tested" in one.warnings[0]
    flat = machine_spread([2.0, 2.0, 3.0, 3.0], ["a", "a", "b", "b"])
    assert flat.p_value == 0.0 and flat.differ(0.05) and "degenerate" in flat.warnings[0]
    assert flat.to_json()["machines"] == [{"machine": "a", "count": 2, "center": pytest.approx(2.0)},
                                          {"machine": "b", "count": 2, "center": pytest.approx(3.0)}]


@pytest.mark.parametrize("values, machines, message", [
    ([1.0, 2.0], ["a"], "2 value"),
    ([1.0, 2.0], ["a", "a"], "at least 2 machines"),
    ([1.0, -2.0], ["a", "b"], "positive"),
    ([1.0, float("nan")], ["a", "b"], "positive"),
])
def test_bad_input_is_a_value_error_that_says_what(values, machines, message):
    with pytest.raises(ValueError, match=message):
        machine_spread(values, machines)
