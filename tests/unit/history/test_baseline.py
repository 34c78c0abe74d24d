"""`compare --against history`'s rule, by seeded simulation: A/A quiet, real changes found, intervals that hold
their level and do not explode because of one disturbed commit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scistats

from benchwarden.compare.verdict import Verdict
from benchwarden.history.baseline import baseline_values, judge_against_history

LEVELS = dict(threshold=0.03, confidence=0.995, equivalence_confidence=0.95)


def simulate(rng, k: int, spread: float, change: float, runs: int, tails: str = "normal"):
    """``runs`` histories of ``k`` commit values and a candidate ``change`` away, noise of relative sd ``spread``."""
    def draw(size):
        if tails == "t3":  # heavy tails, scaled to the same sd
            return rng.standard_t(3, size) * spread / math.sqrt(3.0)
        return rng.normal(0.0, spread, size)
    return [(draw(k), math.log1p(change) + float(draw(1)[0])) for _ in range(runs)]


@pytest.mark.parametrize("k", [5, 10, 20])
@pytest.mark.parametrize("tails", ["normal", "t3"])
def test_aa_is_never_called_a_change_more_than_the_level_allows(k, tails):
    """Normal run-to-run noise: at most 1 % (measured 0.3-0.6 %; the level is 99.5 % two-sided).  Heavy tails
    (Student t, 3 df, for whole runs disturbed now and then): one candidate run is one draw from those tails, and
    no interval built from the history can know it; measured 1.3-3.1 % (benchmarks/history_rules_simulation.py),
    held here at 4 % and documented (docs/history.md: confirm a slower candidate with a second run)."""
    rng = np.random.default_rng(k)
    verdicts = [judge_against_history(h, y, **LEVELS).verdict for h, y in simulate(rng, k, 0.02, 0.0, 2000, tails)]
    false = sum(v.is_change for v in verdicts) / len(verdicts)
    assert false <= (0.01 if tails == "normal" else 0.04), false


def test_a_ten_percent_slowdown_at_two_percent_noise_is_found():
    rng = np.random.default_rng(1)
    verdicts = [judge_against_history(h, y, **LEVELS).verdict for h, y in simulate(rng, 15, 0.02, 0.10, 1000)]
    assert sum(v is Verdict.SLOWER for v in verdicts) / 1000 >= 0.85  # measured 88.5 %
    assert not any(v is Verdict.UNCHANGED for v in verdicts)


def test_unchanged_is_earned_only_when_the_history_is_precise_enough():
    rng = np.random.default_rng(2)
    quiet = [judge_against_history(h, y, **LEVELS).verdict for h, y in simulate(rng, 20, 0.005, 0.0, 500)]
    noisy = [judge_against_history(h, y, **LEVELS).verdict for h, y in simulate(rng, 20, 0.04, 0.0, 500)]
    assert sum(v is Verdict.UNCHANGED for v in quiet) / 500 >= 0.95
    assert not any(v is Verdict.UNCHANGED for v in noisy)  # ±4 % noise cannot vouch for ±3 %
    # and a real +5 % step is never called unchanged at either noise
    for spread in (0.005, 0.04):
        real = [judge_against_history(h, y, **LEVELS).verdict for h, y in simulate(rng, 20, spread, 0.05, 500)]
        assert not any(v is Verdict.UNCHANGED for v in real)


def test_the_interval_covers_the_true_ratio_at_its_level():
    """Coverage of the 95 % interval (the equivalence interval's level) over 4000 normal histories, against the
    binomial band of the nominal level (an independent check of the prediction-interval variance)."""
    rng = np.random.default_rng(3)
    covered = 0
    runs = 4000
    for h, y in simulate(rng, 8, 0.02, 0.07, runs):
        j = judge_against_history(h, y, **LEVELS)
        covered += j.equivalence_low <= 1.07 <= j.equivalence_high
    low, high = scistats.binom.interval(0.999, runs, 0.95)
    assert low <= covered <= high, covered / runs


def test_one_disturbed_commit_does_not_explode_the_interval():
    rng = np.random.default_rng(4)
    h = rng.normal(0.0, 0.01, 15)
    clean = judge_against_history(h, math.log(1.08), **LEVELS)
    h[6] += math.log(1.6)  # one commit's run measured beside a busy neighbour
    disturbed = judge_against_history(h, math.log(1.08), **LEVELS)
    assert disturbed.outliers == 1 and disturbed.commits == 14
    assert disturbed.high / disturbed.low < 1.2 * (clean.high / clean.low)
    assert (clean.verdict, disturbed.verdict) == (Verdict.SLOWER, Verdict.SLOWER)


def test_too_little_history_is_inconclusive_and_says_why():
    j = judge_against_history(np.array([0.0, 0.01]), 0.3, **LEVELS)
    assert j.verdict is Verdict.INCONCLUSIVE and j.ratio is None and "only 2 commit(s)" in (j.message or "")


def test_the_baseline_is_the_newest_segment_before_the_candidate():
    values = np.arange(40, dtype=float)
    assert list(baseline_values(values, [10, 25], end=40, window=20)) == list(range(25, 40))
    assert list(baseline_values(values, [10, 25], end=20, window=20)) == list(range(10, 20))
    assert list(baseline_values(values, [], end=40, window=5)) == list(range(35, 40))
    assert list(baseline_values(values, [10, 25], end=25, window=20)) == list(range(10, 25))
