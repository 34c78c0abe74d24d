"""The ``level`` and ``precision`` criteria: what the issue asked of them, on seeded series with a known truth.

* a level that keeps moving (drift, random walk) never ends warmup and reaches the bound with a warning;
* a step after a flat stretch is invisible to any online check; the scout fork finds it and holds the
  other forks' warmup back until after it;
* a measurement taken while the level still moves is measured again;
* fork means that trend are not "stable";
* precision scales with the benchmark's own fork-to-fork noise, and forks that agree by chance while their
  iterations scatter widely are not precise.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats as sps

from benchwarden.config import CRITERION_DEFAULTS
from benchwarden.replay import ReplayConfig, simulate
from benchwarden.runner.criteria.level import LevelCriterion, settled_from
from benchwarden.runner.criteria.precision import PrecisionCriterion, relative_half_width, within_fork_variance
from benchwarden.runner.dynamic import DynamicPolicy
from benchwarden.runner.policy import Bounds

LEVEL, PRECISION = CRITERION_DEFAULTS["level"], CRITERION_DEFAULTS["precision"]
NO_SCOUT = replace(LEVEL, scout=False)
BOUNDS = Bounds(5, 50, 10, 2, 5)


def flat(rng, n=100, sigma=0.02, level=1000.0):
    return level * rng.lognormal(0.0, sigma, n)


def test_flat_noise_ends_warmup_once_both_windows_are_seen():
    rng = np.random.default_rng(0)
    ends = [simulate([flat(rng) for _ in range(2)], ReplayConfig((NO_SCOUT,), BOUNDS)).warmup_iterations
            for _ in range(40)]
    warmups = np.array(ends).ravel()
    assert warmups.min() >= 10  # the window of 5 and the 5 before it
    assert np.median(warmups) <= 13  # usually right away


@pytest.mark.parametrize(("shape", "bound"), [("drift", 0.05), ("walk", 0.2)])
def test_a_level_that_keeps_moving_is_rarely_called_stable(shape, bound):
    # a random walk whose step is the noise's σ resembles, over the scout's 60 iterations, a steady level with
    # strong memory (AR(1), φ ≈ 0.6–0.8) — what real JMH series show; telling them apart is the scout's limit
    # (docs/dynamic.md, "Memory is not movement"): ~14 % of such forks pass, against 0 % of a drift
    rng = np.random.default_rng(1)
    stable = {"level": [], "cv": []}
    for _ in range(30):
        if shape == "drift":
            series = [flat(rng) * (1 + 0.005 * np.arange(100)) for _ in range(5)]  # the issue's +0.5 %/iteration
        else:
            series = [flat(rng) * np.exp(np.cumsum(rng.normal(0, 0.02, 100))) for _ in range(5)]
        for name, criteria in (("level", (LEVEL, PRECISION)), ("cv", (CRITERION_DEFAULTS["cv"],))):
            stable[name] += list(simulate(series, ReplayConfig(criteria, BOUNDS)).warmup_stable)
    assert np.mean(stable["level"]) <= bound
    assert np.mean(stable["cv"]) >= 0.8  # what the issue found: the spread settles, the level does not


def memory(rng, phi=0.6, sigma=0.02, n=100, level=1000.0):
    """A steady level whose log noise is a stationary AR(1): serially correlated, never moving."""
    x = np.empty(n)
    x[0] = rng.normal()
    for t in range(1, n):
        x[t] = phi * x[t - 1] + math.sqrt(1 - phi * phi) * rng.normal()
    return level * np.exp(sigma * x)


def test_a_steady_level_with_memory_settles_once_the_scout_has_learned_it():
    # issue 13 on OpenJDK JMH's jmh-core-benchmarks: iterations with lag-1 autocorrelation ~0.6 are steady, but
    # against independence the level's tests reject half their windows and the scout almost never settled
    rng = np.random.default_rng(6)
    scouted, blind = [], []
    learned = []
    for _ in range(30):
        series = [memory(rng) for _ in range(5)]
        sim = simulate(series, ReplayConfig((LEVEL, PRECISION), BOUNDS))
        scouted += list(sim.warmup_stable[1:])  # the scout itself runs the bound by design
        blind += list(simulate(series, ReplayConfig((NO_SCOUT, PRECISION), BOUNDS)).warmup_stable)
        criterion = LevelCriterion(alpha=0.1, scout=True)
        if criterion.learn(1, list(series[0][:50]), list(series[0][50:60])):
            learned.append(criterion.phi)
    assert np.mean(scouted) >= 0.6  # measured 0.71
    assert np.mean(blind) <= 0.4  # without a scout nothing learns the memory: independence is assumed (0.25)
    assert len(learned) >= 20 and 0.3 <= np.median(learned) <= 0.8  # φ learned (22 of 30; true 0.6)


def test_the_learned_memory_cannot_hide_a_step_in_later_forks():
    rng = np.random.default_rng(7)
    criterion = LevelCriterion(alpha=0.1, scout=True)
    criterion.learned, criterion.phi, criterion.scouted = 20, 0.7, True  # what a scout of this series may learn
    seen, passed = [], []
    for _ in range(200):
        late = memory(rng, phi=0.7, n=30) * np.where(np.arange(30) < 20, 1.0, 1.15)  # 15 % slower for the last 10
        seen.append(not criterion.measurement(list(late[:20]), list(late[20:])).stable)
        steady = memory(rng, phi=0.7, n=30)
        passed.append(criterion.measurement(list(steady[:20]), list(steady[20:])).stable)
    assert np.mean(seen) >= 0.85  # 7 σ of the noise, 3 of the mean's: memory does not excuse it (10 %: 74 %)
    assert np.mean(passed) >= 0.7  # the same noise without the step passes (three tests at α = 0.1)


def test_drift_reaches_the_bound_with_a_warning_and_stops_at_forks_min():
    rng = np.random.default_rng(2)
    series = [flat(rng, sigma=0.01) * (1 + 0.005 * np.arange(100)) for _ in range(5)]
    sim = simulate(series, ReplayConfig((LEVEL, PRECISION), BOUNDS))
    assert sim.warmup_iterations == (50, 50)  # the scout's bound, and the bound again
    assert sim.fork_decisions[-1].reason == "unsettled" and "moving level" in sim.fork_decisions[-1].warning
    warnings = [d.warning for trail in sim.warmup_decisions for d in trail if d.warning]
    assert warnings  # the forks say why


def test_the_scout_finds_a_late_step_that_no_online_check_can_see():
    rng = np.random.default_rng(3)
    step = lambda: flat(rng, sigma=0.01) * np.where(np.arange(100) < 30, 1.25, 1.0)  # 25 % slower until 30
    series = [step() for _ in range(5)]
    blind = simulate(series, ReplayConfig((NO_SCOUT, PRECISION), BOUNDS))
    assert min(blind.warmup_iterations) < 30  # flat for 30 iterations: the online check ends warmup before it
    scouted = simulate(series, ReplayConfig((LEVEL, PRECISION), BOUNDS))
    assert scouted.warmup_iterations[0] == 50  # the scout runs the bound
    assert all(w >= 30 for w in scouted.warmup_iterations)  # and holds every other fork until after the step
    assert all(m.mean() < 1010 * 1.02 for m in scouted.measurement)  # measured after the step


def test_settled_from_is_the_earliest_level_point_that_leaves_half_the_series():
    level = LevelCriterion(alpha=0.1)
    rng = np.random.default_rng(4)
    series = list(flat(rng, n=60, sigma=0.005) * np.where(np.arange(60) < 20, 1.3, 1.0))
    # a rank test cannot make much of the last few points before a step: it may settle a few early (the
    # measurement check of the next forks catches the rest, test below), never long before
    assert 15 <= settled_from(series, 50, level.judge) <= 22
    drifting = list(flat(rng, n=60, sigma=0.005) * (1 + 0.01 * np.arange(60)))
    assert settled_from(drifting, 50, level.judge) is None
    # the scout's own tests (three, for the memory it estimated) on the same series
    long_judge = lambda values, what: level.judge_long(values, what, 0.0, 0.2)  # noqa: E731
    assert 15 <= settled_from(series, 50, long_judge) <= 22
    assert settled_from(drifting, 50, long_judge) is None


def test_a_measurement_taken_while_the_level_moves_is_measured_again():
    # flat for 12 iterations, then 40 % slower from iteration 15 on: warmup ends at 10-12, the step falls into
    # the measurement, which is relabelled as warmup; the next measurement is after the step
    rng = np.random.default_rng(5)
    series = [flat(rng, sigma=0.005) * np.where(np.arange(100) < 15, 1.0, 1.4) for _ in range(2)]
    sim = simulate(series, ReplayConfig((NO_SCOUT,), BOUNDS))
    for trail, warmup, measurement in zip(sim.warmup_decisions, sim.warmup_iterations, sim.measurement):
        reasons = [d.reason for d in trail]
        assert "level-changed" in reasons and reasons[-1] == "measured"
        assert warmup >= 15 and measurement.mean() > 1000 * 1.3


def test_the_measurement_check_cannot_exceed_warmup_max():
    policy = DynamicPolicy((NO_SCOUT,))
    trend = [100.0 * 1.05 ** i for i in range(60)]
    decision = policy.measurement_decision(BOUNDS, trend[:45], trend[45:55])
    assert decision.stop and decision.reason == "level-changed-at-bound" and "no room" in decision.warning
    decision = policy.measurement_decision(BOUNDS, trend[:20], trend[20:30])
    assert not decision.stop and decision.reason == "level-changed"


def test_fork_means_that_trend_are_not_stable():
    level = LevelCriterion()
    rising = [[100.0 * (1 + 0.03 * f)] * 10 for f in range(4)]
    assert level.forks(rising[:3]).stable  # three forks cannot show a trend
    state = level.forks(rising)
    assert state.stable is False and state.values["level.fork_trend_p"] < 0.05
    mixed = [rising[k] for k in (2, 0, 3, 1)]
    assert level.forks(mixed).stable


def test_precision_is_the_t_interval_of_the_log_fork_means():
    forks = [[100.0, 102.0], [104.0, 101.0], [99.0, 100.0]]
    logs = np.log([np.mean(f) for f in forks])
    half = sps.t.ppf(0.95, 2) * logs.std(ddof=1) / np.sqrt(3)
    assert relative_half_width(forks, 0.9) == pytest.approx(np.expm1(half))
    criterion = PrecisionCriterion(tolerance=0.05, confidence=0.9)
    assert criterion.forks(forks[:1]).stable is None
    assert criterion.forks(forks).stable and criterion.warmup([1.0]) is None


def test_precision_scales_with_the_fork_to_fork_noise():
    rng = np.random.default_rng(6)
    policy_forks = []
    for fork_sigma in (0.002, 0.05):
        used = []
        for _ in range(30):
            series = [flat(rng, sigma=0.01, level=1000.0 * rng.lognormal(0, fork_sigma)) for _ in range(5)]
            used.append(len(simulate(series, ReplayConfig((NO_SCOUT, PRECISION), BOUNDS)).measurement))
        policy_forks.append(np.mean(used))
    quiet, noisy = policy_forks
    assert quiet < 2.5 and noisy > 3.2  # quiet forks stop at forks.min, noisy ones need more


def test_the_within_fork_floor_is_the_variance_of_a_log_fork_mean():
    # independent reference: the empirical variance of log(mean of m iterations) over many seeded forks with no
    # fork-to-fork component, for a lognormal and a log-uniform (the examples' Noisy) iteration distribution
    rng = np.random.default_rng(11)
    m = 10
    for draw in (lambda size: rng.lognormal(0.0, 0.05, size), lambda size: np.exp(rng.uniform(0, np.log(40), size))):
        forks = draw((20_000, m))
        empirical = np.var(np.log(forks.mean(axis=1)), ddof=1)
        assert within_fork_variance(forks) == pytest.approx(empirical, rel=0.15)
    assert within_fork_variance([[5.0], [7.0]]) == 0.0  # single iterations: no within-fork estimate
    assert within_fork_variance([[1.0, 3.0], [2.0]]) == pytest.approx((2.0 / 4.0) * (1 / 2 + 1) / 2)


def test_forks_that_agree_by_chance_are_not_precise():
    # two fork means 0.5 % apart, but each fork's iterations vary 1x..40x: the bare t interval says ±3 %, the
    # iterations say the next fork's mean could be anywhere
    lucky = [[100.0, 4000.0, 900.0, 150.0, 1800.0], [1500.0, 300.0, 120.0, 3000.0, 2070.0]]
    means = np.log([np.mean(f) for f in lucky])
    bare = np.expm1(sps.t.ppf(0.95, 1) * means.std(ddof=1) / np.sqrt(2))
    assert bare < 0.05
    assert relative_half_width(lucky, 0.9) > 1.0
    assert PrecisionCriterion(tolerance=0.05, confidence=0.9).forks(lucky).stable is False


def test_a_deliberately_noisy_benchmark_never_stops_as_precise():
    # seeded simulation of the examples' Noisy benchmarks: iterations log-uniform over 40x, 5 per fork; with the
    # fork means alone about 1 in 40 such pairs would stop at 2 forks; with the floor none in 4,000 do, while
    # steady forks (1 % iteration noise) still stop at 2
    rng = np.random.default_rng(12)
    criterion = PrecisionCriterion(tolerance=0.05, confidence=0.9)
    noisy = np.exp(rng.uniform(0, np.log(40), (4000, 2, 5)))
    bare = np.expm1(sps.t.ppf(0.95, 1) * np.log(noisy.mean(axis=2)).std(axis=1, ddof=1) / np.sqrt(2))
    assert 0.01 < np.mean(bare <= 0.05) < 0.06
    assert not any(criterion.forks(pair).stable for pair in noisy)
    steady = rng.lognormal(0.0, 0.01, (400, 2, 5))
    assert np.mean([criterion.forks(pair).stable for pair in steady]) > 0.9


def test_the_scout_is_learned_without_fork_checkpoints_as_compare_runs_forks():
    # compare asks only warmup and measurement decisions, fork after fork: the policy still knows which fork is the
    # scout and learns from it when its measurement is kept
    rng = np.random.default_rng(8)
    policy = DynamicPolicy((LEVEL,))
    forks_run = []
    for _ in range(3):
        series = list(flat(rng, sigma=0.005) * np.where(np.arange(100) < 25, 1.3, 1.0))
        from benchwarden.runner.labels import ForkLabels

        labels = ForkLabels(policy, BOUNDS, float)
        for value in series:
            labels.add(value)
            if labels.done:
                break
        forks_run.append(len(labels.warmup))
    assert forks_run[0] == 50  # the scout
    assert all(w >= 25 for w in forks_run[1:]) and all(w < 50 for w in forks_run[1:])  # learned, not the bound


def test_a_measurement_taken_again_up_to_warmup_max_ends_warmup_there():
    # warmup ends at 40, the measurement 40-50 sees the level move, 40 + 10 = warmup.max leaves exactly no more
    # warmup: the next iterations are the measurement, and the fork never needs more than warmup.max + iterations
    from benchwarden.model import StopDecision
    from benchwarden.runner.labels import ForkLabels

    class Scripted:
        name = "scripted"

        def warmup_decision(self, bounds, warmup_ns):
            return StopDecision(stop=len(warmup_ns) >= 40, reason="stable" if len(warmup_ns) >= 40 else "not-stable")

        def measurement_decision(self, bounds, warmup_ns, measurement_ns):
            if len(warmup_ns) == 40:
                return StopDecision(stop=False, reason="level-changed")
            return StopDecision(stop=True, reason="measured")

        def fork_decision(self, bounds, forks_ns, warmups_ns=None):
            return StopDecision(stop=True, reason="stable")

    labels = ForkLabels(Scripted(), BOUNDS, float)
    for value in range(BOUNDS.warmup_max + BOUNDS.iterations):
        labels.add(float(value + 1))
        if labels.done:
            break
    assert labels.done and len(labels.warmup) == 50 and len(labels.measurement) == 10
    assert [d.reason for d in labels.decisions][-3:] == ["level-changed", "maximum-reached", "measured"]


def test_series_too_short_for_the_tests_are_not_judged_rather_than_failing():
    # a fork of 3 values (tiny bounds, a smoke run) has nothing the tests can say: no verdict, no exception
    criterion = LevelCriterion(alpha=0.1, window=2, scout=True)
    assert criterion.measurement([100.0], [101.0, 99.0]) is None
    assert criterion.learn(1, [100.0], [101.0, 99.0]) is None and criterion.phi == 0.0  # no claim either way
    assert criterion.warmup_floor(2, 5) == (0, "")  # and holds no later fork back
