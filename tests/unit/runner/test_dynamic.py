"""The dynamic stop policy through the real runner (fake in-process adapter, real SQLite store).

The four behaviours the issue asks for: constant data stops at the minimums; trending data never
stabilises and stops at the bounds with a warning; no decision before the minimums; per-fork reset of
the warmup state.  Plus: fork checkpoints pool measurement iterations only, and the study's time-model
arithmetic (digest seed-002 §10, test 5; seed-004 §5.5).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from benchwarden.adapters.base import SuiteContext
from benchwarden.config import CRITERION_DEFAULTS, DEFAULT_CRITERIA, RunSettings, Suite
from benchwarden.model import RunMeta
from benchwarden.replay import STUDY_BOUNDS, ReplayConfig, ReplayedBenchmark, ReplayEvaluation, dynamic_seconds
from benchwarden.runner.dynamic import DynamicPolicy
from benchwarden.runner.engine import Runner, plan_run
from benchwarden.runner.labels import last_warmup_checkpoint
from benchwarden.runner.policy import Bounds, make_policy
from benchwarden.store import open_store
from tests.support.fake_adapter import FakeAdapter, FakeBenchmarkSpec

CV, RCIW, KLD = (CRITERION_DEFAULTS[n] for n in ("cv", "rciw", "kld"))
LEVEL = replace(CRITERION_DEFAULTS["level"], scout=False)  # the scout fork is tested in test_level.py
CRITERIA_SETS = {"cv": (CV,), "rciw": (RCIW,), "kld": (KLD,), "cv+kld": (CV, KLD), "all": (CV, RCIW, KLD),
                 "level": (LEVEL,)}


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "results.db")
    yield s
    s.close()


def run_one(tmp_path: Path, store, values, criteria=(CV,), **bounds):
    settings = dict(iteration_time_s=0.001, warmup_min=5, warmup_max=20, iterations=4, forks_min=2, forks_max=4,
                    stop="dynamic", criteria=tuple(criteria))
    settings.update(bounds)
    suite = Suite(SuiteContext(name="s", kind="fake", root=tmp_path), RunSettings(**settings))
    adapter = FakeAdapter([FakeBenchmarkSpec("b", values=values)])
    plan = plan_run([suite], adapter_factory=lambda kind: adapter)
    (result,) = Runner(store).run(plan, RunMeta(created_at=0.0, tool_version="test")).results
    return result


@pytest.mark.parametrize("name", sorted(CRITERIA_SETS))
def test_constant_data_stops_at_the_minimums(tmp_path, store, name):
    result = run_one(tmp_path, store, lambda f, i: 250.0, CRITERIA_SETS[name])
    # a window of 5 values is complete at iteration 6 (a value needs two iterations or a predecessor);
    # level compares the window of 5 with the 5 iterations before it: 10
    first = 10 if name == "level" else 6
    assert [len(f.warmup) for f in result.forks] == [first, first]
    assert len(result.forks) == 2  # forks.min
    assert all(last_warmup_checkpoint(f.warmup_decisions).reason == "stable" for f in result.forks)
    assert result.fork_decisions[-1].reason == "stable" and result.fork_decisions[-1].stop
    assert sum(len(f.warmup) + len(f.measurement) for f in result.forks) == 2 * (first + 4)
    assert all(d.warning is None for f in result.forks for d in f.warmup_decisions)


def test_constant_data_stops_exactly_at_a_larger_warmup_minimum(tmp_path, store):
    result = run_one(tmp_path, store, lambda f, i: 250.0, (CV,), warmup_min=9, forks_min=3)
    assert [len(f.warmup) for f in result.forks] == [9, 9, 9] and len(result.forks) == 3


def trend(fork: int, i: int) -> float:
    """Slower every iteration and every fork: no window ever settles."""
    return 100.0 * 1.15 ** i * 3.0 ** fork


@pytest.mark.parametrize("name", ["cv", "rciw", "kld", "cv+kld", "level"])
def test_trending_data_never_stabilises_and_stops_at_the_bounds_with_warnings(tmp_path, store, name):
    result = run_one(tmp_path, store, trend, CRITERIA_SETS[name])
    assert [len(f.warmup) for f in result.forks] == [20, 20]  # warmup.max in every fork
    # no fork settled: more forks would only average a moving level, so forks.min and a warning
    assert len(result.forks) == 2
    for fork in result.forks:
        last = last_warmup_checkpoint(fork.warmup_decisions)
        assert last.stop and last.reason == "maximum-reached"
        assert "did not become stable within 20 iterations" in last.warning
        assert name.split("+")[0] in last.warning  # names the criterion that failed
    final = result.fork_decisions[-1]
    assert final.stop and final.reason == "unsettled" and "no fork reached a steady state" in final.warning
    # never beyond the static budget forks.max x (warmup.max + iterations)
    assert sum(len(f.warmup) + len(f.measurement) for f in result.forks) == 2 * (20 + 4)


def test_forks_that_settle_go_on_to_the_fork_bound_when_their_means_disagree(tmp_path, store):
    # flat forks whose levels triple from fork to fork: warmup is stable, the mean across forks is not
    result = run_one(tmp_path, store, lambda f, i: 100.0 * 3.0 ** f, (CV,))
    assert len(result.forks) == 4 and result.fork_decisions[-1].reason == "maximum-reached"
    assert "within 4 forks" in result.fork_decisions[-1].warning


def test_no_decision_before_the_minimums(tmp_path, store):
    result = run_one(tmp_path, store, lambda f, i: 100.0, (CV,), warmup_min=8, forks_min=3)
    for fork in result.forks:
        reasons = [d.reason for d in fork.warmup_decisions]
        assert reasons == ["below-minimum"] * 7 + ["stable", "measured"]  # the last: after the measurement
        assert not any(d.stop for d in fork.warmup_decisions[:7])
    assert [d.reason for d in result.fork_decisions] == ["below-minimum", "below-minimum", "stable"]


def test_policy_itself_never_stops_below_the_minimum():
    policy = DynamicPolicy((CV,))
    bounds = Bounds(8, 20, 4, 3, 5)
    for n in range(1, 8):
        decision = policy.warmup_decision(bounds, [100.0] * n)
        assert not decision.stop and decision.reason == "below-minimum"
    assert not policy.fork_decision(bounds, [[1.0, 1.0]] * 2).stop


def test_warmup_state_resets_with_every_fork(tmp_path, store):
    # fork 1 trends through its whole warmup; fork 2 is flat from the start
    values = lambda f, i: 100.0 * 1.2 ** i if f == 1 else 100.0
    result = run_one(tmp_path, store, values, (CV, KLD), forks_min=2, forks_max=2)
    assert len(result.forks[0].warmup) == 20 and last_warmup_checkpoint(result.forks[0].warmup_decisions).warning
    # if fork 1's iterations leaked into fork 2's window, fork 2 could not be stable at iteration 6
    assert len(result.forks[1].warmup) == 6 and last_warmup_checkpoint(result.forks[1].warmup_decisions).reason == "stable"


def test_one_policy_object_gives_each_fork_the_same_answer_as_a_fresh_policy():
    bounds = Bounds(5, 20, 4, 2, 4)
    shared = DynamicPolicy((CV, RCIW, KLD))
    fork1 = [300.0 / (i + 1) + 100 for i in range(20)]
    fork2 = [100.0 + (i % 3) for i in range(12)]
    for n in range(5, 21):
        shared.warmup_decision(bounds, fork1[:n])
    fresh = DynamicPolicy((CV, RCIW, KLD))
    for n in range(5, 13):
        assert shared.warmup_decision(bounds, fork2[:n]) == fresh.warmup_decision(bounds, fork2[:n])


def test_fork_checkpoints_pool_measurement_iterations_only(tmp_path, store):
    # warmup iterations are wild (and differ by fork); measurement iterations are identical everywhere
    values = lambda f, i: 50.0 * f * i if i <= 6 else 100.0
    result = run_one(tmp_path, store, values, (CV,))
    assert len(result.forks) == 2 and result.fork_decisions[-1].reason == "stable"
    assert result.fork_decisions[-1].values == {"cv": 0.0, "cv.spread": 0.0}


def test_values_are_recorded_at_every_checkpoint(tmp_path, store):
    result = run_one(tmp_path, store, lambda f, i: 100.0 + (i % 2), (CV, KLD))
    d = last_warmup_checkpoint(result.forks[0].warmup_decisions)
    assert set(d.values) == {"cv", "cv.spread", "kld", "kld.mean"}
    assert result.forks[0].warmup_decisions[4].reason == "window-incomplete"  # iteration 5: window of 5 not full
    stored = store.load_run(1).results[0]
    assert stored.forks[0].warmup_decisions == result.forks[0].warmup_decisions  # kept for transparency


def test_make_policy_takes_a_name_or_settings():
    assert make_policy("static").name == "static"
    assert make_policy("dynamic").criteria == DEFAULT_CRITERIA
    assert [c.name for c in DEFAULT_CRITERIA] == ["level", "precision"]
    settings = RunSettings(stop="dynamic", criteria=(KLD, RCIW))
    assert [c.name for c in make_policy(settings).criteria] == ["kld", "rciw"]
    with pytest.raises(ValueError, match="unknown stop policy"):
        make_policy("magic")


# --- the study's time model (digest seed-002 §10 test 5; seed-004 §5.5) --------------------------------------


def _evaluation(warmups_per_benchmark: list[tuple[int, ...]], mi: int = 10, baseline: int = 500) -> ReplayEvaluation:
    benchmarks = tuple(ReplayedBenchmark(key=str(k), warmup_iterations=w, warmup_stable=(True,) * len(w),
                                         forks_stable=True, iterations=sum(w) + mi * len(w),
                                         baseline_iterations=baseline, change=0.0, ratio_low=0.9, ratio_high=1.1,
                                         compute_s=0.0, checkpoints=1)
                       for k, w in enumerate(warmups_per_benchmark))
    return ReplayEvaluation(ReplayConfig((CV,), replace(STUDY_BOUNDS, iterations=mi)), benchmarks)


def _warmups_for(total_s: int, combinations: int) -> list[tuple[int, ...]]:
    """Per combination 2 forks of 10 measurement iterations, warmups spread so that the total is ``total_s``."""
    warm_total = total_s - combinations * 2 * 10
    base, extra = divmod(warm_total, combinations * 2)
    flat = [base + (1 if k < extra else 0) for k in range(combinations * 2)]
    return [tuple(flat[2 * c: 2 * c + 2]) for c in range(combinations)]


@pytest.mark.parametrize("combinations, saved_hours, expected", [
    (39, 2.62, 0.484),  # byte-buddy, RCIW: the study's minimum
    (40, 4.78, 0.860),  # Jenetics, CV: the maximum
    (1381, 157.32, 0.820),  # JDK, CV
])
def test_table3_arithmetic(combinations, saved_hours, expected):
    static_s = combinations * 500  # JMH 1.21 defaults: 5 forks x (5 + 5) x 10 s per combination
    dynamic_s = round(static_s - saved_hours * 3600)  # 1-s iterations: seconds = iterations
    evaluation = _evaluation(_warmups_for(dynamic_s, combinations))
    assert sum(b.iterations for b in evaluation.benchmarks) == dynamic_s
    assert evaluation.time_saved == pytest.approx(expected, abs=0.0006)


def test_bounds_of_the_study_configuration():
    bounds = STUDY_BOUNDS  # <5, 50, 10, 2, 5>
    assert _evaluation([(bounds.warmup_min,) * bounds.forks_min]).time_saved == pytest.approx(1 - 30 / 500)  # 94 %
    assert _evaluation([(bounds.warmup_max,) * bounds.forks_max]).time_saved == pytest.approx(1 - 300 / 500)  # 40 %


def test_wuersten_worked_example_with_criterion_overhead():
    # CoV: 2 forks with 15 and 9 warmup iterations, 10 x 1 s measurement, overhead 0.88 % on warmup -> 44.21 s
    assert dynamic_seconds((15, 9), 10, 1.0, overhead=0.0088) == pytest.approx(44.21, abs=0.005)
    evaluation = _evaluation([(15, 9)])
    assert evaluation.time_saved_with(0.0088) == pytest.approx(1 - 44.2112 / 500)
    assert evaluation.time_saved == pytest.approx(1 - 44 / 500)


def test_a_fixed_count_ends_without_a_warning(tmp_path, store):
    result = run_one(tmp_path, store, trend, (CV,), warmup_min=7, warmup_max=7, forks_min=3, forks_max=3)
    assert [len(f.warmup) for f in result.forks] == [7, 7, 7]
    assert all(last_warmup_checkpoint(f.warmup_decisions).reason == "fixed"
               and last_warmup_checkpoint(f.warmup_decisions).warning is None for f in result.forks)
    assert result.fork_decisions[-1].reason == "fixed" and result.fork_decisions[-1].warning is None
    assert "cv" in result.fork_decisions[-1].values  # the values are still recorded
