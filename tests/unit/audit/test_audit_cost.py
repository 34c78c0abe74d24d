"""JMH defaults by version and the cost model, against worked values from the papers."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchwarden.audit.cost import STUDY_DYNAMIC, RunShape, benchmark_cost, default_shape, observed_seconds
from benchwarden.audit.defaults import CURRENT_DEFAULTS, LEGACY_DEFAULTS, defaults_for, parse_version
from benchwarden.audit.project import audit_project
from benchwarden.model import Benchmark, BenchmarkId, BenchmarkResult, ForkResult, ForkStatus, RunData, RunMeta

DATA = Path(__file__).resolve().parents[2] / "data" / "audit"


@pytest.mark.parametrize("text, parsed", [("1.37", (1, 37, 0)), ("1.17.2", (1, 17, 2)), ("1.21-SNAPSHOT", (1, 21, 0)),
                                          ("1.10.+", (1, 10, 0)), ("1.+", None), ("[1.20,1.30)", None), (None, None)])
def test_parse_version(text, parsed):
    assert parse_version(text) == parsed


@pytest.mark.parametrize("version, expected", [("1.20", LEGACY_DEFAULTS), ("1.17.2", LEGACY_DEFAULTS),
                                               ("1.21", CURRENT_DEFAULTS), ("1.37", CURRENT_DEFAULTS),
                                               (None, CURRENT_DEFAULTS), ("1.+", CURRENT_DEFAULTS)])
def test_defaults_by_version(version, expected):
    assert defaults_for(version) is expected


def test_default_cost_per_combination_matches_the_thesis():
    # Würsten 2020 L1186 / Laaber et al. 2020 §2.2: 400 s before 1.21, 500 s from 1.21 on
    assert default_shape(LEGACY_DEFAULTS).combination_s == 400.0
    assert default_shape(CURRENT_DEFAULTS).combination_s == 500.0


def test_warmup_forks_are_charged_as_whole_trials_and_zero_forks_as_one():
    shape = RunShape(forks=2, warmup_forks=1, warmup_iterations=4, warmup_time_s=0.2, measurement_iterations=7,
                     measurement_time_s=0.5)
    assert shape.combination_s == pytest.approx(3 * (4 * 0.2 + 7 * 0.5))  # eq. 2.1 + 2.2
    zero = RunShape(0, 1, 5, 1.0, 5, 1.0)
    assert zero.combination_s == 10.0


def test_dynamic_estimate_is_the_studys_executed_configuration():
    # Würsten 2020 Table 5.8 (divergence): 4.1 forks x (14.1 warmup + 10 measurement) x 1 s
    assert STUDY_DYNAMIC.expected_s == pytest.approx(98.81)
    assert (STUDY_DYNAMIC.min_s, STUDY_DYNAMIC.max_s) == (30.0, 300.0)


@pytest.fixture(scope="module")
def report():
    return audit_project(DATA / "annotations")


def cost_of(report, name):
    return next(b.cost for b in report.benchmarks if b.config.name == f"fixture.{name}")


def test_costs_of_fixture_benchmarks(report):
    # 2 modes x 3 trials (1 warmup fork + 2 forks) x (4 x 200 ms + 7 x 500 ms)
    assert cost_of(report, "ForkForms.methodWins").own_s == pytest.approx(2 * 3 * 4.3)
    # 64 combinations x 1 fork x (2 x 1 s + 2 x 1 s); JMH 1.37 defaults: 64 x 500 s
    grid = cost_of(report, "GridBench.grid")
    assert (grid.own_s, grid.default_s, grid.combinations) == (256.0, 32000.0, 64)
    # Mode.All: three timed modes, single-shot untimed
    all_modes = cost_of(report, "ForkForms.allModes")
    assert all_modes.timed_modes == ("Throughput", "AverageTime", "SampleTime")
    assert all_modes.untimed_modes == ("SingleShotTime",)
    assert all_modes.own_s == pytest.approx(3 * 3 * (5 * 2 + 6 * 2))
    assert cost_of(report, "ForkForms.fullyQualified").own_s == 0.0


def test_suite_total_is_the_sum(report):
    assert report.suite.own_s == pytest.approx(sum(b.cost.own_s for b in report.benchmarks))
    assert report.suite.dynamic_source == "estimate"
    timed = sum(b.config.combinations for b in report.benchmarks if b.cost.timed_modes)
    assert report.suite.dynamic_s == pytest.approx(timed * STUDY_DYNAMIC.expected_s)


def _run(name, params, durations):
    bench = Benchmark(BenchmarkId("s", name, params), mode="avgt", unit="ns/op")
    forks = tuple(ForkResult(i + 1, ForkStatus.COMPLETE, started_at=100.0, finished_at=100.0 + d)
                  for i, d in enumerate(durations))
    return BenchmarkResult(bench, forks)


def test_stored_runs_replace_the_estimate_per_combination(report):
    runs = [RunData(RunMeta(created_at=0, tool_version="t"), (
        _run("fixture.ParamsBench.own", (("kind", "a"), ("size", "1"), ("color", "RED")), [20.0, 22.5]),
        _run("fixture.Pitfalls.singleFork", (), [31.0]),
    ))]
    observed = observed_seconds(runs)
    assert observed[("fixture.Pitfalls.singleFork", frozenset())] == 31.0
    config = next(b.config for b in report.benchmarks if b.config.name == "fixture.ParamsBench.own")
    cost = benchmark_cost(config, CURRENT_DEFAULTS, observed)
    assert cost.dynamic_observed == 1  # parameter order does not matter
    assert cost.dynamic_s == pytest.approx(42.5 + 17 * STUDY_DYNAMIC.expected_s)
