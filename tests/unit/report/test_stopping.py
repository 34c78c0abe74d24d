"""Time-saved accounting of a run (issue 13 item 3): untimed iterations, failed benchmarks, reference labels."""

from __future__ import annotations

import pytest

from benchwarden.config import CRITERION_DEFAULTS, RunSettings
from benchwarden.model import (
    Benchmark,
    BenchmarkId,
    BenchmarkResult,
    BenchmarkStatus,
    ForkResult,
    ForkStatus,
    IterationResult,
    StopDecision,
)
from benchwarden.report.stopping import (
    ReferenceBudget,
    budget_lines,
    budget_totals,
    checkpoint_table,
    criterion_label,
    stop_trail,
)

SETTINGS = RunSettings(iteration_time_s=1.0, warmup_min=2, warmup_max=10, iterations=3, forks_min=2, forks_max=4)
STATIC_ITERATIONS = 4 * (10 + 3)


def _fork(index, warmup_ns, measurement_ns, decisions=(), status=ForkStatus.COMPLETE, ops=None):
    it = lambda v: IterationResult(value_ns=v, raw_value=v, ops=ops)
    return ForkResult(index=index, status=status, warmup=tuple(map(it, warmup_ns)),
                      measurement=tuple(map(it, measurement_ns)), warmup_decisions=tuple(decisions))


def _result(mode="avgt", status=BenchmarkStatus.OK, forks=None, name="b"):
    forks = forks if forks is not None else (_fork(1, [5e8] * 4, [5e8] * 3), _fork(2, [5e8] * 4, [5e8] * 3))
    return BenchmarkResult(benchmark=Benchmark(BenchmarkId("s", name), mode, "ns/op"), forks=tuple(forks),
                           status=status)


def test_time_boxed_iterations_cost_the_iteration_time():
    trail = stop_trail(_result(), SETTINGS, ReferenceBudget(seconds=500.0, label="JMH 1.37 defaults"))
    assert trail.model_s == 14 * 1.0 and trail.static_s == STATIC_ITERATIONS * 1.0
    assert trail.saved_vs_static == pytest.approx(1 - 14 / STATIC_ITERATIONS)
    assert trail.saved_vs_reference == pytest.approx(1 - 14 / 500)


def test_single_shot_and_command_iterations_cost_what_they_measured():
    # 0.5 s per execution, whatever the configured iteration time (1 s)
    for mode in ("ss", "wall"):
        trail = stop_trail(_result(mode=mode), SETTINGS,
                           ReferenceBudget(seconds=0.0, label="JMH 1.37 defaults, 5 × (5 + 5) single-shot",
                                           iterations=50))
        assert trail.model_s == pytest.approx(14 * 0.5)
        assert trail.static_s == pytest.approx(STATIC_ITERATIONS * 0.5)
        assert trail.reference_s == pytest.approx(50 * 0.5)
        assert trail.saved_vs_reference == pytest.approx(1 - 14 / 50)


def test_failed_benchmarks_have_no_saving_and_stay_out_of_the_totals():
    ok = stop_trail(_result(name="ok"), SETTINGS, ReferenceBudget(500.0, "JMH 1.37 defaults"))
    crashed = _result(name="bad", status=BenchmarkStatus.FAILED,
                      forks=(_fork(1, [5e8] * 2, [], status=ForkStatus.FAILED),))
    failed = stop_trail(crashed, SETTINGS, ReferenceBudget(500.0, "JMH 1.37 defaults"))
    assert failed.saved_vs_static is None and failed.saved_vs_reference is None  # not "100 %"
    totals = budget_totals([ok, failed])
    assert totals.excluded == 1 and totals.static_s == ok.static_s and totals.reference_s == 500.0
    assert totals.saved_vs_static == pytest.approx(ok.saved_vs_static)
    lines = budget_lines(totals)
    assert any("static budget of this configuration (forks.max × (warmup.max + iterations))" in x for x in lines)
    assert any("against the reference budget — JMH 1.37 defaults" in x for x in lines)
    assert any("1 failed benchmark(s) left out" in x for x in lines)


def test_checkpoints_are_numbered_across_a_measurement_taken_again():
    below = StopDecision(False, "below-minimum")
    decisions = [below, StopDecision(True, "stable"),  # warmup 1, 2
                 StopDecision(False, "level-changed"),  # the 3 measured iterations become warmup 3-5
                 StopDecision(True, "stable"),  # warmup 6
                 StopDecision(True, "measured")]
    result = _result(forks=(_fork(1, [5e8] * 6, [5e8] * 3, decisions), _fork(2, [5e8] * 6, [5e8] * 3, decisions)))
    trail = stop_trail(result, SETTINGS)
    assert trail.forks[0].remeasured == 1 and trail.forks[0].reason == "stable"
    labels = [row[0] for row in checkpoint_table(trail).rows[:4]]
    assert labels == ["fork 1 warmup 2", "fork 1 after measuring", "fork 1 warmup 6", "fork 1 after measuring"]


def test_criterion_labels_say_what_each_threshold_means():
    d = CRITERION_DEFAULTS
    assert [criterion_label(d[n]) for n in ("level", "precision", "cv", "kld")] == [
        "level(p>0.1, scout)", "precision(±5% @90%)", "cv<=0.01", "kld>=0.99"]
