"""maxSpread, buckets, v and the unstable flag against hand-worked values and the study's definitions."""

from __future__ import annotations

import numpy as np
import pytest

from benchwarden.assess.variability import (
    BUCKETS,
    assess_benchmark,
    assess_variability,
    bucket_of,
    percentile_rank,
    recommended_threshold,
    relative_exclusion,
    spread_percentile,
    suggested_slowdown,
)


def test_buckets_are_lower_inclusive_and_cover_everything():
    assert [bucket_of(x) for x in (0.0, 0.049, 0.05, 0.1, 0.2499, 0.25, 0.5, 7.0)] == [
        "0–5%", "0–5%", "5–10%", "10–25%", "10–25%", "25–50%", ">50%", ">50%"]
    assert [b[2] for b in BUCKETS] == ["0–5%", "5–10%", "10–25%", "25–50%", ">50%"]
    with pytest.raises(ValueError):
        bucket_of(-0.1)


def test_v_is_twice_the_value_at_rank_floor_095_n():
    # 20 spreads 0.01..0.20: rank floor(0.95*20)=19 -> 0.19 -> v = 0.38 (digest seed-003 §3.3)
    spreads = [i / 100 for i in range(1, 21)]
    assert percentile_rank(20) == 19
    assert spread_percentile(spreads) == pytest.approx(0.19)
    assert suggested_slowdown(spreads) == pytest.approx(0.38)
    # 6 benchmarks: rank 5 -> the worst one is ignored
    assert suggested_slowdown([0.01, 0.02, 0.03, 0.04, 0.05, 0.9]) == pytest.approx(0.10)
    assert suggested_slowdown([0.3]) == pytest.approx(0.6) and suggested_slowdown([]) is None


def test_relative_exclusion_drops_the_ranks_above_the_95th_percentile():
    spreads = {f"b{i}": i / 100 for i in range(1, 21)}
    assert relative_exclusion(spreads) == {"b20"}
    assert relative_exclusion({"a": 0.1, "b": 0.1, "c": 0.1}) == {"c"}  # ties broken by key
    assert relative_exclusion({}) == set()


def test_max_spread_of_run_means_matches_the_definition():
    # run means 100, 110, 90 -> (110-90)/100 = 0.2 (study Eq. 1)
    runs = [[[100.0, 100.0]], [[110.0, 110.0]], [[90.0, 90.0]]]
    b = assess_benchmark("x", runs)
    assert b.max_spread == pytest.approx(0.2) and b.bucket == "10–25%"
    assert b.cv == 0.0 and not b.unstable
    assert b.recommended_threshold == pytest.approx(0.2)


def test_unstable_by_spread_or_by_cv():
    rng = np.random.default_rng(1)
    steady = [[list(100 + rng.normal(0, 1, 10)) for _ in range(2)] for _ in range(3)]
    noisy = [[list(100 * np.exp(rng.uniform(0, 1.5, 10))) for _ in range(2)] for _ in range(3)]
    drifting = [[[100.0] * 10], [[140.0] * 10]]
    assert not assess_benchmark("s", steady).unstable
    n = assess_benchmark("n", noisy)
    assert n.unstable and any("CV" in r for r in n.reasons)
    d = assess_benchmark("d", drifting)
    assert d.unstable and d.reasons == ("maxSpread 33.3% >= 25%",)


def test_recommended_threshold_rounds_up_to_whole_percent():
    assert recommended_threshold(0.031, 0.02) == pytest.approx(0.04)
    assert recommended_threshold(0.0, 0.0) == pytest.approx(0.01)
    assert recommended_threshold(0.05, float("nan")) == pytest.approx(0.05)


def test_benchmarks_missing_from_a_run_are_skipped_not_assessed():
    report = assess_variability({"a": [[[1.0, 1.1]], [[1.0, 1.2]]], "b": [[[1.0, 1.0]], None]}, n_runs=2)
    assert [b.key for b in report.benchmarks] == ["a"] and report.skipped == ("b",)
    assert report.bucket_counts()["0–5%"] + report.bucket_counts()["5–10%"] == 1
