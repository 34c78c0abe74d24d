"""The e2e tests' re-measurement of live statistical claims (tests/support/live.py): at most twice, visible."""

from __future__ import annotations

import pytest

from tests.support.live import LiveClaimRetried, measured_twice, pair_log_ratios


def test_a_right_first_measurement_is_not_repeated():
    calls = []
    outcome, wrong = measured_twice(lambda attempt: calls.append(attempt) or "quiet", lambda o: None)
    assert (outcome, wrong, calls) == ("quiet", None, [1])


def test_a_wrong_claim_is_measured_again_once_and_the_retry_is_reported():
    outcomes = {1: "faster", 2: "inconclusive"}
    with pytest.warns(LiveClaimRetried, match="A/A said faster"):
        outcome, wrong = measured_twice(outcomes.__getitem__, lambda o: None if o == "inconclusive" else f"A/A said {o}")
    assert (outcome, wrong) == ("inconclusive", None)


def test_two_wrong_claims_fail_with_both_descriptions():
    calls = []
    with pytest.warns(LiveClaimRetried):
        outcome, wrong = measured_twice(lambda attempt: calls.append(attempt) or f"slower #{attempt}", lambda o: o)
    assert calls == [1, 2] and outcome == "slower #2"
    assert wrong == "twice wrong -- first: slower #1; second: slower #2"


def test_pair_log_ratios_are_trimmed_fork_summaries_in_run_order():
    result = {"order": ["bc", "cb"],
              "measurements_ns": {"base": [[100, 100, 100, 100, 900], [200, 200]],
                                  "candidate": [[110, 110, 110, 110, 1], [190, 190]]}}
    # 5 iterations: one trimmed from each end (20 %); 2 iterations: none trimmed
    assert pair_log_ratios(result) == "bc:+10.0% cb:-5.0%"
