"""The verdict rule: classification table, band, noise floor, agreement with scipy, direction."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchwarden.compare.verdict import (
    NOISE_FLOOR_SDS,
    Verdict,
    classify,
    equivalence_band,
    judge,
    noise_floor,
    practical_threshold,
)

BAND = equivalence_band(0.02)


@pytest.mark.parametrize("low, high, p, expected", [
    (0.99, 1.01, 0.9, Verdict.UNCHANGED),            # wholly inside the band
    (BAND[0], BAND[1], 0.9, Verdict.UNCHANGED),      # edges belong to the band
    (1.05, 1.10, 0.01, Verdict.SLOWER),              # wholly above, rank test agrees
    (1.05, 1.10, 0.20, Verdict.INCONCLUSIVE),        # wholly above, rank test disagrees
    (0.90, 0.95, 0.01, Verdict.FASTER),
    (0.90, 0.95, 0.50, Verdict.INCONCLUSIVE),
    (1.01, 1.06, 0.01, Verdict.INCONCLUSIVE),        # excludes 1 but straddles the band edge
    (0.97, 1.03, 0.90, Verdict.INCONCLUSIVE),        # wider than the band
    (1.0201, 1.03, 0.049, Verdict.SLOWER),
])
def test_classification_table(low, high, p, expected):
    assert classify(low, high, p, BAND, 0.05) is expected


def test_band_is_symmetric_on_the_log_scale():
    low, high = equivalence_band(0.05)
    assert low * high == pytest.approx(1.0)
    # a 5 % throughput loss in ops/s is exactly the band's upper edge in ns/op
    assert 1 / low == pytest.approx(1.05)


def test_threshold_is_the_larger_of_minimum_and_noise_floor():
    assert practical_threshold(0.02, 0.01) == 0.02
    assert practical_threshold(0.02, 0.07) == 0.07


def test_noise_floor_matches_a_direct_computation_and_ignores_the_version_difference():
    base = [[100.0, 101.0], [104.0, 103.0], [98.0, 99.0]]
    cand = [[200.0, 202.0], [206.0, 208.0], [196.0, 194.0]]
    deviations = []
    for forks in (base, cand):
        means = [sum(f) / len(f) for f in forks]
        centre = sorted(means)[1]
        deviations += [abs(m / centre - 1) for m in means]
    expected = NOISE_FLOOR_SDS * 1.4826 * sorted(deviations)[2:4][0] / 2 + NOISE_FLOOR_SDS * 1.4826 * sorted(deviations)[2:4][1] / 2
    assert noise_floor(base, cand) == pytest.approx(expected)
    doubled = [[2 * v for v in f] for f in base]
    assert noise_floor(base, doubled) == pytest.approx(noise_floor(base, base))  # scale-free, within versions
    assert noise_floor([[1.0, 2.0]], [[3.0]]) == 0.0  # one fork per side: no fork-to-fork information


def test_noise_floor_is_robust_to_one_disturbed_fork():
    steady = [[100.0], [101.0], [99.0], [100.5]]
    disturbed = [[160.0], [101.0], [99.0], [100.5]]
    assert noise_floor(steady, steady) < 0.03
    assert noise_floor(disturbed, steady) < 0.04  # a plain SD would put it near 50 %


def test_judge_agrees_with_scipy_on_its_inputs():
    rng = np.random.default_rng(7)
    base = rng.normal(1000, 10, (5, 8))
    cand = rng.normal(1100, 10, (5, 8))
    j = judge(base, cand, 0.97, min_change=0.02, seed=1)
    assert j.ratio.point == pytest.approx(cand.mean(axis=1).mean() / base.mean(axis=1).mean())
    expected_p = stats.mannwhitneyu(base.mean(axis=1), cand.mean(axis=1), alternative="two-sided").pvalue
    assert j.rank_test.p_value == pytest.approx(expected_p)
    assert j.ratio.confidence == pytest.approx(0.97)
    assert j.verdict is Verdict.SLOWER and j.settled
    assert j.band == equivalence_band(j.threshold)


def test_noisy_benchmark_does_not_cry_wolf_for_a_change_inside_its_noise():
    # fork means vary by ~10 %: a 6 % slowdown is below the noise floor and must not be called slower
    rng = np.random.default_rng(11)
    verdicts = []
    for _ in range(40):
        base = 1000 * rng.lognormal(0, 0.10, (10, 1)) * rng.normal(1, 0.01, (10, 5))
        cand = 1060 * rng.lognormal(0, 0.10, (10, 1)) * rng.normal(1, 0.01, (10, 5))
        j = judge(base, cand, 0.986, min_change=0.02, method="t")
        assert j.noise_floor > 0.05 and j.threshold == j.noise_floor
        verdicts.append(j.verdict)
    assert Verdict.SLOWER not in verdicts
    # without the noise floor the same kind of data is flagged at times: the floor is what prevents it
    flagged = 0
    for _ in range(40):
        base = 1000 * rng.lognormal(0, 0.10, (10, 1)) * rng.normal(1, 0.01, (10, 5))
        cand = 1060 * rng.lognormal(0, 0.10, (10, 1)) * rng.normal(1, 0.01, (10, 5))
        flagged += judge(base, cand, 0.95, min_change=0.0, use_noise_floor=False, method="t").verdict.is_change
    assert flagged > 0


def test_constant_data():
    same = judge([[100.0] * 3] * 4, [[100.0] * 3] * 4, 0.97)
    assert same.verdict is Verdict.UNCHANGED and same.ratio.low == same.ratio.high == 1.0
    slower = judge([[100.0] * 3] * 4, [[110.0] * 3] * 4, 0.97)
    assert slower.verdict is Verdict.SLOWER  # 4 vs 4 fully separated: p = 0.029


def test_too_few_forks_cannot_be_called_slower_and_says_why():
    j = judge([[100.0, 101.0]] * 3, [[150.0, 151.0]] * 3, 0.97)
    assert j.verdict is Verdict.INCONCLUSIVE
    assert any("cannot reach p < 0.05" in w for w in j.warnings)
    assert any("rank test" in w for w in j.warnings)


def test_bad_input_raises_a_clear_error():
    with pytest.raises(ValueError, match="candidate"):
        judge([[1.0, 2.0]] * 4, [[1.0, float("nan")]] * 4, 0.95)
